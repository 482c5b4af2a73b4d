import { cpSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { runsWith } from "../../helpers/system-tools.js";
import { startTmux, type TmuxSession } from "../../helpers/tmux.js";

/**
 * `gwrun manifests/campaign.yaml` in a real terminal: a tmux session of 120×40 on a server of
 * this test's own, the screen read with `capture-pane`.
 */
let session: TmuxSession | undefined;

/** Starts the campaign in a temp copy of manifests/ (its outputs land there), at `timeScale`. */
function startCampaign(timeScale: number): string {
  const dir = tempDir();
  cpSync(path.join(ROOT, "manifests/campaign.yaml"), path.join(dir, "campaign.yaml"));
  cpSync(path.join(ROOT, "manifests/refs"), path.join(dir, "refs"), { recursive: true });
  const gwrun = [
    "env -u CI NO_COLOR=1 GW_API_KEY=test-key",
    `GWRUN_SIM_TIME_SCALE=${timeScale}`,
    `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, "bin/gwrun.js"))}`,
    `campaign.yaml --db ${JSON.stringify(path.join(dir, "gwrun.db"))}`,
  ].join(" ");
  session = startTmux(gwrun, { cwd: dir, columns: 120, rows: 40 });
  return dir;
}

const tmux = (...args: string[]) => (session as TmuxSession).tmux(...args);
const watch: TmuxSession["watch"] = (...args) => (session as TmuxSession).watch(...args);

/** A line of whole stage counts ("name N" or "name N (…)", two spaces apart), one of them post-processing. */
const STAGE_LINE_WITH_POST_PROCESSING =
  /^(?:[a-z-]+ \d+(?: \([^)]*\))? {2})*post-processing \d+(?: {2}[a-z-]+ \d+(?: \([^)]*\))?)*$/;

describe.runIf(runsWith("tmux"))("the dashboard in a terminal (tmux)", () => {
  afterEach(() => {
    session?.close();
    session = undefined;
  });

  it("appears, progresses, and leaves the final summary on screen", async () => {
    const dir = startCampaign(60);
    const progress = new Set<string>();
    const seen = (text: string) => {
      const match = /\d+% (\d+)\/(\d+)/.exec(text);
      if (match !== null && !text.includes("gwrun exited")) progress.add(match[0]);
    };
    const first = await watch((text) => text.includes("spring-campaign · run 1"), seen);
    expect(first).toContain("q or Ctrl-C: stop");
    // the demo runs offline on the built-in simulator, and the header says so.
    expect(first).toMatch(/^SIMULATOR · spring-campaign · run 1 · /m);
    expect(first).toMatch(
      /queued \d+ {2}submitting \d+ {2}(waiting \d+ \(first poll in \d+s\) {2})?running \d+ \(avg \d+%\)/,
    );
    expect(first).toMatch(/hero\s+image-a\s+[█░]+ \d\/2/);
    const last = await watch((text) => text.includes("gwrun exited"), seen);
    // At least two different moments of the run were on screen before its end.
    expect(progress.size).toBeGreaterThanOrEqual(2);
    expect(last).toContain("gwrun exited 0");
    expect(last).toMatch(/100% 11\/11/);
    expect(last).toMatch(/teaser\s+video-1\s+█+ 2\/2/);
    expect(last).toMatch(
      /run 1 done after \d+s: 11 tasks, 11 done; paid [\d.]+ of 25[,;][^\n]*\n?[^\n]*outputs in data\/outputs\/spring-campaign/,
    );
    expect(last).not.toContain("q or Ctrl-C: stop");
    const db = readFileSync(path.join(dir, "gwrun.db"));
    expect(db.includes(Buffer.from("test-key"))).toBe(false);
  });

  it("redraws for a narrower terminal, then stops gracefully on a second q", async () => {
    startCampaign(4);
    await watch((text) => /done [1-9]/.test(text) && text.includes("q or Ctrl-C: stop"));
    tmux("resize-window", "-t", "run", "-x", "50", "-y", "30");
    // The stage counts are packed again for 50 columns, not cut or wrapped mid-word.
    // (Which parts share a line depends on the moment: waiting tasks add a part.)
    await watch((text) =>
      text
        .split("\n")
        .some((line) => line.length <= 50 && STAGE_LINE_WITH_POST_PROCESSING.test(line)),
    );
    tmux("send-keys", "-t", "run", "q");
    await watch((text) => text.includes("press q again to stop"));
    tmux("send-keys", "-t", "run", "q");
    const last = await watch((text) => text.includes("gwrun exited"));
    expect(last).toContain("gwrun exited 130");
    // The summary wraps at word boundaries on 50 columns.
    expect(last).toMatch(/run 1 interrupted after \d+s:\s+\d+\s+tasks,\s+\d+\s+done/);
    expect(last).toMatch(/next: gwrun resume 1/);
    expect(last).toMatch(/^SIMULATOR · spring-\S* · interrupted · paid/m);
  });
});
