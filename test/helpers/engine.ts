import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Clock } from "../../src/core/clock.js";
import { type FileWrites, nodeFileWrites } from "../../src/core/file-writes.js";
import { canonicalJson, sha256 } from "../../src/core/hash.js";
import { seededRandom } from "../../src/core/random.js";
import {
  type DownloadCaps,
  Engine,
  type EngineEvent,
  type OutputVerdict,
  type PostProcess,
  type RunResult,
} from "../../src/engine/index.js";
import { checkManifestText } from "../../src/families/index.js";
import type { GatewayClient } from "../../src/gateway/index.js";
import { type ManifestSettings, outputDirOf } from "../../src/manifest/index.js";
import { dependantTemplates, initialTasks } from "../../src/plan/index.js";
import { PostProcessor } from "../../src/postprocess/index.js";
import type { SimOptionsInput, Simulator } from "../../src/sim/index.js";
import {
  openStore,
  type SqliteStore,
  type SqliteStoreOptions,
  type Store,
  type TaskRow,
} from "../../src/store/index.js";
import type { ManualClock } from "./clock.js";
import { tempDir } from "./manifest.js";
import { LONG_ENOUGH_MS, withSimulator } from "./sim.js";
import { UnderWay } from "./under-way.js";

/**
 * The engine in virtual time: a checked inline manifest, a store with its run and initial
 * tasks recorded, and engines built on the simulator's manual clock. Between clock steps the
 * rig waits for every gateway call (and check) under way to finish, so what a test sees at a
 * virtual time does not depend on how fast this machine answers HTTP.
 */
export interface EngineRig {
  sim: Simulator;
  clock: ManualClock;
  /** gwrun's client on the simulator, as the engines get it. */
  client: GatewayClient;
  store: SqliteStore;
  runId: number;
  settings: ManifestSettings;
  outputDir: string;
  /** Every event any engine of the rig emitted, in order. */
  events: EngineEvent[];
  /**
   * The real file writes, each tracked until it lands, so the clock is not moved past a write
   * under way (every engine of the rig writes through them unless given its own).
   */
  files: FileWrites;
  /**
   * A new engine on the rig's store; `clock` replaces the simulator's (a mortal view of it),
   * `runId` the rig's run, `force` redoes what is done.
   */
  engine(options?: {
    clock?: Clock;
    /** In place of the rig's store (one that fails on purpose, say). */
    store?: Store;
    postprocess?: PostProcess;
    runId?: number;
    force?: boolean;
    maxDownloadBytes?: DownloadCaps;
    /** In place of the real file writes (a disk that fills, say). */
    files?: FileWrites;
    /** In place of the rig's client (one whose calls fail on purpose, say). */
    client?: GatewayClient;
  }): Engine;
  /** Another run of the manifest, its initial tasks recorded (as `gwrun run` makes one). */
  newRun(): Promise<number>;
  /** The real post-processor with the manifest's checks, without thumbnails unless asked. */
  postProcessor(options?: { files?: FileWrites; thumbnails?: boolean }): PostProcess;
  /** The run's tasks as the store has them now. */
  tasks(): Promise<TaskRow[]>;
  /** Moves virtual time on to `until` (ms since the epoch), wake by wake. */
  advanceTo(until: number): Promise<void>;
  /** Moves virtual time on, wake by wake, until `done` holds; throws past `limitMs` of it. */
  until(done: () => boolean | Promise<boolean>, limitMs?: number): Promise<void>;
  /** Drives a run to its end and returns its result. */
  finish(running: Promise<RunResult>): Promise<RunResult>;
}

const MB = 1024 * 1024;

/** Real 10 ms turns `until` waits, at most, for work that no clock wake stands for: a second. */
const IDLE_TURNS = 100;

/** The settings every rig manifest shares: its name, and an output folder in a temp dir. */
function manifestText(body: string, outputDir: string): string {
  return `version: 1
name: engine
output: { dir: ${JSON.stringify(outputDir)}, thumbnails: false }
${body}`;
}

/**
 * Runs `fn` with an engine rig for `manifest` (YAML without `version`, `name` and `output`)
 * against an in-process simulator with `simOptions`; releases the store and simulator after.
 */
export async function withEngine<T>(
  simOptions: SimOptionsInput,
  manifest: string,
  fn: (rig: EngineRig) => Promise<T>,
  where: { dbFile?: string; storeOptions?: SqliteStoreOptions } = {},
): Promise<T> {
  // Few distinct pictures: rendering them is not what these tests are about.
  return withSimulator({ mediaVariants: 2, ...simOptions }, async ({ sim, client, clock }) => {
    const dir = tempDir();
    const file = path.join(dir, "manifest.yaml");
    const text = manifestText(manifest, path.join(dir, "out"));
    writeFileSync(file, text);
    const checked = await checkManifestText(text, file, {}, clock.now());
    const errors = checked.diagnostics.filter((d) => d.severity === "error");
    const settings = checked.expanded.settings;
    if (!checked.valid || settings === undefined)
      throw new Error(`invalid test manifest: ${errors.map((d) => d.message).join("; ")}`);
    const outputDir = outputDirOf(settings, checked.expanded.moment);
    const store = openStore(where.dbFile ?? path.join(dir, "state.db"), where.storeOptions);
    try {
      const newRun = async () => {
        const id = await store.createRun({
          name: settings.name,
          manifest_path: file,
          manifest_text: text,
          base_url: sim.url,
          output_dir: outputDir,
          started_at: clock.now(),
        });
        await store.recordTasks(id, initialTasks(checked.jobs), clock.now());
        return id;
      };
      const runId = await newRun();
      const underWay = new UnderWay();
      const tracked = underWay.client(client);
      const events: EngineEvent[] = [];
      const quiet = () => underWay.quiet();
      const files: FileWrites = {
        ...nodeFileWrites,
        whole: (partial, file, data) => underWay.track(nodeFileWrites.whole(partial, file, data)),
        copy: (from, to) => underWay.track(nodeFileWrites.copy(from, to)),
      };
      const rig: EngineRig = {
        sim,
        clock,
        client: tracked,
        store,
        runId,
        settings,
        outputDir,
        events,
        files,
        newRun,
        engine: (options = {}) =>
          new Engine({
            store: options.store ?? store,
            client: options.client ?? tracked,
            runId: options.runId ?? runId,
            settings,
            outputDir,
            baseUrl: sim.url,
            clock: options.clock ?? clock,
            random: seededRandom("engine"),
            templates: dependantTemplates(checked.jobs),
            force: options.force ?? false,
            maxDownloadBytes: options.maxDownloadBytes ?? { image: 64 * MB, video: 64 * MB },
            emit: (event) => events.push(event),
            ...(options.postprocess === undefined ? {} : { postprocess: options.postprocess }),
            files: options.files ?? files,
          }),
        postProcessor: (options = {}) => {
          const checksOf = new Map(checked.jobs.map(({ job }) => [job.spec.id, job.spec.checks]));
          const processor = new PostProcessor({
            outputDir,
            thumbnails: options.thumbnails === true ? { width: 64, format: "webp" } : false,
            files: options.files ?? files,
            checksFor: (jobId) => ({ ...settings.checks, ...checksOf.get(jobId) }),
          });
          return {
            process: (task, outputs, beforeSidecars) => {
              let work: Promise<unknown> | undefined;
              const judge =
                beforeSidecars === undefined
                  ? undefined
                  : (verdicts: OutputVerdict[]) =>
                      underWay.aside(work, () => beforeSidecars(verdicts));
              const processing = underWay.track(processor.process(task, outputs, judge));
              work = processing;
              return processing;
            },
            drain: () => processor.drain(),
            judgeOf: (jobId) => processor.judgeOf(jobId),
            judgeImages: (output, poster, judge, now) =>
              processor.judgeImages(output, poster, judge, now),
          };
        },
        tasks: () => store.tasksOf(runId),
        advanceTo: async (until) => {
          await quiet();
          for (;;) {
            const wake = clock.nextWake;
            if (wake === undefined || wake > until) break;
            clock.advance(Math.max(0, wake - clock.now()));
            await quiet();
          }
          if (clock.now() < until) clock.advance(until - clock.now());
          await quiet();
        },
        until: async (done, limitMs = LONG_ENOUGH_MS) => {
          const deadline = clock.now() + limitMs;
          // Turns of the real clock given to work no wake stands for (a file read at a run's start).
          let idle = 0;
          for (;;) {
            await quiet();
            if (await done()) return;
            const wake = clock.nextWake;
            if (wake === undefined && idle < IDLE_TURNS) {
              idle += 1;
              await new Promise((resolve) => setTimeout(resolve, 10));
              continue;
            }
            idle = 0;
            if (wake === undefined) throw new Error("nothing waits for time, and it never held");
            if (wake > deadline) throw new Error(`it did not hold within ${limitMs} ms`);
            clock.advance(Math.max(0, wake - clock.now()));
          }
        },
        finish: async (running) => {
          let outcome: { result: RunResult } | { error: unknown } | undefined;
          running.then(
            (result) => {
              outcome = { result };
            },
            (error: unknown) => {
              outcome = { error };
            },
          );
          await rig.until(() => outcome !== undefined);
          if (outcome !== undefined && "result" in outcome) return outcome.result;
          throw (outcome as { error: unknown }).error;
        },
      };
      return await fn(rig);
    } finally {
      await store.close();
    }
  });
}

/** The simulator's name for a task's request (its `submits.byRequest` key). */
export function requestHash(task: Pick<TaskRow, "endpoint" | "request">): string {
  return sha256(`${task.endpoint}\n${canonicalJson(JSON.parse(task.request))}`);
}

/** How many tasks are in each state. */
export function stateCounts(tasks: readonly TaskRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const task of tasks) counts[task.state] = (counts[task.state] ?? 0) + 1;
  return counts;
}

/** The `jobs:` of a manifest with `count` family A images of 256x256, every request distinct. */
export function stillsJobs(count: number): string {
  return `jobs:
  - id: stills
    model: acme-image-2
    matrix: { take: [${Array.from({ length: count }, (_, i) => i + 1).join(", ")}] }
    prompt: "A ceramic mug, take {{take}}"
    size: "256x256"
`;
}
