// Fleet benches: `gwrun worker` processes on one PostgreSQL store against `gwrun sim`.
// Usage: node bench/fleet.mjs [rate|limit-counts-polls|kill|leader|scale|pg-10k|budget-claims ...]
// [--trials N]
// (no name: every scenario). One JSON object per scenario (and per kill trial) on stdout,
// figures next to their targets. PostgreSQL: GWRUN_TEST_PG_URL, else an embedded server;
// each scenario (each kill trial) takes a fresh database. Runs `dist/`: build first.
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { budgetClaims } from "./fleet-budgets.mjs";
import { kill, leader } from "./fleet-faults.mjs";
import { log } from "./fleet-harness.mjs";
import { limitCountsPolls, pg10k, rate, scale } from "./fleet-throughput.mjs";
import { benchFolder } from "./folder.mjs";
import { startPostgres } from "./postgres.mjs";

const SCENARIOS = {
  rate,
  "limit-counts-polls": limitCountsPolls,
  kill,
  leader,
  scale,
  "pg-10k": pg10k,
  "budget-claims": budgetClaims,
};

const args = process.argv.slice(2);
let trials = 20;
const names = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--trials") trials = Number(args[++i]);
  else if (args[i] in SCENARIOS) names.push(args[i]);
  else {
    console.error(`unknown argument ${args[i]}; scenarios: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
  }
}
if (names.length === 0) names.push(...Object.keys(SCENARIOS));

const dir = benchFolder("fleet");
const server = await startPostgres({ statements: true });
let failed = false;
try {
  for (const name of names) {
    const started = performance.now();
    log(`${name}…`);
    if ((await SCENARIOS[name]({ dir, serverUrl: server.url, trials })) === false) failed = true;
    log(`${name}: ${Math.round((performance.now() - started) / 1000)} s`);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
