import type { Command } from "commander";
import { Option } from "commander";
import { ExitCode } from "../api/index.js";
import { BATCH_SHAPES, VIDEO_RESULTS } from "../sim/index.js";
import { err, out } from "./output.js";
import { stopRequested } from "./run-signals.js";

import { type SimFlags, simOptionsOf, usage } from "./sim-flags.js";

export { simOptionsOf } from "./sim-flags.js";

/** `gwrun sim`: the gateway simulator, standalone. */
export function addSimCommand(program: Command, setExit: (code: ExitCode) => void): void {
  const command = program
    .command("sim")
    .description("run the gateway simulator on loopback (prints its URL; Ctrl-C stops it)");
  // The order of these groups is the order `--help` lists the options in.
  addListenOptions(command);
  addLimitOptions(command);
  addGatewayOptions(command);
  addFaultOptions(command);
  addMediaOptions(command);
  command.action(async (flags: SimFlags) => {
    setExit(await serveSimulator(flags));
  });
}

/** Where the simulator listens, how fast its clock runs, its seed and the key it accepts. */
function addListenOptions(command: Command): void {
  command
    .option("--port <n>", "port to listen on (0: a free one)", "8787")
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option(
      "--time-scale <x>",
      "gateway seconds per real second (60: a 45 s task takes 0.75 s)",
      "1",
    )
    .option("--seed <text>", "seed of every injected fault and choice")
    .option("--key <key>", "accept only this API key (default: any non-empty key)");
}

/** What the simulated gateway allows: its rate limit and the balance it charges. */
function addLimitOptions(command: Command): void {
  command
    .option(
      "--rate-limit <rate>",
      'generation calls allowed, e.g. "10/s" (429 with Retry-After beyond)',
    )
    .option("--burst <n>", "calls allowed at once under --rate-limit (default: one second's worth)")
    .addOption(
      new Option(
        "--rate-limit-counts <calls>",
        "what --rate-limit counts: generating calls, or every API call (task queries too; downloads never)",
      )
        .choices(["generations", "calls"])
        .default("generations"),
    )
    .option("--rate-limit-unannounced", "do not state --rate-limit in answers (RateLimit-Policy)")
    .option(
      "--balance <amount>",
      "currency units available; 402 once spent (charged on completion)",
    );
}

/** How the simulated gateway behaves when nothing goes wrong: timings, safety filter, shapes. */
function addGatewayOptions(command: Command): void {
  command
    .option(
      "--latency <lane=duration>",
      "fixed time from submit to completion for a lane or family, e.g. image=15s (gateway time; repeatable)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--retention <duration>", "how long task records are kept (gateway time)", "7d")
    .option(
      "--link-ttl <duration>",
      "how long result links work after completion (gateway time)",
      "24h",
    )
    .option(
      "--unsafe-word <word>",
      'family A safety filter rejects prompts with this word, text models decline them (default "forbidden")',
    )
    .addOption(
      new Option("--batch-shape <shape>", "body of POST /v1/tasks/batch")
        .choices(BATCH_SHAPES)
        .default("list"),
    )
    .addOption(
      new Option("--video-result <shape>", "where video results put the clip")
        .choices(VIDEO_RESULTS)
        .default("videos"),
    );
}

/** The faults the simulator injects, each at a rate, to test a client against them. */
function addFaultOptions(command: Command): void {
  command
    .option("--fail-rate <fraction>", "tasks that end failed")
    .option("--error-rate <fraction>", "requests answered 500")
    .option("--reset-rate <fraction>", "requests whose connection is reset")
    .option("--lost-response-rate <fraction>", "submits accepted whose response is lost")
    .option(
      "--created-error-rate <fraction>",
      "submits whose task is created (and billed) but answered 500",
    )
    .option("--truncate-rate <fraction>", "downloads cut short")
    .option("--download-delay <duration>", "wait before each download answers")
    .option("--wrong-size-rate <fraction>", "image tasks with pictures of the wrong size")
    .option("--short-clip-rate <fraction>", "video tasks with clips shorter than requested")
    .option(
      "--expired-link-rate <fraction>",
      "tasks whose result links have expired when they complete",
    )
    .option("--html-poll-rate <fraction>", "task queries answered with an HTML 502 page")
    .option("--non-json-poll-rate <fraction>", "task queries answered 200 with a non-JSON body")
    .option("--odd-status-rate <fraction>", "tasks stuck in a status the spec does not name")
    .option("--huge-error-rate <fraction>", "failing tasks whose message runs to megabytes")
    .option(
      "--escape-error-rate <fraction>",
      "failing tasks whose message carries <script> and terminal escapes",
    )
    .option("--surplus-link-rate <fraction>", "completed tasks that list 500 result links")
    .option("--echo-key-rate <fraction>", "task queries whose failed tasks echo the API key")
    .option(
      "--duplicate-task-id-rate <fraction>",
      "submits answered with the task id the submit before got",
    )
    .option(
      "--unpublished-result-polls <n>",
      "queries of each completed task answered without its result first",
    )
    .option(
      "--stream-error-rate <fraction>",
      "text streams broken off by an error event carrying escapes and the API key",
    );
}

/** The media the simulator renders, and how its text models judge them. */
function addMediaOptions(command: Command): void {
  command
    .option(
      "--media-variants <n>",
      "distinct pictures and clips to render (default: one per prompt)",
    )
    .option("--cache-dir <dir>", "where rendered media are cached")
    .option(
      "--judge-no-share <fraction>",
      'pictures its text models judge "no" (or score low) when asked for a verdict (default 0.25)',
    );
}

/** Starts the simulator, prints its URL, and serves until SIGINT or SIGTERM. */
async function serveSimulator(flags: SimFlags): Promise<ExitCode> {
  const options = simOptionsOf(flags);
  const { startSimulator } = await import("../sim/index.js");
  const simulator = await startSimulator(options).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" && error.code !== "EACCES") throw error;
    throw usage(
      `cannot listen on ${options.host}:${options.port} (${error.code === "EADDRINUSE" ? "in use" : "not allowed"}); pick another --port, or 0 for a free one`,
    );
  });
  const stopped = stopRequested();
  out(simulator.url);
  err(
    `gwrun sim: gateway simulator on ${simulator.url} (time scale ${simulator.options.timeScale}); Ctrl-C stops it`,
  );
  await stopped;
  await simulator.close();
  return ExitCode.Ok;
}
