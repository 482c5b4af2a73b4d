import type { Page } from "playwright-core";
import { systemClock } from "../../src/core/clock.js";
import type { Store } from "../../src/store/index.js";
import { startViewServer } from "../../src/view/index.js";
import { withChromium } from "./chromium.js";

/** The token the viewer of `withViewerPage` is started with. */
export const VIEW_TOKEN = "t0ken";

/**
 * The store of a run scope opened, `gwrun view`'s server on it (token `VIEW_TOKEN`), and a
 * headless Chromium page, for the duration of `fn`; all closed after.
 */
export async function withViewerPage<T>(
  scope: { dir: string; open(): Promise<Store> },
  fn: (context: { store: Store; page: Page; url: string; problems: string[] }) => Promise<T>,
): Promise<T> {
  const store = await scope.open();
  const viewer = await startViewServer({
    store,
    project: scope.dir,
    port: 0,
    token: VIEW_TOKEN,
    clock: systemClock,
  });
  try {
    return await withChromium(({ page, problems }) =>
      fn({ store, page, url: viewer.url, problems }),
    );
  } finally {
    await viewer.close();
    await store.close();
  }
}
