import { afterEach, describe, expect, it } from "vitest";
import { postWebhook, shownWebhook } from "../../../src/gateway/index.js";
import { startWebhook, type Webhook } from "../../helpers/webhook.js";

/** A webhook's delivery, against a real server on loopback. */

const hooks: Webhook[] = [];
afterEach(async () => {
  for (const hook of hooks.splice(0)) await hook.close();
});

async function webhook(statuses: readonly number[] | "hang"): Promise<Webhook> {
  const hook = await startWebhook(statuses);
  hooks.push(hook);
  return hook;
}

describe("postWebhook", () => {
  it("shows a webhook by its origin only: its path is a token", () => {
    expect(shownWebhook("https://hooks.slack.com/services/T0/B0/tok?x=1")).toBe(
      "https://hooks.slack.com/***",
    );
    expect(shownWebhook("not a url")).toBe("***");
  });

  it("retries 500 and delivers on the third try", async () => {
    const hook = await webhook([500, 500, 200]);
    const delivery = await postWebhook(`${hook.url}/x`, { a: 1 }, 5_000, {});
    expect(delivery).toEqual({ delivered: true, tries: 3 });
    expect(hook.posts.map((post) => JSON.parse(post.body))).toEqual([{ a: 1 }, { a: 1 }, { a: 1 }]);
  });

  it("gives up after 3 tries of 500, and at once on a 4xx, saying why without the path", async () => {
    const failing = await webhook([500]);
    expect(await postWebhook(`${failing.url}/tok`, {}, 5_000, {})).toEqual({
      delivered: false,
      why: `${failing.url}/***: it answered HTTP 500`,
    });
    expect(failing.posts).toHaveLength(3);
    const gone = await webhook([410]);
    expect(await postWebhook(`${gone.url}/tok`, {}, 5_000, {})).toMatchObject({
      delivered: false,
    });
    expect(gone.posts).toHaveLength(1);
  });

  it("stops waiting for a webhook that never answers at the time limit", async () => {
    const silent = await webhook("hang");
    const started = Date.now();
    const delivery = await postWebhook(`${silent.url}/tok`, {}, 300, {});
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(delivery).toEqual({
      delivered: false,
      why: `${silent.url}/***: no answer within 0.3s`,
    });
  });
});
