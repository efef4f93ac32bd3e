// A small, fast random source that can be re-seeded: the profile workloads derive every generated
// value from a seed (the partition's, the row's), so the same seed must give the same draws again.
// 32-bit mulberry state; doubles take two draws, so ranges wider than 2^32 (uniform(1..100B)) have no gaps.

/** Mixes a 32-bit value (murmur3's finaliser). */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit seed for any JavaScript number (integers up to 2^53 keep their high bits). */
export function seedOf(value: number): number {
  if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
    const high = Math.floor(value / 2 ** 32);
    return mix32((value >>> 0) ^ mix32(high + 0x9e3779b9));
  }
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, value);
  return mix32(buf.getUint32(0) ^ mix32(buf.getUint32(4) + 0x7f4a7c15));
}

/** A 32-bit hash of a string (FNV-1a, then mixed): column salts and text values. */
export function hashString(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

export class SeededRandom {
  private state: number;

  constructor(seed = Math.floor(Math.random() * 2 ** 32)) {
    this.state = seedOf(seed);
  }

  setSeed(seed: number): void {
    this.state = seedOf(seed);
  }

  /** The next 32 random bits, unsigned. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A double in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }
}
