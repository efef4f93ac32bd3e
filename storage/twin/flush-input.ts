// The rows a flush turns into a segment, as the segment assembler reads them: per row of the buffer view (in its
// order), where its twin key and stored bytes are, in the record arena's slabs (record-arena.ts): a buffer entry's
// key and value are in its record; a row the buffer only marks ("read the row store") is copied from the row store
// into the arena. Nothing else is needed, so the assembler can run in the flush thread (flush-thread.ts), reading
// the rows where they are, while the main thread (which owns the pool) serves requests.
//
// A slice holds ROW_FIELDS numbers per row in `meta`: kind, key slab, key start, key end, row slab, row start, row
// end (offsets within the slab), shadow timestamp; and the slabs it names that earlier slices of the flush did not.

import type { FlushView } from './flush-view.js';
import { type RecordArena, SlabNames, slabIdOf } from './record-arena.js';
import { isBufferMarkerAt, splitTwinKey } from './twin-keys.js';
import type { TwinRowSource } from './twin-row-source.js';

export const ROW_FIELDS = 8;
/** Deleted in the buffer, or gone from the row store: not in the segment. */
export const ROW_DROPPED = 0;
/** An unclustered table's buffer value as stored: the partition header (its deletion), then the row. */
export const ROW_PARTITION = 1;
/** The row's bytes; the shadow timestamp (partition deletion, range tombstones covering it) comes with it. */
export const ROW_RESOLVED = 2;

export interface FlushSlice {
  readonly rows: number;
  readonly meta: Float64Array;
  /** [slab id, slab] for each slab first named by this slice (shared with the flush thread, not copied). */
  readonly slabs: readonly (readonly [number, SharedArrayBuffer])[];
}

/** Describes buffer view entries slice by slice, reading the row store where the buffer says to. */
export class FlushInputWriter {
  private readonly slabs = new SlabNames();
  /** describePartitions: the slab of each record of the view it was last given. */
  private recordsSeen: readonly Buffer[] | undefined;
  private recordSlab = new Float64Array(0);

  constructor(
    private readonly source: TwinRowSource,
    private readonly clustered: boolean,
    /** Where rows read from the row store are copied to (the table's buffer's arena). */
    private readonly arena: RecordArena,
  ) {}

  /** View rows [from, to) as one slice. */
  slice(view: FlushView, from: number, to: number): FlushSlice {
    const n = to - from;
    const meta = new Float64Array(n * ROW_FIELDS);
    if (view.offsets && !this.clustered) this.describePartitions(view, from, n, meta);
    else this.describe(view, from, n, meta, 0);
    return { rows: n, meta, slabs: this.slabs.take() };
  }

  /**
   * An unclustered table's rows from the thread's offsets: each buffer value is the row as stored, described
   * straight from the offset arrays (a few typed-array reads a row; the general path below costs ~5x as much,
   * and this runs on the event loop for every row of a flush). Markers ("read the row store") take that path.
   */
  private describePartitions(view: FlushView, from: number, n: number, meta: Float64Array): void {
    const o = view.offsets!;
    const records = view.records;
    if (this.recordsSeen !== records) {
      this.recordsSeen = records;
      this.recordSlab = Float64Array.from(records, (r) => this.slabs.name(r));
    }
    const slab = this.recordSlab;
    for (let i = 0; i < n; i++) {
      const v = from + i;
      const valueAt = o.valueAt[v]!;
      const valueEnd = o.valueEnd[v]!;
      if (valueEnd === valueAt) continue; // ROW_DROPPED: deleted
      const r = o.rec[v]!;
      const rec = records[r]!;
      if (isBufferMarkerAt(rec, valueAt, valueEnd)) {
        this.describe(view, v, 1, meta, i * ROW_FIELDS);
        continue;
      }
      const base = rec.byteOffset;
      describePartition(
        meta,
        i * ROW_FIELDS,
        slab[r]!,
        base + o.keyAt[v]!,
        base + o.keyEnd[v]!,
        base + valueAt,
        base + valueEnd,
      );
    }
  }

  /** View rows [from, from + n) into meta from index `at` on. */
  private describe(view: FlushView, from: number, n: number, meta: Float64Array, at: number): void {
    for (let i = 0; i < n; i++) {
      const v = from + i;
      const m = at + i * ROW_FIELDS;
      const valueAt = view.valueAt(v);
      const valueEnd = view.valueEnd(v);
      if (valueEnd === valueAt) continue; // ROW_DROPPED: deleted
      const rec = view.recordOf(v);
      const keySlab = this.slabs.name(rec);
      const base = rec.byteOffset;
      const keyAt = base + view.keyAt(v);
      const keyEnd = base + view.keyEnd(v);
      if (!this.clustered && !isBufferMarkerAt(rec, valueAt, valueEnd)) {
        describePartition(meta, m, keySlab, keyAt, keyEnd, base + valueAt, base + valueEnd);
        continue;
      }
      meta[m + 1] = keySlab;
      meta[m + 2] = keyAt;
      meta[m + 3] = keyEnd;
      const parts = splitTwinKey(view.key(v));
      const ref = this.source.fromBuffer(parts.mapKey, parts.rowKey, rec.subarray(valueAt, valueEnd));
      if (!ref) continue;
      // A row read from the row store is copied into the arena; a buffer value is where it is.
      const row = slabIdOf(ref.buf) !== 0 ? ref.buf : this.arena.copy(ref.buf, ref.offset);
      const rowAt = row === ref.buf ? row.byteOffset + ref.offset : row.byteOffset;
      meta[m] = ROW_RESOLVED;
      meta[m + 4] = this.slabs.name(row);
      meta[m + 5] = rowAt;
      meta[m + 6] = row.byteOffset + row.length;
      // The arena's row descriptions are doubles: a timestamp beyond 2^53 is rounded (the row path is exact).
      meta[m + 7] = Number(ref.shadowTs);
    }
  }
}

/**
 * Row meta[m]: an unclustered table's buffer value, the row as stored in the same slab as its key (offsets within
 * the slab).
 */
function describePartition(
  meta: Float64Array,
  m: number,
  slab: number,
  keyAt: number,
  keyEnd: number,
  valueAt: number,
  valueEnd: number,
): void {
  meta[m] = ROW_PARTITION;
  meta[m + 1] = slab;
  meta[m + 2] = keyAt;
  meta[m + 3] = keyEnd;
  meta[m + 4] = slab;
  meta[m + 5] = valueAt;
  meta[m + 6] = valueEnd;
}
