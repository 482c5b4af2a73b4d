import {
  budgetWarnings,
  EXIT_BY_END,
  type NotifyOptions,
  notifyRunEnd,
  type RunResult,
  STATUS_BY_END,
} from "../engine/index.js";
import { type NotifyTarget, type PublishTarget, renditionSettingsOf } from "../manifest/index.js";
import type { ObjectStorage } from "../publish/index.js";
import type { RunRow, Store } from "../store/index.js";

/**
 * How a run ends, written once for every driver — one process's engine, a fleet's worker that
 * settles a run, `gwrun run` following a fleet's run — with one rule for each step:
 *
 * 1. its status and exit code follow from how it ended (`STATUS_BY_END`, `EXIT_BY_END`);
 * 2. `output.renditions` of its recorded manifest are made of the outputs on this host, then
 *    what its uploads missed is published now (unless it was interrupted), within the time a
 *    run's end may take; an output not delivered fails the run (exit 1; its status stays);
 * 3. the ending is recorded — by this process, or once across a fleet (`record` says whether
 *    this call did it; when not, the rest is the one that did);
 * 4. the folder's `results.jsonl` and gallery are written, then published;
 * 5. its `notify:` webhooks are told when the caller says (after its summary: `notify()`).
 *
 * A run a fleet's worker settled already (`settled`) keeps the ending recorded there.
 */

export interface RunEnding {
  store: Store;
  run: Pick<RunRow, "id" | "output_dir">;
  result: RunResult;
  /** Object storage and the targets the run publishes to; undefined: it publishes nowhere. */
  publishing?: { storage: ObjectStorage; targets: readonly PublishTarget[] };
  /** The first Ctrl-C: the end's publishing stops too. */
  interrupted?: AbortSignal;
  /** Records the ending with its tasks by state; false when another process recorded it first. */
  record(status: string, exit: number, states: Readonly<Record<string, number>>): Promise<boolean>;
  /** Another process (a fleet's worker) settled the run already: its ending stands. */
  settled?: boolean;
  /** This process wrote the run's report already (its own worker settled it). */
  reported?: boolean;
  /** Who is told, and how trouble telling them is said. */
  notify: { targets: readonly NotifyTarget[] } & NotifyOptions;
}

export interface RunEnded {
  exit: number;
  /** Whether this call recorded the ending (else another process did). */
  recorded: boolean;
  /** What publishing found, for the person. */
  lines: string[];
  /** Tells the run's webhooks (nothing when another process recorded the ending). */
  notify(): Promise<void>;
}

const NOBODY = async () => {};

export async function endRun(ending: RunEnding): Promise<RunEnded> {
  const { store, run, result, publishing } = ending;
  const { writeReport } = await import("../postprocess/index.js");
  if (ending.settled === true) {
    const row = (await store.run(run.id)) as RunRow;
    // The settling worker wrote it on its host; here too, for this host's folder.
    if (ending.reported !== true) await writeReport(store, row);
    return {
      exit: row.exit_code ?? EXIT_BY_END[result.end],
      recorded: false,
      lines: [],
      notify: NOBODY,
    };
  }
  let exit: number = EXIT_BY_END[result.end];
  const lines: string[] = [];
  if (result.end !== "interrupted") lines.push(...(await renditionsOfRun(store, run)));
  const publish = publishing === undefined ? undefined : await import("../publish/index.js");
  if (publish !== undefined && publishing !== undefined) {
    publish.withinEnd(publishing.storage, ending.interrupted);
    if (result.end !== "interrupted") {
      // Publishing never keeps a run from being recorded: what went wrong is told.
      const news = await publish
        .publishRunOutputs(store, run, publishing.storage, publishing.targets)
        .catch((error: unknown) => ({
          lines: [`not published: ${error instanceof Error ? error.message : String(error)}`],
          complete: false,
        }));
      lines.push(...news.lines);
      if (!news.complete && exit === EXIT_BY_END.done) exit = EXIT_BY_END.failed;
    }
  }
  if (!(await ending.record(STATUS_BY_END[result.end], exit, result.counts)))
    return { exit, recorded: false, lines, notify: NOBODY };
  const row = (await store.run(run.id)) as RunRow;
  if (ending.reported !== true) await writeReport(store, row);
  // A budget across runs past its soft limit is told in the summary (and by `notify:`).
  lines.push(...(await budgetWarnings(store, row.base_url, Date.now())));
  if (publish !== undefined && publishing !== undefined)
    lines.push(
      ...(await publish.publishFolderRecord(
        run.output_dir,
        publishing.storage,
        publishing.targets,
      )),
    );
  const { targets, ...told } = ending.notify;
  return {
    exit,
    recorded: true,
    lines,
    notify: () => notifyRunEnd(store, run.id, result, targets, told),
  };
}

/**
 * `output.renditions` made of the outputs on this host's folder, as the run's recorded
 * manifest asks (the same for every driver); what went wrong, as lines.
 */
async function renditionsOfRun(
  store: Store,
  run: Pick<RunRow, "id" | "output_dir">,
): Promise<string[]> {
  const row = await store.run(run.id);
  if (row === undefined) return [];
  const { makeRenditions } = await import("../postprocess/index.js");
  const made = await makeRenditions(
    store,
    run,
    renditionSettingsOf(row.manifest_text, row.manifest_path),
  );
  if (made.made === 0) return made.problems;
  return [...made.problems, `renditions: ${made.made} made, ${made.kept} already made`];
}
