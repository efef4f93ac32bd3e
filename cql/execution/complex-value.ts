// A non-frozen collection / UDT read from storage (elements by cell path) turned back into the
// serialized value clients expect, and a client's serialized value split into cells. Set elements and
// map keys are stored as byte-comparable paths, so storage keeps them in CQL order.

import type { ComplexValue } from '../../storage/row-projection.js';
import { decodeKeyComponent, encodeKeyComponent } from '../types/byte-comparable.js';
import type { CqlType } from '../types/cql-type.js';
import {
  buildCollection,
  buildTuple,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
} from '../types/serialized-layout.js';

export function complexToBytes(type: CqlType, v: ComplexValue): Buffer | null {
  if (v.paths.length === 0) return null;
  switch (type.kind) {
    case 'set':
      return buildCollection(
        v.paths.length,
        v.paths.map((p) => decodeKeyComponent(type.element, p).value),
      );
    case 'list':
      return buildCollection(v.values.length, v.values);
    case 'map': {
      const parts: Buffer[] = [];
      for (let i = 0; i < v.paths.length; i++)
        parts.push(decodeKeyComponent(type.key, v.paths[i]!).value, v.values[i]!);
      return buildCollection(v.paths.length, parts);
    }
    case 'udt': {
      // Paths are 2-byte field indices.
      const fields: (Buffer | null)[] = type.fields.map(() => null);
      // Every field of the type is serialized, null ones included, as Cassandra reads non-frozen UDTs.
      for (let i = 0; i < v.paths.length; i++) fields[v.paths[i]!.readUInt16BE(0)] = v.values[i]!;
      return buildTuple(fields);
    }
    default:
      return null;
  }
}

export interface ElementCell {
  path: Buffer;
  value: Buffer;
}

/** Path of a UDT field cell. */
export function udtFieldPath(index: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(index);
  return b;
}

const EMPTY = Buffer.alloc(0);

/**
 * The element cells of a whole serialized collection/UDT value. List elements get paths from
 * `listPath` (time-ordered unique ids, like Cassandra's timeuuid list cell paths).
 */
export function bytesToElements(type: CqlType, bytes: Buffer, listPath: () => Buffer): ElementCell[] {
  switch (type.kind) {
    case 'set':
      return readCollectionElements(bytes).map((e) => ({ path: encodeKeyComponent(type.element, e), value: EMPTY }));
    case 'list':
      return readCollectionElements(bytes).map((e) => ({ path: listPath(), value: e }));
    case 'map':
      return readMapEntries(bytes).map(([k, v]) => ({ path: encodeKeyComponent(type.key, k), value: v }));
    case 'udt':
      return readTupleFields(bytes).flatMap((f, i) => (f === null ? [] : [{ path: udtFieldPath(i), value: f }]));
    default:
      return [];
  }
}

let lastTicks = 0;

/**
 * A new list element path: appends sort after every earlier element, prepends before (Cassandra uses
 * timeuuids counting forward, and backward from a reference time for prepends). Ticks are unique.
 */
export function listElementPath(prepend: boolean): Buffer {
  let ticks = Date.now() * 1024;
  if (ticks <= lastTicks) ticks = lastTicks + 1;
  lastTicks = ticks;
  const v = prepend ? 2 ** 53 - ticks : ticks;
  const b = Buffer.allocUnsafe(9);
  b[0] = prepend ? 0 : 1;
  b.writeUInt32BE(Math.floor(v / 2 ** 32), 1);
  b.writeUInt32BE(v % 2 ** 32, 5);
  return b;
}
