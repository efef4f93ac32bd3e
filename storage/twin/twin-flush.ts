// Flushing a table's twin buffer into one Arrow segment (docs/arrow-twins.md "Flush"), in bounded steps
// (paced in the background, see twin-worker.ts) so requests interleave with it: the buffer's sorted view as the
// flush starts (built by the flush thread, or here in steps); its rows handed to the segment assembler a slice a
// step (segment-assembler.ts: rows read into the column encoders, the Arrow batch, its IPC bytes, the key index and
// token filter — in the flush thread, or here in steps); the IPC bytes and key index written under the id the
// segment will take (nothing refers to them yet); then ONE transaction commits the segment's record and marks the
// buffer records read consumed (they are deleted in later steps), putting back the rows the flush keeps. A row
// written after the flush started stays in the buffer (its newer record) and its copy in the new segment is born
// deleted, so the segment never shadows a newer version. A crash leaves the old state (plus unused staged bytes)
// or the new one.

import { isMultiCell } from '../../cql/types/cql-type.js';
import { DeletionVector } from '../arrow/deletion-vector.js';
import { type OpenSegment, openSegment } from '../arrow/segment-reader.js';
import { sortableBytesToToken } from '../murmur3-token.js';
import type { BufferEntry } from './buffer-entry.js';
import { walkRecord } from './buffer-record.js';
import { FlushInputWriter } from './flush-input.js';
import { FlushThreadClient } from './flush-thread-client.js';
import { FlushView, type SortedOffsets } from './flush-view.js';
import { type AssembledSegment, type AssemblerSetup, FATE_KEEP, SegmentAssembler } from './segment-assembler.js';
import { SegmentKeyIndex } from './segment-key-index.js';
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
  /** The segment assembler's time by phase (ms), in the flush thread when `thread`, else within `rows`/`assemble`. */
  assemblyMs: Readonly<Record<string, number>>;
  thread: boolean;
}

/** The steps of a flush, in order. */
export type Phase = 'sort' | 'rows' | 'assemble' | 'stage' | 'open' | 'commit' | 'reclaim';

/** How often a flush waiting for its thread looks for the answer (ms); meanwhile it checks rewritten rows. */
export const THREAD_POLL_MS = 5;

export class TwinFlush implements FlushWatch {
  cancelled = false;
  done = false;
  result: FlushResult | undefined;
  private phase: Phase = 'sort';
  /**
   * Builds the buffer's sorted view as the flush starts, in this thread's steps (`viewJob`) or in the flush
   * thread (`sortJob`, the records sent: `sortRecords`); then `snapshot` is that view.
   */
  private viewJob: SortedViewJob | undefined;
  private sortJob = 0;
  private sortRecords: readonly Buffer[] = [];
  private snapshot: FlushView = FlushView.ofEntries([], new Uint32Array(0), new Uint32Array(0));
  /** The last log record when the flush started: the flush consumes the records up to it. */
  private readonly upTo: number;
  /** Snapshot rows handed to the assembler so far. */
  private pos = 0;
  private readonly input: FlushInputWriter;
  /** Where the segment is assembled: in this thread (steps of this flush) or by the flush thread (job). */
  private assembler: SegmentAssembler | undefined;
  private thread: FlushThreadClient | undefined;
  private job = 0;
  private assembled: AssembledSegment | undefined;
  /** Per snapshot row, 1 when a record committed since the flush started rewrites it (its segment copy is stale). */
  private touched = new Uint8Array(0);
  /** Records up to this one were checked for rows rewritten since the flush started. */
  private checkedSeq: number;
  /** The id the segment's bytes and key index were written under (the 'stage' step), undefined before. */
  private stagedId: number | undefined;
  /** Bytes of the staged values filled in so far (the IPC bytes, then the key index). */
  private stagedBytes = 0;
  /** The staged segment opened for reading, its key index and token filter (the 'open' step), for the commit. */
  private opened:
    | { segment: OpenSegment | undefined; keys: SegmentKeyIndex | undefined; tokens: TokenFilter }
    | undefined;
  /** Time spent per step kind, and the longest single step (for profiles: a step holds the event loop). */
  readonly phaseMs: Record<Phase, number> = { sort: 0, rows: 0, assemble: 0, stage: 0, open: 0, commit: 0, reclaim: 0 };
  maxStepMs = 0;
  private maxStepPhase = '';
  private steps = 0;
  private readonly started = performance.now();

  constructor(
    private readonly twin: TableTwin,
    private readonly schema: TwinSchema,
    /** Assemble in the flush thread (a table with multi-cell columns needs the schema layer: never). */
    useThread: boolean,
  ) {
    this.input = new FlushInputWriter(new TwinRowSource(twin.table), twin.table.clustered, twin.buffer.arena);
    const multiCell = schema.columns.some((c) => c.kind === 'regular' && isMultiCell(c.type));
    if (useThread && !multiCell)
      this.thread = FlushThreadClient.shared(twin.options.flushThreadNice, twin.options.flushThreadIdle);
    // The same records: the view job takes the records committed now.
    this.upTo = twin.buffer.lastSeq;
    this.checkedSeq = this.upTo;
    const job = twin.buffer.sortedViewJob();
    if (this.thread && !job.finished) {
      this.sortRecords = job.records;
      this.sortJob = this.thread.sort(job.records);
    } else this.viewJob = job;
    twin.flushing = this;
  }

  /** The step the flush takes next (tests, profiles). */
  get currentPhase(): Phase | 'done' {
    return this.done ? 'done' : this.phase;
  }

  /** Waiting for the flush thread: the next step is worth taking only after a while (THREAD_POLL_MS). */
  get waiting(): boolean {
    const phase = this.phase;
    return (
      (phase === 'assemble' || (phase === 'sort' && this.sortJob !== 0)) && this.thread !== undefined && !this.done
    );
  }

  /**
   * One bounded step (handing over up to `limit` buffer rows, or one build step); true when finished or cancelled.
   * `blocking`: wait for the flush thread's answer instead of returning (an admin flush, run to the end at once).
   */
  step(limit: number, blocking = false): boolean {
    if (this.done) return true;
    if (this.cancelled || this.twin.table.dropped) return this.finishCancelled();
    const t0 = performance.now();
    const phase = this.phase;
    switch (phase) {
      case 'sort':
        this.sortStep(limit, blocking);
        break;
      case 'rows':
        this.markTouched(limit);
        this.sendRows(limit);
        break;
      case 'assemble':
        this.markTouched(limit);
        if (this.assembleStep(limit, blocking)) this.phase = this.assembled!.ipc ? 'stage' : 'commit';
        break;
      case 'stage':
        this.markTouched(limit);
        if (this.stageBytes()) this.phase = 'open';
        break;
      case 'open':
        this.markTouched(limit);
        this.openStaged();
        this.phase = 'commit';
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

  private sortStep(limit: number, blocking: boolean): void {
    if (this.sortJob !== 0) {
      const thread = this.thread!;
      const offsets = blocking ? thread.wait<SortedOffsets>(this.sortJob) : thread.take<SortedOffsets>(this.sortJob);
      if (!offsets) return;
      this.sortJob = 0;
      this.startAssembly(FlushView.ofOffsets(this.sortRecords, offsets));
      this.sortRecords = [];
      return;
    }
    const job = this.viewJob!;
    if (!job.step(limit * 4)) return;
    this.viewJob = undefined;
    this.startAssembly(FlushView.ofEntries(job.view, job.viewHigh, job.viewLow));
  }

  private startAssembly(view: FlushView): void {
    this.snapshot = view;
    this.touched = new Uint8Array(view.length);
    const setup: AssemblerSetup = {
      columns: this.schema.columns,
      clustered: this.twin.table.clustered,
      rows: view.length,
    };
    if (view.length === 0) {
      // Nothing to assemble: straight to the commit (it still removes the records read).
      this.thread = undefined;
      const empty = new SegmentAssembler(setup);
      empty.end();
      empty.step(1);
      this.assembled = empty.result;
      this.phase = 'commit';
      return;
    }
    if (this.thread) this.job = this.thread.begin(setup);
    else this.assembler = new SegmentAssembler(setup, (id, v) => this.schema.complexToBytes(id, v));
    this.phase = 'rows';
  }

  /** Hands the next `limit` snapshot rows to the assembler; in this thread, it reads them at once. */
  private sendRows(limit: number): void {
    const end = Math.min(this.snapshot.length, this.pos + limit);
    const slice = this.input.slice(this.snapshot, this.pos, end);
    this.pos = end;
    const last = end === this.snapshot.length;
    if (this.thread) {
      this.thread.rows(this.job, slice);
      if (last) this.thread.end(this.job);
    } else {
      const a = this.assembler!;
      a.add(slice);
      a.step(limit);
      if (last) a.end();
    }
    if (last) this.phase = 'assemble';
  }

  private assembleStep(limit: number, blocking: boolean): boolean {
    if (this.thread) {
      this.assembled = blocking
        ? this.thread.wait<AssembledSegment>(this.job)
        : this.thread.take<AssembledSegment>(this.job);
    } else if (this.assembler!.step(limit)) this.assembled = this.assembler!.result;
    return this.assembled !== undefined;
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
    if (this.thread && this.job !== 0 && !this.assembled) this.thread.cancel(this.job);
    if (this.thread && this.sortJob !== 0) this.thread.cancel(this.sortJob);
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

  /**
   * Marks the snapshot rows rewritten by records committed since the last check, up to about `budget` entries
   * (whole records) a step: the commit checks the rest. Each entry is looked up by binary search (there are few of
   * them next to the snapshot's rows), a step at a time from the first read step on, so that the check does not
   * pile up into one long step at the end.
   */
  private markTouched(budget: number): void {
    const rows = this.snapshot;
    const n = rows.length;
    // The view's tokens as two numbers each: the binary search compares those, not the keys.
    const high = rows.high;
    const low = rows.low;
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
          const at = rows.keyAt(i);
          const end = rows.keyEnd(i);
          if (end - at === k1 - k0 && rows.recordOf(i).compare(rec, k0, k1, at, end) === 0) {
            touched[i] = 1;
            break;
          }
        }
      });
      this.checkedSeq = r.seq;
    }
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
    const ipc = this.assembled!.ipc!;
    const keys = this.assembled!.keyIndex!;
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
   * What the commit hands the table with the new segment, prepared in a step of its own (opening the segment's
   * Arrow metadata took ~1 ms, 3-9 ms under load, of a commit step): the segment opened on its IPC bytes, its key
   * index in place in the pool, searchable at once (the assembler decoded it while writing it), and its token filter.
   */
  private openStaged(): void {
    const a = this.assembled!;
    const ipc = a.ipc!;
    const keyBytes = this.twin.pool.view(this.twin.handles.segments, keyIndexKey(this.stagedId!));
    this.opened = {
      segment: ipc.byteOffset % 8 === 0 ? openSegment(ipc) : undefined,
      keys: keyBytes && a.keyParts ? SegmentKeyIndex.fromParts(keyBytes, a.keyParts) : undefined,
      tokens: TokenFilter.fromWords(a.rowKeyIndex.length, a.tokenWords!),
    };
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
    const a = this.assembled!;
    const ipc = a.ipc;
    const touched = this.touched;
    const rowKeyIndex = a.rowKeyIndex;
    const n = rowKeyIndex.length;
    if (n > 0 && ipc && this.stagedId !== undefined) {
      const id = this.stagedId;
      const first = sortableBytesToToken(this.snapshot.key(a.firstRow));
      const last = sortableBytesToToken(this.snapshot.key(a.lastRow));
      record = { id, rows: n, firstToken: first, lastToken: last, ts: Date.now(), size: ipc.length };
      dv = new DeletionVector(n);
      batch.put(h.index, segmentKey(id), encodeSegmentRecord(record));
      const next = Buffer.allocUnsafe(4);
      next.writeUInt32BE(id + 1, 0);
      batch.put(h.index, NEXT_ID_KEY, next);
      const segmentRow = a.segmentRow;
      // Written since it was read: the buffer keeps it, this copy is stale from birth.
      for (let i = 0; i < n; i++) if (touched[rowKeyIndex[i]!] === 1) dv.set(segmentRow[i]!);
      for (const c of dv.takeDirtyChunks()) batch.put(h.deletions, chunkKey(id, c.index), Buffer.from(c.bytes));
    }
    // The buffer: the records read go; rows the flush keeps buffered go back in one record, except rows written
    // since (their newer entries are in newer records, which stay).
    const survivors: BufferEntry[] = [];
    const rows = this.snapshot;
    for (let i = 0; i < rows.length; i++) {
      if (touched[i] === 1) kept++;
      else if (a.fates[i] === FATE_KEEP) {
        kept++;
        survivors.push(rows.entry(i));
      }
    }
    removed = rows.length - kept;
    const mirror = twin.buffer.stageFlush(batch, this.upTo, survivors);
    if (batch.size > 0) pool.apply(batch);
    mirror();
    if (record && dv) {
      twin.segmentCommitted(record.id);
      const o = this.opened!;
      twin.addSegment(record, dv, o.segment, o.keys, o.tokens);
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
      assemblyMs: this.assembled?.phaseMs ?? this.assembler?.phaseMs ?? {},
      thread: this.thread !== undefined,
    };
  }
}

/** Starts a flush of `twin` (undefined when the table has no twin schema or a flush is already running). */
export function startFlush(twin: TableTwin): TwinFlush | undefined {
  if (twin.flushing || twin.table.dropped) return undefined;
  const schema = twin.currentSchema();
  if (!schema) return undefined;
  return new TwinFlush(twin, schema, twin.options.flushThread);
}
