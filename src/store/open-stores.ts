/**
 * How many stores this process holds open, by adapter: for diagnostics (a test that leaves
 * one open fails, test/leak-check.ts). Each adapter counts its opens and its first close.
 */

export type StoreKind = "sqlite" | "postgres";

const open: Record<StoreKind, number> = { sqlite: 0, postgres: 0 };

/** Counts a store opened; returns the close to call once it is closed (later calls do nothing). */
export function countOpenStore(kind: StoreKind): () => void {
  open[kind] += 1;
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    open[kind] -= 1;
  };
}

/** The stores open now, by adapter. */
export function openStores(): Readonly<Record<StoreKind, number>> {
  return { ...open };
}
