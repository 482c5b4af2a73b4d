import { describe, expect, it } from "vitest";
import {
  dueTick,
  latestTick,
  nextTicks,
  outputDirOf,
  tickLabel,
  ticksBetween,
} from "../../../src/manifest/index.js";
import { initialTasks } from "../../../src/plan/index.js";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

const BERLIN_6AM = { cron: "0 6 * * *", timezone: "Europe/Berlin" };
const iso = (ms: number) => new Date(ms).toISOString();

describe("schedule ticks", () => {
  it("stays at 06:00 in Berlin across both daylight-saving changes", () => {
    const spring = nextTicks(BERLIN_6AM, Date.parse("2026-03-27T12:00:00Z"), 3).map(iso);
    expect(spring).toEqual([
      "2026-03-28T05:00:00.000Z",
      "2026-03-29T04:00:00.000Z",
      "2026-03-30T04:00:00.000Z",
    ]);
    const autumn = nextTicks(BERLIN_6AM, Date.parse("2026-10-23T12:00:00Z"), 3).map(iso);
    expect(autumn).toEqual([
      "2026-10-24T04:00:00.000Z",
      "2026-10-25T05:00:00.000Z",
      "2026-10-26T05:00:00.000Z",
    ]);
  });

  it("runs a time the spring change skips once, and a time the autumn change repeats once", () => {
    const at230 = { cron: "30 2 * * *", timezone: "Europe/Berlin" };
    const spring = ticksBetween(
      at230,
      Date.parse("2026-03-28T12:00Z"),
      Date.parse("2026-03-30T12:00Z"),
    );
    expect(spring.ticks.map(iso)).toEqual(["2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"]);
    const autumn = ticksBetween(
      at230,
      Date.parse("2026-10-24T12:00Z"),
      Date.parse("2026-10-26T12:00Z"),
    );
    expect(autumn.ticks).toHaveLength(2);
  });

  it("finds the latest tick due, and names it in the schedule's zone", () => {
    const tick = latestTick(BERLIN_6AM, Date.parse("2026-11-23T04:59:59Z")) as number;
    expect(iso(tick)).toBe("2026-11-22T05:00:00.000Z");
    expect(tickLabel(tick, BERLIN_6AM)).toBe("2026-11-22T0600");
    const late = { cron: "30 23 * * *", timezone: "America/New_York" };
    const evening = latestTick(late, Date.parse("2026-11-23T12:00Z")) as number;
    expect(iso(evening)).toBe("2026-11-23T04:30:00.000Z");
    expect(tickLabel(evening, late)).toBe("2026-11-22T2330");
    const seconds = { cron: "*/20 * * * * *", timezone: "UTC" };
    expect(tickLabel(Date.parse("2026-11-23T06:00:40Z"), seconds)).toBe("2026-11-23T060040");
  });

  it("a run asked for seconds before a tick belongs to it; a minute before, to the last one", () => {
    const at = (text: string) => dueTick(BERLIN_6AM, Date.parse(text));
    expect(at("2026-11-24T04:59:59Z")).toEqual({
      tick: Date.parse("2026-11-24T05:00Z"),
      due: true,
    });
    expect(at("2026-11-24T04:59:00Z")).toEqual({
      tick: Date.parse("2026-11-23T05:00Z"),
      due: true,
    });
    // Every 10 s: early by at most a tenth of the gap (1 s) belongs to the coming tick.
    const every10s = { cron: "*/10 * * * * *", timezone: "UTC" };
    expect(dueTick(every10s, Date.parse("2026-11-24T06:00:09.5Z"))?.tick).toBe(
      Date.parse("2026-11-24T06:00:10Z"),
    );
    expect(dueTick(every10s, Date.parse("2026-11-24T06:00:08Z"))?.tick).toBe(
      Date.parse("2026-11-24T06:00:00Z"),
    );
    // No tick in the past year: the next one, not due yet.
    const leap = { cron: "0 6 29 2 *", timezone: "UTC" };
    expect(dueTick(leap, Date.parse("2026-11-23T06:00Z"))).toEqual({
      tick: Date.parse("2028-02-29T06:00Z"),
      due: false,
    });
  });

  it("keeps only the newest ticks of a long outage, and says how many it left out", () => {
    const everyMinute = { cron: "* * * * *", timezone: "UTC" };
    const start = Date.parse("2026-11-01T00:00Z");
    const { ticks, dropped } = ticksBetween(everyMinute, start, start + 3_600_000, 10);
    expect(ticks).toHaveLength(10);
    expect(dropped).toBe(50);
    expect(iso(ticks.at(-1) as number)).toBe("2026-11-01T01:00:00.000Z");
  });
});

const scheduled = (schedule: string, rest = "") => `version: 1
name: morning
schedule: ${schedule}
output: { dir: "out/{name}/{date}" }
${rest}jobs:
  - id: hero
    model: acme-image-2
    prompt: "Front page for {{date}}, edition {{tick}}"
`;

describe("scheduled manifests", () => {
  it("gives each tick its own {{date}}, {{tick}}, output folder and task keys", async () => {
    const manifest = scheduled('{ cron: "0 6 * * *", timezone: "Europe/Berlin" }');
    const monday = await checkInline(manifest, {}, {}, Date.parse("2026-11-23T09:00Z"));
    const again = await checkInline(manifest, {}, {}, Date.parse("2026-11-24T04:59Z"));
    const tuesday = await checkInline(manifest, {}, {}, Date.parse("2026-11-24T05:00Z"));
    expect(errorsOf(monday)).toEqual([]);
    expect(monday.jobs[0]?.body.prompt).toBe("Front page for 2026-11-23, edition 2026-11-23T0600");
    expect(tuesday.jobs[0]?.body.prompt).toBe("Front page for 2026-11-24, edition 2026-11-24T0600");
    const settings = monday.expanded.settings;
    expect(settings?.schedule).toEqual({
      cron: "0 6 * * *",
      timezone: "Europe/Berlin",
      overlap: "skip",
      catchUp: "latest",
      keepRuns: undefined,
    });
    expect(outputDirOf(settings as never, monday.expanded.moment)).toBe("out/morning/2026-11-23");
    const key = (checked: typeof monday) => initialTasks(checked.jobs)[0]?.key;
    // The same tick (asked for later the same day) is the same task; the next tick is not.
    expect(key(again)).toBe(key(monday));
    expect(key(tuesday)).not.toBe(key(monday));
  });

  it("puts the tick in task keys even when no field names it", async () => {
    const manifest = `version: 1
schedule: { cron: "0 6 * * *", timezone: "UTC" }
output: { dir: "out/{tick}" }
jobs: [{ id: a, model: acme-image-2, prompt: same every day }]
`;
    const first = await checkInline(manifest, {}, {}, Date.parse("2026-11-23T07:00Z"));
    const second = await checkInline(manifest, {}, {}, Date.parse("2026-11-24T07:00Z"));
    expect(first.jobs[0]?.body).toEqual(second.jobs[0]?.body);
    expect(initialTasks(first.jobs)[0]?.key).not.toBe(initialTasks(second.jobs)[0]?.key);
  });

  it("points at a broken cron expression, an unknown zone and a wrong policy", async () => {
    const checked = await checkInline(
      scheduled('{ cron: "0 6 * *", timezone: Europe/Berlín, overlap: queue, catch_up: some }'),
    );
    expect(errorsOf(checked)).toEqual(["3:19 cron", "3:40 timezone", "3:64 enum", "3:81 enum"]);
    const messages = checked.diagnostics.map((d) => d.message).join("\n");
    expect(messages).toMatch(/not a cron expression: .*five or six/);
    expect(messages).toMatch(/unknown time zone "Europe\/Berlín"/);
  });

  it("says {{tick}} needs a schedule, and warns when every tick writes into one folder", async () => {
    const unscheduled = await checkInline(`version: 1
output: { dir: "out/{tick}" }
jobs: [{ id: a, model: acme-image-2, prompt: "for {{date}}, {{tick}}" }]
`);
    expect(errorsOf(unscheduled)).toEqual(["2:16 undefined-variable", "3:61 undefined-variable"]);
    expect(unscheduled.diagnostics[1]?.message).toMatch(/only a manifest with schedule: has one/);
    const shared = await checkInline(`version: 1
schedule: { cron: "0 6 * * *" }
output: { dir: out }
jobs: [{ id: a, model: acme-image-2, prompt: x }]
`);
    expect(errorsOf(shared)).toEqual([]);
    const single = await checkInline(`version: 1
schedule: { cron: "0 6 * * *" }
output: { dir: "out/{date}" }
jobs: [{ id: a, model: acme-image-2, prompt: "news for {date}, {{tick}}" }]
`);
    expect(single.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.rule}`)).toEqual([
      "4:56 warning template-braces",
    ]);
    expect(single.diagnostics[0]?.message).toBe(
      "{date} would be sent as written: in job fields, write {{date}}",
    );
    expect(shared.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.rule}`)).toEqual([
      "3:16 warning schedule-output",
    ]);
  });
});
