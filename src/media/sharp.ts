import type Sharp from "sharp";

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp, loaded on first use: libvips costs a process tens of megabytes, and a run whose
 * pictures are all small PNGs without thumbnails never needs it. Every picture is read once,
 * so libvips' operation cache would only hold memory.
 */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import("sharp").then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loading;
}
