import { createHash } from "node:crypto";

/** Randomness, injected: a source of floats in [0, 1). */
export interface Random {
  next(): number;
}

/** A seeded generator (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number | string): Random {
  let state = typeof seed === "number" ? seed >>> 0 : hashToUint32(seed);
  return {
    next() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** A float in [0, 1) fixed by its parts: the same parts always give the same number. */
export function hashUnit(...parts: readonly (string | number)[]): number {
  return hashToUint32(parts.join("\u0000")) / 4294967296;
}

function hashToUint32(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}
