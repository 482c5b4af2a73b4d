import { imageA } from "./image-a.js";
import { imageB } from "./image-b.js";
import { imageC } from "./image-c.js";
import { imageD } from "./image-d.js";
import { imageE } from "./image-e.js";
import { imageEdits } from "./image-edits.js";
import { textChat } from "./text-chat.js";
import { textMessages } from "./text-messages.js";
import { textNative } from "./text-native.js";
import { textResponses } from "./text-responses.js";
import type { Family } from "./types.js";
import { video1 } from "./video-1.js";
import { video2 } from "./video-2.js";
import { video3 } from "./video-3.js";
import { video4 } from "./video-4.js";
import { video5 } from "./video-5.js";
import { video6 } from "./video-6.js";
import { video7 } from "./video-7.js";
import { video8 } from "./video-8.js";
import { video9 } from "./video-9.js";
import { video10 } from "./video-10.js";

/**
 * Every family gwrun knows; adding one is one file, one line here and its test.
 * Order matters only where patterns could overlap: the first match wins.
 */
export const FAMILIES: readonly Family[] = [
  imageA,
  imageB,
  imageC,
  imageD,
  imageE,
  imageEdits,
  video1,
  video2,
  video3,
  video4,
  video5,
  video6,
  video7,
  video8,
  video9,
  video10,
  textChat,
  textResponses,
  textMessages,
  textNative,
];
