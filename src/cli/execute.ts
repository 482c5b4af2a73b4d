import path from "node:path";
import { systemClock } from "../core/clock.js";
import { Engine, type EngineEvent, EXIT_BY_END, STATUS_BY_END } from "../engine/index.js";
import { type CheckedManifest, checkManifestText } from "../families/index.js";
import { fleetDriver, isFleetStore, readyForWorkers } from "../fleet/index.js";
import {
  formatDiagnostic,
  hasMaskedKey,
  isSimulator,
  type ManifestSettings,
  maskLiteralKey,
  outputDirOf,
  type Schedule,
  tickLabel,
  whySimulator,
} from "../manifest/index.js";
import { dependantRules, dependantTemplates, planRun } from "../plan/index.js";
import { engineOptions, openGateway, type RunWork } from "../run/index.js";
import { describeHolder, idleTickReason, runTickUnderLease, tryLease } from "../schedule/index.js";
import { type RunRow, type Store, TickTrigger } from "../store/index.js";
import { linePrefix, openLogReporter, openReporter } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import { feedsOf, selectJobs } from "./only.js";
import { err, out, printDiagnostics } from "./output.js";
import { defaultStore, openStoreAt, projectOf, storeAt, storeName } from "./store.js";

/**
 * Running a manifest, shared by `run`, `resume`, `retry` and `schedule`: check it, take a
 * scheduled manifest's lease and record its tick, then drive the engine with a reporter.
 */

export interface RunFlags {
  db?: string;
  /** A PostgreSQL store's connection string. */
  store?: string;
  force?: boolean;
  /** Comma-separated job ids. */
  only?: string;
  baseUrl?: string;
  json?: boolean;
  /** Only failures and the summary. */
  quiet?: boolean;
  /** Run as of this time (ISO 8601): a scheduled manifest runs the tick due then. */
  at?: string;
  /** On a PostgreSQL store: record the run and its work, and leave it to the fleet's workers. */
  detach?: boolean;
}

export interface ExecuteOptions {
  /** When the run is asked for, ms (default now): picks a scheduled manifest's tick. */
  at?: number;
  /** The caller holds the manifest's lease and records its tick (the scheduler does). */
  underLease?: boolean;
  /** Where the run's lines go instead of the terminal: only failures and the summary. */
  log?: (line: string) => void;
}

export interface Executed {
  exit: ExitCode;
  /** The run it made or continued; undefined when none started (an invalid manifest). */
  runId: number | undefined;
}

/**
 * Checks a manifest and runs it. A scheduled manifest runs under its lease as one tick (the
 * latest due at `at`), recorded, unless the caller already holds the lease.
 */
export async function executeManifest(
  file: string,
  text: string,
  runId: number | undefined,
  flags: RunFlags,
  options: ExecuteOptions = {},
): Promise<Executed> {
  const checked = await checkManifestText(text, file, process.env, options.at ?? Date.now());
  if (options.log === undefined) printDiagnostics(checked.diagnostics, checked.shownText);
  else
    for (const diagnostic of checked.diagnostics)
      options.log(formatDiagnostic(diagnostic, undefined, false));
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) {
    (options.log ?? err)(`${file}: invalid; nothing was submitted`);
    return { exit: ExitCode.Invalid, runId: undefined };
  }
  const { schedule } = settings;
  const tick = checked.expanded.moment.tick;
  if (schedule === undefined || tick === undefined || options.underLease === true) {
    return executeChecked(file, checked, runId, flags, options.log);
  }
  return runTickOnce(file, checked, runId, flags, { name: settings.name, schedule, tick });
}

/**
 * A one-shot run of a scheduled manifest (a system crontab's `gwrun run`): takes the lease or
 * politely refuses with exit 4, then runs the tick as the scheduler would. A new run (not a
 * resume or retry, nor `--force`) of a tick that already ran to its end, or before any is
 * due, says so and exits 6: a cron line out of step with the schedule does not pass unseen.
 */
async function runTickOnce(
  file: string,
  checked: CheckedManifest,
  runId: number | undefined,
  flags: RunFlags,
  tick: { name: string; schedule: Schedule; tick: number },
): Promise<Executed> {
  const store = await openStoreAt(storeAt(flags, projectOf(file)));
  try {
    const lease = await tryLease(store, tick.name, systemClock, {
      onLost: () =>
        err(
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
      err(
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
        err(`gwrun: ${idle}; nothing was run`);
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
              ? await executeChecked(file, checked, runId, flags, undefined)
              : await executeManifest(
                  resume.manifest_path,
                  resume.manifest_text,
                  resume.id,
                  flags,
                  {
                    at,
                    underLease: true,
                  },
                );
          return { exitCode: done.exit, runId: done.runId };
        },
        log: (line) => {
          if (!quiet) err(`gwrun: ${line}`);
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

async function executeChecked(
  file: string,
  checked: CheckedManifest,
  runId: number | undefined,
  flags: RunFlags,
  log: ((line: string) => void) | undefined,
): Promise<Executed> {
  const settings = checked.expanded.settings as ManifestSettings;
  const { moment } = checked.expanded;
  const jobs = selectJobs(checked.jobs, flags.only);
  // Loaded on first use: sharp and the media tools are not needed to validate or plan.
  const { writeReport } = await import("../postprocess/index.js");
  const project = projectOf(file);
  const outputDir = path.resolve(project, outputDirOf(settings, moment));
  const at = storeAt(flags, project);
  // Hints name the database only when a command started here would not find it.
  const dbToName = at.location === defaultStore() ? undefined : storeName(at.location);
  const store = await openStoreAt(at);
  try {
    const feeds = await feedsOf(store, outputDir, jobs);
    const baseUrl = flags.baseUrl ?? settings.gateway.baseUrl;
    // A schedule left on the simulator (a variable its cron job lacks) is told at every tick.
    if (moment.tick !== undefined && isSimulator(baseUrl))
      (log ?? err)(
        `${linePrefix(true)}warning: tick ${moment.tickLabel} of ${settings.name} runs against the built-in simulator (${whySimulator(checked.source, process.env, flags.baseUrl)}): stand-in outputs, no real money`,
      );
    const gateway = await openGateway(settings, baseUrl, hasMaskedKey(checked.source));
    try {
      const now = Date.now();
      // A scheduled tick has one run: running the tick again continues it.
      const id =
        runId ??
        (moment.tick === undefined
          ? undefined
          : (await store.runOfTick(settings.name, moment.tick))?.id) ??
        (await store.createRun({
          name: settings.name,
          manifest_path: path.resolve(file),
          // Kept for `gwrun resume`, without a key written in it.
          manifest_text: maskLiteralKey(checked.source),
          base_url: baseUrl,
          output_dir: outputDir,
          started_at: now,
          tick: moment.tick,
        }));
      // The plan is what runs: its tasks are recorded as `gwrun plan --json` prints them.
      const plan = planRun(file, settings, jobs, { moment });
      if (isFleetStore(store)) await readyForWorkers(store, id, outputDir, checked);
      await store.recordTasks(id, plan.tasks, now);
      // Kept so that `gwrun status` counts the dependants still to come as the run does.
      await store.setDependantRules(id, JSON.stringify(dependantRules(dependantTemplates(jobs))));
      let interrupt = () => {};
      // `q` or Ctrl-C on the dashboard (which reads the keys) is the same stop as SIGINT.
      const reporter =
        log === undefined
          ? await openReporter(flags, () => interrupt(), dbToName)
          : openLogReporter(log, dbToName);
      try {
        let stopReason: string | null = null;
        const notices = runNotices(store, id);
        const work: RunWork = {
          store,
          gateway,
          runId: id,
          settings,
          jobs,
          outputDir,
          baseUrl,
          force: flags.force === true,
          feeds,
          emit: (event) => {
            // Kept with the run, so `gwrun status` can say why it stopped.
            if (event.type === "run:stopping") stopReason = event.message;
            notices.note(event);
            reporter.emit(event);
          },
        };
        const driver = isFleetStore(store)
          ? await fleetDriver(store, work, { detach: flags.detach === true }, reporter)
          : new Engine(await engineOptions(work));
        const onSignal = onInterrupt(
          () => driver.stop(),
          (message) => reporter.notice(message),
        );
        interrupt = onSignal.interrupt;
        try {
          const ran = await driver.run();
          if (ran === "detached") {
            out(`run ${id} recorded; the fleet's workers work it (gwrun status ${id} follows it)`);
            return { exit: ExitCode.Ok, runId: id };
          }
          const ended = "result" in ran ? ran : { result: ran, recorded: false, reported: false };
          const exit = EXIT_BY_END[ended.result.end];
          if (!ended.recorded)
            await store.finishRun(
              id,
              STATUS_BY_END[ended.result.end],
              exit,
              Date.now(),
              stopReason,
            );
          // Written before the reporter closes, so its summary can point at the gallery; also
          // when another worker settled the run, which may still be writing it.
          if (!ended.reported) await writeReport(store, (await store.run(id)) as RunRow);
          return { exit, runId: id };
        } finally {
          onSignal.dispose();
        }
      } finally {
        await reporter.close();
      }
    } finally {
      await gateway.close();
    }
  } finally {
    await store.close();
  }
}

/** Rate limiting noted at most this often: a spell of 429s is one notice, not hundreds. */
const NOTICE_EVERY_MS = 10_000;

/** Keeps what a viewer of the run's progress should hear: rate limiting, and a stop. */
function runNotices(store: Store, runId: number): { note(event: EngineEvent): void } {
  let lastRateLimit = Number.NEGATIVE_INFINITY;
  const keep = (type: string, message: string) => {
    // A notice is a courtesy: failing to keep one must not stop the run.
    store.recordRunNotice(runId, { at: Date.now(), type, message }).catch(() => {});
  };
  return {
    note(event) {
      if (event.type === "run:stopping") keep(event.type, event.message);
      if (event.type !== "gateway:rate-limited" || Date.now() - lastRateLimit < NOTICE_EVERY_MS)
        return;
      lastRateLimit = Date.now();
      keep(
        event.type,
        `the gateway is rate limiting; submitting at ${event.ratePerSecond.toFixed(2)}/s`,
      );
    },
  };
}

/**
 * First Ctrl-C (or SIGTERM, or `q` on the dashboard): stop gracefully. A second: exit at once —
 * the store is already consistent. `say` tells the person through the reporter.
 */
function onInterrupt(
  stop: () => void,
  say: (message: string) => void,
): { interrupt(): void; dispose(): void } {
  let count = 0;
  const handler = () => {
    count += 1;
    if (count === 1) {
      say("stopping: no new submits; Ctrl-C again to exit at once");
      stop();
    } else {
      process.exit(ExitCode.Interrupted);
    }
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    interrupt: handler,
    dispose() {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
