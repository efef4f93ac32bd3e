// Buffer rows -> one Arrow RecordBatch sorted as the row store orders rows (token, partition key, clustering),
// serialized as an Arrow IPC file: the immutable segment a flush writes into the pool.

import { type RecordBatch, Table, tableToIPC } from 'apache-arrow';
import { compareValues } from '../../cql/types/value-comparator.js';
import type { Timestamp } from '../timestamp.js';
import type { TwinLayout } from './arrow-schema.js';
import { type CellLookup, SegmentBatchBuilder } from './segment-batch-builder.js';

export type { CellLookup } from './segment-batch-builder.js';

/** One row of a segment, as the buffer table holds it (merged latest version). */
export interface TwinRow {
  readonly token: bigint;
  /** Partition key component values (CQL bytes), in key order. */
  readonly partitionKey: readonly Uint8Array[];
  /** Clustering values (CQL bytes) in clustering order; empty/null for a static-only row. */
  readonly clustering: readonly (Uint8Array | null)[];
  /**
   * Byte-comparable clustering (the row map key, DESC already inverted): orders rows of one partition with memcmp.
   * Without it rows are ordered by comparing the clustering values by type.
   */
  readonly clusteringKey?: Uint8Array | undefined;
  /** Regular and static column values by column id (absent or null: no value). */
  readonly cells: CellLookup;
  /** The row's largest cell/liveness timestamp, microseconds. */
  readonly writetime: Timestamp;
  /** When the whole row expires (seconds since the epoch); null: never. */
  readonly expires: number | null;
}

export interface BuiltSegment {
  readonly batch: RecordBatch;
  /** Row i of the batch is input row order[i] (the flush records (segment, i) for each buffered row). */
  readonly order: Uint32Array;
}

export interface SegmentOptions {
  /** 'file' (default: has a footer, what pyarrow/DuckDB open) or 'stream'. */
  readonly format?: 'file' | 'stream';
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/**
 * The row store's order of one table's rows: token, then partition key bytes, then clustering. `tokens` receives
 * the rows' tokens (input order) as int64.
 */
function sortOrder(layout: TwinLayout, rows: readonly TwinRow[], tokens: BigInt64Array): Uint32Array {
  const n = rows.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    order[i] = i;
    tokens[i] = rows[i]!.token;
  }
  // Compare tokens as (signed high, unsigned low) int32 halves: bigint compares in a sort allocate.
  const halves = new Int32Array(tokens.buffer, tokens.byteOffset, 2 * n);
  const pkSingle = layout.partitionKey.length === 1;
  const ctypes = layout.clustering.map((c) => c.type);
  const cmp = (a: number, b: number): number => {
    const ha = halves[2 * a + 1]!;
    const hb = halves[2 * b + 1]!;
    if (ha !== hb) return ha - hb;
    const la = halves[2 * a]! >>> 0;
    const lb = halves[2 * b]! >>> 0;
    if (la !== lb) return la - lb;
    const ra = rows[a]!;
    const rb = rows[b]!;
    // Same token: the partitions map orders serialized keys with memcmp; a composite key serializes each
    // component as [u16 length][bytes][0], so compare lengths first there.
    for (let k = 0; k < ra.partitionKey.length; k++) {
      const x = ra.partitionKey[k]!;
      const y = rb.partitionKey[k]!;
      if (!pkSingle && x.length !== y.length) return x.length - y.length;
      const c = compareBytes(x, y);
      if (c !== 0) return c;
    }
    if (ra.clusteringKey && rb.clusteringKey) return compareBytes(ra.clusteringKey, rb.clusteringKey);
    for (let k = 0; k < ctypes.length; k++) {
      const x = ra.clustering[k] ?? null;
      const y = rb.clustering[k] ?? null;
      if (x === null || y === null) {
        if (x !== y) return x === null ? -1 : 1; // the static row sorts first
        continue;
      }
      let c = compareValues(ctypes[k]!, x, y);
      if (layout.clustering[k]!.descending) c = -c;
      if (c !== 0) return c;
    }
    return 0;
  };
  // The buffer map is keyed by token, so rows usually arrive sorted: check before sorting.
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) if (cmp(i - 1, i) > 0) sorted = false;
  if (!sorted) order.sort(cmp);
  return order;
}

/** Builds the sorted RecordBatch of `rows` (rows need not be sorted). */
export function buildSegmentBatch(layout: TwinLayout, rows: readonly TwinRow[]): BuiltSegment {
  const n = rows.length;
  const inputTokens = new BigInt64Array(n);
  const order = sortOrder(layout, rows, inputTokens);
  const tokenHalves = new Int32Array(inputTokens.buffer);
  const builder = new SegmentBatchBuilder(layout, n);
  for (let i = 0; i < n; i++) {
    const from = order[i]!;
    const r = rows[from]!;
    builder.append(
      tokenHalves[2 * from + 1]!,
      tokenHalves[2 * from]!,
      r.partitionKey,
      r.clustering,
      r.cells,
      r.writetime,
      r.expires,
    );
  }
  return { batch: builder.finish(), order };
}

/** Serializes a built batch as an Arrow IPC file (or stream). */
export function serializeSegment(segment: BuiltSegment, options: SegmentOptions = {}): Uint8Array {
  return tableToIPC(new Table(segment.batch), options.format ?? 'file');
}

/** buildSegmentBatch + serializeSegment. */
export function buildSegment(
  layout: TwinLayout,
  rows: readonly TwinRow[],
  options: SegmentOptions = {},
): BuiltSegment & { readonly ipc: Uint8Array } {
  const built = buildSegmentBatch(layout, rows);
  return { ...built, ipc: serializeSegment(built, options) };
}
