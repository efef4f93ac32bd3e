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
import { readClusteringValues, singleRowAt, singleRowShadowTsAt } from '../row-codec.js';
import { FlushRowReader } from './flush-row-reader.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import type { FlushWatch, TableTwin } from './table-twin.js';
import { NEXT_ID_KEY } from './table-twin.js';
import { type BufferEntry, compareEntries } from './twin-buffer.js';
import {
  chunkKey,
  encodeSegmentRecord,
  keyIndexKey,
  type SegmentRecord,
  segmentBytesKey,
  segmentKey,
  splitTwinKey,
} from './twin-keys.js';
import { TwinRowSource } from './twin-row-source.js';
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
  private prevEntry: BufferEntry | undefined;
  private prevPkStart = 0;
  private prevPkEnd = 0;
  private prevTokenHigh = 0;
  private prevTokenLow = 0;
  private readonly rowReader: FlushRowReader;
  /** For each regular column of the layout (its order), its slot in rowReader (-1: not in the schema). */
  private readonly regularSlots: Int32Array;
  private readonly layout: TwinLayout;

  private readonly source: TwinRowSource;
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
    this.rowReader = new FlushRowReader(regular.map((c) => c.id));
    const keyColumns = this.layout.partitionKey.length + this.layout.clustering.length;
    this.regularSlots = Int32Array.from(this.layout.columns.slice(keyColumns), (c) =>
      regular.findIndex((r) => r.id === c.id),
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
      const fate = this.readRow(e, now);
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
  private readRow(e: BufferEntry, now: number): Fate | 'unordered' {
    if (e.valueEnd === e.valueAt) return 'drop'; // deleted
    const rec = e.rec;
    const marker = e.valueEnd - e.valueAt === 1 && rec[e.valueAt] === 0xff;
    let buf: Buffer;
    let offset: number;
    let end: number;
    let shadowTs: number;
    let clustering: Buffer = EMPTY;
    if (!this.twin.table.clustered && !marker) {
      // The buffer value is the whole single-row partition: read it in place.
      buf = rec;
      shadowTs = singleRowShadowTsAt(rec, e.valueAt);
      offset = singleRowAt(rec, e.valueAt);
      end = e.valueEnd;
      if (offset >= end) return 'drop';
    } else {
      const parts = splitTwinKey(e.key);
      const ref = this.source.fromBuffer(parts.mapKey, parts.rowKey, e.value);
      if (!ref) return 'drop';
      buf = ref.buf;
      offset = ref.offset;
      end = ref.buf.length;
      shadowTs = ref.shadowTs;
      clustering = ref.clustering;
    }
    const row = this.rowReader;
    if (!row.read(buf, offset, end, shadowTs, now)) return 'drop';
    // `_expires` must mean "the whole row is gone then": every live part expires at the same second, or none does.
    if (row.mixed || (row.permanent && row.expiry >= 0)) return 'keep';
    const writetime = Number.isFinite(row.writetime) ? row.writetime : 0;
    const expires = row.expiry >= 0 ? row.expiry : null;
    const pkStart = e.keyAt + 10;
    const pkEnd = pkStart + ((rec[e.keyAt + 8]! << 8) | rec[e.keyAt + 9]!);
    if (this.builder) {
      // The sortable token bytes are the token with its sign bit flipped.
      const th = rec.readInt32BE(e.keyAt) ^ (0x80000000 | 0);
      const tl = rec.readInt32BE(e.keyAt + 4);
      // Same token, another partition: the row store orders the serialized keys bytewise, the buffer by length
      // first. Rows of one partition come in clustering order in both.
      const prev = this.prevEntry;
      if (prev && th === this.prevTokenHigh && tl === this.prevTokenLow) {
        const c = rec.compare(prev.rec, this.prevPkStart, this.prevPkEnd, pkStart, pkEnd);
        if (c < 0) return 'unordered';
      }
      this.prevEntry = e;
      this.prevPkStart = pkStart;
      this.prevPkEnd = pkEnd;
      this.prevTokenHigh = th;
      this.prevTokenLow = tl;
      this.rowKeyIndex.push(this.entries.length - 1);
      const b = this.builder;
      b.beginRow(th, tl, rec, pkStart, pkEnd, buf, row.clusteringAt, writetime, expires);
      for (let j = 0; j < this.regularSlots.length; j++) {
        const slot = this.regularSlots[j]!;
        const start = slot < 0 ? -1 : row.starts[slot]!;
        if (start >= 0) b.cell(j).appendRange(buf, start, row.ends[slot]!);
        else b.cell(j).append(slot < 0 ? null : this.complexBytes(slot));
      }
      return 'flush';
    }
    const cells = new ArrayCells();
    for (let slot = 0; slot < row.columns.length; slot++) {
      const start = row.starts[slot]!;
      const v = start >= 0 ? buf.subarray(start, row.ends[slot]!) : this.complexBytes(slot);
      if (v) cells.v[row.columns[slot]!] = v;
    }
    this.rowKeyIndex.push(this.entries.length - 1);
    this.rows.push({
      token: tokenOfKey(e.key),
      partitionKey: deserializePartitionKey(rec.subarray(pkStart, pkEnd), this.layout.partitionKey.length),
      clustering: readClusteringValues(buf, row.clusteringAt),
      clusteringKey: this.twin.table.clustered ? clustering : undefined,
      cells,
      writetime,
      expires,
    });
    return 'flush';
  }

  /** The value CQL returns for the complex column in `slot` of the row just read (null: none). */
  private complexBytes(slot: number): Buffer | null {
    const cv = this.rowReader.complex[slot];
    return cv ? this.schema.complexToBytes(this.rowReader.columns[slot]!, cv) : null;
  }

  /** Per row read, 1 when a record committed since the flush started rewrites it (its segment copy is stale). */
  private touchedSinceStart(): Uint8Array {
    const rows = this.entries;
    const out = new Uint8Array(rows.length);
    const newer = this.twin.buffer.entriesAfter(this.upTo);
    // Both lists are sorted by key: one merge walk.
    let j = 0;
    for (let i = 0; i < rows.length && j < newer.length; i++) {
      const row = rows[i]!;
      while (j < newer.length && compareEntries(newer[j]!, row) < 0) j++;
      if (j < newer.length && compareEntries(newer[j]!, row) === 0) out[i] = 1;
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
    const entryOf = (i: number) => this.entries[this.rowKeyIndex[i]!]!;
    return SegmentKeyIndex.encodeRanges(
      this.rowKeyIndex.length,
      (i) => entryOf(i).rec,
      (i) => entryOf(i).keyAt,
      (i) => entryOf(i).keyEnd,
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
