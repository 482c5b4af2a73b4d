/**
 * What the pace does with what the gateway answers: a 429 halves the rate once per burst,
 * never below max(ceiling/64, half the rate last sustained); 20 successes in a row climb 5 %
 * of the ceiling, and under a limit its 429s told at least halfway to just under it; an announced limit caps the rate just under it; Retry-After holds the next
 * turn back; queries take turns once a 429 came to one, or to a turn sent under a known limit
 * while queries went, and until then count among the calls that got through. One table for one process's `SubmitPace` and a fleet's `gateway_pace` row.
 */

export type PaceEvent =
  /** `turns` turns taken one after another, each at its time. */
  | { turns: number }
  /** `successes` submits went through; `announced`: the limit the gateway stated. */
  | { successes: number; announced?: number }
  /** A 429 to the last turn's call, or (`query`) to a task query. */
  | { limited: true; announced?: number; retryAfterMs?: number; query?: boolean }
  /** `queries` task queries sent. */
  | { queries: number }
  /** No call for `quietMs`. */
  | { quietMs: number };

export interface PaceCase {
  name: string;
  /** Calls per second the pace starts at and never climbs past. */
  ceiling: number;
  events: readonly PaceEvent[];
  /** The rate after the events; `under`: that many times the pace's under-limit fraction. */
  rate: number | { under: number };
  /** How long after the last event the next turn comes, at least, ms. */
  nextTurnAfterMs?: number;
  /** Whether queries take turns after the events; false unless said. */
  queriesCount?: boolean;
}

/**
 * `count` turns, each met by a 429, two seconds apart: turns that go back to back for half a
 * second tell the gateway's limit, which these cases leave alone.
 */
const burst = (count: number): PaceEvent[] =>
  Array.from({ length: count }, () => [
    { turns: 1 },
    { limited: true } as const,
    { quietMs: 2000 },
  ]).flat();

export const PACE_CASES: readonly PaceCase[] = [
  { name: "a 429 halves the rate", ceiling: 40, events: burst(1), rate: 20 },
  {
    name: "the 429s of one burst halve it once",
    ceiling: 40,
    events: [{ turns: 1 }, { limited: true }, { limited: true }, { limited: true }],
    rate: 20,
  },
  { name: "a 429 after a new turn halves it again", ceiling: 40, events: burst(2), rate: 10 },
  {
    name: "it never halves below half the rate last sustained",
    ceiling: 40,
    events: [{ successes: 20 }, ...burst(3)],
    rate: 20,
  },
  {
    name: "it never halves below a 64th of the ceiling",
    ceiling: 640,
    events: burst(8),
    rate: 10,
  },
  {
    name: "20 successes in a row climb 5 % of the ceiling",
    ceiling: 40,
    events: [...burst(1), { successes: 19 }],
    rate: 20,
  },
  {
    name: "the 20th success climbs",
    ceiling: 40,
    events: [...burst(1), { successes: 20 }],
    rate: 22,
  },
  {
    name: "a 429 ends a run of successes",
    ceiling: 40,
    events: [...burst(1), { successes: 15 }, ...burst(1), { successes: 15 }],
    rate: 10,
  },
  { name: "it never climbs past the ceiling", ceiling: 40, events: [{ successes: 200 }], rate: 40 },
  {
    // Half a second's turns back to back meet a 429: the limit is the rate they went at.
    name: "under a limit a 429 told, 20 successes climb halfway to just under it",
    ceiling: 20,
    events: [{ turns: 15 }, { limited: true }, { successes: 20 }],
    rate: 14.7,
  },
  {
    name: "an announced limit caps it just under the limit",
    ceiling: 100,
    events: [{ successes: 1, announced: 50 }],
    rate: { under: 50 },
  },
  {
    name: "an announced limit on a 429 caps it without halving",
    ceiling: 100,
    events: [{ turns: 1 }, { limited: true, announced: 40 }],
    rate: { under: 40 },
  },
  {
    name: "an announced limit above the ceiling leaves the ceiling",
    ceiling: 20,
    events: [{ successes: 1, announced: 500 }],
    rate: 20,
  },
  {
    name: "Retry-After holds the next turn back",
    ceiling: 40,
    events: [{ turns: 1 }, { limited: true, retryAfterMs: 3000 }],
    rate: 20,
    nextTurnAfterMs: 3000,
  },
  {
    name: "what got through between two 429s, queries included, is the limit: the pace goes just under it",
    ceiling: 20,
    events: [
      { turns: 15 },
      { limited: true },
      { quietMs: 1000 },
      { turns: 5 },
      { queries: 20 },
      { limited: true },
    ],
    // 24 calls got through in under 2 s, more than the rate of 10: just under 10 it is. The
    // turns alone would say under 3.
    rate: 9.7,
    queriesCount: true,
  },
  {
    name: "a 429 to a query makes queries take turns",
    ceiling: 20,
    events: [{ queries: 1 }, { limited: true, query: true }],
    rate: 10,
    queriesCount: true,
  },
  {
    name: "a 429 to a turn sent under a told limit while queries went makes queries take turns",
    ceiling: 20,
    events: [{ turns: 15 }, { limited: true }, { queries: 1 }, { turns: 1 }, { limited: true }],
    rate: 5,
    queriesCount: true,
  },
  {
    name: "a 429 to a turn with no limit known leaves queries without turns",
    ceiling: 20,
    events: [{ queries: 1 }, { turns: 1 }, { limited: true }],
    rate: 10,
    queriesCount: false,
  },
];
