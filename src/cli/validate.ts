import { createInterface } from "node:readline";
import { ExitCode, type RawRequest, validate, validateRawRequest } from "../api/index.js";
import { coerceError } from "../core/errors.js";
import { openNamedFile, readNamedFile } from "../core/file-gate.js";
import { commandIo, type InStream } from "../core/io.js";
import type { Issue } from "../core/zod-issues.js";
import type { Diagnostic } from "../manifest/index.js";
import { err, out, printDiagnostics } from "./output.js";

/** A manifest's diagnostic as `validate --json` prints it. */
function diagnosticJson(diagnostic: Diagnostic) {
  return {
    file: diagnostic.file,
    line: diagnostic.line,
    column: diagnostic.col,
    severity: diagnostic.severity,
    code: diagnostic.rule,
    message: diagnostic.message,
    hint: diagnostic.hint ?? null,
  };
}

/**
 * `gwrun validate <manifest...>`: every problem of every manifest, at file:line:col; with
 * `json`, one JSON object on stdout for them all (the exit code is the same).
 */
export async function validateManifests(
  files: readonly string[],
  options: { json?: boolean } = {},
): Promise<ExitCode> {
  const json = options.json === true;
  const manifests: {
    file: string;
    valid: boolean;
    jobs: number | null;
    tasks: number | null;
    tasks_upper_bound: boolean;
  }[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    const checked = await validate(file);
    diagnostics.push(...checked.diagnostics);
    const errors = json
      ? checked.diagnostics.filter((d) => d.severity === "error").length
      : printDiagnostics(checked.diagnostics, checked.text);
    if (!checked.valid) {
      manifests.push({ file, valid: false, jobs: null, tasks: null, tasks_upper_bound: false });
      if (!json)
        err(`${file}: ${errors} ${errors === 1 ? "error" : "errors"}; nothing was submitted`);
      continue;
    }
    const { jobs } = checked;
    manifests.push({
      file,
      valid: true,
      jobs,
      tasks: checked.tasks,
      tasks_upper_bound: checked.tasksUpperBound,
    });
    const tasks = `${checked.tasksUpperBound ? "up to " : ""}${checked.tasks} ${checked.tasks === 1 ? "task" : "tasks"}`;
    if (!json) out(`${file}: valid (${jobs} ${jobs === 1 ? "job" : "jobs"}, ${tasks})`);
  }
  const valid = manifests.every((manifest) => manifest.valid);
  if (json)
    out(
      JSON.stringify({ valid, manifests, diagnostics: diagnostics.map(diagnosticJson) }, null, 2),
    );
  return valid ? ExitCode.Ok : ExitCode.Invalid;
}

function formatIssue(issue: Issue): string {
  const path = issue.path
    .map((step) => (typeof step === "number" ? `[${step}]` : step))
    .join(".")
    .replace(/\.\[/g, "[");
  return `${issue.severity === "warning" ? "warning: " : ""}${path}: ${issue.message}  [${issue.rule}]`;
}

/** `gwrun validate --request FILE|-`: exit 0 when valid, 2 with the errors on stderr. */
export async function validateRequestFile(
  file: string,
  stdin: InStream = commandIo().stdin,
): Promise<ExitCode> {
  const text = file === "-" ? await readAll(stdin) : await readNamedFile(file);
  let request: RawRequest;
  try {
    request = JSON.parse(text) as RawRequest;
  } catch (error) {
    err(`${file === "-" ? "stdin" : file}: not valid JSON (${coerceError(error).message})`);
    return ExitCode.Invalid;
  }
  const issues = await validateRawRequest(request ?? {});
  for (const issue of issues) err(formatIssue(issue));
  const valid = issues.every((issue) => issue.severity === "warning");
  if (valid) out("valid");
  return valid ? ExitCode.Ok : ExitCode.Invalid;
}

/** `gwrun validate --request - --jsonl`: one result line per input line, in order. */
export async function validateRequestLines(
  file: string,
  stdin: InStream = commandIo().stdin,
): Promise<ExitCode> {
  const input = file === "-" ? stdin : (await openNamedFile(file)).handle.createReadStream();
  let invalid = false;
  let lineNumber = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    lineNumber++;
    if (line.trim() === "") continue;
    let request: RawRequest;
    try {
      request = JSON.parse(line) as RawRequest;
    } catch (error) {
      invalid = true;
      out(
        JSON.stringify({
          id: null,
          line: lineNumber,
          valid: false,
          errors: [{ path: [], rule: "json", message: coerceError(error).message }],
        }),
      );
      continue;
    }
    const issues = await validateRawRequest(request ?? {});
    const errors = issues.filter((issue) => issue.severity !== "warning");
    const warnings = issues.filter((issue) => issue.severity === "warning");
    if (errors.length > 0) invalid = true;
    out(
      JSON.stringify({
        id: request?.id ?? null,
        valid: errors.length === 0,
        errors,
        ...(warnings.length > 0 ? { warnings } : {}),
      }),
    );
  }
  return invalid ? ExitCode.Invalid : ExitCode.Ok;
}

async function readAll(stream: InStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
