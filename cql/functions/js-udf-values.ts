// Conversions between CQL values (bytes) and the JavaScript values UDF bodies see and return.
// Integers of up to 32 bits and floating point are numbers; 64-bit and arbitrary integers are
// BigInt; text, uuids, inet, dates and decimals are strings; timestamps are Dates; blobs Buffers;
// collections arrays / Sets / Maps; tuples arrays; UDTs plain objects.

import { FunctionFailure, InvalidRequest } from '../errors.js';
import type { CqlType } from '../types/cql-type.js';
import { literalToBytes } from '../types/literal-parser.js';
import {
  buildCollection,
  buildTuple,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
} from '../types/serialized-layout.js';
import { nativeToText } from '../types/value-formatter.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../types/varint-bytes.js';

export function toJs(t: CqlType, b: Buffer | null): unknown {
  if (b === null) return null;
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'int':
          return b.readInt32BE(0);
        case 'smallint':
          return b.readInt16BE(0);
        case 'tinyint':
          return b.readInt8(0);
        case 'float':
          return b.readFloatBE(0);
        case 'double':
          return b.readDoubleBE(0);
        case 'bigint':
        case 'counter':
          return b.readBigInt64BE(0);
        case 'varint':
          return bigintFromTwosComplement(b);
        case 'boolean':
          return b[0] !== 0;
        case 'timestamp':
          return new Date(Number(b.readBigInt64BE(0)));
        case 'blob':
          return Buffer.from(b);
        case 'text':
        case 'ascii':
          return b.toString('utf8');
        default:
          return nativeToText(t.name, b);
      }
    case 'list':
      return readCollectionElements(b).map((e) => toJs(t.element, e));
    case 'set':
      return new Set(readCollectionElements(b).map((e) => toJs(t.element, e)));
    case 'map':
      return new Map(readMapEntries(b).map(([k, v]) => [toJs(t.key, k), toJs(t.value, v)]));
    case 'tuple':
      return readTupleFields(b).map((f, i) => toJs(t.elements[i]!, f));
    case 'udt': {
      const fields = readTupleFields(b);
      return Object.fromEntries(t.fields.map((f, i) => [f.name, toJs(f.type, fields[i] ?? null)]));
    }
    default:
      return Buffer.from(b);
  }
}

function fail(t: CqlType, v: unknown): never {
  throw new InvalidRequest(`Cannot convert ${typeof v} ${String(v)} to ${t.kind === 'native' ? t.name : t.kind}`);
}

export function fromJs(t: CqlType, v: unknown): Buffer | null {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'native': {
      const n = t.name;
      if (n === 'int' || n === 'smallint' || n === 'tinyint') {
        if (typeof v !== 'number' && typeof v !== 'bigint') fail(t, v);
        const size = n === 'int' ? 4 : n === 'smallint' ? 2 : 1;
        const b = Buffer.alloc(size);
        const x = Number(BigInt.asIntN(size * 8, BigInt(Math.trunc(Number(v)))));
        if (size === 4) b.writeInt32BE(x);
        else if (size === 2) b.writeInt16BE(x);
        else b.writeInt8(x);
        return b;
      }
      if (n === 'bigint' || n === 'counter') {
        if (typeof v !== 'number' && typeof v !== 'bigint') fail(t, v);
        const b = Buffer.alloc(8);
        b.writeBigInt64BE(BigInt.asIntN(64, typeof v === 'bigint' ? v : BigInt(Math.trunc(v))));
        return b;
      }
      if (n === 'varint') {
        if (typeof v !== 'number' && typeof v !== 'bigint') fail(t, v);
        return bigintToTwosComplement(typeof v === 'bigint' ? v : BigInt(Math.trunc(v)));
      }
      if (n === 'float' || n === 'double') {
        if (typeof v !== 'number' && typeof v !== 'bigint') fail(t, v);
        const b = Buffer.alloc(n === 'float' ? 4 : 8);
        if (n === 'float') b.writeFloatBE(Number(v));
        else b.writeDoubleBE(Number(v));
        return b;
      }
      if (n === 'boolean') return Buffer.from([v ? 1 : 0]);
      if (n === 'timestamp') {
        const ms =
          v instanceof Date ? v.getTime() : typeof v === 'number' || typeof v === 'bigint' ? Number(v) : fail(t, v);
        const b = Buffer.alloc(8);
        b.writeBigInt64BE(BigInt(Math.trunc(ms)));
        return b;
      }
      if (n === 'blob') return Buffer.isBuffer(v) ? v : v instanceof Uint8Array ? Buffer.from(v) : fail(t, v);
      if (n === 'text' || n === 'ascii') return Buffer.from(String(v), 'utf8');
      // Everything else through its CQL literal text (uuid, inet, date, time, decimal, duration).
      return literalToBytes(
        t,
        { kind: n === 'decimal' ? 'float' : n === 'duration' ? 'duration' : 'string', text: String(v) },
        'result',
      );
    }
    case 'list':
    case 'set': {
      const items = v instanceof Set ? [...v] : Array.isArray(v) ? v : fail(t, v);
      return buildCollection(
        items.length,
        items.map((e) => fromJs(t.element, e) ?? Buffer.alloc(0)),
      );
    }
    case 'map': {
      const entries =
        v instanceof Map ? [...v.entries()] : typeof v === 'object' ? Object.entries(v as object) : fail(t, v);
      const parts: Buffer[] = [];
      for (const [k, x] of entries)
        parts.push(fromJs(t.key, k) ?? Buffer.alloc(0), fromJs(t.value, x) ?? Buffer.alloc(0));
      return buildCollection(entries.length, parts);
    }
    case 'tuple': {
      const items = Array.isArray(v) ? v : fail(t, v);
      return buildTuple(t.elements.map((e, i) => fromJs(e, items[i])));
    }
    case 'udt': {
      const o = typeof v === 'object' ? (v as Record<string, unknown>) : fail(t, v);
      return buildTuple(t.fields.map((f) => fromJs(f.type, o[f.name])));
    }
    default:
      throw new FunctionFailure(`Cannot return values of type ${t.kind} from a JavaScript function`, '', '', []);
  }
}
