import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../../src/gateway/index.js";
import { openGatewayTarget } from "../../../src/run/index.js";

describe("base_url: sim", () => {
  it("starts the simulator in-process on a free loopback port, with no key needed", async () => {
    const target = await openGatewayTarget(
      { baseUrl: "sim", apiKey: undefined, messagesVersion: undefined, privateUrls: false },
      {},
    );
    const client = new GatewayClient({ baseUrl: target.baseUrl, apiKey: target.apiKey });
    try {
      expect(target.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(target.timeScale).toBe(60);
      const receipt = await client.submit("/v1/images/generations", {
        model: "acme-image-2",
        prompt: "a mug",
      });
      expect(receipt.taskId).toMatch(/^task_/);
    } finally {
      await client.close();
      await target.close();
    }
    await expect(fetch(`${target.baseUrl}/__sim/counters`)).rejects.toThrow();
  });

  it("takes its time scale from GWRUN_SIM_TIME_SCALE", async () => {
    const target = await openGatewayTarget(
      { baseUrl: "sim", apiKey: undefined, messagesVersion: undefined, privateUrls: false },
      { GWRUN_SIM_TIME_SCALE: "600" },
    );
    expect(target.simulator?.options.timeScale).toBe(600);
    await target.close();
  });

  it("needs an API key for a real gateway and says where to put it", async () => {
    await expect(
      openGatewayTarget(
        {
          baseUrl: "https://gw.example.com",
          apiKey: undefined,
          messagesVersion: undefined,
          privateUrls: false,
        },
        {},
      ),
    ).rejects.toMatchObject({ code: "GW_USAGE", hint: expect.stringMatching(/GW_API_KEY/) });
  });
});
