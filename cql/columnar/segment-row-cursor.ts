// Walks one segment's live rows in the row store's order (token, then serialized partition key) from a resume
// point, for scans that write rows straight to the wire: the head row is only an index, its token two int32 halves
// (reading a BigInt64Array allocates a bigint per element) and its key serialized only when a tie or a paging state
// needs it.

import type { Data } from 'apache-arrow';
import { arrowCellWriter, type CellWriter } from '../../storage/arrow/arrow-cell-writer.js';
import { cqlBytesAt } from '../../storage/arrow/cql-value-decoder.js';
import type { WireCells } from '../../storage/arrow/wire-cells.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import type { SegmentView } from '../../storage/twin/twin-read.js';
import type { TableMetadata } from '../schema/table-metadata.js';

export class SegmentRowCursor {
  /** Head row index, -1 when the segment has no more rows. */
  head = -1;
  /** Head token: high half signed, low half unsigned. */
  hi = 0;
  lo = 0;
  private next: number;
  private readonly tokens: Int32Array;
  private readonly bigTokens: BigInt64Array;
  private readonly pkData: Data[];
  private readonly writers: CellWriter[];

  constructor(
    private readonly view: SegmentView,
    private readonly table: TableMetadata,
    /** Table column index of each output column. */
    outputs: readonly number[],
    resume: { token: bigint; key: Buffer } | undefined,
  ) {
    this.tokens = view.tokens;
    this.bigTokens = view.data.batch!.data.children[0]!.values as BigInt64Array;
    this.pkData = table.partitionKey.map((c) => view.column(c.id)!);
    this.writers = outputs.map((c) => {
      const col = table.columns[c]!;
      return arrowCellWriter(col.type, view.column(col.id));
    });
    this.next = resume ? this.after(resume) : view.from;
    this.advance();
  }

  /** First row of the view after (token, key). */
  private after(resume: { token: bigint; key: Buffer }): number {
    const t = this.bigTokens;
    let lo = this.view.from;
    let hi = this.view.to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! < resume.token) lo = mid + 1;
      else hi = mid;
    }
    while (lo < this.view.to && t[lo] === resume.token && Buffer.compare(this.keyAt(lo), resume.key) <= 0) lo++;
    return lo;
  }

  /** Serialized partition key of row i. */
  keyAt(i: number): Buffer {
    return serializePartitionKey(this.table.partitionKey.map((c, j) => cqlBytesAt(c.type, this.pkData[j]!, i)!));
  }

  /** Moves the head to the next live row. */
  advance(): void {
    const sel = this.view.sel;
    const to = this.view.to;
    let i = this.next;
    if (sel !== null) while (i < to && !(sel[i >>> 5]! & (1 << (i & 31)))) i++;
    if (i >= to) {
      this.head = -1;
      this.next = to;
      return;
    }
    this.head = i;
    this.next = i + 1;
    this.lo = this.tokens[2 * i]! >>> 0;
    this.hi = this.tokens[2 * i + 1]!;
  }

  tokenAt(i: number): bigint {
    return this.bigTokens[i]!;
  }

  /** Writes the head row's output cells. */
  write(out: WireCells): void {
    const w = this.writers;
    const i = this.head;
    for (let c = 0; c < w.length; c++) w[c]!(out, i);
  }
}
