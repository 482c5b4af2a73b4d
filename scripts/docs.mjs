// `npm run docs`: writes the generated pages of docs/ from what they describe: commands.md
// from the CLI's own command definitions (dist/: build first), performance.md from the
// figures `npm run bench` saved. A test fails when either is stale.
import { writeFileSync } from "node:fs";
import path from "node:path";
import {
  PERFORMANCE_DOC,
  RESULTS_FILE,
  readResults,
  renderPerformance,
} from "../bench/performance-doc.mjs";
import { renderCommandsMarkdown } from "../dist/cli/commands-doc.js";
import { buildProgram } from "../dist/cli/program.js";

const root = path.dirname(import.meta.dirname);
writeFileSync(path.join(root, "docs/commands.md"), renderCommandsMarkdown(buildProgram(() => {})));
writeFileSync(
  path.join(root, PERFORMANCE_DOC),
  renderPerformance(readResults(path.join(root, RESULTS_FILE))),
);
console.log(`wrote docs/commands.md and ${PERFORMANCE_DOC}`);
