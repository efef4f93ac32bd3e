// One entry of a twin buffer record (twin-buffer.ts) and the byte order of entries' keys.

import { compareTokenBytes } from './twin-key-compare.js';

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
export function compareEntryWith(e: BufferEntry, key: Buffer): number {
  const c = compareTokenBytes(e.rec, e.keyAt, key, 0);
  return c !== 0 ? c : e.rec.compare(key, 0, key.length, e.keyAt, e.keyEnd);
}

/** Index in the sorted `view` of the first entry whose key is >= `key`. */
export function lowerBound(view: readonly BufferEntry[], key: Buffer): number {
  let lo = 0;
  let hi = view.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntryWith(view[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
