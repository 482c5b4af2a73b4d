import { existsSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { GatewayError, outputLinks } from "../../../../src/gateway/index.js";
import { probeMedia } from "../../../../src/media/index.js";
import { tempDir } from "../../../helpers/manifest.js";
import { LONG_ENOUGH_MS, type SimScope, withSimulator } from "../../../helpers/sim.js";

const IMAGES = "/v1/images/generations";
const VIDEOS = "/v1/videos/generations";
const imageA = (prompt = "a ceramic mug on an oak table") => ({ model: "acme-image-2", prompt });
const imageBPro = { model: "acme2.7-image-pro", prompt: "a ceramic mug, studio light" };

/** The GatewayError a call fails with. */
async function failure(call: Promise<unknown>): Promise<GatewayError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

async function completedLinks(
  { client, clock }: SimScope,
  endpoint: string,
  body: Record<string, unknown>,
) {
  const { taskId } = await client.submit(endpoint, body);
  clock.advance(LONG_ENOUGH_MS);
  const record = await client.getTask(taskId);
  expect(record.status).toBe("completed");
  return outputLinks(record);
}

describe("simulator credentials", () => {
  it("answers 401 authentication_error for a missing key", async () => {
    await withSimulator(
      {},
      async ({ client }) => {
        const error = await failure(client.submit(IMAGES, imageA()));
        expect(error.status).toBe(401);
        expect(error.type).toBe("authentication_error");
        expect(error.retryable).toBe(false);
      },
      { apiKey: "" },
    );
  });

  it("accepts only the configured key, and never echoes the one it refused", async () => {
    await withSimulator(
      { key: "right-key" },
      async ({ client }) => {
        const error = await failure(client.submit(IMAGES, imageA()));
        expect(error.status).toBe(401);
        expect(error.message).not.toContain("wrong-key");
      },
      { apiKey: "wrong-key" },
    );
    await withSimulator(
      { key: "right-key" },
      async ({ client }) => {
        await expect(client.submit(IMAGES, imageA())).resolves.toMatchObject({
          status: "submitted",
        });
      },
      { apiKey: "right-key" },
    );
  });

  it("takes x-api-key on /v1/messages and requires the version header", async () => {
    const body = {
      model: "acme-fast",
      max_tokens: 64,
      messages: [{ role: "user", content: "Hi" }],
    };
    await withSimulator(
      { key: "k1" },
      async ({ client }) => {
        const answer = await client.callText("messages", "/v1/messages", body);
        expect(answer.text.length).toBeGreaterThan(0);
      },
      { apiKey: "k1" },
    );
    await withSimulator({}, async ({ sim }) => {
      const response = await fetch(`${sim.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k1" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /version header is required/,
      );
    });
  });
});

describe("simulator validation", () => {
  it("answers 400 invalid_request_error naming the field and the rule", async () => {
    await withSimulator({}, async ({ client, sim }) => {
      const error = await failure(
        client.submit(IMAGES, { model: "acme-imagine-1.0-x", prompt: "p", n: "2" }),
      );
      expect(error.status).toBe(400);
      expect(error.type).toBe("invalid_request_error");
      expect(error.message).toMatch(/n: .*JSON number/);
      expect(sim.counters().tasks.created).toBe(0);
    });
  });

  it("answers the named 400 errors of video family 2", async () => {
    await withSimulator({}, async ({ client }) => {
      const mixed = await failure(
        client.submit(VIDEOS, {
          model: "acme-1.0",
          prompt: "p",
          first_frame_image: "https://example.com/a.png",
          image_urls: ["https://example.com/b.png"],
        }),
      );
      expect(mixed.status).toBe(400);
      expect(mixed.message).toMatch(/mixed_media_not_allowed/);
      const audio = await failure(
        client.submit(VIDEOS, { model: "acme-1.0", prompt: "p", audio_setting: "origin" }),
      );
      expect(audio.status).toBe(400);
      expect(audio.message).toMatch(/audio_setting_only_for_edit/);
    });
  });

  it("answers 422 when video family 3 mixes I2V and Omni fields, and bills nothing", async () => {
    await withSimulator({ balance: 100 }, async ({ client, sim }) => {
      const error = await failure(
        client.submit(VIDEOS, {
          model: "acme-v4-fast",
          prompt: "@a walks",
          first_frame_image: "https://example.com/a.png",
          ref_images: [{ tag: "@a", type: "image", image_urls: ["https://example.com/b.png"] }],
        }),
      );
      expect(error.status).toBe(422);
      expect(sim.counters().charged).toBe(0);
    });
  });

  it("rejects family A prompts with the marker word at the safety filter, unbilled", async () => {
    await withSimulator({ unsafeWord: "explosive", balance: 10 }, async ({ client, sim }) => {
      const error = await failure(client.submit(IMAGES, imageA("an explosive mug")));
      expect(error.status).toBe(400);
      expect(error.message).toMatch(/safety filter/);
      expect(sim.counters().tasks.created).toBe(0);
      expect(sim.counters().errors.safety).toBe(1);
    });
  });
});

describe("simulator balance", () => {
  it("answers 402 once the balance cannot cover a task, charging on completion", async () => {
    await withSimulator({ balance: 1 }, async ({ client, clock, sim }) => {
      await client.submit(IMAGES, imageBPro);
      await client.submit(IMAGES, { ...imageBPro, seed: 2 });
      expect(sim.counters().charged).toBe(0);
      const error = await failure(client.submit(IMAGES, { ...imageBPro, seed: 3 }));
      expect(error.status).toBe(402);
      expect(error.type).toBe("payment_required");
      clock.advance(LONG_ENOUGH_MS);
      expect(sim.counters().charged).toBe(1);
      expect((await failure(client.submit(IMAGES, { ...imageBPro, seed: 4 }))).status).toBe(402);
    });
  });

  it("does not bill failed tasks", async () => {
    await withSimulator(
      { balance: 0.5, faults: { taskFailureRate: 1 } },
      async ({ client, clock, sim }) => {
        const { taskId } = await client.submit(IMAGES, imageBPro);
        clock.advance(LONG_ENOUGH_MS);
        const record = await client.getTask(taskId);
        expect(record.status).toBe("failed");
        expect(record.errorMessage).toMatch(/\w/);
        expect(record.cost).toBe(0);
        expect(sim.counters().charged).toBe(0);
        await expect(client.submit(IMAGES, imageBPro)).resolves.toBeDefined();
      },
    );
  });
});

describe("simulator rate limit and faults", () => {
  it("answers 429 rate_limit_error with Retry-After beyond the bucket, then recovers", async () => {
    await withSimulator({ rateLimit: { perSecond: 2, burst: 2 } }, async ({ client, clock }) => {
      await client.submit(IMAGES, imageA("one"));
      await client.submit(IMAGES, imageA("two"));
      const error = await failure(client.submit(IMAGES, imageA("three")));
      expect(error.status).toBe(429);
      expect(error.type).toBe("rate_limit_error");
      expect(error.retryable).toBe(true);
      expect(error.retryAfterMs).toBe(500);
      clock.advance(500);
      await expect(client.submit(IMAGES, imageA("three"))).resolves.toBeDefined();
    });
  });

  it("injects 500 server_error, retryable", async () => {
    await withSimulator({ faults: { serverErrorRate: 1 } }, async ({ client }) => {
      const error = await failure(client.submit(IMAGES, imageA()));
      expect(error.status).toBe(500);
      expect(error.type).toBe("server_error");
      expect(error.retryable).toBe(true);
    });
  });

  it("resets connections before anything happens", async () => {
    await withSimulator({ faults: { resetRate: 1 } }, async ({ client, sim }) => {
      const error = await failure(client.submit(IMAGES, imageA()));
      expect(error.code).toBe("GW_NETWORK");
      expect(error.retryable).toBe(true);
      expect(sim.counters().tasks.created).toBe(0);
      expect(sim.counters().errors.reset).toBe(1);
    });
  });

  it("loses the response of a submit whose task was created", async () => {
    await withSimulator({ faults: { lostResponseRate: 1 } }, async ({ client, sim }) => {
      const error = await failure(client.submit(IMAGES, imageA()));
      expect(error.code).toBe("GW_NETWORK");
      expect(sim.counters().submits.accepted).toBe(1);
      expect(sim.counters().errors.lost_response).toBe(1);
    });
  });

  it("repeats the same faults for the same seed, and others for another seed", async () => {
    const failingPrompts = async (seed: string) =>
      withSimulator({ seed, faults: { taskFailureRate: 0.5 } }, async ({ client, clock }) => {
        const ids = [];
        for (let i = 0; i < 16; i++)
          ids.push((await client.submit(IMAGES, imageA(`mug ${i}`))).taskId);
        clock.advance(LONG_ENOUGH_MS);
        const { records } = await client.getTasks(ids);
        return ids.map((id) => records.get(id)?.status);
      });
    const first = await failingPrompts("alpha");
    expect(first).toContain("failed");
    expect(first).toContain("completed");
    expect(await failingPrompts("alpha")).toEqual(first);
    expect(await failingPrompts("beta")).not.toEqual(first);
  });
});

describe("simulator tasks", () => {
  it("progresses submitted → processing with rising progress → completed, under the time scale", async () => {
    await withSimulator({ timeScale: 60 }, async ({ client, clock }) => {
      const { taskId } = await client.submit(IMAGES, imageA());
      expect((await client.getTask(taskId)).status).toBe("submitted");
      let last = -1;
      let sawProcessing = false;
      // Family A takes at most 8 s queued + 60 s running: 1.13 s at time scale 60.
      for (let step = 0; step < 12; step++) {
        clock.advance(100);
        const record = await client.getTask(taskId);
        expect(record.progress ?? 0).toBeGreaterThanOrEqual(last);
        last = record.progress ?? 0;
        if (record.status === "processing") sawProcessing = true;
      }
      expect(sawProcessing).toBe(true);
      const done = await client.getTask(taskId);
      expect(done.status).toBe("completed");
      // 24 h of links at time scale 60 is 24 real minutes.
      expect((done.raw.result as { images: { expires_at: number }[] }).images[0]?.expires_at).toBe(
        (done.completed ?? 0) + 1440,
      );
    });
  });

  it("starts image family B at processing with its own envelope", async () => {
    await withSimulator({}, async ({ sim }) => {
      const response = await fetch(`${sim.url}${IMAGES}`, {
        method: "POST",
        headers: { authorization: "Bearer k", "content-type": "application/json" },
        body: JSON.stringify(imageBPro),
      });
      const body = (await response.json()) as {
        code: unknown;
        message: unknown;
        data: { status: string }[];
      };
      expect(body.code).toBe("success");
      expect(body.message).toBe("");
      expect(body.data[0]?.status).toBe("processing");
    });
  });

  it("says an unknown or expired task does not exist or has expired", async () => {
    await withSimulator({ retentionSeconds: 3600 }, async ({ client, clock }) => {
      const unknown = await failure(client.getTask("task_made_up"));
      expect(unknown.code).toBe("GW_TASK_UNKNOWN");
      expect(unknown.message).toMatch(/does not exist or has expired/);
      const { taskId } = await client.submit(IMAGES, imageA());
      clock.advance(3_601_000);
      expect((await failure(client.getTask(taskId))).code).toBe("GW_TASK_UNKNOWN");
      const batch = await client.getTasks([taskId]);
      expect(batch.unknown).toEqual([taskId]);
    });
  });

  it("answers a task id after a restart of the simulator", async () => {
    const clockStart = { taskId: "" };
    await withSimulator({}, async ({ client }) => {
      clockStart.taskId = (await client.submit(IMAGES, imageA())).taskId;
    });
    await withSimulator({}, async ({ client, clock }) => {
      clock.advance(LONG_ENOUGH_MS);
      expect((await client.getTask(clockStart.taskId)).status).toBe("completed");
    });
  });
});

describe("simulator batch query shapes", () => {
  for (const batchShape of ["list", "object", "map"] as const) {
    it(`answers a batch as a ${batchShape} that the client reads`, async () => {
      await withSimulator({ batchShape }, async ({ client, sim }) => {
        const ids = [
          (await client.submit(IMAGES, imageA("a"))).taskId,
          (await client.submit(IMAGES, imageA("b"))).taskId,
        ];
        const batch = await client.getTasks(ids);
        expect([...batch.records.keys()].sort()).toEqual([...ids].sort());
        expect(client.batchUnusable).toBe(false);
        expect(sim.counters().queries).toMatchObject({ batch: 1, batch_tasks: 2, single: 0 });
      });
    });
  }

  for (const batchShape of ["missing", "unreadable"] as const) {
    it(`falls back to single queries when the batch endpoint is ${batchShape}`, async () => {
      await withSimulator({ batchShape }, async ({ client, sim }) => {
        const ids = [
          (await client.submit(IMAGES, imageA("a"))).taskId,
          (await client.submit(IMAGES, imageA("b"))).taskId,
        ];
        const batch = await client.getTasks(ids);
        expect(batch.records.size).toBe(2);
        expect(client.batchUnusable).toBe(true);
        expect(sim.counters().queries.single).toBe(2);
      });
    });
  }
});

describe("simulator downloads", () => {
  it("serves PNGs with their Content-Type and Content-Length, and stops after the link TTL", async () => {
    await withSimulator({ linkTtlSeconds: 3600 }, async (scope) => {
      const [link] = await completedLinks(scope, IMAGES, imageA());
      const response = await fetch(link?.url ?? "");
      expect(response.headers.get("content-type")).toBe("image/png");
      expect(Number(response.headers.get("content-length"))).toBe(
        (await response.arrayBuffer()).byteLength,
      );
      scope.clock.advance(3_600_000);
      const error = await failure(
        scope.client.download(link?.url ?? "", path.join(tempDir(), "x.png"), { maxBytes: 1e8 }),
      );
      expect(error.code).toBe("GW_LINK_EXPIRED");
      expect(scope.sim.counters().downloads.expired).toBe(1);
    });
  });

  it("truncates downloads on purpose; the client keeps no partial file", async () => {
    await withSimulator({ faults: { truncateRate: 1 } }, async (scope) => {
      const [link] = await completedLinks(scope, IMAGES, imageA());
      const dest = path.join(tempDir(), "out.png");
      const error = await failure(scope.client.download(link?.url ?? "", dest, { maxBytes: 1e8 }));
      expect(error.code).toBe("GW_DOWNLOAD_INVALID");
      expect(error.message).toMatch(/truncated/);
      expect(error.retryable).toBe(true);
      expect(existsSync(dest)).toBe(false);
      expect(scope.sim.counters().downloads.truncated).toBe(1);
    });
  });

  it("refuses a download over the size cap", async () => {
    await withSimulator({}, async (scope) => {
      const [link] = await completedLinks(scope, IMAGES, imageA());
      const error = await failure(
        scope.client.download(link?.url ?? "", path.join(tempDir(), "big.png"), { maxBytes: 1000 }),
      );
      expect(error.message).toMatch(/cap/);
      expect(error.retryable).toBe(false);
    });
  });

  it("delays downloads when asked", async () => {
    await withSimulator({ faults: { downloadDelayMs: 150 } }, async (scope) => {
      const [link] = await completedLinks(scope, IMAGES, imageA());
      const started = performance.now();
      await scope.client.download(link?.url ?? "", path.join(tempDir(), "slow.png"), {
        maxBytes: 1e8,
      });
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    });
  });

  it("delivers wrong-size pictures and short clips when asked, for testing checks", async () => {
    await withSimulator({ faults: { wrongSizeRate: 1, shortClipRate: 1 } }, async (scope) => {
      const [image] = await completedLinks(scope, IMAGES, {
        ...imageA(),
        size: "16:9",
        resolution: "2k",
      });
      const png = await scope.client.download(image?.url ?? "", path.join(tempDir(), "w.png"), {
        maxBytes: 1e8,
      });
      const meta = await sharp(png.path).metadata();
      expect(`${meta.width}x${meta.height}`).not.toBe("2048x1152");
      const [clip] = await completedLinks(scope, VIDEOS, {
        model: "acme-video-2.3",
        prompt: "a mug",
        duration: 6,
      });
      const mp4 = await scope.client.download(clip?.url ?? "", path.join(tempDir(), "s.mp4"), {
        maxBytes: 1e8,
      });
      expect((await probeMedia(mp4.path)).durationSeconds).toBeLessThan(5);
    });
  });

  it("puts the clip in a plain URL field when told to, and the client still finds it", async () => {
    await withSimulator({ videoResult: "url-field" }, async (scope) => {
      const links = await completedLinks(scope, VIDEOS, {
        model: "acme-video-2.3",
        prompt: "a mug",
        duration: 6,
      });
      expect(links).toHaveLength(1);
      expect(links[0]?.url).toMatch(/\.mp4$/);
    });
  });
});

describe("simulator counters", () => {
  it("counts submits per request, queries and downloads at /__sim/counters", async () => {
    await withSimulator({}, async (scope) => {
      await scope.client.submit(IMAGES, imageA("same"));
      await scope.client.submit(IMAGES, imageA("same"));
      await completedLinks(scope, IMAGES, imageA("other"));
      const counters = (await (await fetch(`${scope.sim.url}/__sim/counters`)).json()) as {
        submits: { accepted: number; repeated: number; byRequest: Record<string, number> };
        queries: { single: number };
      };
      expect(counters.submits.accepted).toBe(3);
      expect(counters.submits.repeated).toBe(1);
      expect(Object.values(counters.submits.byRequest).sort()).toEqual([1, 2]);
      expect(counters.queries.single).toBe(1);
    });
  });
});
