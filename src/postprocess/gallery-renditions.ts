import { htmlText } from "../core/text-filter.js";
import type { RecordWithExtras } from "./record-extras.js";
import type { ReviewRecord } from "./review-record.js";

/**
 * What a gallery card adds of an output's renditions and C2PA finding: a link per rendition
 * (named, with its size), and a badge when the original carries a C2PA manifest.
 */
export function renditionLinks(record: ReviewRecord): string {
  const { renditions = [], c2pa } = record as RecordWithExtras;
  const badge = c2pa === true ? ' <span class="badge c2pa">C2PA</span>' : "";
  const links = renditions
    // Only paths inside the page's folder are linked.
    .filter((r) => !r.file.startsWith("../") && !r.file.startsWith("/"))
    .map((r) => {
      const url = htmlText(r.file.split("/").map(encodeURIComponent).join("/"));
      return `<a href="${url}">${htmlText(r.name)}</a> ${r.width}×${r.height}`;
    });
  return `${badge}${links.length === 0 ? "" : ` <span class="renditions">${links.join(" · ")}</span>`}`;
}
