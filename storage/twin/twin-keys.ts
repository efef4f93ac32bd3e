// Keys and records of a table's Arrow twin (docs/arrow-twins.md "Integration"). Under the TableRoot:
//   'b' buffer:   twin row key -> the merged row as the row store holds it (a table without clustering columns:
//                 its partition value), empty = deleted, [0xff] = changed, read it from the row store (compaction)
//   'a' index:    u32 segment id -> segment record (tokens, ts, size, rows)
//   's' segments: [u32 segment id | u32 0] -> the Arrow IPC file bytes (an 8-byte key keeps the value
//                 8-byte aligned in the pool: a native entry is 16 header bytes + key + value);
//                 [u32 segment id | u32 1] -> the segment's key index (segment-key-index.ts: twin key -> row)
//   'd' deletion vector chunks: [u32 segment id | u32 chunk] -> 4 KiB of bits
//   'r' row pointers (pools written before the key indexes): twin row key -> [u32 segment id | u32 row index];
//                 converted into key indexes when the table is opened (pointer-migration.ts), empty afterwards
// A twin row key is [8 sortable token bytes | u16 partition key length | partition key | row map key], so one
// partition's rows share a prefix (the length keeps partition keys prefix-free) and keys sort by token.

export const TWIN_BUFFER_KEY = Buffer.from('b');
export const TWIN_INDEX_KEY = Buffer.from('a');
export const TWIN_SEGMENTS_KEY = Buffer.from('s');
export const TWIN_DELETIONS_KEY = Buffer.from('d');
export const TWIN_POINTERS_KEY = Buffer.from('r');

/** A buffer entry whose row is to be read from the row store (compaction re-buffers rows this way). */
export const BUFFER_CHANGED = Buffer.from([0xff]);
/** A deleted row's buffer entry. */
export const BUFFER_DELETED = Buffer.alloc(0);

export function isBufferDeletion(v: Buffer): boolean {
  return v.length === 0;
}

export function isBufferMarker(v: Buffer): boolean {
  return isBufferMarkerAt(v, 0, v.length);
}

/** isBufferMarker of the value rec[at, end), without a view of it. */
export function isBufferMarkerAt(rec: Uint8Array, at: number, end: number): boolean {
  return end - at === 1 && rec[at] === BUFFER_CHANGED[0];
}

/** Twin key of a row: `mapKey` is the partitions-map key [token | pk]; `rowKey` the row's key in its partition. */
export function twinRowKey(mapKey: Buffer, rowKey: Buffer): Buffer {
  const pkLen = mapKey.length - 8;
  const out = Buffer.allocUnsafe(10 + pkLen + rowKey.length);
  mapKey.copy(out, 0, 0, 8);
  out.writeUInt16BE(pkLen, 8);
  mapKey.copy(out, 10, 8);
  rowKey.copy(out, 10 + pkLen);
  return out;
}

/** The prefix every twin key of one partition starts with. */
export function twinPartitionPrefix(mapKey: Buffer): Buffer {
  return twinRowKey(mapKey, EMPTY);
}

export interface TwinKeyParts {
  /** The partitions-map key [token | pk]. */
  mapKey: Buffer;
  /** Row key inside the partition (0x02 | clustering), empty for a table without clustering columns. */
  rowKey: Buffer;
}

export function splitTwinKey(key: Buffer): TwinKeyParts {
  const pkLen = key.readUInt16BE(8);
  const mapKey = Buffer.allocUnsafe(8 + pkLen);
  key.copy(mapKey, 0, 0, 8);
  key.copy(mapKey, 8, 10, 10 + pkLen);
  return { mapKey, rowKey: key.subarray(10 + pkLen) };
}

export function hasPrefix(key: Buffer, prefix: Buffer): boolean {
  return key.length >= prefix.length && key.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

export function segmentKey(id: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(id, 0);
  return b;
}

/** Key of a segment's bytes in the 's' map (see the layout note: 8 bytes, for alignment). */
export function segmentBytesKey(id: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32BE(id, 0);
  return b;
}

/** Key of a segment's key index in the 's' map. */
export function keyIndexKey(id: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(id, 0);
  b.writeUInt32BE(1, 4);
  return b;
}

export function chunkKey(segment: number, chunk: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeUInt32BE(segment, 0);
  b.writeUInt32BE(chunk, 4);
  return b;
}

export function decodePointer(v: Buffer): { segment: number; row: number } {
  return { segment: v.readUInt32BE(0), row: v.readUInt32BE(4) };
}

/** What the Arrow index map says of a segment (the study's `(token_id, ts, arrow_addr, arrow_size)` and more). */
export interface SegmentRecord {
  readonly id: number;
  readonly rows: number;
  readonly firstToken: bigint;
  readonly lastToken: bigint;
  /** Flush time, ms since the epoch. */
  readonly ts: number;
  /** IPC bytes. */
  readonly size: number;
}

export function encodeSegmentRecord(r: SegmentRecord): Buffer {
  const b = Buffer.allocUnsafe(33);
  b[0] = 1;
  b.writeUInt32BE(r.rows, 1);
  b.writeBigInt64BE(r.firstToken, 5);
  b.writeBigInt64BE(r.lastToken, 13);
  b.writeDoubleBE(r.ts, 21);
  b.writeUInt32BE(r.size, 29);
  return b;
}

export function decodeSegmentRecord(id: number, b: Buffer): SegmentRecord {
  return {
    id,
    rows: b.readUInt32BE(1),
    firstToken: b.readBigInt64BE(5),
    lastToken: b.readBigInt64BE(13),
    ts: b.readDoubleBE(21),
    size: b.readUInt32BE(29),
  };
}

const EMPTY = Buffer.alloc(0);
