// Buffer rows -> one Arrow RecordBatch sorted as the row store orders rows (token, partition key, clustering),
// serialized as an Arrow IPC file: the immutable segment a flush writes into the pool (DESIGN §5).

import { makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { compareValues } from '../../cql/types/value-comparator.js';
import { META_EMPTY_VALUES, type TwinLayout } from './arrow-schema.js';
import { type ColumnEncoder, columnEncoder } from './cql-column-encoder.js';

/** Column id -> value (CQL bytes; absent or null: no value). A Map fits; so does a view over a stored row. */
export interface CellLookup {
  get(columnId: number): Uint8Array | null | undefined;
}

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
  readonly writetime: number;
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

const TWO_32 = 4294967296;

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
  const fields = layout.schema.fields;
  const tokenHalves = new Int32Array(inputTokens.buffer);
  const token = new Int32Array(2 * n);
  const writetime = new Int32Array(2 * n);
  const expires = new Int32Array(n);
  const expiresValid = new Uint8Array((n + 7) >>> 3);
  let expiresNulls = 0;
  const encoders: ColumnEncoder[] = layout.columns.map((c, k) => columnEncoder(c.type, n, fields[k + 1]!.type));
  const nPk = layout.partitionKey.length;
  const nCk = layout.clustering.length;

  for (let i = 0; i < n; i++) {
    const from = order[i]!;
    const r = rows[from]!;
    token[2 * i] = tokenHalves[2 * from]!;
    token[2 * i + 1] = tokenHalves[2 * from + 1]!;
    const whi = Math.floor(r.writetime / TWO_32);
    writetime[2 * i] = (r.writetime - whi * TWO_32) | 0;
    writetime[2 * i + 1] = whi;
    if (r.expires === null) expiresNulls++;
    else {
      expires[i] = r.expires;
      expiresValid[i >>> 3]! |= 1 << (i & 7);
    }
    let k = 0;
    for (; k < nPk; k++) encoders[k]!.append(r.partitionKey[k]!);
    for (let c = 0; c < nCk; c++, k++) encoders[k]!.append(r.clustering[c] ?? null);
    for (; k < encoders.length; k++) encoders[k]!.append(r.cells.get(layout.columns[k]!.id) ?? null);
  }

  const children = new Array(fields.length);
  children[layout.tokenField] = makeData({
    type: fields[layout.tokenField]!.type,
    length: n,
    nullCount: 0,
    data: new BigInt64Array(token.buffer),
  } as never);
  children[layout.writetimeField] = makeData({
    type: fields[layout.writetimeField]!.type,
    length: n,
    nullCount: 0,
    data: new BigInt64Array(writetime.buffer),
  } as never);
  children[layout.expiresField] = makeData({
    type: fields[layout.expiresField]!.type,
    length: n,
    nullCount: expiresNulls,
    nullBitmap: expiresNulls === 0 ? null : expiresValid,
    data: expires,
  } as never);
  // Field metadata records how many empty values a column had (they are stored as null).
  const outFields = fields.slice();
  for (let k = 0; k < encoders.length; k++) {
    const e = encoders[k]!;
    children[k + 1] = e.finish();
    if (e.empties > 0) {
      const f = fields[k + 1]!;
      outFields[k + 1] = f.clone({ metadata: new Map([...f.metadata, [META_EMPTY_VALUES, String(e.empties)]]) });
    }
  }
  const schema = new Schema(outFields, layout.schema.metadata);
  const structData = makeData({ type: new Struct(outFields), length: n, nullCount: 0, children });
  return { batch: new RecordBatch(schema, structData), order };
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
