import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { openPgStore, pgStoreUnusable, redactUrl } from "../../../src/store/index.js";
import { testDatabase } from "../../helpers/postgres.js";

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("a PostgreSQL store that cannot be used", () => {
  it("says no server answered, naming it without its password", async () => {
    const url = `postgres://gw:hunter2@127.0.0.1:${await deadPort()}/gwrun`;
    const error = await openPgStore(url).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "GW_STORE_UNUSABLE" });
    expect(String((error as Error).message)).toMatch(
      /^no PostgreSQL server answered at postgres:\/\/gw:\*\*\*@127\.0\.0\.1:\d+\/gwrun/,
    );
    expect(String((error as Error).message)).not.toContain("hunter2");
  });

  it("says the database does not exist", async () => {
    const url = new URL(await testDatabase());
    url.pathname = "/no_such_database";
    await expect(openPgStore(url.toString())).rejects.toThrow(
      /the database named in .*no_such_database does not exist \(3D000\)/,
    );
  });

  it("says a connection was lost, as a located error", () => {
    const lost = Object.assign(new Error("terminating connection"), { code: "57P01" });
    expect(pgStoreUnusable(lost, "postgres://gw:pw@db/gwrun")?.message).toBe(
      "the connection to PostgreSQL at postgres://gw:***@db/gwrun was lost (57P01)",
    );
    expect(pgStoreUnusable(new Error("a bug"), "postgres://db/gwrun")).toBeUndefined();
  });

  it("never shows a password, in the URL or its parameters", () => {
    expect(redactUrl("postgresql://u:p%40ss@h/d?password=x&sslmode=require")).toBe(
      "postgresql://u:***@h/d?password=***&sslmode=require",
    );
    expect(redactUrl("not a url")).not.toContain("not a url");
  });
});
