// Serializes JS values into CQL value bytes, for rows the server itself produces
// (system tables, virtual tables, DESCRIBE). Client values never pass through here.

import { InvalidRequest } from '../errors.js';
import type { CqlType } from './cql-type.js';
import { inetFromText } from './inet-text.js';
import { uuidFromText } from './uuid-text.js';

export type JsValue =
  | string
  | number
  | bigint
  | boolean
  | Buffer
  | Date
  | null
  | undefined
  | readonly JsValue[]
  | ReadonlyMap<JsValue, JsValue>
  | { readonly [field: string]: JsValue };

function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n);
  return b;
}

function uuidBytes(s: string): Buffer {
  const b = uuidFromText(s);
  if (!b) throw new InvalidRequest(`Invalid UUID string: ${s}`);
  return b;
}

function inetBytes(s: string): Buffer {
  const b = inetFromText(s);
  if (!b) throw new InvalidRequest(`Unable to make inet address from '${s}'`);
  return b;
}

function collection(items: Buffer[]): Buffer {
  const parts: Buffer[] = [int32(items.length)];
  for (const it of items) parts.push(int32(it.length), it);
  return Buffer.concat(parts);
}

/** Encodes `value` as `type`; null/undefined give null (no cell). */
export function encodeJsValue(type: CqlType, value: JsValue): Buffer | null {
  if (value === null || value === undefined) return null;
  switch (type.kind) {
    case 'native':
      switch (type.name) {
        case 'text':
        case 'ascii':
          return Buffer.from(String(value), 'utf8');
        case 'int':
          return int32(Number(value));
        case 'bigint':
        case 'counter':
        case 'timestamp': {
          const b = Buffer.allocUnsafe(8);
          b.writeBigInt64BE(value instanceof Date ? BigInt(value.getTime()) : BigInt(value as number | bigint));
          return b;
        }
        case 'boolean':
          return Buffer.from([value ? 1 : 0]);
        case 'double': {
          const b = Buffer.allocUnsafe(8);
          b.writeDoubleBE(Number(value));
          return b;
        }
        case 'float': {
          const b = Buffer.allocUnsafe(4);
          b.writeFloatBE(Number(value));
          return b;
        }
        case 'uuid':
        case 'timeuuid':
          return Buffer.isBuffer(value) ? value : uuidBytes(String(value));
        case 'inet':
          return Buffer.isBuffer(value) ? value : inetBytes(String(value));
        case 'blob':
          return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
        default:
          throw new InvalidRequest(`Cannot encode a JS value as ${type.name}`);
      }
    case 'list':
    case 'set': {
      const items = value as readonly JsValue[];
      return collection(items.map((v) => encodeJsValue(type.element, v) ?? Buffer.alloc(0)));
    }
    case 'map': {
      const entries: [JsValue, JsValue][] =
        value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, JsValue>);
      const items: Buffer[] = [];
      for (const [k, v] of entries) {
        items.push(encodeJsValue(type.key, k) ?? Buffer.alloc(0), encodeJsValue(type.value, v) ?? Buffer.alloc(0));
      }
      const parts: Buffer[] = [int32(entries.length)];
      for (const it of items) parts.push(int32(it.length), it);
      return Buffer.concat(parts);
    }
    default:
      throw new InvalidRequest(`Cannot encode a JS value as ${type.kind}`);
  }
}
