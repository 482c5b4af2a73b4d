import { readFileSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { addSimCommand } from "../../../src/cli/sim.js";
import { ROOT } from "../../helpers/root.js";

describe("the simulator's flags", () => {
  it("every flag of gwrun sim, fault flags included, is documented in docs/simulator.md, which the README links", () => {
    const program = new Command();
    addSimCommand(program, () => {});
    const sim = program.commands.find((command) => command.name() === "sim");
    const flags = (sim?.options ?? []).map((option) => option.long as string);
    expect(flags).toContain("--duplicate-task-id-rate");
    const page = readFileSync(path.join(ROOT, "docs/simulator.md"), "utf8");
    const missing = flags.filter((flag) => !new RegExp(`\`${flag}[\` ]`).test(page));
    expect(missing).toEqual([]);
    expect(readFileSync(path.join(ROOT, "README.md"), "utf8")).toContain("(docs/simulator.md)");
  });
});
