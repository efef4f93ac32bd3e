// A table's Arrow twin: the buffer of rows changed since the last flush, the immutable Arrow
// segments with their key indexes (twin key -> row) and deletion vectors. The row store's writer calls
// touchKey/touchPartition while staging, so every twin change lands in the SAME transaction as the row change.
// In-memory state (segments, deletion vectors) mirrors committed data only: it changes in commit hooks.

import { DeletionVector, type DeletionVector as DV, ROWS_PER_CHUNK } from '../arrow/deletion-vector.js';
import type { OpenSegment } from '../arrow/segment-reader.js';
import type { CommitContext } from '../commit-context.js';
import type { MapHandle, NativePool } from '../native-pool.js';
import type { TableState } from '../table-state.js';
import { BufferRecordBuilder } from './buffer-record.js';
import { LiveSegment } from './live-segment.js';
import { SegmentFilterTree, type SegmentSource } from './segment-filter-tree.js';
import type { SegmentKeyIndex } from './segment-key-index.js';
import type { TokenFilter } from './token-filter.js';
import { TwinBuffer } from './twin-buffer.js';
import {
  BUFFER_DELETED,
  chunkKey,
  decodeSegmentRecord,
  hasPrefix,
  type SegmentRecord,
  segmentKey,
  twinPartitionPrefix,
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

/** One batch's twin changes (CommitContext overlay). */
class TwinStage {
  truncated = false;
  /** The batch's buffer record: every row it changed, in order. */
  readonly record = new BufferRecordBuilder();
  /** Adds the record to the in-memory buffer once the batch commits. */
  commitRecord: (() => void) | undefined;
  readonly marks: { segment: LiveSegment; row: number }[] = [];
  /** Working copies of deletion-vector chunks changed in this batch, by "segment:chunk". */
  readonly chunks = new Map<string, { segment: number; chunk: number; bytes: Buffer }>();
  bytes = 0;
}

/** A flush in progress (a truncate cancels it). */
export interface FlushWatch {
  cancelled: boolean;
}

/** TableRoot key present when the twin may miss rows (see TableTwin.incomplete). */
export const TWIN_INCOMPLETE_KEY = Buffer.from('x');

export class TableTwin implements SegmentSource {
  /** Rows changed since the last flush (the log in the 'b' map, mirrored in memory). */
  readonly buffer: TwinBuffer;
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
  /** ... and for this when a block of segments can get its token filter. */
  onFilterWork: (() => void) | undefined;
  /** Which segments may hold a token (the write path's live-copy check). */
  readonly filterTree = new SegmentFilterTree(this);
  /** markLiveCopy's candidates (reused: the check runs for every write). */
  private readonly candidates: LiveSegment[] = [];
  private changes = 0;

  constructor(
    private readonly state: TableState,
    readonly handles: TwinHandles,
    private readonly schemaSource: () => TwinSchemaSource | undefined,
    readonly options: TwinOptions,
  ) {
    this.buffer = new TwinBuffer(state.pool, handles.buffer);
  }

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

  liveSegments(): Iterable<LiveSegment> {
    this.ensureLoaded();
    return this.segs.values();
  }

  get segmentCount(): number {
    this.ensureLoaded();
    return this.segs.size;
  }

  /** The id the next committed segment takes (a flush writes its bytes under it before committing). */
  pendingSegmentId(): number {
    this.ensureLoaded();
    return this.nextSegmentId;
  }

  /** A flush committed segment `id`: later segments take later ids. */
  segmentCommitted(id: number): void {
    this.ensureLoaded();
    if (id >= this.nextSegmentId) this.nextSegmentId = id + 1;
    this.filterTree.changed();
  }

  /**
   * Changes whenever what a read of this twin sees may have changed (a committed write, flush or compaction):
   * results prepared ahead of a request (cql/columnar/scan-read-ahead.ts) are valid only at the same version.
   */
  get version(): number {
    return this.changes;
  }

  /** After a committed flush / compaction. */
  addSegment(
    record: SegmentRecord,
    dv: DV,
    data: OpenSegment | undefined,
    keys?: SegmentKeyIndex,
    tokens?: TokenFilter,
  ): void {
    this.segs.set(record.id, new LiveSegment(this, record, dv, data, keys, tokens));
    this.filterTree.changed();
    this.changes++;
  }

  removeSegment(id: number): void {
    const seg = this.segs.get(id);
    if (seg) seg.removed = true;
    this.segs.delete(id);
    this.filterTree.changed();
    this.changes++;
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

  /** Rows in the buffer (changed since the last flush, deletions included). */
  bufferRows(): number {
    return this.buffer.size;
  }

  // ---- write path hooks (called while staging, inside the row store's transaction) -------------

  private stage(ctx: CommitContext): TwinStage {
    return ctx.overlay(this, () => {
      this.buffer.load();
      const st = new TwinStage();
      // Once every op is staged: the batch's one buffer record and each changed deletion-vector chunk, once.
      ctx.onStaged(() => {
        if (st.record.entries > 0) st.commitRecord = this.buffer.stageRecord(ctx.batch, st.record);
        for (const c of st.chunks.values())
          ctx.batch.put(this.handles.deletions, chunkKey(c.segment, c.chunk), c.bytes);
      });
      ctx.onCommit(() => this.committed(st));
      return st;
    });
  }

  /**
   * A row of partition `mapKey` was written in this batch: `stored` is what the row store now holds for it (the
   * row; for a table without clustering columns, the partition value), undefined when the row is gone.
   * `existed`: the row store held the row before this write (false: a fresh insert). A row the row store does not
   * hold has no live columnar copy: every way a row leaves the row store passes here or through touchPartition,
   * which marked its copy then. So a fresh insert skips looking for one (docs/arrow-twins.md, "Fresh inserts").
   */
  touchRow(ctx: CommitContext, mapKey: Buffer, rowKey: Buffer, stored: Buffer | undefined, existed: boolean): void {
    if (!this.enabled) {
      this.markIncomplete(ctx);
      return;
    }
    const st = this.stage(ctx);
    const value = stored ?? BUFFER_DELETED;
    st.bytes += value.length + st.record.appendRow(mapKey, rowKey, value);
    // The key's first 8 bytes are the partitions-map key's (the token).
    if (existed) this.markLiveCopy(ctx, st, mapKey, () => st.record.lastKey());
  }

  /**
   * The row's live columnar copy, if any (its key in a segment's index with the deletion bit clear), is marked
   * deleted in this batch. Older segments may hold dead copies of the same key (flushed again since), so look
   * until a live one is found. A buffered row has no live copy, and needs no special case: the search finds
   * its copies dead. `token` starts with the key's 8 token bytes; `keyOf` gives the key, asked for only when some
   * segment's token filter may hold the token.
   */
  private markLiveCopy(ctx: CommitContext, st: TwinStage, token: Buffer, keyOf: () => Buffer): void {
    if (st.truncated || this.segmentCount === 0) return;
    const hi = token.readInt32BE(0) ^ (0x80000000 | 0);
    const lo = token.readInt32BE(4);
    let key: Buffer | undefined;
    for (const seg of this.filterTree.candidates(hi, lo, this.candidates)) {
      const index = seg.keyIndex();
      if (!index) {
        // Cannot tell whether this segment holds the row: the columnar path must stop answering for the table.
        this.markIncomplete(ctx);
        continue;
      }
      key ??= keyOf();
      const row = index.rowOf(key);
      if (row >= 0 && this.stageMark(st, seg, row)) return;
    }
  }

  /** Segments that may hold rows of the token `key` starts with (Bloom filter; no filter: maybe). */
  private segmentsMayHold(key: Buffer): LiveSegment[] {
    const hi = key.readInt32BE(0) ^ (0x80000000 | 0);
    const lo = key.readInt32BE(4);
    return this.filterTree.candidates(hi, lo, []);
  }

  /**
   * Marks `row` of `seg` deleted in this batch (its deletion-vector chunk is rewritten in the transaction);
   * false when it is deleted already (committed, or earlier in this batch).
   */
  private stageMark(st: TwinStage, seg: LiveSegment, row: number): boolean {
    const chunk = Math.floor(row / ROWS_PER_CHUNK);
    const ck = `${seg.id}:${chunk}`;
    let c = st.chunks.get(ck);
    if (!c) {
      const dvChunk = seg.deletions().chunk(chunk);
      c = { segment: seg.id, chunk, bytes: Buffer.from(dvChunk.buffer, dvChunk.byteOffset, dvChunk.length) };
      st.chunks.set(ck, c);
    }
    const local = row - chunk * ROWS_PER_CHUNK;
    const bit = 1 << (local & 7);
    if (c.bytes[local >>> 3]! & bit) return false;
    c.bytes[local >>> 3]! |= bit;
    st.marks.push({ segment: seg, row });
    return true;
  }

  /**
   * Every row of partition `mapKey` was removed or rewritten by one op (partition deletion clearing its map,
   * GC dropping it): each gets a deletion entry and its live columnar copy is marked.
   */
  touchPartition(ctx: CommitContext, mapKey: Buffer): void {
    if (!this.enabled) {
      this.markIncomplete(ctx);
      return;
    }
    const st = this.stage(ctx);
    const prefix = twinPartitionPrefix(mapKey);
    const keys = new Map<string, Buffer>();
    const add = (k: Buffer) => {
      if (hasPrefix(k, prefix)) keys.set(k.toString('latin1'), k);
    };
    if (!st.truncated) {
      for (const e of this.buffer.withPrefix(prefix)) add(e.key);
      if (this.segmentCount > 0) {
        for (const seg of this.segmentsMayHold(prefix)) {
          const index = seg.keyIndex();
          if (!index) {
            this.markIncomplete(ctx);
            continue;
          }
          const dv = seg.deletions();
          index.forPrefix(prefix, (k, row) => {
            if (!dv.test(row)) add(k);
          });
        }
      }
    }
    // Rows written earlier in this batch (copied: the record builder's bytes move as it grows).
    st.record.visitEntries((k) => {
      add(Buffer.from(k));
    });
    for (const key of keys.values()) {
      st.record.append(key, BUFFER_DELETED);
      st.bytes += key.length;
      this.markLiveCopy(ctx, st, key, () => key);
    }
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
    st.record.clear();
    st.marks.length = 0;
    st.chunks.clear();
  }

  private committed(st: TwinStage): void {
    this.changes++;
    if (st.truncated) {
      this.buffer.truncated();
      for (const seg of this.segs.values()) seg.removed = true;
      this.segs.clear();
      this.filterTree.clear();
      this.bufferBaseline = 0;
      this.bytesSinceFlush = 0;
      if (this.flushing) this.flushing.cancelled = true;
      this.flushing = undefined;
    }
    for (const m of st.marks) m.segment.deletions().set(m.row);
    st.commitRecord?.();
    this.bytesSinceFlush += st.bytes;
    if (this.onThreshold && this.overThreshold()) this.onThreshold();
  }

  /** The buffer holds the next flush's rows or bytes already (background work should not pause). */
  backlogged(): boolean {
    return (
      this.buffer.entryCount - this.bufferBaseline >= 2 * this.options.flushRows ||
      this.bytesSinceFlush >= 2 * this.options.flushBytes
    );
  }

  overThreshold(): boolean {
    if (this.flushing || this.state.dropped) return false;
    return (
      this.bytesSinceFlush >= this.options.flushBytes ||
      this.buffer.entryCount - this.bufferBaseline >= this.options.flushRows
    );
  }
}
