// Runs a manifest through gwrun's API and prints its progress: by default the demo campaign,
// whose `base_url` falls back to "sim", the built-in simulator (offline, free).
//   node examples/run-campaign.mjs [manifest.yaml]
import { fileURLToPath } from "node:url";
import { diagnosticText, plan, run, status, validate } from "gwrun";

const manifest =
  process.argv[2] ?? fileURLToPath(new URL("../manifests/campaign.yaml", import.meta.url));

const checked = await validate(manifest);
for (const diagnostic of checked.diagnostics)
  console.error(diagnosticText(diagnostic, checked.text));
if (!checked.valid) process.exit(2);
console.log(`${checked.name}: ${checked.jobs} jobs, ${checked.tasks} tasks`);

const planned = await plan(manifest);
console.log(
  `new: ${planned.plan.totals.status.new}, estimated cost of new: ${planned.plan.totals.newCost}`,
);

// The API key comes from GW_API_KEY unless given as `apiKey`; the simulator takes any.
const handle = run(manifest, { apiKey: process.env.GW_API_KEY });
process.once("SIGINT", () => handle.stop());
for await (const event of handle) {
  if (event.type === "run:started") console.log(`run ${event.runId}: ${event.tasks} tasks`);
  if (event.type === "task:done") console.log(`done: ${event.label}`);
  if (event.type === "task:failed") console.log(`failed: ${event.label}: ${event.reason}`);
}
const outcome = await handle;
console.log(`ended: ${outcome.result?.end}, exit code ${outcome.exitCode}`);

const record = await status(outcome.runId);
console.log(`states: ${JSON.stringify(record.states)}; outputs in ${record.run.output_dir}`);
process.exitCode = outcome.exitCode;
