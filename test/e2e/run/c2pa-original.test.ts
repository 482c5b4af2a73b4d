import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withCaBX } from "../../helpers/c2pa-fixtures.js";
import { QUICK, withProject } from "../../helpers/project.js";
import { startProxy } from "../../helpers/proxy.js";

/**
 * A vendor that signs its pictures: each PNG the gateway serves reaches gwrun with a C2PA
 * manifest (a `caBX` chunk), added on its way by a proxy. gwrun keeps the original byte for
 * byte, records `c2pa: true`, and its renditions (which cannot keep a signature) carry none.
 */

const MANIFEST = `${QUICK.replace(/^output:.*\n/m, "")}name: signed
output:
  thumbnails: false
  renditions:
    - { name: feed, width: 120, height: 150, fit: cover, format: jpeg }
jobs:
  - { id: hero, model: acme-image-2, prompt: "a ceramic mug", size: "1:1", repeat: 2 }
`;

interface Line {
  file: string;
  sha256: string;
  c2pa?: boolean;
  renditions?: { name: string; file: string }[];
}

describe("a C2PA manifest in an original", () => {
  it("is found and recorded; the original keeps the vendor's bytes, the rendition has no signature", async () => {
    const signed: string[] = [];
    const proxy = await startProxy({
      rewrite: (pathname, body) => {
        if (!pathname.startsWith("/files/") || !pathname.endsWith(".png")) return undefined;
        signed.push(pathname);
        return withCaBX(body);
      },
    });
    try {
      await withProject("sqlite", async (scope) => {
        const manifest = scope.write("signed.yaml", MANIFEST);
        const run = await scope.gwrun(["run", manifest], { env: { HTTP_PROXY: proxy.url } });
        expect(run.code, run.stderr).toBe(0);
        expect(signed).toHaveLength(2);
        const dir = path.join(scope.project, "data/outputs/signed");
        const lines = readFileSync(path.join(dir, "results.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as Line);
        expect(lines).toHaveLength(2);
        for (const line of lines) {
          expect(line.c2pa).toBe(true);
          const original = readFileSync(path.join(dir, line.file));
          expect(original.includes(Buffer.from("caBX", "latin1"))).toBe(true);
          expect(createHash("sha256").update(original).digest("hex")).toBe(line.sha256);
          const sidecar = JSON.parse(readFileSync(path.join(dir, `${line.file}.json`), "utf8")) as {
            c2pa?: boolean;
          };
          expect(sidecar.c2pa).toBe(true);
          const feed = line.renditions?.find((each) => each.name === "feed");
          expect(feed).toBeDefined();
          const rendition = readFileSync(path.join(dir, feed?.file ?? ""));
          expect(rendition.subarray(0, 2).toString("hex")).toBe("ffd8");
          expect(rendition.includes(Buffer.from("c2pa", "latin1"))).toBe(false);
        }
      });
    } finally {
      await proxy.close();
    }
  });
});
