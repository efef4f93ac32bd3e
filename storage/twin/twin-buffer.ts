// A table's twin buffer (DESIGN §5's buffer table): the latest state of every row changed since the last flush.
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
import { PoolError } from '../native-pool.js';
import { compareTokenBytes, copyBytes } from './twin-key-compare.js';
import { sortEntries } from './twin-key-sort.js';

/**
 * One entry of a record: the key and value are ranges of the record's bytes (views are made only when asked
 * for: a flush reads every entry, and a view costs more than the rest of handling it).
 */
export class BufferEntry {
  constructor(
    readonly rec: Buffer,
    readonly keyAt: number,
    readonly keyEnd: number,
    readonly valueAt: number,
    readonly valueEnd: number,
  ) {}

  /** The twin row key. */
  get key(): Buffer {
    return this.rec.subarray(this.keyAt, this.keyEnd);
  }

  get value(): Buffer {
    return this.rec.subarray(this.valueAt, this.valueEnd);
  }
}

/** Byte order of two entries' keys. */
export function compareEntries(a: BufferEntry, b: BufferEntry): number {
  const c = compareTokenBytes(a.rec, a.keyAt, b.rec, b.keyAt);
  return c !== 0 ? c : a.rec.compare(b.rec, b.keyAt, b.keyEnd, a.keyAt, a.keyEnd);
}

/** Byte order of an entry's key and `key`. */
function compareEntryWith(e: BufferEntry, key: Buffer): number {
  const c = compareTokenBytes(e.rec, e.keyAt, key, 0);
  return c !== 0 ? c : e.rec.compare(key, 0, key.length, e.keyAt, e.keyEnd);
}

/** Walks a record's entries (`[u32 key length][key][u32 value length][value]`...), by offsets, in order. */
function walkRecord(rec: Buffer, visit: (k0: number, k1: number, v0: number, v1: number) => void): void {
  let at = 0;
  while (at < rec.length) {
    if (at + 4 > rec.length) throw damaged();
    const kl = rec.readUInt32BE(at);
    const k0 = at + 4;
    if (k0 + kl + 4 > rec.length) throw damaged();
    const vl = rec.readUInt32BE(k0 + kl);
    const v0 = k0 + kl + 4;
    if (v0 + vl > rec.length) throw damaged();
    visit(k0, k0 + kl, v0, v0 + vl);
    at = v0 + vl;
  }
}

/** Decodes a record's entries (no views). */
function decodeEntries(rec: Buffer, out: BufferEntry[]): void {
  walkRecord(rec, (k0, k1, v0, v1) => out.push(new BufferEntry(rec, k0, k1, v0, v1)));
}

/** One record of the log: its sequence number, bytes and entry count. */
interface LogRecord {
  readonly seq: number;
  readonly bytes: Buffer;
  readonly entries: number;
}

const SCAN_CHUNK = 1024;
const RECORD_KEY_LENGTH = 8;

function recordKey(seq: number): Buffer {
  const b = Buffer.allocUnsafe(RECORD_KEY_LENGTH);
  b.writeUInt32BE(Math.floor(seq / 0x100000000), 0);
  b.writeUInt32BE(seq >>> 0, 4);
  return b;
}

function seqOfRecordKey(k: Buffer): number {
  return k.readUInt32BE(0) * 0x100000000 + k.readUInt32BE(4);
}

/** Builds one record (one batch's buffer changes) in place. */
export class BufferRecordBuilder {
  private buf = Buffer.allocUnsafe(1024);
  length = 0;
  entries = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  /**
   * Appends the entry of a row: its twin key [token | u16 pk length | pk | row key] is written from the
   * partitions-map key [token | pk] and the row key. Returns a view of the key (valid for this call's use only).
   */
  appendRow(mapKey: Buffer, rowKey: Buffer, value: Buffer): Buffer {
    const pkLen = mapKey.length - 8;
    const kl = 10 + pkLen + rowKey.length;
    this.reserve(8 + kl + value.length);
    const b = this.buf;
    const at = this.length;
    b.writeUInt32BE(kl, at);
    const k0 = at + 4;
    copyBytes(mapKey, b, k0, 0, 8);
    b[k0 + 8] = pkLen >>> 8;
    b[k0 + 9] = pkLen & 0xff;
    copyBytes(mapKey, b, k0 + 10, 8);
    copyBytes(rowKey, b, k0 + 10 + pkLen);
    this.finish(k0 + kl, value);
    return b.subarray(k0, k0 + kl);
  }

  /** Appends a copy of another record's entry. */
  appendEntry(e: BufferEntry): void {
    const kl = e.keyEnd - e.keyAt;
    const vl = e.valueEnd - e.valueAt;
    this.reserve(8 + kl + vl);
    const b = this.buf;
    b.writeUInt32BE(kl, this.length);
    copyBytes(e.rec, b, this.length + 4, e.keyAt, e.keyEnd);
    const at = this.length + 4 + kl;
    b.writeUInt32BE(vl, at);
    copyBytes(e.rec, b, at + 4, e.valueAt, e.valueEnd);
    this.length = at + 4 + vl;
    this.entries++;
  }

  append(key: Buffer, value: Buffer): void {
    this.reserve(8 + key.length + value.length);
    this.buf.writeUInt32BE(key.length, this.length);
    copyBytes(key, this.buf, this.length + 4);
    this.finish(this.length + 4 + key.length, value);
  }

  private finish(at: number, value: Buffer): void {
    const b = this.buf;
    b.writeUInt32BE(value.length, at);
    copyBytes(value, b, at + 4);
    this.length = at + 4 + value.length;
    this.entries++;
  }

  /** The entries so far (views of the builder's bytes). */
  visitEntries(visit: (key: Buffer, value: Buffer) => void): void {
    decodeBufferRecord(this.buf.subarray(0, this.length), visit);
  }

  /** The record's bytes (a copy sized to fit: the builder's buffer is mostly slack). */
  bytes(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.length));
  }

  clear(): void {
    this.length = 0;
    this.entries = 0;
  }
}

/** The entries of a record, as views of its bytes, in order. */
export function decodeBufferRecord(rec: Buffer, visit: (key: Buffer, value: Buffer) => void): void {
  walkRecord(rec, (k0, k1, v0, v1) => visit(rec.subarray(k0, k1), rec.subarray(v0, v1)));
}

function encodeEntries(entries: readonly { readonly key: Buffer; readonly value: Buffer }[]): Buffer {
  const b = new BufferRecordBuilder();
  for (const e of entries) b.append(e.key, e.value);
  return b.bytes();
}

function damaged(): PoolError {
  return new PoolError('POOL_CORRUPT', 'an Arrow twin buffer record is damaged');
}

export class TwinBuffer {
  /** Committed records, oldest first (an entry of a later record replaces one of an earlier record). */
  private records: LogRecord[] = [];
  private nextSeq = 1;
  /** Entries in the records (a row written twice counts twice): the flush threshold. */
  entryCount = 0;
  /** Latest entry per key, sorted by key, covering the first `viewRecords` records; undefined: not built. */
  private view: BufferEntry[] | undefined;
  private viewRecords = 0;
  private loaded = false;

  constructor(
    private readonly pool: NativePool,
    private readonly map: MapHandle,
  ) {}

  /** Replays the log (first use); converts an old pool's per-row entries into one record. */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const old: { key: Buffer; value: Buffer }[] = [];
    let start: Buffer | undefined;
    for (;;) {
      const res = this.pool.scan(this.map, { start, startInclusive: false, limit: SCAN_CHUNK });
      for (let i = 0; i < res.keys.length; i++) {
        const k = res.keys[i]!;
        const v = res.values[i]!;
        if (k.length === RECORD_KEY_LENGTH) {
          let n = 0;
          decodeBufferRecord(v, () => n++);
          this.addRecord({ seq: seqOfRecordKey(k), bytes: v, entries: n });
        } else {
          old.push({ key: k, value: v });
        }
      }
      if (res.keys.length < SCAN_CHUNK) break;
      start = res.keys[res.keys.length - 1];
    }
    if (old.length > 0) {
      // Old entries and records never coexist (this conversion is one transaction).
      const batch = this.pool.batch();
      for (const e of old) batch.del(this.map, e.key);
      const seq = this.nextSeq;
      const bytes = encodeEntries(old);
      batch.put(this.map, recordKey(seq), bytes);
      this.pool.apply(batch);
      this.addRecord({ seq, bytes, entries: old.length });
    }
  }

  private addRecord(r: LogRecord): void {
    this.records.push(r);
    if (r.seq >= this.nextSeq) this.nextSeq = r.seq + 1;
    this.entryCount += r.entries;
  }

  /** The latest entry of every buffered row (deletions included), sorted by key. Shared: do not modify. */
  sortedView(): readonly BufferEntry[] {
    this.load();
    if (this.view && this.viewRecords === this.records.length) return this.view;
    const fresh = collect(this.records, this.view ? this.viewRecords : 0);
    this.view = this.view ? mergeNewer(this.view, fresh) : fresh;
    this.viewRecords = this.records.length;
    return this.view;
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
    const bytes = record.bytes();
    const entries = record.entries;
    const seq = this.nextSeq++;
    batch.put(this.map, recordKey(seq), bytes);
    return () => this.addRecord({ seq, bytes, entries });
  }

  /** TRUNCATE (the batch clears the map): empties the buffer once committed. */
  truncated(): void {
    this.records = [];
    this.entryCount = 0;
    this.view = undefined;
    this.viewRecords = 0;
  }

  /** The newest committed record's sequence number (0: none): a flush consumes the records up to it. */
  get lastSeq(): number {
    this.load();
    return this.records.length === 0 ? 0 : this.records[this.records.length - 1]!.seq;
  }

  /** Entries of the records after `seq` (rows written since a flush started), sorted by key, duplicates kept. */
  entriesAfter(seq: number): BufferEntry[] {
    this.load();
    const out: BufferEntry[] = [];
    for (const r of this.records) if (r.seq > seq) decodeEntries(r.bytes, out);
    return sortEntries(out);
  }

  /**
   * A flush that read the records up to `upTo`: stages their deletion and one record with `survivors` (rows it
   * leaves buffered that no later record rewrites); returns what to run once the batch commits.
   */
  stageFlush(batch: WriteBatch, upTo: number, survivors: readonly BufferEntry[]): () => void {
    this.load();
    for (const r of this.records) if (r.seq <= upTo) batch.del(this.map, recordKey(r.seq));
    let kept: LogRecord | undefined;
    if (survivors.length > 0) {
      const b = new BufferRecordBuilder();
      for (const e of survivors) b.appendEntry(e);
      kept = { seq: this.nextSeq++, bytes: b.bytes(), entries: survivors.length };
      batch.put(this.map, recordKey(kept.seq), kept.bytes);
    }
    return () => {
      // The survivors share no key with the newer records, so their place in the order does not matter.
      const newer = this.records.filter((r) => r.seq > upTo);
      this.records = kept ? [kept, ...newer] : newer;
      this.entryCount = 0;
      for (const r of this.records) this.entryCount += r.entries;
      this.view = undefined;
      this.viewRecords = 0;
    };
  }

  /** Records in the log (tests, checks). */
  get recordCount(): number {
    this.load();
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
  const all: BufferEntry[] = [];
  for (let r = from; r < records.length; r++) decodeEntries(records[r]!.bytes, all);
  return latestPerKey(sortEntries(all));
}

/** Of each run of equal keys (in write order, as a stable sort leaves them), the last entry. */
function latestPerKey(sorted: BufferEntry[]): BufferEntry[] {
  const out: BufferEntry[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const e = sorted[i]!;
    if (i + 1 < sorted.length && compareEntries(sorted[i + 1]!, e) === 0) continue;
    out.push(e);
  }
  return out;
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

function lowerBound(view: readonly BufferEntry[], key: Buffer): number {
  let lo = 0;
  let hi = view.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntryWith(view[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
