// Cassandra's Murmur3Partitioner token: the first 64 bits of MurmurHash3 x64_128 (seed 0), bit-exact with
// org.apache.cassandra.utils.MurmurHash.hash3_x64_128, including its quirk of sign-extending tail bytes.
// 64-bit arithmetic is done on 32-bit halves held in plain numbers: no BigInt or allocation per block.

// 64-bit values are (hi, lo) pairs of int32 locals, combined through small pure functions that V8 inlines; no
// intermediate result is stored outside a register (module-level variables would box values above 2^30).

/** High 32 bits of the unsigned 64-bit product of two uint32s. */
function umulhi(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = ((a0 * b0) >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) | 0;
}

/** High half of (aH:aL * bH:bL) mod 2^64; the low half is Math.imul(aL, bL). */
function mulHi(aH: number, aL: number, bH: number, bL: number): number {
  return (umulhi(aL, bL) + Math.imul(aH, bL) + Math.imul(aL, bH)) | 0;
}

/** High half of a + b; the low half is (aL + bL) | 0. */
function addHi(aH: number, aL: number, bH: number, bL: number): number {
  return (aH + bH + ((aL >>> 0) + (bL >>> 0) > 0xffffffff ? 1 : 0)) | 0;
}

// Rotations by n in 1..31 of (h, l); rotating by 32 + n swaps the halves first.
function rotHi(h: number, l: number, n: number): number {
  return (h << n) | (l >>> (32 - n));
}
function rotLo(h: number, l: number, n: number): number {
  return (l << n) | (h >>> (32 - n));
}

// Constants as hi/lo halves.
const C1H = 0x87c37b91 | 0;
const C1L = 0x114253d5 | 0;
const C2H = 0x4cf5ad43 | 0;
const C2L = 0x2745937f | 0;
const F1H = 0xff51afd7 | 0;
const F1L = 0xed558ccd | 0;
const F2H = 0xc4ceb9fe | 0;
const F2L = 0x1a85ec53 | 0;

/** Little-endian int32 at i (Cassandra's getblock reads little-endian longs). */
function le32(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
}

/** Result of the last hash: [hi, lo] of the signed 64-bit token. */
const TOK = new Int32Array(2);

/** Computes the token of `key` into TOK. */
function hash(key: Uint8Array): void {
  const length = key.length;
  const nblocks = length >>> 4;
  let h1h = 0;
  let h1l = 0;
  let h2h = 0;
  let h2l = 0;
  let th: number;
  let tl: number;
  for (let i = 0; i < nblocks; i++) {
    const o = i << 4;
    let k1l = le32(key, o);
    let k1h = le32(key, o + 4);
    let k2l = le32(key, o + 8);
    let k2h = le32(key, o + 12);

    // k1 *= c1; k1 = rotl(k1, 31); k1 *= c2; h1 ^= k1
    th = mulHi(k1h, k1l, C1H, C1L);
    tl = Math.imul(k1l, C1L);
    k1h = rotHi(th, tl, 31);
    k1l = rotLo(th, tl, 31);
    th = mulHi(k1h, k1l, C2H, C2L);
    tl = Math.imul(k1l, C2L);
    h1h ^= th;
    h1l ^= tl;
    // h1 = rotl(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729
    th = rotHi(h1h, h1l, 27);
    tl = rotLo(h1h, h1l, 27);
    h1h = addHi(th, tl, h2h, h2l);
    h1l = (tl + h2l) | 0;
    th = mulHi(h1h, h1l, 0, 5);
    tl = Math.imul(h1l, 5);
    h1h = addHi(th, tl, 0, 0x52dce729);
    h1l = (tl + 0x52dce729) | 0;

    // k2 *= c2; k2 = rotl(k2, 33); k2 *= c1; h2 ^= k2
    th = mulHi(k2h, k2l, C2H, C2L);
    tl = Math.imul(k2l, C2L);
    k2h = rotHi(tl, th, 1);
    k2l = rotLo(tl, th, 1);
    th = mulHi(k2h, k2l, C1H, C1L);
    tl = Math.imul(k2l, C1L);
    h2h ^= th;
    h2l ^= tl;
    // h2 = rotl(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5
    th = rotHi(h2h, h2l, 31);
    tl = rotLo(h2h, h2l, 31);
    h2h = addHi(th, tl, h1h, h1l);
    h2l = (tl + h1l) | 0;
    th = mulHi(h2h, h2l, 0, 5);
    tl = Math.imul(h2l, 5);
    h2h = addHi(th, tl, 0, 0x38495ab5);
    h2l = (tl + 0x38495ab5) | 0;
  }

  // Tail: Cassandra XORs `(long) key.get(i) << shift`, a sign-extended byte, so a negative byte sets every bit
  // above its own position.
  const o = nblocks << 4;
  const rem = length & 15;
  if (rem > 8) {
    let kh = 0;
    let kl = 0;
    for (let j = 8; j < rem; j++) {
      const v = (key[o + j]! << 24) >> 24;
      const s = (j - 8) * 8;
      if (s === 0) {
        kl ^= v;
        kh ^= v >> 31;
      } else if (s < 32) {
        kl ^= v << s;
        kh ^= ((v >> 31) << s) | (v >>> (32 - s));
      } else {
        kh ^= v << (s - 32);
      }
    }
    th = mulHi(kh, kl, C2H, C2L);
    tl = Math.imul(kl, C2L);
    kh = rotHi(tl, th, 1);
    kl = rotLo(tl, th, 1);
    h2h ^= mulHi(kh, kl, C1H, C1L);
    h2l ^= Math.imul(kl, C1L);
  }
  if (rem > 0) {
    let kh = 0;
    let kl = 0;
    const n = Math.min(rem, 8);
    for (let j = 0; j < n; j++) {
      const v = (key[o + j]! << 24) >> 24;
      const s = j * 8;
      if (s === 0) {
        kl ^= v;
        kh ^= v >> 31;
      } else if (s < 32) {
        kl ^= v << s;
        kh ^= ((v >> 31) << s) | (v >>> (32 - s));
      } else {
        kh ^= v << (s - 32);
      }
    }
    th = mulHi(kh, kl, C1H, C1L);
    tl = Math.imul(kl, C1L);
    kh = rotHi(th, tl, 31);
    kl = rotLo(th, tl, 31);
    h1h ^= mulHi(kh, kl, C2H, C2L);
    h1l ^= Math.imul(kl, C2L);
  }

  // length fits in 32 bits for any real key; its high half is 0.
  h1l ^= length;
  h2l ^= length;
  // h1 += h2; h2 += h1
  th = addHi(h1h, h1l, h2h, h2l);
  h1l = (h1l + h2l) | 0;
  h1h = th;
  th = addHi(h2h, h2l, h1h, h1l);
  h2l = (h2l + h1l) | 0;
  h2h = th;
  // fmix64(h1): k ^= k >>> 33; k *= f1; k ^= k >>> 33; k *= f2; k ^= k >>> 33
  h1l ^= h1h >>> 1;
  th = mulHi(h1h, h1l, F1H, F1L);
  h1l = Math.imul(h1l, F1L);
  h1h = th;
  h1l ^= h1h >>> 1;
  th = mulHi(h1h, h1l, F2H, F2L);
  h1l = Math.imul(h1l, F2L);
  h1h = th;
  h1l ^= h1h >>> 1;
  // fmix64(h2)
  h2l ^= h2h >>> 1;
  th = mulHi(h2h, h2l, F1H, F1L);
  h2l = Math.imul(h2l, F1L);
  h2h = th;
  h2l ^= h2h >>> 1;
  th = mulHi(h2h, h2l, F2H, F2L);
  h2l = Math.imul(h2l, F2L);
  h2h = th;
  h2l ^= h2h >>> 1;
  // h1 += h2
  th = addHi(h1h, h1l, h2h, h2l);
  tl = (h1l + h2l) | 0;
  // Murmur3Partitioner.normalize: Long.MIN_VALUE is reserved for the minimum token.
  if (th === (0x80000000 | 0) && tl === 0) {
    th = 0x7fffffff;
    tl = -1;
  }
  TOK[0] = th;
  TOK[1] = tl;
}

export const MIN_TOKEN = -(2n ** 63n);
export const MAX_TOKEN = 2n ** 63n - 1n;

/**
 * Token of a serialized partition key (see partition-key.ts), as a signed 64-bit bigint. An empty key has the
 * minimum token, as in Cassandra.
 */
export function murmur3Token(partitionKey: Uint8Array): bigint {
  if (partitionKey.length === 0) return MIN_TOKEN;
  hash(partitionKey);
  return (BigInt(TOK[0]!) << 32n) | BigInt(TOK[1]! >>> 0);
}

/**
 * Token of a partition key written straight as 8 order-preserving bytes (big-endian, sign bit flipped) into
 * `out` at `offset`; the write hot path uses this and never builds a bigint.
 */
export function writeSortableToken(partitionKey: Uint8Array, out: Buffer, offset = 0): Buffer {
  if (partitionKey.length === 0) {
    TOK[0] = 0x80000000 | 0;
    TOK[1] = 0;
  } else {
    hash(partitionKey);
  }
  out.writeInt32BE(TOK[0]! ^ (0x80000000 | 0), offset);
  out.writeInt32BE(TOK[1]!, offset + 4);
  return out;
}

/** 8 bytes whose unsigned byte order is the signed order of the token. */
export function tokenToSortableBytes(token: bigint): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeBigUInt64BE(BigInt.asUintN(64, token) ^ 0x8000000000000000n, 0);
  return out;
}

/** Inverse of tokenToSortableBytes. */
export function sortableBytesToToken(bytes: Uint8Array, offset = 0): bigint {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset + offset, 8);
  return BigInt.asIntN(64, b.readBigUInt64BE(0) ^ 0x8000000000000000n);
}
