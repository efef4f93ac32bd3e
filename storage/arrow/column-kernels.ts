// Tight loops over one segment's numeric column and a row mask (row-mask.ts): count, exact integer sums,
// Kahan float sums, min/max with Java's ordering, and `column op constant` filters producing a mask.
// Each has a fast path for "every row" (no nulls, no deletions, no expiries) and otherwise walks 32-row words,
// taking a plain inner loop for full words and skipping empty ones. Results are partial:
// cql/functions/aggregate-accumulators.ts folds them across segments and buffer rows with Cassandra's result types.

import { type Data, Type } from 'apache-arrow';
import { type NativeKernels, nativeKernels } from '../native-binding.js';
import { countSelected, type RowMask, withValues, wordCount } from './row-mask.js';

export type NumericKind = 'int8' | 'int16' | 'int32' | 'int64' | 'float32' | 'float64';

/** The physical kind of a numeric column (date = int32 days; timestamp, time = int64); undefined if not numeric. */
export function numericKind(data: Data): NumericKind | undefined {
  const t = data.type as { typeId: Type; bitWidth?: number; precision?: number; unit?: number };
  switch (t.typeId) {
    case Type.Int:
      return t.bitWidth === 8 ? 'int8' : t.bitWidth === 16 ? 'int16' : t.bitWidth === 32 ? 'int32' : 'int64';
    case Type.Float:
      return t.precision === 1 ? 'float32' : t.precision === 2 ? 'float64' : undefined;
    case Type.Date:
      return 'int32';
    case Type.Timestamp:
    case Type.Time:
      return 'int64';
    default:
      return undefined;
  }
}

function kindOf(data: Data): NumericKind {
  const k = numericKind(data);
  if (!k) throw new TypeError(`not a numeric column: ${data.type}`);
  if (data.offset !== 0) throw new RangeError('column kernels expect unsliced segment data');
  return k;
}

/** Int64 values as (low, high) int32 pairs: BigInt64Array reads allocate a bigint per element. */
function int64Words(data: Data): Int32Array {
  const v = data.values as BigInt64Array;
  return new Int32Array(v.buffer, v.byteOffset, v.length * 2);
}

// ---- count ------------------------------------------------------------------------------------

/** count(*) over the selection. */
export function countRows(sel: RowMask, rows: number): number {
  return countSelected(sel, rows);
}

/** count(column): selected rows where the column is not null. */
export function countValues(data: Data, sel: RowMask): number {
  return countSelected(withValues(data, sel), data.length);
}

// ---- integer sums -----------------------------------------------------------------------------

export interface IntegerSum {
  /** The exact sum (wrapping to the column width is the accumulator's business). */
  sum: bigint;
  count: number;
}

/** Rows per block whose partial sums stay exact in a double (|v| < 2^32 per half, 2^20 rows). */
const BLOCK_WORDS = 1 << 15;

// Dense ("every row") and sparse (selection) loops are separate functions: in one function, the path not taken
// before optimization has no type feedback, and V8 deoptimizes again each time a call switches paths.

function sumNarrowDense(v: Int8Array | Int16Array | Int32Array, n: number): bigint {
  let total = 0n;
  for (let start = 0; start < n; start += BLOCK_WORDS * 32) {
    const end = Math.min(n, start + BLOCK_WORDS * 32);
    let s = 0;
    for (let i = start; i < end; i++) s += v[i]!;
    total += BigInt(s);
  }
  return total;
}

function sumNarrowSparse(v: Int8Array | Int16Array | Int32Array, n: number, sel: Int32Array): bigint {
  let total = 0n;
  const words = wordCount(n);
  for (let w0 = 0; w0 < words; w0 += BLOCK_WORDS) {
    const w1 = Math.min(words, w0 + BLOCK_WORDS);
    let s = 0;
    for (let w = w0; w < w1; w++) {
      let bits = sel[w]!;
      if (bits === 0) continue;
      const base = w << 5;
      if (bits === -1) {
        for (let j = base; j < base + 32; j++) s += v[j]!;
        continue;
      }
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        s += v[base + 31 - Math.clz32(low)]!;
      }
    }
    total += BigInt(s);
  }
  return total;
}

function sumInt64(words32: Int32Array, n: number, sel: RowMask): bigint {
  // sum = sum(high) * 2^32 + sum(low as unsigned): both halves stay exact per block.
  let hiTotal = 0n;
  let loTotal = 0n;
  const words = wordCount(n);
  for (let w0 = 0; w0 < words; w0 += BLOCK_WORDS) {
    const w1 = Math.min(words, w0 + BLOCK_WORDS);
    let hi = 0;
    let lo = 0;
    for (let w = w0; w < w1; w++) {
      let bits = sel === null ? -1 : sel[w]!;
      if (bits === 0) continue;
      const base = w << 5;
      if (bits === -1) {
        const end = Math.min(n, base + 32);
        for (let j = base; j < end; j++) {
          lo += words32[2 * j]! >>> 0;
          hi += words32[2 * j + 1]!;
        }
        continue;
      }
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const j = base + 31 - Math.clz32(low);
        lo += words32[2 * j]! >>> 0;
        hi += words32[2 * j + 1]!;
      }
    }
    hiTotal += BigInt(hi);
    loTotal += BigInt(lo);
  }
  return (hiTotal << 32n) + loTotal;
}

/** Exact sum and count of an integer column's selected non-null values. */
export function sumIntegers(data: Data, sel: RowMask): IntegerSum {
  const kind = kindOf(data);
  const s = withValues(data, sel);
  const count = countSelected(s, data.length);
  if (kind === 'int64') return { sum: sumInt64(int64Words(data), data.length, s), count };
  if (kind === 'float32' || kind === 'float64') throw new TypeError('sumIntegers over a float column');
  const v = data.values as Int32Array;
  return { sum: s === null ? sumNarrowDense(v, data.length) : sumNarrowSparse(v, data.length, s), count };
}

// ---- float sums -------------------------------------------------------------------------------

/**
 * A Kahan partial as Cassandra keeps it (FloatSumAggregate): `sum`, and `compensation` = (rounded - sum) - term,
 * so the exact total is about sum - compensation. `simple` is the plain sum, which Cassandra returns instead when
 * infinities turn the compensated sum into NaN.
 */
export interface FloatSum {
  sum: number;
  compensation: number;
  simple: number;
  count: number;
}

/** Lane state: s0..s3 then c0..c3 (one reused array: the loops keep them in registers and store once). */
const lanes = new Float64Array(8);

/**
 * Four independent Kahan lanes: one lane's dependency chain (4 dependent adds per value) caps a loop at a
 * quarter of the speed; interleaving four keeps the FPU busy. Lanes are folded at the end.
 */
function kahanDense(v: Float64Array | Float32Array, n: number): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let t = 0;
  let r = 0;
  const m = n & ~3;
  let i = 0;
  for (; i < m; i += 4) {
    t = v[i]! - c0;
    r = s0 + t;
    c0 = r - s0 - t;
    s0 = r;
    t = v[i + 1]! - c1;
    r = s1 + t;
    c1 = r - s1 - t;
    s1 = r;
    t = v[i + 2]! - c2;
    r = s2 + t;
    c2 = r - s2 - t;
    s2 = r;
    t = v[i + 3]! - c3;
    r = s3 + t;
    c3 = r - s3 - t;
    s3 = r;
  }
  for (; i < n; i++) {
    t = v[i]! - c0;
    r = s0 + t;
    c0 = r - s0 - t;
    s0 = r;
  }
  lanes[0] = s0;
  lanes[1] = s1;
  lanes[2] = s2;
  lanes[3] = s3;
  lanes[4] = c0;
  lanes[5] = c1;
  lanes[6] = c2;
  lanes[7] = c3;
}

function kahanSparse(v: Float64Array | Float32Array, n: number, sel: Int32Array): void {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let t = 0;
  let r = 0;
  const words = wordCount(n);
  for (let w = 0; w < words; w++) {
    let bits = sel[w]!;
    if (bits === 0) continue;
    const base = w << 5;
    if (bits === -1) {
      for (let i = base; i < base + 32; i += 4) {
        t = v[i]! - c0;
        r = s0 + t;
        c0 = r - s0 - t;
        s0 = r;
        t = v[i + 1]! - c1;
        r = s1 + t;
        c1 = r - s1 - t;
        s1 = r;
        t = v[i + 2]! - c2;
        r = s2 + t;
        c2 = r - s2 - t;
        s2 = r;
        t = v[i + 3]! - c3;
        r = s3 + t;
        c3 = r - s3 - t;
        s3 = r;
      }
      continue;
    }
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      t = v[base + 31 - Math.clz32(low)]! - c0;
      r = s0 + t;
      c0 = r - s0 - t;
      s0 = r;
    }
  }
  lanes[0] = s0;
  lanes[1] = s1;
  lanes[2] = s2;
  lanes[3] = s3;
  lanes[4] = c0;
  lanes[5] = c1;
  lanes[6] = c2;
  lanes[7] = c3;
}

/** Folds the lanes with the same Kahan step (each lane is worth s - c) into `out`. */
function foldLanes(out: FloatSum): void {
  let sum = 0;
  let comp = 0;
  for (let k = 0; k < 8; k++) {
    const t = (k & 1 ? -lanes[4 + (k >>> 1)]! : lanes[k >>> 1]!) - comp;
    const r = sum + t;
    comp = r - sum - t;
    sum = r;
  }
  out.sum = sum;
  out.compensation = comp;
  out.simple = sum;
}

function plainSum(v: Float64Array | Float32Array, n: number, sel: RowMask): number {
  let s = 0;
  for (let i = 0; i < n; i++) if (sel === null || sel[i >>> 5]! & (1 << (i & 31))) s += v[i]!;
  return s;
}

/**
 * Double columns of at least this many rows go to the native kernels (native/src/kahan-sum.cc, double-kernels.cc:
 * the sum and the filter, ~2x these JS loops over 10 M rows here; a call costs ~1 µs, so small columns stay in
 * JS). A native max over a filter's selection measured slower than maxFloatSparse and was dropped.
 * PMEMCQL_NATIVE_KERNELS=off keeps every loop in JS.
 */
const NATIVE_MIN_ROWS = 4096;
const nativeOut = new Float64Array(2);
let nativeFns: NativeKernels | null | undefined;

function native(n: number): NativeKernels | null {
  if (n < NATIVE_MIN_ROWS) return null;
  if (nativeFns === undefined) {
    nativeFns = process.env.PMEMCQL_NATIVE_KERNELS === 'off' ? null : (nativeKernels() ?? null);
  }
  return nativeFns;
}

/** Operator codes of native/src/double-kernels.h. */
const COMPARE_CODES: Record<CompareOp, number> = { '=': 0, '!=': 1, '<': 2, '<=': 3, '>': 4, '>=': 5 };

/** Kahan partial sum and count of a float/double column's selected non-null values. */
export function sumFloats(data: Data, sel: RowMask): FloatSum {
  const kind = kindOf(data);
  if (kind !== 'float32' && kind !== 'float64') throw new TypeError('sumFloats over an integer column');
  const s = withValues(data, sel);
  const v = data.values as Float64Array | Float32Array;
  const out: FloatSum = { sum: 0, compensation: 0, simple: 0, count: countSelected(s, data.length) };
  const nk = kind === 'float64' && s === null ? native(data.length) : null;
  if (nk) {
    nk.kahanSumF64((v as Float64Array).subarray(0, data.length), nativeOut);
    out.sum = nativeOut[0]!;
    out.compensation = nativeOut[1]!;
    out.simple = out.sum;
  } else {
    if (s === null) kahanDense(v, data.length);
    else kahanSparse(v, data.length, s);
    foldLanes(out);
  }
  // Infinities make the compensated sum NaN; Cassandra then answers with the plain sum (rare: recompute it).
  if (Number.isNaN(out.sum + out.compensation)) out.simple = plainSum(v, data.length, s);
  return out;
}

// ---- min / max --------------------------------------------------------------------------------

/** Result of the float extreme loops: [extreme, NaN count]. */
const extremeOut = new Float64Array(2);

// One function per (max | min) x (dense | sparse): see the note on dense and sparse loops above.
// Math.max orders doubles exactly as Java's Double.compare does (NaN wins, +0.0 beats -0.0) and compiles to a
// branch-free instruction sequence: 2x faster than compare-and-branch here. Math.min does not (NaN would win),
// so min compares plainly and counts NaNs on the side (only values failing the comparison are checked).
function maxFloatDense(v: Float64Array | Float32Array, n: number): void {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) m = Math.max(m, v[i]!);
  extremeOut[0] = m;
  extremeOut[1] = 0;
}

function minFloatDense(v: Float64Array | Float32Array, n: number): void {
  let m = Number.POSITIVE_INFINITY;
  let nans = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    if (x < m) m = x;
    else if (Number.isNaN(x)) nans++;
  }
  extremeOut[0] = m;
  extremeOut[1] = nans;
}

function maxFloatSparse(v: Float64Array | Float32Array, n: number, sel: Int32Array): void {
  let m = Number.NEGATIVE_INFINITY;
  const words = wordCount(n);
  for (let w = 0; w < words; w++) {
    let bits = sel[w]!;
    if (bits === 0) continue;
    const base = w << 5;
    if (bits === -1) {
      for (let i = base; i < base + 32; i++) m = Math.max(m, v[i]!);
      continue;
    }
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      m = Math.max(m, v[base + 31 - Math.clz32(low)]!);
    }
  }
  extremeOut[0] = m;
  extremeOut[1] = 0;
}

function minFloatSparse(v: Float64Array | Float32Array, n: number, sel: Int32Array): void {
  let m = Number.POSITIVE_INFINITY;
  let nans = 0;
  const words = wordCount(n);
  for (let w = 0; w < words; w++) {
    let bits = sel[w]!;
    if (bits === 0) continue;
    const base = w << 5;
    if (bits === -1) {
      for (let i = base; i < base + 32; i++) {
        const x = v[i]!;
        if (x < m) m = x;
        else if (Number.isNaN(x)) nans++;
      }
      continue;
    }
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const x = v[base + 31 - Math.clz32(low)]!;
      if (x < m) m = x;
      else if (Number.isNaN(x)) nans++;
    }
  }
  extremeOut[0] = m;
  extremeOut[1] = nans;
}

function floatExtreme(v: Float64Array | Float32Array, n: number, sel: RowMask, max: boolean): number | undefined {
  // Java's Double.compare order (what Cassandra's min/max use): -0.0 < 0.0 and NaN above everything.
  const seen = countSelected(sel, n);
  if (seen === 0) return undefined;
  if (sel === null) {
    if (max) maxFloatDense(v, n);
    else minFloatDense(v, n);
  } else if (max) maxFloatSparse(v, n, sel);
  else minFloatSparse(v, n, sel);
  const m = extremeOut[0]!;
  const nans = extremeOut[1]!;
  if (max) return m;
  if (nans === seen) return Number.NaN;
  if (m === 0) {
    // The first zero seen won; -0.0 may be there too (rare: scan again).
    const want = -0;
    for (let i = 0; i < n; i++) {
      if ((sel === null || sel[i >>> 5]! & (1 << (i & 31))) && Object.is(v[i], want)) return want;
    }
  }
  return m;
}

function narrowExtreme(v: Int8Array | Int16Array | Int32Array, n: number, sel: RowMask, max: boolean) {
  let m = max ? -Infinity : Infinity;
  let seen = false;
  const words = wordCount(n);
  for (let w = 0; w < words; w++) {
    let bits = sel === null ? -1 : sel[w]!;
    if (bits === 0) continue;
    seen = true;
    const base = w << 5;
    if (bits === -1) {
      const end = Math.min(n, base + 32);
      if (max) for (let i = base; i < end; i++) m = Math.max(v[i]!, m);
      else for (let i = base; i < end; i++) m = Math.min(v[i]!, m);
      continue;
    }
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const x = v[base + 31 - Math.clz32(low)]!;
      if (max ? x > m : x < m) m = x;
    }
  }
  return seen && n > 0 ? m : undefined;
}

function int64Extreme(w32: Int32Array, n: number, sel: RowMask, max: boolean): bigint | undefined {
  let mh = 0;
  let ml = 0;
  let seen = false;
  for (let i = 0; i < n; i++) {
    if (sel !== null && !(sel[i >>> 5]! & (1 << (i & 31)))) continue;
    const h = w32[2 * i + 1]!;
    const l = w32[2 * i]! >>> 0;
    if (!seen || (max ? h > mh || (h === mh && l > ml) : h < mh || (h === mh && l < ml))) {
      mh = h;
      ml = l;
      seen = true;
    }
  }
  return seen ? (BigInt(mh) << 32n) + BigInt(ml) : undefined;
}

function extreme(data: Data, sel: RowMask, max: boolean): number | bigint | undefined {
  const kind = kindOf(data);
  const s = withValues(data, sel);
  const n = data.length;
  switch (kind) {
    case 'float32':
    case 'float64':
      return floatExtreme(data.values as Float64Array, n, s, max);
    case 'int64':
      return int64Extreme(int64Words(data), n, s, max);
    default:
      return narrowExtreme(data.values as Int32Array, n, s, max);
  }
}

/** max(column) over the selection (bigint for 64-bit columns); undefined when there is no value. */
export function maxOf(data: Data, sel: RowMask): number | bigint | undefined {
  return extreme(data, sel, true);
}

export function minOf(data: Data, sel: RowMask): number | bigint | undefined {
  return extreme(data, sel, false);
}

// ---- filters ----------------------------------------------------------------------------------

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Java's Double.compare (Cassandra compares floats and doubles with it, in filters too). */
export function javaCompare(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
  if (x === 0 && y === 0) {
    const xneg = Object.is(x, -0);
    return xneg === Object.is(y, -0) ? 0 : xneg ? -1 : 1;
  }
  return 0;
}

function accepts(op: CompareOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

type NumArray = Float64Array | Float32Array | Int8Array | Int16Array | Int32Array;

// One loop per operator (a switch inside the word loop ran 2x slower). Predicate bits are built branch-free:
// `+(a > b)` compiles to a flag, not a jump; with random data a branch mispredicts half the time. For floats with
// a constant that is neither zero nor NaN, JS comparisons give Java's answers once NaN is placed above everything:
// `!(v <= c)` for `>`.
function gtWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +!(v[b + j]! <= c) << j;
    out[w] = m;
  }
}

function geWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +!(v[b + j]! < c) << j;
    out[w] = m;
  }
}

function ltWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +(v[b + j]! < c) << j;
    out[w] = m;
  }
}

function leWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +(v[b + j]! <= c) << j;
    out[w] = m;
  }
}

function eqWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +(v[b + j]! === c) << j;
    out[w] = m;
  }
}

function neWords(v: NumArray, full: number, c: number, out: Int32Array): void {
  for (let w = 0; w < full; w++) {
    const b = w << 5;
    let m = 0;
    for (let j = 0; j < 32; j++) m |= +(v[b + j]! !== c) << j;
    out[w] = m;
  }
}

/**
 * Predicate bits of `v op c` over int64 values as (low, high) halves, branch-free: gt / lt / eq of each value,
 * combined by which of them the operator accepts.
 */
function int64Words32(w32: Int32Array, n: number, op: CompareOp, ch: number, cl: number, out: Int32Array): void {
  const wantGt = op === '>' || op === '>=' || op === '!=' ? 1 : 0;
  const wantLt = op === '<' || op === '<=' || op === '!=' ? 1 : 0;
  const wantEq = op === '=' || op === '>=' || op === '<=' ? 1 : 0;
  const words = wordCount(n);
  for (let w = 0; w < words; w++) {
    const b = w << 5;
    const end = Math.min(32, n - b);
    let m = 0;
    for (let j = 0; j < end; j++) {
      const h = w32[2 * (b + j) + 1]!;
      const l = w32[2 * (b + j)]! >>> 0;
      const sameHigh = +(h === ch);
      const gt = +(h > ch) | (sameHigh & +(l > cl));
      const lt = +(h < ch) | (sameHigh & +(l < cl));
      m |= ((gt & wantGt) | (lt & wantLt) | ((1 ^ (gt | lt)) & wantEq)) << j;
    }
    out[w] = m;
  }
}

/** The word loop of each operator. */
const WORD_LOOPS: Record<CompareOp, (v: NumArray, full: number, c: number, out: Int32Array) => void> = {
  '>': gtWords,
  '>=': geWords,
  '<': ltWords,
  '<=': leWords,
  '=': eqWords,
  '!=': neWords,
};

/** Predicate bits of `v op c` for every row (c: not zero, not NaN for floats). */
function predicateWords(v: NumArray, n: number, op: CompareOp, c: number, out: Int32Array): void {
  const full = n >>> 5;
  const nk = native(n);
  if (nk && v instanceof Float64Array) nk.filterCompareF64(v, full, COMPARE_CODES[op], c, out);
  else WORD_LOOPS[op](v, full, c, out);
  if (full < out.length) {
    let m = 0;
    for (let i = full << 5; i < n; i++) if (accepts(op, javaCompare(v[i]!, c))) m |= 1 << (i & 31);
    out[full] = m;
  }
}

/** Rows of `sel` whose value is not null and satisfies `value op constant` (Cassandra's comparison semantics). */
export function filterCompare(data: Data, op: CompareOp, constant: number | bigint, sel: RowMask): Int32Array {
  const kind = kindOf(data);
  const n = data.length;
  const out = new Int32Array(wordCount(n));
  if (kind === 'int64') {
    const c = BigInt.asIntN(64, BigInt(constant));
    const ch = Number(c >> 32n);
    const cl = Number(c & 0xffffffffn);
    int64Words32(int64Words(data), n, op, ch, cl, out);
  } else {
    const floats = kind === 'float32' || kind === 'float64';
    const c = floats ? Number(constant) : Number(constant) + 0; // integers have no -0
    const v = data.values as Float64Array;
    if (!floats || (!Number.isNaN(c) && c !== 0)) {
      // For a float column the constant is the bound float value (exact as a double), so doubles compare alike.
      predicateWords(v, n, op, c, out);
    } else {
      for (let i = 0; i < n; i++) if (accepts(op, javaCompare(v[i]!, c))) out[i >>> 5]! |= 1 << (i & 31);
    }
  }
  const s = withValues(data, sel);
  if (s !== null) for (let w = 0; w < out.length; w++) out[w] = out[w]! & s[w]!;
  return out;
}

// ---- warm-up ------------------------------------------------------------------------------------
// V8 compiles a long-running loop on the fly (on-stack replacement) during its first call. Code after the loop or
// on a path not taken yet has no type feedback at that moment, and such OSR code bails out on reaching it — at
// every later call too (measured: every segment of a scan). Running each loop once over a tiny input at load time
// records feedback for every path, so the first real call compiles complete code.
function primeKernels(): void {
  const n = 96;
  const f64 = new Float64Array(n).fill(1.5);
  const i32 = new Int32Array(n).fill(3);
  const i64 = new Int32Array(2 * n).fill(1);
  const sel = new Int32Array([-1, 0, 0x55555555]);
  const out: FloatSum = { sum: 0, compensation: 0, simple: 0, count: 0 };
  for (let k = 0; k < 2; k++) {
    kahanDense(f64, n);
    foldLanes(out);
    kahanSparse(f64, n, sel);
    foldLanes(out);
    maxFloatDense(f64, n);
    minFloatDense(f64, n);
    maxFloatSparse(f64, n, sel);
    minFloatSparse(f64, n, sel);
    sumNarrowDense(i32, n);
    sumNarrowSparse(i32, n, sel);
    sumInt64(i64, n, null);
    sumInt64(i64, n, sel);
    int64Extreme(i64, n, sel, true);
    narrowExtreme(i32, n, sel, true);
    narrowExtreme(i32, n, null, false);
    const words = new Int32Array(3);
    for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) {
      predicateWords(f64, n, op, 1, words);
      int64Words32(i64, n, op, 0, 1, words);
    }
  }
}
primeKernels();
