import {
  ExitCode,
  type JudgeReport,
  judgeReportOf,
  storeAt,
  withExistingStore,
} from "../api/index.js";
import { moneyText } from "../core/money.js";
import { terminalJson, terminalText } from "../core/text-filter.js";
import { out } from "./output.js";

/**
 * `gwrun judge-report [run]`: the judges' verdicts of a run, what they cost, and how they
 * agreed with the people who reviewed the same outputs. `--json` prints the report as is.
 */
export function showJudgeReport(
  ref: string | undefined,
  flags: { db?: string; store?: string; json?: boolean },
): Promise<ExitCode> {
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const report = await judgeReportOf(store, at.location, ref);
    if (flags.json === true) out(terminalJson(report, 2));
    else for (const line of judgeReportLines(report)) out(line);
    return ExitCode.Ok;
  });
}

export function judgeReportLines(report: JudgeReport): string[] {
  const { judged, cost, disagreements } = report;
  const count = judged.pass + judged.fail + judged.undecided;
  const head = `judges of run ${report.run.id} (${terminalText(report.run.name)}): ${count} outputs judged: ${judged.pass} passed, ${judged.fail} rejected, ${judged.undecided} undecided; ${report.retakes} new takes`;
  const lines = [head];
  if (count === 0) return [...lines, "  no output of this run was judged"];
  lines.push(
    `  cost: ${moneyText(cost.total)} in all, ${moneyText(cost.perOutput ?? 0)} per output judged`,
  );
  if (report.agreement === null) {
    lines.push(
      `  agreement: no judged output was reviewed yet (${report.reviewed} reviewed); approve or reject in gwrun view to measure it`,
    );
    return lines;
  }
  const compared = report.agreed + disagreements.passedRejected + disagreements.rejectedApproved;
  lines.push(
    `  agreement with people: ${Math.round(report.agreement * 100)}% (${report.agreed} of ${compared} outputs both judged and reviewed)`,
    `  judge passed, person rejected: ${disagreements.passedRejected}; judge rejected, person approved: ${disagreements.rejectedApproved}`,
  );
  for (const row of report.overruled)
    lines.push(
      `    ${terminalText(row.label)} output ${row.idx + 1}: judge ${row.verdict === "pass" ? "passed" : "rejected"}${row.reason === null ? "" : ` (${terminalText(row.reason)})`}, person ${row.decision}${row.note === null ? "" : `: ${terminalText(row.note)}`}`,
    );
  return lines;
}
