import { htmlText } from "../core/text-filter.js";
import type { TaskVariables } from "../store/index.js";
import { renditionLinks } from "./gallery-renditions.js";
import { selectedBadge } from "./gallery-select.js";
import type { ReviewRecord } from "./review-record.js";

/**
 * The static gallery page, in pieces written one after another: works from `file://` with no
 * server (relative links, styles inline, no scripts). Every text from a request or a response
 * is escaped: prompts and reasons are untrusted.
 */

/** A relative path as a link: each segment percent-encoded. */
export function href(relative: string): string {
  return htmlText(relative.split("/").map(encodeURIComponent).join("/"));
}

/** A path relative to the page's folder, or null when it leads out of it. */
function inFolder(relative: string | null): string | null {
  if (relative === null) return null;
  return relative.startsWith("../") || relative.startsWith("/") || relative === ".."
    ? null
    : relative;
}

/** Thumbnails past this many load as they scroll into view. */
const EAGER_IMAGES = 200;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:1rem 2rem;background:#f6f6f4;color:#222}
h1{margin:.2rem 0}h2{font-size:1rem;margin:0 0 .3rem}
.summary{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;padding:0;list-style:none}
.summary b{font-size:1.1rem}
.job{margin:1.2rem 0}.tasks{display:flex;flex-wrap:wrap;gap:.8rem;align-items:flex-start}
.task{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6rem .8rem;max-width:300px}
h3{font-size:.9rem;margin:0 0 .3rem}
.meta{color:#555;margin:.3rem 0 0}.prompt{margin:.2rem 0;white-space:pre-wrap;display:-webkit-box;-webkit-line-clamp:4;-webkit-box-orient:vertical;overflow:hidden}
.params{font-family:ui-monospace,monospace;font-size:12px;color:#666;word-break:break-all}
.outputs{display:flex;flex-wrap:wrap;gap:.5rem}
figure{margin:0;max-width:260px}figure img{max-width:260px;max-height:260px;display:block;border-radius:4px;background:#eee}
figure a{position:relative;display:inline-block;text-decoration:none}
.play{position:absolute;left:8px;bottom:8px;background:#000a;color:#fff;border-radius:3px;padding:0 6px}
figcaption{font-size:12px;color:#555}
.badge{display:inline-block;border-radius:3px;padding:0 5px;font-size:12px;color:#fff}
.ok{background:#2a7d3b}.failed{background:#b3261e}.unchecked{background:#888}
.approved{background:#1f5fae}.rejected{background:#7a3e9d}.note{font-style:italic}
.selected{background:#0f766e}
.sim{background:#b7791f}p.sim{background:#fdf3e1;color:#7a4e0e;padding:.3rem .5rem;border-radius:4px}
.problems{color:#b3261e;font-size:12px;margin:.2rem 0 0;padding-left:1rem}
.failures li{margin:.2rem 0}.state{font-weight:normal;color:#777;font-size:12px}
.vars{margin:.2rem 0;font-size:12px}.vars span{background:#e8eef7;border-radius:3px;padding:0 5px;margin-right:.3rem}
.capped{background:#fdf3e1;color:#7a4e0e;padding:.3rem .5rem;border-radius:4px}
.answer{white-space:pre-wrap;font-size:13px;background:#fafafa;border:1px solid #eee;border-radius:4px;padding:.4rem;margin:0 0 .3rem;max-width:280px}`;

export interface GallerySummary {
  name: string;
  /** The run of a run's own page; null for the folder's page. */
  run: number | null;
  states: Record<string, number>;
  outputs: number;
  /** What the page's outputs cost in all, whichever run paid. */
  spent: number;
  /** The run that wrote the page, and what it paid itself. */
  paidBy: { run: number; paid: number };
  /** That run talked to the built-in simulator. */
  simulator: boolean;
  reviews: { approved: number; rejected: number };
}

/** The page up to its body: title, styles and the counts (`data-count` per figure). */
export function galleryStart(summary: GallerySummary): string {
  const tasks = Object.values(summary.states).reduce((sum, n) => sum + n, 0);
  const states = Object.entries(summary.states)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([state, n]) => `<li><b data-count="${htmlText(state)}">${n}</b> ${htmlText(state)}</li>`)
    .join("");
  const name = htmlText(summary.name);
  const [title, scope] =
    summary.run === null
      ? [name, "every current output in this folder, each task's latest take"]
      : [
          `${name}: run ${summary.run}`,
          `run ${summary.run} only; <a href="index.html">every current output in this folder</a>`,
        ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}</title><style>${STYLE}</style></head>
<body><header><h1>${name}</h1><p>${scope}</p>${summary.simulator ? `<p class="sim">Run ${summary.paidBy.run} talked to the built-in simulator: its outputs are stand-ins, no real money.</p>` : ""}
<ul class="summary"><li><b data-count="tasks">${tasks}</b> tasks</li>${states}<li><b data-count="outputs">${summary.outputs}</b> outputs</li>${spendItems(summary)}<li><b data-count="approved">${summary.reviews.approved}</b> approved</li><li><b data-count="rejected-outputs">${summary.reviews.rejected}</b> rejected by review</li></ul></header>
`;
}

/** What the run paid, then, where different, what the outputs shown cost in all. */
function spendItems(summary: GallerySummary): string {
  const { run, paid } = summary.paidBy;
  const own = `<li>run ${run} paid <b data-count="paid">${paid}</b></li>`;
  return paid === summary.spent
    ? own
    : `${own}<li><b data-count="spent">${summary.spent}</b> in all</li>`;
}

/**
 * Task cards a gallery page holds at most: a page of 300,000 cards is hundreds of megabytes
 * no browser opens. `results.jsonl` beside it holds every output; `gwrun view` pages them all.
 */
export const GALLERY_TASKS = 5000;
/** Failures the page lists at most, for the same reason. */
export const GALLERY_FAILURES = 1000;

/** The line a capped page says where its list stops, or "" when it shows them all. */
export function cappedNote(what: "tasks" | "failures", shown: number, total: number): string {
  if (total <= shown) return "";
  return `<p class="capped" data-capped="${what}">This page shows the first ${shown} of ${total} ${what} — see them all with <code>gwrun view</code> (every output is in the JSON Lines file beside this page).</p>\n`;
}

/** The failures list: one item per job that ended without its outputs, with the reason. */
export function failuresStart(): string {
  return `<section class="failures" id="failures"><h2>Failures</h2><ul>\n`;
}

export function failureItem(failure: {
  label: string;
  state: string;
  reason: string | null;
}): string {
  return `<li><a href="#task-${href(failure.label)}">${htmlText(failure.label)}</a> <span class="badge failed">${htmlText(failure.state)}</span> ${htmlText(failure.reason ?? "no reason recorded")}</li>\n`;
}

export function failuresEnd(count: number): string {
  const end = count === 0 ? "<li>none</li></ul>" : "</ul>";
  return `${end}${cappedNote("failures", GALLERY_FAILURES, count)}</section>\n`;
}

/** A manifest job's section: its tasks (matrix combinations, repeats, dependants) follow. */
export function jobStart(jobId: string): string {
  return `<section class="job" id="job-${href(jobId)}"><h2>${htmlText(jobId)}</h2><div class="tasks">\n`;
}

export function jobEnd(): string {
  return "</div></section>\n";
}

export interface TaskView {
  label: string;
  state: string;
  reason: string | null;
  model: string | null;
  prompt: string | null;
  parameters: Record<string, unknown>;
  cost: number | null;
  /** Its price before it ran, shown where what was paid differs. */
  estimatedCost: number | null;
  variables: TaskVariables;
}

/** A text output's words, shown whole: an answer is read, not opened. */
export type AnswerOf = (record: ReviewRecord) => string | null;

/** One task: its outputs as thumbnails with check badges, its model, prompt and parameters below. */
export function taskCard(
  records: readonly ReviewRecord[],
  task: TaskView,
  imagesBefore: number,
  answerOf: AnswerOf = () => null,
): string {
  const parameters = Object.entries(task.parameters)
    .map(([field, value]) => `${field}: ${truncate(JSON.stringify(value), 160)}`)
    .join(" · ");
  const figures = records
    .map((record, i) => figure(record, imagesBefore + i, answerOf(record)))
    .join("");
  const prompt =
    task.prompt === null
      ? ""
      : `<p class="prompt" title="${htmlText(truncate(task.prompt, 4000))}">${htmlText(truncate(task.prompt, 600))}</p>`;
  const state =
    task.state === "done" ? "" : ` <span class="badge failed">${htmlText(task.state)}</span>`;
  return `<article class="task" id="task-${href(task.label)}"><h3>${htmlText(task.label)}${state}</h3><div class="outputs">${figures}</div>
${variablesLine(task.variables)}<p class="meta">${htmlText(task.model ?? "unknown model")}${costMeta(task)}</p>${prompt}
${parameters === "" ? "" : `<p class="params">${htmlText(parameters)}</p>`}${task.reason !== null && task.state !== "done" ? `<p class="problems">${htmlText(task.reason)}</p>` : ""}</article>
`;
}

/** Matrix variables, repeat and take as tags; nothing for a lone first take. */
export function variablesLine(variables: TaskVariables): string {
  const tags = Object.entries(variables.vars).map(
    ([name, value]) =>
      `<span data-var="${htmlText(name)}">${htmlText(name)}: ${htmlText(typeof value === "string" ? value : JSON.stringify(value))}</span>`,
  );
  if (variables.repeat > 0) tags.push(`<span>repeat ${variables.repeat + 1}</span>`);
  if (variables.take > 1)
    tags.push(`<span data-take="${variables.take}">take ${variables.take}</span>`);
  return tags.length === 0 ? "" : `<p class="vars">${tags.join("")}</p>`;
}

function figure(record: ReviewRecord, position: number, answer: string | null): string {
  const state = record.checks.state ?? "unchecked";
  const checked = `<span class="badge ${state}">${state === "ok" ? "checks ok" : state === "failed" ? "check failed" : "not checked"}</span>`;
  const badge = record.simulator ? `<span class="badge sim">simulator</span> ${checked}` : checked;
  const problems =
    record.checks.problems.length === 0
      ? ""
      : `<ul class="problems">${record.checks.problems.map((p) => `<li>${htmlText(p)}</li>`).join("")}</ul>`;
  const name = record.file?.split("/").at(-1) ?? "";
  const review =
    judgeBadge(record) +
    selectedBadge(record) +
    (record.review === null
      ? ""
      : ` <span class="badge ${record.review.decision}">${record.review.decision}</span>${record.review.note === null ? "" : ` <span class="note">${htmlText(record.review.note)}</span>`}`);
  // The page links only what lies in its folder: a file taken over from another is named, not linked.
  const file = inFolder(record.file);
  const picture =
    inFolder(record.thumbnail) ??
    inFolder(record.poster) ??
    (record.content_type?.startsWith("image/") ? file : null);
  const loading = position < EAGER_IMAGES ? "" : ' loading="lazy"';
  const inner =
    picture === null
      ? htmlText(name)
      : `<img class="thumb" src="${href(picture)}" alt="${htmlText(name)}"${loading}>${record.content_type?.startsWith("video/") ? '<span class="play">▶</span>' : ""}`;
  const link =
    answer !== null
      ? `<pre class="answer">${htmlText(answer)}</pre>`
      : file === null
        ? inner
        : `<a href="${href(file)}">${inner}</a>`;
  const size = [sizeOf(record), bytesText(record.bytes)].filter((part) => part !== "").join(" · ");
  return `<figure class="output">${link}<figcaption>${badge}${review} ${htmlText(name)}${size === "" ? "" : ` · ${htmlText(size)}`}${renditionLinks(record)}${problems}</figcaption></figure>`;
}

function sizeOf(record: ReviewRecord): string {
  const { width, height, duration_s: duration } = record.checks;
  const pixels =
    typeof width === "number" && typeof height === "number" ? `${width}x${height}` : "";
  return typeof duration === "number" ? `${pixels} ${duration.toFixed(1)} s`.trim() : pixels;
}

function bytesText(bytes: number | null): string {
  if (bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The end of the page; `results` names the JSON Lines file beside it. */
export function galleryEnd(results: string): string {
  return `<footer><p>Written by gwrun. ${htmlText(results)} beside this page holds the same, one line per output.</p></footer></body></html>\n`;
}

/** ` · cost 0.25`, with the estimate where what was paid differs from it. */
function costMeta(task: Pick<TaskView, "cost" | "estimatedCost">): string {
  if (task.cost === null) return "";
  const estimated =
    task.estimatedCost === null || Math.abs(task.cost - task.estimatedCost) < 1e-9
      ? ""
      : ` (estimated ${task.estimatedCost})`;
  return ` · cost ${task.cost}${estimated}`;
}

/** The judge's verdict as a suggestion, its reason on hover; marked when a person overruled it. */
function judgeBadge(record: ReviewRecord): string {
  const { judge, review } = record;
  if (judge === null) return "";
  const word = judge.verdict === "pass" ? "yes" : judge.verdict === "fail" ? "no" : "undecided";
  const overruled =
    review !== null &&
    judge.verdict !== "undecided" &&
    (judge.verdict === "pass") !== (review.decision === "approved");
  const title = judge.reason === null ? "" : ` title="${htmlText(judge.reason)}"`;
  return ` <span class="badge judge ${judge.verdict}"${title}>judge suggests: ${word}${overruled ? " (overruled)" : ""}</span>`;
}
