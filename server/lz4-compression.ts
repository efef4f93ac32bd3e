// LZ4 block compression: raw blocks for v5 segments, and the v3/v4 body format (a 4-byte
// big-endian uncompressed length followed by one block). Both directions are our own code:
// the compressor honours the format's end-of-block rules (the last match starts 12 or more
// bytes before the end, the last 5 bytes are literals) that strict decoders such as the
// reference C library used by the Python driver enforce, and the decompressor bounds-checks
// hostile input instead of trusting it.

import { ProtocolError } from '../cql/errors.js';

const MIN_MATCH = 4;
const LAST_LITERALS = 5;
const MFLIMIT = 12;
const MAX_OFFSET = 65535;
const HASH_LOG = 13;
const hashTable = new Int32Array(1 << HASH_LOG);

/** Worst-case size of a block holding `n` bytes. */
function compressBound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

/** One raw LZ4 block holding `src` (greedy hash-chain-free matcher: fast, decent ratio). */
export function lz4CompressBlock(input: Uint8Array): Buffer {
  const src = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const n = src.length;
  const dst = Buffer.allocUnsafe(compressBound(n));
  let d = 0;
  let anchor = 0;
  if (n > MFLIMIT) {
    hashTable.fill(-1);
    const matchStartLimit = n - MFLIMIT;
    const matchEndLimit = n - LAST_LITERALS;
    let ip = 0;
    while (ip <= matchStartLimit) {
      const seq = src.readUInt32LE(ip);
      const h = Math.imul(seq, 2654435761) >>> (32 - HASH_LOG);
      const ref = hashTable[h]!;
      hashTable[h] = ip;
      if (ref < 0 || ip - ref > MAX_OFFSET || src.readUInt32LE(ref) !== seq) {
        // Skip faster through incompressible stretches.
        ip += 1 + ((ip - anchor) >>> 6);
        continue;
      }
      let len = MIN_MATCH;
      while (ip + len < matchEndLimit && src[ref + len] === src[ip + len]) len++;
      d = writeSequence(src, dst, d, anchor, ip - anchor, ip - ref, len);
      ip += len;
      anchor = ip;
    }
  }
  d = writeLastLiterals(src, dst, d, anchor, n - anchor);
  return dst.subarray(0, d);
}

function writeLength(dst: Buffer, d: number, rest: number): number {
  while (rest >= 255) {
    dst[d++] = 255;
    rest -= 255;
  }
  dst[d++] = rest;
  return d;
}

function writeSequence(
  src: Buffer,
  dst: Buffer,
  d: number,
  litStart: number,
  litLen: number,
  offset: number,
  matchLen: number,
): number {
  const m = matchLen - MIN_MATCH;
  dst[d++] = (Math.min(litLen, 15) << 4) | Math.min(m, 15);
  if (litLen >= 15) d = writeLength(dst, d, litLen - 15);
  src.copy(dst, d, litStart, litStart + litLen);
  d += litLen;
  dst[d++] = offset & 0xff;
  dst[d++] = offset >>> 8;
  if (m >= 15) d = writeLength(dst, d, m - 15);
  return d;
}

function writeLastLiterals(src: Buffer, dst: Buffer, d: number, start: number, len: number): number {
  dst[d++] = Math.min(len, 15) << 4;
  if (len >= 15) d = writeLength(dst, d, len - 15);
  src.copy(dst, d, start, start + len);
  return d + len;
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
