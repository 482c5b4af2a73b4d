import { cpSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gwrun, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { runsWith } from "../../helpers/system-tools.js";
import { COLOUR_SGR, startTmux, type TmuxSession } from "../../helpers/tmux.js";

/** gwrun as typed in a shell, with `env` before it; CI is unset so the dashboard is drawn. */
const command = (env: string, args: string) =>
  `env -u CI -u NO_COLOR -u FORCE_COLOR ${env} GW_API_KEY=test-key ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, "bin/gwrun.js"))} ${args}`;

/** A temp copy of the campaign manifest and its reference images. */
function campaignDir(): string {
  const dir = tempDir();
  cpSync(path.join(ROOT, "manifests/campaign.yaml"), path.join(dir, "campaign.yaml"));
  cpSync(path.join(ROOT, "manifests/refs"), path.join(dir, "refs"), { recursive: true });
  return dir;
}

let session: TmuxSession | undefined;

describe.runIf(runsWith("tmux"))("gwrun in a terminal as people have them (tmux)", () => {
  afterEach(() => {
    session?.close();
    session = undefined;
  });

  /** The dashboard's screens, with their escapes, from its first frame until a job is done. */
  async function dashboardScreens(env: string): Promise<string[]> {
    const dir = campaignDir();
    session = startTmux(command(`${env} GWRUN_SIM_TIME_SCALE=20`, "campaign.yaml"), {
      cwd: dir,
      columns: 100,
      rows: 40,
    });
    const screens: string[] = [];
    const shown = session;
    await shown.watch(
      (text) => /█+ \d\/\d/.test(text) && text.includes("done "),
      () => screens.push(shown.screen(true)),
    );
    screens.push(shown.screen(true));
    return screens;
  }

  it("with NO_COLOR=1 no colour reaches the terminal from the dashboard", async () => {
    const screens = await dashboardScreens("NO_COLOR=1");
    expect(screens.join("\n")).toContain("spring-campaign · run 1");
    for (const screen of screens) expect(screen).not.toMatch(COLOUR_SGR);
  });

  it("without NO_COLOR the same dashboard is in colour, and FORCE_COLOR=0 turns it off", async () => {
    const coloured = await dashboardScreens("TERM=screen");
    expect(coloured.some((screen) => COLOUR_SGR.test(screen))).toBe(true);
    session?.close();
    const plain = await dashboardScreens("FORCE_COLOR=0");
    for (const screen of plain) expect(screen).not.toMatch(COLOUR_SGR);
  });

  it("plan and status fit an 80-column terminal: no line is wider", async () => {
    const dir = campaignDir();
    const db = path.join(dir, "gwrun.db");
    session = startTmux(
      [
        command("GWRUN_SIM_TIME_SCALE=100", `campaign.yaml --quiet --db ${db} >/dev/null 2>&1`),
        command("", `plan campaign.yaml --db ${db}`),
        command("", `status --db ${db}`),
      ].join("; "),
      { cwd: dir, columns: 80, rows: 80 },
    );
    const shown = session;
    await shown.watch((text) => text.includes("gwrun exited"));
    // Joined: a line the terminal wrapped comes back whole.
    const screen = shown.tmux("capture-pane", "-p", "-J", "-t", "run");
    expect(screen).toContain("plan: spring-campaign");
    expect(screen).toMatch(/^ {2}hero · image family A · acme-image-2$/m);
    expect(screen).toMatch(/^ {4}2 tasks, 2 images: 0 new, 2 done; cost of new 0\.00$/m);
    expect(screen).toMatch(/^run 1: spring-campaign — done/m);
    expect(screen).toMatch(/^ {2}teaser · video-1$/m);
    const lines = screen.split("\n").map((line) => line.trimEnd());
    const wide = lines.filter((line) => [...line].length > 80);
    expect(wide).toEqual([]);
  });
});

describe("colour of diagnostics", () => {
  const bad = "test/fixtures/bad-manifests/unknown-key.yaml";

  it("FORCE_COLOR=1 colours them under a pipe, even with NO_COLOR set", async () => {
    const forced = await gwrun(["validate", bad], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toMatch(COLOUR_SGR);
    const piped = await gwrun(["validate", bad], { env: { NO_COLOR: "" } });
    expect(piped.stderr).toContain("unknown field");
    expect(piped.stderr).not.toContain("\u001b[");
  });
});
