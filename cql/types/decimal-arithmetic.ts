// `decimal` arithmetic as Cassandra's DecimalType does it on java.math.BigDecimal: exact sums, differences and
// products rounded to 10 000 significant digits (MathContext(10000), HALF_UP), DecimalType.divide's quotient scale
// (32 significant digits at least, scale within [32, 1000], HALF_UP, trailing zeros stripped) and BigDecimal's
// remainder. Operands of other numeric types become BigDecimals as NumberType.toBigDecimal makes them.

import type { Decimal } from './decimal-text.js';
import { parseDecimal } from './decimal-text.js';
import { javaFloatingToString } from './java-number-text.js';

const MAX_PRECISION = 10_000;
const MIN_SCALE = 32;
const MIN_SIGNIFICANT_DIGITS = MIN_SCALE;
const MAX_SCALE = 1000;

/** An operation that fails the way BigDecimal throws (ArithmeticException / NumberFormatException). */
export class DecimalArithmeticError extends Error {}

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function digits(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

/** BigDecimal.precision(). */
function precision(d: Decimal): number {
  return d.unscaled === 0n ? 1 : digits(d.unscaled);
}

/** num / den rounded to an integer, ties away from zero (RoundingMode.HALF_UP). */
function divideHalfUp(num: bigint, den: bigint): bigint {
  const neg = num < 0n !== den < 0n;
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  let q = n / d;
  if ((n % d) * 2n >= d) q++;
  return neg ? -q : q;
}

/** BigDecimal.round(new MathContext(MAX_PRECISION, HALF_UP)). */
function round(d: Decimal): Decimal {
  const excess = digits(d.unscaled) - MAX_PRECISION;
  if (d.unscaled === 0n || excess <= 0) return d;
  const r = { unscaled: divideHalfUp(d.unscaled, pow10(excess)), scale: d.scale - excess };
  // Rounding up may add a digit (999.. -> 1000..).
  return digits(r.unscaled) > MAX_PRECISION ? { unscaled: r.unscaled / 10n, scale: r.scale - 1 } : r;
}

/** The two values at the larger of their scales. */
function aligned(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.unscaled * pow10(scale - a.scale), b.unscaled * pow10(scale - b.scale), scale];
}

function stripTrailingZeros(d: Decimal): Decimal {
  if (d.unscaled === 0n) return { unscaled: 0n, scale: 0 };
  let { unscaled, scale } = d;
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale--;
  }
  return { unscaled, scale };
}

export function decimalAdd(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = aligned(a, b);
  return round({ unscaled: x + y, scale });
}

export function decimalSubtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = aligned(a, b);
  return round({ unscaled: x - y, scale });
}

export function decimalMultiply(a: Decimal, b: Decimal): Decimal {
  return round({ unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale });
}

function checkDivisor(a: Decimal, b: Decimal): void {
  if (b.unscaled === 0n)
    throw new DecimalArithmeticError(a.unscaled === 0n ? 'Division undefined' : 'Division by zero');
}

/** DecimalType.divide. */
export function decimalDivide(a: Decimal, b: Decimal): Decimal {
  checkDivisor(a, b);
  const firstDigit = precision(a) - a.scale - (precision(b) - b.scale);
  let scale = MIN_SIGNIFICANT_DIGITS - firstDigit;
  scale = Math.max(scale, a.scale, b.scale, MIN_SCALE);
  scale = Math.min(scale, MAX_SCALE);
  // a / b * 10^scale = a.unscaled * 10^(scale - a.scale + b.scale) / b.unscaled
  const e = scale - a.scale + b.scale;
  const q = e >= 0 ? divideHalfUp(a.unscaled * pow10(e), b.unscaled) : divideHalfUp(a.unscaled, b.unscaled * pow10(-e));
  return stripTrailingZeros({ unscaled: q, scale });
}

/** BigDecimal.remainder: the sign of the dividend, at the larger scale. */
export function decimalRemainder(a: Decimal, b: Decimal): Decimal {
  checkDivisor(a, b);
  const [x, y, scale] = aligned(a, b);
  return { unscaled: x % y, scale };
}

/** NumberType.toBigDecimal of a floating or fixed-width integer value: BigDecimal.valueOf(the double). */
export function decimalOfDouble(v: number): Decimal {
  if (Number.isNaN(v)) throw new DecimalArithmeticError('A NaN cannot be converted into a decimal');
  if (!Number.isFinite(v)) throw new DecimalArithmeticError('An infinite number cannot be converted into a decimal');
  return parseDecimal(javaFloatingToString(v, false))!;
}
