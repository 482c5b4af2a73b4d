import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { Q_AGAIN_MS } from "../../../src/ui/stop-keys.js";
import { started } from "../../helpers/ui-script.js";

// Under CI, Ink draws nothing until the end (gwrun prints plain lines there): this file loads
// Ink as a terminal user would have it.
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
const { dashboardReporter, drawDue } = await import("../../../src/ui/dashboard-reporter.js");

/** A terminal for Ink to draw on and read keys from, as the test drives it. */
function terminal() {
  let screen = "";
  const stream = Object.assign(new EventEmitter(), {
    columns: 80,
    rows: 24,
    write: (text: string) => {
      screen += text;
      return true;
    },
  });
  let pending: string | null = null;
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: true,
    setEncoding() {},
    setRawMode() {},
    resume() {},
    pause() {},
    ref() {},
    unref() {},
    read: () => {
      const data = pending;
      pending = null;
      return data;
    },
  });
  const press = (key: string) => {
    pending = key;
    stdin.emit("readable");
  };
  return { stream, stdin, press, screen: () => screen };
}

describe("the dashboard's frames", () => {
  it("a slow first frame holds the screen back a second at most, not for seconds", () => {
    // The first frame warms React and the layout up: 127 ms was seen on a real terminal.
    const slow = { changed: true, urgent: false, costMs: 127 };
    expect(drawDue({ ...slow, sinceMs: 500 })).toBe(false);
    expect(drawDue({ ...slow, sinceMs: 1000 })).toBe(true);
    // Cheap frames come as often as something changes; the clocks tick each second.
    const cheap = { urgent: false, costMs: 1 };
    expect(drawDue({ ...cheap, changed: true, sinceMs: 100 })).toBe(true);
    expect(drawDue({ ...cheap, changed: false, sinceMs: 999 })).toBe(false);
    expect(drawDue({ ...cheap, changed: false, sinceMs: 1000 })).toBe(true);
    // A resize or a key press is drawn at once.
    expect(drawDue({ ...slow, urgent: true, sinceMs: 0 })).toBe(true);
  });
});

describe("the dashboard's stop keys", () => {
  it("q stops only when pressed again within a few seconds, no other key between; Ctrl-C at once", async () => {
    const { stream, stdin, press, screen } = terminal();
    let now = 1_000_000;
    let stops = 0;
    const reporter = dashboardReporter({
      stream: stream as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      now: () => now,
      cwd: "/work",
      onStop: () => {
        stops += 1;
      },
      galleryExists: () => false,
    });
    try {
      reporter.emit(started({ a: 2 }));
      // The dashboard draws on its own timer, holding frames back after a slow one by the
      // clock it is given: let that clock move while waiting for the running screen.
      await vi.waitFor(
        () => {
          now += 250;
          expect(screen()).toContain("q or Ctrl-C: stop");
        },
        { timeout: 10_000, interval: 50 },
      );
      press("q");
      expect(stops).toBe(0);
      now += Q_AGAIN_MS + 1;
      press("q");
      expect(stops).toBe(0);
      press("x");
      press("q");
      expect(stops).toBe(0);
      now += Q_AGAIN_MS - 1;
      press("q");
      expect(stops).toBe(1);
      press("\u0003");
      expect(stops).toBe(2);
    } finally {
      await reporter.close();
    }
  });
});
