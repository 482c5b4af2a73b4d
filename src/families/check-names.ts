import path from "node:path";
import {
  LONGEST_NAME_TAIL,
  longestOutputPath,
  NAME_MAX_BYTES,
  PATH_MAX_BYTES,
  TAKE_TAIL,
} from "../core/output-files.js";
import { projectOf } from "../core/project.js";
import {
  type Diagnostic,
  dependantLabel,
  diagnosticAt,
  type ExpandedManifest,
  expansionLabel,
  type JobSpec,
  jobPath,
  MAX_JOB_ID,
  outputDirOf,
  taskLabel,
} from "../manifest/index.js";
import type { CheckedJob } from "./check-jobs.js";

/**
 * Names that fit: every file a run would write for a job — its outputs under their longest
 * label (a `from:` chain's labels grow at each step), with the takes, versions and partial
 * files gwrun adds — must keep within the file system's limits, or the job is refused before
 * anything is paid for.
 */

/** Outputs of a job whose count is not known (a passthrough job): numbered up to this. */
const UNKNOWN_OUTPUTS = 999;

/** More outputs than any task makes: a job that fits with them fits, without counting its own. */
const MOST_OUTPUTS = 99_999;

interface JobNames {
  spec: JobSpec;
  /** Its longest label of its own: the last combination and repeat. */
  own: string;
  /** The most outputs one of its tasks makes. */
  outputs: number;
}

/** The most outputs one of a job's tasks makes. */
function outputsOf(names: JobNames): number {
  return names.outputs;
}

/** Refuses, at the job, each job whose output files would pass a name or path limit. */
export function checkOutputNames(
  manifest: ExpandedManifest,
  jobs: readonly CheckedJob[],
): Diagnostic[] {
  const check = new NameCheck(manifest);
  for (const checked of jobs) check.add(checked);
  return check.finish();
}

/** `checkOutputNames` fed one checked expansion at a time: it keeps each job's longest names. */
export class NameCheck {
  readonly #byId = new Map<string, JobNames>();

  constructor(private readonly manifest: ExpandedManifest) {}

  add(checked: CheckedJob): void {
    const { job, family, body } = checked;
    const { spec, expansions } = job;
    const outputs = family === undefined ? UNKNOWN_OUTPUTS : family.expectedOutputs(body).count;
    let names = this.#byId.get(spec.id);
    if (names === undefined) {
      const own =
        spec.label === undefined
          ? expansionLabel(spec, expansions - 1, expansions, spec.repeat - 1)
          : "";
      names = { spec, own, outputs };
      this.#byId.set(spec.id, names);
    } else names.outputs = Math.max(names.outputs, outputs);
    // A job's own labels: the longest in bytes.
    if (spec.label !== undefined) {
      const label = taskLabel(job, spec.repeat - 1);
      if (Buffer.byteLength(label) > Buffer.byteLength(names.own)) names.own = label;
    }
  }

  finish(): Diagnostic[] {
    return namesTooLong(this.manifest, this.#byId);
  }
}

function namesTooLong(
  manifest: ExpandedManifest,
  byId: ReadonlyMap<string, JobNames>,
): Diagnostic[] {
  const { settings, reporter, source, moment } = manifest;
  if (settings === undefined) return [];
  const outputDir = path.resolve(projectOf(source.file), outputDirOf(settings, moment));
  const folder = folderProblem(manifest, outputDir);
  if (folder !== undefined) return [folder];
  const diagnostics: Diagnostic[] = [];
  for (const names of byId.values()) {
    // An id over its own limit is refused as such already.
    if (names.spec.id.length > MAX_JOB_ID) continue;
    const chain = chainOf(names, byId);
    const measure = (count: (names: JobNames) => number) => {
      const outputs = count(names);
      const name = `${longestLabel(chain, count)}${outputs > 1 ? `-${outputs}` : ""}`;
      return { name, longest: longestOutputPath(outputDir, names.spec.id, name) };
    };
    // Most jobs fit whatever their tasks' output counts: those are not counted.
    if (fits(measure(() => MOST_OUTPUTS).longest)) continue;
    const { name, longest } = measure(outputsOf);
    if (fits(longest)) continue;
    const over =
      longest.name > NAME_MAX_BYTES
        ? `names of up to ${longest.name} bytes, over the file system's limit of ${NAME_MAX_BYTES}`
        : `paths of up to ${longest.path} bytes in ${outputDir}, over the file system's limit of ${PATH_MAX_BYTES}`;
    const along = chain.length > 1 ? ` (it ends a from: chain of ${chain.length} jobs)` : "";
    const message = `this job's files would have ${over}: its longest label takes ${Buffer.byteLength(name)} bytes${along} and gwrun adds up to ${Buffer.byteLength(LONGEST_NAME_TAIL)} (takes, versions, temporary files)`;
    // A job's `label:` names its files in place of its id.
    const labelled = names.spec.label !== undefined;
    const hint =
      longest.name > NAME_MAX_BYTES
        ? labelled
          ? "shorten this job's label, or the ids of the jobs it follows with from:"
          : "shorten this job's id, or those of the jobs it follows with from:"
        : labelled
          ? "shorten output.dir, or this job's label and the ids of the jobs it follows with from:"
          : "shorten output.dir, or the ids of this job and of those it follows with from:";
    const at = labelled ? ["label"] : ["id"];
    const span = reporter.span(at, {}, jobPath(names.spec));
    diagnostics.push(
      diagnosticAt(source.file, source.lineCounter, span, "name-too-long", message, "error", hint),
    );
  }
  return diagnostics;
}

/** A folder of the output path whose own name is too long: at `output.dir`, or the name it is made of. */
function folderProblem(manifest: ExpandedManifest, outputDir: string): Diagnostic | undefined {
  const { reporter, source } = manifest;
  const tooLong = path
    .relative(path.parse(outputDir).root, outputDir)
    .split(path.sep)
    .find((part) => Buffer.byteLength(part) > NAME_MAX_BYTES);
  if (tooLong === undefined) return undefined;
  const written = (source.value as { output?: { dir?: unknown } }).output?.dir !== undefined;
  const span = reporter.span(written ? ["output", "dir"] : ["name"]);
  const message = `the output folder would have a folder name of ${Buffer.byteLength(tooLong)} bytes, over the file system's limit of ${NAME_MAX_BYTES}`;
  const hint = `shorten ${written ? "output.dir" : "the manifest's name"}`;
  return diagnosticAt(
    source.file,
    source.lineCounter,
    span,
    "name-too-long",
    message,
    "error",
    hint,
  );
}

function fits(longest: { name: number; path: number }): boolean {
  return longest.name <= NAME_MAX_BYTES && longest.path <= PATH_MAX_BYTES;
}

/** The job, then the job it follows, and so on up its `from:` chain (cycles are refused elsewhere). */
function chainOf(names: JobNames, byId: ReadonlyMap<string, JobNames>): JobNames[] {
  const chain = [names];
  for (let step = names; step.spec.from !== undefined && chain.length <= byId.size; ) {
    const upstream = byId.get(step.spec.from);
    if (upstream === undefined) break;
    chain.push(upstream);
    step = upstream;
  }
  return chain;
}

/** The longest label down a chain: each step's own, `-of-`, the upstream's with a take and its output number. */
function longestLabel(chain: readonly JobNames[], count: (names: JobNames) => number): string {
  const [first, ...below] = [...chain].reverse();
  let label = first?.own ?? "";
  let upstream = first;
  for (const step of below) {
    const outputs = upstream === undefined ? 1 : count(upstream);
    label = dependantLabel(step.own, `${label}${TAKE_TAIL}`, outputs - 1, outputs);
    upstream = step;
  }
  return label;
}
