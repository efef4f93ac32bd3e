// YCSB's key choosers, ported from site.ycsb.generator: ZipfianGenerator (Gray et al., "Quickly
// Generating Billion-Record Synthetic Databases"), ScrambledZipfianGenerator with its precomputed
// constants, SkewedLatestGenerator, UniformLongGenerator and the acknowledged insert counter, plus
// YCSB's FNV-1a 64-bit hash (Utils.fnvhash64) used to scramble keys and build key names.

export type Random = () => number;

export const ZIPFIAN_CONSTANT = 0.99;

const FNV_OFFSET_BASIS_64 = 0xcbf29ce484222325n;
const FNV_PRIME_64 = 1099511628211n;
const MASK_64 = (1n << 64n) - 1n;

/** YCSB Utils.fnvhash64: FNV-1a over the 8 little-endian bytes of a long, then Math.abs of the signed result. */
export function fnvhash64(value: number): bigint {
  let val = BigInt.asUintN(64, BigInt(value));
  let hash = FNV_OFFSET_BASIS_64;
  for (let i = 0; i < 8; i++) {
    const octet = val & 0xffn;
    val >>= 8n;
    hash ^= octet;
    hash = (hash * FNV_PRIME_64) & MASK_64;
  }
  const signed = BigInt.asIntN(64, hash);
  // Java's Math.abs(Long.MIN_VALUE) is Long.MIN_VALUE; keep that quirk out by masking to 63 bits there.
  return signed < 0n ? (signed === -(1n << 63n) ? (1n << 63n) - 1n : -signed) : signed;
}

/** zeta(n, theta) = sum over i in [st+1, n] of 1 / i^theta, added to `initial` (YCSB's incremental zetastatic). */
export function zeta(st: number, n: number, theta: number, initial: number): number {
  let sum = initial;
  for (let i = st; i < n; i++) sum += 1 / (i + 1) ** theta;
  return sum;
}

export interface LongGenerator {
  next(): number;
  /** The most recent value (YCSB's lastValue()). */
  last(): number;
}

/** Values in [min, max] with popularity falling off as 1/rank^theta; item `min` is the most popular. */
export class ZipfianGenerator implements LongGenerator {
  private readonly base: number;
  private readonly items: number;
  private readonly theta: number;
  private readonly zeta2theta: number;
  private readonly alpha: number;
  private zetan: number;
  private eta: number;
  private countForZeta: number;
  private lastValue = 0;

  constructor(
    min: number,
    max: number,
    private readonly random: Random = Math.random,
    theta = ZIPFIAN_CONSTANT,
    zetan?: number,
  ) {
    this.base = min;
    this.items = max - min + 1;
    this.theta = theta;
    this.zeta2theta = zeta(0, 2, theta, 0);
    this.alpha = 1 / (1 - theta);
    this.zetan = zetan ?? zeta(0, this.items, theta, 0);
    this.countForZeta = this.items;
    this.eta = this.computeEta();
  }

  /** As YCSB, eta keeps using the item count given at construction even after zeta grows. */
  private computeEta(): number {
    return (1 - (2 / this.items) ** (1 - this.theta)) / (1 - this.zeta2theta / this.zetan);
  }

  /** A value in [base, base + itemCount): YCSB's nextLong(itemcount), growing zeta incrementally. */
  nextFor(itemCount: number): number {
    if (itemCount > this.countForZeta) {
      this.zetan = zeta(this.countForZeta, itemCount, this.theta, this.zetan);
      this.countForZeta = itemCount;
      this.eta = this.computeEta();
    }
    const u = this.random();
    const uz = u * this.zetan;
    let ret: number;
    if (uz < 1) ret = this.base;
    else if (uz < 1 + 0.5 ** this.theta) ret = this.base + 1;
    else ret = this.base + Math.floor(itemCount * (this.eta * u - this.eta + 1) ** this.alpha);
    this.lastValue = ret;
    return ret;
  }

  next(): number {
    return this.nextFor(this.items);
  }

  last(): number {
    return this.lastValue;
  }
}

/** YCSB's ScrambledZipfianGenerator: a zipfian over 10^10 items (precomputed zeta), hashed into [min, max]. */
export class ScrambledZipfianGenerator implements LongGenerator {
  static readonly ITEM_COUNT = 10_000_000_000;
  static readonly ZETAN = 26.46902820178302;
  static readonly USED_ZIPFIAN_CONSTANT = 0.99;
  private readonly gen: ZipfianGenerator;
  private readonly itemCount: bigint;
  private lastValue = 0;

  constructor(
    private readonly min: number,
    max: number,
    random: Random = Math.random,
  ) {
    this.itemCount = BigInt(max - min + 1);
    this.gen = new ZipfianGenerator(
      0,
      ScrambledZipfianGenerator.ITEM_COUNT,
      random,
      ScrambledZipfianGenerator.USED_ZIPFIAN_CONSTANT,
      ScrambledZipfianGenerator.ZETAN,
    );
  }

  next(): number {
    const r = this.gen.next();
    this.lastValue = this.min + Number(fnvhash64(r) % this.itemCount);
    return this.lastValue;
  }

  last(): number {
    return this.lastValue;
  }
}

export class UniformLongGenerator implements LongGenerator {
  private lastValue = 0;
  constructor(
    private readonly min: number,
    private readonly max: number,
    private readonly random: Random = Math.random,
  ) {}

  next(): number {
    this.lastValue = this.min + Math.floor(this.random() * (this.max - this.min + 1));
    return this.lastValue;
  }

  last(): number {
    return this.lastValue;
  }
}

/**
 * YCSB's AcknowledgedCounterGenerator: hands out insert key numbers in order; last() is the highest
 * number below which every insert has been acknowledged, so readers never choose a key still in flight.
 */
export class AcknowledgedCounter implements LongGenerator {
  private counter: number;
  private limit: number;
  private readonly acked = new Set<number>();

  constructor(start: number) {
    this.counter = start;
    this.limit = start - 1;
  }

  next(): number {
    return this.counter++;
  }

  acknowledge(value: number): void {
    this.acked.add(value);
    while (this.acked.has(this.limit + 1)) {
      this.acked.delete(this.limit + 1);
      this.limit += 1;
    }
  }

  last(): number {
    return this.limit;
  }
}

/** YCSB's SkewedLatestGenerator: the most recently inserted records are the most popular. */
export class SkewedLatestGenerator implements LongGenerator {
  private readonly zipfian: ZipfianGenerator;
  private lastValue = 0;

  constructor(
    private readonly basis: LongGenerator,
    random: Random = Math.random,
  ) {
    this.zipfian = new ZipfianGenerator(0, Math.max(1, basis.last()) - 1, random);
  }

  next(): number {
    const max = this.basis.last();
    this.lastValue = max - this.zipfian.nextFor(Math.max(1, max));
    return this.lastValue;
  }

  last(): number {
    return this.lastValue;
  }
}
