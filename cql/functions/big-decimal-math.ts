// exp, ln and log10 of a BigDecimal to a number of significant digits, rounded HALF_EVEN, as DecimalType computes
// them with BigDecimalMath (precision = the argument's precision, at least 32): the value is computed with guard
// digits in BigInt fixed point, then rounded like BigDecimal.round(MathContext).

import type { Decimal } from '../types/decimal-text.js';

function digitCount(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

const pow10Cache = new Map<number, bigint>();
function pow10(n: number): bigint {
  let p = pow10Cache.get(n);
  if (p === undefined) {
    p = 10n ** BigInt(n);
    if (n <= 20_000) pow10Cache.set(n, p);
  }
  return p;
}

/** BigDecimal.precision(). */
export function decimalPrecision(d: Decimal): number {
  return d.unscaled === 0n ? 1 : digitCount(d.unscaled);
}

/** BigDecimal.round(new MathContext(p, HALF_EVEN)). */
export function roundToPrecision(d: Decimal, p: number): Decimal {
  const digits = digitCount(d.unscaled);
  if (d.unscaled === 0n || digits <= p) return d;
  let drop = digits - p;
  const neg = d.unscaled < 0n;
  const abs = neg ? -d.unscaled : d.unscaled;
  const div = pow10(drop);
  let q = abs / div;
  const r = abs % div;
  const twice = r * 2n;
  if (twice > div || (twice === div && q % 2n === 1n)) q++;
  if (digitCount(q) > p) {
    q /= 10n;
    drop++;
  }
  return { unscaled: neg ? -q : q, scale: d.scale - drop };
}

/** Keeps `w` significant digits (truncating): the working precision of intermediate products. */
function truncate(d: Decimal, w: number): Decimal {
  const digits = digitCount(d.unscaled);
  if (digits <= w) return d;
  const drop = digits - w;
  return { unscaled: d.unscaled / pow10(drop), scale: d.scale - drop };
}

/** The value in fixed point with `f` fractional digits (truncating). */
function toFixed(d: Decimal, f: number): bigint {
  const shift = f - d.scale;
  return shift >= 0 ? d.unscaled * pow10(shift) : d.unscaled / pow10(-shift);
}

/** atanh(num/den) in fixed point with `f` fractional digits, |num/den| < 1. */
function atanhFixed(num: bigint, den: bigint, f: number): bigint {
  const one = pow10(f);
  const z = (num * one) / den;
  const z2 = (z * z) / one;
  let term = z;
  let sum = z;
  for (let n = 3n; term !== 0n; n += 2n) {
    term = (term * z2) / one;
    sum += term / n;
  }
  return sum;
}

function ln2Fixed(f: number): bigint {
  return 2n * atanhFixed(1n, 3n, f);
}

function ln10Fixed(f: number): bigint {
  // ln 10 = 3 ln 2 + ln 1.25, ln 1.25 = 2 atanh(1/9)
  return 3n * ln2Fixed(f) + 2n * atanhFixed(1n, 9n, f);
}

/** exp(x) to `p` significant digits (x != 0). */
export function decimalExp(x: Decimal, p: number): Decimal {
  if (x.unscaled === 0n) return { unscaled: 1n, scale: 0 };
  // Reduce: r = x / 2^k with |r| < 0.01 (exact in decimal: x * 5^k / 10^k), then square k times.
  const magnitude = digitCount(x.unscaled) - x.scale; // |x| < 10^magnitude
  const k = Math.max(0, Math.ceil((magnitude + 2) * Math.log2(10)));
  const w = p + 20 + Math.ceil(k * 0.302);
  const r = truncate({ unscaled: x.unscaled * 5n ** BigInt(k), scale: x.scale + k }, w);
  const f = w + 5;
  const one = pow10(f);
  const rf = toFixed(r, f);
  let term = one;
  let sum = one;
  for (let n = 1n; term !== 0n; n++) {
    term = (term * rf) / one / n;
    sum += term;
  }
  let result: Decimal = truncate({ unscaled: sum, scale: f }, w);
  for (let i = 0; i < k; i++) {
    result = truncate({ unscaled: result.unscaled * result.unscaled, scale: result.scale * 2 }, w);
  }
  return roundToPrecision(result, p);
}

/** ln(x) in fixed point with `f` fractional digits, x > 0. */
function lnFixed(x: Decimal, f: number): bigint {
  // x = m * 10^e with 1 <= m < 10, then m = m' * 2^j with 1 <= m' < 2.
  const digits = digitCount(x.unscaled);
  const e = digits - 1 - x.scale;
  const g = f + 10;
  const one = pow10(g);
  let m = toFixed({ unscaled: x.unscaled, scale: digits - 1 }, g);
  let j = 0n;
  while (m >= 2n * one) {
    m /= 2n;
    j++;
  }
  // For m' near 1 the series term is small; fixed point of g digits keeps its absolute error below 10^-g.
  let sum = 2n * atanhFixed(m - one, m + one, g);
  if (j !== 0n) sum += j * ln2Fixed(g);
  if (e !== 0) sum += BigInt(e) * ln10Fixed(g);
  return sum / pow10(10);
}

/** Extra fractional digits needed when ln(x) is close to zero (x close to 1). */
function nearOneDigits(x: Decimal): number {
  const approx = Number(`${x.unscaled}e${-x.scale}`);
  const delta = Math.abs(approx - 1);
  if (!Number.isFinite(approx) || delta >= 0.1) return 0;
  if (delta === 0) {
    // Within double precision of 1: compute exactly how close.
    const diff = x.unscaled - pow10(Math.max(0, x.scale));
    return x.scale > 0 && diff !== 0n ? x.scale - digitCount(diff) + 2 : 0;
  }
  return Math.ceil(-Math.log10(delta)) + 2;
}

/** ln(x) to `p` significant digits, x > 0. */
export function decimalLn(x: Decimal, p: number): Decimal {
  if (x.unscaled === 10n ** BigInt(Math.max(0, x.scale)) && x.scale >= 0) return { unscaled: 0n, scale: 0 };
  const e = Math.abs(digitCount(x.unscaled) - 1 - x.scale);
  const f = p + 20 + nearOneDigits(x) + String(e).length;
  return roundToPrecision({ unscaled: lnFixed(x, f), scale: f }, p);
}

/** log10(x) to `p` significant digits, x > 0. */
export function decimalLog10(x: Decimal, p: number): Decimal {
  if (x.unscaled === 10n ** BigInt(Math.max(0, x.scale)) && x.scale >= 0) return { unscaled: 0n, scale: 0 };
  const e = Math.abs(digitCount(x.unscaled) - 1 - x.scale);
  const f = p + 20 + nearOneDigits(x) + String(e).length;
  const ln = lnFixed(x, f);
  const ln10 = ln10Fixed(f);
  return roundToPrecision({ unscaled: (ln * pow10(f)) / ln10, scale: f }, p);
}

/** BigDecimal.toBigInteger: truncation toward zero. */
export function decimalToBigInt(d: Decimal): bigint {
  return d.scale <= 0 ? d.unscaled * pow10(-d.scale) : d.unscaled / pow10(d.scale);
}
