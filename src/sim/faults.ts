import { hashUnit } from "../core/random.js";

/**
 * Decides injected faults. A roll depends on the seed, the kind of fault, what is being
 * done (e.g. the request body's hash) and how many times that was done before — not on the
 * order requests arrive in — so a test sees the same faults on every run, and a retry of the
 * same request gets a fresh roll.
 */
export class FaultDice {
  readonly #seed: string;
  readonly #occurrences = new Map<string, number>();

  constructor(seed: string) {
    this.#seed = seed;
  }

  /** True with probability `rate` for this occurrence of `identity`. */
  roll(kind: string, identity: string, rate: number): boolean {
    if (rate <= 0) return false;
    const key = `${kind}\u0000${identity}`;
    const occurrence = this.#occurrences.get(key) ?? 0;
    this.#occurrences.set(key, occurrence + 1);
    return rate >= 1 || hashUnit(this.#seed, kind, identity, occurrence) < rate;
  }

  /** A number in [0, 1) for this occurrence of `identity`, for choices that are not faults. */
  draw(kind: string, identity: string): number {
    const key = `${kind}\u0000${identity}`;
    const occurrence = this.#occurrences.get(key) ?? 0;
    this.#occurrences.set(key, occurrence + 1);
    return hashUnit(this.#seed, kind, identity, occurrence);
  }
}
