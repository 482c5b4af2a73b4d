import { htmlText } from "../core/text-filter.js";

/**
 * The viewer's pages: a small shell each, its data inline as JSON (one request per page, a page of
 * a long list at a time) and one script from `web/` that draws it.
 */

/** JSON safe inside a `<script>` element: no `</script>` or comment can close it early. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export type PageName = "runs" | "run" | "outputs" | "failures";

/**
 * A page: its title, its data, and the script `web/<name>.js` that draws it; shared, the
 * name of the reviewer it is for, shown in its bar.
 */
export function page(name: PageName, title: string, data: unknown, reviewer?: string): string {
  const who =
    reviewer === undefined
      ? ""
      : ` <span class="reviewer">reviewing as <b>${htmlText(reviewer)}</b></span>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${htmlText(title)}</title><link rel="stylesheet" href="/assets/view.css"></head>
<body data-page="${name}"><nav><a href="/">runs</a>${who}</nav><main id="main"><h1>${htmlText(title)}</h1></main>
<script type="application/json" id="data">${inlineJson(data)}</script>
<script src="/assets/common.js"></script><script src="/assets/${name}.js"></script>
</body></html>
`;
}
