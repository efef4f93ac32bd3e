// Cassandra 5.0's math functions (MathFcts): abs, exp, log, log10 and round for every numeric type, each
// returning its argument's type with the Java arithmetic of the type's NumberType (db/marshal/*Type.java): integer
// results narrow like Java casts of a double ((byte) Math.exp(b) saturates to int then keeps the low bits), float
// rounds through Math.round(float) (an int), double through Math.round(double) (a long).

import { FunctionFailure } from '../errors.js';
import { type NativeTypeName, native } from '../types/cql-type.js';
import { type Decimal, decimalFromBytes, decimalToBytes } from '../types/decimal-text.js';
import { intBytes, javaIntCast, javaLongCast, readIntBytes } from '../types/java-integers.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';
import { decimalExp, decimalLn, decimalLog10, decimalPrecision, decimalToBigInt } from './big-decimal-math.js';
import type { NativeFunction } from './native-function.js';

/** Java's Math.round(float) (an int) and Math.round(double) (a long): floor(x + 1/2), saturating, NaN -> 0. */
function javaRound(v: number, toInt: boolean): number | bigint {
  if (Number.isNaN(v)) return toInt ? 0 : 0n;
  const r = Math.round(v);
  return toInt ? javaIntCast(r) : javaLongCast(r);
}

function floatBytes(v: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeFloatBE(v);
  return b;
}

function doubleBytes(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeDoubleBE(v);
  return b;
}

type MathName = 'abs' | 'exp' | 'log' | 'log10' | 'round';

const DOUBLE_OP: Record<Exclude<MathName, 'round'>, (x: number) => number> = {
  abs: Math.abs,
  exp: Math.exp,
  log: Math.log,
  log10: Math.log10,
};

function arithmeticFailure(name: MathName, type: NativeTypeName, message: string): FunctionFailure {
  return new FunctionFailure(
    `execution of 'system.${name}[${type}]' failed: java.lang.ArithmeticException: ${message}`,
    'system',
    name,
    [type],
  );
}

function zeroOrLessMessage(name: MathName): string {
  return name === 'log' ? 'Natural log of number zero or less' : 'Log10 of number zero or less';
}

/** BigDecimal.setScale(0, HALF_UP). */
function decimalRound(d: Decimal): Decimal {
  if (d.scale <= 0) return { unscaled: d.unscaled * 10n ** BigInt(-d.scale), scale: 0 };
  const p = 10n ** BigInt(d.scale);
  const neg = d.unscaled < 0n;
  const abs = neg ? -d.unscaled : d.unscaled;
  let q = abs / p;
  if ((abs % p) * 2n >= p) q++;
  return { unscaled: neg ? -q : q, scale: 0 };
}

function mathCall(name: MathName, type: NativeTypeName): (a: Buffer) => Buffer {
  switch (type) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'counter': {
      const bits = type === 'tinyint' ? 8 : type === 'smallint' ? 16 : type === 'int' ? 32 : 64;
      if (name === 'round') return (a) => a;
      if (name === 'abs')
        return (a) => {
          // Math.abs of the minimum value is itself (the cast back wraps).
          const x = readIntBytes(bits, a);
          return intBytes(bits, x < 0n ? -x : x);
        };
      const op = DOUBLE_OP[name];
      // (byte) / (short) / (int) casts go through int; (long) saturates to long.
      return (a) => {
        const r = op(Number(readIntBytes(bits, a)));
        return intBytes(bits, bits === 64 ? javaLongCast(r) : BigInt(javaIntCast(r)));
      };
    }
    case 'float':
      if (name === 'round') return (a) => floatBytes(Number(javaRound(a.readFloatBE(0), true)));
      return (a) => floatBytes(Math.fround(DOUBLE_OP[name](a.readFloatBE(0))));
    case 'double':
      if (name === 'round') return (a) => doubleBytes(Number(javaRound(a.readDoubleBE(0), false)));
      return (a) => doubleBytes(DOUBLE_OP[name](a.readDoubleBE(0)));
    case 'varint':
      return (a) => {
        const v = bigintFromTwosComplement(a);
        if (name === 'round') return a;
        if (name === 'abs') return bigintToTwosComplement(v < 0n ? -v : v);
        // new BigDecimal(bi), DecimalType's exp/log/log10, then toBigInteger().
        const d: Decimal = { unscaled: v, scale: 0 };
        if (name !== 'exp' && v <= 0n) throw arithmeticFailure(name, type, zeroOrLessMessage(name));
        return bigintToTwosComplement(decimalToBigInt(checked(name, type, decimalMath(name, d))));
      };
    default:
      // decimal
      return (a) => {
        const d = decimalFromBytes(a);
        if (name === 'abs') return decimalToBytes(d.unscaled < 0n ? { unscaled: -d.unscaled, scale: d.scale } : d);
        if (name === 'round') return decimalToBytes(decimalRound(d));
        if (name !== 'exp' && d.unscaled <= 0n) throw arithmeticFailure(name, type, zeroOrLessMessage(name));
        return decimalToBytes(checked(name, type, decimalMath(name, d)));
      };
  }
}

/** DecimalType.exp / log / log10: BigDecimalMath with the argument's precision, between 32 and 10000 digits. */
function decimalMath(name: 'exp' | 'log' | 'log10', d: Decimal): Decimal {
  const p = Math.min(10_000, Math.max(32, decimalPrecision(d)));
  return name === 'exp' ? decimalExp(d, p) : name === 'log' ? decimalLn(d, p) : decimalLog10(d, p);
}

/** A result whose scale does not fit BigDecimal's int (or would not fit in memory as an integer) overflows. */
function checked(name: MathName, type: NativeTypeName, d: Decimal): Decimal {
  if (d.scale < -1_000_000 || d.scale > 2147483647)
    throw arithmeticFailure(name, type, d.scale < 0 ? 'Overflow' : 'Underflow');
  return d;
}

const NUMERIC_TYPES: readonly NativeTypeName[] = [
  'tinyint',
  'smallint',
  'int',
  'float',
  'bigint',
  'double',
  'varint',
  'decimal',
  'counter',
];

/** The MathFcts overloads, in Cassandra's registration order. */
export function mathFunctions(): NativeFunction[] {
  const out: NativeFunction[] = [];
  for (const type of NUMERIC_TYPES) {
    for (const name of ['abs', 'exp', 'log', 'log10', 'round'] as const) {
      const call = mathCall(name, type);
      out.push({
        name,
        argTypes: [native(type)],
        returnType: native(type),
        deterministic: true,
        call: ([a]) => (a === null || a === undefined || a.length === 0 ? null : call(a)),
      });
    }
  }
  return out;
}
