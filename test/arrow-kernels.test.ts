// Column kernels vs a naive row-by-row reference (Cassandra's semantics), on random data with nulls, deletions and
// expiries; Java overflow behaviour of sum/avg.
import type { Data } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FloatSumAccumulator, IntegerSumAccumulator } from '../cql/functions/aggregate-accumulators.js';
import { type CqlType, native } from '../cql/types/cql-type.js';
import { compareValues } from '../cql/types/value-comparator.js';
import { type TwinColumn, twinLayout } from '../storage/arrow/arrow-schema.js';
import {
  type CompareOp,
  countRows,
  countValues,
  filterCompare,
  javaCompare,
  maxOf,
  minOf,
  sumFloats,
  sumIntegers,
} from '../storage/arrow/column-kernels.js';
import { DeletionVector } from '../storage/arrow/deletion-vector.js';
import { liveRows, type RowMask } from '../storage/arrow/row-mask.js';
import { buildSegment, type TwinRow } from '../storage/arrow/segment-builder.js';
import { openSegment, twinColumns } from '../storage/arrow/segment-reader.js';

const NOW = 1_800_000_000;

interface NumCol {
  readonly id: number;
  readonly type: CqlType;
  readonly width: 8 | 16 | 32 | 64;
  readonly float: boolean;
  readonly encode: (v: number | bigint) => Buffer;
}

function enc(bytes: number, write: (b: Buffer, v: never) => void) {
  return (v: number | bigint) => {
    const b = Buffer.alloc(bytes);
    write(b, v as never);
    return b;
  };
}

const NUM_COLS: NumCol[] = [
  { id: 1, type: native('tinyint'), width: 8, float: false, encode: enc(1, (b, v: number) => b.writeInt8(v)) },
  { id: 2, type: native('smallint'), width: 16, float: false, encode: enc(2, (b, v: number) => b.writeInt16BE(v)) },
  { id: 3, type: native('int'), width: 32, float: false, encode: enc(4, (b, v: number) => b.writeInt32BE(v)) },
  { id: 4, type: native('bigint'), width: 64, float: false, encode: enc(8, (b, v: bigint) => b.writeBigInt64BE(v)) },
  { id: 5, type: native('float'), width: 32, float: true, encode: enc(4, (b, v: number) => b.writeFloatBE(v)) },
  { id: 6, type: native('double'), width: 64, float: true, encode: enc(8, (b, v: number) => b.writeDoubleBE(v)) },
];

const COLUMNS: TwinColumn[] = [
  { name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 },
  ...NUM_COLS.map((c) => ({ name: `c${c.id}`, id: c.id, kind: 'regular' as const, type: c.type, position: -1 })),
];
const layout = twinLayout(COLUMNS);

function valueArb(c: NumCol): fc.Arbitrary<number | bigint> {
  switch (c.width) {
    case 8:
      return fc.integer({ min: -128, max: 127 });
    case 16:
      return fc.integer({ min: -32768, max: 32767 });
    case 32:
      return c.float
        ? fc.oneof(fc.float({ noDefaultInfinity: true }), fc.integer({ min: -1000, max: 1000 }).map(Math.fround))
        : fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: -6, max: 6 }));
    case 64:
      return c.float
        ? fc.oneof(fc.double({ noDefaultInfinity: true }), fc.integer({ min: -1000, max: 1000 }), fc.constant(-0))
        : fc.oneof(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), fc.bigInt(-6n, 6n)); // small: near the filter constants
  }
}

interface RowSpec {
  values: (number | bigint | null)[];
  deleted: boolean;
  expires: number | null;
}

const rowArb = fc.record({
  values: fc.tuple(...NUM_COLS.map((c) => fc.option(valueArb(c), { nil: null, freq: 5 }))),
  deleted: fc.boolean(),
  expires: fc.option(fc.constantFrom(NOW - 1, NOW, NOW + 1), { nil: null, freq: 3 }),
});

// Sizes around word boundaries and past one full word so both kernel paths run.
const rowsArb = fc.oneof(
  fc.array(rowArb, { maxLength: 70 }),
  fc.array(rowArb, { minLength: 60, maxLength: 200 }),
  fc.array(
    rowArb.map((r) => ({ ...r, deleted: false, expires: null })),
    { minLength: 60, maxLength: 200 },
  ),
  // every row with an expiry: no validity bitmap on `_expires`
  fc.array(
    rowArb.map((r) => ({ ...r, expires: r.expires ?? NOW + 5 })),
    { minLength: 60, maxLength: 200 },
  ),
);

interface Built {
  rows: RowSpec[];
  cols: (id: number) => Data;
  sel: RowMask;
}

function build(specs: RowSpec[]): Built {
  const rows: TwinRow[] = specs.map((s, i) => ({
    token: BigInt(i),
    partitionKey: [NUM_COLS[2]!.encode(i)],
    clustering: [],
    cells: new Map(NUM_COLS.map((c, k) => [c.id, s.values[k] === null ? null : c.encode(s.values[k]!)])),
    writetime: 1,
    expires: s.expires,
  }));
  const seg = buildSegment(layout, rows);
  const ordered = [...seg.order].map((i) => specs[i]!);
  const dv = new DeletionVector(rows.length);
  ordered.forEach((s, i) => {
    if (s.deleted) dv.set(i);
  });
  const open = openSegment(seg.ipc);
  const tc = twinColumns(open, layout);
  return { rows: ordered, cols: (id) => tc.column(id)!, sel: liveRows(rows.length, dv, tc.expires, NOW) };
}

function isLive(s: RowSpec): boolean {
  return !s.deleted && (s.expires === null || s.expires > NOW);
}

/** Cassandra's compare of two values of the column, via the project's byte comparator (an independent oracle). */
function cassandraCompare(c: NumCol, a: number | bigint, b: number | bigint): number {
  return Math.sign(compareValues(c.type, c.encode(a), c.encode(b)));
}

function liveValues(b: Built, k: number): (number | bigint)[] {
  return b.rows.filter(isLive).flatMap((s) => (s.values[k] === null ? [] : [s.values[k]!]));
}

function sameNumber(a: number | bigint | undefined, b: number | bigint | undefined): boolean {
  return typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : a === b;
}

describe('column kernels vs a row-by-row reference', () => {
  it('count(*) and count(col)', () => {
    fc.assert(
      fc.property(rowsArb, (specs) => {
        const b = build(specs);
        expect(countRows(b.sel, specs.length)).toBe(b.rows.filter(isLive).length);
        NUM_COLS.forEach((c, k) => {
          expect(countValues(b.cols(c.id), b.sel)).toBe(liveValues(b, k).length);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('integer sum and avg wrap and divide as Java does', () => {
    fc.assert(
      fc.property(rowsArb, (specs) => {
        const b = build(specs);
        NUM_COLS.forEach((c, k) => {
          if (c.float) return;
          const vals = liveValues(b, k).map((v) => BigInt(v));
          // Reference: Java's `sum += v` at the column width, step by step; avg exact then truncated.
          let wrapped = 0n;
          for (const v of vals) wrapped = BigInt.asIntN(c.width, wrapped + v);
          const exact = vals.reduce((x, y) => x + y, 0n);
          const acc = new IntegerSumAccumulator(c.width);
          acc.addPartial(sumIntegers(b.cols(c.id), b.sel));
          expect(acc.sumResult()).toBe(wrapped);
          expect(acc.avgResult()).toBe(vals.length === 0 ? 0n : exact / BigInt(vals.length));
        });
      }),
      { numRuns: 150 },
    );
  });

  it('float sums: Kahan, equal to the sequential reference up to rounding, exact for exact sums', () => {
    fc.assert(
      fc.property(rowsArb, (specs) => {
        const b = build(specs);
        NUM_COLS.forEach((c, k) => {
          if (!c.float) return;
          const vals = liveValues(b, k) as number[];
          const ref = new FloatSumAccumulator(c.width === 32);
          for (const v of vals) ref.add(v);
          const acc = new FloatSumAccumulator(c.width === 32);
          acc.addPartial(sumFloats(b.cols(c.id), b.sel));
          const want = ref.sumResult();
          const got = acc.sumResult();
          // Exact only while every partial sum is an exactly representable integer (huge doubles are integers too).
          const exact = vals.every(Number.isSafeInteger) && vals.reduce((m, v) => m + Math.abs(v), 0) <= 2 ** 53;
          if (exact) expect(got).toBe(want);
          else if (Number.isFinite(want)) {
            const scale = vals.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
            expect(Math.abs(got - want)).toBeLessThanOrEqual(scale * 1e-12 * Math.max(1, vals.length));
          }
          expect(acc.values).toBe(vals.length);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('min and max follow Cassandra ordering (NaN highest, -0.0 < 0.0)', () => {
    const withSpecials = fc.array(
      rowArb.map((r) => ({
        ...r,
        values: r.values.map((v, k) => (NUM_COLS[k]!.float && typeof v === 'number' && v % 3 === 0 ? -0 : v)),
      })),
      { maxLength: 100 },
    );
    fc.assert(
      fc.property(fc.oneof(rowsArb, withSpecials), (specs) => {
        const b = build(specs);
        NUM_COLS.forEach((c, k) => {
          const vals = liveValues(b, k).map((v) => (c.width === 64 && !c.float ? BigInt(v) : v));
          let max: number | bigint | undefined;
          let min: number | bigint | undefined;
          for (const v of vals) {
            if (max === undefined || cassandraCompare(c, max, v) < 0) max = v;
            if (min === undefined || cassandraCompare(c, min, v) > 0) min = v;
          }
          const data = b.cols(c.id);
          expect(sameNumber(maxOf(data, b.sel), max), `max ${c.type.kind} ${String(max)}`).toBe(true);
          expect(sameNumber(minOf(data, b.sel), min), `min ${String(min)}`).toBe(true);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('filters `col op constant` with Cassandra comparisons, and feed aggregates (max(x) WHERE y > ?)', () => {
    const ops: CompareOp[] = ['=', '!=', '<', '<=', '>', '>='];
    fc.assert(
      fc.property(
        rowsArb,
        fc.constantFrom(...ops),
        fc.integer({ min: 0, max: NUM_COLS.length - 1 }),
        fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0, -0, Number.NaN, 0.5)),
        (specs, op, k, rawConstant) => {
          const c = NUM_COLS[k]!;
          if (!c.float && !Number.isInteger(rawConstant)) return;
          const constant: number | bigint =
            c.width === 64 && !c.float
              ? BigInt(rawConstant)
              : c.width === 32 && c.float
                ? Math.fround(rawConstant)
                : rawConstant;
          const b = build(specs);
          const sel = filterCompare(b.cols(c.id), op, constant, b.sel);
          const x = NUM_COLS[5]!; // max(double) WHERE c op constant
          let max: number | undefined;
          let matches = 0;
          for (const s of b.rows) {
            const v = s.values[k];
            if (!isLive(s) || v === null) continue;
            const cmp = cassandraCompare(c, v, constant);
            const ok =
              op === '='
                ? cmp === 0
                : op === '!='
                  ? cmp !== 0
                  : op === '<'
                    ? cmp < 0
                    : op === '<='
                      ? cmp <= 0
                      : op === '>'
                        ? cmp > 0
                        : cmp >= 0;
            if (!ok) continue;
            matches++;
            const xv = s.values[5] as number | null;
            if (xv !== null && (max === undefined || cassandraCompare(x, max, xv) < 0)) max = xv;
          }
          expect(countRows(sel, specs.length)).toBe(matches);
          expect(sameNumber(maxOf(b.cols(x.id), sel), max)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('Java overflow semantics', () => {
  function column(c: NumCol, values: (number | bigint)[]): Data {
    const rows: TwinRow[] = values.map((v, i) => ({
      token: BigInt(i),
      partitionKey: [NUM_COLS[2]!.encode(i)],
      clustering: [],
      cells: new Map([[c.id, c.encode(v)]]),
      writetime: 1,
      expires: null,
    }));
    return twinColumns(openSegment(buildSegment(layout, rows).ipc), layout).column(c.id)!;
  }

  it('sum(int) wraps like Java int, avg(int) does not', () => {
    const acc = new IntegerSumAccumulator(32);
    acc.addPartial(sumIntegers(column(NUM_COLS[2]!, [2147483647, 1, 2147483647]), null));
    expect(acc.sumResult()).toBe(-1n); // 2^31-1 + 1 + 2^31-1 = 2^32-1 wraps to -1
    expect(acc.avgResult()).toBe(1431655765n); // (2^32 - 1) / 3, exact
  });

  it('sum(bigint) wraps like Java long; avg(bigint) falls back to exact arithmetic', () => {
    const max = 2n ** 63n - 1n;
    const acc = new IntegerSumAccumulator(64);
    acc.addPartial(sumIntegers(column(NUM_COLS[3]!, [max, max, 2n]), null));
    expect(acc.sumResult()).toBe(0n);
    expect(acc.avgResult()).toBe((2n * max + 2n) / 3n);
    const neg = new IntegerSumAccumulator(64);
    neg.addPartial(sumIntegers(column(NUM_COLS[3]!, [-(2n ** 63n), -1n]), null));
    expect(neg.sumResult()).toBe(max);
    expect(neg.avgResult()).toBe(-(2n ** 62n)); // (-2^63 - 1) / 2 truncates toward zero
  });

  it('sum(tinyint) / sum(smallint) wrap at their width; avg truncates toward zero', () => {
    const t = new IntegerSumAccumulator(8);
    t.addPartial(sumIntegers(column(NUM_COLS[0]!, [100, 100]), null));
    expect(t.sumResult()).toBe(-56n);
    expect(t.avgResult()).toBe(100n);
    const s = new IntegerSumAccumulator(16);
    s.addPartial(sumIntegers(column(NUM_COLS[1]!, [-7, 2]), null));
    expect(s.avgResult()).toBe(-2n);
    expect(new IntegerSumAccumulator(32).avgResult()).toBe(0n);
  });

  it('sum(int) of many large values stays exact across kernel blocks', () => {
    const n = 1_100_000; // past one 2^20-row block
    const acc = new IntegerSumAccumulator(32);
    const vals = new Array<number>(n).fill(2147483647);
    acc.addPartial(sumIntegers(column(NUM_COLS[2]!, vals), null));
    expect(acc.sumResult()).toBe(BigInt.asIntN(32, 2147483647n * BigInt(n)));
    expect(acc.avgResult()).toBe(2147483647n);
  });

  it('sum(double) with infinities returns the plain sum, as Cassandra does', () => {
    const acc = new FloatSumAccumulator(false);
    acc.addPartial(sumFloats(column(NUM_COLS[5]!, [1, Number.POSITIVE_INFINITY, 2]), null));
    expect(acc.sumResult()).toBe(Number.POSITIVE_INFINITY);
    const mixed = new FloatSumAccumulator(false);
    mixed.addPartial(sumFloats(column(NUM_COLS[5]!, [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]), null));
    expect(mixed.sumResult()).toBeNaN();
    const f = new FloatSumAccumulator(true);
    f.addPartial(sumFloats(column(NUM_COLS[4]!, [0.1, 0.2]), null));
    expect(f.sumResult()).toBe(Math.fround(Math.fround(0.1) + Math.fround(0.2)));
  });

  it('sum(double) of a large dense column (the native kernel): Kahan-accurate, exact where the sum is, infinities', () => {
    const n = 20_000;
    const values = Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 4 - 100); // quarters: sums are exact
    const exact = values.reduce((a, b) => a + b, 0);
    const acc = new FloatSumAccumulator(false);
    acc.addPartial(sumFloats(column(NUM_COLS[5]!, values), null));
    expect(acc.sumResult()).toBe(exact);
    // Values whose plain sum drifts: the compensated sum stays within an ulp or two of the exact one.
    const tenths = Array.from({ length: n }, (_, i) => 0.1 * (i % 10) + 1e8);
    const compensated = new FloatSumAccumulator(false);
    compensated.addPartial(sumFloats(column(NUM_COLS[5]!, tenths), null));
    const reference = tenths.length * 1e8 + (n / 10) * 4.5;
    expect(Math.abs(compensated.sumResult() - reference)).toBeLessThan(reference * 4e-16);
    const inf = new FloatSumAccumulator(false);
    inf.addPartial(sumFloats(column(NUM_COLS[5]!, [...values.slice(0, 5000), Number.POSITIVE_INFINITY]), null));
    expect(inf.sumResult()).toBe(Number.POSITIVE_INFINITY);
  });

  it('filters a large double column (the native filter) exactly as Java compares, NaN, ±0 and infinities included', () => {
    const specials = [Number.NaN, 0, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, -3, 1e300];
    const values = Array.from({ length: 9000 + 17 }, (_, i) =>
      i % 7 === 0 ? specials[(i / 7) % specials.length]! : ((i * 7919) % 2001) / 200 - 5,
    );
    const data = column(NUM_COLS[5]!, values);
    const ops: CompareOp[] = ['=', '!=', '<', '<=', '>', '>='];
    for (const constant of [0.5, -3, 1e300, 2.995]) {
      for (const op of ops) {
        const words = filterCompare(data, op, constant, null);
        const wrong: number[] = [];
        values.forEach((v, i) => {
          const c = javaCompare(v, constant);
          const want =
            op === '='
              ? c === 0
              : op === '!='
                ? c !== 0
                : op === '<'
                  ? c < 0
                  : op === '<='
                    ? c <= 0
                    : op === '>'
                      ? c > 0
                      : c >= 0;
          const got = (words[i >>> 5]! & (1 << (i & 31))) !== 0;
          if (got !== want) wrong.push(i);
        });
        expect(wrong.slice(0, 5), `${op} ${constant}`).toEqual([]);
      }
    }
  });

  it('combines partials of several segments and buffer rows', () => {
    const acc = new IntegerSumAccumulator(32);
    acc.addPartial(sumIntegers(column(NUM_COLS[2]!, [1, 2, 3]), null));
    acc.addPartial(sumIntegers(column(NUM_COLS[2]!, [2147483647]), null));
    acc.add(10);
    acc.add(null);
    expect(acc.sumResult()).toBe(BigInt.asIntN(32, 2147483647n + 16n));
    expect(acc.values).toBe(5);
  });
});
