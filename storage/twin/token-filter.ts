// A Bloom filter over Arrow segments' `_token` column, in memory only: one per segment (built when a segment is
// flushed, or on the first write that needs it from the segment's bytes) and one per block of segment ids
// (segment-filter-tree.ts). The write path asks them before looking for a row's live columnar copy: a row can
// have one only in a segment holding its token, so "no segment may hold this token" (every fresh insert, all but
// ~1 % of the time) skips the pool lookup.
//
// Blocked: the token's high half picks one 512-bit block (one 64-byte cache line), its low half the bits in it, so
// a probe costs one cache miss however large the filter. Tokens are Murmur3 hashes already; the low half is only
// multiplied once so that tokens differing in their top bits alone still spread over the block.

import type { Data } from 'apache-arrow';
import type { OpenSegment } from '../arrow/segment-reader.js';

/** Filter bits per token (rounded up to a power of two): ~1-3 % false positives at 3 bits a token. */
const BITS_PER_TOKEN = 12;
const BLOCK_BITS = 512;
const BLOCK_WORDS = BLOCK_BITS >>> 5;
const MAX_BITS = 2 ** 31;

export class TokenFilter {
  /** The filter's bits (a flush thread hands them over: fromWords). */
  readonly words: Int32Array;
  /** Blocks - 1 (a power of two). */
  private readonly blockMask: number;

  constructor(tokens: number, words?: Int32Array) {
    let bits = BLOCK_BITS;
    while (bits < tokens * BITS_PER_TOKEN && bits < MAX_BITS) bits *= 2;
    if (words && words.length !== bits >>> 5) throw new Error('token filter words do not match its size');
    this.words = words ?? new Int32Array(bits >>> 5);
    this.blockMask = bits / BLOCK_BITS - 1;
  }

  /** The filter of `tokens` tokens whose bits another thread computed. */
  static fromWords(tokens: number, words: Int32Array): TokenFilter {
    return new TokenFilter(tokens, words);
  }

  /** The token's (signed high, low) 32-bit halves. */
  add(hi: number, lo: number): void {
    const w = this.words;
    const base = (hi & this.blockMask) * BLOCK_WORDS;
    const h = Math.imul(lo, 0x9e3779b1);
    const p1 = h >>> 23;
    const p2 = (h >>> 14) & 511;
    const p3 = (h >>> 5) & 511;
    w[base + (p1 >>> 5)]! |= 1 << (p1 & 31);
    w[base + (p2 >>> 5)]! |= 1 << (p2 & 31);
    w[base + (p3 >>> 5)]! |= 1 << (p3 & 31);
  }

  mayContain(hi: number, lo: number): boolean {
    const w = this.words;
    const base = (hi & this.blockMask) * BLOCK_WORDS;
    const h = Math.imul(lo, 0x9e3779b1);
    const p1 = h >>> 23;
    const p2 = (h >>> 14) & 511;
    const p3 = (h >>> 5) & 511;
    return (
      (w[base + (p1 >>> 5)]! & (1 << (p1 & 31))) !== 0 &&
      (w[base + (p2 >>> 5)]! & (1 << (p2 & 31))) !== 0 &&
      (w[base + (p3 >>> 5)]! & (1 << (p3 & 31))) !== 0
    );
  }

  /** Adds every token of a segment's token column (field `tokenField`, Int64: little-endian halves, no bigints). */
  addSegment(segment: OpenSegment, tokenField: number): void {
    this.addColumn(segment.batch?.data.children[tokenField], segment.length);
  }

  /** Adds the `n` tokens of an Int64 token column. */
  addColumn(data: Data | undefined, n: number): void {
    if (!data || n === 0) return;
    const v = data.values as BigInt64Array;
    const halves = new Int32Array(v.buffer, v.byteOffset + data.offset * 8, n * 2);
    for (let i = 0; i < n; i++) this.add(halves[2 * i + 1]!, halves[2 * i]!);
  }

  /** The filter of one segment's token column. */
  static ofSegment(segment: OpenSegment, tokenField: number): TokenFilter {
    return TokenFilter.ofColumn(segment.batch?.data.children[tokenField], segment.length);
  }

  /** The filter of the `n` tokens of an Int64 token column. */
  static ofColumn(data: Data | undefined, n: number): TokenFilter {
    const f = new TokenFilter(n);
    f.addColumn(data, n);
    return f;
  }
}
