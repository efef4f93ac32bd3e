// YCSB's key choosers, ported from site.ycsb.generator: ZipfianGenerator (Gray et al., "Quickly
// Generating Billion-Record Synthetic Databases"), ScrambledZipfianGenerator with its precomputed
// constants, SkewedLatestGenerator, UniformLongGenerator and the acknowledged insert counter, plus
// YCSB's FNV-1a 64-bit hash (Utils.fnvhash64) used to scramble keys and build key names.

export type Random = () => number;

export const ZIPFIAN_CONSTANT = 0.99;

/**
 * YCSB Utils.fnvhash64: FNV-1a over the 8 little-endian bytes of a long, then Java's Math.abs of
 * the signed result (which leaves Long.MIN_VALUE negative). Computed on 32-bit halves, one BigInt at the end.
 */
export function fnvhash64(value: number): bigint {
  const vlo = value >>> 0;
  const vhi = Math.floor(value / 4294967296) >>> 0;
  let lo = 0x84222325; // offset basis 0xcbf29ce484222325
  let hi = 0xcbf29ce4;
  for (let i = 0; i < 8; i++) {
    const octet = i < 4 ? (vlo >>> (8 * i)) & 0xff : (vhi >>> (8 * (i - 4))) & 0xff;
    lo = (lo ^ octet) >>> 0;
    // × FNV prime 0x100000001b3 = × 0x1b3 + << 40, modulo 2^64.
    const product = lo * 0x1b3;
    const carry = Math.floor(product / 4294967296);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = product >>> 0;
  }
  const signed = BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
  return signed < 0n && signed !== -(1n << 63n) ? -signed : signed;
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
    const h = fnvhash64(r) % this.itemCount;
    this.lastValue = this.min + Number(h < 0n ? h + this.itemCount : h);
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
