import { type Random, seededRandom } from "../core/random.js";
import { loadSharp } from "../media/index.js";

type Rgb = readonly [number, number, number];

/**
 * Writes a PNG of exactly `width`×`height`: a four-corner gradient with a few discs and bars,
 * colours and places all drawn from `seed`. Pixels are filled in JS and encoded with low
 * compression: about 10× faster than scaling a small picture up with sharp.
 */
export async function writePng(
  file: string,
  width: number,
  height: number,
  seed: string,
): Promise<void> {
  const random = seededRandom(`image:${seed}`);
  const pixels = new Uint8ClampedArray(width * height * 3);
  const corners = [pickRgb(random), pickRgb(random), pickRgb(random), pickRgb(random)] as const;
  fillGradient(pixels, width, height, corners);
  const short = Math.min(width, height);
  const shapes = 3 + Math.floor(random.next() * 3);
  for (let index = 0; index < shapes; index++) {
    const centreX = random.next() * width;
    const centreY = random.next() * height;
    const radius = short * (0.06 + random.next() * 0.16);
    fillDisc(pixels, width, height, centreX, centreY, radius, pickRgb(random));
  }
  for (let index = 0; index < 2; index++) {
    const barWidth = Math.ceil(width * (0.1 + random.next() * 0.3));
    const barHeight = Math.ceil(short * (0.02 + random.next() * 0.05));
    const left = Math.floor(random.next() * (width - barWidth + 1));
    const top = Math.floor(random.next() * (height - barHeight + 1));
    fillRect(pixels, width, left, top, barWidth, barHeight, pickRgb(random));
  }
  const sharp = await loadSharp();
  await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1, adaptiveFiltering: false })
    .toFile(file);
}

function pickRgb(random: Random): Rgb {
  return [random.next() * 256, random.next() * 256, random.next() * 256];
}

function fillGradient(
  pixels: Uint8ClampedArray,
  width: number,
  height: number,
  [topLeft, topRight, bottomLeft, bottomRight]: readonly [Rgb, Rgb, Rgb, Rgb],
): void {
  const xSpan = Math.max(width - 1, 1);
  const ySpan = Math.max(height - 1, 1);
  let offset = 0;
  for (let y = 0; y < height; y++) {
    const v = y / ySpan;
    const left = mix(topLeft, bottomLeft, v);
    const right = mix(topRight, bottomRight, v);
    let [r, g, b] = left;
    const stepR = (right[0] - left[0]) / xSpan;
    const stepG = (right[1] - left[1]) / xSpan;
    const stepB = (right[2] - left[2]) / xSpan;
    for (let x = 0; x < width; x++) {
      pixels[offset++] = r;
      pixels[offset++] = g;
      pixels[offset++] = b;
      r += stepR;
      g += stepG;
      b += stepB;
    }
  }
}

function mix(from: Rgb, to: Rgb, t: number): Rgb {
  return [
    from[0] + (to[0] - from[0]) * t,
    from[1] + (to[1] - from[1]) * t,
    from[2] + (to[2] - from[2]) * t,
  ];
}

function fillDisc(
  pixels: Uint8ClampedArray,
  width: number,
  height: number,
  centreX: number,
  centreY: number,
  radius: number,
  colour: Rgb,
): void {
  const top = Math.max(0, Math.ceil(centreY - radius));
  const bottom = Math.min(height - 1, Math.floor(centreY + radius));
  for (let y = top; y <= bottom; y++) {
    const half = Math.sqrt(radius * radius - (y - centreY) ** 2);
    const from = Math.max(0, Math.ceil(centreX - half));
    const to = Math.min(width - 1, Math.floor(centreX + half));
    if (to >= from) fillRow(pixels, (y * width + from) * 3, to - from + 1, colour);
  }
}

function fillRect(
  pixels: Uint8ClampedArray,
  width: number,
  left: number,
  top: number,
  rectWidth: number,
  rectHeight: number,
  colour: Rgb,
): void {
  for (let y = top; y < top + rectHeight; y++) {
    fillRow(pixels, (y * width + left) * 3, rectWidth, colour);
  }
}

function fillRow(pixels: Uint8ClampedArray, start: number, count: number, colour: Rgb): void {
  const [r, g, b] = colour;
  let offset = start;
  for (let index = 0; index < count; index++) {
    pixels[offset++] = r;
    pixels[offset++] = g;
    pixels[offset++] = b;
  }
}
