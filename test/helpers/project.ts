import { cpSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type SimOptionsInput, type Simulator, startSimulator } from "../../src/sim/index.js";
import { type CliResult, gwrunAsync, gwrunHere, ROOT } from "./cli.js";
import { tempDir } from "./manifest.js";
import { testDatabase } from "./postgres.js";
import { FAST } from "./run.js";

/**
 * A project folder as a user has one — a `.git` marker, manifests in `manifests/`, the state
 * in `data/gwrun.db` (or a PostgreSQL store), outputs in `data/outputs/{name}` — that a test
 * can move, copy and run `gwrun` in, against a simulator in this process.
 */
export interface ProjectScope {
  sim: Simulator;
  /** The project folder where it is now. */
  project: string;
  /** The PostgreSQL store's connection string; undefined for SQLite. */
  store: string | undefined;
  /** Writes `manifests/<name>` in the project; its path relative to the project. */
  write(name: string, yaml: string): string;
  /**
   * `gwrun` run in `cwd` (default: the project) against the store and the scope's simulator,
   * or (`builtIn`) the manifest's own gateway: the built-in simulator of the demo; `env` adds
   * to its environment.
   */
  gwrun(
    args: readonly string[],
    options?: { cwd?: string; builtIn?: boolean; env?: NodeJS.ProcessEnv },
  ): Promise<CliResult>;
  /** Moves the project folder to `to` (below the scope's temp folder); it is the project now. */
  move(to: string): void;
  /** Copies the project folder to `to` (below the scope's temp folder); the copy's path. */
  copy(to: string): string;
  /** Runs SQL on the store as it is (paths as recorded), for setting up an old record. */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

export type StoreKind = "sqlite" | "postgres";

/** Settings for quick runs into the default output folder, relative to the project. */
export const QUICK = `version: 1
limits: { submit_rate: 500/s, max_in_flight: 200, max_in_flight_video: 50, downloads: 8 }
poll: { first_after: 20ms, every: 20ms, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output: { thumbnails: { width: 64, format: webp } }
`;

export async function withProject<T>(
  kind: StoreKind,
  fn: (scope: ProjectScope) => Promise<T>,
  options: SimOptionsInput = {},
): Promise<T> {
  const sim = await startSimulator({ timeScale: FAST, mediaVariants: 4, ...options });
  const store = kind === "postgres" ? await testDatabase({ schema: true }) : undefined;
  const base = tempDir();
  let project = path.join(base, "work", "project");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  mkdirSync(path.join(project, "manifests"), { recursive: true });
  const pool = store === undefined ? undefined : new pg.Pool({ connectionString: store, max: 1 });
  const scope: ProjectScope = {
    sim,
    get project() {
      return project;
    },
    store,
    write(name, yaml) {
      writeFileSync(path.join(project, "manifests", name), yaml);
      return path.join("manifests", name);
    },
    gwrun(args, { cwd = project, builtIn = false, env: more = {} } = {}) {
      const talks = !["status", "runs", "report", "export", "view", "plan", "prune"].includes(
        args[0] ?? "",
      );
      const extra = talks && !builtIn ? ["--base-url", sim.url] : [];
      // A PostgreSQL store is named as a user names one with a password in it: in the environment.
      const env = {
        GW_API_KEY: "test-key",
        ...(store === undefined ? {} : { GWRUN_STORE: store }),
        ...more,
      };
      return gwrunHere([...args, ...extra], { cwd, env });
    },
    move(to) {
      const target = path.join(base, to);
      mkdirSync(path.dirname(target), { recursive: true });
      renameSync(project, target);
      project = target;
    },
    copy(to) {
      const target = path.join(base, to);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(project, target, { recursive: true });
      return target;
    },
    async sql(text, params = []) {
      if (pool !== undefined) return (await pool.query(text, params)).rows;
      const db = new Database(path.join(project, "data", "gwrun.db"));
      try {
        // PostgreSQL's numbered parameters, as SQLite's positional ones.
        const values: unknown[] = [];
        const statement = db.prepare(
          text.replace(/\$(\d+)/g, (_, n: string) => {
            values.push(params[Number(n) - 1]);
            return "?";
          }),
        );
        if (statement.reader) return statement.all(...values) as Record<string, unknown>[];
        statement.run(...values);
        return [];
      } finally {
        db.close();
      }
    },
  };
  try {
    return await fn(scope);
  } finally {
    await pool?.end();
    await sim.close();
  }
}

/**
 * A small shop (into `data/outputs/<name>`, or `dir`): two pictures, a clip of each, a caption:
 * five paid tasks.
 */
export function shopManifest(
  options: { name?: string; prompt?: string; dir?: string; clips?: boolean } = {},
): string {
  const { name = "shop", prompt = "a mug", dir, clips = true } = options;
  const settings =
    dir === undefined
      ? QUICK
      : QUICK.replace("output: {", `output: { dir: ${JSON.stringify(dir)},`);
  const more = `  - id: clip
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: slow push in
    duration: 6
  - { id: caption, endpoint: chat, model: acme-5, messages: [{ role: user, content: "a caption" }], stream: false }
`;
  return `${settings}name: ${name}
jobs:
  - { id: hero, model: acme-image-2, prompt: "${prompt}", size: "1:1", repeat: 2 }
${clips ? more : ""}`;
}

/**
 * `gwrun view` started in `cwd`: its URL once it listens, the token its reviews need, and how
 * to stop it.
 */
export async function startView(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; token: string; stop(): Promise<void> }> {
  const view = gwrunAsync(["view"], { cwd, env });
  const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
    let text = "";
    view.child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      // The whole line: the token may come in a later chunk than the address.
      const found = /(http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)\n/.exec(text);
      if (found !== null) resolve([found[1] as string, found[2] as string]);
    });
    view.child.once("exit", () => reject(new Error(`gwrun view exited: ${text}`)));
  });
  return {
    url,
    token,
    async stop() {
      view.child.kill("SIGINT");
      await view.done;
    },
  };
}

/** The demo manifest of the repository, with its reference photo, in the project's manifests. */
export function copyDemo(scope: ProjectScope): string {
  cpSync(path.join(ROOT, "manifests", "refs"), path.join(scope.project, "manifests", "refs"), {
    recursive: true,
  });
  cpSync(
    path.join(ROOT, "manifests", "campaign.yaml"),
    path.join(scope.project, "manifests", "campaign.yaml"),
  );
  return path.join("manifests", "campaign.yaml");
}
