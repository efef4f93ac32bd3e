// Arithmetic on numeric values in selections (`a + 1`, `-b`, `c * d`), as Cassandra's operation
// functions: the result has the wider operand type; integer arithmetic wraps like Java's and an
// integer division by zero fails the call.

import { FunctionFailure, InvalidRequest } from '../errors.js';
import type { BinaryOp } from '../parser/ast.js';
import { type CqlType, type NativeTypeName, native } from '../types/cql-type.js';
import {
  DecimalArithmeticError,
  decimalAdd,
  decimalDivide,
  decimalMultiply,
  decimalOfDouble,
  decimalRemainder,
  decimalSubtract,
} from '../types/decimal-arithmetic.js';
import { type Decimal, decimalFromBytes, decimalToBytes } from '../types/decimal-text.js';
import { type IntBits, intBytes } from '../types/java-integers.js';
import { nativeToText } from '../types/value-formatter.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';

const RANK: Partial<Record<NativeTypeName, number>> = {
  tinyint: 1,
  smallint: 2,
  int: 3,
  bigint: 4,
  counter: 4,
  varint: 5,
  float: 6,
  double: 7,
  decimal: 8,
};
const INT_BITS: Partial<Record<NativeTypeName, IntBits>> = {
  tinyint: 8,
  smallint: 16,
  int: 32,
  bigint: 64,
  counter: 64,
};

export function isNumeric(t: CqlType): t is CqlType & { kind: 'native'; name: NativeTypeName } {
  return t.kind === 'native' && RANK[t.name] !== undefined;
}

/** The result type of `a op b` (Cassandra widens to the larger type; float with wide integers is double). */
export function arithmeticType(a: CqlType, b: CqlType): CqlType {
  if (!isNumeric(a) || !isNumeric(b))
    throw new InvalidRequest(`the '${describe(a)} ${'op'} ${describe(b)}' operation is not supported`);
  const [lo, hi] = RANK[a.name]! <= RANK[b.name]! ? [a.name, b.name] : [b.name, a.name];
  if (hi === 'float' && (lo === 'bigint' || lo === 'varint' || lo === 'counter')) return native('double');
  return native(hi === 'counter' ? 'bigint' : hi);
}

function describe(t: CqlType): string {
  return t.kind === 'native' ? t.name : t.kind;
}

function toBig(t: NativeTypeName, b: Buffer): bigint {
  switch (t) {
    case 'tinyint':
      return BigInt(b.readInt8(0));
    case 'smallint':
      return BigInt(b.readInt16BE(0));
    case 'int':
      return BigInt(b.readInt32BE(0));
    case 'varint':
      return bigintFromTwosComplement(b);
    default:
      return b.readBigInt64BE(0);
  }
}

function toDouble(t: NativeTypeName, b: Buffer): number {
  if (t === 'float') return b.readFloatBE(0);
  if (t === 'double') return b.readDoubleBE(0);
  if (t === 'decimal') return Number(nativeToText('decimal', b));
  return Number(toBig(t, b));
}

/** NumberType.toBigDecimal: decimals and varints as they are, other numbers through their double value. */
function toDecimal(t: NativeTypeName, b: Buffer): Decimal {
  if (t === 'decimal') return decimalFromBytes(b);
  if (t === 'varint') return { unscaled: bigintFromTwosComplement(b), scale: 0 };
  return decimalOfDouble(toDouble(t, b));
}

function decimalOperation(op: BinaryOp, x: Decimal, y: Decimal): Decimal {
  if (op === '+') return decimalAdd(x, y);
  if (op === '-') return decimalSubtract(x, y);
  if (op === '*') return decimalMultiply(x, y);
  return op === '/' ? decimalDivide(x, y) : decimalRemainder(x, y);
}

/** `a op b` with both values of numeric types; null when either is null. */
export function applyArithmetic(
  op: BinaryOp,
  ta: CqlType,
  a: Buffer | null,
  tb: CqlType,
  b: Buffer | null,
  result: CqlType,
): Buffer | null {
  if (a === null || b === null || a.length === 0 || b.length === 0) return null;
  const r = (result as { name: NativeTypeName }).name;
  const na = (ta as { name: NativeTypeName }).name;
  const nb = (tb as { name: NativeTypeName }).name;
  const bits = INT_BITS[r];
  if (bits !== undefined || r === 'varint') {
    const x = toBig(na, a);
    const y = toBig(nb, b);
    if ((op === '/' || op === '%') && y === 0n) {
      throw new FunctionFailure(`the operation '${na} ${op} ${nb}' failed: / by zero`, 'system', `_${op}`, [na, nb]);
    }
    const v = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
    return bits !== undefined ? intBytes(bits, v) : bigintToTwosComplement(v);
  }
  if (r === 'decimal') {
    // Exact, as DecimalType's BigDecimal arithmetic (no detour through doubles).
    try {
      return decimalToBytes(decimalOperation(op, toDecimal(na, a), toDecimal(nb, b)));
    } catch (e) {
      if (!(e instanceof DecimalArithmeticError)) throw e;
      throw new FunctionFailure(`the operation '${na} ${op} ${nb}' failed: ${e.message}`, 'system', `_${op}`, [na, nb]);
    }
  }
  const x = toDouble(na, a);
  const y = toDouble(nb, b);
  const v = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
  const out = Buffer.alloc(r === 'float' ? 4 : 8);
  if (r === 'float') out.writeFloatBE(v);
  else out.writeDoubleBE(v);
  return out;
}
