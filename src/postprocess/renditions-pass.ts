import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import PQueue from "p-queue";
import { coerceError } from "../core/errors.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import { fileMatches, partialDir, writeWhole } from "../core/output-files.js";
import type { Rendition } from "../manifest/index.js";
import type { ReportOutput, ReportTask, RunRow, Store } from "../store/index.js";
import { hasC2pa } from "./c2pa.js";
import { readSidecar } from "./record-extras.js";
import {
  makeRendition,
  type RenditionRecord,
  renditionApplies,
  renditionSpec,
} from "./renditions.js";
import { promptOf } from "./review-record.js";

/**
 * `output.renditions` of a run's folder, made after its tasks (a done task's missing
 * rendition is made from its file on disk, with no gateway call). A rendition is made once:
 * one recorded in the output's sidecar whose file still has the recorded sha256 and whose
 * settings are unchanged is kept; anything else is made again. The sidecar records each one
 * (`renditions`) and whether the original carries a C2PA manifest (`c2pa`). An output not on
 * this host's disk is left alone; one changed since it was downloaded is a problem.
 */

export interface RenditionSettings {
  renditions: readonly Rendition[];
  /** Whether the XMP marking carries the prompt (`output.provenance.prompt`). */
  prompt: boolean;
}

export interface RenditionsMade {
  made: number;
  kept: number;
  /** One line per output whose renditions could not all be made. */
  problems: string[];
}

/** Makes what is missing of the renditions of every output in the run's folder. */
export async function makeRenditions(
  store: Store,
  run: Pick<RunRow, "id" | "output_dir">,
  settings: RenditionSettings,
  files: FileWrites = nodeFileWrites,
): Promise<RenditionsMade> {
  const done: RenditionsMade = { made: 0, kept: 0, problems: [] };
  // Without renditions, outputs are visited only to record that the prompt stays out of files.
  if (settings.renditions.length === 0 && settings.prompt) return done;
  const queue = new PQueue({ concurrency: availableParallelism() });
  const order = await store.reportOrderOf({ folder: run.output_dir });
  for await (const { task, output } of store.reportRows(order)) {
    if (output?.path == null || task.state !== "done") continue;
    const wanted = settings.renditions.filter(
      (r) =>
        (r.only === undefined || r.only.includes(task.job_id)) &&
        renditionApplies(r, output.content_type),
    );
    if (wanted.length === 0 && settings.prompt) continue;
    // Bounded: the store's reading waits while the machine's cores are busy.
    await queue.onSizeLessThan(availableParallelism());
    void queue.add(async () => {
      try {
        await renditionsOf(
          task,
          output as ReportOutput & { path: string },
          wanted,
          run,
          settings,
          files,
          done,
        );
      } catch (error) {
        done.problems.push(
          `${task.label}: no renditions: ${coerceError(error).message.split("\n")[0]}`,
        );
      }
    });
  }
  await queue.onIdle();
  return done;
}

async function renditionsOf(
  task: ReportTask,
  output: ReportOutput & { path: string },
  wanted: readonly Rendition[],
  run: Pick<RunRow, "id" | "output_dir">,
  settings: RenditionSettings,
  files: FileWrites,
  done: RenditionsMade,
): Promise<void> {
  const file = output.path;
  // Not on this host (a fleet's other host made it, or it was removed): not this host's to make.
  if (!existsSync(file)) return;
  const sidecarFile = `${file}.json`;
  const sidecar = readSidecar(sidecarFile);
  const recorded = Array.isArray(sidecar.renditions)
    ? (sidecar.renditions as RenditionRecord[])
    : [];
  const dir = path.dirname(file);
  const current = async (record: RenditionRecord | undefined, spec: string) =>
    record !== undefined &&
    record.spec === spec &&
    (await fileMatches(path.join(dir, record.file), record.bytes, record.sha256));
  const kept: RenditionRecord[] = [];
  let changed = false;
  let originalChecked = false;
  const body = JSON.parse(task.request) as Record<string, unknown>;
  for (const rendition of wanted) {
    const spec = renditionSpec(rendition, settings.prompt);
    const before = recorded.find((record) => record.name === rendition.name);
    if (await current(before, spec)) {
      kept.push(before as RenditionRecord);
      done.kept += 1;
      continue;
    }
    // A rendition is made from the bytes the store recorded, never from a changed file.
    if (!originalChecked && !(await fileMatches(file, output.bytes, output.sha256)))
      throw new Error(`${path.basename(file)} is not the file downloaded`);
    originalChecked = true;
    const marking = {
      model: typeof body.model === "string" ? body.model : null,
      taskId: task.task_id,
      run: typeof sidecar.run === "number" ? sidecar.run : run.id,
      prompt: settings.prompt ? promptOf(body) : null,
    };
    const clip = rendition.format === "mp4";
    kept.push(await makeRendition(file, clip, rendition, marking, run.output_dir, files));
    done.made += 1;
    changed = true;
  }
  // Renditions no longer asked for stay listed while their files are what was recorded.
  for (const record of recorded)
    if (!kept.some((k) => k.name === record.name) && !wanted.some((w) => w.name === record.name))
      if (await fileMatches(path.join(dir, record.file), record.bytes, record.sha256))
        kept.push(record);
      else changed = true;
  const c2pa = hasC2pa(file);
  // `xmp_prompt`: whether XMP gwrun writes later (an export's) may carry the prompt.
  const same = sidecar.c2pa === c2pa && sidecar.xmp_prompt === settings.prompt;
  if (!changed && same && kept.length === recorded.length) return;
  const fields = { c2pa, xmp_prompt: settings.prompt, renditions: kept };
  const text = `${JSON.stringify({ ...sidecar, ...fields }, null, 2)}\n`;
  await writeWhole(sidecarFile, text, partialDir(run.output_dir), files);
}
