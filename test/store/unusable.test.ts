import { randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../src/core/errors.js";
import { openStore } from "../../src/store/index.js";
import { gwrun } from "../helpers/cli.js";
import { tempDir } from "../helpers/manifest.js";

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
  it("issue 16 item 5: a file of random bytes is named, with what to do", () => {
    const file = path.join(tempDir(), "state.db");
    writeFileSync(file, randomBytes(8192));
    const error = refusal(file);
    expect(error.code).toBe(ErrorCode.StoreUnusable);
    expect(error.message).toContain(`${file} is not a gwrun state database, or it is damaged`);
    expect(error.hint).toMatch(/restore it from a backup, or move it aside/);
  });

  it("issue 16 item 5: a read-only database is named, with what to do", async () => {
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

  it("issue 16 item 8: gwrun ends with exit 5 and a located message, not a stack trace", () => {
    const file = path.join(tempDir(), "state.db");
    writeFileSync(file, randomBytes(8192));
    const result = gwrun(["status", "--db", file]);
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(`gwrun: ${file} is not a gwrun state database`);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });
});
