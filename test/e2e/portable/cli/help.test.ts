import { describe, expect, it } from "vitest";
import { ExitCode } from "../../../../src/api/index.js";
import { gwrun } from "../../../helpers/cli.js";

describe("gwrun --help", () => {
  it("shows the gwrun <manifest> shorthand, three examples and the exit codes", async () => {
    const result = await gwrun(["--help"]);
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toContain("gwrun <manifest> [options]");
    expect(text).toContain("gwrun manifests/campaign.yaml");
    expect(text).toContain("gwrun plan manifests/campaign.yaml");
    expect(text).toContain("gwrun retry --failed");
    for (const code of Object.values(ExitCode))
      expect(text).toMatch(new RegExp(`^ +${code} `, "m"));
    expect(text).toMatch(/^ +4 .*lease/m);
    expect(text).toMatch(/^ +3 .*budget/m);
  });

  it("an unknown option prints the did-you-mean and one usage line, not the whole help, and exits 2", async () => {
    const result = await gwrun(["run", "manifests/campaign.yaml", "--jsn"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("unknown option '--jsn'");
    expect(result.stderr).toContain("(Did you mean --json?)");
    expect(result.stderr).toContain(
      "usage: gwrun run [options] <manifest>; gwrun run --help for more",
    );
    expect(result.stderr).not.toContain("Options:");
    // The error, commander's did-you-mean, then the one usage line.
    expect(result.stderr.trim().split("\n")).toHaveLength(3);
  });

  it("the shorthand's unknown option names the run command's usage", async () => {
    const result = await gwrun(["manifests/campaign.yaml", "--quiett"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("(Did you mean --quiet?)");
    expect(result.stderr).toContain("usage: gwrun run [options] <manifest>");
    expect(result.stderr).not.toContain("Commands:");
  });
});
