import { describe, expect, it } from "vitest";
import { notifyTargetsOf, parseManifest, resolvedManifest } from "../../../src/manifest/index.js";
import { checkInline } from "../../helpers/manifest.js";

/** `notify:` in a manifest, checked where it is written. */

const manifest = (notify: string) => `version: 1
notify:
${notify}
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug }
`;

async function problems(notify: string, env: NodeJS.ProcessEnv = {}) {
  const checked = await checkInline(manifest(notify), {}, env);
  return {
    valid: checked.valid,
    found: checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.message}`),
    settings: checked.expanded.settings,
  };
}

describe("notify: in a manifest", () => {
  it("takes webhooks from the environment, every outcome and 10 s by default", async () => {
    const { valid, found, settings } = await problems(
      `  - { webhook: "\${SLACK_WEBHOOK}" }\n  - { webhook: "\${OPS}", on: [failed, stopped], timeout: 3s }`,
      { SLACK_WEBHOOK: "https://hooks.example.com/T/B/x", OPS: "https://ops.example.com/in" },
    );
    expect(found).toEqual([]);
    expect(valid).toBe(true);
    expect(settings?.notify).toEqual([
      {
        webhook: "https://hooks.example.com/T/B/x",
        on: ["done", "failed", "stopped", "budget"],
        timeoutMs: 10_000,
      },
      { webhook: "https://ops.example.com/in", on: ["failed", "stopped"], timeoutMs: 3_000 },
    ]);
  });

  it("a webhook read as empty (an empty default, its variable unset) is off, without a warning, so a run without it still runs", async () => {
    const { valid, found, settings } = await problems(`  - { webhook: "\${HOOK:-}" }`);
    expect(found).toEqual([]);
    expect(valid).toBe(true);
    expect(settings?.notify).toEqual([]);
  });

  it("refuses an unknown outcome with a did-you-mean, a value that is not a URL, and a timeout over 60s, each where it is", async () => {
    const { valid, found } = await problems(
      `  - { webhook: "\${HOOK}", on: [faild] }\n  - { webhook: not a url }\n  - { webhook: "ftp://example.com/x" }\n  - { webhook: "\${HOOK}", timeout: 2m }`,
      { HOOK: "https://hooks.example.com/x" },
    );
    expect(valid).toBe(false);
    expect(found).toEqual([
      expect.stringMatching(/^3:32 error notify\[0\]\.on\[0\]: .*"faild".*did you mean "failed"/),
      expect.stringMatching(/^4:16 error notify\[1\]\.webhook: must be an http\(s\) URL/),
      expect.stringMatching(/^5:16 error notify\[2\]\.webhook: must be an http\(s\) URL/),
      expect.stringMatching(/^6:36 error notify\[3\]\.timeout: must be at most 60s/),
    ]);
  });

  it("warns at a webhook written out in the manifest (a secret kept with each run), and at http:// off this host", async () => {
    const { valid, found } = await problems(
      `  - { webhook: "https://hooks.example.com/T/B/x" }\n  - { webhook: "\${PLAIN}" }\n  - { webhook: "\${LOCAL}" }`,
      { PLAIN: "http://relay.example.com/hook", LOCAL: "http://127.0.0.1:9000/hook" },
    );
    expect(valid).toBe(true);
    expect(found).toEqual([
      expect.stringMatching(
        /^3:16 warning notify\[0\]\.webhook: the webhook URL is written in the manifest.*\$\{SLACK_WEBHOOK\}/,
      ),
      expect.stringMatching(
        /^4:16 warning notify\[1\]\.webhook: http:\/\/ sends the run's summary unencrypted to relay\.example\.com; use https:\/\//,
      ),
    ]);
  });

  it("a fleet's copy of the manifest holds no webhook; the settling host reads them as written with its environment", () => {
    const text = manifest(`  - { webhook: "\${HOOK}", on: [failed] }`);
    const env = { HOOK: "https://hooks.example.com/T/B/secret" };
    const source = parseManifest(text, "m.yaml", env);
    expect(resolvedManifest(source)).not.toContain("secret");
    expect(resolvedManifest(source)).not.toContain("notify");
    expect(notifyTargetsOf(text, "m.yaml", env)).toEqual({
      targets: [{ webhook: env.HOOK, on: ["failed"], timeoutMs: 10_000 }],
      problems: [],
    });
    expect(notifyTargetsOf(text, "m.yaml", {})).toEqual({
      targets: [],
      problems: ["notify: environment variable HOOK is not set on this host"],
    });
    expect(notifyTargetsOf(manifest("  []").replace("notify:\n  []\n", ""), "m.yaml", {})).toEqual({
      targets: [],
      problems: [],
    });
  });
});
