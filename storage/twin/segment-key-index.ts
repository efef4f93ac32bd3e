// Which twin row key each row of a segment holds: one pool value
// per segment, written in the flush's transaction, instead of one pointer-map entry per flushed row (a B+-tree
// insert each, ~2 µs a row: most of a flush's commit). A row's columnar copy is live when its key is in some
// segment's index AND its deletion-vector bit is clear; the write path finds it by binary search (behind the
// segment's token Bloom filter), so marking it deleted is the only change an update makes.
//
// Encoding (big-endian): u8 version = 1 | 3 zero bytes | u32 count | u32 row[count] | u32 keyEnd[count] | keys,
// keys sorted in Buffer.compare order (= the buffer map's order), keyEnd[i] = end of key i in the key area.
// An index may hold fewer keys than the segment has rows (built from an old pool's pointer map: rows without a
// pointer were dead already).

import { PoolError } from '../native-pool.js';
import { copyBytes } from './twin-key-compare.js';

const VERSION = 1;
const HEADER = 8;

export class SegmentKeyIndex {
  /** First and second 4 bytes of each key (its sortable token), to compare without touching the key bytes. */
  private readonly hi: Uint32Array;
  private readonly lo: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private readonly rowOfKey: Uint32Array;

  private constructor(
    private readonly bytes: Buffer,
    readonly count: number,
    parts?: KeyIndexParts,
  ) {
    if (parts) {
      ({ hi: this.hi, lo: this.lo, starts: this.starts, ends: this.ends, rows: this.rowOfKey } = parts);
      return;
    }
    const keysAt = HEADER + 8 * count;
    this.hi = new Uint32Array(count);
    this.lo = new Uint32Array(count);
    this.starts = new Uint32Array(count);
    this.ends = new Uint32Array(count);
    this.rowOfKey = new Uint32Array(count);
    let start = keysAt;
    for (let i = 0; i < count; i++) {
      const end = keysAt + bytes.readUInt32BE(HEADER + 4 * count + 4 * i);
      if (end < start + 8 || end > bytes.length) throw corrupt('key bounds');
      this.starts[i] = start;
      this.ends[i] = end;
      this.hi[i] = bytes.readUInt32BE(start);
      this.lo[i] = bytes.readUInt32BE(start + 4);
      this.rowOfKey[i] = bytes.readUInt32BE(HEADER + 4 * i);
      start = end;
    }
  }

  /**
   * The index over `bytes` (what a writer wrote, e.g. its copy in the pool) from the writer's own arrays, maybe
   * handed over by the flush thread: a flush gives its new segment an index ready to search, instead of the write
   * path decoding it on first use.
   */
  static fromParts(bytes: Buffer, parts: KeyIndexParts): SegmentKeyIndex {
    const n = parts.rows.length;
    if (bytes.length < HEADER || bytes.readUInt32BE(4) !== n || (n > 0 && parts.ends[n - 1] !== bytes.length)) {
      throw corrupt('incomplete index');
    }
    return new SegmentKeyIndex(bytes, n, parts);
  }

  /** Encodes `keys` (sorted, Buffer.compare order; each at least the 8 token bytes long) and their segment rows. */
  static encode(keys: readonly Buffer[], rows: ArrayLike<number>): Buffer {
    let keyBytes = 0;
    for (const k of keys) keyBytes += k.length;
    const w = new SegmentKeyIndexWriter(keys.length, keyBytes);
    for (let i = 0; i < keys.length; i++) w.add(keys[i]!, 0, keys[i]!.length, rows[i]!);
    return w.bytes;
  }

  static decode(bytes: Buffer): SegmentKeyIndex {
    if (bytes.length < HEADER || bytes[0] !== VERSION) throw corrupt(`version ${bytes[0]}`);
    const count = bytes.readUInt32BE(4);
    if (HEADER + 8 * count > bytes.length) throw corrupt('count');
    return new SegmentKeyIndex(bytes, count);
  }

  /** Entry i compared with `key` (negative: entry sorts first). */
  private compareAt(i: number, key: Buffer, th: number, tl: number): number {
    const h = this.hi[i]!;
    if (h !== th) return h < th ? -1 : 1;
    const l = this.lo[i]!;
    if (l !== tl) return l < tl ? -1 : 1;
    return this.bytes.compare(key, 0, key.length, this.starts[i]!, this.ends[i]!);
  }

  /** First entry whose key is >= `key` (`key` at least 8 bytes). */
  private lowerBound(key: Buffer): number {
    const th = key.readUInt32BE(0);
    const tl = key.readUInt32BE(4);
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, key, th, tl) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The segment row holding `key`, or -1. */
  rowOf(key: Buffer): number {
    const i = this.lowerBound(key);
    if (i >= this.count || this.compareAt(i, key, key.readUInt32BE(0), key.readUInt32BE(4)) !== 0) return -1;
    return this.rowOfKey[i]!;
  }

  /** Calls `visit` for every entry whose key starts with `prefix` (a partition's twin key prefix), in key order. */
  forPrefix(prefix: Buffer, visit: (key: Buffer, row: number) => void): void {
    const n = prefix.length;
    for (let i = this.lowerBound(prefix); i < this.count; i++) {
      const s = this.starts[i]!;
      if (this.ends[i]! - s < n || this.bytes.compare(prefix, 0, n, s, s + n) !== 0) return;
      visit(this.keyAt(i), this.rowOfKey[i]!);
    }
  }

  keyAt(i: number): Buffer {
    return this.bytes.subarray(this.starts[i]!, this.ends[i]!);
  }

  rowAt(i: number): number {
    return this.rowOfKey[i]!;
  }
}

function corrupt(what: string): PoolError {
  return new PoolError('POOL_CORRUPT', `Arrow segment key index is damaged (${what})`);
}

/** The decoded form of an index: per key, its token halves, byte range and segment row. */
export interface KeyIndexParts {
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  readonly rows: Uint32Array;
}

/** Writes a key index key by key (a background flush spreads it over several steps); `bytes` once all are added. */
export class SegmentKeyIndexWriter {
  readonly bytes: Buffer;
  /** The decoded index, filled as keys are added (SegmentKeyIndex.fromParts). */
  readonly parts: KeyIndexParts;
  private added = 0;
  private at: number;
  private end = 0;

  /** `keyBytes`: the total length of the n keys. */
  constructor(
    readonly n: number,
    keyBytes: number,
  ) {
    this.bytes = Buffer.allocUnsafe(HEADER + 8 * n + keyBytes);
    this.parts = {
      hi: new Uint32Array(n),
      lo: new Uint32Array(n),
      starts: new Uint32Array(n),
      ends: new Uint32Array(n),
      rows: new Uint32Array(n),
    };
    this.put32(VERSION << 24, 0);
    this.put32(n, 4);
    this.at = HEADER + 8 * n;
  }

  private put32(v: number, at: number): void {
    const out = this.bytes;
    out[at] = v >>> 24;
    out[at + 1] = (v >>> 16) & 0xff;
    out[at + 2] = (v >>> 8) & 0xff;
    out[at + 3] = v & 0xff;
  }

  /** Adds the next key (in sorted order), `key[from, to)`, held by segment row `row`. */
  add(key: Uint8Array, from: number, to: number, row: number): void {
    const i = this.added++;
    const n = this.n;
    this.put32(row, HEADER + 4 * i);
    copyBytes(key, this.bytes, this.at, from, to);
    const p = this.parts;
    p.hi[i] = ((key[from]! << 24) | (key[from + 1]! << 16) | (key[from + 2]! << 8) | key[from + 3]!) >>> 0;
    p.lo[i] = ((key[from + 4]! << 24) | (key[from + 5]! << 16) | (key[from + 6]! << 8) | key[from + 7]!) >>> 0;
    p.starts[i] = this.at;
    p.ends[i] = this.at + to - from;
    p.rows[i] = row;
    this.at += to - from;
    this.end += to - from;
    this.put32(this.end, HEADER + 4 * n + 4 * i);
  }

  /** Keys added so far. */
  get count(): number {
    return this.added;
  }
}
