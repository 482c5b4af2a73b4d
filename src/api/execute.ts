import path from "node:path";
import { coerceError } from "../core/errors.js";
import {
  Engine,
  EXIT_BY_END,
  notifyRunEnd,
  type RunResult,
  STATUS_BY_END,
} from "../engine/index.js";
import { type CheckedManifest, checkManifestText } from "../families/index.js";
import {
  type FleetDriver,
  fleetDriver,
  fleetFor,
  isFleetStore,
  readyForWorkers,
} from "../fleet/index.js";
import {
  hasMaskedKey,
  isSimulator,
  type ManifestSettings,
  maskLiteralKey,
  outputDirOf,
  whySimulator,
} from "../manifest/index.js";
import { dependantRules, dependantTemplates } from "../plan/index.js";
import type { ObjectStorage } from "../publish/index.js";
import { engineOptions, openGateway, type RunWork } from "../run/index.js";
import type { PgStore, RunRow, Store } from "../store/index.js";
import { linePrefix, type Reporter } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import { HeldManifest } from "./held-manifest.js";
import { feedsOf } from "./only.js";
import { openPublishing } from "./publish.js";
import { recordInitialTasks } from "./record-plan.js";
import { runNotices } from "./run-notices.js";
import {
  defaultStore,
  openStoreAt,
  projectOf,
  type StoreFlags,
  storeAt,
  storeName,
} from "./store.js";
import { runTickOnce } from "./tick-once.js";

/**
 * Running a manifest, shared by `run`, `resume`, `retry` and `schedule`, and by the API: check
 * it, take a scheduled manifest's lease and record its tick, then drive the engine (or the
 * fleet) with the caller's reporter. What the caller hears goes through its `RunHooks`.
 */

export interface RunFlags extends StoreFlags {
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

/** How the caller of a run hears of it; the command line prints, the API collects. */
export interface RunHooks {
  /** The manifest as checked, before anything runs: its diagnostics are shown from it. */
  checked(checked: CheckedManifest): void;
  /** A line for the person: a warning, why nothing ran, a lease's news (prefixed `gwrun: `). */
  say(line: string): void;
  /** The run's reporter; `stop` is a graceful stop, `db` the store to name in hints. */
  reporter(stop: () => void, db: string | undefined): Promise<Reporter>;
  /**
   * The run is under way: `stop` ends it gracefully, `notice` tells the person. Returns the
   * stop a reporter's `q` does, and what to undo when the run ends.
   */
  underway(stop: () => void, notice: (message: string) => void): Underway;
  /** The environment manifests read (`${NAME}`, GW_API_KEY). */
  env: NodeJS.ProcessEnv;
}

export interface Underway {
  interrupt(): void;
  dispose(): void;
}

export interface ExecuteOptions {
  /** When the run is asked for, ms (default now): picks a scheduled manifest's tick. */
  at?: number;
  /** The caller holds the manifest's lease and records its tick (the scheduler does). */
  underLease?: boolean;
}

export interface Executed {
  exit: ExitCode;
  /** The run it made or continued; undefined when none started (an invalid manifest). */
  runId: number | undefined;
  /** How the run ended; undefined when none ran here (invalid, refused, or detached). */
  result?: RunResult;
  /** Recorded and left to the fleet's workers (`--detach`). */
  detached?: boolean;
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
  hooks: RunHooks,
  options: ExecuteOptions = {},
): Promise<Executed> {
  // Held as a run keeps it: its tasks are made again, page by page, when they are recorded.
  const checked = await checkManifestText(text, file, hooks.env, options.at ?? Date.now(), {
    hold: "templates",
  });
  hooks.checked(checked);
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) {
    hooks.say(`${file}: invalid; nothing was submitted`);
    return { exit: ExitCode.Invalid, runId: undefined };
  }
  const { schedule } = settings;
  const tick = checked.expanded.moment.tick;
  if (schedule === undefined || tick === undefined || options.underLease === true) {
    return executeChecked(file, new HeldManifest(checked, flags.only), runId, flags, hooks);
  }
  return runTickOnce(
    file,
    checked,
    runId,
    flags,
    hooks,
    { name: settings.name, schedule, tick },
    {
      checked: (file, checked, runId, flags, hooks) =>
        executeChecked(file, new HeldManifest(checked, flags.only), runId, flags, hooks),
      manifest: executeManifest,
    },
  );
}

async function executeChecked(
  file: string,
  manifest: HeldManifest,
  runId: number | undefined,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const settings = manifest.checked.expanded.settings as ManifestSettings;
  const { moment } = manifest.checked.expanded;
  const { source } = manifest.checked;
  // Loaded on first use: sharp and the media tools are not needed to validate or plan.
  const { writeReport } = await import("../postprocess/index.js");
  const project = projectOf(file);
  const outputDir = path.resolve(project, outputDirOf(settings, moment));
  const at = storeAt(flags, project);
  // Hints name the database only when a command started here would not find it.
  const dbToName = at.location === defaultStore() ? undefined : storeName(at.location);
  const store = await openStoreAt(at);
  try {
    const feeds = await feedsOf(store, outputDir, manifest.jobs);
    const baseUrl = flags.baseUrl ?? settings.gateway.baseUrl;
    // A schedule left on the simulator (a variable its cron job lacks) is told at every tick.
    if (moment.tick !== undefined && isSimulator(baseUrl))
      hooks.say(
        `${linePrefix(true)}warning: tick ${moment.tickLabel} of ${settings.name} runs against the built-in simulator (${whySimulator(source, hooks.env, flags.baseUrl)}): stand-in outputs, no real money`,
      );
    // A fleet works the run, or (the simulator in this process) this process alone.
    const fleet = fleetFor(store, baseUrl, flags.detach === true);
    // Object storage that refuses (credentials, a bucket) is found out before anything is paid.
    const targets = settings.output.publish;
    let storage: ObjectStorage | undefined;
    if (targets.length > 0)
      try {
        storage = await openPublishing(targets, hooks.env, { store, outputDir });
      } catch (error) {
        hooks.say(`${linePrefix(true)}${coerceError(error).message}; nothing was submitted`);
        return { exit: ExitCode.Invalid, runId: undefined };
      }
    const gateway = await openGateway(settings, baseUrl, hasMaskedKey(source), hooks.env);
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
          manifest_text: maskLiteralKey(source),
          base_url: baseUrl,
          output_dir: outputDir,
          started_at: now,
          tick: moment.tick,
          publish_to: targets.map((target) => target.url),
          unknown_cost: settings.limits.unknownCost,
        }));
      await recordPlan(store, id, manifest, fleet, outputDir, now);
      // Kept so that `gwrun status` counts the dependants still to come as the run does.
      await store.setDependantRules(
        id,
        JSON.stringify(dependantRules(dependantTemplates(manifest.jobs))),
      );
      let interrupt = () => {};
      // `q` or Ctrl-C on the dashboard (which reads the keys) is the same stop as SIGINT.
      const reporter = await hooks.reporter(() => interrupt(), dbToName);
      let executed: Executed;
      let notify = false;
      /** Told after the summary: what publishing found. */
      const afterwards: string[] = [];
      try {
        let stopReason: string | null = null;
        const notices = runNotices(store, id);
        const driver = await openDriver(fleet, flags, reporter, {
          store,
          gateway,
          runId: id,
          settings,
          jobs: manifest.jobs,
          outputDir,
          baseUrl,
          force: flags.force === true,
          feeds,
          storage,
          emit: (event) => {
            // Kept with the run, so `gwrun status` can say why it stopped.
            if (event.type === "run:stopping") stopReason = event.message;
            notices.note(event);
            reporter.emit(event);
          },
        });
        manifest.release();
        // The first Ctrl-C also ends the publishing a run's end does: it never holds the exit.
        const interrupted = new AbortController();
        const underway = hooks.underway(
          () => {
            interrupted.abort();
            driver.stop();
          },
          (message) => reporter.notice(message),
        );
        interrupt = underway.interrupt;
        try {
          const ran = await driver.run();
          if (ran === "detached") return { exit: ExitCode.Ok, runId: id, detached: true };
          const ended = "result" in ran ? ran : { result: ran, recorded: false, reported: false };
          let exit: ExitCode = EXIT_BY_END[ended.result.end];
          // What the run's uploads missed is sent now; an output not delivered fails the run.
          const publishing = ended.recorded ? undefined : storage;
          const publish =
            publishing === undefined ? undefined : await import("../publish/index.js");
          // What publishing is left waits no longer than a run's end may, nor past Ctrl-C.
          if (publishing !== undefined) publish?.withinEnd(publishing, interrupted.signal);
          if (publishing !== undefined && ended.result.end !== "interrupted") {
            const { publishRunOutputs } = publish as typeof import("../publish/index.js");
            const news = await publishRunOutputs(
              store,
              { id, output_dir: outputDir },
              publishing,
              targets,
            );
            afterwards.push(...news.lines);
            if (!news.complete && exit === ExitCode.Ok) exit = ExitCode.Failed;
          }
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
          if (publishing !== undefined) {
            const { publishFolderRecord } = publish as typeof import("../publish/index.js");
            afterwards.push(...(await publishFolderRecord(outputDir, publishing, targets)));
          }
          // A fleet's run is told of by the process that settled it.
          notify = !ended.recorded;
          executed = { exit, runId: id, result: ended.result };
        } finally {
          underway.dispose();
        }
      } finally {
        await reporter.close();
      }
      for (const line of afterwards) hooks.say(`${linePrefix(false)}${line}`);
      // After the summary: a slow webhook holds the exit, not the summary.
      if (notify && executed.result !== undefined)
        await notifyRunEnd(store, id, executed.result, settings.notify, {
          tell: (message) => hooks.say(`${linePrefix(false)}${message}`),
          db: dbToName,
          env: hooks.env,
        });
      return executed;
    } finally {
      await gateway.close();
      storage?.client.destroy();
    }
  } finally {
    await store.close();
  }
}

/** The plan is what runs: its tasks are recorded page by page (`recordInitialTasks`). */
async function recordPlan(
  store: Store,
  runId: number,
  manifest: HeldManifest,
  fleet: PgStore | undefined,
  outputDir: string,
  now: number,
): Promise<void> {
  if (fleet !== undefined) await readyForWorkers(fleet, runId, outputDir, manifest.checked);
  else if (isFleetStore(store)) await store.fleet.workAlone(runId);
  const chosen = new Set(manifest.jobs.map(({ job }) => job.spec.id));
  await recordInitialTasks(store, runId, manifest.checked, chosen, now);
}

/** The run's driver: the engine, or on a fleet's store the fleet's driver. */
async function openDriver(
  fleet: PgStore | undefined,
  flags: RunFlags,
  reporter: Reporter,
  work: RunWork,
): Promise<Engine | FleetDriver> {
  return fleet
    ? await fleetDriver(fleet, work, { detach: flags.detach === true }, reporter)
    : new Engine(await engineOptions(work));
}
