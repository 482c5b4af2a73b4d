import {
  type Diagnostic,
  type ExpandedManifest,
  type JobSpec,
  type JudgeSpec,
  jobPath,
  templateNames,
} from "../manifest/index.js";
import { judgeRequest } from "./judge-request.js";
import { familyFor, TEXT_FAMILY_IDS } from "./resolve.js";
import { validateRequest } from "./validate.js";

/**
 * `checks.judge`, the manifest's and each job's: a text model that reads pictures on an
 * endpoint that carries them, a question whose variables a judged task knows, and a job
 * that makes pictures or clips. Errors point at the judge's own text.
 */

/** Names every judged task knows besides its matrix variables and `row.<field>`. */
const TASK_NAMES = ["prompt", "label", "job"];

export function checkJudges(manifest: ExpandedManifest): Diagnostic[] {
  const { reporter, settings } = manifest;
  const start = reporter.diagnostics.length;
  const shared = settings?.checks?.judge;
  if (shared !== undefined) checkJudge(manifest, shared, ["checks", "judge"], undefined);
  for (const spec of manifest.specs) {
    const own = spec.checks?.judge;
    if (own === undefined) continue;
    const at = [...jobPath(spec), "checks", "judge"];
    checkJudge(manifest, own, at, spec);
    if (spec.endpoint !== undefined && spec.endpoint in TEXT_FAMILY_IDS)
      reporter.at(
        at,
        "judge-on-text",
        `job ${spec.id} makes text: a judge reads the pictures and clips a job makes`,
      );
  }
  return reporter.diagnostics.slice(start);
}

function checkJudge(
  manifest: ExpandedManifest,
  judge: JudgeSpec,
  at: (string | number)[],
  spec: JobSpec | undefined,
): void {
  const { reporter } = manifest;
  if (judge.endpoint === "chat") {
    reporter.at(
      [...at, "endpoint"],
      "judge-endpoint",
      "chat carries no pictures (the contract shows its content as a string only): use responses, messages or native",
    );
  }
  const media = familyFor(judge.model, undefined);
  const makesMedia = media !== undefined && media.lane !== "text";
  if (makesMedia)
    reporter.at(
      [...at, "model"],
      "judge-model",
      `${judge.model} makes ${media.lane === "video" ? "clips" : "pictures"}: a judge is a text model that reads them, e.g. acme-5 on responses`,
    );
  const family = familyFor(judge.model, judge.endpoint);
  if (family !== undefined && judge.endpoint !== "chat" && !makesMedia) {
    const { body } = judgeRequest(judge, "?", []);
    for (const issue of validateRequest(family, body)) {
      if (issue.path[0] !== "model") continue;
      reporter.at([...at, "model"], "judge-model", `${judge.model}: ${issue.message}`);
    }
    const needsHeader = (family.headers ?? []).length > 0;
    if (needsHeader && manifest.settings?.gateway.messagesVersion === undefined)
      reporter.at(
        [...at, "endpoint"],
        "required-header",
        `${family.endpoint} requires its version header: set gateway.messages_version: { header: acme-version, value: YYYY-MM-DD }`,
      );
  }
  const specs = spec === undefined ? manifest.specs : [spec];
  const known = new Set([
    ...TASK_NAMES,
    ...specs.flatMap((each) => Object.keys(each.matrix ?? {})),
  ]);
  for (const { name } of templateNames(judge.ask)) {
    if (known.has(name) || name.startsWith("row.")) continue;
    reporter.at(
      [...at, "ask"],
      "judge-ask",
      `the judge's ask reads {{${name}}}, which a judged task does not know: use {{prompt}}, {{label}}, {{job}}, a matrix variable or {{row.<field>}}`,
    );
  }
}
