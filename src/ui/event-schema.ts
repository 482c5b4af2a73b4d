import * as z from "zod";
import type { EngineEvent } from "../engine/index.js";

/**
 * The `--json` stream, version 2 (job:* events became task:*, `run:started` counts both): one engine event per line, each with `v` (this version),
 * `type` and `at` (ms since the epoch). Fields are only ever added within a version; a
 * renamed or removed field makes version 2. `schemas/events.schema.json` is generated from it.
 */
export const EVENT_STREAM_VERSION = 2;

const runEnd = z.enum(["done", "failed", "budget", "balance", "interrupted"]);
const stages = z.object({
  queued: z.number().int(),
  submitting: z.number().int(),
  running: z.number().int(),
  downloading: z.number().int(),
  postprocessing: z.number().int(),
  done: z.number().int(),
  failed: z.number().int(),
});
const task = { key: z.string(), job: z.string(), label: z.string() };

/** Every event the engine publishes, by its `type`. */
const events = [
  z.object({
    type: z.literal("run:started"),
    runId: z.number().int(),
    jobs: z.number().int(),
    tasks: z.number().int(),
    awaiting: z.number().int(),
    alreadyDone: z.number().int(),
    name: z.string(),
    outputDir: z.string(),
    maxCost: z.number().nullable(),
    spent: z.number(),
    paid: z.number(),
    simulator: z.boolean(),
    groups: z.array(
      z.object({
        job: z.string(),
        family: z.string().nullable(),
        lane: z.string(),
        tasks: z.number().int(),
        stages,
        skipped: z.number().int().optional(),
        awaiting: z.number().int().optional(),
      }),
    ),
  }),
  z.object({ type: z.literal("task:submitting"), ...task }),
  z.object({
    type: z.literal("task:submitted"),
    ...task,
    taskId: z.string(),
    firstPollInMs: z.number().optional(),
  }),
  z.object({ type: z.literal("task:progress"), ...task, progress: z.number() }),
  z.object({
    type: z.literal("task:completed"),
    ...task,
    cost: z.number().nullable(),
    outputs: z.number().int(),
    surplus: z.number().int().optional(),
  }),
  z.object({
    type: z.literal("output:downloaded"),
    ...task,
    path: z.string(),
    bytes: z.number().int(),
  }),
  z.object({ type: z.literal("task:postprocessing"), ...task }),
  z.object({
    type: z.literal("task:judged"),
    ...task,
    index: z.number().int(),
    verdict: z.enum(["pass", "fail", "undecided"]),
    reason: z.string().nullable(),
    retake: z.string().nullable(),
  }),
  z.object({
    type: z.literal("output:checked"),
    key: z.string(),
    label: z.string(),
    index: z.number().int(),
    ok: z.boolean(),
    problems: z.array(z.string()),
    thumbnail: z.string().nullable(),
  }),
  z.object({
    type: z.literal("text:progress"),
    key: z.string(),
    label: z.string(),
    chars: z.number().int(),
  }),
  z.object({ type: z.literal("task:done"), ...task }),
  z.object({ type: z.literal("task:failed"), ...task, state: z.string(), reason: z.string() }),
  z.object({
    type: z.literal("task:added"),
    ...task,
    upstream: z.string(),
    family: z.string().nullable(),
  }),
  z.object({
    type: z.literal("gateway:retry"),
    what: z.string(),
    delayMs: z.number(),
    reason: z.string(),
  }),
  z.object({
    type: z.literal("gateway:rate-limited"),
    retryAfterMs: z.number(),
    ratePerSecond: z.number(),
  }),
  z.object({ type: z.literal("run:stopping"), reason: runEnd, message: z.string() }),
  z.object({
    type: z.literal("output:missing"),
    ...task,
    files: z.array(z.string()),
    action: z.enum(["download", "redo"]),
  }),
  z.object({ type: z.literal("output:delivered"), ...task, outputs: z.number().int() }),
  z.object({ type: z.literal("output:published"), ...task, failed: z.string().nullable() }),
  z.object({
    type: z.literal("run:finished"),
    end: runEnd,
    counts: z.record(z.string(), z.number().int()),
    spent: z.number(),
    paid: z.number(),
    estimate: z.object({
      estimate: z.number(),
      atUnknownCost: z.number().int(),
      unpriced: z.number().int(),
    }),
    unknownSubmits: z.number().int(),
  }),
] as const;

export const engineEventSchema = z.discriminatedUnion("type", events);

/** One line of `--json` output. */
export const eventLineSchema = z.intersection(
  z.object({ v: z.literal(EVENT_STREAM_VERSION), at: z.number().int() }),
  engineEventSchema,
);

// The schema and the engine's type are one vocabulary: this fails to compile when they part.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const inSync: Same<z.infer<typeof engineEventSchema>, EngineEvent> = true;
void inSync;

/** The event as one `--json` line (without the newline). */
export function eventLine(event: EngineEvent, at: number): string {
  const { type, ...fields } = event;
  return JSON.stringify({ v: EVENT_STREAM_VERSION, type, at, ...fields });
}
