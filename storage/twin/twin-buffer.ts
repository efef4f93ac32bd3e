// A table's twin buffer (the buffer table): the latest state of every row changed since the last flush.
// Kept as a LOG: each group-commit batch adds ONE record holding every row it changed, appended to while the
// batch is staged, so a write costs a few bytes copied into that record — not a B+-tree entry of its own
// (allocating, inserting and later freeing an entry per write was a third of the twin's write cost), and no
// per-row JS objects either. Readers (flush, columnar queries, partition deletions, checks) use a sorted view of
// the latest entry per row, built from the records when asked and merged incrementally after that.
//
// 'b' map: u64 sequence number, big-endian (8 bytes) -> record = entries back to back, each
// [u32 key length | twin key | u32 value length | value]; of two entries for one key, the later one counts
// (later record, or later in the same record). Values: the row as the row store holds it, empty = deleted,
// [0xff] = read the row store (compaction). Pools written before the log held one entry per row (twin key, at
// least 10 bytes -> value): the first replay converts them into one record (one transaction).

import type { MapHandle, NativePool, WriteBatch } from '../native-pool.js';
import { type BufferEntry, compareEntries, compareEntryWith, lowerBound } from './buffer-entry.js';
import { BufferRecordBuilder, walkRecord } from './buffer-record.js';
import { RecordArena, slabIdOf } from './record-arena.js';
import { SortedViewJob } from './sorted-view-job.js';

/**
 * A run of the log's records whose bytes lie back to back in one arena slab: the records firstSeq..seq (their
 * entries read as one record's), the bytes, the entries. One object per run, not per record: a record per
 * group-commit batch as its own objects lived until the next flush, and those promoted objects (~3 MB a flush at
 * 20 000 INSERTs/s) cost the event loop a mark-compact every 1-3 s.
 */
export interface LogRecord {
  readonly firstSeq: number;
  readonly seq: number;
  readonly bytes: Buffer;
  readonly entries: number;
  /** Records in the run. */
  readonly count: number;
}

const SCAN_CHUNK = 1024;
const RECORD_KEY_LENGTH = 8;
/**
 * Key of the marker "records up to this sequence number were consumed by a committed flush" (value: the number as
 * a record key). Shorter than any record key and twin key, so it sorts first. The flush's commit writes it instead
 * of deleting the records it read (thousands of frees in one transaction held the event loop); the records are
 * deleted in later steps (reclaimStep), or after a crash by the next flush, and skipped when the log is replayed.
 */
const CONSUMED_KEY = Buffer.from([0]);

function recordKey(seq: number, into = Buffer.allocUnsafe(RECORD_KEY_LENGTH)): Buffer {
  into.writeUInt32BE(Math.floor(seq / 0x100000000), 0);
  into.writeUInt32BE(seq >>> 0, 4);
  return into;
}

function seqOfRecordKey(k: Buffer): number {
  return k.readUInt32BE(0) * 0x100000000 + k.readUInt32BE(4);
}

function encodeEntries(
  entries: readonly { readonly key: Buffer; readonly value: Buffer }[],
  arena: RecordArena,
): Buffer {
  const b = new BufferRecordBuilder();
  for (const e of entries) b.append(e.key, e.value);
  return b.bytes(arena);
}

export class TwinBuffer {
  /** Committed records, oldest first, in runs (an entry of a later record replaces one of an earlier record). */
  private records: LogRecord[] = [];
  /**
   * The last run takes no more records: something holds a sequence number or a view as a boundary (a flush's
   * snapshot, the rewritten-row check, the sorted view), and a run must not straddle it.
   */
  private sealed = true;
  private nextSeq = 1;
  /** Entries in the records (a row written twice counts twice): the flush threshold. */
  entryCount = 0;
  /** Latest entry per key, sorted by key, covering the first `viewRecords` records; undefined: not built. */
  private view: BufferEntry[] | undefined;
  private viewRecords = 0;
  /** Records up to this sequence number were consumed by a flush; the ones still in the pool wait for deletion. */
  private consumedUpTo = 0;
  /** Sequence number ranges [first, last] of records consumed, as pairs, oldest first. */
  private unreclaimed: number[] = [];
  /** The records before this pair of unreclaimed, and before reclaimedSeq in it, are deleted already. */
  private reclaimedAt = 0;
  private reclaimedSeq = 0;
  /** Changes whenever records are replaced or dropped (a flush commits, TRUNCATE), not when one is appended. */
  private generation = 0;
  private loaded = false;
  /** Where the records' bytes live (shared memory the flush thread reads). */
  readonly arena = new RecordArena();

  constructor(
    private readonly pool: NativePool,
    private readonly map: MapHandle,
  ) {}

  /** Replays the log (first use); converts an old pool's per-row entries into one record. */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const old: { key: Buffer; value: Buffer }[] = [];
    const found: { seq: number; bytes: Buffer }[] = [];
    let start: Buffer | undefined;
    for (;;) {
      const res = this.pool.scan(this.map, { start, startInclusive: false, limit: SCAN_CHUNK });
      for (let i = 0; i < res.keys.length; i++) {
        const k = res.keys[i]!;
        const v = res.values[i]!;
        if (k.length === RECORD_KEY_LENGTH) {
          found.push({ seq: seqOfRecordKey(k), bytes: v });
        } else if (k.equals(CONSUMED_KEY)) {
          this.consumedUpTo = seqOfRecordKey(v);
          if (this.consumedUpTo >= this.nextSeq) this.nextSeq = this.consumedUpTo + 1;
        } else {
          old.push({ key: k, value: v });
        }
      }
      if (res.keys.length < SCAN_CHUNK) break;
      start = res.keys[res.keys.length - 1];
    }
    for (const r of found) {
      // Consumed by a committed flush, not deleted yet: skipped, and deleted by the next flush.
      if (r.seq <= this.consumedUpTo) {
        this.unreclaimed.push(r.seq, r.seq);
        continue;
      }
      let n = 0;
      walkRecord(r.bytes, () => n++);
      this.addRecord(r.seq, r.bytes, n);
    }
    if (old.length > 0) {
      // Old entries and records never coexist (this conversion is one transaction).
      const batch = this.pool.batch();
      for (const e of old) batch.del(this.map, e.key);
      const seq = this.nextSeq;
      const bytes = encodeEntries(old, this.arena);
      batch.put(this.map, recordKey(seq), bytes);
      this.pool.apply(batch);
      this.addRecord(seq, bytes, old.length);
    }
  }

  private addRecord(seq: number, recordBytes: Buffer, entries: number): void {
    // The flush thread reads records where they are: in the arena (records replayed from the pool are copied).
    const bytes = slabIdOf(recordBytes) !== 0 ? recordBytes : this.arena.copy(recordBytes);
    const n = this.records.length;
    const last = n > 0 ? this.records[n - 1]! : undefined;
    if (
      last &&
      !this.sealed &&
      last.bytes.buffer === bytes.buffer &&
      last.bytes.byteOffset + last.bytes.length === bytes.byteOffset
    ) {
      this.records[n - 1] = {
        firstSeq: last.firstSeq,
        seq,
        bytes: Buffer.from(bytes.buffer, last.bytes.byteOffset, last.bytes.length + bytes.length),
        entries: last.entries + entries,
        count: last.count + 1,
      };
    } else {
      this.records.push({ firstSeq: seq, seq, bytes, entries, count: 1 });
    }
    this.sealed = false;
    if (seq >= this.nextSeq) this.nextSeq = seq + 1;
    this.entryCount += entries;
  }

  /** The latest entry of every buffered row (deletions included), sorted by key. Shared: do not modify. */
  sortedView(): readonly BufferEntry[] {
    this.load();
    this.sealed = true;
    if (this.view && this.viewRecords === this.records.length) return this.view;
    const fresh = collect(this.records, this.view ? this.viewRecords : 0);
    this.view = this.view ? mergeNewer(this.view, fresh) : fresh;
    this.viewRecords = this.records.length;
    return this.view;
  }

  /**
   * The sorted view of the records committed now, built in bounded steps (a background flush); when the job
   * finishes, its view becomes the buffer's unless the records were replaced meanwhile.
   */
  sortedViewJob(): SortedViewJob {
    this.load();
    this.sealed = true;
    if (this.view && this.viewRecords === this.records.length) return SortedViewJob.of(this.view);
    const generation = this.generation;
    const count = this.records.length;
    return new SortedViewJob(
      this.records.map((r) => r.bytes),
      (view) => {
        if (this.generation !== generation || (this.view && this.viewRecords >= count)) return;
        this.view = view;
        this.viewRecords = count;
      },
    );
  }

  /** Rows in the buffer (distinct keys, deletions included). */
  get size(): number {
    return this.sortedView().length;
  }

  /** The entry of `key`, or undefined. */
  get(key: Buffer): BufferEntry | undefined {
    const v = this.sortedView();
    const i = lowerBound(v, key);
    return i < v.length && compareEntryWith(v[i]!, key) === 0 ? v[i] : undefined;
  }

  /** Entries whose key starts with `prefix`, in key order. */
  withPrefix(prefix: Buffer): BufferEntry[] {
    const v = this.sortedView();
    const out: BufferEntry[] = [];
    const n = prefix.length;
    for (let i = lowerBound(v, prefix); i < v.length; i++) {
      const e = v[i]!;
      if (e.keyEnd - e.keyAt < n || e.rec.compare(prefix, 0, n, e.keyAt, e.keyAt + n) !== 0) break;
      out.push(e);
    }
    return out;
  }

  /** Index in `view` of the first entry whose key is >= `key`. */
  lowerBound(view: readonly BufferEntry[], key: Buffer): number {
    return lowerBound(view, key);
  }

  // ---- changes: staged into a batch, mirrored once it commits ---------------------------------

  /** Stages `record` as the log's next record; returns what to run once the batch commits. */
  stageRecord(batch: WriteBatch, record: BufferRecordBuilder): () => void {
    this.load();
    const bytes = record.bytes(this.arena);
    const entries = record.entries;
    const seq = this.nextSeq++;
    batch.put(this.map, recordKey(seq), bytes);
    return () => this.addRecord(seq, bytes, entries);
  }

  /** TRUNCATE (the batch clears the map): empties the buffer once committed. */
  truncated(): void {
    this.generation++;
    this.unreclaimed = [];
    this.reclaimedAt = 0;
    this.reclaimedSeq = 0;
    this.consumedUpTo = 0;
    this.records = [];
    this.entryCount = 0;
    this.view = undefined;
    this.viewRecords = 0;
  }

  /** The newest committed record's sequence number (0: none): a flush consumes the records up to it. */
  get lastSeq(): number {
    this.load();
    this.sealed = true;
    return this.records.length === 0 ? 0 : this.records[this.records.length - 1]!.seq;
  }

  /** The records after `seq` (written since a flush started), oldest first. */
  recordsAfter(seq: number): readonly LogRecord[] {
    this.load();
    // The caller goes on from the last run's seq: it must not grow.
    this.sealed = true;
    let i = this.records.length;
    while (i > 0 && this.records[i - 1]!.seq > seq) i--;
    return this.records.slice(i);
  }

  /**
   * A flush that read the records up to `upTo`: stages their deletion and one record with `survivors` (rows it
   * leaves buffered that no later record rewrites); returns what to run once the batch commits.
   */
  stageFlush(batch: WriteBatch, upTo: number, survivors: readonly BufferEntry[]): () => void {
    this.load();
    batch.put(this.map, CONSUMED_KEY, recordKey(upTo));
    let kept: LogRecord | undefined;
    if (survivors.length > 0) {
      const b = new BufferRecordBuilder();
      for (const e of survivors) b.appendEntry(e);
      const seq = this.nextSeq++;
      kept = { firstSeq: seq, seq, bytes: b.bytes(this.arena), entries: survivors.length, count: 1 };
      batch.put(this.map, recordKey(kept.seq), kept.bytes);
    }
    return () => {
      // The survivors share no key with the newer records, so their place in the order does not matter for
      // reads; last keeps the records in sequence order (the survivors' record has the newest sequence number).
      this.generation++;
      this.consumedUpTo = upTo;
      // The records are in sequence order, so the ones read are a prefix (one pass: this runs in the commit step).
      const records = this.records;
      let read = 0;
      for (; read < records.length && records[read]!.seq <= upTo; read++) {
        this.unreclaimed.push(records[read]!.firstSeq, records[read]!.seq);
      }
      const newer = records.slice(read);
      if (kept) newer.push(kept);
      this.records = newer;
      // Out of sequence order with the records before it: nothing joins its run.
      this.sealed = true;
      let entries = 0;
      for (const r of newer) entries += r.entries;
      this.entryCount = entries;
      this.view = undefined;
      this.viewRecords = 0;
    };
  }

  /**
   * Deletes up to `limit` records consumed by flushes (one transaction); true when none is left. Deleting a record
   * a truncate already removed is a no-op.
   */
  reclaimStep(limit: number): boolean {
    this.load();
    const ranges = this.unreclaimed;
    if (this.reclaimedAt >= ranges.length) return true;
    const batch = this.pool.batch();
    // One key buffer for the step (a batch copies keys as they are staged): ~20 000 records a flush.
    const key = Buffer.allocUnsafe(RECORD_KEY_LENGTH);
    let left = Math.max(1, Math.floor(limit));
    while (left > 0 && this.reclaimedAt < ranges.length) {
      const first = Math.max(ranges[this.reclaimedAt]!, this.reclaimedSeq);
      const last = ranges[this.reclaimedAt + 1]!;
      const end = Math.min(last, first + left - 1);
      for (let seq = first; seq <= end; seq++) batch.del(this.map, recordKey(seq, key));
      left -= end - first + 1;
      if (end < last) this.reclaimedSeq = end + 1;
      else {
        this.reclaimedAt += 2;
        this.reclaimedSeq = 0;
      }
    }
    this.pool.apply(batch);
    if (this.reclaimedAt < ranges.length) return false;
    this.unreclaimed = [];
    this.reclaimedAt = 0;
    this.reclaimedSeq = 0;
    return true;
  }

  /** Records in the log (tests, checks). */
  get recordCount(): number {
    this.load();
    let n = 0;
    for (const r of this.records) n += r.count;
    return n;
  }

  /** Runs the records are kept in (tests). */
  get runCount(): number {
    return this.records.length;
  }

  /** Problems between the in-memory records and a fresh replay of the log (checkTwin). */
  verifyAgainstLog(): string[] {
    const fresh = new TwinBuffer(this.pool, this.map);
    const a = this.sortedView();
    const b = fresh.sortedView();
    if (a.length !== b.length) return [`buffer: ${a.length} rows in memory, ${b.length} in the log`];
    for (let i = 0; i < a.length; i++) {
      if (compareEntries(a[i]!, b[i]!) !== 0 || !a[i]!.value.equals(b[i]!.value)) {
        return [`buffer row ${a[i]!.key.toString('hex')} differs from the log`];
      }
    }
    return [];
  }
}

/** The latest entry per key of records[from..], sorted by key. */
function collect(records: readonly LogRecord[], from: number): BufferEntry[] {
  return new SortedViewJob(records.slice(from).map((r) => r.bytes)).finish();
}

/** Merges two sorted, deduplicated views; on equal keys `newer` wins. */
function mergeNewer(older: readonly BufferEntry[], newer: readonly BufferEntry[]): BufferEntry[] {
  const out: BufferEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < older.length && j < newer.length) {
    const c = compareEntries(older[i]!, newer[j]!);
    if (c < 0) out.push(older[i++]!);
    else if (c > 0) out.push(newer[j++]!);
    else {
      out.push(newer[j++]!);
      i++;
    }
  }
  while (i < older.length) out.push(older[i++]!);
  while (j < newer.length) out.push(newer[j++]!);
  return out;
}
