// Arrow column value -> the CQL bytes it came from (the inverse of cql-column-encoder.ts), for columnar scans that
// return rows to clients and for exactness tests. One value at a time: scans of whole columns of a fixed-width type
// should slice typed arrays instead.

import type { Data } from 'apache-arrow';
import type { CqlType } from '../../cql/types/cql-type.js';
import { decimalToBytes, parseDecimal } from '../../cql/types/decimal-text.js';
import { durationToBytes } from '../../cql/types/duration.js';
import { buildCollection, buildTuple, buildVector } from '../../cql/types/serialized-layout.js';
import { bigintToTwosComplement } from '../../cql/types/varint-bytes.js';

function isValid(data: Data, i: number): boolean {
  const bitmap = data.nullBitmap;
  if (!bitmap || bitmap.length === 0 || data.nullCount === 0) return true;
  const j = data.offset + i;
  return (bitmap[j >>> 3]! & (1 << (j & 7))) !== 0;
}

/** The bytes of row `i` of a fixed-width column, big-endian, `width` bytes (host is little-endian). */
function fixedBytes(data: Data, i: number, width: number): Buffer {
  const v = data.values as ArrayBufferView;
  const src = new Uint8Array(v.buffer, v.byteOffset + (data.offset + i) * width, width);
  const out = Buffer.allocUnsafe(width);
  for (let k = 0; k < width; k++) out[k] = src[width - 1 - k]!;
  return out;
}

function varBytes(data: Data, i: number): Uint8Array {
  const offs = data.valueOffsets as Int32Array;
  const j = data.offset + i;
  return (data.values as Uint8Array).subarray(offs[j]!, offs[j + 1]!);
}

const decoder = new TextDecoder();

/** CQL bytes of row `i` of `data` (a column of CQL type `t`), or null. */
export function cqlBytesAt(t: CqlType, data: Data, i: number): Buffer | null {
  if (!isValid(data, i)) return null;
  const j = data.offset + i;
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'tinyint':
          return fixedBytes(data, i, 1);
        case 'smallint':
          return fixedBytes(data, i, 2);
        case 'int':
        case 'float':
          return fixedBytes(data, i, 4);
        case 'date': {
          const b = fixedBytes(data, i, 4);
          b[0] = b[0]! ^ 0x80;
          return b;
        }
        case 'bigint':
        case 'counter':
        case 'double':
        case 'timestamp':
        case 'time':
          return fixedBytes(data, i, 8);
        case 'boolean':
          return Buffer.from([(data.values as Uint8Array)[j >>> 3]! & (1 << (j & 7)) ? 1 : 0]);
        case 'uuid':
        case 'timeuuid':
          return Buffer.from((data.values as Uint8Array).subarray(j * 16, j * 16 + 16));
        case 'duration': {
          const w = data.values as Int32Array;
          const nanos = BigInt.asIntN(64, (BigInt(w[4 * j + 3]!) << 32n) | BigInt(w[4 * j + 2]! >>> 0));
          return durationToBytes({ months: w[4 * j]!, days: w[4 * j + 1]!, nanoseconds: nanos });
        }
        case 'decimal': {
          const d = parseDecimal(decoder.decode(varBytes(data, i)));
          if (!d) throw new Error('corrupt decimal text in an Arrow segment');
          return decimalToBytes(d);
        }
        case 'varint':
          return bigintToTwosComplement(BigInt(decoder.decode(varBytes(data, i))));
        default:
          return Buffer.from(varBytes(data, i));
      }
    case 'list':
    case 'set': {
      const offs = data.valueOffsets as Int32Array;
      const child = data.children[0]!;
      const parts: Uint8Array[] = [];
      for (let k = offs[j]!; k < offs[j + 1]!; k++) parts.push(cqlBytesAt(t.element, child, k) ?? Buffer.alloc(0));
      return buildCollection(parts.length, parts);
    }
    case 'map': {
      const offs = data.valueOffsets as Int32Array;
      const entries = data.children[0]!;
      const [keys, values] = entries.children as [Data, Data];
      const parts: Uint8Array[] = [];
      for (let k = offs[j]!; k < offs[j + 1]!; k++) {
        parts.push(cqlBytesAt(t.key, keys, k) ?? Buffer.alloc(0), cqlBytesAt(t.value, values, k) ?? Buffer.alloc(0));
      }
      return buildCollection(parts.length / 2, parts);
    }
    case 'tuple':
    case 'udt': {
      const types = t.kind === 'tuple' ? t.elements : t.fields.map((f) => f.type);
      return buildTuple(types.map((ft, f) => cqlBytesAt(ft, data.children[f]!, j)));
    }
    case 'vector': {
      const child = data.children[0]!;
      const elements: Uint8Array[] = [];
      for (let k = 0; k < t.dimension; k++) elements.push(cqlBytesAt(t.element, child, j * t.dimension + k)!);
      return buildVector(t, elements);
    }
    case 'custom':
      return Buffer.from(varBytes(data, i));
  }
}
