import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/** The Chromium the gallery test drives; CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Tests that drive a program of the system (Debian's chromium, tmux) run where it is
 * installed, and always under CI, whose `.ci/run` installs both: there a missing program fails
 * its test instead of skipping it.
 */
export function runsWith(program: string): boolean {
  const ci = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI);
  return ci || installed(program);
}

function installed(program: string): boolean {
  if (program.includes("/")) return existsSync(program);
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}

/**
 * What `npm test` says when it skips the gallery (Chromium) or dashboard (tmux) tests, with how
 * to install what is missing; undefined when nothing is skipped.
 */
export function skippedTestsNotice(missing: {
  chromium: boolean;
  tmux: boolean;
}): string | undefined {
  const skipped = [
    ...(missing.chromium
      ? [
          {
            test: `the gallery test (no Chromium at ${CHROMIUM}; CHROMIUM_PATH names another)`,
            pkg: "chromium",
          },
        ]
      : []),
    ...(missing.tmux ? [{ test: "the dashboard test (no tmux)", pkg: "tmux" }] : []),
  ];
  if (skipped.length === 0) return undefined;
  return [
    `gwrun tests: skipping ${skipped.map(({ test }) => test).join(" and ")}.`,
    `  To run ${skipped.length === 1 ? "it" : "them"} on Debian: sudo apt-get install ${skipped.map(({ pkg }) => pkg).join(" ")}`,
  ].join("\n");
}

/** The notice for this machine; under CI nothing is skipped, so it is undefined there. */
export function skippedTestsNoticeHere(): string | undefined {
  return skippedTestsNotice({ chromium: !runsWith(CHROMIUM), tmux: !runsWith("tmux") });
}
