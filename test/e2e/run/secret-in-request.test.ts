import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_MIN_LENGTH, isCredentialName } from "../../../src/core/secret-registry.js";
import { checkManifestText } from "../../../src/families/index.js";
import { formatDiagnostic } from "../../../src/manifest/index.js";
import { gwrun, gwrunAsync } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { fastSettings, withRun } from "../../helpers/run.js";

/** The key, and any variable named like a secret, never goes into a request. */

const KEY = "sk-live-4f9a0c2e7b1d";
const TOKEN = "tok-93a1f0c77e";

async function validate(yaml: string, env: NodeJS.ProcessEnv) {
  const dir = tempDir({ "m.yaml": yaml });
  return await gwrun(["validate", path.join(dir, "m.yaml")], { env });
}

describe("secrets in requests", () => {
  it(`\${GW_API_KEY} in a prompt is an error at the reference, naming the variable, never the key`, async () => {
    const result = await validate(
      `version: 1
jobs:
  - id: hero
    model: acme-image-2
    prompt: "a mug, signed \${GW_API_KEY}"
`,
      { GW_API_KEY: KEY },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /m\.yaml:5:28 {2}error prompt: holds the API key \(GW_API_KEY\); a request goes to the gateway and into the run's record, so it must never carry the key {2}\[secret-in-request\]/,
    );
    expect(result.stderr).toContain("hint: take the key out of this request field");
    expect(result.stderr).toContain("1 error; nothing was submitted");
    expect(result.stderr + result.stdout).not.toContain(KEY);
  });

  it("a variable named like a secret, reached through vars:, is an error at the field; a key pasted in is masked in the frame", async () => {
    const result = await validate(
      `version: 1
vars:
  signature: "\${DEPLOY_TOKEN}"
jobs:
  - id: hero
    model: acme-image-2
    prompt: "a mug by {{signature}}"
  - id: pasted
    model: acme-image-2
    prompt: "a jug ${KEY}"
  - { id: sized, model: acme-image-2, prompt: a cup, size: "\${GW_API_KEY}" }
`,
      { GW_API_KEY: KEY, DEPLOY_TOKEN: TOKEN },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "m.yaml:7:23  error prompt: holds the value of DEPLOY_TOKEN, a credential",
    );
    expect(result.stderr).toContain("hint: take DEPLOY_TOKEN out of this request field");
    expect(result.stderr).toContain("m.yaml:10:20  error prompt: holds the API key (GW_API_KEY)");
    expect(result.stderr).toContain(`prompt: "a jug ${"*".repeat(KEY.length)}"`);
    // A field other rules would refuse (and quote) is refused for the key alone.
    expect(result.stderr).toContain("m.yaml:11:61  error size: holds the API key (GW_API_KEY)");
    expect(result.stderr).toContain("3 errors; nothing was submitted");
    expect(result.stderr + result.stdout).not.toContain(KEY);
    expect(result.stderr + result.stdout).not.toContain(TOKEN);
  });

  it("gwrun run submits nothing and records no run; the key stays out of the database", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "keyed.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - { id: fine, model: acme-image-2, prompt: a mug }
  - { id: leaky, model: acme-image-2, prompt: "a jug \${GW_API_KEY}" }
`,
      );
      const run = await gwrunAsync(
        ["run", manifest, "--db", scope.db, "--base-url", scope.sim.url],
        {
          cwd: scope.dir,
          env: { GW_API_KEY: KEY },
        },
      ).done;
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("keyed.yaml: invalid; nothing was submitted");
      expect(run.stderr).not.toContain(KEY);
      expect(scope.sim.counters().submits.accepted).toBe(0);
      if (existsSync(scope.db)) {
        const store = await scope.open();
        try {
          expect(await store.latestRun()).toBeUndefined();
        } finally {
          await store.close();
        }
        for (const file of [scope.db, `${scope.db}-wal`])
          if (existsSync(file)) expect(readFileSync(file).includes(KEY)).toBe(false);
      }
    });
  });

  it("a key written in gateway.api_key, or read from another variable, is found too", async () => {
    const jobs = `jobs:\n  - { id: hero, model: acme-image-2, prompt: "by ${KEY}" }\n`;
    const literal = await checkManifestText(
      `version: 1\ngateway: { api_key: ${KEY} }\n${jobs}`,
      "m.yaml",
      {},
      0,
    );
    const read = await checkManifestText(
      `version: 1\ngateway: { api_key: "\${ACME_GATEWAY}" }\n${jobs}`,
      "m.yaml",
      { ACME_GATEWAY: KEY },
      0,
    );
    const messages = (checked: typeof literal) =>
      checked.diagnostics.filter((d) => d.rule === "secret-in-request").map((d) => d.message);
    expect(literal.valid).toBe(false);
    expect(messages(literal)[0]).toMatch(/^prompt: holds the API key \(gateway\.api_key\)/);
    expect(messages(read)[0]).toMatch(/^prompt: holds the API key \(ACME_GATEWAY\)/);
    const shown = literal.diagnostics.map((d) => formatDiagnostic(d, literal.shownText)).join("\n");
    expect(shown).not.toContain(KEY);
  });

  it(`values shorter than ${CREDENTIAL_MIN_LENGTH} characters, a short one inside another word, and variables not named as credentials are left alone`, async () => {
    const yaml = `version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: "abcde in \${COLOUR}, batch 47115" }
`;
    const checked = await checkManifestText(
      yaml,
      "m.yaml",
      { GW_API_KEY: "abc", COLOUR: "a-long-colour-name", PIN_TOKEN: "4711" },
      0,
    );
    expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(checked.valid).toBe(true);
  });

  it("names that mark a credential: a key, secret, token, password, PAT, webhook or auth word, in any case", () => {
    for (const name of [
      "GW_API_KEY",
      "github_token",
      "Client_Secret",
      "DB_PASSWORD",
      "PGPASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "SECRET",
      "APIKEY",
      "GH_PAT",
      "SLACK_WEBHOOK",
      "KEY",
    ])
      expect(isCredentialName(name), name).toBe(true);
    for (const name of ["KEYNOTE", "MONKEY", "SECRETARY", "COLOUR", "PWD", "PATH", "PATTERN"])
      expect(isCredentialName(name), name).toBe(false);
  });
});
