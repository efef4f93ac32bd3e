// Where things live in the pool (see docs/storage-engine.md):
//   pool root:  'catalog' -> catalog map, 'tables' -> table directory (table id -> TableRoot)
//   TableRoot:  'm' -> table meta, 'p' -> partitions map ([sortable token | partition key] -> partition)
//               'b', 'a', 's', 'd', 'r' -> the Arrow twin's maps (storage/twin/twin-keys.ts)
//   partition of a table with clustering columns: a child map with
//     0x00 -> header (partition deletion, range tombstones), 0x01 -> static row, 0x02 | clustering -> row
//   partition of a table without clustering columns: the value itself (header + its single row)

import { sortableBytesToToken, writeSortableToken } from './murmur3-token.js';

export const ROOT_CATALOG_KEY = Buffer.from('catalog');
export const ROOT_TABLES_KEY = Buffer.from('tables');
export const ROOT_VERSION_KEY = Buffer.from('version');
export const LAYOUT_VERSION = 1;

export const TABLE_META_KEY = Buffer.from('m');
export const TABLE_PARTITIONS_KEY = Buffer.from('p');

export const HEADER_KEY = Buffer.from([0x00]);
export const STATIC_KEY = Buffer.from([0x01]);
export const ROW_TAG = Buffer.from([0x02]);

const META_CLUSTERED = 1;

export function encodeTableMeta(clustered: boolean): Buffer {
  return Buffer.from([1, clustered ? META_CLUSTERED : 0]);
}

export function decodeTableMeta(buf: Buffer): { clustered: boolean } {
  return { clustered: (buf[1]! & META_CLUSTERED) !== 0 };
}

/** [8 sortable token bytes | partition key]; the token is hashed from the key when not given. */
export function partitionMapKey(key: Buffer, token: bigint | undefined): Buffer {
  const out = Buffer.allocUnsafe(8 + key.length);
  if (token === undefined) writeSortableToken(key, out, 0);
  else out.writeBigUInt64BE(BigInt.asUintN(64, token) ^ 0x8000000000000000n, 0);
  key.copy(out, 8);
  return out;
}

export function tokenOfMapKey(mapKey: Buffer): bigint {
  return sortableBytesToToken(mapKey, 0);
}

export function keyOfMapKey(mapKey: Buffer): Buffer {
  return mapKey.subarray(8);
}

export function rowMapKey(clustering: Buffer): Buffer {
  const out = Buffer.allocUnsafe(1 + clustering.length);
  out[0] = ROW_TAG[0]!;
  clustering.copy(out, 1);
  return out;
}
