// Full-table and token-range scans over the Arrow twin, for tables without clustering columns: the live rows of
// every segment (each sorted by token and key) and the buffer rows, merged in the row store's order (token, then
// serialized partition key), filtered with the row path's own predicates and paged by (token, key) positions.

import type { Data } from 'apache-arrow';
import { cqlBytesAt } from '../../storage/arrow/cql-value-decoder.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import { Projection } from '../../storage/row-projection.js';
import type { TableTwin } from '../../storage/twin/table-twin.js';
import {
  type BufferRow,
  bufferRows,
  type SegmentView,
  segmentViews,
  type TokenBounds,
} from '../../storage/twin/twin-read.js';
import { complexToBytes } from '../execution/complex-value.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import { bindPredicate } from '../restrictions/row-filter.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { isMultiCell } from '../types/cql-type.js';
import { ColumnarDecline } from './columnar-decline.js';
import type { ColumnarPlan } from './columnar-plan.js';

export interface ScanContext {
  readonly plan: ColumnarPlan;
  readonly twin: TableTwin;
  readonly values: readonly BoundValue[];
  readonly nowInSeconds: number;
  readonly bounds: TokenBounds;
  /** Rows wanted in this page (page size and LIMIT). */
  readonly want: number;
  readonly resume: { token: bigint; key: Buffer } | undefined;
}

export interface ScanResult {
  readonly rows: SelectedRow[];
  /** Where the page stopped, when more rows may follow. */
  readonly next: { token: bigint; key: Buffer } | undefined;
}

export interface Candidate {
  token: bigint;
  key: Buffer;
  row: SelectedRow;
}

function before(a: Candidate, b: Candidate): boolean {
  return a.token < b.token || (a.token === b.token && Buffer.compare(a.key, b.key) < 0);
}

/** Walks one segment's live rows in order, materializing a row only when it becomes the segment's head. */
class SegmentCursor {
  private i: number;
  private readonly tokens: BigInt64Array;
  private readonly pkData: Data[];
  private readonly colData: (Data | undefined)[];
  head: Candidate | undefined;

  constructor(
    private readonly view: SegmentView,
    private readonly plan: ColumnarPlan,
    private readonly accept: (row: SelectedRow) => boolean,
    resume: { token: bigint; key: Buffer } | undefined,
  ) {
    const table = plan.table;
    this.tokens = view.data.batch!.data.children[0]!.values as BigInt64Array;
    this.pkData = table.partitionKey.map((c) => view.column(c.id)!);
    this.colData = table.columns.map((c, i) => (plan.regularColumns.includes(i) ? view.column(c.id) : undefined));
    this.i = view.from;
    if (resume) {
      let lo = view.from;
      let hi = view.to;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.tokens[mid]! < resume.token) lo = mid + 1;
        else hi = mid;
      }
      this.i = lo;
      while (this.i < view.to && this.tokens[this.i] === resume.token) {
        if (Buffer.compare(this.keyAt(this.i), resume.key) > 0) break;
        this.i++;
      }
    }
    this.advance();
  }

  private keyAt(i: number): Buffer {
    return serializePartitionKey(this.plan.table.partitionKey.map((c, j) => cqlBytesAt(c.type, this.pkData[j]!, i)!));
  }

  advance(): void {
    const v = this.view;
    const sel = v.sel;
    const table = this.plan.table;
    while (this.i < v.to) {
      const i = this.i++;
      if (sel !== null && !(sel[i >>> 5]! & (1 << (i & 31)))) continue;
      const values: (Buffer | null)[] = new Array(table.columns.length).fill(null);
      const pk: Buffer[] = [];
      for (let c = 0; c < table.columns.length; c++) {
        const col = table.columns[c]!;
        if (col.kind === 'partition_key') {
          const b = cqlBytesAt(col.type, this.pkData[col.position]!, i)!;
          values[c] = b;
          pk[col.position] = b;
        } else {
          const d = this.colData[c];
          if (d) values[c] = cqlBytesAt(col.type, d, i);
        }
      }
      const row: SelectedRow = { values };
      if (!this.accept(row)) continue;
      this.head = { token: this.tokens[i]!, key: serializePartitionKey(pk), row };
      return;
    }
    this.head = undefined;
  }
}

/**
 * The buffer rows that can reach this page, in the row store's order: the buffer is in token order, so its first
 * want + 1 accepted rows are all it can contribute. Values by table column index, as a segment row's.
 */
export function bufferCandidates(c: ScanContext, accept: (row: SelectedRow) => boolean): Candidate[] {
  const { plan, twin } = c;
  const table = plan.table;
  const ids = plan.regularColumns.map((i) => table.columns[i]!.id);
  const buffered: Candidate[] = [];
  const projection = new Projection(ids);
  bufferRows(
    twin,
    projection,
    c.nowInSeconds,
    c.bounds,
    table.partitionKey.length,
    (r: BufferRow) => {
      const values: (Buffer | null)[] = new Array(table.columns.length).fill(null);
      for (let i = 0; i < table.columns.length; i++) {
        const col = table.columns[i]!;
        if (col.kind === 'partition_key') values[i] = r.partitionKey[col.position]!;
        else {
          const slot = plan.regularColumns.indexOf(i);
          if (slot < 0) continue;
          const v = r.row.values[slot] ?? null;
          values[i] =
            v === null ? null : Buffer.isBuffer(v) ? v : isMultiCell(col.type) ? complexToBytes(col.type, v) : null;
        }
      }
      const row: SelectedRow = { values };
      if (!accept(row)) return true;
      buffered.push({ token: r.token, key: r.key, row });
      return buffered.length <= c.want;
    },
    c.resume,
  );
  // Twin keys order equal tokens by key length first; the row store by key bytes.
  buffered.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : Buffer.compare(a.key, b.key)));
  return buffered;
}

export function columnarScan(c: ScanContext): ScanResult {
  const { plan, twin } = c;
  const table = plan.table;
  const tests = plan.filters.map((f) => {
    const v = f.terms[0]!.value(c.values);
    if (v === null || v === UNSET) throw new ColumnarDecline('filter value');
    return bindPredicate(f, c.values, table.columns[f.columnIndex]!.name);
  });
  const accept = (row: SelectedRow) => tests.every((t) => t(row));
  const ids = plan.regularColumns.map((i) => table.columns[i]!.id);
  const views = segmentViews(twin, c.nowInSeconds, c.bounds, ids);
  const cursors = views.map((v) => new SegmentCursor(v, plan, accept, c.resume));

  const buffered = bufferCandidates(c, accept);

  const rows: SelectedRow[] = [];
  let bi = 0;
  let last: Candidate | undefined;
  const pick = (): Candidate | undefined => {
    let best: Candidate | undefined = bi < buffered.length ? buffered[bi] : undefined;
    let from = -1;
    for (let k = 0; k < cursors.length; k++) {
      const h = cursors[k]!.head;
      if (h && (!best || before(h, best))) {
        best = h;
        from = k;
      }
    }
    if (!best) return undefined;
    if (from < 0) bi++;
    else cursors[from]!.advance();
    return best;
  };
  while (rows.length < c.want) {
    const next = pick();
    if (!next) break;
    rows.push(next.row);
    last = next;
  }
  // A full page always carries a paging state (see encoded-scan.ts).
  const more = rows.length >= c.want;
  return { rows, next: more && last ? { token: last.token, key: last.key } : undefined };
}
