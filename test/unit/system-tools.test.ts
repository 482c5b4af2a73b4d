import { describe, expect, it } from "vitest";
import { CHROMIUM, skippedTestsNotice, skippedTestsNoticeHere } from "../helpers/system-tools.js";

describe("the notice of skipped system tests", () => {
  it("npm test names the skipped gallery and dashboard tests and how to install Chromium and tmux", () => {
    const notice = skippedTestsNotice({ chromium: true, tmux: true });
    expect(notice).toContain("the gallery test");
    expect(notice).toContain(CHROMIUM);
    expect(notice).toContain("the dashboard test");
    expect(notice).toContain("apt-get install chromium tmux");
  });

  it("names only what is missing, and says nothing when both are installed", () => {
    const notice = skippedTestsNotice({ chromium: false, tmux: true });
    expect(notice).not.toContain("gallery");
    expect(notice).toMatch(/apt-get install tmux$/);
    expect(skippedTestsNotice({ chromium: false, tmux: false })).toBeUndefined();
  });

  it("under CI nothing is skipped, so there is no notice even where both are missing", () => {
    const saved = { CI: process.env.CI, PATH: process.env.PATH };
    process.env.CI = "true";
    process.env.PATH = "/no/such/dir";
    try {
      expect(skippedTestsNoticeHere()).toBeUndefined();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
