import { describe, expect, it } from "vitest";
import { gwrun, gwrunAsync } from "../helpers/cli.js";
import { openTestStore } from "../helpers/store.js";

/** The first line `gwrun view` prints, once it is out. */
function firstLine(child: ReturnType<typeof gwrunAsync>["child"]): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(text.split("\n")[0] as string);
    });
    child.once("exit", () => reject(new Error(`gwrun view exited: ${text}`)));
  });
}

describe("gwrun view", () => {
  it("prints a loopback URL with its token, serves the runs, takes changes only with the token, and stops on Ctrl-C", async () => {
    const { store } = await openTestStore();
    const db = store.db.name;
    await store.close();
    const view = gwrunAsync(["view", "--db", db]);
    try {
      const line = await firstLine(view.child);
      expect(line).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
      const url = new URL(line);
      const token = url.searchParams.get("token") ?? "";
      const page = await fetch(new URL("/", url));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<body data-page="runs">');
      const review = (headers: Record<string, string>) =>
        fetch(new URL("/api/reviews", url), { method: "POST", headers, body: "{}" });
      expect((await review({})).status).toBe(403);
      expect((await review({ "x-gwrun-token": token })).status).toBe(400);
    } finally {
      view.child.kill("SIGINT");
    }
    expect((await view.done).code).toBe(0);
  });

  it("refuses a port that is not one, and a database that does not exist", () => {
    expect(gwrun(["view", "--port", "http"]).code).toBe(2);
    const missing = gwrun(["view", "--db", "/nonexistent/gwrun.db"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no state database");
  });
});
