import type { Command } from "commander";
import { ExitCode } from "../api/index.js";
import { GWRUN_VERSION } from "../core/version.js";
import {
  inspectMediaTool,
  inspectSharp,
  type SharpReport,
  TOOL_VARIABLES,
  type ToolReport,
} from "../media/index.js";
import { inspectSqlite, type SqliteLibrary } from "../store/index.js";
import { err, out } from "./output.js";

/** What `gwrun doctor --json` prints. */
export interface DoctorReport {
  gwrun: string;
  node: { version: string; platform: string; arch: string };
  ffmpeg: ToolReport;
  ffprobe: ToolReport;
  sharp: SharpReport;
  sqlite: SqliteLibrary;
  /** Every tool a run needs works. */
  ok: boolean;
}

export function addDoctorCommand(program: Command, setExit: (code: ExitCode) => void): void {
  program
    .command("doctor")
    .description(
      "which Node, ffmpeg, ffprobe, sharp (libvips) and SQLite gwrun uses here; exits 1 when one does not work",
    )
    .option("--json", "print as JSON")
    .action(async (flags: { json?: boolean }) => {
      setExit(await doctor(flags));
    });
}

/** `gwrun doctor`: the tools a run needs, each with its version and where it was found. */
async function doctor(flags: { json?: boolean }): Promise<ExitCode> {
  const [ffmpeg, ffprobe, sharp] = await Promise.all([
    inspectMediaTool("ffmpeg"),
    inspectMediaTool("ffprobe"),
    inspectSharp(),
  ]);
  const sqlite = inspectSqlite();
  const report: DoctorReport = {
    gwrun: GWRUN_VERSION,
    node: { version: process.version, platform: process.platform, arch: process.arch },
    ffmpeg,
    ffprobe,
    sharp,
    sqlite,
    ok: ffmpeg.ok && ffprobe.ok && sharp.ok && sqlite.ok,
  };
  if (flags.json === true) out(JSON.stringify(report, null, 2));
  else printReport(report);
  return report.ok ? ExitCode.Ok : ExitCode.Failed;
}

function printReport(report: DoctorReport): void {
  const { node, ffmpeg, ffprobe, sharp, sqlite } = report;
  out(`gwrun ${report.gwrun}`);
  out(`  node     ${node.version} on ${node.platform} ${node.arch}`);
  for (const tool of [ffmpeg, ffprobe]) out(`  ${tool.tool.padEnd(8)} ${toolLine(tool)}`);
  out(
    `  sharp    ${sharp.ok ? `${sharp.sharp} with libvips ${sharp.libvips}` : `does not work: ${sharp.problem}`}`,
  );
  out(
    `  sqlite   ${sqlite.ok ? `${sqlite.sqlite} through ${sqlite.driver}` : `does not work: ${sqlite.problem}`}`,
  );
  const broken = problemsOf(report);
  if (broken.length === 0) {
    out("every tool a run needs works");
    return;
  }
  for (const { what, problem, hint } of broken) {
    err(`gwrun doctor: ${what} does not work: ${problem}`);
    err(`  ${hint}`);
  }
}

function toolLine(tool: ToolReport): string {
  if (tool.ok) return `${tool.version} at ${tool.path}, from ${tool.reason}`;
  return `does not work: ${tool.problem}${tool.reason === null ? "" : ` (chosen from ${tool.reason})`}`;
}

function problemsOf(report: DoctorReport): { what: string; problem: string; hint: string }[] {
  const problems: { what: string; problem: string; hint: string }[] = [];
  for (const tool of [report.ffmpeg, report.ffprobe]) {
    if (tool.ok) continue;
    const variable = TOOL_VARIABLES[tool.tool];
    problems.push({
      what: tool.tool,
      problem: tool.problem,
      hint: `install ${tool.tool} 5 or later on the PATH, or set ${variable} to a working ${tool.tool}`,
    });
  }
  if (!report.sharp.ok) {
    problems.push({
      what: "sharp",
      problem: report.sharp.problem,
      hint: "reinstall gwrun's dependencies (npm ci) under this Node and platform",
    });
  }
  if (!report.sqlite.ok) {
    problems.push({ what: "SQLite", problem: report.sqlite.problem, hint: report.sqlite.hint });
  }
  return problems;
}
