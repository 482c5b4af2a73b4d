import { type FleetStatus, type FleetWorkerStatus, leads } from "../api/index.js";
import { plural } from "../core/words.js";

/** The fleet section of the status text. */
export function fleetLines(fleet: FleetStatus): string[] {
  const count = (state: FleetWorkerStatus["state"]) =>
    fleet.workers.filter((worker) => worker.state === state).length;
  const gone = [`${count("dead")} dead`, `${count("stopped")} stopped`].join(", ");
  const silent = count("silent") === 0 ? "" : `, ${count("silent")} silent`;
  const lines = [
    `  fleet: ${plural(count("live"), "worker")} live${silent}; in the last hour ${gone}`,
  ];
  for (const worker of fleet.workers) {
    const marks = [
      ...(worker.state === "live" ? [] : [worker.state]),
      ...(worker.state === "silent" && worker.lease_s !== null
        ? [`found dead at ${worker.lease_s} s`]
        : []),
      `${plural(worker.submits, "submit")} for this run`,
      ...(worker.poll_leader ? ["poll leader"] : []),
    ];
    lines.push(
      `    ${worker.name} ${worker.host} ${worker.pid} heartbeat ${worker.heartbeat_age_s.toFixed(1)} s ago, ${marks.join(", ")}`,
    );
  }
  const listed = new Set(fleet.workers.map((worker) => worker.id));
  const others = Object.entries(fleet.submits).filter(([id]) => !listed.has(id));
  if (others.length > 0)
    lines.push(
      `    workers gone over an hour ago: ${others.map(([id, n]) => `${id} ${plural(n, "submit")}`).join(", ")}`,
    );
  lines.push(`    ${leaderText(fleet)}`);
  if (fleet.pace.length === 0) lines.push("    pace: none yet for this run's gateway");
  for (const pace of fleet.pace) {
    const announced =
      pace.announced === null ? "none announced" : `announced ${rate(pace.announced)}`;
    const paused = pace.paused_s > 0 ? `, paused for ${pace.paused_s.toFixed(1)} s` : "";
    lines.push(
      `    pace ${pace.account}: ${rate(pace.rate)}, ceiling ${rate(pace.ceiling)}, ${announced}${paused}`,
    );
  }
  const { queue } = fleet;
  lines.push(
    `    queue: ${plural(queue.submits, "submit job")}, ${plural(queue.downloads, "download job")}, ${queue.running} running`,
  );
  lines.push(`    links expiring within the hour: ${plural(fleet.expiring_links, "task")}`);
  lines.push(`    orphan task ids: ${fleet.orphan_task_ids}`);
  return lines;
}

/** "poll leader: w1 (12@host)", or none. */
function leaderText(fleet: FleetStatus): string {
  if (fleet.poll_leaders.length === 0) return "poll leader: none";
  const names = fleet.poll_leaders.map((id) => {
    const worker = fleet.workers.find((candidate) => leads(id, candidate.id));
    return worker === undefined ? id : `${worker.name} (${id})`;
  });
  return `${fleet.poll_leaders.length === 1 ? "poll leader" : "poll leaders"}: ${names.join(", ")}`;
}

/** A rate per second, to a hundredth. */
function rate(perSecond: number): string {
  return `${Number(perSecond.toFixed(2))}/s`;
}
