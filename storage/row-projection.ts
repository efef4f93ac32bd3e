// The read hot path: from a stored row's bytes straight to the selected columns' live values, skipping the
// bodies of columns nobody asked for once the row is known to be live. Values are subarrays (no copies).

import type { DeletionTime } from './mutation.js';
import { NO_DELETION_TIME } from './mutation.js';
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
  readClusteringValues,
} from './row-codec.js';
import type { Timestamp } from './timestamp.js';

/** A non-frozen collection / UDT column's live elements, in path order. */
export interface ComplexValue {
  readonly paths: Buffer[];
  readonly values: Buffer[];
  /** Present when metadata was asked for. */
  readonly writetimes?: Timestamp[];
  /** Remaining seconds to live, null when not expiring. */
  readonly ttls?: (number | null)[];
}

export type ColumnValue = Buffer | ComplexValue | null;

export interface ReadRow {
  /** Byte-comparable clustering (empty for the static row); also the paging position within a partition. */
  readonly clustering: Buffer;
  readonly clusteringValues: Buffer[];
  /** Aligned with the requested column ids; null when the column has no live value. */
  readonly values: ColumnValue[];
  /** Simple columns' writetime / remaining ttl (when metadata was asked for), aligned with values. */
  readonly writetimes?: (Timestamp | null)[];
  readonly ttls?: (number | null)[];
}

const NO_CLUSTERING: Buffer[] = [];
const EMPTY = Buffer.alloc(0);

/** shadowTs of a row no deletion covers. */
export const NO_SHADOW = Number.NEGATIVE_INFINITY;

/** The timestamp `project` wants from an optional deletion. */
export function shadowTsOf(d: DeletionTime | undefined): Timestamp {
  return d ? d.ts : NO_SHADOW;
}

/** A column selection compiled once per query. */
export class Projection {
  private readonly slotOf: Int32Array;
  private readonly reader = new ByteReader(EMPTY, 0);

  constructor(
    readonly columns: readonly number[],
    readonly withMetadata = false,
  ) {
    let max = -1;
    for (const c of columns) if (c > max) max = c;
    this.slotOf = new Int32Array(max + 1).fill(-1);
    columns.forEach((c, i) => {
      this.slotOf[c] = i;
    });
  }

  private slot(column: number): number {
    return column < this.slotOf.length ? this.slotOf[column]! : -1;
  }

  /**
   * Projects the row stored in buf[offset..] as of `nowInSeconds`; `shadowTs` is the timestamp of the partition
   * deletion / range tombstones covering it (NO_SHADOW: none). Undefined when the row is not live (no live
   * liveness info, no live cell).
   */
  project(
    buf: Buffer,
    offset: number,
    clustering: Buffer,
    shadowTs: Timestamp,
    nowInSeconds: number,
  ): ReadRow | undefined {
    const r = this.reader;
    r.reset(buf, offset);
    // The row prefix, parsed inline: this runs once per row read, so no objects for liveness / deletion.
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
    let clusteringAt = 0;
    if (rowFlags & ROW_CLUSTERING) {
      clusteringAt = r.pos;
      const count = r.varint();
      for (let i = 0; i < count; i++) {
        const len = r.varint();
        r.pos += len;
      }
    }
    let live = (rowFlags & ROW_LIVENESS) !== 0 && lts > dts && (lttl === 0 || nowInSeconds < lexpiry);

    const n = this.columns.length;
    const meta = this.withMetadata;
    const values: ColumnValue[] = new Array(n).fill(null);
    const writetimes: (Timestamp | null)[] | undefined = meta ? new Array(n).fill(null) : undefined;
    const ttls: (number | null)[] | undefined = meta ? new Array(n).fill(null) : undefined;

    while (r.pos < buf.length) {
      const column = r.varint();
      const len = r.varint();
      const end = r.pos + len;
      const slot = this.slot(column);
      if (slot < 0 && live) {
        r.pos = end;
        continue;
      }
      const flags = buf[r.pos]!;
      if (!(flags & CELL_COMPLEX)) {
        r.pos++;
        const ts = r.i64();
        if (!(flags & CELL_TOMBSTONE) && ts > dts) {
          let cellLive = true;
          let ttl = 0;
          let expiry = NO_DELETION_TIME;
          if (flags & CELL_EXPIRING) {
            ttl = r.u32();
            expiry = r.u32();
            cellLive = nowInSeconds < expiry;
          }
          if (cellLive) {
            live = true;
            if (slot >= 0) {
              values[slot] = buf.subarray(r.pos, end);
              if (meta) {
                writetimes![slot] = ts;
                ttls![slot] = ttl === 0 ? null : expiry - nowInSeconds;
              }
            }
          }
        }
        r.pos = end;
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
      let wts: Timestamp[] | undefined;
      let cttls: (number | null)[] | undefined;
      while (r.pos < end) {
        const pathLen = r.varint();
        const pathAt = r.pos;
        r.pos += pathLen;
        const cellLen = r.varint();
        const cellEnd = r.pos + cellLen;
        const cf = r.u8();
        const ts = r.i64();
        if (cf & CELL_TOMBSTONE || ts <= cdts) {
          r.pos = cellEnd;
          continue;
        }
        let ttl = 0;
        let expiry = NO_DELETION_TIME;
        if (cf & CELL_EXPIRING) {
          ttl = r.u32();
          expiry = r.u32();
          if (nowInSeconds >= expiry) {
            r.pos = cellEnd;
            continue;
          }
        }
        live = true;
        if (slot < 0) {
          r.pos = end; // the row is live now: the rest of an unselected column does not matter
          break;
        }
        if (!paths) {
          paths = [];
          vals = [];
          if (meta) {
            wts = [];
            cttls = [];
          }
        }
        paths.push(buf.subarray(pathAt, pathAt + pathLen));
        vals!.push(buf.subarray(r.pos, cellEnd));
        if (meta) {
          wts!.push(ts);
          cttls!.push(ttl === 0 ? null : expiry - nowInSeconds);
        }
        r.pos = cellEnd;
      }
      r.pos = end;
      if (slot >= 0 && paths) {
        values[slot] = meta ? { paths, values: vals!, writetimes: wts!, ttls: cttls! } : { paths, values: vals! };
      }
    }
    if (!live) return undefined;
    const clusteringValues = clusteringAt ? readClusteringValues(buf, clusteringAt) : NO_CLUSTERING;
    return meta ? { clustering, clusteringValues, values, writetimes, ttls } : { clustering, clusteringValues, values };
  }
}
