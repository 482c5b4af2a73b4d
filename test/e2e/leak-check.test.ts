import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/root.js";

/**
 * The after-each check (test/leak-check.ts, in every project) fails a test
 * that leaves a server, a child process or a store open, and passes one that closes them.
 * Run by a vitest of its own over tests that leak on purpose.
 */

interface JsonReport {
  testResults: {
    assertionResults: { title: string; status: string; failureMessages: string[] }[];
  }[];
}

describe("the leak check", () => {
  it("a test that leaves a server, a child process or a store open fails, naming it; one that closes them passes", () => {
    const fixtures = path.join(ROOT, "test", "fixtures", "leaks");
    const ran = spawnSync(
      process.execPath,
      [
        path.join(ROOT, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--root",
        fixtures,
        "--reporter=json",
      ],
      { cwd: ROOT, encoding: "utf8", timeout: 120_000 },
    );
    const start = ran.stdout.indexOf("{");
    expect(start, ran.stderr).toBeGreaterThanOrEqual(0);
    const report = JSON.parse(ran.stdout.slice(start)) as JsonReport;
    const results = new Map(
      report.testResults
        .flatMap((file) => file.assertionResults)
        .map((test) => [test.title, { status: test.status, why: test.failureMessages.join("\n") }]),
    );
    expect([...results.keys()].sort()).toEqual(
      [
        "keeps nothing open of a child process that exited",
        "keeps nothing open that it closes in onTestFinished",
        "keeps the server of its file's beforeAll",
        "leaks a SQLite store",
        "leaks a child process",
        "leaks a listening server",
      ].sort(),
    );
    for (const [title, { status }] of results)
      expect(status, title).toBe(title.startsWith("leaks") ? "failed" : "passed");
    expect(results.get("leaks a listening server")?.why).toMatch(
      /this test left open: 1 × listening server \(TCPServerWrap\)/,
    );
    expect(results.get("leaks a child process")?.why).toMatch(/1 × child process \(ProcessWrap\)/);
    expect(results.get("leaks a SQLite store")?.why).toMatch(/1 × sqlite store/);
    expect(ran.status).toBe(1);
  });
});
