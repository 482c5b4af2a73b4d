import { randomUUID } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import PQueue from "p-queue";
import { ErrorCategory, ErrorCode, GwError } from "../core/errors.js";
import { readOwnFile } from "../core/file-gate.js";
import { canonicalJson, sha256 } from "../core/hash.js";
import { writeMp4 } from "./media-clip.js";
import { writePng } from "./media-image.js";

/**
 * Real result files for the simulator: PNGs drawn with sharp, MP4s encoded with ffmpeg, each
 * rendered once per spec and kept in a cache folder that renderers (and restarts) share.
 */

export interface ImageSpec {
  kind: "image";
  width: number;
  height: number;
  seed: string;
}

export interface ClipSpec {
  kind: "video";
  width: number;
  height: number;
  durationSeconds: number;
  audio: boolean;
  seed: string;
}

export type MediaSpec = ImageSpec | ClipSpec;

export interface RenderedMedia {
  path: string;
  bytes: number;
  contentType: "image/png" | "video/mp4";
  /** The file's bytes, for a small file kept in memory. */
  data?: Buffer;
}

export interface MediaRendererOptions {
  cacheDir: string;
  /** parallel ffmpeg encodes; default 1 */
  clipConcurrency?: number;
}

/** Bump when the drawing changes, so cached files from an older renderer are not served. */
const RENDERER_VERSION = 1;

/**
 * Files up to this size are also kept in memory, up to MEMORY_BYTES in all: a run of thousands
 * of small pictures is then served without opening, reading and closing a file for each.
 */
const SMALL_FILE = 256 * 1024;
const MEMORY_BYTES = 64 * 1024 * 1024;

export class MediaRenderer {
  readonly #cacheDir: string;
  readonly #clips: PQueue;
  readonly #inFlight = new Map<string, Promise<RenderedMedia>>();
  readonly #inMemory = new Map<string, Promise<RenderedMedia>>();
  #memoryBytes = 0;

  constructor(options: MediaRendererOptions) {
    this.#cacheDir = options.cacheDir;
    this.#clips = new PQueue({ concurrency: options.clipConcurrency ?? 1 });
  }

  /** The file for this spec: rendered once, then served from the cache folder. */
  render(spec: MediaSpec): Promise<RenderedMedia> {
    const name = cacheName(spec);
    const kept = this.#inMemory.get(name);
    if (kept !== undefined) return kept;
    let pending = this.#inFlight.get(name);
    if (pending === undefined) {
      // Dropped once settled: a failed render is retried by the next call, a finished one is
      // found on disk.
      pending = this.#produce(spec, name).finally(() => this.#inFlight.delete(name));
      this.#inFlight.set(name, pending);
    }
    return pending;
  }

  async #produce(spec: MediaSpec, name: string): Promise<RenderedMedia> {
    checkSpec(spec);
    const file = path.join(this.#cacheDir, name);
    const contentType = spec.kind === "image" ? "image/png" : "video/mp4";
    const cached = await sizeOf(file);
    if (cached !== undefined) return this.#keep(name, { path: file, bytes: cached, contentType });

    await mkdir(this.#cacheDir, { recursive: true });

    // Written under a temporary name and renamed, so a half-written file is never served.
    const temporary = path.join(this.#cacheDir, `.${name}.${randomUUID()}.tmp`);
    try {
      if (spec.kind === "image") {
        await writePng(temporary, spec.width, spec.height, spec.seed);
      } else {
        await this.#clips.add(() => writeMp4(temporary, spec));
      }
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    const bytes = await sizeOf(file);
    return this.#keep(name, { path: file, bytes: bytes ?? 0, contentType });
  }

  /** Keeps a small file in memory while there is room; others are served from disk. */
  async #keep(name: string, media: RenderedMedia): Promise<RenderedMedia> {
    if (media.bytes > SMALL_FILE || this.#memoryBytes + media.bytes > MEMORY_BYTES) return media;
    const kept = { ...media, data: readOwnFile(media.path, SMALL_FILE) };
    this.#memoryBytes += kept.data.length;
    this.#inMemory.set(name, Promise.resolve(kept));
    return kept;
  }
}

function cacheName(spec: MediaSpec): string {
  const digest = sha256(canonicalJson({ renderer: RENDERER_VERSION, spec }));
  return `${digest}.${spec.kind === "image" ? "png" : "mp4"}`;
}

function checkSpec(spec: MediaSpec): void {
  const { width, height } = spec;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw invalidSpec(spec, "width and height must be positive whole numbers");
  }
  if (spec.kind === "video") {
    if (width % 2 !== 0 || height % 2 !== 0) {
      throw invalidSpec(spec, `clip size ${width}x${height} must be even (yuv420p)`);
    }
    if (!Number.isFinite(spec.durationSeconds) || spec.durationSeconds <= 0) {
      throw invalidSpec(spec, "durationSeconds must be a positive number");
    }
  }
}

function invalidSpec(spec: MediaSpec, reason: string): GwError {
  return new GwError(ErrorCode.Internal, `cannot render ${canonicalJson(spec)}: ${reason}`, {
    category: ErrorCategory.Internal,
  });
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
