import { didYouMean } from "../core/suggest.js";
import { jobPath } from "./job-path.js";
import type { Reporter } from "./report.js";
import type { JobSpec } from "./types.js";

/** Checks of the job graph: unique ids, `from:` links that exist and do not loop. */

export function checkIds(specs: readonly JobSpec[], reporter: Reporter): void {
  const first = new Map<string, JobSpec>();
  for (const spec of specs) {
    const earlier = first.get(spec.id);
    if (earlier === undefined) {
      first.set(spec.id, spec);
      continue;
    }
    const line = reporter.source.lineCounter.linePos(
      reporter.span(["id"], {}, jobPath(earlier)).offset,
    ).line;
    reporter.at(
      ["id"],
      "duplicate-id",
      `duplicate job id "${spec.id}" (first defined on line ${line})`,
      {},
      jobPath(spec),
    );
  }
}

/** Enabled jobs whose whole `from:` chain is enabled (a disabled upstream produces nothing). */
export function willRun(specs: readonly JobSpec[]): Set<JobSpec> {
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  const runs = new Set<JobSpec>();
  for (const spec of specs) {
    let current: JobSpec | undefined = spec;
    const seen = new Set<JobSpec>();
    while (current?.enabled === true && current.from !== undefined && !seen.has(current)) {
      seen.add(current);
      current = byId.get(current.from);
    }
    if (current?.enabled === true && current.from === undefined) runs.add(spec);
  }
  return runs;
}

/** `from:` must name another job, and the links must not loop. */
export function checkLinks(specs: readonly JobSpec[], reporter: Reporter): void {
  const byId = new Map(specs.map((spec) => [spec.id, spec]));
  const ids = [...byId.keys()];
  for (const spec of specs) {
    if (spec.from === undefined) continue;
    const upstream = byId.get(spec.from);
    if (spec.fromSelected !== undefined && upstream?.select !== undefined)
      spec.fromSelected = { best: upstream.select.best, of: upstream.repeat };
    if (upstream === undefined) {
      reporter.at(
        ["from"],
        "unknown-job",
        `from: no job has id "${spec.from}"${didYouMean(spec.from, ids)}`,
        {},
        jobPath(spec),
      );
    } else if (spec.fromSelected !== undefined && upstream.select === undefined) {
      reporter.at(
        ["from", "selected"],
        "select-missing",
        `from.selected takes the outputs job ${upstream.id}'s select: picks, and it has none: give job ${upstream.id} select: { best: 1, by: judge }, or drop selected`,
        { key: true },
        jobPath(spec),
      );
    } else if (!upstream.enabled && spec.enabled) {
      reporter.at(
        ["from"],
        "disabled-upstream",
        `from: job "${spec.from}" is disabled, so this job will not run`,
        { severity: "warning" },
        jobPath(spec),
      );
    }
  }
  const reported = new Set<string>();
  for (const spec of specs) {
    const chain: string[] = [];
    let current: JobSpec | undefined = spec;
    while (current?.from !== undefined && !chain.includes(current.id)) {
      chain.push(current.id);
      current = byId.get(current.from);
    }
    if (
      current === undefined ||
      !chain.includes(current.id) ||
      current.id !== spec.id ||
      reported.has(spec.id)
    )
      continue;
    const cycle = [...chain, spec.id].join(" → ");
    for (const id of chain) reported.add(id);
    for (const id of chain) {
      const member = byId.get(id) as JobSpec;
      reporter.at(["from"], "cycle", `dependency cycle: ${cycle}`, {}, jobPath(member));
    }
  }
}
