/**
 * Page numbers of the viewer's lists: counted from 1, as the `page` query parameter and the
 * links between pages name them.
 */

export interface PageNumbers {
  /** This page, from 1. */
  number: number;
  /** The last page (1 for an empty list). */
  pages: number;
  size: number;
  /** Items in the whole list. */
  total: number;
}

/** The rows of page `number` (from 1) of `size`. */
export function rangeOf(number: number, size: number): { offset: number; limit: number } {
  return { offset: (number - 1) * size, limit: size };
}

export function pageNumbers(number: number, size: number, total: number): PageNumbers {
  return { number, pages: Math.max(1, Math.ceil(total / size)), size, total };
}

/** The `page` parameter of a request: a whole number from 1; anything else is page 1. */
export function pageParameter(url: URL): number {
  const given = url.searchParams.get("page") ?? "";
  return /^[1-9]\d{0,8}$/.test(given) ? Number(given) : 1;
}
