// The envelope ("frame" before v5) header: version (with the response bit), flags, stream,
// opcode, body length. v3+ use a 9-byte header with a 2-byte stream; v1/v2 (only ever written
// here to refuse them) use 8 bytes with a 1-byte stream.

import type { ByteWriter } from './byte-writer.js';

export const HEADER_LENGTH = 9;
export const RESPONSE_BIT = 0x80;
export const VERSION_MASK = 0x7f;

export const HeaderFlag = {
  COMPRESSION: 0x01,
  TRACING: 0x02,
  CUSTOM_PAYLOAD: 0x04,
  WARNING: 0x08,
  USE_BETA: 0x10,
} as const;

/** Compresses a v3/v4 body; undefined when the connection negotiated no compression. */
export type BodyCompressor = (body: Uint8Array) => Buffer;

/** Writes a v3+ response header with a zero length; returns its mark for endFrame(). */
export function beginFrame(w: ByteWriter, version: number, stream: number, opcode: number, flags = 0): number {
  const mark = w.mark;
  w.ensure(HEADER_LENGTH);
  const at = w.pos;
  const b = w.buf;
  b[at] = version | RESPONSE_BIT;
  b[at + 1] = flags;
  b.writeInt16BE(stream, at + 2);
  b[at + 4] = opcode;
  b.writeInt32BE(0, at + 5);
  w.pos = at + HEADER_LENGTH;
  return mark;
}

/** Patches the body length, compressing the body first when a compressor is given. */
export function endFrame(w: ByteWriter, mark: number, compress?: BodyCompressor): void {
  const bodyStart = mark + HEADER_LENGTH;
  let length = w.mark - bodyStart;
  if (compress !== undefined) {
    const compressed = compress(w.view(bodyStart, w.mark));
    w.truncate(bodyStart);
    w.raw(compressed);
    length = compressed.length;
    const flagsAt = w.at(mark) + 1;
    w.buf[flagsAt] = w.buf[flagsAt]! | HeaderFlag.COMPRESSION;
  }
  w.patchInt(mark + 5, length);
}

/** v1/v2 header (8 bytes, 1-byte stream), only used to refuse those versions readably. */
export function beginV2Frame(w: ByteWriter, version: number, stream: number, opcode: number): number {
  const mark = w.mark;
  w.byte(version | RESPONSE_BIT);
  w.byte(0);
  w.byte(stream & 0xff);
  w.byte(opcode);
  w.int(0);
  return mark;
}

export function endV2Frame(w: ByteWriter, mark: number): void {
  w.patchInt(mark + 4, w.mark - mark - 8);
}
