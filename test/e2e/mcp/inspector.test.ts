import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/** The MCP Inspector's command line, as a developer checks a server with it, lists gwrun's tools. */

const INSPECTOR = path.join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build");

describe("gwrun mcp under the MCP Inspector's CLI", () => {
  it("lists the tools, with review and export when allowed", () => {
    const project = tempDir();
    // The inspector reads its own package.json relative to its working folder: it runs there.
    const listed = spawnSync(
      process.execPath,
      [
        "index.js",
        process.execPath,
        path.join(ROOT, "bin/gwrun.js"),
        "mcp",
        "--project",
        project,
        "--allow-review",
        "--allow-export",
        "--method",
        "tools/list",
      ],
      { cwd: INSPECTOR, encoding: "utf8", env: { PATH: process.env.PATH, NO_COLOR: "1" } },
    );
    expect(listed.status, listed.stderr).toBe(0);
    const { tools } = JSON.parse(listed.stdout) as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "cost",
      "export",
      "outputs",
      "plan",
      "retry",
      "review",
      "run",
      "runs",
      "status",
      "validate",
    ]);
  });
});
