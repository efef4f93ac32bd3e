// A log-linear latency histogram in the spirit of HdrHistogram: values (microseconds) below 256 are
// counted exactly; above, each power of two is split into 128 linear sub-buckets, so any recorded
// value is known to within 1/128 (< 0.8 %) without storing samples. Count, sum, min and max are exact.

const SUB_BITS = 7;
const SUB_COUNT = 1 << SUB_BITS; // 128 sub-buckets per power of two
const MAX_SHIFT = 31; // values up to 2^38 µs (~3 days); larger ones land in the last bucket
const MAX_VALUE = 2 ** (MAX_SHIFT + SUB_BITS + 1) - 1;
const BUCKETS = SUB_COUNT * (MAX_SHIFT + 2);

function indexOf(value: number): number {
  if (value < SUB_COUNT * 2) return value;
  if (value > MAX_VALUE) value = MAX_VALUE;
  const shift = 31 - Math.clz32(Math.floor(value / SUB_COUNT)); // floor(log2(value)) - SUB_BITS
  const mantissa = Math.floor(value / 2 ** shift); // in [128, 256)
  return SUB_COUNT * shift + mantissa;
}

/** The value that stands for a bucket: the middle of its range (exact below 256). */
function valueOf(index: number): number {
  if (index < SUB_COUNT * 2) return index;
  const shift = Math.floor(index / SUB_COUNT) - 1;
  const mantissa = index - SUB_COUNT * shift;
  return mantissa * 2 ** shift + (2 ** shift - 1) / 2;
}

export class LatencyHistogram {
  private counts = new Float64Array(BUCKETS);
  count = 0;
  sum = 0;
  sumSquares = 0;
  min = Number.POSITIVE_INFINITY;
  max = 0;

  /** Records one latency in microseconds (fractions are rounded). */
  record(micros: number): void {
    const v = Math.max(0, Math.round(micros));
    this.counts[indexOf(v)]! += 1;
    this.count += 1;
    this.sum += v;
    this.sumSquares += v * v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  add(other: LatencyHistogram): void {
    if (other.count === 0) return;
    for (let i = 0; i < BUCKETS; i++) {
      const c = other.counts[i]!;
      if (c !== 0) this.counts[i]! += c;
    }
    this.count += other.count;
    this.sum += other.sum;
    this.sumSquares += other.sumSquares;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  reset(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.sumSquares = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = 0;
  }

  mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  stddev(): number {
    if (this.count === 0) return 0;
    const m = this.mean();
    return Math.sqrt(Math.max(0, this.sumSquares / this.count - m * m));
  }

  /** The value at quantile q (0..1): the smallest recorded value with at least q of the counts at or below it. */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    if (q >= 1) return this.max;
    const target = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= target) return Math.min(this.max, Math.max(this.min, valueOf(i)));
    }
    return this.max;
  }
}
