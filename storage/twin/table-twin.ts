// A table's Arrow twin (DESIGN §5): the buffer of rows changed since the last flush, the immutable Arrow
// segments with their key indexes (twin key -> row) and deletion vectors. The row store's writer calls
// touchKey/touchPartition while staging, so every twin change lands in the SAME transaction as the row change.
// In-memory state (segments, deletion vectors) mirrors committed data only: it changes in commit hooks.

import { DeletionVector, type DeletionVector as DV, ROWS_PER_CHUNK } from '../arrow/deletion-vector.js';
import { type OpenSegment, openSegment } from '../arrow/segment-reader.js';
import type { CommitContext } from '../commit-context.js';
import type { MapHandle, NativePool } from '../native-pool.js';
import type { TableState } from '../table-state.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import { TokenFilter } from './token-filter.js';
import {
  BUFFER_DELETED,
  chunkKey,
  decodeSegmentRecord,
  hasPrefix,
  keyIndexKey,
  type SegmentRecord,
  segmentBytesKey,
  segmentKey,
  twinPartitionPrefix,
  twinRowKey,
} from './twin-keys.js';
import type { TwinOptions, TwinSchema, TwinSchemaSource } from './twin-schema.js';

export interface TwinHandles {
  readonly buffer: MapHandle;
  readonly index: MapHandle;
  readonly segments: MapHandle;
  readonly deletions: MapHandle;
  /** Row pointers of pools written before key indexes; empty once converted (pointer-migration.ts). */
  readonly pointers: MapHandle;
}

/** The key under which the Arrow index map keeps the next segment id (ids are 4-byte keys). */
export const NEXT_ID_KEY = Buffer.from([0xff]);
const SCAN_CHUNK = 1024;

/** One committed segment: its record, deletion vector (loaded lazily) and opened Arrow data (cached). */
export class LiveSegment {
  private dv: DV | undefined;
  private data: OpenSegment | undefined;
  private tokens: TokenFilter | undefined;
  private keys: SegmentKeyIndex | null | undefined;

  constructor(
    private readonly twin: TableTwin,
    readonly record: SegmentRecord,
    dv?: DV,
    data?: OpenSegment,
  ) {
    this.dv = dv;
    this.data = data;
  }

  get id(): number {
    return this.record.id;
  }

  deletions(): DV {
    this.dv ??= this.twin.loadDeletions(this.record);
    return this.dv;
  }

  /** The segment's Arrow data; the pool's get copies it once (see docs/arrow-twins.md "Zero copy"). */
  open(): OpenSegment {
    if (!this.data) {
      const bytes = this.twin.pool.get(this.twin.handles.segments, segmentBytesKey(this.id));
      if (!bytes) throw new Error(`Arrow segment ${this.id} of table ${this.twin.tableHex} is missing`);
      this.data = openSegment(bytes);
    }
    return this.data;
  }

  /**
   * Bloom filter of the segment's tokens (write path: skip the key-index search for a row it cannot hold). Built
   * from the cached data, or from a transient copy of the bytes that is not kept (a write-only workload must not
   * pull every segment into the heap). Undefined when the bytes are missing (a damaged twin; `checkTwin` reports
   * it): the write path then searches the key index anyway rather than fail the write.
   */
  tokenFilter(): TokenFilter | undefined {
    if (!this.tokens) {
      let data = this.data;
      if (!data) {
        const bytes = this.twin.pool.get(this.twin.handles.segments, segmentBytesKey(this.id));
        if (!bytes) return undefined;
        data = openSegment(bytes);
      }
      // `_token` is field 0 of every twin layout (arrow-schema.ts).
      this.tokens = TokenFilter.ofSegment(data, 0);
    }
    return this.tokens;
  }

  /**
   * Which key each row holds (loaded on first use: a write whose token may be in this segment; compaction; the
   * check). Null when the index is missing (a damaged twin; `checkTwin` reports it).
   */
  keyIndex(): SegmentKeyIndex | null {
    if (this.keys === undefined) {
      const bytes = this.twin.pool.get(this.twin.handles.segments, keyIndexKey(this.id));
      this.keys = bytes ? SegmentKeyIndex.decode(bytes) : null;
    }
    return this.keys;
  }

  get cached(): boolean {
    return this.data !== undefined;
  }
}

/** One batch's twin changes (CommitContext overlay). */
class TwinStage {
  truncated = false;
  readonly touched = new Set<string>();
  readonly marks: { segment: LiveSegment; row: number }[] = [];
  /** Working copies of deletion-vector chunks changed in this batch. */
  readonly chunks = new Map<string, Buffer>();
  bytes = 0;
}

/** A flush in progress: rows written meanwhile must stay buffered (their segment copy is stale at once). */
export interface FlushWatch {
  readonly touched: Set<string>;
  cancelled: boolean;
}

/** TableRoot key present when the twin may miss rows (see TableTwin.incomplete). */
export const TWIN_INCOMPLETE_KEY = Buffer.from('x');

export class TableTwin {
  private readonly segs = new Map<number, LiveSegment>();
  private loaded = false;
  private nextSegmentId = 1;
  private schemaState: TwinSchema | null | undefined;
  /** Rows left in the buffer by the last flush (they could not be flushed): not counted toward the threshold. */
  bufferBaseline = 0;
  bytesSinceFlush = 0;
  flushing: FlushWatch | undefined;
  /** Background work (flush, compaction) asks for this when thresholds pass. */
  onThreshold: (() => void) | undefined;

  constructor(
    private readonly state: TableState,
    readonly handles: TwinHandles,
    private readonly schemaSource: () => TwinSchemaSource | undefined,
    readonly options: TwinOptions,
  ) {}

  get pool(): NativePool {
    return this.state.pool;
  }

  get table(): TableState {
    return this.state;
  }

  get tableHex(): string {
    return this.state.id.toString('hex');
  }

  private incompleteKnown: boolean | undefined;

  /**
   * Rows of this table changed while its twin was not kept (twins off, or the table predates them): the
   * twin does not hold every row, so the columnar path must not answer for the table. Persistent.
   */
  get incomplete(): boolean {
    this.incompleteKnown ??= this.pool.get(this.state.rootHandle, TWIN_INCOMPLETE_KEY) !== undefined;
    return this.incompleteKnown;
  }

  private markIncomplete(ctx: CommitContext): void {
    if (this.incomplete) return;
    ctx.batch.put(this.state.rootHandle, TWIN_INCOMPLETE_KEY, Buffer.from([1]));
    ctx.onCommit(() => {
      this.incompleteKnown = true;
    });
  }

  /** The twin is kept when the schema layer says the table has one (resolved once known). */
  get enabled(): boolean {
    if (this.schemaState === undefined) {
      const src = this.schemaSource();
      if (!src) return false;
      this.schemaState = src(this.state.id);
    }
    return this.schemaState !== null && this.schemaState !== undefined;
  }

  /** The current schema (asked afresh: ALTER TABLE may have changed it); null when the table has no twin. */
  currentSchema(): TwinSchema | null {
    const src = this.schemaSource();
    const s = src ? src(this.state.id) : undefined;
    if (s !== undefined) this.schemaState = s;
    return s ?? null;
  }

  // ---- segments -------------------------------------------------------------------------------

  private ensureLoaded(): void {
    if (this.loaded) return;
    this.loaded = true;
    let start: Buffer | undefined;
    for (;;) {
      const res = this.pool.scan(this.handles.index, { start, startInclusive: false, limit: SCAN_CHUNK });
      for (let i = 0; i < res.keys.length; i++) {
        const k = res.keys[i]!;
        const v = res.values[i]!;
        if (k.length === 4) {
          const id = k.readUInt32BE(0);
          this.segs.set(id, new LiveSegment(this, decodeSegmentRecord(id, v)));
          if (id >= this.nextSegmentId) this.nextSegmentId = id + 1;
        } else if (k.equals(NEXT_ID_KEY)) {
          this.nextSegmentId = Math.max(this.nextSegmentId, v.readUInt32BE(0));
        }
      }
      if (res.keys.length < SCAN_CHUNK) break;
      start = res.keys[res.keys.length - 1]!;
    }
  }

  /** Committed segments in id (= flush) order. */
  segments(): LiveSegment[] {
    this.ensureLoaded();
    return [...this.segs.values()].sort((a, b) => a.id - b.id);
  }

  segment(id: number): LiveSegment | undefined {
    this.ensureLoaded();
    return this.segs.get(id);
  }

  get segmentCount(): number {
    this.ensureLoaded();
    return this.segs.size;
  }

  allocateSegmentId(): number {
    this.ensureLoaded();
    return this.nextSegmentId++;
  }

  /** After a committed flush / compaction. */
  addSegment(record: SegmentRecord, dv: DV, data: OpenSegment | undefined): void {
    this.segs.set(record.id, new LiveSegment(this, record, dv, data));
  }

  removeSegment(id: number): void {
    this.segs.delete(id);
  }

  loadDeletions(record: SegmentRecord): DV {
    const chunks = new Map<number, Uint8Array>();
    const prefix = segmentKey(record.id);
    const res = this.pool.scan(this.handles.deletions, { start: prefix });
    for (let i = 0; i < res.keys.length; i++) {
      const k = res.keys[i]!;
      if (!hasPrefix(k, prefix)) break;
      chunks.set(k.readUInt32BE(4), res.values[i]!);
    }
    return DeletionVector.fromChunks(record.rows, chunks);
  }

  /** Rows in the buffer map (changed since the last flush, deletions included). */
  bufferRows(): number {
    return this.pool.count(this.handles.buffer);
  }

  // ---- write path hooks (called while staging, inside the row store's transaction) -------------

  private stage(ctx: CommitContext): TwinStage {
    return ctx.overlay(this, () => {
      const st = new TwinStage();
      ctx.onCommit(() => this.committed(st));
      return st;
    });
  }

  /**
   * A row of partition `mapKey` was written in this batch: `stored` is what the row store now holds for it (the
   * row; for a table without clustering columns, the partition value), undefined when the row is gone.
   */
  touchRow(ctx: CommitContext, mapKey: Buffer, rowKey: Buffer, stored: Buffer | undefined): void {
    if (!this.enabled) {
      this.markIncomplete(ctx);
      return;
    }
    this.touchKey(ctx, this.stage(ctx), twinRowKey(mapKey, rowKey), stored);
  }

  private touchKey(ctx: CommitContext, st: TwinStage, key: Buffer, stored: Buffer | undefined): void {
    ctx.batch.put(this.handles.buffer, key, stored ?? BUFFER_DELETED);
    st.bytes += (stored?.length ?? 0) + key.length;
    const k = key.toString('latin1');
    if (st.touched.has(k)) return;
    st.touched.add(k);
    this.flushing?.touched.add(k);
    if (st.truncated || this.segmentCount === 0) return;
    // The row's live columnar copy, if any: its key in a segment's index with the deletion bit clear. Older
    // segments may hold dead copies of the same key (flushed again since), so look until a live one is found.
    const hi = key.readInt32BE(0) ^ (0x80000000 | 0);
    const lo = key.readInt32BE(4);
    for (const seg of this.segs.values()) {
      const f = seg.tokenFilter();
      if (f && !f.mayContain(hi, lo)) continue;
      const index = seg.keyIndex();
      if (!index) {
        // Cannot tell whether this segment holds the row: the columnar path must stop answering for the table.
        this.markIncomplete(ctx);
        continue;
      }
      const row = index.rowOf(key);
      if (row >= 0 && !seg.deletions().test(row)) {
        this.stageMark(ctx, st, seg, row);
        return;
      }
    }
  }

  /** Segments that may hold rows of the token `key` starts with (Bloom filter; no filter: maybe). */
  private segmentsMayHold(key: Buffer): LiveSegment[] {
    const hi = key.readInt32BE(0) ^ (0x80000000 | 0);
    const lo = key.readInt32BE(4);
    const out: LiveSegment[] = [];
    for (const seg of this.segs.values()) {
      const f = seg.tokenFilter();
      if (!f || f.mayContain(hi, lo)) out.push(seg);
    }
    return out;
  }

  /** Marks `row` of `seg` deleted in this batch (its deletion-vector chunk is rewritten in the transaction). */
  private stageMark(ctx: CommitContext, st: TwinStage, seg: LiveSegment, row: number): void {
    const dv = seg.deletions();
    if (dv.test(row)) return;
    st.marks.push({ segment: seg, row });
    const chunk = Math.floor(row / ROWS_PER_CHUNK);
    const ck = `${seg.id}:${chunk}`;
    let bytes = st.chunks.get(ck);
    if (!bytes) {
      const c = dv.chunk(chunk);
      bytes = Buffer.from(c.buffer, c.byteOffset, c.length);
      st.chunks.set(ck, bytes);
    }
    const local = row - chunk * ROWS_PER_CHUNK;
    bytes[local >>> 3]! |= 1 << (local & 7);
    ctx.batch.put(this.handles.deletions, chunkKey(seg.id, chunk), bytes);
  }

  /**
   * Every row of partition `mapKey` was removed or rewritten by one op (partition deletion clearing its map,
   * GC dropping it): mark them all.
   */
  touchPartition(ctx: CommitContext, mapKey: Buffer): void {
    if (!this.enabled) {
      this.markIncomplete(ctx);
      return;
    }
    const st = this.stage(ctx);
    const prefix = twinPartitionPrefix(mapKey);
    const keys = new Map<string, Buffer>();
    const collect = (map: MapHandle) => {
      let start = prefix;
      let inclusive = true;
      for (;;) {
        const res = this.pool.scan(map, { start, startInclusive: inclusive, limit: SCAN_CHUNK });
        for (const k of res.keys) {
          if (!hasPrefix(k, prefix)) return;
          keys.set(k.toString('latin1'), k);
        }
        if (res.keys.length < SCAN_CHUNK) return;
        start = res.keys[res.keys.length - 1]!;
        inclusive = false;
      }
    };
    if (!st.truncated) {
      collect(this.handles.buffer);
      if (this.segmentCount > 0) {
        for (const seg of this.segmentsMayHold(prefix)) {
          const index = seg.keyIndex();
          if (!index) {
            this.markIncomplete(ctx);
            continue;
          }
          const dv = seg.deletions();
          index.forPrefix(prefix, (k, row) => {
            if (!dv.test(row)) keys.set(k.toString('latin1'), k);
          });
        }
      }
    }
    const p = prefix.toString('latin1');
    for (const k of st.touched) if (k.startsWith(p)) keys.set(k, Buffer.from(k, 'latin1'));
    for (const key of keys.values()) this.touchKey(ctx, st, key, undefined);
  }

  /** TRUNCATE: the twin empties with the row store, in the same transaction. */
  stageTruncate(ctx: CommitContext): void {
    if (!this.enabled) {
      this.markIncomplete(ctx);
      return;
    }
    const st = this.stage(ctx);
    const b = ctx.batch;
    b.clear(this.handles.buffer);
    b.clear(this.handles.index);
    b.clear(this.handles.segments);
    b.clear(this.handles.deletions);
    b.clear(this.handles.pointers);
    // Segment ids are never reused: chunks of an old id must not meet a new segment.
    this.ensureLoaded();
    const next = Buffer.allocUnsafe(4);
    next.writeUInt32BE(this.nextSegmentId, 0);
    b.put(this.handles.index, NEXT_ID_KEY, next);
    st.truncated = true;
    st.touched.clear();
    st.marks.length = 0;
    st.chunks.clear();
  }

  private committed(st: TwinStage): void {
    if (st.truncated) {
      this.segs.clear();
      this.bufferBaseline = 0;
      this.bytesSinceFlush = 0;
      if (this.flushing) this.flushing.cancelled = true;
      this.flushing = undefined;
    }
    for (const m of st.marks) m.segment.deletions().set(m.row);
    this.bytesSinceFlush += st.bytes;
    if (this.onThreshold && this.overThreshold()) this.onThreshold();
  }

  overThreshold(): boolean {
    if (this.flushing || this.state.dropped) return false;
    return (
      this.bytesSinceFlush >= this.options.flushBytes ||
      this.pool.count(this.handles.buffer) - this.bufferBaseline >= this.options.flushRows
    );
  }
}
