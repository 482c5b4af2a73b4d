import type { PathRebase } from "../port.js";
import type { OutputCopy, RunRow } from "../rows.js";
import { type PgDb, row, rows } from "./db.js";

/** Outputs delivered into other folders, who holds a file, and rebasing a legacy record. */

export function copiesOf(db: PgDb, key: string): Promise<OutputCopy[]> {
  return rows<OutputCopy>(db.pool, "SELECT * FROM output_copies WHERE job_key = $1 ORDER BY idx", [
    key,
  ]);
}

export async function recordCopies(db: PgDb, copies: readonly OutputCopy[]): Promise<void> {
  if (copies.length === 0) return;
  const column = <T>(pick: (copy: OutputCopy) => T) => copies.map(pick);
  await db.pool.query(
    `INSERT INTO output_copies (job_key, idx, output_dir, path, thumbnail, poster, copied_at)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (job_key, idx, output_dir) DO UPDATE SET path = excluded.path,
       thumbnail = excluded.thumbnail, poster = excluded.poster, copied_at = excluded.copied_at`,
    [
      column((copy) => copy.job_key),
      column((copy) => copy.idx),
      column((copy) => copy.output_dir),
      column((copy) => copy.path),
      column((copy) => copy.thumbnail),
      column((copy) => copy.poster),
      column((copy) => copy.copied_at),
    ],
  );
}

export function outputAt(
  db: PgDb,
  path: string,
): Promise<{ key: string; idx: number } | undefined> {
  return row<{ key: string; idx: number }>(
    db.pool,
    `SELECT job_key AS key, idx FROM outputs WHERE path = $1
     UNION ALL SELECT job_key, idx FROM output_copies WHERE path = $1 LIMIT 1`,
    [path],
  );
}

export function legacyRuns(db: PgDb): Promise<RunRow[]> {
  return rows<RunRow>(db.pool, "SELECT * FROM runs WHERE project_dir IS NULL ORDER BY id");
}

export function rebasePaths(db: PgDb, rebases: readonly PathRebase[]): Promise<void> {
  return db.transaction(async (sql) => {
    for (const rebase of rebases)
      await sql.query(
        "UPDATE runs SET manifest_path = $1, output_dir = $2, project_dir = $3 WHERE id = $4",
        [rebase.manifestPath, rebase.outputDir, rebase.root, rebase.runId],
      );
    // Every file recorded below a root loses the root's prefix (`substr` counts from 1).
    for (const root of new Set(rebases.map((rebase) => rebase.root))) {
      const prefix = `${root}/`;
      for (const column of ["path", "thumbnail", "poster"])
        await sql.query(
          `UPDATE outputs SET ${column} = substr(${column}, $1::int) WHERE substr(${column}, 1, $2::int) = $3`,
          [prefix.length + 1, prefix.length, prefix],
        );
    }
  });
}
