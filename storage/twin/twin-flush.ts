// Flushing a table's twin buffer into one Arrow segment (DESIGN §5). The buffer is read in bounded slices (one per
// event-loop turn), each row from the committed row store; then ONE transaction writes the IPC segment, its index
// record, its key index (twin key -> segment row), and empties the flushed buffer entries. A row written while the flush was
// reading stays in the buffer and its fresh copy in the new segment is born deleted, so the segment never shadows
// a newer version. A crash leaves the old state (nothing of the flush is committed) or the new one.

import { type TwinLayout, twinLayout } from '../arrow/arrow-schema.js';
import { DeletionVector } from '../arrow/deletion-vector.js';
import { buildSegment, type CellLookup, type TwinRow } from '../arrow/segment-builder.js';
import { openSegment } from '../arrow/segment-reader.js';
import { deserializePartitionKey } from '../partition-key.js';
import { ByteReader, ROW_DELETION, ROW_LIVENESS, ROW_LIVENESS_EXPIRING, singleRowShadow } from '../row-codec.js';
import { type ComplexValue, Projection } from '../row-projection.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import type { FlushWatch, TableTwin } from './table-twin.js';
import { NEXT_ID_KEY } from './table-twin.js';
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
  readonly touched = new Set<string>();
  cancelled = false;
  done = false;
  result: FlushResult | undefined;
  private cursor: Buffer | undefined;
  private readonly keys: Buffer[] = [];
  private readonly fates: Fate[] = [];
  /** For each TwinRow, the index of its key in `keys`. */
  private readonly rowKeyIndex: number[] = [];
  private readonly rows: TwinRow[] = [];
  private readonly layout: TwinLayout;
  private readonly projection: Projection;
  private readonly source: TwinRowSource;
  private readonly reader = new ByteReader(Buffer.alloc(0), 0);
  /** Time spent building the segment and in the commit transaction (for profiles). */
  buildMs = 0;
  applyMs = 0;
  private readonly started = performance.now();
  /** The keys were read in Buffer.compare order (the pool's order; checked): touched keys are binary-searched. */
  private sorted = true;

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
    twin.flushing = this;
  }

  /** Reads up to `limit` buffer rows; true when the flush is finished (committed, or cancelled). */
  step(limit: number): boolean {
    if (this.done) return true;
    if (this.cancelled || this.twin.table.dropped) return this.finishCancelled();
    const pool = this.twin.pool;
    const res = pool.scan(this.twin.handles.buffer, { start: this.cursor, startInclusive: false, limit });
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < res.keys.length; i++) {
      const key = res.keys[i]!;
      const prev = this.keys.length > 0 ? this.keys[this.keys.length - 1]! : undefined;
      if (prev && Buffer.compare(prev, key) >= 0) this.sorted = false;
      this.keys.push(key);
      this.fates.push(this.readRow(key, res.values[i]!, now));
    }
    if (res.keys.length > 0) this.cursor = res.keys[res.keys.length - 1];
    if (res.keys.length < limit) this.commit();
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

  /** The row as a segment row, or why it is not one. */
  private readRow(key: Buffer, value: Buffer, now: number): Fate {
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
    const cells = new ArrayCells();
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
    this.rowKeyIndex.push(this.keys.length - 1);
    const pk = mapKey ? mapKey.subarray(8) : key.subarray(pkAt, pkAt + key.readUInt16BE(8));
    this.rows.push({
      token: tokenOfKey(key),
      partitionKey: deserializePartitionKey(pk, nPk),
      clustering: rr.clusteringValues,
      clusteringKey: clustered ? ref.clustering : undefined,
      cells,
      writetime: Number.isFinite(this.writetime) ? this.writetime : 0,
      expires: this.expiry >= 0 ? this.expiry : null,
    });
    return 'flush';
  }

  /**
   * Per key read, 1 when the key was written since (undefined: none was). The touched set is usually small next to
   * the keys read, so each touched key is binary-searched among them instead of stringifying every key read.
   */
  private touchedIndexes(): Uint8Array | undefined {
    if (this.touched.size === 0) return undefined;
    const keys = this.keys;
    const at = new Uint8Array(keys.length);
    if (!this.sorted) {
      for (let i = 0; i < keys.length; i++) if (this.touched.has(keys[i]!.toString('latin1'))) at[i] = 1;
      return at;
    }
    for (const k of this.touched) {
      const key = Buffer.from(k, 'latin1');
      let lo = 0;
      let hi = keys.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const c = Buffer.compare(keys[mid]!, key);
        if (c === 0) {
          at[mid] = 1;
          break;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return at;
  }

  /** The new segment's key index: flushed keys (read in key order, else sorted here) and their segment rows. */
  private keyIndex(segmentRow: Uint32Array): Buffer {
    const keys = this.rowKeyIndex.map((ki) => this.keys[ki]!);
    if (this.sorted) return SegmentKeyIndex.encode(keys, segmentRow);
    const order = keys.map((_, j) => j).sort((a, b) => Buffer.compare(keys[a]!, keys[b]!));
    return SegmentKeyIndex.encode(
      order.map((j) => keys[j]!),
      order.map((j) => segmentRow[j]!),
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
    const touchedAt = this.touchedIndexes();
    const isTouched = (i: number) => touchedAt !== undefined && touchedAt[i] === 1;
    if (this.rows.length > 0) {
      const b0 = performance.now();
      const built = buildSegment(this.layout, this.rows);
      this.buildMs = performance.now() - b0;
      ipc = built.ipc;
      const id = twin.allocateSegmentId();
      const n = this.rows.length;
      const first = this.rows[built.order[0]!]!.token;
      const last = this.rows[built.order[n - 1]!]!.token;
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
    // Emptying the buffer: one `clear` plus re-putting what stays (rows kept, rows written during the flush) is
    // far cheaper than a delete per flushed row, unless most rows stay.
    const keep: number[] = [];
    for (let i = 0; i < this.keys.length; i++) if (this.fates[i] === 'keep' || isTouched(i)) keep.push(i);
    kept = keep.length;
    removed = this.keys.length - kept;
    const survivors = new Map<string, Buffer>();
    for (const i of keep) survivors.set(this.keys[i]!.toString('latin1'), this.keys[i]!);
    // Rows first written during the flush are in the buffer but not among the keys read.
    for (const k of this.touched) if (!survivors.has(k)) survivors.set(k, Buffer.from(k, 'latin1'));
    if (survivors.size * 4 < this.keys.length) {
      const values = [...survivors.values()].map((key) => [key, pool.get(h.buffer, key)] as const);
      batch.clear(h.buffer);
      for (const [key, value] of values) if (value) batch.put(h.buffer, key, value);
    } else {
      for (let i = 0; i < this.keys.length; i++) {
        if (this.fates[i] !== 'keep' && !isTouched(i)) batch.del(h.buffer, this.keys[i]!);
      }
    }
    const a0 = performance.now();
    if (batch.size > 0) pool.apply(batch);
    this.applyMs = performance.now() - a0;
    if (record && dv) twin.addSegment(record, dv, ipc && ipc.byteOffset % 8 === 0 ? openSegment(ipc) : undefined);
    twin.bufferBaseline = kept;
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
