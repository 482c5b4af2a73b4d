import * as z from "zod";
import { publishSchema } from "./publish.js";
import { provenanceSchema, renditionsSchema } from "./renditions-schema.js";
import { rowsSchema, rowWhere } from "./rows-schema.js";
import { selectSchema } from "./select-schema.js";
import { cronProblem, isTimeZone } from "./ticks.js";
import { parseDuration } from "./units.js";

/** The manifest format, version 1 (see docs/manifest.md). Request fields of jobs are checked per family. */

const DURATION = /^\d+(\.\d+)?(ms|s|m|h)$/;
const RATE = /^\d+(\.\d+)?\s*\/\s*(ms|s|m|h|sec|min)$/;

const duration = z
  .union([
    z.string().regex(DURATION, { error: 'must be a duration such as "15s", "500ms" or "2m"' }),
    z.number().min(0),
  ])
  .describe('a duration: "15s", "500ms", "2m", "1h", or a number of seconds');
const positiveInt = z.number().int().min(1);

export const RUNNER_KEYS = [
  "id",
  "endpoint",
  "matrix",
  "repeat",
  "from",
  "rows",
  "label",
  "checks",
  "enabled",
  "passthrough",
  "select",
] as const;

export const TEXT_ENDPOINTS = ["chat", "responses", "messages", "native"] as const;
/** Media endpoints, named only by passthrough jobs whose model gwrun does not know. */
export const MEDIA_ENDPOINTS = ["images", "edits", "videos"] as const;

export const JOB_ID = /^[A-Za-z0-9_-]+$/;
/** Ids become parts of file names, which most file systems cap at 255 bytes. */
export const MAX_JOB_ID = 100;
const jobId = z
  .string()
  .regex(JOB_ID, { error: "must use only letters, digits, _ and -" })
  .max(MAX_JOB_ID, { error: `must be at most ${MAX_JOB_ID} characters (it names files)` });

/** What counts as a judge's pass: an answer's first word, or the score it states. */
const judgePass = z.union([
  z.strictObject({
    starts_with: z
      .string()
      .min(1)
      .describe('the answer passes when it begins with this word, e.g. "yes"'),
    fails_with: z
      .string()
      .min(1)
      .optional()
      .describe(
        'the answer fails when it begins with this word (default "no"); any other is undecided',
      ),
  }),
  z.strictObject({
    score_at_least: z
      .number()
      .describe("the answer passes when the score it states is at least this"),
    out_of: z
      .number()
      .positive()
      .optional()
      .describe("the top of the scale the judge is asked for (default 10)"),
  }),
]);

const judge = z
  .strictObject({
    model: z.string().min(1).describe("a text model that reads pictures on `endpoint`"),
    endpoint: z.enum(TEXT_ENDPOINTS),
    ask: z
      .string()
      .min(1)
      .describe(
        "the question, a template: {{prompt}}, {{label}}, matrix and {{row.<field>}} variables",
      ),
    pass: judgePass,
    on_fail: z
      .enum(["report", "retry"])
      .optional()
      .describe(
        "retry: a rejected output is made again as a new take (default: the checks' on_fail)",
      ),
  })
  .describe("a multimodal text model approves or rejects each output");

/** A job's (or the manifest's) `checks:`. */
export const checksSchema = z.strictObject({
  on_fail: z.enum(["report", "retry"]).optional(),
  judge: judge.optional(),
  duration_tolerance: z
    .number()
    .min(0)
    .optional()
    .describe("seconds a clip may differ from the request"),
  black_frames: z.boolean().optional(),
  frozen_frames: z.boolean().optional(),
});

export const jobSchema = z
  .looseObject({
    id: jobId,
    model: z.string().min(1).optional(),
    endpoint: z.enum([...TEXT_ENDPOINTS, ...MEDIA_ENDPOINTS]).optional(),
    matrix: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.array(z.unknown()).min(1))
      .optional()
      .describe("cartesian product: one job per combination; each key is also a {{variable}}"),
    repeat: positiveInt.optional().describe("independent tasks of the same request"),
    from: z
      .union([
        jobId,
        z.strictObject({
          job: jobId,
          where: rowWhere.optional(),
          selected: z.literal(true).optional().describe("only the outputs its select: picks"),
        }),
      ])
      .optional()
      .describe(
        "one job per output of that job; { job, where } takes only the outputs whose variables match",
      ),
    rows: rowsSchema,
    label: z
      .string()
      .min(1)
      .optional()
      .describe('names the task\'s output files, e.g. "{{row.sku}}-{{style}}"'),
    checks: checksSchema.optional(),
    select: selectSchema.optional(),
    enabled: z.boolean().optional(),
    passthrough: z.boolean().optional().describe("send unvalidated, for models newer than gwrun"),
  })
  .describe("runner keys above; every other key is a request field checked by the model's family");

const schedule = z
  .strictObject({
    cron: z
      .string()
      .superRefine((cron, ctx) => {
        const problem = cronProblem(cron);
        if (problem !== undefined)
          ctx.addIssue({
            code: "custom",
            message: `not a cron expression: ${problem}`,
            params: { rule: "cron" },
          });
      })
      .describe(
        'when to run: "minute hour day month weekday", e.g. "0 6 * * *" (a leading seconds field is allowed)',
      ),
    timezone: z
      .string()
      .superRefine((zone, ctx) => {
        if (!isTimeZone(zone))
          ctx.addIssue({
            code: "custom",
            message: `unknown time zone "${zone}" (an IANA name such as "Europe/Berlin" or "UTC")`,
            params: { rule: "timezone" },
          });
      })
      .optional()
      .describe("IANA time zone of the cron expression; default: the machine's"),
    overlap: z
      .enum(["skip", "wait"])
      .optional()
      .describe(
        "a tick due while this manifest is running: skip it (default) or wait for the run to end",
      ),
    catch_up: z
      .enum(["none", "latest", "all"])
      .optional()
      .describe("ticks missed while no scheduler ran: none, the latest (default), or all in order"),
    keep: z
      .strictObject({
        runs: positiveInt.describe("scheduled runs whose outputs and records are kept"),
      })
      .optional(),
  })
  .describe("run this manifest on a schedule (`gwrun schedule`); each tick is a run of its own");

/** How a run ended, in the words `notify: on:` chooses by (docs/notifications.md). */
export const NOTIFY_OUTCOMES = ["done", "failed", "stopped", "budget"] as const;

export const notifySchema = z
  .array(
    z.strictObject({
      webhook: z
        .string()
        // Empty ("${HOOK:-}" where HOOK is unset) turns the webhook off.
        .refine(
          (url) => url === "" || (URL.canParse(url) && /^https?:$/i.test(new URL(url).protocol)),
          {
            error: 'must be an http(s) URL such as "https://hooks.slack.com/services/…"',
            params: { rule: "url" },
          },
        )
        .describe(
          `URL to POST the run's summary to (JSON), best read from the environment: \${SLACK_WEBHOOK}`,
        ),
      on: z
        .array(z.enum(NOTIFY_OUTCOMES))
        .min(1)
        .optional()
        .describe("outcomes that post: done, failed, stopped, budget (default: all four)"),
      timeout: duration
        .refine((value) => (parseDuration(value) ?? 0) <= 60_000, {
          error: "must be at most 60s: a run's exit waits for its notifications",
          params: { rule: "range" },
        })
        .optional()
        .describe("time allowed for the delivery, retries included (default 10s, at most 60s)"),
    }),
  )
  .describe("webhooks told when a run ends (each tick's run, for a schedule)");

export const manifestSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
    .optional(),
  gateway: z
    .strictObject({
      base_url: z
        .string()
        .refine((url) => url === "sim" || /^https?:\/\/[^/\s]+/i.test(url), {
          error: 'must be an http(s) URL such as "https://gateway.example.com", or "sim"',
          params: { rule: "url" },
        })
        .optional()
        .describe('"sim" runs the built-in simulator'),
      api_key: z.string().optional().describe("default: the GW_API_KEY environment variable"),
      messages_version: z.strictObject({ header: z.string(), value: z.string() }).optional(),
      private_urls: z
        .boolean()
        .optional()
        .describe(
          "true: image and video URLs on private addresses (localhost, 10.x, 192.168.x…) are sent, for a gateway inside that network",
        ),
    })
    .optional(),
  limits: z
    .strictObject({
      submit_rate: z
        .string()
        .regex(RATE, { error: 'must be a rate such as "5/s" or "120/m"' })
        .optional(),
      max_in_flight: positiveInt.optional(),
      max_in_flight_video: positiveInt.optional(),
      downloads: positiveInt.optional(),
      max_cost: z.number().min(0).optional().describe("budget in the gateway's currency units"),
      unknown_cost: z
        .number()
        .min(0)
        .optional()
        .describe(
          "amount reserved against max_cost for each task whose price neither prices: nor the spec states",
        ),
      max_tasks: positiveInt
        .optional()
        .describe("tasks the manifest may expand to (matrices and repeats); default 100000"),
    })
    .optional(),
  poll: z
    .strictObject({
      first_after: duration.optional(),
      every: duration.optional(),
      batch_size: positiveInt.max(500).optional(),
      give_up_after: duration
        .optional()
        .describe(
          "a task not finished this long after its submit fails (default 15m for images, 2h for clips); gwrun retry --stuck polls it again",
        ),
    })
    .optional(),
  retry: z
    .strictObject({
      attempts: positiveInt.optional(),
      min_delay: duration.optional(),
      max_delay: duration.optional(),
      on_unknown_submit: z
        .enum(["resubmit", "hold"])
        .optional()
        .describe(
          "a submit that may have made its task (reset, 5xx): send it again (default, may pay twice) or hold it for `gwrun retry --held`",
        ),
    })
    .optional(),
  output: z
    .strictObject({
      dir: z.string().min(1).optional(),
      thumbnails: z
        .union([
          z.literal(false),
          z.strictObject({
            width: positiveInt.max(4096).optional(),
            format: z.enum(["webp", "jpeg", "png", "avif"]).optional(),
          }),
        ])
        .optional(),
      publish: publishSchema.optional(),
      renditions: renditionsSchema.optional(),
      provenance: provenanceSchema.optional(),
    })
    .optional(),
  checks: checksSchema.optional(),
  files: z
    .strictObject({
      allow: z
        .array(z.string().min(1))
        .min(1)
        .describe("folders relative to the manifest, outside its project"),
    })
    .optional()
    .describe(
      "files a manifest names (prompts, rows, images, prices) are read from its project only; allow names more folders to read from",
    ),
  schedule: schedule.optional(),
  notify: notifySchema.optional(),
  vars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.unknown()).optional(),
  prices: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "price per model id: a number per task, { per_image }, { per_second }, { by: <request field>, <value>: price }, { per_1k_input, per_1k_output }; or { file: prices.yaml } relative to the manifest",
    ),
  defaults: z.record(z.string(), z.unknown()).optional(),
  jobs: z.array(jobSchema).min(1),
});

export type ManifestInput = z.infer<typeof manifestSchema>;
export type JobInput = z.infer<typeof jobSchema>;

/**
 * The manifest without its jobs' own checks: jobs are checked one at a time with `jobSchema`,
 * so a manifest of 100,000 jobs is never copied whole by a parse.
 */
export const manifestSettingsSchema = manifestSchema.extend({ jobs: z.array(z.unknown()).min(1) });
