// Cassandra's decimal: [int32 scale][varint unscaled], value = unscaled * 10^-scale (java.math.BigDecimal).
import { bigintFromTwosComplement, bigintToTwosComplement } from './varint-bytes.js';

export interface Decimal {
  readonly unscaled: bigint;
  readonly scale: number;
}

const DECIMAL_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Parses as new BigDecimal(text) does; undefined when it would throw. */
export function parseDecimal(text: string): Decimal | undefined {
  const m = DECIMAL_RE.exec(text);
  if (!m) return undefined;
  const intPart = m[2] ?? '';
  const frac = m[3] ?? '';
  if (intPart === '' && frac === '') return undefined;
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  const scale = frac.length - exp;
  if (!Number.isSafeInteger(exp) || scale > 2147483647 || scale < -2147483648) return undefined;
  let unscaled = BigInt(`${intPart}${frac}` || '0');
  if (m[1] === '-') unscaled = -unscaled;
  return { unscaled, scale };
}

export function decimalToBytes(d: Decimal): Buffer {
  const u = bigintToTwosComplement(d.unscaled);
  const out = Buffer.allocUnsafe(4 + u.length);
  out.writeInt32BE(d.scale, 0);
  u.copy(out, 4);
  return out;
}

export function decimalFromBytes(b: Uint8Array): Decimal {
  const scale = (b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]! | 0;
  return { unscaled: bigintFromTwosComplement(b, 4), scale };
}

/** BigDecimal.toPlainString. */
export function decimalToPlainString(d: Decimal): string {
  const neg = d.unscaled < 0n;
  let digits = (neg ? -d.unscaled : d.unscaled).toString();
  const sign = neg ? '-' : '';
  if (d.scale <= 0) return sign + digits + (d.unscaled === 0n && d.scale < 0 ? '' : '0'.repeat(-d.scale));
  if (digits.length <= d.scale) digits = '0'.repeat(d.scale - digits.length + 1) + digits;
  const p = digits.length - d.scale;
  return `${sign}${digits.slice(0, p)}.${digits.slice(p)}`;
}

/** BigDecimal.toString: scientific notation for a negative scale or an adjusted exponent below -6. */
export function decimalToString(d: Decimal): string {
  const neg = d.unscaled < 0n;
  const digits = (neg ? -d.unscaled : d.unscaled).toString();
  const adjusted = -d.scale + (digits.length - 1);
  if (d.scale >= 0 && adjusted >= -6) return decimalToPlainString(d);
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${neg ? '-' : ''}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
}

/** Sign, digits without trailing zeros, and exponent E such that value = 0.digits * 10^E (digits empty for 0). */
export function normalizeDecimal(d: Decimal): { sign: -1 | 0 | 1; digits: string; exponent: number } {
  if (d.unscaled === 0n) return { sign: 0, digits: '', exponent: 0 };
  const neg = d.unscaled < 0n;
  let digits = (neg ? -d.unscaled : d.unscaled).toString();
  const exponent = digits.length - d.scale;
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  digits = digits.slice(0, end);
  return { sign: neg ? -1 : 1, digits, exponent };
}

export function compareDecimals(a: Decimal, b: Decimal): number {
  if (a.scale === b.scale) return a.unscaled < b.unscaled ? -1 : a.unscaled > b.unscaled ? 1 : 0;
  const na = normalizeDecimal(a);
  const nb = normalizeDecimal(b);
  if (na.sign !== nb.sign) return na.sign < nb.sign ? -1 : 1;
  if (na.sign === 0) return 0;
  let c: number;
  if (na.exponent !== nb.exponent) c = na.exponent < nb.exponent ? -1 : 1;
  else c = na.digits < nb.digits ? -1 : na.digits > nb.digits ? 1 : 0;
  return c === 0 ? 0 : na.sign * c;
}
