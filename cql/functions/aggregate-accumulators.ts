// Cassandra 5.0's aggregate semantics for integers and floats (cql3/functions/AggregateFcts), the one place both
// read paths take them from: the row path (aggregate-functions.ts) adds single values; the columnar path adds the
// kernels' partials of every segment and the single values of buffer rows:
// - sum(tinyint|smallint|int|bigint|counter) has the argument's type and wraps like Java arithmetic;
// - avg of integers sums exactly (long, then BigInteger on overflow) and divides truncating toward zero;
// - sum/avg(float|double) use Kahan summation in doubles; sum returns the plain sum when infinities made the
//   compensated one NaN; float results are rounded to float;
// - count never wraps; sum/avg of no rows are 0; min/max of no rows are null.
// Float sums depend on summation order; the columnar path adds segment by segment, the row path in token order,
// so the two agree up to rounding (exactly, for values whose sums are exact in doubles).

import type { FloatSum, IntegerSum } from '../../storage/arrow/column-kernels.js';

export type IntegerWidth = 8 | 16 | 32 | 64;

/** sum() and avg() of an integer column of `width` bits. */
export class IntegerSumAccumulator {
  private sum = 0n;
  private count = 0;

  constructor(readonly width: IntegerWidth) {}

  addPartial(p: IntegerSum): void {
    this.sum += p.sum;
    this.count += p.count;
  }

  /** One value (a buffer row); null values are skipped as Cassandra does. */
  add(v: number | bigint | null): void {
    if (v === null) return;
    this.sum += BigInt(v);
    this.count++;
  }

  /** sum(): Java's wrapping add at the column's width. */
  sumResult(): bigint {
    return BigInt.asIntN(this.width, this.sum);
  }

  /** avg(): exact sum / count, truncated toward zero (BigInt division), 0 for no rows. */
  avgResult(): bigint {
    return this.count === 0 ? 0n : BigInt.asIntN(this.width, this.sum / BigInt(this.count));
  }

  get values(): number {
    return this.count;
  }
}

/** sum() and avg() of a float/double column: Cassandra's Kahan step, kept across partials. */
export class FloatSumAccumulator {
  private sum = 0;
  private compensation = 0;
  private simple = 0;
  private count = 0;

  constructor(readonly single: boolean) {}

  private step(d: number): void {
    const t = d - this.compensation;
    const r = this.sum + t;
    this.compensation = r - this.sum - t;
    this.sum = r;
  }

  add(v: number | null): void {
    if (v === null) return;
    this.count++;
    this.simple += v;
    this.step(v);
  }

  addPartial(p: FloatSum): void {
    if (p.count === 0) return;
    this.count += p.count;
    this.simple += p.simple;
    // A partial is worth sum - compensation.
    this.step(p.sum);
    this.step(-p.compensation);
  }

  private total(): number {
    const tmp = this.sum + this.compensation;
    return Number.isNaN(tmp) && !Number.isFinite(this.simple) && !Number.isNaN(this.simple) ? this.simple : tmp;
  }

  sumResult(): number {
    const s = this.total();
    return this.single ? Math.fround(s) : s;
  }

  /**
   * avg(): total / count. (Cassandra switches to BigDecimal when the running sum overflows a double; that corner
   * is not reproduced: such an average comes out infinite here.)
   */
  avgResult(): number {
    if (this.count === 0) return 0;
    const a = this.total() / this.count;
    return this.single ? Math.fround(a) : a;
  }

  get values(): number {
    return this.count;
  }
}
