// The row path's aggregates folded as rows are read: a query holds one group's aggregates at a time rather than
// every row it reads (collecting them first ran the server out of heap on `SELECT sum(x)` over 10 M rows). Same
// answers as Selection.aggregate over the collected rows: rows arrive in read order, a GROUP BY's groups are runs
// of rows with equal group columns, plain columns take a group's first row, at most `limit` groups come out.

import type { SelectedRow } from '../selection/selected-row.js';
import type { GroupAggregate, Selection } from '../selection/selection.js';

export class AggregateFold {
  private readonly done: (Buffer | null)[][] = [];
  private current: GroupAggregate | undefined;

  /** `groupBy`: table column indices of the GROUP BY columns (empty: the whole result is one group). */
  constructor(
    private readonly selection: Selection,
    private readonly groupBy: readonly number[],
    private readonly limit: number,
  ) {
    // Without GROUP BY there is exactly one output row, even over no rows (count 0, null sum of nothing...).
    if (groupBy.length === 0) this.current = selection.group();
  }

  /** No more groups fit under the limit: further rows change nothing. */
  get full(): boolean {
    return this.groupBy.length > 0 && this.done.length >= this.limit;
  }

  add(row: SelectedRow): void {
    if (this.full) return;
    const first = this.current?.first();
    if (this.groupBy.length > 0 && (!this.current || (first && !this.sameGroup(first, row)))) {
      if (this.current) this.done.push(this.current.result());
      if (this.full) {
        this.current = undefined;
        return;
      }
      this.current = this.selection.group();
    }
    this.current!.add(row);
  }

  /** The output rows. */
  rows(): (Buffer | null)[][] {
    if (this.current && !this.full) {
      this.done.push(this.current.result());
      this.current = undefined;
    }
    return this.done;
  }

  private sameGroup(a: SelectedRow, b: SelectedRow): boolean {
    for (const i of this.groupBy) {
      const x = a.values[i];
      const y = b.values[i];
      if (!(x === y || (x != null && y != null && x.equals(y)))) return false;
    }
    return true;
  }
}
