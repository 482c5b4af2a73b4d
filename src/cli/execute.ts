import path from "node:path";
import { Engine, EXIT_BY_END, STATUS_BY_END } from "../engine/index.js";
import { type CheckedManifest, checkManifestText } from "../families/index.js";
import { fleetDriver, fleetFor, isFleetStore, readyForWorkers } from "../fleet/index.js";
import {
  formatDiagnostic,
  hasMaskedKey,
  isSimulator,
  type ManifestSettings,
  maskLiteralKey,
  outputDirOf,
  whySimulator,
} from "../manifest/index.js";
import { dependantRules, dependantTemplates, planRun } from "../plan/index.js";
import { engineOptions, openGateway, type RunWork } from "../run/index.js";
import type { RunRow } from "../store/index.js";
import { linePrefix, openLogReporter, openReporter } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import { feedsOf, selectJobs } from "./only.js";
import { err, out, printDiagnostics } from "./output.js";
import { onInterrupt, runNotices } from "./run-signals.js";
import { defaultStore, openStoreAt, projectOf, storeAt, storeName } from "./store.js";
import { runTickOnce } from "./tick-once.js";

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
  return runTickOnce(
    file,
    checked,
    runId,
    flags,
    { name: settings.name, schedule, tick },
    { checked: executeChecked, manifest: executeManifest },
  );
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
    // A fleet works the run, or (the simulator in this process) this process alone.
    const fleet = fleetFor(store, baseUrl, flags.detach === true);
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
      if (fleet !== undefined) await readyForWorkers(fleet, id, outputDir, checked);
      else if (isFleetStore(store)) await store.fleet.workAlone(id);
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
        const driver = fleet
          ? await fleetDriver(fleet, work, { detach: flags.detach === true }, reporter)
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
