// Flushing a table's twin buffer into one Arrow segment (DESIGN §5, docs/arrow-twins.md "Flush"), in bounded steps
// (paced in the background, see twin-worker.ts) so requests interleave with it: the buffer's
// sorted view as the flush starts is built in steps; its rows are read in slices, each row encoded straight into the
// column encoders; the Arrow batch, its IPC bytes and the key index (twin key -> segment row) are built a step or a
// few each; the IPC bytes and key index are written under the id the segment will take (nothing refers to them
// yet); then ONE transaction commits the segment's record and marks the buffer records read consumed (they are
// deleted in later steps), putting back the rows the flush keeps. A row written after the flush started stays in
// the buffer (its newer record) and its copy in the new segment is born deleted, so the segment never shadows a
// newer version. A crash leaves the old state (plus unused staged bytes) or the new one.

import { TOKEN_FIELD_INDEX, type TwinLayout, twinLayout } from '../arrow/arrow-schema.js';
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
import type { BufferEntry } from './buffer-entry.js';
import { walkRecord } from './buffer-record.js';
import { FlushRowReader } from './flush-row-reader.js';
import { SegmentKeyIndex, SegmentKeyIndexWriter } from './segment-key-index.js';
import type { SortedViewJob } from './sorted-view-job.js';
import type { FlushWatch, TableTwin } from './table-twin.js';
import { NEXT_ID_KEY } from './table-twin.js';
import { TokenFilter } from './token-filter.js';
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

/** Staged bytes copied and persisted per step: ~1 ms of cache-line flushes on emulated pmem. */
const STAGE_SLICE_BYTES = 512 * 1024;

export interface FlushResult {
  /** Segment written (undefined: nothing to flush). */
  segment: SegmentRecord | undefined;
  /** Buffer entries removed (flushed rows, deletions, dead rows). */
  removed: number;
  /** Rows left in the buffer (written during the flush, or with cells expiring at different times). */
  kept: number;
  /** Wall time from start to commit, and the longest single step (it held the event loop that long). */
  ms: number;
  maxStepMs: number;
  /** What the longest step did. */
  maxStepPhase: string;
  steps: number;
  /** Time in steps by phase (ms; the event loop's share of the flush: the rest of `ms` served requests). */
  phaseMs: Readonly<Record<string, number>>;
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

/** The steps of a flush, in order. */
export type Phase = 'sort' | 'read' | 'build' | 'serialize' | 'index' | 'filter' | 'stage' | 'commit' | 'reclaim';

export class TwinFlush implements FlushWatch {
  cancelled = false;
  done = false;
  result: FlushResult | undefined;
  private phase: Phase = 'sort';
  /** Builds the buffer's sorted view as the flush starts; then `snapshot` is that view. */
  private viewJob: SortedViewJob | undefined;
  private snapshot: readonly BufferEntry[] = [];
  /** The last log record when the flush started: the flush consumes the records up to it. */
  private readonly upTo: number;
  private pos = 0;
  /** Per snapshot row read: its fate. */
  private readonly fates: Fate[] = [];
  /** For each flushed row (in read order), its index in `snapshot`. */
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
  /** Per snapshot row, 1 when a record committed since the flush started rewrites it (its segment copy is stale). */
  private touched = new Uint8Array(0);
  private tokenHigh = new Uint32Array(0);
  private tokenLow = new Uint32Array(0);
  /** Records up to this one were checked for rows rewritten since the flush started. */
  private checkedSeq: number;
  /** The id the segment's bytes and key index were written under (the 'stage' step), undefined before. */
  private stagedId: number | undefined;
  /** Bytes of the staged values filled in so far (the IPC bytes, then the key index). */
  private stagedBytes = 0;
  /** Products of the build steps. */
  private built: BuiltSegment | undefined;
  private ipc: Uint8Array | undefined;
  private tokens: TokenFilter | undefined;
  private keyIndex: SegmentKeyIndexWriter | undefined;
  private segmentRow: Uint32Array | undefined;
  /** Total length of the flushed rows' keys (the key index's size). */
  private keyBytes = 0;
  /** Time spent per step kind, and the longest single step (for profiles: a step holds the event loop). */
  readonly phaseMs: Record<Phase, number> = {
    sort: 0,
    read: 0,
    build: 0,
    serialize: 0,
    index: 0,
    filter: 0,
    stage: 0,
    commit: 0,
    reclaim: 0,
  };
  maxStepMs = 0;
  private maxStepPhase = '';
  private steps = 0;
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
    // The same records: the view job takes the records committed now.
    this.upTo = twin.buffer.lastSeq;
    this.checkedSeq = this.upTo;
    this.viewJob = twin.buffer.sortedViewJob();
    twin.flushing = this;
  }

  /** The step the flush takes next (tests, profiles). */
  get currentPhase(): Phase | 'done' {
    return this.done ? 'done' : this.phase;
  }

  /** One bounded step (reading up to `limit` buffer rows, or one build step); true when finished or cancelled. */
  step(limit: number): boolean {
    if (this.done) return true;
    if (this.cancelled || this.twin.table.dropped) return this.finishCancelled();
    const t0 = performance.now();
    const phase = this.phase;
    switch (phase) {
      case 'sort':
        if (this.viewJob!.step(limit * 4)) this.startReading(this.viewJob!);
        break;
      case 'read':
        this.markTouched(limit);
        this.readRows(limit);
        break;
      case 'build':
        this.markTouched(limit);
        this.built = this.buildBatch();
        this.phase = 'serialize';
        break;
      case 'serialize':
        this.markTouched(limit);
        this.ipc = serializeSegment(this.built!);
        this.phase = 'index';
        break;
      case 'index':
        this.markTouched(limit);
        // Copying a key costs about what reading a few bytes of a row does.
        if (this.writeKeyIndex(limit * 8)) this.phase = 'filter';
        break;
      case 'filter': {
        this.markTouched(limit);
        // The new segment's token filter, here rather than on the first write that meets the segment.
        const batch = this.built!.batch;
        this.tokens = TokenFilter.ofColumn(batch.data.children[TOKEN_FIELD_INDEX], batch.numRows);
        this.phase = 'stage';
        break;
      }
      case 'stage':
        this.markTouched(limit);
        if (this.stageBytes()) this.phase = 'commit';
        break;
      case 'commit':
        this.markTouched(Number.POSITIVE_INFINITY);
        this.commit();
        break;
      case 'reclaim':
        // The buffer records the commit marked consumed (and any a crash left), deleted a slice at a time.
        if (this.twin.buffer.reclaimStep(Math.max(1, Math.floor(limit / 4)))) this.finish();
        break;
    }
    const ms = performance.now() - t0;
    this.steps++;
    this.phaseMs[phase] += ms;
    if (ms > this.maxStepMs) {
      this.maxStepMs = ms;
      this.maxStepPhase = phase;
    }
    if (this.result) {
      // The last step: the result counts it too.
      this.result.maxStepMs = this.maxStepMs;
      this.result.maxStepPhase = this.maxStepPhase;
      this.result.steps = this.steps;
    }
    return this.done;
  }

  private startReading(job: SortedViewJob): void {
    const view = job.view;
    this.viewJob = undefined;
    this.snapshot = view;
    this.builder = new SegmentBatchBuilder(this.layout, Math.min(view.length, 1 << 16));
    this.touched = new Uint8Array(view.length);
    // The view's tokens as two numbers each: markTouched's binary search compares those, not the entries.
    this.tokenHigh = job.viewHigh;
    this.tokenLow = job.viewLow;
    this.phase = 'read';
  }

  private readRows(limit: number): void {
    const now = Math.floor(Date.now() / 1000);
    const end = Math.min(this.snapshot.length, this.pos + limit);
    for (; this.pos < end; this.pos++) {
      const fate = this.readRow(this.snapshot[this.pos]!, this.pos, now);
      if (fate === 'unordered') {
        this.restartUnstreamed();
        return;
      }
      this.fates.push(fate);
    }
    if (this.pos < this.snapshot.length) return;
    // Nothing to build: straight to the commit (it still removes the records read).
    this.phase = this.rowKeyIndex.length > 0 ? 'build' : 'commit';
  }

  /** After the reclaim steps: the flush is over (the next one may start). */
  private finish(): void {
    this.done = true;
    if (this.twin.flushing === this) this.twin.flushing = undefined;
  }

  /** Stops the flush (an error, TRUNCATE, DROP): what it wrote under its segment id goes, when the table remains. */
  cancel(): void {
    this.cancelled = true;
    if (!this.done) this.finishCancelled();
  }

  private finishCancelled(): boolean {
    if (this.result) {
      // Committed already (cancelled while reclaiming): the next flush deletes what is left.
      this.finish();
      return true;
    }
    this.done = true;
    const id = this.stagedId;
    this.stagedId = undefined;
    if (id !== undefined && !this.twin.table.dropped) {
      try {
        const batch = this.twin.pool.batch();
        // Deleting a key that is not there (the key index, not written yet) is a no-op.
        batch.del(this.twin.handles.segments, segmentBytesKey(id));
        batch.del(this.twin.handles.segments, keyIndexKey(id));
        this.twin.pool.apply(batch);
      } catch {
        // Left for the next flush, which writes under the same id (the id only moves when a flush commits).
      }
    }
    if (this.twin.flushing === this) this.twin.flushing = undefined;
    this.result = this.resultOf(undefined, 0, 0);
    return true;
  }

  /** Reads the buffer again from the start, keeping rows as objects to sort them at the end. */
  private restartUnstreamed(): void {
    this.builder = undefined;
    this.pos = 0;
    this.fates.length = 0;
    this.rowKeyIndex = [];
    this.keyBytes = 0;
    this.rows = [];
  }

  /** Snapshot row `index` as a segment row, or why it is not one ('unordered': it breaks the row store's order). */
  private readRow(e: BufferEntry, index: number, now: number): Fate | 'unordered' {
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
      this.rowKeyIndex.push(index);
      this.keyBytes += e.keyEnd - e.keyAt;
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
    this.rowKeyIndex.push(index);
    this.keyBytes += e.keyEnd - e.keyAt;
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

  /**
   * Marks the snapshot rows rewritten by records committed since the last check, up to about `budget` entries
   * (whole records) a step: the commit checks the rest. Each entry is looked up by binary search (there are few of
   * them next to the snapshot's rows), a step at a time from the first read step on, so that the check does not
   * pile up into one long step at the end.
   */
  private markTouched(budget: number): void {
    const rows = this.snapshot;
    const n = rows.length;
    const high = this.tokenHigh;
    const low = this.tokenLow;
    const touched = this.touched;
    for (const r of this.twin.buffer.recordsAfter(this.checkedSeq)) {
      if (budget <= 0) return;
      budget -= r.entries;
      walkRecord(r.bytes, (k0, k1) => {
        const rec = r.bytes;
        const th = rec.readUInt32BE(k0);
        const tl = rec.readUInt32BE(k0 + 4);
        let lo = 0;
        let hi = n;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          const h = high[mid]!;
          if (h < th || (h === th && low[mid]! < tl)) lo = mid + 1;
          else hi = mid;
        }
        // Rows of one token (a partition's rows, rare hash collisions): compare the rest of the keys.
        for (let i = lo; i < n && high[i] === th && low[i] === tl; i++) {
          const e = rows[i]!;
          if (e.keyEnd - e.keyAt === k1 - k0 && e.rec.compare(rec, k0, k1, e.keyAt, e.keyEnd) === 0) {
            touched[i] = 1;
            break;
          }
        }
      });
      this.checkedSeq = r.seq;
    }
  }

  /** The segment's batch, and which flushed row (read order) each segment row is. */
  private buildBatch(): BuiltSegment {
    if (!this.builder) return buildSegmentBatch(this.layout, this.rows);
    const order = new Uint32Array(this.builder.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return { batch: this.builder.finish(), order };
  }

  /**
   * Adds up to `budget` keys to the new segment's key index: the flushed keys (read in key order) and their
   * segment rows. True once every key is in.
   */
  private writeKeyIndex(budget: number): boolean {
    const n = this.rowKeyIndex.length;
    if (!this.keyIndex) {
      const order = this.built!.order;
      const segmentRow = new Uint32Array(n);
      for (let i = 0; i < n; i++) segmentRow[order[i]!] = i;
      this.segmentRow = segmentRow;
      this.keyIndex = new SegmentKeyIndexWriter(n, this.keyBytes);
    }
    const w = this.keyIndex;
    const segmentRow = this.segmentRow!;
    const end = Math.min(n, w.count + budget);
    for (let i = w.count; i < end; i++) {
      const e = this.snapshot[this.rowKeyIndex[i]!]!;
      w.add(e.rec, e.keyAt, e.keyEnd, segmentRow[i]!);
    }
    return w.count === n;
  }

  /**
   * The segment's bytes and its key index, under the id the segment will take: one small transaction reserves both
   * values, then each step copies and persists one slice (`NativePool.fill`, nothing logged). Nothing refers to
   * them until the commit writes the segment's record, so a crash before that leaves them unused, and the next
   * flush (which takes the same id: the next id only moves at a commit) overwrites them. Staging the 3-4 MB in
   * one transaction was a flush's longest step (5-8 ms alone, 15-28 ms under load). True once both are written.
   */
  private stageBytes(): boolean {
    const twin = this.twin;
    const segments = twin.handles.segments;
    const ipc = this.ipc!;
    const keys = this.keyIndex!.bytes;
    if (this.stagedId === undefined) {
      this.stagedId = twin.pendingSegmentId();
      twin.pool.apply(
        twin.pool
          .batch()
          .reserve(segments, segmentBytesKey(this.stagedId), ipc.length)
          .reserve(segments, keyIndexKey(this.stagedId), keys.length),
      );
      this.stagedBytes = 0;
      return false;
    }
    // Both values as one run of bytes: the IPC bytes, then the key index.
    const at = this.stagedBytes;
    const [key, value, from] =
      at < ipc.length ? [segmentBytesKey(this.stagedId), ipc, at] : [keyIndexKey(this.stagedId), keys, at - ipc.length];
    const end = Math.min(value.length, from + STAGE_SLICE_BYTES);
    if (end > from) twin.pool.fill(segments, key, from, Buffer.from(value.buffer, value.byteOffset + from, end - from));
    this.stagedBytes += end - from;
    return this.stagedBytes >= ipc.length + keys.length;
  }

  /**
   * One transaction: the staged segment's record and deletion-vector chunks; the buffer records read are marked
   * consumed and the rows the flush keeps go back in one record.
   */
  private commit(): void {
    const twin = this.twin;
    const pool = twin.pool;
    const h = twin.handles;
    const batch = pool.batch();
    let removed = 0;
    let kept = 0;
    let record: SegmentRecord | undefined;
    let dv: DeletionVector | undefined;
    const ipc = this.ipc;
    const built = this.built;
    const touched = this.touched;
    const n = this.rowKeyIndex.length;
    if (n > 0 && ipc && built && this.stagedId !== undefined) {
      const id = this.stagedId;
      const first = tokenOfKey(this.snapshot[this.rowKeyIndex[built.order[0]!]!]!.key);
      const last = tokenOfKey(this.snapshot[this.rowKeyIndex[built.order[n - 1]!]!]!.key);
      record = { id, rows: n, firstToken: first, lastToken: last, ts: Date.now(), size: ipc.length };
      dv = new DeletionVector(n);
      batch.put(h.index, segmentKey(id), encodeSegmentRecord(record));
      const next = Buffer.allocUnsafe(4);
      next.writeUInt32BE(id + 1, 0);
      batch.put(h.index, NEXT_ID_KEY, next);
      const segmentRow = this.segmentRow!;
      // Written since it was read: the buffer keeps it, this copy is stale from birth.
      for (let i = 0; i < n; i++) if (touched[this.rowKeyIndex[i]!] === 1) dv.set(segmentRow[i]!);
      for (const c of dv.takeDirtyChunks()) batch.put(h.deletions, chunkKey(id, c.index), Buffer.from(c.bytes));
    }
    // The buffer: the records read go; rows the flush keeps buffered go back in one record, except rows written
    // since (their newer entries are in newer records, which stay).
    const survivors: BufferEntry[] = [];
    const rows = this.snapshot;
    for (let i = 0; i < rows.length; i++) {
      if (touched[i] === 1) kept++;
      else if (this.fates[i] === 'keep') {
        kept++;
        survivors.push(rows[i]!);
      }
    }
    removed = rows.length - kept;
    const mirror = twin.buffer.stageFlush(batch, this.upTo, survivors);
    if (batch.size > 0) pool.apply(batch);
    mirror();
    if (record && dv) {
      twin.segmentCommitted(record.id);
      // The key index in place in the pool, searchable at once (the writer decoded it while writing).
      const keyBytes = pool.view(h.segments, keyIndexKey(record.id));
      const keys = keyBytes ? SegmentKeyIndex.fromWriter(keyBytes, this.keyIndex!) : undefined;
      twin.addSegment(record, dv, ipc && ipc.byteOffset % 8 === 0 ? openSegment(ipc) : undefined, keys, this.tokens);
    }
    twin.bufferBaseline = survivors.length;
    twin.bytesSinceFlush = 0;
    this.stagedId = undefined;
    this.phase = 'reclaim';
    this.result = this.resultOf(record, removed, kept);
  }

  private resultOf(segment: SegmentRecord | undefined, removed: number, kept: number): FlushResult {
    const ms = performance.now() - this.started;
    return {
      segment,
      removed,
      kept,
      ms,
      maxStepMs: this.maxStepMs,
      maxStepPhase: this.maxStepPhase,
      steps: this.steps,
      phaseMs: this.phaseMs,
    };
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
