import { Engine } from "../engine/index.js";
import { type FleetDriver, fleetDriver } from "../fleet/index.js";
import { endRun, engineOptions, type RunEnded, type RunWork } from "../run/index.js";
import type { PgStore } from "../store/index.js";
import { linePrefix, type Reporter } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import type { Opened } from "./open-manifest-run.js";
import type { Executed, RunFlags, RunHooks } from "./run-hooks.js";
import { runNotices } from "./run-notices.js";

/** A recorded run driven to its end: the second half of `gwrun run`. */

/**
 * The run driven to its end, heard through the caller's reporter: the engine, or a fleet
 * followed until it settles; then ended as every run ends (`endRun`), and its webhooks told
 * after the summary (a slow webhook holds the exit, not the summary).
 */
export async function driveRun(
  opened: Opened,
  id: number,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Executed> {
  const { store, session, settings } = opened;
  let interrupt = () => {};
  // `q` or Ctrl-C on the dashboard (which reads the keys) is the same stop as SIGINT.
  const reporter = await hooks.reporter(() => interrupt(), opened.dbToName);
  let executed: Executed;
  let ended: RunEnded | undefined;
  try {
    let stopReason: string | null = null;
    const notices = runNotices(store, id);
    const driver = await openDriver(opened.fleet, flags, reporter, {
      store,
      gateway: session.gateway,
      runId: id,
      settings,
      jobs: opened.manifest.jobs,
      outputDir: opened.outputDir,
      baseUrl: opened.baseUrl,
      force: flags.force === true,
      feeds: opened.feeds,
      storage: session.storage,
      emit: (event) => {
        // Kept with the run, so `gwrun status` can say why it stopped.
        if (event.type === "run:stopping") stopReason = event.message;
        notices.note(event);
        reporter.emit(event);
      },
    });
    opened.manifest.release();
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
      const { result, recorded, reported } =
        "result" in ran ? ran : { result: ran, recorded: false, reported: false };
      // Written before the reporter closes, so its summary can point at the gallery.
      ended = await endRun({
        store,
        run: { id, output_dir: opened.outputDir },
        result,
        publishing:
          session.storage === undefined
            ? undefined
            : { storage: session.storage, targets: session.targets },
        interrupted: interrupted.signal,
        record: async (status, exit, states) => {
          await store.finishRun(id, status, exit, Date.now(), stopReason, states);
          return true;
        },
        settled: recorded,
        reported,
        notify: {
          targets: settings.notify,
          tell: (message) => hooks.say(`${linePrefix(false)}${message}`),
          db: opened.dbToName,
          env: hooks.env,
        },
      });
      executed = { exit: ended.exit as ExitCode, runId: id, result };
    } finally {
      underway.dispose();
    }
  } finally {
    await reporter.close();
  }
  for (const line of ended.lines) hooks.say(`${linePrefix(false)}${line}`);
  await ended.notify();
  return executed;
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
