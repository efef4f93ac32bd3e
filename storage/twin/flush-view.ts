// A flush's snapshot of its table's buffer: the latest entry of every key in the records committed when the flush
// started, sorted by key. Built on the event loop it is the sorted view's entry objects; sorted by the flush thread
// it comes back as offsets into the records (no object per row: making 65 k of them was most of the sort's cost on
// the event loop), and an entry object is made only for the few rows that need one (rows the flush keeps).

import { BufferEntry } from './buffer-entry.js';

/** The thread's answer: per view row, its record (index in the records sent) and ranges, and its token halves. */
export interface SortedOffsets {
  readonly rec: Uint32Array;
  readonly keyAt: Uint32Array;
  readonly keyEnd: Uint32Array;
  readonly valueAt: Uint32Array;
  readonly valueEnd: Uint32Array;
  readonly high: Uint32Array;
  readonly low: Uint32Array;
}

export class FlushView {
  private constructor(
    readonly length: number,
    /** Each row's token as two numbers (the key's first 8 bytes), for binary searches. */
    readonly high: Uint32Array,
    readonly low: Uint32Array,
    private readonly entries: readonly BufferEntry[] | undefined,
    /** Built from the thread's offsets: the records sent, and the offsets (else undefined). */
    readonly records: readonly Buffer[],
    readonly offsets: SortedOffsets | undefined,
  ) {}

  static ofEntries(entries: readonly BufferEntry[], high: Uint32Array, low: Uint32Array): FlushView {
    return new FlushView(entries.length, high, low, entries, [], undefined);
  }

  static ofOffsets(records: readonly Buffer[], offsets: SortedOffsets): FlushView {
    return new FlushView(offsets.rec.length, offsets.high, offsets.low, undefined, records, offsets);
  }

  /** The record holding row i's key and value. */
  recordOf(i: number): Buffer {
    return this.entries ? this.entries[i]!.rec : this.records[this.offsets!.rec[i]!]!;
  }

  keyAt(i: number): number {
    return this.entries ? this.entries[i]!.keyAt : this.offsets!.keyAt[i]!;
  }

  keyEnd(i: number): number {
    return this.entries ? this.entries[i]!.keyEnd : this.offsets!.keyEnd[i]!;
  }

  valueAt(i: number): number {
    return this.entries ? this.entries[i]!.valueAt : this.offsets!.valueAt[i]!;
  }

  valueEnd(i: number): number {
    return this.entries ? this.entries[i]!.valueEnd : this.offsets!.valueEnd[i]!;
  }

  entry(i: number): BufferEntry {
    if (this.entries) return this.entries[i]!;
    return new BufferEntry(this.recordOf(i), this.keyAt(i), this.keyEnd(i), this.valueAt(i), this.valueEnd(i));
  }

  /** Row i's twin key. */
  key(i: number): Buffer {
    return this.recordOf(i).subarray(this.keyAt(i), this.keyEnd(i));
  }
}
