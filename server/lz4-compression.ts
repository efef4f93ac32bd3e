// LZ4 block compression: raw blocks for v5 segments, and the v3/v4 body format (a 4-byte
// big-endian uncompressed length followed by one block). Compression uses lz4js; the
// decompressor is our own so that hostile input is bounds-checked instead of trusted.

import lz4 from 'lz4js';
import { ProtocolError } from '../cql/errors.js';

const hashTable = new Uint32Array(1 << 16);

/** One raw LZ4 block holding `src`. */
export function lz4CompressBlock(src: Uint8Array): Buffer {
  const dst = Buffer.allocUnsafe(lz4.compressBound(src.length) + 16);
  let n = 0;
  // Tiny inputs gain nothing; larger ones need a clean table (stale entries could make a
  // zero-offset match).
  if (src.length >= 64) {
    hashTable.fill(0);
    n = lz4.compressBlock(src, dst, 0, src.length, hashTable);
  }
  if (n === 0) n = writeLiteralsOnly(src, dst, 0);
  return dst.subarray(0, n);
}

// lz4js gives up (returns 0) on input with no match; the format still allows all-literal blocks.
function writeLiteralsOnly(src: Uint8Array, dst: Uint8Array, at: number): number {
  const len = src.length;
  if (len >= 15) {
    dst[at++] = 0xf0;
    let rest = len - 15;
    while (rest >= 255) {
      dst[at++] = 255;
      rest -= 255;
    }
    dst[at++] = rest;
  } else {
    dst[at++] = len << 4;
  }
  dst.set(src, at);
  return at + len;
}

/** Decodes one raw LZ4 block that must expand to exactly `length` bytes. */
export function lz4DecompressBlock(src: Uint8Array, length: number): Buffer {
  const dst = Buffer.allocUnsafe(length);
  const end = src.length;
  let s = 0;
  let d = 0;
  while (s < end) {
    const token = src[s++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (s >= end) throw corrupt();
        b = src[s++]!;
        lit += b;
      } while (b === 255);
    }
    if (s + lit > end || d + lit > length) throw corrupt();
    dst.set(src.subarray(s, s + lit), d);
    s += lit;
    d += lit;
    if (s >= end) break;
    if (s + 2 > end) throw corrupt();
    const offset = src[s]! | (src[s + 1]! << 8);
    s += 2;
    let match = token & 15;
    if (match === 15) {
      let b: number;
      do {
        if (s >= end) throw corrupt();
        b = src[s++]!;
        match += b;
      } while (b === 255);
    }
    match += 4;
    if (offset === 0 || offset > d || d + match > length) throw corrupt();
    let from = d - offset;
    if (offset >= match) {
      dst.copyWithin(d, from, from + match);
      d += match;
    } else {
      for (let i = 0; i < match; i++) dst[d++] = dst[from++]!;
    }
  }
  if (d !== length) throw corrupt();
  return dst;
}

function corrupt(): ProtocolError {
  return new ProtocolError('Malformed LZ4 compressed data');
}

/** v3/v4 frame body: [int] uncompressed length, then the block. */
export function lz4CompressBody(body: Uint8Array): Buffer {
  const block = lz4CompressBlock(body);
  const out = Buffer.allocUnsafe(4 + block.length);
  out.writeInt32BE(body.length, 0);
  out.set(block, 4);
  return out;
}

export function lz4DecompressBody(body: Buffer, maxLength: number): Buffer {
  if (body.length < 4) throw corrupt();
  const length = body.readInt32BE(0);
  if (length < 0 || length > maxLength) {
    throw new ProtocolError(`Invalid uncompressed length in LZ4 compressed frame: ${length}`);
  }
  return lz4DecompressBlock(body.subarray(4), length);
}
