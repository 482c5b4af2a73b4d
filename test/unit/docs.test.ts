import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  PERFORMANCE_DOC,
  parseResults,
  RESULTS_FILE,
  readResults,
  renderPerformance,
} from "../../bench/performance-doc.mjs";
import { COMMANDS_DOC_COMMAND, renderCommandsMarkdown } from "../../src/cli/commands-doc.js";
import { buildProgram } from "../../src/cli/program.js";
import { ROOT } from "../helpers/root.js";

const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

describe("docs/commands.md", () => {
  it("matches what `npm run docs` renders from the CLI's own command definitions", () => {
    const program = buildProgram(() => {});
    const expected = renderCommandsMarkdown(program);
    expect(
      read("docs/commands.md"),
      `docs/commands.md is stale: run \`${COMMANDS_DOC_COMMAND}\``,
    ).toBe(expected);
    // Every command and every one of its options is there, subcommands included.
    const store = program.commands.find((command) => command.name() === "store");
    const named = [
      ...program.commands.map((command) => [`gwrun ${command.name()}`, command] as const),
      ...(store?.commands ?? []).map(
        (command) => [`gwrun store ${command.name()}`, command] as const,
      ),
    ];
    for (const [name, command] of named) {
      const start = expected.indexOf(`## \`${name}\``);
      expect(start, name).toBeGreaterThan(0);
      const section = expected.slice(start).split("\n## ")[0];
      for (const option of command.options) expect(section).toContain(option.long as string);
    }
    expect(expected).toContain("## `gwrun store migrate`");
  });
});

describe("docs/performance.md", () => {
  it("matches what is rendered from the figures bench/results/latest.ndjson holds", () => {
    const results = readResults(path.join(ROOT, RESULTS_FILE));
    expect(results.length).toBeGreaterThan(0);
    expect(
      read(PERFORMANCE_DOC),
      `${PERFORMANCE_DOC} is stale or edited by hand: run \`npm run docs\``,
    ).toBe(renderPerformance(results));
    for (const line of results) {
      const measured = line.measured as { date: string; commit: string; machine: string };
      expect(measured.date).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(measured.commit).not.toBe("");
      expect(measured.machine).toContain("cores");
    }
  });

  it("shows a benchmark's saved figures, and says so of one that has none", () => {
    const measured = { date: "2026-01-02", commit: "abc1234", machine: "2 cores (x), 4 GB" };
    const page = renderPerformance(
      parseResults(
        `${JSON.stringify({ bench: "run-10k-images", jobs_per_s: 777, target_jobs_per_s: 1000, measured })}\n`,
      ),
    );
    const section = (name: string) => page.slice(page.indexOf(`## ${name}\n`)).split("\n## ")[0];
    expect(section("run-10k-images")).toContain("| jobs_per_s | `777` |");
    expect(section("run-10k-images")).toContain("Measured 2026-01-02 at commit abc1234");
    expect(section("fleet-pg-10k")).toContain("Not measured in this file");
    expect(section("fleet-pg-10k")).toContain("fleet_over_single` 0.5");
  });
});

/** Relative links of a Markdown file: [text](target), without web and mail links. */
function relativeLinks(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/i.test(target));
}

/** GitHub's anchors of a Markdown file's headings. */
function anchorsOf(text: string): Set<string> {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "");
  return new Set(
    [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
      (match[1] as string)
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replaceAll(" ", "-"),
    ),
  );
}

describe("links in the README and docs/", () => {
  it("every relative link points at a file that exists, and at a heading it has", () => {
    const files = [
      "README.md",
      ...readdirSync(path.join(ROOT, "docs")).map((name) => `docs/${name}`),
    ];
    const broken: string[] = [];
    for (const file of files.filter((name) => name.endsWith(".md"))) {
      for (const link of relativeLinks(read(file))) {
        const [target = "", anchor] = link.split("#");
        const resolved = target === "" ? file : path.join(path.dirname(file), target);
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${link} (no such file)`);
        else if (anchor !== undefined && resolved.endsWith(".md"))
          if (!anchorsOf(read(resolved)).has(anchor))
            broken.push(`${file}: ${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README stays a page for users, at most 15,000 bytes", () => {
    expect(Buffer.byteLength(read("README.md"))).toBeLessThanOrEqual(15_000);
  });
});
