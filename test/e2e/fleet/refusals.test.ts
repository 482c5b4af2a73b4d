import { describe, expect, it } from "vitest";
import { exitsWithin, runEnded, withFleet } from "../../helpers/fleet.js";

/** A refused text answer in a fleet: the workers hold the same rule as a single process. */

const SORRY = "I'm sorry, but I can't help with that request.";

describe("gwrun worker and refusals", () => {
  it("a worker fails a refused caption and skips its image, saying the upstream refused", async () => {
    await withFleet({}, async (fleet) => {
      const manifest = fleet.write(
        "captions.yaml",
        `version: 1
name: captions
limits: { submit_rate: 200/s, max_in_flight: 40, downloads: 4 }
poll: { first_after: 50ms, every: 50ms, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output: { dir: ${JSON.stringify(fleet.outputDir)} }
jobs:
  - id: caption
    endpoint: chat
    model: acme-5
    matrix: { subject: [a forbidden mug, a ceramic mug] }
    messages: [{ role: user, content: "One-line caption for {{subject}}" }]
  - { id: image, model: acme-image-2, from: caption, prompt: "{{input.text}}" }
`,
      );
      expect((await fleet.record(manifest)).code).toBe(0);
      const worker = fleet.worker();
      expect(await runEnded(fleet.db)).toBe("failed");

      const { rows } = await fleet.db.query<{ label: string; state: string; reason: string }>(
        "SELECT label, state, reason FROM jobs ORDER BY label",
      );
      const refused = `refused: ${SORRY} (finish reason stop)`;
      expect(rows).toEqual([
        { label: "caption-e1", state: "failed", reason: refused },
        { label: "caption-e2", state: "done", reason: null },
        {
          label: "image-of-caption-e1",
          state: "skipped",
          reason: `upstream caption-e1 ${refused}`,
        },
        { label: "image-of-caption-e2", state: "done", reason: null },
      ]);
      const { rows: answers } = await fleet.db.query<{ finish_reason: string; refusal: string }>(
        "SELECT finish_reason, refusal FROM text_answers WHERE refusal IS NOT NULL",
      );
      expect(answers).toEqual([{ finish_reason: "stop", refusal: SORRY }]);
      // Only the answered caption's image was paid for.
      expect((await fleet.counters()).submits.accepted).toBe(1);

      const status = await fleet.gwrun(["status"]);
      expect(status.stdout).toContain(
        `    image-of-caption-e1 skipped: upstream caption-e1 ${refused}`,
      );
      worker.child.kill("SIGTERM");
      expect((await exitsWithin(worker, 15_000)).code).toBe(0);
    });
  }, 90_000);
});
