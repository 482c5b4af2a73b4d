// A fleet's claims within a budget as the run grows: the claim statement a worker's submit job
// sends (`gwrun_claim_tasks`, ten tasks), timed on a run of 10,000 and of 300,000 tasks done,
// with max_cost set and without, in a store that also holds 100,000 tasks of an earlier run.
// The tasks are written by SQL (no gateway): what is measured is the claim, not the run.
import { performance } from "node:perf_hooks";
import { freshStore, print, round } from "./fleet-harness.mjs";

const SIZES = [10_000, 300_000];
const EARLIER = 100_000;
const CLAIMS = 200;
const REQUEST = JSON.stringify({
  model: "pic-a",
  prompt: "a red fox in the snow",
  size: "512x512",
});

async function runWith(db, id, done, pending) {
  await db.query(
    `INSERT INTO runs (id, name, manifest_path, manifest_text, base_url, output_dir, status,
       started_at, queued, worked_alone)
     VALUES ($1::int, 'bench', 'm.yaml', 'version: 1', 'http://gateway.test', '/out/' || $1::text,
       'running', 0, false, false)`,
    [id],
  );
  for (const [state, count] of [
    ["done", done],
    ["pending", pending],
  ]) {
    await db.query(
      `INSERT INTO jobs (key, run_id, job_id, label, family, lane, endpoint, state,
         created_at, updated_at, estimated_cost, cost)
       SELECT $1::text || '-' || $2 || '-' || i, $1::int, 'job', $2 || ' ' || i, 'A', 'image', '/v1/images',
         $2::text, 0, 0, 0.001, CASE WHEN $2::text = 'done' THEN 0.001 END
       FROM generate_series(1, $3::int) i`,
      [id, state, count],
    );
    await db.query(
      `INSERT INTO task_requests (key, request)
       SELECT $1::text || '-' || $2 || '-' || i, $3 FROM generate_series(1, $4::int) i`,
      [id, state, REQUEST, count],
    );
  }
}

/** Milliseconds a claim of ten, the mean of `CLAIMS`, with `maxCost` (null: no budget). */
async function claimMs(db, runId, maxCost, from) {
  const claim = async (n) => {
    const keys = Array.from({ length: 10 }, (_, i) => `${runId}-pending-${from + n * 10 + i + 1}`);
    await db.query(
      `SELECT task_key, outcome FROM gwrun_claim_tasks($1::text[], $2, '{image,text}', 1000000,
         $3, 0, $4::float8[], 'bench@host', $5::int[], 1)`,
      [keys, runId, maxCost, keys.map(() => 0.001), keys.map(() => 1)],
    );
  };
  for (let n = 0; n < 10; n++) await claim(n);
  const started = performance.now();
  for (let n = 10; n < 10 + CLAIMS; n++) await claim(n);
  return (performance.now() - started) / CLAIMS;
}

export async function budgetClaims(bench) {
  const { db } = await freshStore(bench.serverUrl);
  try {
    await runWith(db, 1, EARLIER, 0);
    const figures = [];
    for (const [i, size] of SIZES.entries()) {
      const runId = i + 2;
      const pending = 2 * (CLAIMS + 10) * 10;
      await runWith(db, runId, size, pending);
      await db.query("VACUUM ANALYZE jobs");
      const withBudget = await claimMs(db, runId, 1e9, 0);
      const without = await claimMs(db, runId, null, pending / 2);
      figures.push({ size, withBudget, without });
      print({
        bench: "fleet-budget-claims",
        run_tasks_done: size,
        earlier_tasks: EARLIER,
        claim_ms_within_budget: round(withBudget, 2),
        claim_ms_without_budget: round(without, 2),
      });
    }
    // What a budget adds to a claim, at each size: it used to grow with the run and the store.
    const ratios = figures.map((one) => round(one.withBudget / one.without, 2));
    print({
      bench: "fleet-budget-claims-cost",
      run_tasks_done: SIZES,
      within_over_without: ratios,
      target_within_over_without: 1.5,
    });
    return ratios.every((ratio) => ratio <= 1.5);
  } finally {
    await db.end();
  }
}
