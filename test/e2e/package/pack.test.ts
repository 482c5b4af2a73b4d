import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/**
 * The package as npm users get it (the suite's one packing test): `npm pack` of the built
 * dist/ (vitest's global setup built it), the tarball installed into an empty project, then
 * imported from JavaScript and from TypeScript, and a manifest run through it against the
 * built-in simulator.
 *
 * The install is offline and builds nothing: the npm cache here holds no registry metadata and
 * better-sqlite3 would take minutes to compile. So gwrun's dependencies are linked into the
 * empty project from this repository's node_modules before `npm install --offline` of the
 * tarball, which finds them satisfied and adds only gwrun itself, unpacked from the tarball.
 */

const NPM = "npm";

function npm(args: readonly string[], cwd: string): string {
  return execFileSync(NPM, [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("the packed package", () => {
  it("installs from its tarball, imports from JavaScript and TypeScript, and runs a manifest", () => {
    const dir = tempDir();
    const packed = JSON.parse(
      npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]?.files.map((file) => file.path) ?? [];
    expect(files).toContain("dist/index.js");
    // One declaration file: the public surface, nothing of the internals or native modules.
    expect(files.filter((file) => file.endsWith(".d.ts"))).toEqual(["dist/gwrun.d.ts"]);
    expect(files).toContain("bin/gwrun.js");
    expect(files.some((file) => file.startsWith("test/") || file.startsWith("src/"))).toBe(false);

    const app = path.join(dir, "app");
    mkdirSync(path.join(app, "node_modules"), { recursive: true });
    writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", type: "module", private: true }),
    );
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(pkg.dependencies)) {
      mkdirSync(path.dirname(path.join(app, "node_modules", name)), { recursive: true });
      symlinkSync(path.join(ROOT, "node_modules", name), path.join(app, "node_modules", name));
    }
    npm(
      [
        "install",
        "--offline",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        path.join(dir, packed[0]?.filename as string),
      ],
      app,
    );
    expect(readdirSync(path.join(app, "node_modules", "gwrun"))).toContain("dist");
    // A Node program has Node's types; gwrun's own dev types (better-sqlite3's, pg's) it has not.
    mkdirSync(path.join(app, "node_modules", "@types"), { recursive: true });
    symlinkSync(
      path.join(ROOT, "node_modules", "@types", "node"),
      path.join(app, "node_modules", "@types", "node"),
    );

    // JavaScript: every function the API promises is there.
    const names = execFileSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'console.log(Object.keys(await import("gwrun")).sort().join(" "))',
      ],
      { cwd: app, encoding: "utf8" },
    );
    for (const name of [
      "loadManifest",
      "validate",
      "plan",
      "run",
      "resume",
      "retry",
      "status",
      "openStore",
    ])
      expect(names.split(" ").map((word) => word.trim())).toContain(name);

    // TypeScript: the declarations type a program; a wrong use is an error.
    writeFileSync(
      path.join(app, "use.ts"),
      `import { openStore, run, validate, type RunEvent, type RunOutcome } from "gwrun";
export async function latest(): Promise<string | undefined> {
  const store = await openStore();
  // @ts-expect-error: a program reads the record; a run's writes are not offered
  void store.recordTasks;
  const run = await store.latestRun();
  await store.close();
  return run?.name;
}
export async function main(file: string): Promise<number> {
  const checked = await validate(file);
  if (!checked.valid) return checked.diagnostics.length;
  const handle = run(file, { apiKey: "key", only: ["hero"] });
  for await (const event of handle as AsyncIterable<RunEvent>) {
    if (event.type === "task:done") console.log(event.label);
  }
  const outcome: RunOutcome = await handle;
  // @ts-expect-error: an exit code is a number
  const wrong: string = outcome.exitCode;
  return outcome.exitCode + wrong.length;
}
`,
    );
    writeFileSync(
      path.join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          // Every declaration file is checked, gwrun's and what it names.
          skipLibCheck: false,
          noEmit: true,
          types: ["node"],
          lib: ["ES2023"],
        },
        files: ["use.ts"],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      { cwd: app, encoding: "utf8" },
    );
    expect(tsc.stdout).toBe("");
    expect(tsc.status).toBe(0);

    // A manifest run through the installed package, against the built-in simulator.
    writeFileSync(
      path.join(app, "shop.yaml"),
      `version: 1
name: shop
gateway: { base_url: sim }
jobs:
  - { id: hero, model: acme-image-2, prompt: a ceramic mug, size: "1:1" }
  - { id: caption, endpoint: chat, model: acme-5, messages: [{ role: user, content: A line about a mug }] }
`,
    );
    writeFileSync(
      path.join(app, "run.mjs"),
      `import { run, status } from "gwrun";
const handle = run("shop.yaml");
const types = new Set();
for await (const event of handle) types.add(event.type);
const outcome = await handle;
const record = await status(outcome.runId);
console.log(JSON.stringify({ exitCode: outcome.exitCode, types: [...types], states: record.states }));
`,
    );
    const ran = spawnSync(process.execPath, ["run.mjs"], {
      cwd: app,
      encoding: "utf8",
      env: { PATH: process.env.PATH },
    });
    expect(ran.stderr).toBe("");
    const result = JSON.parse(ran.stdout) as { exitCode: number; types: string[]; states: object };
    expect(result).toMatchObject({ exitCode: 0, states: { done: 2 } });
    expect(result.types).toEqual(
      expect.arrayContaining(["run:started", "task:done", "run:finished"]),
    );
    expect(readdirSync(path.join(app, "data", "outputs", "shop"))).toContain("index.html");
  });
});
