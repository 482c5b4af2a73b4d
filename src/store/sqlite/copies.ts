import type { PathRebase } from "../port.js";
import type { OutputCopy, RunRow } from "../rows.js";
import type { SqliteDb } from "./db.js";

/** Outputs delivered into other folders, who holds a file, and rebasing a legacy record. */

export function copiesOf(s: SqliteDb, key: string): OutputCopy[] {
  return s.rows<OutputCopy>("SELECT * FROM output_copies WHERE job_key = ? ORDER BY idx", key);
}

export function recordCopies(s: SqliteDb, copies: readonly OutputCopy[]): void {
  const insert = s.sql(
    `INSERT OR REPLACE INTO output_copies (job_key, idx, output_dir, path, thumbnail, poster, copied_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  s.transaction(() => {
    for (const copy of copies)
      insert.run(
        copy.job_key,
        copy.idx,
        copy.output_dir,
        copy.path,
        copy.thumbnail,
        copy.poster,
        copy.copied_at,
      );
  });
}

export function outputAt(s: SqliteDb, path: string): { key: string; idx: number } | undefined {
  return s
    .sql(
      `SELECT job_key AS key, idx FROM outputs WHERE path = ?
       UNION ALL SELECT job_key, idx FROM output_copies WHERE path = ? LIMIT 1`,
    )
    .get(path, path) as { key: string; idx: number } | undefined;
}

export function legacyRuns(s: SqliteDb): RunRow[] {
  return s.sql("SELECT * FROM runs WHERE project_dir IS NULL ORDER BY id").all() as RunRow[];
}

export function rebasePaths(s: SqliteDb, rebases: readonly PathRebase[]): void {
  const run = s.sql(
    "UPDATE runs SET manifest_path = ?, output_dir = ?, project_dir = ? WHERE id = ?",
  );
  // Every file recorded below a root loses the root's prefix (`substr` counts from 1).
  const files = ["path", "thumbnail", "poster"].map((column) =>
    s.sql(`UPDATE outputs SET ${column} = substr(${column}, ?) WHERE substr(${column}, 1, ?) = ?`),
  );
  s.transaction(() => {
    for (const rebase of rebases)
      run.run(rebase.manifestPath, rebase.outputDir, rebase.root, rebase.runId);
    for (const root of new Set(rebases.map((rebase) => rebase.root))) {
      const prefix = `${root}/`;
      for (const update of files) update.run(prefix.length + 1, prefix.length, prefix);
    }
  });
}
