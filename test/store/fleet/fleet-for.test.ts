import { describe, expect, it } from "vitest";
import { fleetFor } from "../../../src/fleet/index.js";
import { openStoreOf } from "../../helpers/store.js";

/** Which runs a fleet works: the one rule `gwrun run` asks before it records a run. */
describe("the fleet or this process", () => {
  it("leaves a run on a SQLite store to this process, and refuses --detach there", async () => {
    const { store } = await openStoreOf("sqlite");
    try {
      expect(fleetFor(store, "https://gw.example", false)).toBeUndefined();
      expect(() => fleetFor(store, "https://gw.example", true)).toThrow(
        /--detach needs a PostgreSQL store/,
      );
    } finally {
      await store.close();
    }
  });

  it("gives a PostgreSQL run against a real gateway to the fleet, and keeps the simulator local", async () => {
    const { store } = await openStoreOf("postgres");
    try {
      expect(fleetFor(store, "https://gw.example", true)).toBe(store);
      expect(fleetFor(store, "sim", false)).toBeUndefined();
      expect(() => fleetFor(store, "sim", true)).toThrow(
        /--detach needs a gateway every worker reaches/,
      );
    } finally {
      await store.close();
    }
  });
});
