import { describe, expect, it } from "vitest";
import { publishTargetsOf } from "../../../src/manifest/index.js";
import { checkInline } from "../../helpers/manifest.js";

/** `output.publish` in a manifest, checked where it is written. */

const manifest = (publish: string) => `version: 1
output:
  dir: out
  publish: ${publish}
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug }
`;

async function problems(publish: string, env: NodeJS.ProcessEnv = {}) {
  const checked = await checkInline(manifest(publish), {}, env);
  return {
    valid: checked.valid,
    found: checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.message}`),
    targets: checked.expanded.settings?.output.publish,
  };
}

describe("output.publish in a manifest", () => {
  it("takes one target or a list, its prefix without slashes at its ends, a repeated one once", async () => {
    const one = await problems('"s3://my-bucket/campaigns/spring/"');
    expect(one.found).toEqual([]);
    expect(one.targets).toEqual([
      { url: "s3://my-bucket/campaigns/spring", bucket: "my-bucket", prefix: "campaigns/spring" },
    ]);
    const list = await problems('["s3://a-bucket", "s3://b.bucket/x", "s3://a-bucket/"]');
    expect(list.found).toEqual([]);
    expect(list.targets?.map((target) => target.url)).toEqual(["s3://a-bucket", "s3://b.bucket/x"]);
  });

  it("reads a bucket from the environment, as every value of a manifest", async () => {
    const { targets } = await problems(`"s3://\${BUCKET}/daily"`, { BUCKET: "team-media" });
    expect(targets?.[0]?.bucket).toBe("team-media");
  });

  it("refuses what is not an s3:// target, a bucket S3 would refuse, and a `..` in the prefix, each where it is", async () => {
    for (const [value, col] of [
      ['"https://my-bucket.s3.amazonaws.com/x"', 12],
      ['"s3://My_Bucket/x"', 12],
      ['"s3://ab"', 12],
      ['"s3://my-bucket/../x"', 12],
    ] as const) {
      const { valid, found } = await problems(value);
      expect(valid, value).toBe(false);
      expect(found, value).toEqual([
        `4:${col} error output.publish: must be an object storage target such as "s3://my-bucket/campaigns/spring" (bucket: 3–63 lowercase letters, digits, dots or hyphens)`,
      ]);
    }
  });

  it("a run's recorded manifest gives its targets back for gwrun publish, read with this host's environment", () => {
    const text = manifest(`"s3://\${BUCKET}/daily"`);
    expect(publishTargetsOf(text, "m.yaml", { BUCKET: "team-media" })).toEqual([
      { url: "s3://team-media/daily", bucket: "team-media", prefix: "daily" },
    ]);
    expect(publishTargetsOf("version: 1\njobs: []\n", "m.yaml", {})).toEqual([]);
  });
});
