import type { PublishTarget } from "./publish.js";
import type { Rendition } from "./renditions-schema.js";
import type { RowSet } from "./row-types.js";
import type { SelectSpec } from "./select-schema.js";
import type { Schedule } from "./ticks.js";
import type { Rate } from "./units.js";

/** Run settings of a manifest, with every default filled in. */
export interface ManifestSettings {
  name: string;
  gateway: {
    /** "sim" runs the built-in simulator. */
    baseUrl: string;
    /** Only as written in the manifest; the environment is read at run time. Never printed. */
    apiKey: string | undefined;
    messagesVersion: { header: string; value: string } | undefined;
    /** Image and video URLs on private addresses are allowed (a gateway inside that network). */
    privateUrls: boolean;
  };
  limits: {
    submitRate: Rate;
    maxInFlight: number;
    maxInFlightVideo: number;
    downloads: number;
    maxCost: number | undefined;
    /** Reserved per task whose price is unknown; undefined: such tasks reserve nothing. */
    unknownCost: number | undefined;
    /** Tasks the manifest may expand to. */
    maxTasks: number;
  };
  poll: {
    firstAfterMs: number;
    everyMs: number;
    batchSize: number;
    /** A task unfinished this long after its submit is given up on; undefined: by lane. */
    giveUpAfterMs: number | undefined;
  };
  retry: {
    attempts: number;
    minDelayMs: number;
    maxDelayMs: number;
    /** A submit that may have made its task: send it again, or hold it. */
    onUnknownSubmit: "resubmit" | "hold";
  };
  output: {
    dir: string;
    thumbnails: false | { width: number; format: "webp" | "jpeg" | "png" | "avif" };
    /** Object storage each output is published to (none: empty). */
    publish: PublishTarget[];
    /** `output.renditions` (none: empty or absent). */
    renditions?: Rendition[];
    /** `output.provenance`: whether XMP written by gwrun carries the prompt (default true). */
    provenance?: { prompt: boolean };
  };
  checks: JobChecks | undefined;
  /** Present for a scheduled manifest. */
  schedule: Schedule | undefined;
  /** The manifest's `prices:` by model (empty without one); the contract's prices stand elsewhere. */
  prices: PriceTable;
  /** Webhooks told when a run ends (none: empty). */
  notify: NotifyTarget[];
}

/**
 * A model's price as a manifest's `prices:` states it, in the gateway's currency units:
 * per task (a plain number), per output image, per second of video (by the request's
 * duration), by a request field's value, or per 1,000 input and output tokens (text).
 */
export type PriceRule =
  | { per: "task"; amount: number }
  | { per: "image"; amount: number }
  | { per: "second"; amount: number }
  | { per: "value"; field: string; prices: Readonly<Record<string, number>> }
  | { per: "tokens"; input: number; output: number };

/** Prices by model id, as written. */
export type PriceTable = Readonly<Record<string, PriceRule>>;

/** One webhook of `notify:`: where, for which outcomes, within how long. */
export interface NotifyTarget {
  /** Read from the environment already: a secret (never logged whole). */
  webhook: string;
  on: readonly ("done" | "failed" | "stopped" | "budget")[];
  /** Time allowed for the delivery, retries included. */
  timeoutMs: number;
}

export interface JobChecks {
  on_fail?: "report" | "retry";
  judge?: JudgeSpec;
  duration_tolerance?: number;
  black_frames?: boolean;
  frozen_frames?: boolean;
}

/** `checks.judge`: which model judges each output, what it is asked, what passes. */
export interface JudgeSpec {
  model: string;
  endpoint: "chat" | "responses" | "messages" | "native";
  /** A template: `{{prompt}}`, `{{label}}`, matrix and `{{row.<field>}}` variables. */
  ask: string;
  pass: JudgePass;
  on_fail?: "report" | "retry";
  /** The judged job's `select:`, carried to its checks (not a key of `checks.judge`). */
  select?: SelectSpec;
}

/** An answer passes when it begins with a word, or states a score of at least a threshold. */
export type JudgePass =
  | { starts_with: string; fails_with?: string }
  | { score_at_least: number; out_of?: number };

/** One entry of `jobs:` as written, before expansion. */
export interface JobSpec {
  id: string;
  /** Position in `jobs:`. */
  index: number;
  model: string | undefined;
  endpoint: string | undefined;
  matrix: Record<string, unknown[]> | undefined;
  repeat: number;
  /** The job it follows (`from:` or `from.job`). */
  from: string | undefined;
  /** `from.where`: the upstream's variables an output must have to be used. */
  fromWhere: Record<string, unknown> | undefined;
  /**
   * `from.selected`: only the outputs the upstream's `select:` picks, once its takes settle:
   * `best` of each group of `of` takes (its repeat), as `checkLinks` reads them off it.
   */
  fromSelected: { best: number; of: number } | undefined;
  /** `rows:`, read and filtered by `where:`; undefined without rows. */
  rows: RowSet | undefined;
  /** `label:` as written (a template); undefined: labels from the job id. */
  label: string | undefined;
  enabled: boolean;
  passthrough: boolean;
  checks: JobChecks | undefined;
  /** `select:`: the best takes of each group; undefined without it. */
  select?: SelectSpec;
  /** Request fields as written (templates not yet rendered). */
  fields: Record<string, unknown>;
}

/** One combination of a job's matrix, with its request body rendered. */
export interface ExpandedJob {
  spec: JobSpec;
  /** Index among the spec's matrix combinations, and how many there are. */
  expansion: number;
  expansions: number;
  /** Matrix values of this combination (index into each matrix list). */
  matrixIndex: Record<string, number>;
  /** The matrix values of this combination, rendered, and its `row` (empty without either). */
  vars: Record<string, unknown>;
  /** Which row of `spec.rows` made it (its index among the kept rows); undefined without rows. */
  row: number | undefined;
  /** `spec.label` rendered; undefined without a label. */
  label: string | undefined;
  /** The request body after defaults, matrix values and templates. */
  body: Record<string, unknown>;
  /** Top-level fields that came from `defaults:`. */
  fromDefaults: ReadonlySet<string>;
  /** The schedule tick of a scheduled run (UTC ISO), part of every task key. */
  tick: string | undefined;
}
