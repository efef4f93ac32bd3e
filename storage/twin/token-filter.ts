// A Bloom filter over one segment's `_token` column, in memory only (built when a segment is flushed, or on the
// first write that needs it from the segment's bytes). The write path asks it before looking for a row pointer:
// a row can have a columnar copy only in a segment holding its token, so "no segment may hold this token" (every
// fresh insert, all but ~1 % of the time) skips the pool lookup. Tokens are Murmur3 hashes already, so the probe
// positions are taken from the token's two 32-bit halves (double hashing), with no further hashing.

import type { OpenSegment } from '../arrow/segment-reader.js';

const PROBES = 3;
/** Filter bits per token (rounded up to a power of two): ~1-3 % false positives at 3 probes. */
const BITS_PER_TOKEN = 12;

export class TokenFilter {
  private readonly words: Int32Array;
  private readonly mask: number;

  constructor(tokens: number) {
    let bits = 64;
    while (bits < tokens * BITS_PER_TOKEN && bits < 2 ** 30) bits *= 2;
    this.words = new Int32Array(bits >>> 5);
    this.mask = bits - 1;
  }

  /** The token's (signed high, low) 32-bit halves. */
  add(hi: number, lo: number): void {
    const step = hi | 1;
    for (let j = 0; j < PROBES; j++) {
      const p = (lo + Math.imul(j, step)) & this.mask;
      this.words[p >>> 5]! |= 1 << (p & 31);
    }
  }

  mayContain(hi: number, lo: number): boolean {
    const step = hi | 1;
    for (let j = 0; j < PROBES; j++) {
      const p = (lo + Math.imul(j, step)) & this.mask;
      if ((this.words[p >>> 5]! & (1 << (p & 31))) === 0) return false;
    }
    return true;
  }

  /** The filter of a segment's token column (field `tokenField`, Int64: little-endian halves, no bigints). */
  static ofSegment(segment: OpenSegment, tokenField: number): TokenFilter {
    const n = segment.length;
    const f = new TokenFilter(n);
    const data = segment.batch?.data.children[tokenField];
    if (!data || n === 0) return f;
    const v = data.values as BigInt64Array;
    const halves = new Int32Array(v.buffer, v.byteOffset + data.offset * 8, n * 2);
    for (let i = 0; i < n; i++) f.add(halves[2 * i + 1]!, halves[2 * i]!);
    return f;
  }
}
