// CAST(x AS type) in selections, as Cassandra's CastFcts: numeric conversions with Java's narrowing
// and truncation rules, anything to text/ascii by its string form, and the time conversions.

import { InvalidRequest } from '../errors.js';
import { type NativeTypeName, native } from '../types/cql-type.js';
import { decimalToBytes, parseDecimal } from '../types/decimal-text.js';
import { nativeToText } from '../types/value-formatter.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';
import { functionOverloads, type NativeFunction } from './native-functions.js';

const NUMERIC: ReadonlySet<NativeTypeName> = new Set([
  'tinyint',
  'smallint',
  'int',
  'bigint',
  'counter',
  'float',
  'double',
  'decimal',
  'varint',
]);

/** A numeric value as exact bigint (integers) or double (floating). */
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
    case 'double':
      return b.readDoubleBE(0);
    default:
      return Number(nativeToText('decimal', b));
  }
}

/** Java's (long) cast of a double: truncation, NaN -> 0, saturation. */
function toLong(v: bigint | number): bigint {
  if (typeof v === 'bigint') return v;
  if (Number.isNaN(v)) return 0n;
  if (v >= 9.223372036854776e18) return 2n ** 63n - 1n;
  if (v <= -9.223372036854776e18) return -(2n ** 63n);
  return BigInt(Math.trunc(v));
}

function writeNumber(to: NativeTypeName, v: bigint | number, from: NativeTypeName, raw: Buffer): Buffer {
  const b = Buffer.alloc(to === 'tinyint' ? 1 : to === 'smallint' ? 2 : to === 'int' || to === 'float' ? 4 : 8);
  switch (to) {
    case 'tinyint':
      b.writeInt8(Number(BigInt.asIntN(8, toLong(v))));
      return b;
    case 'smallint':
      b.writeInt16BE(Number(BigInt.asIntN(16, toLong(v))));
      return b;
    case 'int':
      // Java: (int) of a double saturates; of a long wraps.
      if (typeof v === 'number')
        b.writeInt32BE(Number.isNaN(v) ? 0 : Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(v))));
      else b.writeInt32BE(Number(BigInt.asIntN(32, v)));
      return b;
    case 'bigint':
    case 'counter':
      b.writeBigInt64BE(BigInt.asIntN(64, toLong(v)));
      return b;
    case 'float':
      b.writeFloatBE(Number(v));
      return b;
    case 'double':
      b.writeDoubleBE(Number(v));
      return b;
    case 'varint':
      return bigintToTwosComplement(toLong(v));
    case 'decimal': {
      if (from === 'decimal') return raw;
      const d = parseDecimal(typeof v === 'bigint' ? v.toString() : String(v));
      if (!d) throw new InvalidRequest(`Cannot cast ${v} to decimal`);
      return decimalToBytes(d);
    }
    default:
      throw new InvalidRequest(`Cannot cast to ${to}`);
  }
}

/** The conversion function for CAST(arg AS to), or undefined when Cassandra has none. */
export function castFunction(from: NativeTypeName, to: NativeTypeName): NativeFunction | undefined {
  const returnType = native(to);
  const make = (call: (b: Buffer) => Buffer | null): NativeFunction => ({
    name: `castAs${to}`,
    argTypes: [native(from)],
    returnType,
    deterministic: true,
    call: ([a]) =>
      a === null || a === undefined ? null : a.length === 0 && to !== 'text' && to !== 'ascii' ? null : call(a),
  });
  if (from === to) return make((b) => b);
  if (to === 'text' || to === 'ascii') return make((b) => Buffer.from(nativeToText(from, b), 'utf8'));
  if (NUMERIC.has(from) && NUMERIC.has(to)) return make((b) => writeNumber(to, readNumber(from, b), from, b));
  // Time conversions reuse the built-in functions (toTimestamp, toDate, toUnixTimestamp).
  const byName: Partial<Record<NativeTypeName, string>> = {
    timestamp: 'totimestamp',
    date: 'todate',
    bigint: 'tounixtimestamp',
  };
  const fnName = byName[to];
  if (fnName) {
    const f = functionOverloads(fnName).find(
      (o) => o.argTypes[0]?.kind === 'native' && (o.argTypes[0] as { name: string }).name === from,
    );
    if (f) return make((b) => f.call([b]));
  }
  return undefined;
}
