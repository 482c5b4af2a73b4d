import { imageA } from "./image-a.js";
import { imageB } from "./image-b.js";
import { imageC } from "./image-c.js";
import { imageD } from "./image-d.js";
import { imageE } from "./image-e.js";
import { imageEdits } from "./image-edits.js";
import type { Family } from "./types.js";

/**
 * Every family gwrun knows; adding one is one file, one line here and its test.
 * Order matters only where patterns could overlap: the first match wins.
 */
export const FAMILIES: readonly Family[] = [imageA, imageB, imageC, imageD, imageE, imageEdits];
