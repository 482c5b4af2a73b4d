import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validate } from "../../../src/index.js";
import { gwrun } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/**
 * What a manifest may read and carry: files from its project only, regular and bounded, and
 * no credential's value in anything gwrun sends or writes. Each probe is run through the CLI
 * (and the package's `validate`) as a user or an untrusted manifest would.
 */

const AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const CREDENTIALS = `[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = ${AWS_SECRET}\n`;

/** A project folder (`.git` marks it) holding `files`, beside a folder outside it. */
function project(files: Record<string, string>): { dir: string; outside: string } {
  const root = tempDir();
  const dir = path.join(root, "project");
  const outside = path.join(root, "elsewhere");
  mkdirSync(path.join(dir, ".git"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, "credentials"), CREDENTIALS);
  writeFileSync(path.join(outside, "rows.csv"), "sku\nPAN-01\n");
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return { dir, outside };
}

const chat = (id: string, content: string) =>
  `  - { id: ${id}, endpoint: chat, model: acme-5, messages: [{ role: user, content: ${content} }], stream: false }`;

/** An error at `line` of m.yaml (any column) whose message begins `text`. */
function at(line: number, text: string): RegExp {
  return new RegExp(
    `m\\.yaml:${line}:\\d+ {2}error ${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
  );
}

async function check(dir: string, env: NodeJS.ProcessEnv = {}) {
  const result = await gwrun(["validate", path.join(dir, "m.yaml")], { env });
  return { ...result, all: result.stdout + result.stderr };
}

describe("the file gate, as a manifest meets it", () => {
  it("refuses a file outside the project, an absolute path, and a link that leads out; reads one files.allow names", async () => {
    const { dir, outside } = project({ "prompts/ok.txt": "A mug on oak\n" });
    symlinkSync(path.join(outside, "credentials"), path.join(dir, "prompts/linked.txt"));
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
jobs:
${chat("relative", "{ file: ../elsewhere/credentials }")}
${chat("absolute", `{ file: ${path.join(outside, "credentials")} }`)}
${chat("linked", "{ file: prompts/linked.txt }")}
${chat("inside", "{ file: prompts/ok.txt }")}
  - { id: rows, model: acme-image-2, rows: ../elsewhere/rows.csv, prompt: "a {{row.sku}}" }
  - { id: image, model: acme2.7-image, prompt: blue, image_urls: [../elsewhere/credentials] }
`,
    );
    const refused = await check(dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      at(3, "file: ../elsewhere/credentials lies outside the project"),
    );
    expect(refused.stderr).toMatch(/m\.yaml:4:\d+ {2}error file: \S+credentials lies outside/);
    expect(refused.stderr).toMatch(at(5, "file: prompts/linked.txt is a link to"));
    expect(refused.stderr).toMatch(
      /m\.yaml:7:\d+ {2}error rows: \.\.\/elsewhere\/rows\.csv lies outside/,
    );
    expect(refused.stderr).toMatch(/m\.yaml:8:\d+ {2}error image_urls\[0\]: .*lies outside/);
    expect(refused.stderr).toContain("5 errors; nothing was submitted");
    expect(refused.all).not.toContain(AWS_SECRET);

    // A manifest that names the folder it reads from may read it.
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
files: { allow: [../elsewhere] }
jobs:
  - { id: rows, model: acme-image-2, rows: ../elsewhere/rows.csv, prompt: "a {{row.sku}}" }
`,
    );
    const allowed = await check(dir);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain("valid (1 job, 1 task)");
  });

  it("the package's validate() of an untrusted manifest reads nothing outside, and shows no credential", async () => {
    const { dir, outside } = project({
      "rows.csv": `sku,note\nPAN-01,token ${AWS_SECRET}\nPAN-02,"unclosed\n`,
    });
    writeFileSync(path.join(outside, ".pgpass"), "db.internal:5432:*:gwrun:hunter2hunter2\n");
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
jobs:
${chat("pgpass", "{ file: ../elsewhere/.pgpass }")}
  - { id: rows, model: acme-image-2, rows: rows.csv, prompt: "a {{row.sku}}" }
`,
    );
    const checked = await validate(path.join(dir, "m.yaml"), {
      env: { AWS_SECRET_ACCESS_KEY: AWS_SECRET },
    });
    expect(checked.valid).toBe(false);
    const shown = JSON.stringify(checked.diagnostics);
    expect(shown).toContain("../elsewhere/.pgpass lies outside the project");
    expect(shown).not.toContain("hunter2");
    // The frame of the data file (a cell holding a credential) is masked.
    expect(shown).toContain("rows.csv");
    expect(shown).not.toContain(AWS_SECRET);
  });

  it("refuses devices, FIFOs and a file past its bound at once, at their line", async () => {
    const { dir } = project({ "big.txt": "x".repeat(5 * 1024 * 1024) });
    execFileSync("mkfifo", [path.join(dir, "pipe.txt")]);
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
jobs:
${chat("zero", "{ file: /dev/zero }")}
${chat("random", "{ file: /dev/urandom }")}
${chat("fifo", "{ file: pipe.txt }")}
${chat("big", "{ file: big.txt }")}
`,
    );
    const started = Date.now();
    const refused = await check(dir);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(at(3, "file: /dev/zero lies outside the project"));
    expect(refused.stderr).toMatch(at(4, "file: /dev/urandom lies outside the project"));
    expect(refused.stderr).toMatch(at(5, "file: pipe.txt is not a regular file (a FIFO)"));
    expect(refused.stderr).toMatch(at(6, "file: big.txt holds more than 4 MB"));
  });
});

describe("the secret registry, as a manifest meets it", () => {
  it("refuses any credential's value in a label, output.dir, a publish prefix, a prompt or a message file", async () => {
    const env = {
      AWS_SECRET_ACCESS_KEY: AWS_SECRET,
      PGPASSWORD: "pg-passw0rd-long",
      DATABASE_URL: "postgres://app:s3cr3t-db@db.internal/app",
      SLACK_WEBHOOK: "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
      SECRET: "plain-secret-value",
      APIKEY: "apikey-0123456",
      GH_PAT: "ghp_0123456789",
      PIN_TOKEN: "4711",
    };
    const { dir } = project({ "prompts/keys.txt": `use ${AWS_SECRET}\n` });
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
output: { dir: "out/\${PGPASSWORD}", publish: "s3://bucket/\${SECRET}" }
jobs:
  - { id: labelled, model: acme-image-2, prompt: a mug, label: "mug-\${GH_PAT}" }
  - { id: url, model: acme-image-2, prompt: "see \${DATABASE_URL}" }
  - { id: hook, model: acme-image-2, prompt: "post \${SLACK_WEBHOOK}" }
  - { id: api, model: acme-image-2, prompt: "key \${APIKEY}" }
  - { id: pin, model: acme-image-2, prompt: "pin \${PIN_TOKEN} please" }
${chat("filed", "{ file: prompts/keys.txt }")}
`,
    );
    const refused = await check(dir, env);
    expect(refused.code).toBe(2);
    for (const [line, name] of [
      [2, "PGPASSWORD"],
      [2, "SECRET"],
      [4, "GH_PAT"],
      [5, "DATABASE_URL"],
      [6, "SLACK_WEBHOOK"],
      [7, "APIKEY"],
      [8, "PIN_TOKEN"],
      [9, "AWS_SECRET_ACCESS_KEY"],
    ] as const)
      expect(refused.stderr).toMatch(
        new RegExp(`m\\.yaml:${line}:\\d+ {2}error \\S+: holds the value of ${name}, a credential`),
      );
    for (const value of Object.values(env).filter((value) => value !== "4711"))
      expect(refused.all).not.toContain(value);
  });

  it("refuses a password in gateway.base_url, at its line", async () => {
    const { dir } = project({});
    writeFileSync(
      path.join(dir, "m.yaml"),
      `version: 1
gateway: { base_url: "https://me:hunter2hunter2@gateway.internal" }
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug }
`,
    );
    const refused = await check(dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      at(
        2,
        "gateway.base_url: holds a password (user:password@host), which each run's record would keep",
      ),
    );
  });
});
