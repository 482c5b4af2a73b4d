// The stages of src/ and what each may import, written into biome.json's `overrides` as
// `noRestrictedImports` rules: `npm run stages` rewrites them, and `--check` (part of
// `npm run lint`) fails when biome.json differs from what this list makes.
// docs/architecture.md describes the stages; this list is where their order is kept.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Each stage of src/ in order, with the stages it uses (src/core is everyone's). */
const USES = {
  core: [],
  media: [],
  gateway: [],
  store: [],
  manifest: [],
  families: ["media", "gateway", "manifest"],
  plan: ["store", "manifest", "families"],
  engine: ["gateway", "store", "manifest", "families", "plan"],
  postprocess: ["media", "store", "manifest", "families", "engine"],
  publish: ["store", "manifest", "families", "plan", "engine", "postprocess"],
  ui: ["engine"],
  view: ["store", "manifest", "postprocess", "publish"],
  schedule: ["store", "manifest"],
  watch: ["media", "store", "manifest", "postprocess", "schedule"],
  sim: ["media", "families"],
  run: [
    "gateway",
    "store",
    "manifest",
    "families",
    "plan",
    "engine",
    "postprocess",
    "publish",
    "sim",
  ],
  fleet: ["store", "manifest", "families", "engine", "postprocess", "publish", "run"],
  // The API, the agents' server and the command line use every stage before them.
  api: "earlier",
  mcp: "earlier",
  cli: "earlier",
};

const ORDER = Object.keys(USES);

/** What each stage uses, "earlier" spelled out. */
export const STAGES = Object.fromEntries(
  ORDER.map((stage, index) => [
    stage,
    USES[stage] === "earlier" ? ORDER.slice(1, index) : USES[stage],
  ]),
);

/** The one stage that runs programs. */
const RUNS_PROGRAMS = "media";

const names = Object.keys(STAGES);
const both = (stage, tail) => [`../${stage}/${tail}`, `../../${stage}/${tail}`];

/** The override of one stage: other stages through their index only, unused ones not at all. */
function overrideOf(stage) {
  const others = names.filter((name) => name !== stage && name !== "core");
  const patterns = [
    {
      group: [
        ...others.flatMap((name) => both(name, "*")),
        ...others.flatMap((name) => both(name, "index.js").map((entry) => `!${entry}`)),
      ],
      message: "Another stage is reached through its index.js only: its other files are its own.",
    },
    ...names
      .filter((name) => name !== stage && name !== "core" && !STAGES[stage].includes(name))
      .map((name) => ({
        group: both(name, "*"),
        message: `src/${stage} does not use src/${name}: what each stage uses is listed in scripts/biome-stages.mjs (docs/architecture.md).`,
      })),
  ];
  const options = { patterns };
  if (stage !== RUNS_PROGRAMS) {
    const why = "Programs run from src/media/ only (one chokepoint).";
    options.paths = { "node:child_process": why, child_process: why };
  }
  return {
    includes: [`src/${stage}/**`],
    linter: { rules: { style: { noRestrictedImports: { level: "error", options } } } },
  };
}

/** biome.json with the stage rules this list makes, as text. */
export function biomeWithStages(text) {
  const config = JSON.parse(text);
  config.overrides = names.map(overrideOf);
  return `${JSON.stringify(config, null, 2)}\n`;
}

const file = fileURLToPath(new URL("../biome.json", import.meta.url));
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const now = readFileSync(file, "utf8");
  const made = biomeWithStages(now);
  if (process.argv.includes("--check")) {
    if (JSON.stringify(JSON.parse(now)) !== JSON.stringify(JSON.parse(made))) {
      console.error("biome.json's stage rules are stale: run node scripts/biome-stages.mjs");
      process.exit(1);
    }
  } else writeFileSync(file, made);
}
