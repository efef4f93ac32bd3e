// CAST(x AS type) in selections, as Cassandra's CastFcts: the cast_as_<type> overloads (numeric conversions with
// Java's narrowing and truncation rules, text/ascii from a value's CQL form, the time conversions), resolved like
// any function call.

import { InvalidRequest } from '../errors.js';
import { type NativeTypeName, native } from '../types/cql-type.js';
import { decimalFromBytes, decimalToBytes, parseDecimal } from '../types/decimal-text.js';
import { intBytes, javaIntCast, javaLongCast } from '../types/java-integers.js';
import { javaFloatingToString } from '../types/java-number-text.js';
import { nativeToText } from '../types/value-formatter.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';
import { decimalToBigInt } from './big-decimal-math.js';
import type { NativeFunction } from './native-function.js';
import { functionOverloads } from './native-functions.js';

const NUMERIC: readonly NativeTypeName[] = [
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'float',
  'double',
  'decimal',
  'counter',
  'varint',
];

/** The input types of the cast_as_<to> overloads (CastFcts.addFunctionsTo). */
function castInputs(to: NativeTypeName): readonly NativeTypeName[] {
  switch (to) {
    case 'tinyint':
    case 'smallint':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'decimal':
    case 'varint':
      return NUMERIC.filter((n) => n !== to);
    case 'ascii':
      return [...NUMERIC, 'inet', 'boolean', 'timeuuid', 'timestamp', 'date', 'time', 'uuid'];
    case 'text':
      return [...NUMERIC, 'ascii', 'inet', 'boolean', 'timeuuid', 'timestamp', 'date', 'time', 'uuid'];
    case 'date':
      return ['timeuuid', 'timestamp'];
    case 'timestamp':
      return ['timeuuid', 'date'];
    default:
      return [];
  }
}

/** A numeric value: exact bigint for integers (decimals truncated), number for floating types. */
function readNumber(from: NativeTypeName, b: Buffer): bigint | number {
  switch (from) {
    case 'tinyint':
      return BigInt(b.readInt8(0));
    case 'smallint':
      return BigInt(b.readInt16BE(0));
    case 'int':
      return BigInt(b.readInt32BE(0));
    case 'bigint':
    case 'counter':
      return b.readBigInt64BE(0);
    case 'varint':
      return bigintFromTwosComplement(b);
    case 'float':
      return b.readFloatBE(0);
    default:
      return b.readDoubleBE(0);
  }
}

function numericCast(from: NativeTypeName, to: NativeTypeName, b: Buffer): Buffer {
  const v = from === 'decimal' ? undefined : readNumber(from, b);
  // Number.xxxValue(): floating values narrow through int (byte, short, int) or long; integers keep the low bits.
  const integral = (bits: 8 | 16 | 32 | 64): bigint =>
    v === undefined
      ? decimalToBigInt(decimalFromBytes(b))
      : typeof v === 'bigint'
        ? v
        : bits === 64
          ? javaLongCast(v)
          : BigInt(javaIntCast(v));
  const floating = (): number => (v === undefined ? Number(nativeToText('decimal', b)) : Number(v));
  switch (to) {
    case 'tinyint':
      return intBytes(8, integral(8));
    case 'smallint':
      return intBytes(16, integral(16));
    case 'int':
      return intBytes(32, integral(32));
    case 'bigint':
      return intBytes(64, integral(64));
    case 'varint':
      // BigInteger.valueOf(p.longValue())
      return bigintToTwosComplement(BigInt.asIntN(64, integral(64)));
    case 'float': {
      const out = Buffer.alloc(4);
      out.writeFloatBE(floating());
      return out;
    }
    case 'double': {
      const out = Buffer.alloc(8);
      out.writeDoubleBE(floating());
      return out;
    }
    default: {
      // decimal: BigDecimal.valueOf(long), new BigDecimal(BigInteger), or from Float/Double.toString.
      const text = typeof v === 'number' ? javaFloatingToString(v, from === 'float') : (v as bigint).toString();
      const d = parseDecimal(text);
      if (!d) throw new InvalidRequest(`Cannot cast ${text} to decimal`);
      return decimalToBytes(d);
    }
  }
}

function castCall(from: NativeTypeName, to: NativeTypeName): (b: Buffer) => Buffer | null {
  if (to === 'text' || to === 'ascii') return (b) => Buffer.from(nativeToText(from, b), 'utf8');
  if (NUMERIC.includes(from)) return (b) => numericCast(from, to, b);
  // The time conversions are the toTimestamp / toDate functions.
  const delegate = functionOverloads(to === 'date' ? 'todate' : 'totimestamp').find(
    (o) => o.argTypes[0]?.kind === 'native' && o.argTypes[0].name === from,
  )!;
  return (b) => delegate.call([b]);
}

/** The cast_as_<to> overloads, in CastFcts order (empty when Cassandra has no cast to that type). */
export function castOverloads(to: NativeTypeName): readonly NativeFunction[] {
  return castInputs(to).map((from) => {
    const call = castCall(from, to);
    const textualInput = from === 'ascii' || from === 'text';
    return {
      name: `cast_as_${to}`,
      argTypes: [native(from)],
      returnType: native(to),
      deterministic: true,
      // An empty value is null to the conversions, and to text too except for text types themselves.
      call: ([a]) => (a === null || a === undefined ? null : a.length === 0 && !textualInput ? null : call(a)),
    };
  });
}
