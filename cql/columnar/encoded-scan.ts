// Columnar scans (whose selection is always a list of plain columns) written straight into the ROWS body's `[bytes]`
// cells: the same rows in the same order as columnarScan + Selection.project (segments' live rows and the buffer
// rows merged by token and key, filtered, the same paging positions), without a Buffer per value or an object per
// row.

import { WireCells } from '../../storage/arrow/wire-cells.js';
import { segmentViews } from '../../storage/twin/twin-read.js';
import type { SelectedRow } from '../selection/selected-row.js';
import type { Selection } from '../selection/selection.js';
import { bindFilters, filtered } from './columnar-aggregate.js';
import { bufferCandidates, type Candidate, type ScanContext } from './columnar-scan.js';
import { SegmentRowCursor } from './segment-row-cursor.js';

export interface EncodedScan {
  readonly count: number;
  /** The rows' cells, row after row. */
  readonly bytes: Buffer;
  /** Where the page stopped, when more rows may follow. */
  readonly next: { token: bigint; key: Buffer } | undefined;
}

/**
 * Table column index of each output column of a scan plan (the planner sends a scan here only when every selector
 * is a plain column, so selector k's value is row.values[columns[0]]).
 */
export function scanOutputs(selection: Selection): number[] | undefined {
  const out: number[] = [];
  for (const s of selection.selectors) {
    if (s.aggregate || s.columns.length !== 1) return undefined;
    out.push(s.columns[0]!);
  }
  return out;
}

const acceptAll = () => true;
/** Bytes reserved per row before the first page tells the real size. */
const ROW_BYTES_GUESS = 64;

/** Whether token (ahi, alo) with key thunk a sorts before (bhi, blo) with key thunk b. */
function before(ahi: number, alo: number, akey: () => Buffer, bhi: number, blo: number, bkey: () => Buffer): boolean {
  if (ahi !== bhi) return ahi < bhi;
  if (alo !== blo) return alo < blo;
  return Buffer.compare(akey(), bkey()) < 0;
}

/** Whether cursor a's head row sorts before cursor b's (token, then serialized key). */
function headBefore(a: SegmentRowCursor, b: SegmentRowCursor): boolean {
  if (a.hi !== b.hi) return a.hi < b.hi;
  if (a.lo !== b.lo) return a.lo < b.lo;
  return Buffer.compare(a.keyAt(a.head), b.keyAt(b.head)) < 0;
}

function siftDown(heap: SegmentRowCursor[], at: number): void {
  const n = heap.length;
  let i = at;
  const item = heap[i];
  if (!item) return;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const child = r < n && headBefore(heap[r]!, heap[l]!) ? r : l;
    if (!headBefore(heap[child]!, item)) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = item;
}

/**
 * A scan in progress: the segments' cursors (a binary min-heap on their head rows: ~2 log2(segments) comparisons a
 * row instead of one per segment) and the buffer rows left. A page leaves it where the paging state says, so the
 * next page may continue from it instead of opening every segment again (ScanReadAhead keeps it for that, valid
 * while the twin is unchanged and within the same second).
 */
export class EncodedScanState {
  private readonly heap: SegmentRowCursor[];
  private readonly accept: (row: SelectedRow) => boolean;
  /** Buffer rows after the scan's position, sorted; cut after `want + 1` rows (`bufferMore`: read more then). */
  private buffered: Candidate[] = [];
  private bufHi: number[] = [];
  private bufLo: number[] = [];
  private bufferMore = false;
  private bi = 0;
  /** The last row written (where the next page resumes). */
  private last: { token: bigint; key: Buffer } | undefined;
  /** Bytes per row of the last page (sizes the next page's buffer). */
  private rowBytes = ROW_BYTES_GUESS;

  constructor(
    private readonly c: ScanContext,
    private readonly outputs: readonly number[],
  ) {
    const table = c.plan.table;
    const ids = c.plan.regularColumns.map((i) => table.columns[i]!.id);
    // Filters (numeric comparisons) narrow each segment's live rows with the aggregates' kernels, and test buffer
    // rows with the row path's predicates.
    const filters = bindFilters(c.plan, c.values);
    const heap = segmentViews(c.twin, c.nowInSeconds, c.bounds, ids)
      .map((v) => (filters.length === 0 ? v : { ...v, sel: filtered(v, filters) }))
      .map((v) => new SegmentRowCursor(v, table, outputs, c.resume))
      .filter((cur) => cur.head >= 0);
    for (let k = (heap.length >>> 1) - 1; k >= 0; k--) siftDown(heap, k);
    this.heap = heap;
    this.accept = filters.length === 0 ? acceptAll : (row) => filters.every((f) => f.test(row));
    this.last = c.resume;
    this.readBuffer(c.resume);
  }

  /** The buffer rows after `resume`, up to one more than a page wants. */
  private readBuffer(resume: { token: bigint; key: Buffer } | undefined): void {
    const list = bufferCandidates({ ...this.c, resume }, this.accept);
    this.buffered = list;
    this.bufferMore = list.length > this.c.want;
    this.bufHi = list.map((b) => Number(BigInt.asIntN(32, b.token >> 32n)));
    this.bufLo = list.map((b) => Number(BigInt.asUintN(32, b.token)));
    this.bi = 0;
  }

  /** The next `want` rows. */
  page(want: number): EncodedScan {
    const { heap, outputs } = this;
    const out = new WireCells(Math.min(want, 10_000) * this.rowBytes);
    let count = 0;
    // The last row written: a cursor's row, or (lastCursor undefined) buffered[lastRow]; no object per row.
    let lastCursor: SegmentRowCursor | undefined;
    let lastRow = -1;
    const lastPosition = () =>
      lastRow < 0
        ? this.last
        : lastCursor
          ? { token: lastCursor.tokenAt(lastRow), key: lastCursor.keyAt(lastRow) }
          : { token: this.buffered[lastRow]!.token, key: this.buffered[lastRow]!.key };
    while (count < want) {
      // A continued scan may reach the end of the buffer rows read: read on from the last row written.
      if (this.bi >= this.buffered.length && this.bufferMore) {
        const at = lastPosition();
        lastCursor = undefined;
        lastRow = -1;
        this.last = at;
        this.readBuffer(at);
      }
      const { buffered, bufHi, bufLo } = this;
      const bi = this.bi;
      const best = heap.length > 0 ? heap[0] : undefined;
      // A buffer row goes first unless a segment row sorts strictly before it (as columnarScan's merge).
      if (
        bi < buffered.length &&
        (!best ||
          !before(
            best.hi,
            best.lo,
            () => best.keyAt(best.head),
            bufHi[bi]!,
            bufLo[bi]!,
            () => buffered[bi]!.key,
          ))
      ) {
        const values = buffered[bi]!.row.values;
        for (let o = 0; o < outputs.length; o++) out.bytesCell(values[outputs[o]!] ?? null);
        lastCursor = undefined;
        lastRow = bi;
        this.bi = bi + 1;
      } else if (best) {
        best.write(out);
        lastCursor = best;
        lastRow = best.head;
        best.advance();
        if (best.head < 0) {
          const tail = heap.pop()!;
          if (heap.length > 0) heap[0] = tail;
        }
        siftDown(heap, 0);
      } else {
        break;
      }
      count++;
    }
    if (count > 0) this.rowBytes = Math.max(8, Math.ceil(out.pos / count));
    this.last = lastPosition();
    // A full page always carries a paging state, even when nothing follows (the next page is then empty): Cassandra's
    // pager cannot tell either, and the row path does the same.
    const next = count >= want && lastRow >= 0 ? this.last : undefined;
    return { count, bytes: out.bytes(), next };
  }
}
