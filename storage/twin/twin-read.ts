// Reads of a table's Arrow twin, at one `now`, for the columnar path: every committed segment (its live rows:
// deletion vector and `_expires`, narrowed to the token range) and the buffer's changed rows, read through the row
// store so they are exactly what the row path sees. The only way up to the twin's key layout and buffer records.

import type { Data } from 'apache-arrow';
import { META_COLUMN_ID, META_EMPTY_VALUES } from '../arrow/arrow-schema.js';
import { intersect, liveRows, type RowMask, wordCount } from '../arrow/row-mask.js';
import type { OpenSegment } from '../arrow/segment-reader.js';
import { tokenToSortableBytes } from '../murmur3-token.js';
import { deserializePartitionKey } from '../partition-key.js';
import type { Projection, ReadRow } from '../row-projection.js';
import { tokenOfMapKey } from '../table-layout.js';
import type { LiveSegment } from './live-segment.js';
import type { TableTwin } from './table-twin.js';
import { isBufferDeletion, splitTwinKey } from './twin-keys.js';
import { TwinRowSource } from './twin-row-source.js';

/** Thrown when the twin holds something only the row store tells exactly (empty values); read the rows instead. */
export class TwinCannotAnswer extends Error {}

export interface TokenBounds {
  start?: { token: bigint; inclusive: boolean } | undefined;
  end?: { token: bigint; inclusive: boolean } | undefined;
}

export interface SegmentView {
  readonly segment: LiveSegment;
  readonly data: OpenSegment;
  readonly rows: number;
  /** First and one-past-last row inside the token bounds. */
  readonly from: number;
  readonly to: number;
  /** Live rows within [from, to) (null: every row). */
  readonly sel: RowMask;
  /** The column's data in this segment (undefined: the segment predates the column: all null). */
  column(columnId: number): Data | undefined;
  /** Token of row i as (high int32, low uint32) halves, for cheap comparisons. */
  readonly tokens: Int32Array;
}

const fieldMaps = new WeakMap<OpenSegment, Map<number, number>>();

function fieldOfColumn(data: OpenSegment): Map<number, number> {
  let m = fieldMaps.get(data);
  if (!m) {
    m = new Map();
    data.table.schema.fields.forEach((f, i) => {
      const id = f.metadata.get(META_COLUMN_ID);
      if (id !== undefined) m!.set(Number(id), i);
    });
    fieldMaps.set(data, m);
  }
  return m;
}

/** First row whose token is >= t (or > t when `after`), in a segment sorted by token. */
function lowerBound(tokens: BigInt64Array, n: number, t: bigint, after: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = tokens[mid]!;
    if (v < t || (after && v === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function rangeMask(n: number, from: number, to: number): Int32Array {
  const w = new Int32Array(wordCount(n));
  for (let i = from; i < to; ) {
    if ((i & 31) === 0 && i + 32 <= to) {
      w[i >>> 5] = -1;
      i += 32;
    } else {
      w[i >>> 5]! |= 1 << (i & 31);
      i++;
    }
  }
  return w;
}

/** Views of every segment with rows in the bounds. `needed`: column ids whose empties the kernels cannot see. */
export function segmentViews(
  twin: TableTwin,
  nowInSeconds: number,
  bounds: TokenBounds,
  needed: readonly number[],
): SegmentView[] {
  const out: SegmentView[] = [];
  for (const segment of twin.segments()) {
    const rec = segment.record;
    if (
      bounds.start &&
      (bounds.start.inclusive ? rec.lastToken < bounds.start.token : rec.lastToken <= bounds.start.token)
    )
      continue;
    if (bounds.end && (bounds.end.inclusive ? rec.firstToken > bounds.end.token : rec.firstToken >= bounds.end.token))
      continue;
    const data = segment.open();
    const batch = data.batch;
    if (!batch) continue;
    const fields = fieldOfColumn(data);
    for (const id of needed) {
      const f = fields.get(id);
      // Fixed-width columns store empty values as null: only the row path tells them apart.
      if (f !== undefined && data.table.schema.fields[f]!.metadata.has(META_EMPTY_VALUES)) {
        throw new TwinCannotAnswer('empty values');
      }
    }
    const n = data.length;
    const tokenData = batch.data.children[0]!;
    const tokens = tokenData.values as BigInt64Array;
    const from = bounds.start ? lowerBound(tokens, n, bounds.start.token, !bounds.start.inclusive) : 0;
    const to = bounds.end ? lowerBound(tokens, n, bounds.end.token, bounds.end.inclusive) : n;
    if (from >= to) continue;
    const expires = batch.data.children[batch.data.children.length - 1]!;
    let sel = liveRows(n, segment.deletions(), expires, nowInSeconds);
    if (from > 0 || to < n) sel = intersect(sel, rangeMask(n, from, to));
    out.push({
      segment,
      data,
      rows: n,
      from,
      to,
      sel,
      column: (id) => {
        const f = fields.get(id);
        return f === undefined ? undefined : batch.data.children[f];
      },
      tokens: new Int32Array(tokens.buffer, tokens.byteOffset, 2 * n),
    });
  }
  return out;
}

export interface BufferRow {
  readonly token: bigint;
  /** Serialized partition key. */
  readonly key: Buffer;
  readonly partitionKey: Buffer[];
  readonly row: ReadRow;
}

/**
 * The buffer's live rows within the bounds (after `resume` = [token, key] exclusive, when given), in twin key
 * order, read from the row store with `projection`; stops after `limit` live rows.
 */
export function bufferRows(
  twin: TableTwin,
  projection: Projection,
  nowInSeconds: number,
  bounds: TokenBounds,
  pkCount: number,
  /** Returns false to stop. */
  visit: (r: BufferRow) => unknown,
  resume?: { token: bigint; key: Buffer },
): void {
  const source = new TwinRowSource(twin.table);
  let start: Buffer | undefined;
  if (resume) {
    start = tokenToSortableBytes(resume.token);
  } else if (bounds.start) {
    start = tokenToSortableBytes(bounds.start.token);
  }
  const view = twin.buffer.sortedView();
  for (let i = start ? twin.buffer.lowerBound(view, start) : 0; i < view.length; i++) {
    const entry = view[i]!;
    const value = entry.value;
    if (isBufferDeletion(value)) continue;
    const { mapKey, rowKey } = splitTwinKey(entry.key);
    const token = tokenOfMapKey(mapKey);
    if (bounds.start && (bounds.start.inclusive ? token < bounds.start.token : token <= bounds.start.token)) continue;
    if (bounds.end && (bounds.end.inclusive ? token > bounds.end.token : token >= bounds.end.token)) return;
    const key = mapKey.subarray(8);
    if (resume && (token < resume.token || (token === resume.token && Buffer.compare(key, resume.key) <= 0))) continue;
    const ref = source.fromBuffer(mapKey, rowKey, value);
    if (!ref) continue;
    const row = projection.project(ref.buf, ref.offset, ref.clustering, ref.shadowTs, nowInSeconds);
    if (!row) continue;
    if (visit({ token, key, partitionKey: deserializePartitionKey(key, pkCount), row }) === false) return;
  }
}
