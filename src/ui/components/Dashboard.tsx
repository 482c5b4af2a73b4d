import { Box, Text, useInput } from "ink";
import { cutToWidth, displayWidth } from "../../core/text-width.js";
import { endedOf, formatDuration, stageParts } from "../format.js";
import type { RunView } from "../run-view.js";
import type { StopKey } from "../stop-keys.js";
import { Failures } from "./Failures.js";
import { Header } from "./Header.js";
import { JobRows } from "./JobRows.js";
import { ProgressBar } from "./ProgressBar.js";
import { packParts, StageCounts } from "./StageCounts.js";
import { Summary } from "./Summary.js";

/** Wider bars say no more and cost more to draw. */
const MAX_BAR_WIDTH = 72;

export interface DashboardProps {
  view: RunView;
  columns: number;
  rows: number;
  /** Listen for `q` and Ctrl-C (only when stdin is a terminal). */
  keys: boolean;
  onKey: (key: StopKey) => void;
  /** A first `q` waits for its second. */
  qPressed: boolean;
  /** A line outside the events (the Ctrl-C notice). */
  notice: string | null;
  galleryExists: boolean;
  /** The state database when the next command must name it. */
  db?: string;
}

/** The whole screen of a run, sized to the terminal so Ink never has to scroll. */
export function Dashboard(props: DashboardProps) {
  const { view, rows } = props;
  const columns = Math.max(20, props.columns);
  // Taking on a large run's done tasks takes a while: the keys work from the first frame.
  if (view.phase === "starting")
    return (
      <>
        <Text dimColor>gwrun: starting the run…</Text>
        {props.keys ? <StopKeys onKey={props.onKey} /> : null}
      </>
    );
  const stageLines = packParts(stageParts(view), columns).length;
  const finished = view.phase === "finished";
  const hint = finished || !props.keys ? null : keyHint(props.qPressed, view, props.notice);
  const messages = finished
    ? 0
    : [view.stopMessage, props.notice, hint].filter((line) => line !== null).length;
  // Header, bar, stages, pace line, and the messages (a line at least).
  const fixed = 3 + stageLines + Math.max(1, messages);
  const failureRows = finished ? 0 : Math.min(view.failures.length + 1, 6);
  const spare = Math.max(0, rows - fixed - failureRows);
  const jobRows = finished ? Math.min(view.groups.length, Math.max(0, spare - 8)) : spare;
  return (
    <Box flexDirection="column" width={columns}>
      <Header view={view} columns={columns} />
      <ProgressBar
        ended={endedOf({ ...view.stages, skipped: view.skipped })}
        total={view.total}
        width={Math.min(columns, MAX_BAR_WIDTH)}
      />
      <StageCounts view={view} columns={columns} />
      <Pace view={view} columns={columns} />
      <JobRows groups={view.groups} columns={columns} maxRows={jobRows} />
      {finished ? (
        <Summary view={view} columns={columns} galleryExists={props.galleryExists} db={props.db} />
      ) : (
        <Failures failures={view.failures} columns={columns} maxRows={failureRows} />
      )}
      {view.stopMessage !== null && !finished ? (
        <Text color="yellow" wrap="truncate">
          {cutToWidth(view.stopMessage, columns)}
        </Text>
      ) : null}
      {props.notice !== null && !finished ? (
        <Text color="yellow" wrap="truncate">
          {cutToWidth(props.notice, columns)}
        </Text>
      ) : null}
      {!finished && props.keys ? <StopKeys onKey={props.onKey} /> : null}
      {hint === null ? null : (
        <Text color={props.qPressed ? "yellow" : undefined} dimColor={!props.qPressed}>
          {cutToWidth(hint, columns)}
        </Text>
      )}
    </Box>
  );
}

/** What the stop keys do now; null when the notice already says it. */
function keyHint(qPressed: boolean, view: RunView, notice: string | null): string | null {
  // A second stop exits at once.
  if (qPressed) return `press q again to ${view.phase === "stopping" ? "exit at once" : "stop"}`;
  return notice === null ? "q or Ctrl-C: stop" : null;
}

/** Throughput, and a warning while the gateway rate-limits or a retry backs off. */
function Pace({ view, columns }: { view: RunView; columns: number }) {
  const pace = `${view.tasksPerMinute.toFixed(1)} tasks/min`;
  const limited =
    view.rateLimitedMs > 0
      ? `rate limited: ${formatDuration(view.rateLimitedMs)} left${view.ratePerSecond === null ? "" : `, submitting at ${view.ratePerSecond.toFixed(2)}/s`}`
      : view.backoffMs > 0
        ? `backing off: retry in ${formatDuration(view.backoffMs)}`
        : null;
  return (
    <Text wrap="truncate">
      {pace}
      {limited === null ? null : (
        <Text color="yellow">
          {" "}
          · ⚠ {cutToWidth(limited, Math.max(0, columns - displayWidth(pace) - 5))}
        </Text>
      )}
    </Text>
  );
}

function StopKeys({ onKey }: { onKey: (key: StopKey) => void }) {
  useInput((input, key) => {
    onKey(input === "q" ? "q" : key.ctrl && input === "c" ? "ctrl-c" : "other");
  });
  return null;
}
