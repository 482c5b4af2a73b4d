/**
 * The settle rule of `gwrun watch`: which files it sees are whole, and when a batch may start.
 *
 * A file is settled once its signature (size, mtime, inode) has stayed the same for the settle
 * time and, at that signature, the format check found it whole (a picture that decodes to its
 * last row, a clip ffprobe reads). A batch starts when some file arrived or changed since it was
 * last taken and every file the globs match is settled: a run lists the folder as it is, so a
 * file still being written would be in it. Times are ms; `now` is passed in.
 */

/** What stat tells of a file that changes while it is written. */
export type Signature = string;

interface Seen {
  signature: Signature;
  /** When this signature was first seen. */
  since: number;
  /** The format check at this signature: undefined until run; `problem` undefined when whole. */
  check?: { problem: string | undefined };
}

/** A file that keeps a batch waiting, and why: still changing, or not whole at rest. */
export interface Unsettled {
  file: string;
  /** What the format check found; undefined while the file is still within its settle time. */
  problem?: string;
}

export class SettleRule {
  readonly #settleMs: number;
  readonly #seen = new Map<string, Seen>();
  /** The signature each file had when a batch last took it. */
  readonly #taken = new Map<string, Signature>();

  constructor(settleMs: number) {
    this.#settleMs = settleMs;
  }

  /** Takes in a scan: every file the globs match now, with its signature. */
  observe(scan: ReadonlyMap<string, Signature>, now: number): void {
    for (const file of [...this.#seen.keys()]) {
      if (scan.has(file)) continue;
      this.#seen.delete(file);
      this.#taken.delete(file);
    }
    for (const [file, signature] of scan) {
      if (this.#seen.get(file)?.signature !== signature)
        this.#seen.set(file, { signature, since: now });
    }
  }

  /** Files still for the settle time whose format is not checked at their signature yet. */
  toCheck(now: number): { file: string; signature: Signature }[] {
    return [...this.#seen]
      .filter(([, seen]) => seen.check === undefined && this.#still(seen, now))
      .map(([file, { signature }]) => ({ file, signature }));
  }

  /**
   * What the format check found of `file` at `signature` (`problem` undefined: whole); true
   * when it is news: the first verdict at this signature. A file changed since is checked again.
   */
  checked(file: string, signature: Signature, problem: string | undefined): boolean {
    const seen = this.#seen.get(file);
    if (seen?.signature !== signature) return false;
    seen.check = { problem };
    return true;
  }

  /** Files that arrived or changed since a batch last took them, in path order. */
  arrivals(): string[] {
    return [...this.#seen]
      .filter(([file, seen]) => this.#taken.get(file) !== seen.signature)
      .map(([file]) => file)
      .sort();
  }

  /** Files that keep a batch waiting: still changing, or at rest and not whole. */
  unsettled(now: number): Unsettled[] {
    const waiting: Unsettled[] = [];
    for (const [file, seen] of this.#seen) {
      if (!this.#still(seen, now) || seen.check === undefined) waiting.push({ file });
      else if (seen.check.problem !== undefined)
        waiting.push({ file, problem: seen.check.problem });
    }
    return waiting;
  }

  /** True when a batch may start: something arrived, and every file is settled. */
  ready(now: number): boolean {
    return this.arrivals().length > 0 && this.unsettled(now).length === 0;
  }

  /** When the next file still changing will have been still for the settle time; undefined: none. */
  nextDeadline(now: number): number | undefined {
    let next: number | undefined;
    for (const seen of this.#seen.values()) {
      if (this.#still(seen, now)) continue;
      const due = seen.since + this.#settleMs;
      next = next === undefined ? due : Math.min(next, due);
    }
    return next;
  }

  /** Every file and its signature now: what a batch takes. */
  snapshot(): Map<string, Signature> {
    return new Map([...this.#seen].map(([file, seen]) => [file, seen.signature]));
  }

  /** A batch took these files at these signatures: they are not arrivals until they change. */
  taken(snapshot: ReadonlyMap<string, Signature>): void {
    for (const [file, signature] of snapshot) this.#taken.set(file, signature);
  }

  #still(seen: Seen, now: number): boolean {
    return now - seen.since >= this.#settleMs;
  }
}
