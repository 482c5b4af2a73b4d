import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Dialog, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/index.js";
import { withChromium } from "../../helpers/chromium.js";
import { gwrunAsync } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { until } from "../../helpers/until.js";

const JOBS = `name: two
jobs:
  - { id: mugs, model: acme-image-2, prompt: "a mug", repeat: 2 }
`;

/** A stand-in `xdg-open`: it writes down what it was asked to open, as a browser's `ps` line would show it. */
function fakeOpener(): { dir: string; opened: () => string | undefined } {
  const dir = tempDir();
  const opener = path.join(dir, "xdg-open");
  writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > "${dir}/opened"\n`);
  chmodSync(opener, 0o755);
  const file = path.join(dir, "opened");
  return { dir, opened: () => (existsSync(file) ? readFileSync(file, "utf8") : undefined) };
}

/** Answers each prompt with the next of `answers`; the prompts' messages, in order. */
function answering(page: Page, answers: string[]): string[] {
  const messages: string[] = [];
  page.on("dialog", (dialog: Dialog) => {
    messages.push(dialog.message());
    void dialog.accept(answers.shift());
  });
  return messages;
}

describe.runIf(runsWith(CHROMIUM))("gwrun view --open in Chromium", () => {
  it("opens the viewer without its token on any command line, asks for it once at the first review; another page cannot frame it", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write("two.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const opener = fakeOpener();
      const view = gwrunAsync(["view", "--open", "--db", scope.db], {
        env: { PATH: `${opener.dir}:${process.env.PATH}` },
      });
      const attacker = createServer();
      try {
        let printed = "";
        view.child.stdout?.on("data", (chunk: Buffer) => {
          printed += chunk.toString();
        });
        const opened = await until(
          "the page opened and its address printed",
          () => printed.includes("\n") && opener.opened(),
          { everyMs: 25 },
        );
        const url = new URL(printed.split("\n")[0] ?? "");
        const token = url.searchParams.get("token") ?? "";
        expect(token.length).toBeGreaterThan(20);
        // The browser's command line: the viewer's address, no token.
        expect(opened?.split("\n")[1]).toBe(`${url.origin}/`);
        expect(opened).not.toContain(token);

        const store = openStore(scope.db);
        try {
          await withChromium(async ({ browser }) => {
            const page = await browser.newPage();
            const messages = answering(page, ["not-the-token", printed.split("\n")[0] ?? ""]);
            await page.goto(opened?.split("\n")[1] ?? "");
            await page.goto(`${url.origin}/runs/1/outputs`);
            const ids = await page.$$eval("figure.item", (items) =>
              items.map((item) => (item as unknown as { dataset: { id: string } }).dataset.id),
            );
            expect(ids).toHaveLength(2);
            await page.click(`figure.item[data-id="${ids[0]}"] button.approve`);
            await page.waitForSelector(`figure.item[data-id="${ids[0]}"][data-review="approved"]`);
            // A wrong token is refused and asked for again; the URL pasted is taken.
            expect(messages).toHaveLength(2);
            expect(messages[0]).toMatch(/^Changes need the URL gwrun view printed/);
            expect(messages[1]).toMatch(/^That token was refused\./);
            // Asked once: the next review goes without a word.
            await page.click(`figure.item[data-id="${ids[1]}"] button.approve`);
            await page.waitForSelector(`figure.item[data-id="${ids[1]}"][data-review="approved"]`);
            expect(messages).toHaveLength(2);
            expect((await store.reviewsOf({ run: 1 })).map((review) => review.decision)).toEqual([
              "approved",
              "approved",
            ]);

            // A page on another loopback port frames the viewer: the frame stays empty.
            attacker.on("request", (_request, response) => {
              response.writeHead(200, { "content-type": "text/html" });
              response.end(`<iframe src="${url.origin}/runs/1/outputs"></iframe>`);
            });
            await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
            const framing = await browser.newPage();
            // Loaded means its frame has loaded too.
            await framing.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
            const framed = framing.frames().filter((frame) => frame !== framing.mainFrame());
            expect(framed).toHaveLength(1);
            const shown = await framed[0]
              ?.evaluate(
                () =>
                  (
                    globalThis as unknown as {
                      document: { body: { dataset: { page?: string } } | null };
                    }
                  ).document.body?.dataset.page ?? null,
              )
              .catch(() => null);
            expect(shown).toBeNull();
          });
        } finally {
          await store.close();
        }
      } finally {
        attacker.close();
        view.child.kill("SIGINT");
        await view.done;
      }
    });
  });
});
