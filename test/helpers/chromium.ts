import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM } from "./system-tools.js";

/**
 * Debian's Chromium, headless, through playwright-core, for the duration of `fn`; with a page
 * that collects console errors, page errors, failed requests and dialogs into `problems`.
 */
export async function withChromium<T>(
  fn: (context: { browser: Browser; page: Page; problems: string[] }) => Promise<T>,
): Promise<T> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
    page.on("dialog", (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    return await fn({ browser, page, problems });
  } finally {
    await browser.close();
  }
}
