import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { dashboardReporter } from "../../src/ui/dashboard-reporter.js";
import { Q_AGAIN_MS } from "../../src/ui/stop-keys.js";
import { started } from "./script.js";

/** A terminal for Ink to draw on and read keys from, as the test drives it. */
function terminal() {
  const stream = Object.assign(new EventEmitter(), {
    columns: 80,
    rows: 24,
    write: () => true,
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
  return { stream, stdin, press };
}

describe("the dashboard's stop keys", () => {
  it("item 5: q stops only when pressed again within a few seconds, no other key between; Ctrl-C at once", async () => {
    const { stream, stdin, press } = terminal();
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
