// Flushing a table's twin buffer into one Arrow segment (DESIGN §5). The buffer as the flush starts (the sorted
// latest entry per row of its log) is read in bounded slices, one per event-loop turn, each row encoded straight
// into the column encoders; then ONE transaction writes the IPC segment, its index record, its key index (twin
// key -> segment row), deletes the log records read and puts back the rows the flush keeps. A row written while the
// flush was reading stays in the buffer (its newer record) and its copy in the new segment is born deleted, so the
// segment never shadows a newer version. A crash leaves the old state (nothing of the flush is committed) or the
// new one.

import { type TwinLayout, twinLayout } from '../arrow/arrow-schema.js';
import { DeletionVector } from '../arrow/deletion-vector.js';
import { SegmentBatchBuilder } from '../arrow/segment-batch-builder.js';
import {
  type BuiltSegment,
  buildSegmentBatch,
  type CellLookup,
  serializeSegment,
  type TwinRow,
} from '../arrow/segment-builder.js';
import { openSegment } from '../arrow/segment-reader.js';
import { deserializePartitionKey } from '../partition-key.js';
import { ByteReader, ROW_DELETION, ROW_LIVENESS, ROW_LIVENESS_EXPIRING, singleRowShadow } from '../row-codec.js';
import { type ComplexValue, Projection } from '../row-projection.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import type { FlushWatch, TableTwin } from './table-twin.js';
import { NEXT_ID_KEY } from './table-twin.js';
import type { BufferEntry } from './twin-buffer.js';
import { compareTwinKeys } from './twin-key-compare.js';
import {
  chunkKey,
  encodeSegmentRecord,
  isBufferDeletion,
  isBufferMarker,
  keyIndexKey,
  type SegmentRecord,
  segmentBytesKey,
  segmentKey,
  splitTwinKey,
} from './twin-keys.js';
import { type StoredRowRef, TwinRowSource } from './twin-row-source.js';
import type { TwinSchema } from './twin-schema.js';

export interface FlushResult {
  /** Segment written (undefined: nothing to flush). */
  segment: SegmentRecord | undefined;
  /** Buffer entries removed (flushed rows, deletions, dead rows). */
  removed: number;
  /** Rows left in the buffer (written during the flush, or with cells expiring at different times). */
  kept: number;
  ms: number;
}

/** Why a buffered row is not in the segment. */
type Fate = 'flush' | 'drop' | 'keep';

/** Cell values by column id (ids are small integers). */
class ArrayCells implements CellLookup {
  readonly v: (Uint8Array | undefined)[] = [];
  get(id: number): Uint8Array | null | undefined {
    return this.v[id];
  }
}

export class TwinFlush implements FlushWatch {
  cancelled = false;
  done = false;
  result: FlushResult | undefined;
  /** The buffer when the flush started (latest entry per row, sorted) and the last log record then. */
  private readonly snapshot: readonly BufferEntry[];
  private readonly upTo: number;
  private pos = 0;
  /** Per row read: its entry and its fate. */
  private readonly entries: BufferEntry[] = [];
  private readonly fates: Fate[] = [];
  /** For each flushed row (in read order), the index of its entry in `entries`. */
  private rowKeyIndex: number[] = [];
  /**
   * Rows go straight into the column encoders as they are read (the buffer's order is the row store's), except
   * after a pair of rows arrives out of the row store's order — only possible for two partitions with one token
   * and keys of different lengths: then the flush reads the buffer again, keeping rows as objects to sort them.
   */
  private builder: SegmentBatchBuilder | undefined;
  private rows: TwinRow[] = [];
  private readonly cells = new ArrayCells();
  private prevPk: Buffer | undefined;
  private prevTokenHigh = 0;
  private prevTokenLow = 0;
  private readonly layout: TwinLayout;
  private readonly projection: Projection;
  private readonly source: TwinRowSource;
  private readonly reader = new ByteReader(Buffer.alloc(0), 0);
  /** Time spent building the segment and in the commit transaction (for profiles). */
  buildMs = 0;
  applyMs = 0;
  private readonly started = performance.now();

  constructor(
    private readonly twin: TableTwin,
    private readonly schema: TwinSchema,
  ) {
    this.layout = twinLayout(schema.columns);
    const regular = schema.columns.filter((c) => c.kind === 'regular');
    this.projection = new Projection(
      regular.map((c) => c.id),
      true,
    );
    this.source = new TwinRowSource(twin.table);
    this.upTo = twin.buffer.lastSeq;
    this.snapshot = twin.buffer.sortedView();
    this.builder = new SegmentBatchBuilder(this.layout, Math.min(this.snapshot.length, 1 << 16));
    twin.flushing = this;
  }

  /** Reads up to `limit` buffer rows; true when the flush is finished (committed, or cancelled). */
  step(limit: number): boolean {
    if (this.done) return true;
    if (this.cancelled || this.twin.table.dropped) return this.finishCancelled();
    const now = Math.floor(Date.now() / 1000);
    const end = Math.min(this.snapshot.length, this.pos + limit);
    for (; this.pos < end; this.pos++) {
      const e = this.snapshot[this.pos]!;
      this.entries.push(e);
      const fate = this.readRow(e.key, e.value, now);
      if (fate === 'unordered') {
        this.restartUnstreamed();
        return false;
      }
      this.fates.push(fate);
    }
    if (this.pos >= this.snapshot.length) this.commit();
    return this.done;
  }

  private finishCancelled(): boolean {
    this.done = true;
    if (this.twin.flushing === this) this.twin.flushing = undefined;
    this.result = { segment: undefined, removed: 0, kept: 0, ms: performance.now() - this.started };
    return true;
  }

  // Expiry bookkeeping of the row being read (fields, not a closure: this runs once per flushed row).
  private permanent = false;
  private expiry = -1;
  private mixed = false;
  private writetime = Number.NEGATIVE_INFINITY;

  private note(ttl: number | null | undefined, ts: number | null | undefined, now: number): void {
    if (ttl === null || ttl === undefined) this.permanent = true;
    else {
      const e = now + ttl;
      if (this.expiry >= 0 && e !== this.expiry) this.mixed = true;
      this.expiry = e;
    }
    if (ts !== null && ts !== undefined && ts > this.writetime) this.writetime = ts;
  }

  /** Reads the buffer again from the start, keeping rows as objects to sort them at the end. */
  private restartUnstreamed(): void {
    this.builder = undefined;
    this.pos = 0;
    this.entries.length = 0;
    this.fates.length = 0;
    this.rowKeyIndex = [];
    this.rows = [];
  }

  /** The row as a segment row, or why it is not one ('unordered': it breaks the row store's order). */
  private readRow(key: Buffer, value: Buffer, now: number): Fate | 'unordered' {
    if (isBufferDeletion(value)) return 'drop';
    const clustered = this.twin.table.clustered;
    // Without clustering columns the buffer value is the whole partition: no key split, no header lookup.
    let ref: StoredRowRef | undefined;
    let pkAt = 10;
    let mapKey: Buffer | undefined;
    if (!clustered && !isBufferMarker(value)) {
      const { shadowTs, rowAt } = singleRowShadow(value);
      if (rowAt >= value.length) return 'drop';
      ref = { buf: value, offset: rowAt, clustering: EMPTY, shadowTs };
    } else {
      const parts = splitTwinKey(key);
      mapKey = parts.mapKey;
      pkAt = 8;
      ref = this.source.fromBuffer(parts.mapKey, parts.rowKey, value);
      if (!ref) return 'drop';
    }
    const rr = this.projection.project(ref.buf, ref.offset, ref.clustering, ref.shadowTs, now);
    if (!rr) return 'drop';
    // `_expires` must mean "the whole row is gone then": every live part expires at the same second, or none does.
    this.permanent = false;
    this.expiry = -1;
    this.mixed = false;
    this.writetime = Number.NEGATIVE_INFINITY;
    // Row liveness and deletion, read in place (the projection does not report them).
    const r = this.reader;
    r.reset(ref.buf, ref.offset);
    const flags = r.u8();
    let lts = 0;
    let lttl = 0;
    let lexpiry = 0;
    if (flags & ROW_LIVENESS) {
      lts = r.i64();
      if (flags & ROW_LIVENESS_EXPIRING) {
        lttl = r.u32();
        lexpiry = r.u32();
      }
    }
    let dts = ref.shadowTs;
    if (flags & ROW_DELETION) {
      const ts = r.i64();
      if (ts > dts) dts = ts;
    }
    if (flags & ROW_LIVENESS && lts > dts && (lttl === 0 || now < lexpiry)) {
      this.note(lttl === 0 ? null : lexpiry - now, lts, now);
    }
    const cells = this.builder ? this.cells : new ArrayCells();
    cells.v.length = 0;
    const ids = this.projection.columns;
    const ttls = rr.ttls;
    const wts = rr.writetimes;
    for (let s = 0; s < ids.length; s++) {
      const v = rr.values[s];
      if (v === null || v === undefined) continue;
      const id = ids[s]!;
      if (Buffer.isBuffer(v)) {
        this.note(ttls?.[s], wts?.[s], now);
        cells.v[id] = v;
      } else {
        const cv = v as ComplexValue;
        for (let j = 0; j < cv.values.length; j++) this.note(cv.ttls?.[j], cv.writetimes?.[j], now);
        const b = this.schema.complexToBytes(id, cv);
        if (b) cells.v[id] = b;
      }
    }
    if (this.mixed || (this.permanent && this.expiry >= 0)) return 'keep';
    const nPk = this.layout.partitionKey.length;
    const pk = mapKey ? mapKey.subarray(8) : key.subarray(pkAt, pkAt + key.readUInt16BE(8));
    const writetime = Number.isFinite(this.writetime) ? this.writetime : 0;
    const expires = this.expiry >= 0 ? this.expiry : null;
    if (this.builder) {
      // The sortable token bytes are the token with its sign bit flipped.
      const th = key.readInt32BE(0) ^ (0x80000000 | 0);
      const tl = key.readInt32BE(4);
      const prev = this.prevPk;
      // Same token, another partition: the row store orders the serialized keys bytewise, the buffer by length
      // first. Rows of one partition come in clustering order in both.
      if (prev && th === this.prevTokenHigh && tl === this.prevTokenLow && !prev.equals(pk)) {
        if (Buffer.compare(prev, pk) > 0) return 'unordered';
      }
      this.prevPk = pk;
      this.prevTokenHigh = th;
      this.prevTokenLow = tl;
      this.rowKeyIndex.push(this.entries.length - 1);
      this.builder.append(th, tl, deserializePartitionKey(pk, nPk), rr.clusteringValues, cells, writetime, expires);
      return 'flush';
    }
    this.rowKeyIndex.push(this.entries.length - 1);
    this.rows.push({
      token: tokenOfKey(key),
      partitionKey: deserializePartitionKey(pk, nPk),
      clustering: rr.clusteringValues,
      clusteringKey: clustered ? ref.clustering : undefined,
      cells,
      writetime,
      expires,
    });
    return 'flush';
  }

  /** Per row read, 1 when a record committed since the flush started rewrites it (its segment copy is stale). */
  private touchedSinceStart(): Uint8Array {
    const rows = this.entries;
    const out = new Uint8Array(rows.length);
    const newer = this.twin.buffer.entriesAfter(this.upTo);
    // Both lists are sorted by key: one merge walk.
    let j = 0;
    for (let i = 0; i < rows.length && j < newer.length; i++) {
      const key = rows[i]!.key;
      while (j < newer.length && compareTwinKeys(newer[j]!.key, key) < 0) j++;
      if (j < newer.length && compareTwinKeys(newer[j]!.key, key) === 0) out[i] = 1;
    }
    return out;
  }

  /** The segment's batch, and which flushed row (read order) each segment row is. */
  private built(): BuiltSegment {
    if (!this.builder) return buildSegmentBatch(this.layout, this.rows);
    const order = new Uint32Array(this.builder.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return { batch: this.builder.finish(), order };
  }

  /** The new segment's key index: flushed keys (read in key order) and their segment rows. */
  private keyIndex(segmentRow: Uint32Array): Buffer {
    return SegmentKeyIndex.encode(
      this.rowKeyIndex.map((ki) => this.entries[ki]!.key),
      segmentRow,
    );
  }

  /** One transaction: the segment, its record, its key index; flushed / dead buffer entries leave the buffer. */
  private commit(): void {
    const twin = this.twin;
    if (this.cancelled || twin.table.dropped) {
      this.finishCancelled();
      return;
    }
    const pool = twin.pool;
    const h = twin.handles;
    const batch = pool.batch();
    let removed = 0;
    let kept = 0;
    let record: SegmentRecord | undefined;
    let dv: DeletionVector | undefined;
    let ipc: Uint8Array | undefined;
    const touched = this.touchedSinceStart();
    const isTouched = (i: number) => touched[i] === 1;
    const n = this.rowKeyIndex.length;
    if (n > 0) {
      const b0 = performance.now();
      const built = this.built();
      ipc = serializeSegment(built);
      this.buildMs = performance.now() - b0;
      const id = twin.allocateSegmentId();
      const first = tokenOfKey(this.entries[this.rowKeyIndex[built.order[0]!]!]!.key);
      const last = tokenOfKey(this.entries[this.rowKeyIndex[built.order[n - 1]!]!]!.key);
      record = { id, rows: n, firstToken: first, lastToken: last, ts: Date.now(), size: ipc.length };
      dv = new DeletionVector(n);
      batch.put(h.segments, segmentBytesKey(id), Buffer.from(ipc.buffer, ipc.byteOffset, ipc.length));
      batch.put(h.index, segmentKey(id), encodeSegmentRecord(record));
      const next = Buffer.allocUnsafe(4);
      next.writeUInt32BE(id + 1, 0);
      batch.put(h.index, NEXT_ID_KEY, next);
      // The key index lists the flushed keys in key order (= this.rows order) with their segment rows.
      const segmentRow = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const j = built.order[i]!;
        segmentRow[j] = i;
        // Written since it was read: the buffer keeps it, this copy is stale from birth.
        if (isTouched(this.rowKeyIndex[j]!)) dv.set(i);
      }
      batch.put(h.segments, keyIndexKey(id), this.keyIndex(segmentRow));
      for (const c of dv.takeDirtyChunks()) batch.put(h.deletions, chunkKey(id, c.index), Buffer.from(c.bytes));
    }
    // The buffer: the records read go; rows the flush keeps buffered go back in one record, except rows written
    // since (their newer entries are in newer records, which stay).
    const survivors: BufferEntry[] = [];
    for (let i = 0; i < this.entries.length; i++) {
      if (isTouched(i)) kept++;
      else if (this.fates[i] === 'keep') {
        kept++;
        survivors.push(this.entries[i]!);
      }
    }
    removed = this.entries.length - kept;
    const mirror = twin.buffer.stageFlush(batch, this.upTo, survivors);
    const a0 = performance.now();
    if (batch.size > 0) pool.apply(batch);
    this.applyMs = performance.now() - a0;
    mirror();
    if (record && dv) twin.addSegment(record, dv, ipc && ipc.byteOffset % 8 === 0 ? openSegment(ipc) : undefined);
    twin.bufferBaseline = survivors.length;
    twin.bytesSinceFlush = 0;
    this.done = true;
    if (twin.flushing === this) twin.flushing = undefined;
    this.result = { segment: record, removed, kept, ms: performance.now() - this.started };
  }
}

/** Starts a flush of `twin` (undefined when the table has no twin schema or a flush is already running). */
export function startFlush(twin: TableTwin): TwinFlush | undefined {
  if (twin.flushing || twin.table.dropped) return undefined;
  const schema = twin.currentSchema();
  if (!schema) return undefined;
  return new TwinFlush(twin, schema);
}

const EMPTY = Buffer.alloc(0);
const SIGN = -(2n ** 63n);

/**
 * The token of a twin key's 8 sortable bytes (= sortableBytesToToken(key, 0) without a Buffer view per row):
 * flipping the sign bit of the signed reading is an XOR with -2^63 in bigint's two's complement.
 */
function tokenOfKey(key: Buffer): bigint {
  return key.readBigInt64BE(0) ^ SIGN;
}
