// What a flush needs of one stored row, read in place: each selected column's live value as a byte range of the
// row (simple columns) or its live elements (non-frozen collections / UDTs), the row's write time, and whether
// every live part expires at the same second. Same liveness rules as Projection.project (the row path), which the
// flush used before: this reader makes no value views and no per-row arrays (a flush reads every buffered row,
// and those objects were most of its cost). checkTwin compares the flushed values with the row path's.

import {
  ByteReader,
  CELL_COMPLEX,
  CELL_EXPIRING,
  CELL_TOMBSTONE,
  COMPLEX_DELETED,
  ROW_CLUSTERING,
  ROW_DELETION,
  ROW_LIVENESS,
  ROW_LIVENESS_EXPIRING,
} from '../row-codec.js';
import type { ComplexValue } from '../row-projection.js';
import type { Timestamp } from '../timestamp.js';

const EMPTY = Buffer.alloc(0);

export class FlushRowReader {
  /** Per selected column: the live value's range in the row's buffer (start -1: none), or its complex value. */
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly complex: (ComplexValue | undefined)[];
  /** Offset of the clustering values block (0: none). */
  clusteringAt = 0;
  /** Largest timestamp of the live liveness info / selected cells (µs); -Infinity: none. */
  writetime: Timestamp = Number.NEGATIVE_INFINITY;
  /** The second every live part expires at (-1: none expires). */
  expiry = -1;
  /** Some live part never expires. */
  permanent = false;
  /** Live parts expire at different seconds. */
  mixed = false;
  private readonly slotOf: Int32Array;
  private readonly reader = new ByteReader(EMPTY, 0);

  /** `columns`: the selected column ids, in slot order. */
  constructor(readonly columns: readonly number[]) {
    let max = -1;
    for (const c of columns) if (c > max) max = c;
    this.slotOf = new Int32Array(max + 1).fill(-1);
    columns.forEach((c, i) => {
      this.slotOf[c] = i;
    });
    this.starts = new Int32Array(columns.length);
    this.ends = new Int32Array(columns.length);
    this.complex = new Array(columns.length).fill(undefined);
  }

  private note(expiry: number, ts: Timestamp): void {
    if (expiry < 0) this.permanent = true;
    else {
      if (this.expiry >= 0 && expiry !== this.expiry) this.mixed = true;
      this.expiry = expiry;
    }
    if (ts > this.writetime) this.writetime = ts;
  }

  /**
   * Reads the row stored in buf[offset, end) as of `now` (seconds); `shadowTs` is the timestamp of the partition
   * deletion / range tombstones covering it. False when the row is not live.
   */
  read(buf: Buffer, offset: number, end: number, shadowTs: Timestamp, now: number): boolean {
    const n = this.columns.length;
    this.starts.fill(-1);
    for (let s = 0; s < n; s++) this.complex[s] = undefined;
    this.clusteringAt = 0;
    this.writetime = Number.NEGATIVE_INFINITY;
    this.expiry = -1;
    this.permanent = false;
    this.mixed = false;
    const r = this.reader;
    r.reset(buf, offset);
    const rowFlags = r.u8();
    let lts: Timestamp = 0;
    let lttl = 0;
    let lexpiry = 0;
    if (rowFlags & ROW_LIVENESS) {
      lts = r.i64();
      if (rowFlags & ROW_LIVENESS_EXPIRING) {
        lttl = r.u32();
        lexpiry = r.u32();
      }
    }
    let dts = shadowTs;
    if (rowFlags & ROW_DELETION) {
      const ts = r.i64();
      r.pos += 4;
      if (ts > dts) dts = ts;
    }
    if (rowFlags & ROW_CLUSTERING) {
      this.clusteringAt = r.pos;
      const count = r.varint();
      for (let i = 0; i < count; i++) {
        const len = r.varint(); // before reading pos: varint() moves it
        r.pos += len;
      }
    }
    let live = (rowFlags & ROW_LIVENESS) !== 0 && lts > dts && (lttl === 0 || now < lexpiry);
    if (live) this.note(lttl === 0 ? -1 : lexpiry, lts);

    while (r.pos < end) {
      const column = r.varint();
      const len = r.varint();
      const cellEnd = r.pos + len;
      const slot = column < this.slotOf.length ? this.slotOf[column]! : -1;
      if (slot < 0 && live) {
        r.pos = cellEnd;
        continue;
      }
      const flags = buf[r.pos]!;
      if (!(flags & CELL_COMPLEX)) {
        r.pos++;
        const ts = r.i64();
        if (!(flags & CELL_TOMBSTONE) && ts > dts) {
          let ttl = 0;
          let expiry = 0;
          if (flags & CELL_EXPIRING) {
            ttl = r.u32();
            expiry = r.u32();
          }
          if (!(flags & CELL_EXPIRING) || now < expiry) {
            live = true;
            if (slot >= 0) {
              this.starts[slot] = r.pos;
              this.ends[slot] = cellEnd;
              this.note(ttl === 0 ? -1 : expiry, ts);
            }
          }
        }
        r.pos = cellEnd;
        continue;
      }
      // complex column
      r.pos++;
      let cdts = dts;
      if (flags & COMPLEX_DELETED) {
        const own = r.i64();
        r.pos += 4;
        if (own > cdts) cdts = own;
      }
      let paths: Buffer[] | undefined;
      let vals: Buffer[] | undefined;
      while (r.pos < cellEnd) {
        const pathLen = r.varint();
        const pathAt = r.pos;
        r.pos += pathLen;
        const elementLen = r.varint();
        const elementEnd = r.pos + elementLen;
        const cf = r.u8();
        const ts = r.i64();
        if (cf & CELL_TOMBSTONE || ts <= cdts) {
          r.pos = elementEnd;
          continue;
        }
        let ttl = 0;
        let expiry = 0;
        if (cf & CELL_EXPIRING) {
          ttl = r.u32();
          expiry = r.u32();
          if (now >= expiry) {
            r.pos = elementEnd;
            continue;
          }
        }
        live = true;
        if (slot < 0) {
          r.pos = cellEnd; // the row is live now: the rest of an unselected column does not matter
          break;
        }
        if (!paths) {
          paths = [];
          vals = [];
        }
        paths.push(buf.subarray(pathAt, pathAt + pathLen));
        vals!.push(buf.subarray(r.pos, elementEnd));
        this.note(ttl === 0 ? -1 : expiry, ts);
        r.pos = elementEnd;
      }
      r.pos = cellEnd;
      if (slot >= 0 && paths) this.complex[slot] = { paths, values: vals! };
    }
    return live;
  }
}
