import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileWhole } from "../../../src/core/file-writer.js";
import { tempDir } from "../../helpers/manifest.js";

describe("small files written whole by the file-writing thread", () => {
  it("puts every file of a turn in place, whole, and leaves no partial file behind", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "partial"));
    const names = Array.from({ length: 50 }, (_, i) => `shot-${i}.png`);
    await Promise.all(
      names.map((name, i) =>
        writeFileWhole(
          path.join(dir, "partial", `${name}.part`),
          path.join(dir, name),
          i % 2 === 0 ? Buffer.from([i, i + 1, i + 2]) : `text ${i}`,
        ),
      ),
    );
    expect(readdirSync(path.join(dir, "partial"))).toEqual([]);
    expect([...readFileSync(path.join(dir, "shot-4.png"))]).toEqual([4, 5, 6]);
    expect(readFileSync(path.join(dir, "shot-7.png"), "utf8")).toBe("text 7");
  });

  it("rejects with the system's error code when the file cannot be written, and the others of its turn still land", async () => {
    const dir = tempDir();
    const missing = path.join(dir, "no-such-folder");
    const [failed, written] = await Promise.allSettled([
      writeFileWhole(path.join(missing, "a.part"), path.join(dir, "a.png"), "a"),
      writeFileWhole(path.join(dir, "b.part"), path.join(dir, "b.png"), "b"),
    ]);
    expect(failed).toMatchObject({ status: "rejected", reason: { code: "ENOENT" } });
    expect(written.status).toBe("fulfilled");
    expect(readdirSync(dir).sort()).toEqual(["b.png"]);
  });
});
