import { request } from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { gwrunAsync } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/** `gwrun mcp --http 0`: Streamable HTTP on loopback, every request with the token. */

const TOKEN = "mcp-test-token-7a1d";

/** The URL `gwrun mcp --http` prints on stderr when it listens. */
function listening(child: ReturnType<typeof gwrunAsync>["child"]): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
      if (found?.[1] !== undefined) resolve(found[1]);
    });
    child.once("exit", () => reject(new Error(`gwrun mcp exited: ${text}`)));
  });
}

describe("gwrun mcp --http", () => {
  it("answers a client with the token, refuses one without, and refuses another host's name", async () => {
    const project = tempDir();
    const server = gwrunAsync(["mcp", "--http", "0", "--project", project], {
      env: { GWRUN_MCP_TOKEN: TOKEN },
    });
    try {
      const url = await listening(server.child);
      const bare = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(bare.status).toBe(401);
      // The right token from a page that names another host (DNS rebinding): refused too.
      const wrongHost = await new Promise<number | undefined>((resolve, reject) => {
        const asked = request(
          url,
          { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, host: "rebound.test" } },
          (answer) => {
            answer.resume();
            resolve(answer.statusCode);
          },
        );
        asked.on("error", reject);
        asked.end("{}");
      });
      expect(wrongHost).toBe(401);

      const client = new Client({ name: "gwrun-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toContain("plan");
        const runs = (await client.callTool({ name: "runs", arguments: {} })) as {
          isError?: boolean;
          content: { text?: string }[];
        };
        // A project with no store yet: the person's message, as a tool error.
        expect(runs.isError).toBe(true);
        expect(runs.content[0]?.text).toContain(path.basename(project));
      } finally {
        await client.close();
      }
    } finally {
      server.child.kill("SIGTERM");
      const ended = await server.done;
      expect(ended.code).toBe(130);
    }
  });
});
