// A second process holding a manifest's lease in a state database, as another gwrun would:
// `node hold-lease.mjs DB NAME NOW_MS`. Prints "held" (or "busy"); a line on stdin releases
// the lease and exits.
import { hostname } from "node:os";
import { openStore } from "../../dist/store/index.js";

const [db, name, now] = process.argv.slice(2);
const store = openStore(db);
const holder = { id: `${hostname()}:${process.pid}:test`, host: hostname(), pid: process.pid };
const result = await store.acquireLease(name, holder, Number(now), 30 * 86_400_000, () => false);
process.stdout.write(result.acquired ? "held\n" : "busy\n");
process.stdin.once("data", async () => {
  await store.releaseLease(name, holder.id);
  await store.close();
  process.stdout.write("released\n");
  process.exit(0);
});
