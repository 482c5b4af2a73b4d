import { spawn } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun, gwrunAsync, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";

const SECRET = "hunter2-9f3a";
const WITH_PASSWORD = `postgres://gw:${SECRET}@127.0.0.1:1/gwrun`;

/** What `ps` shows of a live process: its arguments (its title, once set) and its name. */
function shownByPs(pid: number): string {
  return [
    readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "),
    readFileSync(`/proc/${pid}/comm`, "utf8"),
  ].join("\n");
}

/** Resolves once `text` has appeared on the child's stderr (or stdout). */
function printed(child: ReturnType<typeof spawn>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    child.once("exit", (code) => reject(new Error(`exited ${code} before "${text}": ${seen}`)));
  });
}

/** The connection string without its password, and the password. */
function split(url: string): { bare: string; password: string } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return { bare: parsed.toString(), password };
}

describe("secrets off the command line", () => {
  it("every command refuses a password in --store (or --db), naming GWRUN_STORE, a password file and PGPASSWORD", async () => {
    const dir = tempDir({
      "m.yaml": "version: 1\nname: m\njobs:\n  - { id: a, model: acme-image-2, prompt: a mug }\n",
    });
    const manifest = path.join(dir, "m.yaml");
    const commands = [
      ["worker", "--store", WITH_PASSWORD],
      ["view", "--store", WITH_PASSWORD],
      ["status", "--store", WITH_PASSWORD],
      ["runs", "--store", WITH_PASSWORD],
      ["report", "--store", WITH_PASSWORD],
      ["export", "--approved", dir, "--store", WITH_PASSWORD],
      ["resume", "--store", WITH_PASSWORD],
      ["store", "migrate", "--store", WITH_PASSWORD],
      ["run", manifest, "--detach", "--store", WITH_PASSWORD],
      ["plan", manifest, "--store", WITH_PASSWORD],
      ["worker", `--store=${WITH_PASSWORD}`],
      ["runs", "--db", WITH_PASSWORD],
      ["runs", "--store", `postgres://gw@127.0.0.1:1/gwrun?password=${SECRET}`],
    ];
    for (const args of commands) {
      const result = await gwrun(args);
      expect([args.slice(0, 2), result.code]).toEqual([args.slice(0, 2), 2]);
      expect(result.stderr).toMatch(/holds a password, which every user of this machine can read/);
      for (const named of ["GWRUN_STORE", "~/.pgpass", "PGPASSFILE", "PGPASSWORD"])
        expect(result.stderr).toContain(named);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    }
  });

  it("a worker started with GWRUN_STORE shows no password in ps, in its arguments or its title", async () => {
    const url = await testDatabase({ schema: true });
    const { password } = split(url);
    const worker = gwrunAsync(["worker", "--name", "w1"], { env: { GWRUN_STORE: url } });
    try {
      await printed(worker.child, "works postgres://");
      // Looked at a few times while it works, as another user's `ps` would.
      for (let look = 0; look < 5; look++) {
        const shown = shownByPs(worker.child.pid as number);
        expect(shown).toContain("worker --name w1");
        expect(shown).not.toContain(password);
      }
    } finally {
      worker.child.kill("SIGTERM");
    }
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout + ended.stderr).not.toContain(password);
  });

  it("until the refusal, a password given on the command line is masked in what ps shows", async () => {
    // The process sets itself up as gwrun does, then waits to be looked at.
    const setUp = `import { setUpProcess } from ${JSON.stringify(path.join(ROOT, "dist/cli/process-setup.js"))};
setUpProcess(); console.log("ready"); setTimeout(() => {}, 20000);`;
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", setUp, "worker", "--store", WITH_PASSWORD],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      await printed(child, "ready");
      const shown = shownByPs(child.pid as number);
      expect(shown).not.toContain(SECRET);
      expect(shown).toContain("worker --store postgres://gw:***@127.0.0.1:1/gwrun");
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("PGPASSWORD and a password file (PGPASSFILE, ~/.pgpass) are honoured; a file others may read is not", async () => {
    const { bare, password } = split(await testDatabase());
    const { hostname, port, pathname } = new URL(bare);
    const dir = tempDir();
    const nowhere = path.join(dir, "no-such-file");

    const migrated = await gwrun(["store", "migrate", "--store", bare], {
      env: { PGPASSWORD: password, PGPASSFILE: nowhere },
    });
    expect(migrated.stderr).toBe("");
    expect(migrated.code).toBe(0);

    const file = path.join(dir, "pgpass");
    writeFileSync(
      file,
      `# gwrun's store\nother.host:*:*:*:wrong\n${hostname}:${port}:${pathname.slice(1)}:postgres:${password}\n`,
    );
    chmodSync(file, 0o600);
    const read = await gwrun(["runs", "--store", bare], { env: { PGPASSFILE: file } });
    expect(read.stderr).toBe("");
    expect([read.code, read.stdout]).toEqual([0, "no runs yet\n"]);

    chmodSync(file, 0o644);
    const open = await gwrun(["runs", "--store", bare], { env: { PGPASSFILE: file } });
    expect(open.code).toBe(5);
    expect(open.stderr).toContain("PostgreSQL refused the login");
    expect(open.stderr).toContain("one others may read is ignored");

    const none = await gwrun(["runs", "--store", bare], { env: { PGPASSFILE: nowhere } });
    expect(none.code).toBe(5);
    expect(none.stderr).toMatch(/check the user, and the password: GWRUN_STORE.*PGPASSWORD/);
  });

  it("a search_path naming no schema ends with a clear error, not an internal one", async () => {
    const url = new URL(await testDatabase({ schema: true }));
    url.searchParams.set("options", "-c search_path=nope");
    for (const args of [["worker"], ["store", "migrate"], ["runs"]]) {
      const result = await gwrun(args, { env: { GWRUN_STORE: url.toString() } });
      expect([args, result.code]).toEqual([args, 5]);
      expect(result.stderr).toMatch(/^gwrun: no schema named by the search_path of postgres:\/\//);
      expect(result.stderr).toContain("correct search_path");
      expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  });
});
