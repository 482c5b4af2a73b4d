import { createHmac } from "node:crypto";

/**
 * Signed, self-describing tokens: task ids and file links carry everything needed to answer
 * for them, so a simulator started later (a resumed run starts a fresh one) still knows the
 * tasks and links an earlier one handed out. Packed as bytes to keep ids and links short;
 * the signature only tells ours from made-up ones.
 */

const SECRET = "gwrun-sim-2";

function signature(payload: string): string {
  return createHmac("sha256", SECRET).update(payload).digest("base64url").slice(0, 10);
}

/** `<base64url bytes>.<signature>` */
export function writeToken(bytes: Buffer): string {
  const payload = bytes.toString("base64url");
  return `${payload}.${signature(payload)}`;
}

/** The bytes of a token written by `writeToken`, or undefined if it is not one. */
export function readToken(token: string): Buffer | undefined {
  const dot = token.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const payload = token.slice(0, dot);
  if (signature(payload) !== token.slice(dot + 1)) return undefined;
  return Buffer.from(payload, "base64url");
}

/** Writes fields in order into a growing buffer. */
export class Packer {
  readonly #parts: Buffer[] = [];

  uint(value: number, bytes: 1 | 2 | 4 | 6): this {
    const part = Buffer.alloc(bytes);
    part.writeUIntBE(Math.max(0, Math.min(Math.round(value), 2 ** (8 * bytes) - 1)), 0, bytes);
    this.#parts.push(part);
    return this;
  }

  text(value: string): this {
    const bytes = Buffer.from(value, "utf8");
    this.uint(bytes.length, 1);
    this.#parts.push(bytes.subarray(0, 255));
    return this;
  }

  bytes(): Buffer {
    return Buffer.concat(this.#parts);
  }
}

/** Reads fields in the order a Packer wrote them; throws past the end. */
export class Unpacker {
  #offset = 0;

  constructor(private readonly buffer: Buffer) {}

  uint(bytes: 1 | 2 | 4 | 6): number {
    const value = this.buffer.readUIntBE(this.#offset, bytes);
    this.#offset += bytes;
    return value;
  }

  text(): string {
    const length = this.uint(1);
    if (this.#offset + length > this.buffer.length) throw new RangeError("token too short");
    const value = this.buffer.toString("utf8", this.#offset, this.#offset + length);
    this.#offset += length;
    return value;
  }
}
