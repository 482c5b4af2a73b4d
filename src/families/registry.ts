import { imageA } from "./image-a.js";
import type { Family } from "./types.js";

/** Every family gwrun knows; adding one is one file, one line here and its test. */
export const FAMILIES: readonly Family[] = [imageA];
