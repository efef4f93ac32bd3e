// Binary form of rows and partition headers as stored in the pool's maps. Layout (big-endian, varint = LEB128):
//
// row:     u8 flags (1 liveness, 2 liveness expiring, 4 row deletion, 8 clustering values)
//          [i64 ts [u32 ttl u32 expiry]] [i64 ts u32 ldt] [varint n (varint len, bytes)*]
//          then columns in ascending column id until the end: varint column id, varint body length, body
// simple:  u8 cell flags (1 tombstone, 2 expiring), i64 ts, [u32 ttl u32 ldt | u32 ldt], value = rest of body
// complex: u8 0x80 | (0x40 if deleted), [i64 ts u32 ldt], cells until the end: varint path len, path,
//          varint cell len, simple body
// header:  u8 flags (1 partition deletion, 2 range tombstones) [i64 ts u32 ldt]
//          [varint n (u8 1 start incl | 2 end incl, varint len, start, varint len, end, i64 ts, u32 ldt)*]
//
// Every column carries its body length so a read skips unwanted columns without touching their values, and
// values come back as subarrays of the stored buffer (no copy, never decoded).

import type { Cell, ClusteringBound, DeletionTime, LivenessInfo, RangeTombstone } from './mutation.js';
import { NO_DELETION_TIME, NO_TTL } from './mutation.js';
import { readTimestamp, type Timestamp, writeTimestamp } from './timestamp.js';

export const ROW_LIVENESS = 1;
export const ROW_LIVENESS_EXPIRING = 2;
export const ROW_DELETION = 4;
export const ROW_CLUSTERING = 8;

export const CELL_TOMBSTONE = 1;
export const CELL_EXPIRING = 2;
export const CELL_COMPLEX = 0x80;
export const COMPLEX_DELETED = 0x40;

const HEADER_DELETION = 1;
const HEADER_RANGES = 2;

export interface SimpleColumnData {
  readonly column: number;
  readonly complex: false;
  readonly cell: Cell;
}

export interface ComplexColumnData {
  readonly column: number;
  readonly complex: true;
  readonly deletion: DeletionTime | undefined;
  /** Sorted by path (memcmp), one cell per path. */
  readonly cells: readonly Cell[];
}

export type ColumnData = SimpleColumnData | ComplexColumnData;

/** A fully decoded row, as the merge works on it. */
export interface StoredRow {
  readonly clusteringValues: readonly Buffer[] | undefined;
  readonly liveness: LivenessInfo | undefined;
  readonly deletion: DeletionTime | undefined;
  /** Ascending column id. */
  readonly columns: readonly ColumnData[];
}

export interface PartitionHeader {
  readonly deletion: DeletionTime | undefined;
  readonly rangeTombstones: readonly RangeTombstone[];
}

export const EMPTY_HEADER: PartitionHeader = { deletion: undefined, rangeTombstones: [] };

export function isEmptyHeader(h: PartitionHeader): boolean {
  return !h.deletion && h.rangeTombstones.length === 0;
}

// ---- primitives -------------------------------------------------------------------------------

export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

export function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

/** A cursor over a stored buffer; `pos` advances as fields are read. */
export class ByteReader {
  constructor(
    public buf: Buffer,
    public pos: number,
  ) {}

  /** Reuse one reader for many buffers (the read path reads millions of rows). */
  reset(buf: Buffer, pos: number): void {
    this.buf = buf;
    this.pos = pos;
  }

  u8(): number {
    return this.buf[this.pos++]!;
  }

  varint(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if (b < 0x80) return b;
    let n = b & 0x7f;
    let mul = 128;
    for (;;) {
      b = buf[this.pos++]!;
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 128;
    }
  }

  /** A timestamp (int64). */
  i64(): Timestamp {
    const v = readTimestamp(this.buf, this.pos);
    this.pos += 8;
    return v;
  }

  u32(): number {
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  bytes(len: number): Buffer {
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
}

/** Timestamps are stored as int64 (storage/timestamp.ts). */
const writeI64 = writeTimestamp;

function writeU32(buf: Buffer, pos: number, v: number): number {
  buf.writeUInt32BE(v >>> 0, pos);
  return pos + 4;
}

// ---- cells ------------------------------------------------------------------------------------

function cellBodySize(c: Cell): number {
  if (c.value === null) return 1 + 8 + 4;
  return 1 + 8 + (c.ttl !== NO_TTL ? 8 : 0) + c.value.length;
}

function writeCellBody(buf: Buffer, pos: number, c: Cell): number {
  if (c.value === null) {
    buf[pos++] = CELL_TOMBSTONE;
    pos = writeI64(buf, pos, c.ts);
    return writeU32(buf, pos, c.ldt);
  }
  if (c.ttl !== NO_TTL) {
    buf[pos++] = CELL_EXPIRING;
    pos = writeI64(buf, pos, c.ts);
    pos = writeU32(buf, pos, c.ttl);
    pos = writeU32(buf, pos, c.ldt);
  } else {
    buf[pos++] = 0;
    pos = writeI64(buf, pos, c.ts);
  }
  return pos + c.value.copy(buf, pos);
}

/** Decodes a simple cell body occupying [r.pos, end). */
export function readCellBody(r: ByteReader, end: number, column: number, path: Buffer | undefined): Cell {
  const flags = r.u8();
  const ts = r.i64();
  if (flags & CELL_TOMBSTONE) {
    const ldt = r.u32();
    r.pos = end;
    return { column, path, ts, ttl: NO_TTL, ldt, value: null };
  }
  let ttl = NO_TTL;
  let ldt = NO_DELETION_TIME;
  if (flags & CELL_EXPIRING) {
    ttl = r.u32();
    ldt = r.u32();
  }
  const value = r.buf.subarray(r.pos, end);
  r.pos = end;
  return { column, path, ts, ttl, ldt, value };
}

function columnBodySize(c: ColumnData): number {
  if (!c.complex) return cellBodySize(c.cell);
  let size = 1 + (c.deletion ? 12 : 0);
  for (const cell of c.cells) {
    const path = cell.path!;
    const cs = cellBodySize(cell);
    size += varintSize(path.length) + path.length + varintSize(cs) + cs;
  }
  return size;
}

// ---- rows -------------------------------------------------------------------------------------

export function encodeRow(row: StoredRow): Buffer {
  return encodeRowAfter(row, 0, undefined);
}

/**
 * Encodes the row, preceded (headerSize > 0) by a single-row partition header holding `deletion`:
 * one allocation for both.
 */
function encodeRowAfter(row: StoredRow, headerSize: 0 | 1 | 13, deletion: DeletionTime | undefined): Buffer {
  let size = headerSize + 1;
  if (row.liveness) size += row.liveness.ttl !== NO_TTL ? 16 : 8;
  if (row.deletion) size += 12;
  const cv = row.clusteringValues;
  if (cv) {
    size += varintSize(cv.length);
    for (const v of cv) size += varintSize(v.length) + v.length;
  }
  const bodySizes = new Array<number>(row.columns.length);
  for (let i = 0; i < row.columns.length; i++) {
    const c = row.columns[i]!;
    const bs = columnBodySize(c);
    bodySizes[i] = bs;
    size += varintSize(c.column) + varintSize(bs) + bs;
  }

  const buf = Buffer.allocUnsafe(size);
  if (headerSize > 0) buf[0] = deletion ? HEADER_DELETION : 0;
  if (deletion) writeU32(buf, writeI64(buf, 1, deletion.ts), deletion.ldt);
  let flags = 0;
  if (row.liveness) flags |= ROW_LIVENESS | (row.liveness.ttl !== NO_TTL ? ROW_LIVENESS_EXPIRING : 0);
  if (row.deletion) flags |= ROW_DELETION;
  if (cv) flags |= ROW_CLUSTERING;
  buf[headerSize] = flags;
  let pos = headerSize + 1;
  if (row.liveness) {
    pos = writeI64(buf, pos, row.liveness.ts);
    if (row.liveness.ttl !== NO_TTL) {
      pos = writeU32(buf, pos, row.liveness.ttl);
      pos = writeU32(buf, pos, row.liveness.expiry);
    }
  }
  if (row.deletion) {
    pos = writeI64(buf, pos, row.deletion.ts);
    pos = writeU32(buf, pos, row.deletion.ldt);
  }
  if (cv) {
    pos = writeVarint(buf, pos, cv.length);
    for (const v of cv) {
      pos = writeVarint(buf, pos, v.length);
      pos += v.copy(buf, pos);
    }
  }
  for (let i = 0; i < row.columns.length; i++) {
    const c = row.columns[i]!;
    pos = writeVarint(buf, pos, c.column);
    pos = writeVarint(buf, pos, bodySizes[i]!);
    if (!c.complex) {
      pos = writeCellBody(buf, pos, c.cell);
      continue;
    }
    buf[pos++] = CELL_COMPLEX | (c.deletion ? COMPLEX_DELETED : 0);
    if (c.deletion) {
      pos = writeI64(buf, pos, c.deletion.ts);
      pos = writeU32(buf, pos, c.deletion.ldt);
    }
    for (const cell of c.cells) {
      const path = cell.path!;
      pos = writeVarint(buf, pos, path.length);
      pos += path.copy(buf, pos);
      pos = writeVarint(buf, pos, cellBodySize(cell));
      pos = writeCellBody(buf, pos, cell);
    }
  }
  return buf;
}

/** The fixed part of a row: flags, liveness, deletion, clustering values. Leaves `r` at the first column. */
export interface RowPrefix {
  flags: number;
  liveness: LivenessInfo | undefined;
  deletion: DeletionTime | undefined;
  /** Offset of the clustering values block (0: none); decoded only when asked for. */
  clusteringAt: number;
}

export function readRowPrefix(r: ByteReader): RowPrefix {
  const flags = r.u8();
  let liveness: LivenessInfo | undefined;
  let deletion: DeletionTime | undefined;
  let clusteringAt = 0;
  if (flags & ROW_LIVENESS) {
    const ts = r.i64();
    liveness =
      flags & ROW_LIVENESS_EXPIRING
        ? { ts, ttl: r.u32(), expiry: r.u32() }
        : { ts, ttl: NO_TTL, expiry: NO_DELETION_TIME };
  }
  if (flags & ROW_DELETION) deletion = { ts: r.i64(), ldt: r.u32() };
  if (flags & ROW_CLUSTERING) {
    clusteringAt = r.pos;
    const n = r.varint();
    for (let i = 0; i < n; i++) {
      const len = r.varint(); // not `r.pos += r.varint()`: that reads pos before varint() moves it
      r.pos += len;
    }
  }
  return { flags, liveness, deletion, clusteringAt };
}

export function readClusteringValues(buf: Buffer, at: number): Buffer[] {
  if (at === 0) return [];
  const r = new ByteReader(buf, at);
  const n = r.varint();
  const out = new Array<Buffer>(n);
  for (let i = 0; i < n; i++) out[i] = r.bytes(r.varint());
  return out;
}

export function decodeComplexBody(r: ByteReader, end: number, column: number): ComplexColumnData {
  const flags = r.u8();
  const deletion = flags & COMPLEX_DELETED ? { ts: r.i64(), ldt: r.u32() } : undefined;
  const cells: Cell[] = [];
  while (r.pos < end) {
    const path = r.bytes(r.varint());
    const len = r.varint();
    cells.push(readCellBody(r, r.pos + len, column, path));
  }
  return { column, complex: true, deletion, cells };
}

/** Full decode (for merges); values stay subarrays of `buf`. */
export function decodeRow(buf: Buffer, offset = 0): StoredRow {
  const r = new ByteReader(buf, offset);
  const prefix = readRowPrefix(r);
  const columns: ColumnData[] = [];
  while (r.pos < buf.length) {
    const column = r.varint();
    const len = r.varint();
    const end = r.pos + len;
    if (buf[r.pos]! & CELL_COMPLEX) columns.push(decodeComplexBody(r, end, column));
    else columns.push({ column, complex: false, cell: readCellBody(r, end, column, undefined) });
  }
  return {
    clusteringValues: prefix.clusteringAt ? readClusteringValues(buf, prefix.clusteringAt) : undefined,
    liveness: prefix.liveness,
    deletion: prefix.deletion,
    columns,
  };
}

// ---- partition header -------------------------------------------------------------------------

export function encodeHeader(h: PartitionHeader): Buffer {
  let size = 1 + (h.deletion ? 12 : 0);
  const rts = h.rangeTombstones;
  if (rts.length > 0) {
    size += varintSize(rts.length);
    for (const rt of rts) {
      const s = rt.start.prefix.length;
      const e = rt.end.prefix.length;
      size += 1 + varintSize(s) + s + varintSize(e) + e + 12;
    }
  }
  const buf = Buffer.allocUnsafe(size);
  buf[0] = (h.deletion ? HEADER_DELETION : 0) | (rts.length > 0 ? HEADER_RANGES : 0);
  let pos = 1;
  if (h.deletion) {
    pos = writeI64(buf, pos, h.deletion.ts);
    pos = writeU32(buf, pos, h.deletion.ldt);
  }
  if (rts.length > 0) {
    pos = writeVarint(buf, pos, rts.length);
    for (const rt of rts) {
      buf[pos++] = (rt.start.inclusive ? 1 : 0) | (rt.end.inclusive ? 2 : 0);
      pos = writeVarint(buf, pos, rt.start.prefix.length);
      pos += rt.start.prefix.copy(buf, pos);
      pos = writeVarint(buf, pos, rt.end.prefix.length);
      pos += rt.end.prefix.copy(buf, pos);
      pos = writeI64(buf, pos, rt.deletion.ts);
      pos = writeU32(buf, pos, rt.deletion.ldt);
    }
  }
  return buf;
}

/** Decodes a header at `r.pos`, leaving `r` just after it. */
export function readHeader(r: ByteReader): PartitionHeader {
  const flags = r.u8();
  const deletion = flags & HEADER_DELETION ? { ts: r.i64(), ldt: r.u32() } : undefined;
  if (!(flags & HEADER_RANGES)) return deletion ? { deletion, rangeTombstones: [] } : EMPTY_HEADER;
  const n = r.varint();
  const rangeTombstones: RangeTombstone[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const f = r.u8();
    const start: ClusteringBound = { prefix: Buffer.from(r.bytes(r.varint())), inclusive: (f & 1) !== 0 };
    const end: ClusteringBound = { prefix: Buffer.from(r.bytes(r.varint())), inclusive: (f & 2) !== 0 };
    rangeTombstones[i] = { start, end, deletion: { ts: r.i64(), ldt: r.u32() } };
  }
  return { deletion, rangeTombstones };
}

export function decodeHeader(buf: Buffer): PartitionHeader {
  return readHeader(new ByteReader(buf, 0));
}

// ---- single-row partitions (tables without clustering columns) --------------------------------
// The partitions map holds the whole partition as one value: header (never with range tombstones)
// followed by the row (absent when the remainder is empty).

export function encodeSingleRowPartition(deletion: DeletionTime | undefined, row: StoredRow | undefined): Buffer {
  if (!row) return encodeHeader(deletion ? { deletion, rangeTombstones: [] } : EMPTY_HEADER);
  return encodeRowAfter(row, deletion ? 13 : 1, deletion);
}

/** Returns the partition deletion and the offset where the row starts (== buf.length: no row). */
export function readSingleRowHeader(buf: Buffer): { deletion: DeletionTime | undefined; rowAt: number } {
  const r = new ByteReader(buf, 0);
  const h = readHeader(r);
  return { deletion: h.deletion, rowAt: r.pos };
}

/** Read path: the partition deletion's timestamp (-Infinity: none) and where the row starts, without objects. */
/** singleRowShadow's shadowTs for a partition value stored at buf[at..] (no object per call). */
export function singleRowShadowTsAt(buf: Buffer, at: number): Timestamp {
  return buf[at]! & HEADER_DELETION ? readTimestamp(buf, at + 1) : Number.NEGATIVE_INFINITY;
}

/** singleRowShadow's rowAt for a partition value stored at buf[at..]. */
export function singleRowAt(buf: Buffer, at: number): number {
  return at + (buf[at]! & HEADER_DELETION ? 13 : 1);
}

export function singleRowShadow(buf: Buffer): { shadowTs: Timestamp; rowAt: number } {
  if (!(buf[0]! & HEADER_DELETION)) return { shadowTs: Number.NEGATIVE_INFINITY, rowAt: 1 };
  return { shadowTs: readTimestamp(buf, 1), rowAt: 13 };
}
