import { roundMoney } from "../core/money.js";
import { FAILED_STATES } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";
import { out } from "./output.js";
import { textLines, textSummaries } from "./status-texts.js";
import { dbPath, findRun, withExistingStore } from "./store.js";

/** Links closer than this to expiry are warned about. */
const SOON_MS = 6 * 3_600_000;

/** `gwrun status [run]`: counts by state and family, spend, failures with their reasons. */
export function showStatus(
  ref: string | undefined,
  flags: { db?: string; json?: boolean },
): Promise<ExitCode> {
  const db = dbPath(flags);
  return withExistingStore(db, async (store) => {
    const run = await findRun(store, db, ref);
    const jobs = await store.tasksOf(run.id);
    const byState: Record<string, number> = {};
    const byFamily: Record<string, Record<string, number>> = {};
    let spent = 0;
    const failures: { label: string; state: string; reason: string }[] = [];
    const expiring: { label: string; expiresAt: number }[] = [];
    const now = Date.now();
    for (const job of jobs) {
      byState[job.state] = (byState[job.state] ?? 0) + 1;
      const familyId = job.family ?? "passthrough";
      const family = byFamily[familyId] ?? {};
      byFamily[familyId] = family;
      family[job.state] = (family[job.state] ?? 0) + 1;
      spent += job.cost ?? 0;
      if (FAILED_STATES.includes(job.state)) {
        failures.push({
          label: job.label,
          state: job.state,
          reason: job.reason ?? "no reason recorded",
        });
      }
      if (job.state === "completed") {
        for (const output of await store.outputsOf(job.key)) {
          if (
            output.state === "pending" &&
            output.expires_at !== null &&
            output.expires_at - now < SOON_MS
          ) {
            expiring.push({ label: job.label, expiresAt: output.expires_at });
          }
        }
      }
    }
    spent = roundMoney(spent);
    const texts = await textSummaries(store, run.id);
    if (flags.json === true) {
      out(
        JSON.stringify(
          {
            run: {
              id: run.id,
              name: run.name,
              status: run.status,
              exit_code: run.exit_code,
              started_at: run.started_at,
              finished_at: run.finished_at,
              output_dir: run.output_dir,
              tick: run.tick,
            },
            jobs: jobs.length,
            states: byState,
            families: byFamily,
            spent,
            failures,
            expiring,
            texts,
          },
          null,
          2,
        ),
      );
      return ExitCode.Ok;
    }
    out(
      `run ${run.id}: ${run.name} — ${run.status}${run.exit_code === null ? "" : ` (exit ${run.exit_code})`}, started ${new Date(run.started_at).toISOString()}${run.tick === null ? "" : `, tick ${new Date(run.tick).toISOString()}`}`,
    );
    out(
      `  ${jobs.length} jobs: ${
        Object.entries(byState)
          .map(([state, n]) => `${n} ${state}`)
          .join(", ") || "none"
      }; spent ${spent}`,
    );
    for (const [family, states] of Object.entries(byFamily)) {
      out(
        `  ${family.padEnd(14)} ${Object.entries(states)
          .map(([state, n]) => `${n} ${state}`)
          .join(", ")}`,
      );
    }
    if (expiring.length > 0) {
      out(
        `  warning: ${expiring.length} finished result(s) not downloaded yet, links expiring soon: run \`gwrun resume ${run.id}\``,
      );
      for (const item of expiring.slice(0, 10))
        out(`    ${item.label}: expires ${new Date(item.expiresAt).toISOString()}`);
    }
    if (failures.length > 0) {
      out("  failures:");
      for (const failure of failures.slice(0, 50))
        out(`    ${failure.label} ${failure.state}: ${failure.reason}`);
      if (failures.length > 50) out(`    … and ${failures.length - 50} more`);
    }
    for (const line of textLines(texts)) out(line);
    out(`  outputs: ${run.output_dir}`);
    return ExitCode.Ok;
  });
}

/** `gwrun runs`: the latest runs, newest first. */
export function listRuns(flags: { db?: string; json?: boolean }): Promise<ExitCode> {
  return withExistingStore(dbPath(flags), async (store) => {
    const runs = await store.runs(50);
    if (flags.json === true) {
      out(
        JSON.stringify(
          runs.map(({ manifest_text: _text, ...run }) => run),
          null,
          2,
        ),
      );
      return ExitCode.Ok;
    }
    if (runs.length === 0) out("no runs yet");
    for (const run of runs) {
      out(
        `${String(run.id).padStart(4)}  ${run.name.padEnd(24)} ${run.status.padEnd(11)} ${new Date(run.started_at).toISOString()}  ${run.manifest_path}${run.tick === null ? "" : `  (tick ${new Date(run.tick).toISOString()})`}`,
      );
    }
    return ExitCode.Ok;
  });
}
