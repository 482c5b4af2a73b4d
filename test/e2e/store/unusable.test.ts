import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import { openStore } from "../../../src/store/index.js";
import { gwrun } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { fill, mountTiny, remountReadOnly, unmount } from "../../helpers/tmpfs.js";

/** A state database that cannot be used ends with its own message and exit code. */

function refusal(file: string): GwError {
  try {
    openStore(file).close();
  } catch (error) {
    if (error instanceof GwError) return error;
    throw error;
  }
  throw new Error(`${file} opened`);
}

describe("an unusable state database", () => {
  it("a file of random bytes is named, with what to do", () => {
    const file = path.join(tempDir(), "state.db");
    writeFileSync(file, randomBytes(8192));
    const error = refusal(file);
    expect(error.code).toBe(ErrorCode.StoreUnusable);
    expect(error.message).toContain(`${file} is not a gwrun state database, or it is damaged`);
    expect(error.hint).toMatch(/restore it from a backup, or move it aside/);
  });

  it("a read-only database is named, with what to do", async () => {
    if (process.getuid?.() === 0) {
      console.log("skipped: running as root, a read-only file stays writable");
      return;
    }
    const dir = tempDir();
    const file = path.join(dir, "state.db");
    await openStore(file).close();
    chmodSync(file, 0o444);
    chmodSync(dir, 0o555);
    try {
      const error = refusal(file);
      expect(error.code).toBe(ErrorCode.StoreUnusable);
      expect(error.message).toContain(`the state database ${file} cannot be written`);
    } finally {
      chmodSync(dir, 0o755);
    }
  });

  it("a database whose pages are damaged ends gwrun with exit 5, what to do, and no stack trace", async () => {
    const file = path.join(tempDir(), "state.db");
    const store = openStore(file);
    await store.createRun({
      name: "damaged",
      manifest_path: "m.yaml",
      manifest_text: "version: 1",
      base_url: "sim",
      output_dir: "out",
      started_at: 1,
    });
    await store.close();
    // The header stays a database's; every page after the first is noise.
    const fd = openSync(file, "r+");
    writeSync(fd, randomBytes(statSync(file).size - 4096), 0, undefined, 4096);
    closeSync(fd);
    const result = await gwrun(["status", "--db", file]);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      `gwrun: ${file} is not a gwrun state database, or it is damaged`,
    );
    expect(result.stderr).toContain("restore it from a backup, or move it aside");
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("a database on a read-only disk ends gwrun with exit 5 and what to do", async (context) => {
    const dir = tempDir();
    if (!mountTiny(dir, "4m")) {
      context.skip();
      return;
    }
    try {
      const file = path.join(dir, "state.db");
      await openStore(file).close();
      remountReadOnly(dir);
      const result = await gwrun(["status", "--db", file]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(`gwrun: the state database ${file} cannot be written`);
      expect(result.stderr).toContain("--db FILE elsewhere");
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      unmount(dir);
    }
  });

  it("a run whose database disk is full ends with exit 5, naming the file and what to do", async (context) => {
    const dir = tempDir();
    const manifest = path.join(
      tempDir({
        "m.yaml": "version: 1\njobs:\n  - { id: a, model: acme-image-2, prompt: a mug }\n",
      }),
      "m.yaml",
    );
    if (!mountTiny(dir, "2m")) {
      context.skip();
      return;
    }
    try {
      const file = path.join(dir, "state.db");
      await openStore(file).close();
      fill(dir);
      const result = await gwrun(["run", manifest, "--db", file]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(`gwrun: the disk under the state database ${file} is full`);
      expect(result.stderr).toContain(
        "free space there, or put the database elsewhere with --db FILE",
      );
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    } finally {
      unmount(dir);
    }
  });

  it("gwrun ends with exit 5 and a located message, not a stack trace", async () => {
    const file = path.join(tempDir(), "state.db");
    writeFileSync(file, randomBytes(8192));
    const result = await gwrun(["status", "--db", file]);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`gwrun: ${file} is not a gwrun state database`);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
