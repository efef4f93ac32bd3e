// The row path's aggregates folded as rows are read: a query holds one group's aggregates at a time rather than
// every row it reads (collecting them first ran the server out of heap on `SELECT sum(x)` over 10 M rows). Same
// answers as Selection.aggregate over the collected rows: rows arrive in read order, a GROUP BY's groups are runs
// of rows with equal group columns, plain columns take a group's first row.
//
// With GROUP BY, limits count groups, as Cassandra's DataLimits.CQLGroupByLimits counts them: at most `groups`
// groups come out (LIMIT, and a page's size), at most `perPartition` of them start in one partition (PER PARTITION
// LIMIT). A group is complete when the next one starts or the rows end; the row that would start one group too many
// is not taken, so a page ends after the last row of its last group and the next page starts a new group.

import type { SelectedRow } from '../selection/selected-row.js';
import type { GroupAggregate, Selection } from '../selection/selection.js';

/** What add() did with a row. */
export type FoldStep = 'taken' | 'skipped' | 'full';

export interface GroupLimits {
  /** Table column indices of the GROUP BY columns (empty: the whole result is one group). */
  readonly groupBy: readonly number[];
  /** Groups that may come out (Infinity: no limit). */
  readonly groups: number;
  /** Groups that may start in one partition (Infinity: no limit). */
  readonly perPartition: number;
  /** Where a previous page stopped: its last partition and how many groups that partition had. */
  readonly resume?: { readonly key: Buffer; readonly groupsInPartition: number };
  /** Keep each group's first row (sorting groups of several partitions). */
  readonly keepFirstRows?: boolean;
}

export class AggregateFold {
  private readonly done: (Buffer | null)[][] = [];
  /** First row of each done group, when kept. */
  readonly firstRows: SelectedRow[] = [];
  private current: GroupAggregate | undefined;
  /** The partition of the last row seen, and the groups counted in it. */
  private partition: Buffer | undefined;
  private groupsInPartition = 0;
  /** The current group has rows in the current partition (a group may span partitions of a key prefix). */
  private currentInPartition = false;
  /** Groups of the last taken row's partition once the current group completes (a paging state's count). */
  private takenGroupsInPartition = 0;

  constructor(
    private readonly selection: Selection,
    private readonly limits: GroupLimits,
  ) {
    // Without GROUP BY there is exactly one output row, even over no rows (count 0, null sum of nothing...).
    if (limits.groupBy.length === 0) this.current = selection.group();
    if (limits.resume) {
      this.partition = limits.resume.key;
      this.groupsInPartition = limits.resume.groupsInPartition;
    }
  }

  /** No more groups fit under the limit: further rows change nothing. */
  get full(): boolean {
    return this.limits.groupBy.length > 0 && this.done.length >= this.limits.groups;
  }

  /** Groups in the partition of the last row taken, its group included. */
  get groupsInLastPartition(): number {
    return this.takenGroupsInPartition;
  }

  /** Folds one row of the partition `key` (serialized partition key). */
  add(row: SelectedRow, key: Buffer): FoldStep {
    if (this.full) return 'full';
    if (this.limits.groupBy.length === 0) {
      this.current!.add(row);
      return 'taken';
    }
    if (this.partition === undefined || !key.equals(this.partition)) {
      this.partition = key;
      this.groupsInPartition = 0;
      this.currentInPartition = false;
    } else if (this.groupsInPartition >= this.limits.perPartition) {
      return 'skipped';
    }
    const first = this.current?.first();
    if (this.current && first && !this.sameGroup(first, row)) {
      this.complete();
      if (this.currentInPartition) this.groupsInPartition++;
      this.currentInPartition = false;
      if (this.full) return 'full';
      if (this.groupsInPartition >= this.limits.perPartition) return 'skipped';
    }
    if (!this.current) this.current = this.selection.group();
    this.current.add(row);
    this.currentInPartition = true;
    this.takenGroupsInPartition = this.groupsInPartition + 1;
    return 'taken';
  }

  /** The output rows. */
  rows(): (Buffer | null)[][] {
    if (this.current && !this.full) this.complete();
    return this.done;
  }

  private complete(): void {
    const g = this.current!;
    this.current = undefined;
    const first = g.first();
    // A group with no rows (GROUP BY over nothing) has no output row.
    if (this.limits.groupBy.length > 0 && !first) return;
    this.done.push(g.result());
    if (this.limits.keepFirstRows && first) this.firstRows.push(first);
  }

  private sameGroup(a: SelectedRow, b: SelectedRow): boolean {
    for (const i of this.limits.groupBy) {
      const x = a.values[i];
      const y = b.values[i];
      if (!(x === y || (x != null && y != null && x.equals(y)))) return false;
    }
    return true;
  }
}
