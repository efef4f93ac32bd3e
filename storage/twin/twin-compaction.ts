// Compaction of a table's twin: segments with many deleted rows, or many small segments, are folded
// into a fresh segment by the ordinary flush. In bounded slices, the live rows of the victims (their key indexes'
// entries with a clear deletion bit) move back to the buffer (bit set, buffer entry added: one transaction per
// slice); once a victim has no live row left, its bytes, key index, record and deletion vector go (one more
// transaction); the next flush writes the survivors as one segment. Every intermediate state is a consistent
// twin, so a crash anywhere is harmless.

import { ROWS_PER_CHUNK } from '../arrow/deletion-vector.js';
import { PoolError } from '../native-pool.js';
import { BufferRecordBuilder } from './buffer-record.js';
import type { LiveSegment } from './live-segment.js';
import type { TableTwin } from './table-twin.js';
import { BUFFER_CHANGED, chunkKey, hasPrefix, keyIndexKey, segmentBytesKey, segmentKey } from './twin-keys.js';

/** Victims: segments at least half deleted; or, when there are 4 or more small ones, every small one. */
export function pickVictims(twin: TableTwin): LiveSegment[] {
  const segs = twin.segments();
  const victims = new Set<LiveSegment>();
  for (const s of segs) {
    const dv = s.deletions();
    if (dv.count() * 2 >= s.record.rows) victims.add(s);
  }
  const small = segs.filter((s) => s.record.rows < twin.options.flushRows / 4);
  if (small.length >= 4) for (const s of small) victims.add(s);
  return [...victims];
}

export interface CompactionResult {
  victims: number;
  moved: number;
  ms: number;
}

export class TwinCompaction {
  done = false;
  result: CompactionResult | undefined;
  /** Position: victim `victimAt`, its key-index entry `entryAt`. */
  private victimAt = 0;
  private entryAt = 0;
  private moved = 0;
  private readonly started = performance.now();

  constructor(
    private readonly twin: TableTwin,
    readonly victims: readonly LiveSegment[],
  ) {}

  /** Visits up to `limit` key-index entries of the victims; true when finished. */
  step(limit: number): boolean {
    if (this.done) return true;
    const twin = this.twin;
    if (twin.table.dropped || this.victims.some((v) => twin.segment(v.id) !== v)) {
      // Truncated or dropped meanwhile: nothing left to do.
      return this.finish();
    }
    const pool = twin.pool;
    const h = twin.handles;
    const batch = pool.batch();
    const marks: { seg: LiveSegment; row: number }[] = [];
    const rebuffered = new BufferRecordBuilder();
    const chunks = new Map<string, { seg: LiveSegment; chunk: number; bytes: Buffer }>();
    let budget = limit;
    while (budget > 0 && this.victimAt < this.victims.length) {
      const seg = this.victims[this.victimAt]!;
      const index = seg.keyIndex();
      if (!index)
        throw new PoolError('POOL_CORRUPT', `Arrow segment ${seg.id} of table ${twin.tableHex} has no key index`);
      const dv = seg.deletions();
      for (; budget > 0 && this.entryAt < index.count; budget--, this.entryAt++) {
        const row = index.rowAt(this.entryAt);
        if (dv.test(row)) continue;
        rebuffered.append(index.keyAt(this.entryAt), BUFFER_CHANGED);
        marks.push({ seg, row });
        const chunk = Math.floor(row / ROWS_PER_CHUNK);
        const ck = `${seg.id}:${chunk}`;
        let c = chunks.get(ck);
        if (!c) {
          const b = dv.chunk(chunk);
          c = { seg, chunk, bytes: Buffer.from(b.buffer, b.byteOffset, b.length) };
          chunks.set(ck, c);
        }
        const local = row - chunk * ROWS_PER_CHUNK;
        c.bytes[local >>> 3]! |= 1 << (local & 7);
      }
      if (this.entryAt >= index.count) {
        this.victimAt++;
        this.entryAt = 0;
      }
    }
    for (const c of chunks.values()) batch.put(h.deletions, chunkKey(c.seg.id, c.chunk), c.bytes);
    if (batch.size > 0) {
      const mirror = twin.buffer.stageRecord(batch, rebuffered);
      pool.apply(batch);
      mirror();
      for (const m of marks) m.seg.deletions().set(m.row);
      this.moved += marks.length;
    }
    if (this.victimAt >= this.victims.length) {
      this.dropEmptyVictims();
      return this.finish();
    }
    return false;
  }

  private dropEmptyVictims(): void {
    const twin = this.twin;
    const pool = twin.pool;
    const h = twin.handles;
    const batch = pool.batch();
    const gone: number[] = [];
    for (const v of this.victims) {
      if (v.deletions().liveCount > 0) continue;
      const id = segmentKey(v.id);
      batch.del(h.segments, segmentBytesKey(v.id));
      batch.del(h.segments, keyIndexKey(v.id));
      batch.del(h.index, id);
      const res = pool.scan(h.deletions, { start: id });
      for (const k of res.keys) {
        if (!hasPrefix(k, id)) break;
        batch.del(h.deletions, k);
      }
      gone.push(v.id);
    }
    if (batch.size > 0) pool.apply(batch);
    for (const id of gone) twin.removeSegment(id);
  }

  private finish(): boolean {
    this.done = true;
    this.result = { victims: this.victims.length, moved: this.moved, ms: performance.now() - this.started };
    return true;
  }
}
