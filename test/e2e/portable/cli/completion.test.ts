import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";
import { runsWith } from "../../../helpers/system-tools.js";

/** The script `gwrun completion <shell>` prints, saved to a file. */
async function script(shell: string): Promise<string> {
  const result = await gwrun(["completion", shell]);
  expect(result.code).toBe(0);
  const file = path.join(tempDir(), `gwrun.${shell}`);
  writeFileSync(file, result.stdout);
  return file;
}

/** What bash offers for the words typed so far (the last one being completed). */
function bashOffers(file: string, ...typed: string[]): string[] {
  const words = typed.map((word) => `'${word}'`).join(" ");
  const result = spawnSync(
    "bash",
    [
      "-c",
      `source '${file}'; COMP_WORDS=(gwrun ${words}); COMP_CWORD=${typed.length}; _gwrun; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { encoding: "utf8" },
  );
  expect(result.stderr).toBe("");
  return result.stdout.split("\n").filter((line) => line !== "");
}

describe("gwrun completion", () => {
  it("the bash script is accepted by bash -n and completes commands and flags from the CLI's own table", async () => {
    const file = await script("bash");
    expect(spawnSync("bash", ["-n", file]).status).toBe(0);
    expect(bashOffers(file, "va")).toEqual(["validate"]);
    expect(bashOffers(file, "validate", "--js").sort()).toEqual(["--json", "--jsonl"]);
    expect(bashOffers(file, "store", "")).toEqual(["migrate"]);
    expect(bashOffers(file, "completion", "")).toEqual(["bash", "zsh", "fish"]);
    // gwrun <manifest> is gwrun run <manifest>: the run's flags.
    expect(bashOffers(file, "campaign.yaml", "--qu")).toEqual(["--quiet"]);
    // A flag's value is left to the shell's file completion.
    expect(bashOffers(file, "plan", "--db", "")).toEqual([]);
  });

  it.runIf(runsWith("zsh"))("the zsh script is accepted by zsh -n", async () => {
    const file = await script("zsh");
    const result = spawnSync("zsh", ["-n", file], { encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.status === 0 && (await gwrun(["completion", "zsh"])).stdout).toContain(
      "'validate:check manifests' 'plan:show what a run would do against the state database'",
    );
  });

  const fish = runsWith("fish");
  if (!fish) console.log("skipping the fish -n check: fish is not installed here");
  it.runIf(fish)("the fish script is accepted by fish -n", async () => {
    expect(spawnSync("fish", ["-n", await script("fish")]).status).toBe(0);
  });

  it("the fish script names every command and flag with its description", async () => {
    const text = (await gwrun(["completion", "fish"])).stdout;
    expect(text).toContain("complete -c gwrun -n '__fish_use_subcommand' -a 'validate'");
    expect(text).toMatch(/__fish_seen_subcommand_from validate' -l json -d/);
  });

  it("an unknown shell is refused with the ones there are, exit 2", async () => {
    const result = await gwrun(["completion", "tcsh"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("bash, zsh, fish");
  });
});
