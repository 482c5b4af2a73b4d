// Submits plus task queries per second the simulator sustains on loopback. The simulator
// runs as `gwrun sim` in a process of its own; this process drives it through gwrun's own
// client with many requests in flight, as the engine would.
import { spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { GatewayClient } from "../dist/gateway/index.js";

const root = path.dirname(import.meta.dirname);
const TOTAL = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = 64;

const child = spawn(process.execPath, [path.join(root, "bin/gwrun.js"), "sim", "--port", "0"], {
  stdio: ["ignore", "pipe", "ignore"],
});
const url = await new Promise((resolve, reject) => {
  let text = "";
  child.stdout.on("data", (chunk) => {
    text += chunk;
    const match = /^(http:\/\/\S+)\n/m.exec(text);
    if (match) resolve(match[1]);
  });
  child.once("exit", (code) => reject(new Error(`gwrun sim exited with ${code}`)));
});

const client = new GatewayClient({ baseUrl: url, apiKey: "bench" });
const taskIds = [];
let submits = 0;
let queries = 0;
const latencies = [];

async function worker(worker) {
  for (let i = worker; i < TOTAL; i += CONCURRENCY) {
    const started = performance.now();
    // Every other call is a submit; the rest query a task submitted earlier.
    if (i % 2 === 0 || taskIds.length === 0) {
      const receipt = await client.submit("/v1/images/generations", {
        model: "acme-image-2",
        prompt: `a ceramic mug, variant ${i}`,
        size: "16:9",
      });
      taskIds.push(receipt.taskId);
      submits += 1;
    } else {
      await client.getTask(taskIds[i % taskIds.length]);
      queries += 1;
    }
    latencies.push(performance.now() - started);
  }
}

// Warm up connections and code paths before measuring.
await Promise.all(
  Array.from({ length: CONCURRENCY }, (_, w) =>
    client.submit("/v1/images/generations", { model: "acme-image-2", prompt: `warm ${w}` }),
  ),
);
const start = performance.now();
await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
const seconds = (performance.now() - start) / 1000;
latencies.sort((a, b) => a - b);
const at = (q) => Math.round(latencies[Math.floor(q * (latencies.length - 1))] * 10) / 10;
console.log(
  JSON.stringify({
    bench: "sim-throughput",
    requests: submits + queries,
    submits,
    task_queries: queries,
    in_flight: CONCURRENCY,
    requests_per_s: Math.round((submits + queries) / seconds),
    target_requests_per_s: 2000,
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  }),
);
await client.close();
child.kill("SIGINT");
