import { describe, expect, it } from "vitest";
import {
  type ProjectScope,
  QUICK,
  type StoreKind,
  startView,
  withProject,
} from "../../helpers/project.js";

/** Pictures, two the safety filter rejects, and a clip of each picture (waiting on it). */
const manifest = (more = "") => `${QUICK}name: counts
jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "1:1", repeat: 8 }
  - { id: bad, model: acme-image-2, prompt: "a forbidden mug", size: "1:1", repeat: 2 }
  - id: clip
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: slow push in
    duration: 6
${more}`;

const FINAL = "('done', 'failed', 'rejected', 'expired', 'skipped', 'held')";
const OWN = "FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key WHERE run_jobs.run_id = $1";

/** What the run page should show of run `id`, counted row by row from the record itself. */
async function countedRows(scope: ProjectScope, id: number) {
  const count = async (sql: string) => Number((await scope.sql(sql, [id]))[0]?.n);
  const states: Record<string, number> = {};
  for (const row of await scope.sql(`SELECT jobs.state, count(*) AS n ${OWN} GROUP BY jobs.state`, [
    id,
  ]))
    states[String(row.state)] = Number(row.n);
  const reviews = { approved: 0, rejected: 0 };
  for (const row of await scope.sql(
    `SELECT reviews.decision, count(*) AS n FROM run_jobs
     JOIN reviews ON reviews.job_key = run_jobs.key WHERE run_jobs.run_id = $1 GROUP BY reviews.decision`,
    [id],
  ))
    reviews[row.decision as keyof typeof reviews] = Number(row.n);
  return {
    tasks: await count(`SELECT count(*) AS n ${OWN}`),
    states,
    outputs: await count(
      `SELECT count(*) AS n FROM run_jobs JOIN outputs ON outputs.job_key = run_jobs.key
       WHERE run_jobs.run_id = $1 AND outputs.state = 'downloaded'`,
    ),
    reviews,
    failed: await count(
      `SELECT count(*) AS n ${OWN} AND jobs.state IN ('failed', 'rejected', 'expired', 'skipped')`,
    ),
    // The run's own finishes: stand-ins left out, and what an earlier run finished too.
    finished: await count(
      `SELECT count(*) AS n ${OWN} AND jobs.placeholder = 0 AND jobs.state IN ${FINAL}
       AND jobs.updated_at >= (SELECT started_at FROM runs WHERE id = $1)`,
    ),
  };
}

interface Progress {
  tasks: number;
  states: Record<string, number>;
  outputs: number;
  reviews: { approved: number; rejected: number };
  failed: number;
  rate: number;
  elapsed: number;
}

describe.each<StoreKind>(["sqlite", "postgres"])("the run page's counts on %s", (kind) => {
  it(`${kind}: after failures, retries, reviews, a prune, a resume and a second run, the run page counts what the record holds`, async () => {
    const faults = { taskFailureRate: 0.25, serverErrorRate: 0.1 };
    await withProject(
      kind,
      async (scope) => {
        const file = scope.write("counts.yaml", manifest());
        expect((await scope.gwrun(["run", file])).code).toBe(1);
        const outputs = await scope.sql(
          "SELECT job_key, idx FROM outputs WHERE state = 'downloaded' ORDER BY job_key, idx LIMIT 5",
        );
        const first = await startView(scope.project, env(scope));
        try {
          for (const [i, output] of outputs.entries()) {
            const answer = await fetch(`${first.url}/api/reviews`, {
              method: "POST",
              headers: { "x-gwrun-token": first.token, "content-type": "application/json" },
              body: JSON.stringify({
                key: output.job_key,
                index: Number(output.idx),
                decision: i % 2 === 0 ? "approved" : "rejected",
              }),
            });
            expect(answer.status).toBe(200);
          }
        } finally {
          await first.stop();
        }
        expect((await scope.gwrun(["prune"])).code).toBe(0);
        scope.sim.options.faults.taskFailureRate = 0.1;
        await scope.gwrun(["retry", "--failed", "1"]);
        await scope.gwrun(["resume", "1"]);
        scope.write(
          "counts.yaml",
          manifest("  - { id: more, model: acme-image-2, prompt: a cup, repeat: 4 }\n"),
        );
        await scope.gwrun(["run", file]);

        const view = await startView(scope.project, env(scope));
        try {
          for (const id of [1, 2]) {
            const answer = await fetch(`${view.url}/api/runs/${id}/progress`);
            const shown = (await answer.json()) as Progress;
            const counted = await countedRows(scope, id);
            const { finished, ...counts } = counted;
            expect(shown).toMatchObject(counts);
            // The rate is the run's own finishes per minute since it started.
            expect(shown.rate).toBe(Math.round((finished / shown.elapsed) * 60_000 * 10) / 10);
            expect((await fetch(`${view.url}/runs/${id}`)).status).toBe(200);
            if (id === 2) {
              // The second run holds the first's finished tasks, which are not its own finishes.
              expect(finished).toBeGreaterThan(0);
              expect(finished).toBeLessThan(counted.tasks);
            }
          }
          const one = await countedRows(scope, 1);
          expect(one.failed).toBeGreaterThan(0);
          expect(one.reviews).toEqual({ approved: 3, rejected: 2 });
        } finally {
          await view.stop();
        }
      },
      { seed: "counts", faults },
    );
  });
});

const env = (scope: ProjectScope) =>
  scope.store === undefined ? {} : { GWRUN_STORE: scope.store };
