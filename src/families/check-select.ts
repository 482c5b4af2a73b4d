import { type Diagnostic, type ExpandedManifest, jobPath } from "../manifest/index.js";

/**
 * Each job's `select:`: at most as many best takes as a group has repeats, and a score to rank
 * them by — the job's judge (its own or the manifest's) asking for a score
 * (`pass: { score_at_least }`). `by: score` reads the same score: the judge's is the only
 * score gwrun records of an output.
 */
export function checkSelects(manifest: ExpandedManifest): Diagnostic[] {
  const { reporter, settings } = manifest;
  const start = reporter.diagnostics.length;
  for (const spec of manifest.specs) {
    const select = spec.select;
    if (select === undefined) continue;
    const at = [...jobPath(spec), "select"];
    if (select.best > spec.repeat)
      reporter.at(
        [...at, "best"],
        "select-best",
        `job ${spec.id} makes ${spec.repeat} take${spec.repeat === 1 ? "" : "s"} of each request (repeat: ${spec.repeat}): best: ${select.best} would select them all; set repeat above it`,
      );
    const judge = spec.checks?.judge ?? settings?.checks?.judge;
    if (judge === undefined)
      reporter.at(
        [...at, "by"],
        "select-judge",
        `select by ${select.by} ranks takes by a judge's score: give job ${spec.id} checks.judge with pass: { score_at_least: S }`,
      );
    else if (!("score_at_least" in judge.pass))
      reporter.at(
        [...at, "by"],
        "select-judge",
        `select by ${select.by} ranks takes by the judge's score, and job ${spec.id}'s judge asks for a word: use pass: { score_at_least: S } (0 keeps every take)`,
      );
  }
  return reporter.diagnostics.slice(start);
}
