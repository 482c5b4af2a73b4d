import { readFile } from "node:fs/promises";
import path from "node:path";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { seededRandom } from "../core/random.js";
import { dependantTemplates, Engine, initialJobs, type RunEnd } from "../engine/index.js";
import { GatewayClient } from "../gateway/index.js";
import type { JobChecks } from "../manifest/index.js";
import { checkManifestText } from "../plan/index.js";
import { type RunRow, Store } from "../store/index.js";
import { openReporter, STATUS_BY_END } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import { openGatewayTarget } from "./gateway-target.js";
import { err, printDiagnostics } from "./output.js";

export interface RunFlags {
  db?: string;
  force?: boolean;
  /** Comma-separated job ids. */
  only?: string;
  baseUrl?: string;
  json?: boolean;
  /** Only failures and the summary. */
  quiet?: boolean;
}

/** Downloads larger than this are refused (a clip of minutes at 4K fits). */
const MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

const EXIT_BY_END: Readonly<Record<RunEnd, ExitCode>> = {
  done: ExitCode.Ok,
  failed: ExitCode.Failed,
  budget: ExitCode.Stopped,
  balance: ExitCode.Stopped,
  interrupted: ExitCode.Interrupted,
};

/** The state database: `--db`, else GWRUN_DB, else data/gwrun.db. */
export function dbPath(flags: { db?: string }): string {
  return flags.db ?? process.env.GWRUN_DB ?? path.join("data", "gwrun.db");
}

/** `gwrun run <manifest>` (and bare `gwrun <manifest>`): a new run of the manifest. */
export async function runManifest(file: string, flags: RunFlags): Promise<ExitCode> {
  const text = await readFile(file, "utf8");
  return execute(file, text, undefined, flags);
}

/** `gwrun resume [run]`: continues a run from the manifest snapshot stored with it. */
export async function resumeRun(ref: string | undefined, flags: RunFlags): Promise<ExitCode> {
  const run = findRun(dbPath(flags), ref);
  return execute(run.manifest_path, run.manifest_text, run.id, flags);
}

/** `gwrun retry [run] --failed|--expired`: puts those jobs back to pending and resumes. */
export async function retryRun(
  ref: string | undefined,
  flags: RunFlags & { failed?: boolean; expired?: boolean },
): Promise<ExitCode> {
  if (flags.failed !== true && flags.expired !== true) {
    throw new GwError(ErrorCode.Usage, "say what to retry: --failed, --expired, or both");
  }
  const run = findRun(dbPath(flags), ref);
  const states = [
    ...(flags.failed === true ? ["failed", "rejected", "skipped"] : []),
    ...(flags.expired === true ? ["expired"] : []),
  ];
  const store = Store.open(dbPath(flags));
  try {
    let moved = 0;
    const now = Date.now();
    store.transaction(() => {
      for (const job of store.jobsOf(run.id)) {
        if (!states.includes(job.state)) continue;
        store.clearOutputs(job.key);
        if (
          store.move(
            job.key,
            job.state,
            "pending",
            { task_id: null, reason: null, cost: null, progress: null },
            now,
          )
        )
          moved += 1;
      }
    });
    err(`gwrun: ${moved} job${moved === 1 ? "" : "s"} of run ${run.id} back to pending`);
  } finally {
    store.close();
  }
  return execute(run.manifest_path, run.manifest_text, run.id, flags);
}

/** A run by id, or the latest one. */
export function findRun(db: string, ref: string | undefined): RunRow {
  const store = Store.open(db);
  try {
    const run = ref === undefined ? store.latestRun() : store.run(Number(ref));
    if (run === undefined) {
      throw new GwError(
        ErrorCode.Usage,
        ref === undefined ? `no runs in ${db}` : `no run ${ref} in ${db}`,
        {
          hint: "`gwrun runs` lists them",
        },
      );
    }
    return run;
  } finally {
    store.close();
  }
}

async function execute(
  file: string,
  text: string,
  runId: number | undefined,
  flags: RunFlags,
): Promise<ExitCode> {
  const checked = await checkManifestText(text, file);
  printDiagnostics(checked.diagnostics, checked.source.text);
  const settings = checked.expanded.settings;
  if (!checked.valid || settings === undefined) {
    err(`${file}: invalid; nothing was submitted`);
    return ExitCode.Invalid;
  }
  const jobs = selectJobs(checked.jobs, flags.only);
  // Loaded on first use: sharp and ffmpeg's wrapper are not needed to validate or plan.
  const { PostProcessor, writeReport } = await import("../postprocess/index.js");
  const outputDir = path.resolve(settings.output.dir.replaceAll("{name}", settings.name));
  const store = Store.open(dbPath(flags));
  try {
    const gateway = { ...settings.gateway, baseUrl: flags.baseUrl ?? settings.gateway.baseUrl };
    const target = await openGatewayTarget(gateway);
    const client = new GatewayClient({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      messagesVersion: settings.gateway.messagesVersion,
    });
    try {
      const now = Date.now();
      const id =
        runId ??
        store.createRun({
          name: settings.name,
          manifest_path: path.resolve(file),
          manifest_text: text,
          base_url: gateway.baseUrl,
          output_dir: outputDir,
          started_at: now,
        });
      store.addJobs(id, initialJobs(jobs), now);
      let interrupt = () => {};
      // `q` or Ctrl-C on the dashboard (which reads the keys) is the same stop as SIGINT.
      const reporter = await openReporter(flags, () => interrupt());
      try {
        const engine = new Engine({
          store,
          client,
          runId: id,
          settings,
          outputDir,
          baseUrl: gateway.baseUrl,
          timeScale: target.timeScale,
          clock: systemClock,
          random: seededRandom(`${process.pid}:${now}`),
          templates: dependantTemplates(jobs),
          force: flags.force === true,
          maxDownloadBytes: MAX_DOWNLOAD_BYTES,
          postprocess: new PostProcessor({
            outputDir,
            thumbnails: settings.output.thumbnails,
            checksFor: checksByJob(jobs, settings.checks),
          }),
          emit: reporter.emit,
        });
        const onSignal = onInterrupt(
          () => engine.stop(),
          (message) => reporter.notice(message),
        );
        interrupt = onSignal.interrupt;
        try {
          const result = await engine.run();
          const exit = EXIT_BY_END[result.end];
          store.finishRun(id, STATUS_BY_END[result.end], exit, Date.now());
          // Written before the reporter closes, so its summary can point at the gallery.
          writeReport(store, store.run(id) as RunRow);
          return exit;
        } finally {
          onSignal.dispose();
        }
      } finally {
        await reporter.close();
      }
    } finally {
      await client.close();
      await target.close();
    }
  } finally {
    store.close();
  }
}

/** Each job's `checks:`: its own over the manifest's. */
function checksByJob(
  jobs: readonly { job: { spec: { id: string; checks: JobChecks | undefined } } }[],
  defaults: JobChecks | undefined,
): (jobId: string) => JobChecks {
  const byId = new Map(jobs.map(({ job }) => [job.spec.id, { ...defaults, ...job.spec.checks }]));
  return (jobId) => byId.get(jobId) ?? { ...defaults };
}

function selectJobs<T extends { job: { spec: { id: string } } }>(
  jobs: readonly T[],
  only: string | undefined,
): T[] {
  if (only === undefined) return [...jobs];
  const wanted = only
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  const known = new Set(jobs.map((job) => job.job.spec.id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new GwError(
      ErrorCode.Usage,
      `--only: no job ${unknown.map((id) => `"${id}"`).join(", ")} in the manifest`,
      {
        hint: `jobs: ${[...known].join(", ")}`,
      },
    );
  }
  return jobs.filter((job) => wanted.includes(job.job.spec.id));
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
