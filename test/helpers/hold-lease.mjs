// A second process holding a manifest's lease in a state database, as another gwrun would:
// `node hold-lease.mjs DB NAME NOW_MS`. Prints "held" (or "busy"); a line on stdin releases
// the lease and exits.
import { hostname } from "node:os";
import { acquireLease, releaseLease, Store } from "../../dist/store/index.js";

const [db, name, now] = process.argv.slice(2);
const store = Store.open(db);
const holder = { id: `${hostname()}:${process.pid}:test`, host: hostname(), pid: process.pid };
const result = acquireLease(store, name, holder, Number(now), 30 * 86_400_000, () => false);
process.stdout.write(result.acquired ? "held\n" : "busy\n");
process.stdin.once("data", () => {
  releaseLease(store, name, holder.id);
  store.close();
  process.stdout.write("released\n");
  process.exit(0);
});
