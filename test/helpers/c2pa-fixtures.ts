/** C2PA manifests as vendors embed them, built byte by byte for tests. */

export const box = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
};

/** A JUMBF superbox with a description box labelled "c2pa". */
export const jumbf = (): Buffer => box("jumb", box("jumd", Buffer.from("c2pa\0", "latin1")));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 as PNG computes it over a chunk's type and data. */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG chunk with its length and a true CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** `png` with a `caBX` chunk after its header, as a vendor that signs its pictures writes it. */
export function withCaBX(png: Buffer): Buffer {
  // Signature (8) and IHDR (25 bytes) first, as the PNG spec orders them.
  return Buffer.concat([png.subarray(0, 33), pngChunk("caBX", jumbf()), png.subarray(33)]);
}
