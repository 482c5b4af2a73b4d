import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { GatewayClient } from "../../../src/gateway/index.js";

describe("connecting ahead of the first call", () => {
  it("opens the connection the first submit then uses", async () => {
    const seen: string[] = [];
    let connections = 0;
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "no key"}`);
      if (req.method === "OPTIONS") res.writeHead(204).end();
      else res.end(JSON.stringify({ code: 200, data: { task_id: "task_1", status: "submitted" } }));
    });
    server.on("connection", () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = new GatewayClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "secret" });
    try {
      await client.connect();
      expect(connections).toBe(1);
      const receipt = await client.submit("/v1/images/generations", { model: "acme-image-2" });
      expect(receipt.taskId).toBe("task_1");
      expect(connections).toBe(1);
      // The key goes with calls only.
      expect(seen).toEqual(["OPTIONS / no key", "POST /v1/images/generations Bearer secret"]);
    } finally {
      await client.close();
      server.close();
    }
  });

  it("shrugs off a gateway that is not there: the first call will say so", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new GatewayClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k" });
    try {
      await expect(client.connect()).resolves.toBeUndefined();
      await expect(client.submit("/v1/images/generations", {})).rejects.toThrow(/connect|refused/i);
    } finally {
      await client.close();
    }
  });

  it("gives up on a gateway that does not answer within two seconds", async () => {
    const server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = new GatewayClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k" });
    try {
      const started = performance.now();
      await client.connect();
      expect(performance.now() - started).toBeLessThan(4000);
    } finally {
      await client.close().catch(() => {});
      server.closeAllConnections();
      server.close();
    }
  });
});
