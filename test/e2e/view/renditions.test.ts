import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";
import { viewUrl } from "../../helpers/view-url.js";

/** `gwrun view` serves an output's renditions by name, as its sidecar lists them, and no other file. */

interface Listed {
  name: string;
  file: string;
  bytes: number;
  sha256: string;
}
interface Line {
  key: string;
  output: number;
  file: string;
  renditions?: Listed[];
}

describe("gwrun view: renditions", () => {
  it("serves a rendition by name with its type and bytes; an unknown name, a path, a file outside the output's folder or changed bytes are 404", async () => {
    await withRun({ seed: "view-renditions" }, async (scope) => {
      const settings = fastSettings(scope.outputDir).replace(
        /output: \{ dir: (.*) \}/,
        `output:
  dir: $1
  thumbnails: false
  renditions:
    - { name: feed, width: 120, height: 150, fit: cover, format: jpeg, quality: 80 }
    - { name: square, width: 64, height: 64, fit: contain, format: png }
`,
      );
      const manifest = scope.write(
        "mug.yaml",
        `${settings}name: mug\njobs:\n  - { id: hero, model: acme-image-2, prompt: "a ceramic mug", size: "1:1" }\n`,
      );
      const ran = await scope.gwrun(["run", manifest]).done;
      expect(ran.code, ran.stderr).toBe(0);
      const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      const line = JSON.parse(results.trim().split("\n")[0] as string) as Line;
      const listed = new Map((line.renditions ?? []).map((each) => [each.name, each]));
      expect([...listed.keys()].sort()).toEqual(["feed", "square"]);
      const onDisk = (name: string) =>
        path.join(scope.outputDir, listed.get(name)?.file ?? "missing");

      // A listed rendition whose file lies outside the output's folder, bytes and hash matching.
      const sidecar = path.join(scope.outputDir, `${line.file}.json`);
      const record = JSON.parse(readFileSync(sidecar, "utf8")) as { renditions: Listed[] };
      const outside = readFileSync(path.join(scope.outputDir, "results.jsonl"));
      record.renditions.push({
        ...(record.renditions[0] as Listed),
        name: "escape",
        file: "../results.jsonl",
        bytes: outside.length,
        sha256: createHash("sha256").update(outside).digest("hex"),
      });
      writeFileSync(sidecar, JSON.stringify(record));

      const view = scope.spawn(["view"]);
      try {
        const url = new URL(await viewUrl(view.child));
        const token = url.searchParams.get("token") ?? "";
        const get = (name: string) =>
          fetch(
            new URL(`/files/${line.key}/${line.output - 1}/rendition/${name}?token=${token}`, url),
          );

        for (const [name, type] of [
          ["feed", "image/jpeg"],
          ["square", "image/png"],
        ] as const) {
          const answer = await get(name);
          expect(answer.status).toBe(200);
          expect(answer.headers.get("content-type")).toBe(type);
          const bytes = Buffer.from(await answer.arrayBuffer());
          expect(bytes.equals(readFileSync(onDisk(name)))).toBe(true);
        }

        expect((await get("poster")).status).toBe(404);
        expect((await get("..%2F..%2Fresults.jsonl")).status).toBe(404);
        expect((await get("..%2Ffeed")).status).toBe(404);
        expect((await get("escape")).status).toBe(404);
        // Another output index has no renditions.
        const other = await fetch(new URL(`/files/${line.key}/7/rendition/feed`, url));
        expect(other.status).toBe(404);

        // Other bytes in the rendition's place: no longer the file recorded.
        writeFileSync(onDisk("feed"), Buffer.from("not the rendition"));
        expect((await get("feed")).status).toBe(404);
        expect((await get("square")).status).toBe(200);
      } finally {
        view.child.kill("SIGINT");
      }
      expect((await view.done).code).toBe(0);
    });
  });
});
