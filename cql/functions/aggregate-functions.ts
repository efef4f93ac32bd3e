// sum() and avg() with Cassandra's result types and Java overflow rules (AggregateFcts): the result
// has the argument's type, integer sums wrap like Java arithmetic, avg of integers truncates, float and double
// sums are Kahan sums in doubles.

import { InvalidRequest } from '../errors.js';
import type { CqlType } from '../types/cql-type.js';
import { decimalFromBytes, decimalToBytes, decimalToPlainString, parseDecimal } from '../types/decimal-text.js';
import { intBytes, readIntBytes } from '../types/java-integers.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';
import { FloatSumAccumulator, IntegerSumAccumulator } from './aggregate-accumulators.js';

export interface NumericAggregator {
  add(v: Buffer): void;
  result(): Buffer;
}

const BITS: Record<string, 8 | 16 | 32 | 64> = { tinyint: 8, smallint: 16, int: 32, bigint: 64, counter: 64 };

/** Decimal arithmetic through (plain) text: exact, and rare enough not to need speed. */
function decimalText(b: Buffer): string {
  return decimalToPlainString(decimalFromBytes(b));
}

function addDecimalText(a: string, b: string): string {
  const [ai, af = ''] = a.replace('-', '').split('.');
  const [bi, bf = ''] = b.replace('-', '').split('.');
  const scale = Math.max(af.length, bf.length);
  const av = BigInt((a.startsWith('-') ? '-' : '') + ai + af.padEnd(scale, '0'));
  const bv = BigInt((b.startsWith('-') ? '-' : '') + bi + bf.padEnd(scale, '0'));
  return scaledToText(av + bv, scale);
}

function scaledToText(v: bigint, scale: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${text}` : text;
}

function decimalBytes(text: string): Buffer {
  const d = parseDecimal(text);
  if (!d) throw new InvalidRequest(`Invalid decimal ${text}`);
  return decimalToBytes(d);
}

export function numericAggregator(name: 'sum' | 'avg', t: CqlType): NumericAggregator {
  if (t.kind !== 'native') throw new InvalidRequest(`Invalid call to ${name}: its argument must be numeric`);
  const type = t.name;
  const bits = BITS[type];
  // Integers and floats share their rules with the columnar path (aggregate-accumulators.ts).
  if (bits) {
    const acc = new IntegerSumAccumulator(bits);
    return {
      add: (v) => {
        if (v.length !== 0) acc.add(readIntBytes(bits, v));
      },
      result: () => intBytes(bits, name === 'sum' ? acc.sumResult() : acc.avgResult()),
    };
  }
  if (type === 'float' || type === 'double') {
    const f32 = type === 'float';
    const acc = new FloatSumAccumulator(f32);
    return {
      add: (v) => {
        if (v.length !== 0) acc.add(f32 ? v.readFloatBE(0) : v.readDoubleBE(0));
      },
      result: () => {
        const r = name === 'sum' ? acc.sumResult() : acc.avgResult();
        const b = Buffer.allocUnsafe(f32 ? 4 : 8);
        if (f32) b.writeFloatBE(r);
        else b.writeDoubleBE(r);
        return b;
      },
    };
  }
  if (type === 'varint') {
    let sum = 0n;
    let count = 0n;
    return {
      add: (v) => {
        if (v.length === 0) return;
        sum += bigintFromTwosComplement(v);
        count++;
      },
      result: () => bigintToTwosComplement(name === 'sum' || count === 0n ? sum : sum / count),
    };
  }
  if (type === 'decimal') {
    let sum = '0';
    let count = 0;
    return {
      add: (v) => {
        if (v.length === 0) return;
        sum = addDecimalText(sum, decimalText(v));
        count++;
      },
      result: () => {
        if (name === 'sum' || count === 0) return decimalBytes(sum);
        // BigDecimal.divide with the dividend's scale would need rounding rules; 18 digits is plenty.
        const [i, f = ''] = sum.replace('-', '').split('.');
        const scaled = BigInt((sum.startsWith('-') ? '-' : '') + i + f.padEnd(f.length + 18, '0'));
        return decimalBytes(scaledToText(scaled / BigInt(count), f.length + 18).replace(/\.?0+$/, '') || '0');
      },
    };
  }
  throw new InvalidRequest(`Invalid call to ${name}: ${type} is not a numeric type`);
}
