import { systemClock } from "../core/clock.js";
import type { CheckedManifest } from "../families/index.js";
import { type Schedule, tickLabel } from "../manifest/index.js";
import { describeHolder, idleTickReason, runTickUnderLease, tryLease } from "../schedule/index.js";
import { TickTrigger } from "../store/index.js";
import { executeChecked, executeUnderLease, recordedManifest } from "./execute-checked.js";
import { ExitCode } from "./exit-codes.js";
import type { Executed, RunFlags, RunHooks } from "./run-hooks.js";
import { openStoreAt, projectOf, storeAt } from "./store.js";

/** A run asked of a scheduled manifest, checked. */
export interface TickAsked {
  file: string;
  checked: CheckedManifest;
  /** The run to continue; undefined for a new one. */
  runId: number | undefined;
  flags: RunFlags;
  hooks: RunHooks;
}

/**
 * A one-shot run of a scheduled manifest (a system crontab's `gwrun run`): takes the lease or
 * politely refuses with exit 4, then runs the tick as the scheduler would. A new run (not a
 * resume or retry, nor `--force`) of a tick that already ran to its end, or before any is
 * due, says so and exits 6: a cron line out of step with the schedule does not pass unseen.
 */
export async function runTickOnce(
  asked: TickAsked,
  at: { name: string; schedule: Schedule; tick: number; due: boolean },
): Promise<Executed> {
  const { file, checked, runId, flags, hooks } = asked;
  const tick = { name: at.name, schedule: at.schedule, tick: at.tick };
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
              due: at.due,
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
        run: async ({ tick: when, resume }) => {
          const done =
            resume === undefined
              ? await executeChecked(file, checked, runId, flags, hooks)
              : await executeUnderLease(await recordedManifest(store, resume), flags, hooks, when);
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
