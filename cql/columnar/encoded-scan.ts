// Columnar scans (whose selection is always a list of plain columns) written straight into the ROWS body's `[bytes]`
// cells: the same rows in the same order as columnarScan + Selection.project (segments' live rows and the buffer
// rows merged by token and key, filtered, the same paging positions), without a Buffer per value or an object per
// row.

import { WireCells } from '../../storage/arrow/wire-cells.js';
import type { Selection } from '../selection/selection.js';
import { bindFilters, filtered } from './columnar-aggregate.js';
import { bufferCandidates, type ScanContext } from './columnar-scan.js';
import { segmentViews } from './columnar-sources.js';
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

export function encodedScan(c: ScanContext, outputs: readonly number[]): EncodedScan {
  const table = c.plan.table;
  const ids = c.plan.regularColumns.map((i) => table.columns[i]!.id);
  // Filters (numeric comparisons) narrow each segment's live rows with the aggregates' kernels, and test buffer
  // rows with the row path's predicates.
  const filters = bindFilters(c.plan, c.values);
  const cursors = segmentViews(c.twin, c.nowInSeconds, c.bounds, ids)
    .map((v) => (filters.length === 0 ? v : { ...v, sel: filtered(v, filters) }))
    .map((v) => new SegmentRowCursor(v, table, outputs, c.resume))
    .filter((cur) => cur.head >= 0);
  const buffered = bufferCandidates(c, filters.length === 0 ? acceptAll : (row) => filters.every((f) => f.test(row)));
  const bufHi = buffered.map((b) => Number(BigInt.asIntN(32, b.token >> 32n)));
  const bufLo = buffered.map((b) => Number(BigInt.asUintN(32, b.token)));

  const out = new WireCells(Math.min(c.want, 10_000) * ROW_BYTES_GUESS);
  let count = 0;
  let bi = 0;
  // The last row written: a cursor's row, or (lastCursor undefined) buffered[lastRow]; no object per row.
  let lastCursor: SegmentRowCursor | undefined;
  let lastRow = -1;
  // The cursors form a binary min-heap on their head rows: ~2 log2(segments) comparisons a row instead of one per
  // segment (16 segments per million rows).
  const heap = cursors;
  for (let k = (heap.length >>> 1) - 1; k >= 0; k--) siftDown(heap, k);
  while (count < c.want) {
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
      bi++;
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
  // A full page always carries a paging state, even when nothing follows (the next page is then empty): Cassandra's
  // pager cannot tell either, and the row path does the same.
  const more = count >= c.want;
  let next: EncodedScan['next'];
  if (more && lastRow >= 0) {
    next = lastCursor
      ? { token: lastCursor.tokenAt(lastRow), key: lastCursor.keyAt(lastRow) }
      : { token: buffered[lastRow]!.token, key: buffered[lastRow]!.key };
  }
  return { count, bytes: out.bytes(), next };
}
