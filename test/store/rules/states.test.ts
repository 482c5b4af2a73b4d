import { afterEach, describe, expect, it } from "vitest";
import {
  IN_FLIGHT_STATES,
  PAID_STATES,
  type PgStore,
  TaskState,
} from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";

/**
 * The states a task counts in against a budget and a lane's cap, as TypeScript lists them
 * (`src/store/states.ts`) and as the fleet's SQL does (`gwrun_in_flight`, `gwrun_paid`).
 */

afterEach(closeFleetStores);

describe("the states a task counts in", () => {
  it("are the same in SQL as in TypeScript, for every state", async () => {
    const { stores } = await fleet(1, 0);
    const states = Object.values(TaskState);
    const { rows } = await (stores[0] as PgStore).pool.query<{
      state: string;
      in_flight: boolean;
      paid: boolean;
    }>(
      "SELECT s AS state, gwrun_in_flight(s) AS in_flight, gwrun_paid(s) AS paid FROM unnest($1::text[]) s",
      [states],
    );
    expect(rows).toEqual(
      states.map((state) => ({
        state,
        in_flight: IN_FLIGHT_STATES.includes(state),
        paid: PAID_STATES.includes(state),
      })),
    );
    expect(rows.filter((row) => row.in_flight)).toHaveLength(3);
  });
});
