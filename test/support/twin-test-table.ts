// The table the storage-level twin tests write: int partition key, optional int clustering column, a double, a
// bigint and a text column (ids 0-4); plus the byte-comparable form of an int clustering value.

import { native } from '../../cql/types/cql-type.js';
import type { TwinColumn } from '../../storage/arrow/arrow-schema.js';
import { int32Bytes } from './value-bytes.js';

export function twinTestColumns(clustered: boolean, extra: readonly TwinColumn[] = []): TwinColumn[] {
  const cols: TwinColumn[] = [{ name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 }];
  if (clustered) cols.push({ name: 'c', id: 1, kind: 'clustering', type: native('int'), position: 0 });
  cols.push(
    { name: 'x', id: 2, kind: 'regular', type: native('double'), position: -1 },
    { name: 'y', id: 3, kind: 'regular', type: native('bigint'), position: -1 },
    { name: 't', id: 4, kind: 'regular', type: native('text'), position: -1 },
    ...extra,
  );
  return cols;
}

/** Byte-comparable int (a clustering key's bytes): sign bit flipped. */
export function comparableInt(v: number): Buffer {
  const b = int32Bytes(v);
  b[0]! ^= 0x80;
  return b;
}
