import { systemClock } from "../core/clock.js";
import type { FileWrites } from "../core/file-writes.js";
import { commandIo } from "../core/io.js";
import { seededRandom } from "../core/random.js";
import type { DownloadCaps, Emit, EngineOptions } from "../engine/index.js";
import type { CheckedJob } from "../families/index.js";
import { GatewayClient } from "../gateway/index.js";
import {
  isSimulator,
  type JobChecks,
  type ManifestSettings,
  type SelectSpec,
} from "../manifest/index.js";
import { dependantTemplates } from "../plan/index.js";
import type { ObjectStorage } from "../publish/index.js";
import type { Store, TaskRow } from "../store/index.js";
import { type GatewayTarget, inGatewayTime, openGatewayTarget } from "./gateway-target.js";

/**
 * What a run is worked with, for the engine (one host) and for a fleet worker alike: the
 * gateway (or the in-process simulator) and its client, and the engine's options.
 */

/** Downloads larger than this are refused: a clip of minutes at 4K fits, a picture far less. */
const MAX_DOWNLOAD_BYTES: DownloadCaps = { image: 200 * 1024 ** 2, video: 2 * 1024 ** 3 };

export interface OpenedGateway {
  target: GatewayTarget;
  client: GatewayClient;
  close(): Promise<void>;
}

/**
 * The gateway a run talks to, connected ahead of the first submit; its key from the manifest
 * or GW_API_KEY (of `env`), never stored.
 */
export async function openGateway(
  settings: ManifestSettings,
  baseUrl: string,
  keyMasked: boolean,
  env: NodeJS.ProcessEnv = commandIo().env,
): Promise<OpenedGateway> {
  const target = await openGatewayTarget({ ...settings.gateway, baseUrl }, env, {
    keyMasked,
    prices: settings.prices,
  });
  const client = new GatewayClient({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    messagesVersion: settings.gateway.messagesVersion,
    proxies: target.proxies,
  });
  await client.connect();
  return {
    target,
    client,
    close: async () => {
      await client.close();
      await target.close();
    },
  };
}

export interface RunWork {
  store: Store;
  gateway: OpenedGateway;
  runId: number;
  settings: ManifestSettings;
  /** The jobs the run works (a `--only` selection, or every job). */
  jobs: readonly CheckedJob[];
  outputDir: string;
  /** The gateway's base URL as the manifest names it: the learned rate is kept under it. */
  baseUrl: string;
  force: boolean;
  feeds?: readonly TaskRow[];
  emit: Emit;
  /** Where the run's files are written (default: this machine's file systems). */
  files?: FileWrites;
  /** Object storage for `output.publish`, opened (and closed) by whoever opened the work. */
  storage?: ObjectStorage;
}

/** The engine's options for a run (checks and thumbnails loaded on first use). */
export async function engineOptions(work: RunWork): Promise<EngineOptions> {
  const { PostProcessor } = await import("../postprocess/index.js");
  const { settings, jobs, outputDir } = work;
  return {
    store: work.store,
    client: work.gateway.client,
    runId: work.runId,
    settings: inGatewayTime(settings, work.gateway.target.timeScale),
    outputDir,
    baseUrl: work.baseUrl,
    clock: systemClock,
    random: seededRandom(`${process.pid}:${work.runId}:${Date.now()}`),
    templates: dependantTemplates(jobs),
    force: work.force,
    feeds: work.feeds,
    maxDownloadBytes: MAX_DOWNLOAD_BYTES,
    postprocess: new PostProcessor({
      outputDir,
      thumbnails: settings.output.thumbnails,
      checksFor: checksByJob(jobs, settings.checks),
      simulator: isSimulator(work.baseUrl),
      files: work.files,
    }),
    publisher:
      work.storage === undefined || settings.output.publish.length === 0
        ? undefined
        : (await import("../publish/index.js")).outputPublisher({
            store: work.store,
            storage: work.storage,
            targets: settings.output.publish,
            outputDir,
            now: Date.now,
          }),
    emit: work.emit,
    files: work.files,
  };
}

/** Each job's `checks:`: its own over the manifest's. */
function checksByJob(
  jobs: readonly {
    job: { spec: { id: string; checks: JobChecks | undefined; select?: SelectSpec } };
  }[],
  defaults: JobChecks | undefined,
): (jobId: string) => JobChecks {
  const byId = new Map(
    jobs.map(({ job }) => {
      const checks: JobChecks = { ...defaults, ...job.spec.checks };
      // A job's `select:` rides with its judge, so its outputs' checks record the rule.
      const { select } = job.spec;
      if (select !== undefined && checks.judge !== undefined)
        checks.judge = { ...checks.judge, select };
      return [job.spec.id, checks];
    }),
  );
  return (jobId) => byId.get(jobId) ?? { ...defaults };
}
