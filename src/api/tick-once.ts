import { systemClock } from "../core/clock.js";
import type { CheckedManifest } from "../families/index.js";
import { type Schedule, tickLabel } from "../manifest/index.js";
import { describeHolder, idleTickReason, runTickUnderLease, tryLease } from "../schedule/index.js";
import { TickTrigger } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";
import type { Executed, ExecuteOptions, RunFlags, RunHooks } from "./run-hooks.js";
import { openStoreAt, projectOf, storeAt } from "./store.js";

/** How a tick's run is made: a checked manifest run, or a recorded run resumed. */
export interface TickExecutors {
  checked(
    file: string,
    checked: CheckedManifest,
    runId: number | undefined,
    flags: RunFlags,
    hooks: RunHooks,
  ): Promise<Executed>;
  manifest(
    file: string,
    text: string,
    runId: number | undefined,
    flags: RunFlags,
    hooks: RunHooks,
    options: ExecuteOptions,
  ): Promise<Executed>;
}

/**
 * A one-shot run of a scheduled manifest (a system crontab's `gwrun run`): takes the lease or
 * politely refuses with exit 4, then runs the tick as the scheduler would. A new run (not a
 * resume or retry, nor `--force`) of a tick that already ran to its end, or before any is
 * due, says so and exits 6: a cron line out of step with the schedule does not pass unseen.
 */
export async function runTickOnce(
  file: string,
  checked: CheckedManifest,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
  tick: { name: string; schedule: Schedule; tick: number },
  execute: TickExecutors,
): Promise<Executed> {
  const store = await openStoreAt(storeAt(flags, projectOf(file)));
  try {
    const lease = await tryLease(store, tick.name, systemClock, {
      onLost: () =>
        hooks.say(
          `gwrun: ${tick.name} lost its lease: this process stalled past its expiry, and another took it over`,
        ),
    });
    if (!("release" in lease)) {
      const holder = describeHolder(lease.heldBy, Date.now());
      const reason = `another run of ${tick.name} holds its lease (${holder})`;
      await store.recordTickNotRun(
        { ...tick, status: "skipped", trigger: TickTrigger.Run, reason },
        Date.now(),
      );
      hooks.say(
        `gwrun: ${tick.name} is already running (${holder}); tick ${tickLabel(tick.tick, tick.schedule)} not started`,
      );
      return { exit: ExitCode.Busy, runId: undefined };
    }
    try {
      const idle =
        runId === undefined && flags.force !== true
          ? await idleTickReason(store, tick.name, tick.schedule, {
              tick: tick.tick,
              due: checked.expanded.moment.due,
            })
          : undefined;
      if (idle !== undefined) {
        hooks.say(`gwrun: ${idle}; nothing was run`);
        return { exit: ExitCode.NoTick, runId: undefined };
      }
      const quiet = flags.quiet === true || flags.json === true;
      const exit = await runTickUnderLease({
        store,
        ...tick,
        trigger: TickTrigger.Run,
        clock: systemClock,
        run: async ({ tick: at, resume }) => {
          const done =
            resume === undefined
              ? await execute.checked(file, checked, runId, flags, hooks)
              : await execute.manifest(
                  resume.manifest_path,
                  resume.manifest_text,
                  resume.id,
                  flags,
                  hooks,
                  {
                    at,
                    underLease: true,
                  },
                );
          return { exitCode: done.exit, runId: done.runId };
        },
        log: (line) => {
          if (!quiet) hooks.say(`gwrun: ${line}`);
        },
      });
      return { exit: exit as ExitCode, runId: (await store.runOfTick(tick.name, tick.tick))?.id };
    } finally {
      await lease.release();
    }
  } finally {
    await store.close();
  }
}
