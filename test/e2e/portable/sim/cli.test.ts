import { execFile, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { gwrun, ROOT } from "../../../helpers/cli.js";

const run = promisify(execFile);

async function curl(args: string[]): Promise<unknown> {
  const { stdout } = await run("curl", ["-sS", "--max-time", "10", ...args]);
  return JSON.parse(stdout);
}

describe("gwrun sim", () => {
  it("runs standalone, prints its URL and answers a curl submit and task query", async () => {
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "bin/gwrun.js"), "sim", "--port", "0", "--time-scale", "600"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          const line = /^(http:\/\/\S+)\n/m.exec(text);
          if (line !== null) resolve(line[1] as string);
        });
        child.once("exit", (code) => reject(new Error(`gwrun sim exited with ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const submit = (await curl([
        "-H",
        "Authorization: Bearer demo",
        "-H",
        "Content-Type: application/json",
        "-d",
        JSON.stringify({ model: "acme-image-2", prompt: "a mug" }),
        `${url}/v1/images/generations`,
      ])) as { code: number; data: { status: string; task_id: string }[] };
      expect(submit.code).toBe(200);
      expect(submit.data[0]?.status).toBe("submitted");
      const taskId = submit.data[0]?.task_id ?? "";
      const task = (await curl([
        "-H",
        "Authorization: Bearer demo",
        `${url}/v1/tasks/${taskId}`,
      ])) as {
        code: number;
        data: { id: string; status: string };
      };
      expect(task.code).toBe(200);
      expect(task.data.id).toBe(taskId);
      expect(["submitted", "processing", "completed"]).toContain(task.data.status);
    } finally {
      child.kill("SIGINT");
    }
  });

  it("refuses a bad flag value with a usage error naming the flag", async () => {
    const result = await gwrun(["sim", "--fail-rate", "2"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--fail-rate must be a number from 0 to 1, got "2"/);
  });

  it("says when its port is taken instead of failing obscurely", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await gwrun(["sim", "--port", String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /cannot listen on 127\.0\.0\.1:\d+ \(in use\); pick another --port/,
      );
    } finally {
      server.close();
    }
  });
});
