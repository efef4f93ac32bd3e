// SELECT over a user table in storage: known partitions (EQ/IN on the partition key) read slice by
// slice, or a token-ordered scan of the table; rows are filtered (ALLOW FILTERING), projected and
// paged. Values stay the stored bytes; only filters and aggregates look inside them.

import { inSlice } from '../../storage/clustering-bounds.js';
import { murmur3Token } from '../../storage/murmur3-token.js';
import { deserializePartitionKey } from '../../storage/partition-key.js';
import type { ComplexValue, ReadRow } from '../../storage/row-projection.js';
import { Projection } from '../../storage/row-projection.js';
import type { PagingPosition, PartitionRead } from '../../storage/table-reader.js';
import { tryColumnar } from '../columnar/columnar-read.js';
import { InvalidRequest } from '../errors.js';
import { type BindSpecs, type BoundTerm, prepareTerm } from '../execution/bound-term.js';
import { complexToBytes } from '../execution/complex-value.js';
import { isSerial } from '../execution/consistency-check.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { limitValue, prepareLimit } from '../execution/limit-term.js';
import { decodePagingState, encodePagingState, type PagingState } from '../execution/paging-state.js';
import { storeOf } from '../execution/table-stores.js';
import { nowInSeconds } from '../execution/write-clock.js';
import type { EntryTarget } from '../index/index-entries.js';
import { IndexQuery } from '../index/index-query.js';
import { readThroughIndex } from '../index/index-read.js';
import { purgeStaleEntries } from '../index/stale-entries.js';
import {
  ANN_MAX_LIMIT,
  decodeFloatVector,
  type SimilarityFunction,
  similarity,
  similarityOf,
  topK,
} from '../index/vector-search.js';
import type { SelectStatement as SelectAst } from '../parser/ast.js';
import { type BoundValue, type ColumnSpec, type QueryOptions, type ResultMessage, UNSET } from '../query-handler.js';
import { type ClusteringRange, KeyRestrictions } from '../restrictions/key-restrictions.js';
import { bindPredicate } from '../restrictions/row-filter.js';
import { isSai } from '../schema/index-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import type { Selection } from '../selection/selection.js';
import { isMultiCell } from '../types/cql-type.js';
import { compareValues } from '../types/value-comparator.js';
import { AggregateFold } from './aggregate-fold.js';

const NO_LIMIT = -1;
const ANN_REQUIRES_INDEX_MESSAGE = 'ANN ordering by vector requires the column to be indexed';

/** Rows (GROUP BY: groups) a paging state still allows under LIMIT. */
function remainingOf(state: PagingState): number {
  return state.remaining === NO_LIMIT ? Number.POSITIVE_INFINITY : state.remaining;
}

interface AnnOrdering {
  columnIndex: number;
  term: BoundTerm;
  similarity: SimilarityFunction;
}
const EMPTY = Buffer.alloc(0);

export class UserTableRead {
  readonly partitionKeyIndices: number[];
  private readonly where: KeyRestrictions;
  private readonly perPartitionLimit: BoundTerm | undefined;
  /** Column ids read from storage, and for each table column index its slot in the read (or -1). */
  private readonly columnIds: number[] = [];
  private readonly slotOfColumn: number[];
  private readonly projection: Projection;
  private readonly reversed: boolean;
  /** Table column indices of the ORDER BY columns (sorting rows of several partitions). */
  private readonly orderColumns: readonly number[];
  private readonly includeStatic: boolean;
  private readonly distinct: boolean;

  constructor(
    readonly ast: SelectAst,
    readonly table: TableMetadata,
    readonly selection: Selection,
    specs: BindSpecs,
  ) {
    this.indexQuery = new IndexQuery(table, ast.where, specs);
    this.where = new KeyRestrictions(
      table,
      this.indexQuery.keyRelations,
      specs,
      'select',
      ast.allowFiltering || this.indexQuery.hasCandidates,
    );
    this.partitionKeyIndices = this.where.partitionKeyIndices;
    this.perPartitionLimit = prepareLimit(
      ast.perPartitionLimit,
      '[per_partition_limit]',
      table.keyspace,
      table.name,
      specs,
    );

    // Which stored columns the selection and the filters need.
    const needed = new Set<number>();
    for (const s of selection.selectors) for (const i of s.columns) needed.add(i);
    for (const f of this.where.filters) needed.add(f.columnIndex);
    for (const i of this.indexQuery.columnsNeeded) needed.add(i);
    this.ann = this.annOrdering(specs);
    if (this.ann) needed.add(this.ann.columnIndex);
    this.slotOfColumn = table.columns.map(() => -1);
    table.columns.forEach((c, i) => {
      if ((c.kind === 'regular' || c.kind === 'static') && needed.has(i)) {
        this.slotOfColumn[i] = this.columnIds.length;
        this.columnIds.push(c.id);
      }
    });
    this.projection = new Projection(this.columnIds, selection.needsCellMetadata);
    this.includeStatic = table.columns.some((c, i) => c.kind === 'static' && needed.has(i));

    this.distinct = ast.distinct;
    if (ast.distinct) {
      if (ast.perPartitionLimit)
        throw new InvalidRequest('PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries');
      const restricted = [...this.where.filters, ...this.indexQuery.elementFilters].map(
        (f) => table.columns[f.columnIndex]!,
      );
      if (
        this.where.hasClusteringRestrictions ||
        restricted.some((c) => c.kind === 'clustering' || c.kind === 'regular')
      ) {
        throw new InvalidRequest(
          'SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.',
        );
      }
      for (const s of selection.selectors) {
        for (const i of s.columns) {
          const c = table.columns[i]!;
          if (c.kind !== 'partition_key' && c.kind !== 'static') {
            throw new InvalidRequest(
              `SELECT DISTINCT queries must only request partition key columns and/or static columns (not ${c.name})`,
            );
          }
        }
      }
      // A key range (the partition key not restricted by EQ/IN) needs every partition key column selected, so
      // partitions need no grouping after the read (SelectStatement.validateDistinctSelection); known partitions
      // do not.
      const keyRange = !this.where.hasPartitionKey || this.where.hasTokenRestrictions;
      const selected = new Set(selection.selectors.flatMap((s) => s.columns));
      const missing = table.partitionKey.filter((c) => !selected.has(table.columns.indexOf(c)));
      if (keyRange && missing.length > 0 && !selection.isAggregate) {
        throw new InvalidRequest(
          `SELECT DISTINCT queries must request all the partition key columns (missing ${missing.map((c) => c.name).join(', ')})`,
        );
      }
    }

    // SelectStatement.RawStatement.prepare's order: GROUP BY (getAggregationSpecFactory), then ORDER BY
    // (verifyOrderingIsAllowed, isReversed), then the filtering an index query still needs (checkNeedsFiltering).
    this.groupBy = ast.groupBy.map((g, i) => {
      if (g.kind !== 'column') throw new InvalidRequest('Only column names are supported in GROUP BY');
      const c = table.columns.find((x) => x.name === g.name);
      if (!c) throw new InvalidRequest(`Undefined column name ${g.name}`);
      if (c.kind !== 'partition_key' && c.kind !== 'clustering') {
        throw new InvalidRequest(
          `Group by is currently only supported on the columns of the PRIMARY KEY, got ${c.name}`,
        );
      }
      const expected = [...table.partitionKey, ...table.clustering][i];
      if (expected !== c) {
        throw new InvalidRequest(
          'Group by currently only support groups of columns following their declared order in the PRIMARY KEY',
        );
      }
      return table.columns.indexOf(c);
    });
    if (ast.distinct && this.groupBy.some((i) => table.columns[i]!.kind === 'clustering')) {
      throw new InvalidRequest('Grouping on clustering columns is not allowed for SELECT DISTINCT queries');
    }
    // Aggregates without GROUP BY fold the whole result: no partition limits them (AGGREGATE_EVERYTHING).
    if (selection.isAggregate && this.groupBy.length === 0 && ast.perPartitionLimit) {
      throw new InvalidRequest('PER PARTITION LIMIT is not allowed with aggregate queries.');
    }
    ({ reversed: this.reversed, columns: this.orderColumns } = this.ordering());
    this.indexQuery.checkFiltering(this.where, ast.allowFiltering);
  }

  /**
   * StatementRestrictions.usesSecondaryIndexing: an index serves some relation (hasQueriableIndex) and the read
   * is a key range (no partition key, part of it, or token bounds), or relations remain that the primary key
   * does not answer (regular or static columns, map entries, clustering columns past a gap).
   */
  private get usesSecondaryIndexing(): boolean {
    if (!this.indexQuery.hasCandidates) return false;
    return (
      !this.where.hasPartitionKey ||
      this.where.hasTokenRestrictions ||
      this.where.filters.length > 0 ||
      this.indexQuery.elementFilters.length > 0
    );
  }

  /** ORDER BY v ANN OF [...]: the vector column, the query vector and the index's similarity function. */
  private annOrdering(specs: BindSpecs): AnnOrdering | undefined {
    const order = this.ast.orderBy;
    const ann = order.find((o) => o.ann);
    if (!ann) return undefined;
    if (order.length > 1) throw new InvalidRequest('ANN ordering does not support any other ordering');
    const columnIndex = this.table.columns.findIndex((c) => c.name === ann.column);
    if (columnIndex < 0) throw new InvalidRequest(`Undefined column name ${ann.column}`);
    const col = this.table.columns[columnIndex]!;
    if (col.type.kind !== 'vector') throw new InvalidRequest('ANN ordering is only supported on float vector indexes');
    const index = (this.table.indexes ?? []).find((i) => i.column === col.name && isSai(i));
    if (!index) throw new InvalidRequest(ANN_REQUIRES_INDEX_MESSAGE);
    const term = prepareTerm(
      ann.ann!,
      { keyspace: this.table.keyspace, table: this.table.name, name: col.name, type: col.type },
      specs,
    );
    return { columnIndex, term, similarity: similarityOf(index.options) };
  }

  private readonly indexQuery: IndexQuery;
  private readonly ann: AnnOrdering | undefined;

  /** Table column indices of the GROUP BY columns (a primary key prefix). */
  private readonly groupBy: number[];

  /**
   * Validates ORDER BY (SelectStatement.RawStatement.verifyOrderingIsAllowed and isReversed): the ordered columns
   * follow the clustering order, skipping only columns restricted by `=`, and all go the same way relative to the
   * table's clustering order. `reversed`: rows come out in reverse clustering order; `columns`: the ordered ones.
   */
  private ordering(): { reversed: boolean; columns: number[] } {
    const order = this.ast.orderBy;
    if (order.length === 0 || this.ann) return { reversed: false, columns: [] };
    if (this.usesSecondaryIndexing)
      throw new InvalidRequest('ORDER BY with 2ndary indexes is not supported, except for ANN queries.');
    if (!this.where.hasPartitionKey)
      throw new InvalidRequest('ORDER BY is only supported when the partition key is restricted by an EQ or an IN.');
    // Each column once (Cassandra keeps them in a map: the first place, the last direction).
    const byColumn = new Map<number, boolean>();
    for (const o of order) {
      const columnIndex = this.table.columns.findIndex((c) => c.name === o.column);
      if (columnIndex < 0) throw new InvalidRequest(`Undefined column name ${o.column}`);
      byColumn.set(columnIndex, o.descending);
    }
    const clustering = this.table.clustering;
    // Directions are compared after every column's place is checked, as isReversed's reversedMap.
    const reversedAt: (boolean | undefined)[] = clustering.map(() => undefined);
    let next = 0;
    for (const [columnIndex, descending] of byColumn) {
      const col = this.table.columns[columnIndex]!;
      if (col.kind !== 'clustering')
        throw new InvalidRequest(
          `Order by is currently only supported on the clustered columns of the PRIMARY KEY, got ${col.name}`,
        );
      // A column before its predecessor (next > position) can never be reached: refused with the same message.
      while (next !== col.position) {
        if (next > col.position || next >= clustering.length || !this.where.isClusteringRestrictedByEq(next))
          throw new InvalidRequest(
            'Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY',
          );
        next++;
      }
      next++;
      reversedAt[col.position] = descending !== (col.clusteringOrder === 'desc');
    }
    let reversed: boolean | undefined;
    for (const r of reversedAt) {
      if (r === undefined) continue;
      if (reversed !== undefined && r !== reversed) throw new InvalidRequest('Unsupported order by relation');
      reversed = r;
    }
    return { reversed: reversed === true, columns: [...byColumn.keys()] };
  }

  /**
   * Rows of several partitions (IN) in ORDER BY order: by the ordered columns only, nulls first, each in its
   * clustering order, all reversed when the query is; ties keep read order (SelectStatement's orderingComparator,
   * applied by a stable sort).
   */
  private orderAcrossPartitions(rows: SelectedRow[]): SelectedRow[] {
    const columns = this.orderColumns.map((columnIndex) => {
      const c = this.table.columns[columnIndex]!;
      return { columnIndex, type: c.type, desc: c.clusteringOrder === 'desc' };
    });
    const compare = (a: SelectedRow, b: SelectedRow): number => {
      for (const { columnIndex, type, desc } of columns) {
        const x = a.values[columnIndex] ?? null;
        const y = b.values[columnIndex] ?? null;
        const c = x === null ? (y === null ? 0 : -1) : y === null ? 1 : (desc ? -1 : 1) * compareValues(type, x, y);
        if (c !== 0) return this.reversed ? -c : c;
      }
      return 0;
    };
    const order = rows.map((_, i) => i);
    order.sort((a, b) => compare(rows[a]!, rows[b]!) || a - b);
    return order.map((i) => rows[i]!);
  }

  execute(ctx: ExecutionContext, options: QueryOptions, limit: number): ResultMessage {
    // Arrow twin (cql/columnar/): scans and aggregates it answers run there; undefined = the row path below.
    const columnar = tryColumnar(this, this.where, this.groupBy, ctx, options, limit);
    if (columnar) return columnar;
    const values = options.values;
    const now = options.nowInSeconds ?? nowInSeconds();
    const perPartition = limitValue(this.perPartitionLimit, values);
    const filters = this.where.filters.map((p) => bindPredicate(p, values, this.table.columns[p.columnIndex]!.name));
    const grouped = this.groupBy.length > 0;
    const aggregate = this.selection.isAggregate || grouped;
    if (this.ann && (!Number.isFinite(limit) || limit > ANN_MAX_LIMIT)) {
      throw new InvalidRequest(
        `Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than ${ANN_MAX_LIMIT}. LIMIT was ${Number.isFinite(limit) ? limit : 'NO LIMIT'}`,
      );
    }
    // GROUP BY pages by groups (AggregationQueryPager: the page size and LIMIT count groups); other aggregates
    // read every matching row into one page, and ANN reads every matching row, then keeps the top k: one page.
    const groupPages = grouped && !this.distinct && !this.ann;
    const whole = (aggregate && !groupPages) || this.ann !== undefined;
    let pageSize = whole || options.pageSize <= 0 ? Number.POSITIVE_INFINITY : options.pageSize;
    const state = options.pagingState && !whole ? decodePagingState(options.pagingState) : undefined;
    for (const f of this.indexQuery.bindElementFilters(values)) filters.push(f);
    // Aggregates read every matching row; LIMIT then applies to the output rows.
    let remaining = whole
      ? Number.POSITIVE_INFINITY
      : state
        ? state.remaining === NO_LIMIT
          ? Number.POSITIVE_INFINITY
          : state.remaining
        : limit;
    if (this.distinct) remaining = Math.min(remaining, limit);
    const store = storeOf(ctx, this.table);

    // Several partitions with ORDER BY (never paged): every row is read, sorted, then LIMIT applies
    // (SelectStatement.needsPostQueryOrdering).
    const merge = this.ast.orderBy.length > 0 && !this.ann && this.where.hasPartitionKey && this.where.keyIsInRelation;
    // SelectStatement.execute: a query runs unpaged when paging is off or its LIMIT fits in a page; aggregates
    // and GROUP BY always page internally. A paged one cannot sort across partitions.
    if (merge && options.pageSize > 0 && (aggregate || limit > options.pageSize)) {
      throw new InvalidRequest(
        'Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ORDER BY or the IN and sort client side, or disable paging for this query',
      );
    }
    let mergeLimit = Number.POSITIVE_INFINITY;
    if (merge) {
      pageSize = Number.POSITIVE_INFINITY;
      mergeLimit = remaining;
      remaining = Number.POSITIVE_INFINITY;
    }
    // Groups this page may return (LIMIT and page size in groups); the rows read are then bounded by the fold.
    const groupCap = groupPages ? Math.min(pageSize, remaining) : limit;
    if (groupPages) {
      pageSize = Number.POSITIVE_INFINITY;
      remaining = Number.POSITIVE_INFINITY;
    }
    // PER PARTITION LIMIT counts groups with GROUP BY (the fold applies it) and rows otherwise; aggregates without
    // GROUP BY refuse it.
    const rowsPerPartition = this.distinct ? 1 : grouped ? Number.POSITIVE_INFINITY : perPartition;

    const out: SelectedRow[] = [];
    // Aggregates fold rows as they are read instead of collecting them (ANN needs its rows: it sorts them).
    // A GROUP BY page's state names the partition it stopped in (its groups count against PER PARTITION LIMIT).
    const resumeKey = state && groupPages && state.key.length > 0 ? state.key : undefined;
    const fold =
      aggregate && !this.ann
        ? new AggregateFold(this.selection, {
            groupBy: grouped ? this.groupBy : [],
            groups: merge ? Number.POSITIVE_INFINITY : groupCap,
            perPartition: grouped ? perPartition : Number.POSITIVE_INFINITY,
            resume: resumeKey ? { key: resumeKey, groupsInPartition: state!.rowsInPartition } : undefined,
            keepFirstRows: merge,
          })
        : undefined;
    const want = () => Math.min(pageSize - out.length, remaining);
    let next: PagingState | undefined;
    // Where the key loop is (a GROUP BY page ends after the last row of its last group: its paging state).
    const at = { partitionIndex: 0, rangeIndex: 0 };
    let lastTaken:
      | { pr: PartitionRead; row: ReadRow | undefined; partitionIndex: number; rangeIndex: number }
      | undefined;

    let rangeFilter: ((clustering: Buffer) => boolean) | undefined;
    const stale: EntryTarget[] = [];
    const accept = (pr: PartitionRead, row: ReadRow | undefined, entry?: EntryTarget): boolean => {
      if (rangeFilter && (!row || !rangeFilter(row.clustering))) return false;
      const sel = this.selectedRow(pr, row, values);
      if (entry && !this.indexQuery.isCurrent(sel, entry.term)) {
        if (stale[stale.length - 1] !== entry) stale.push(entry);
        return false;
      }
      for (const f of filters) if (!f(sel)) return false;
      if (fold) {
        const step = fold.add(sel, pr.key);
        // Once the groups a page (or LIMIT) takes are complete, the rest of the table changes nothing.
        if (step === 'full') remaining = 0;
        if (step !== 'taken') return false;
        if (groupPages) lastTaken = { pr, row, ...at };
        return true;
      }
      out.push(sel);
      remaining--;
      return true;
    };

    // GROUP BY and DISTINCT need rows in partition order: those scan (the filters keep the same rows).
    if (
      this.indexQuery.chosen &&
      !this.where.hasPartitionKey &&
      !this.where.hasTokenRestrictions &&
      !grouped &&
      !this.distinct
    ) {
      if (this.where.hasClusteringRestrictions) {
        const ranges = this.where.clusteringRanges(values);
        rangeFilter = (c: Buffer) => ranges.some((r) => inSlice(c, r.start, r.end));
      }
      // PER PARTITION LIMIT counts the rows each base partition returned (after filtering); a page's state keeps the
      // count of the partition it stopped in.
      const inPartition = new Map<string, number>();
      if (state && state.key.length > 0) inPartition.set(state.key.toString('latin1'), state.rowsInPartition);
      let lastKey: Buffer | undefined;
      const stop = readThroughIndex(ctx, this.indexQuery, values, now, state?.clustering, want, (target) => {
        const id = target.key.toString('latin1');
        lastKey = target.key;
        if ((inPartition.get(id) ?? 0) >= rowsPerPartition) return;
        const taken = (ok: boolean) => {
          if (ok) inPartition.set(id, (inPartition.get(id) ?? 0) + 1);
        };
        const bound = target.clustering.length > 0 ? { prefix: target.clustering, inclusive: true } : undefined;
        const isStatic = this.indexQuery.chosen!.terms.column.kind === 'static';
        const pr = store.readPartition(target.key, murmur3Token(target.key), {
          columns: this.projection,
          nowInSeconds: now,
          start: isStatic ? undefined : bound,
          end: isStatic ? undefined : bound,
          limit: isStatic ? undefined : 1,
          includeStatic: this.includeStatic,
          withMetadata: this.projection.withMetadata,
        });
        // The row is gone (deleted, expired): the entry is stale.
        if (!pr || (isStatic ? !pr.staticRow : pr.rows.length === 0)) {
          stale.push(target);
          return;
        }
        if (isStatic && pr.rows.length === 0) taken(accept(pr, undefined, target));
        for (const row of pr.rows) {
          if ((inPartition.get(id) ?? 0) >= rowsPerPartition) break;
          taken(accept(pr, row, target));
        }
      });
      if (stale.length > 0) purgeStaleEntries(ctx, this.indexQuery, stale, now);
      if (stop) {
        const key = lastKey ?? EMPTY;
        next = {
          ...this.blankState(),
          clustering: stop,
          key,
          rowsInPartition: inPartition.get(key.toString('latin1')) ?? 0,
        };
      }
    } else if (this.where.hasPartitionKey) {
      // In key order (partitionKeys), not token order, as Cassandra reads the partitions of an IN.
      const keys = this.where.partitionKeys(values).map((key) => ({ key, token: murmur3Token(key) }));
      // StorageProxy.read: a Paxos read serves one partition (a pager asks for one at a time).
      if (isSerial(options.consistency) && keys.length > 1 && !Number.isFinite(pageSize) && !groupPages) {
        throw new InvalidRequest('SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time');
      }
      let ranges = this.where.clusteringRanges(values);
      if (this.reversed) ranges = [...ranges].reverse();
      const ppLimit = rowsPerPartition;
      outer: for (let pi = state?.partitionIndex ?? 0; pi < keys.length; pi++) {
        const { key, token } = keys[pi]!;
        const resuming = state && pi === state.partitionIndex;
        let inPartition = resuming && !groupPages ? state.rowsInPartition : 0;
        // A state at a partition's start (the previous page ended with the partition before) has shown nothing of it.
        let staticDone = resuming === true && (state.clustering.length > 0 || state.rowsInPartition > 0);
        at.partitionIndex = pi;
        for (let ri = resuming ? state.rangeIndex : 0; ri < ranges.length; ri++) {
          at.rangeIndex = ri;
          if (want() <= 0 || inPartition >= ppLimit) break;
          const range = this.resumeRange(
            ranges[ri]!,
            resuming && ri === state.rangeIndex ? state.clustering : undefined,
          );
          const pr = store.readPartition(key, token, {
            columns: this.projection,
            nowInSeconds: now,
            start: range.start,
            end: range.end,
            reversed: this.reversed,
            // With filters, how many stored rows make a page is unknown: read the whole slice.
            limit: filters.length > 0 ? undefined : Math.min(want(), ppLimit - inPartition),
            includeStatic: this.includeStatic || (!staticDone && this.table.clustering.length > 0),
            withMetadata: this.projection.withMetadata,
          });
          if (!pr) continue;
          if (pr.rows.length === 0 && pr.staticRow && !staticDone && !this.where.hasClusteringRestrictions) {
            // A partition with only static data reads as one row with null clustering.
            if (accept(pr, undefined)) inPartition++;
          }
          staticDone = true;
          let last: Buffer | undefined;
          for (const row of pr.rows) {
            if (want() <= 0 || inPartition >= ppLimit) break;
            last = row.clustering;
            if (accept(pr, row)) inPartition++;
          }
          if (want() <= 0 && (last !== undefined || pi < keys.length - 1)) {
            const finished = inPartition >= ppLimit || last === undefined;
            next = finished
              ? { ...this.blankState(), partitionIndex: pi + 1 }
              : {
                  ...this.blankState(),
                  partitionIndex: pi,
                  rangeIndex: ri,
                  clustering: last!,
                  rowsInPartition: inPartition,
                };
            break outer;
          }
        }
      }
    } else {
      const bounds = this.where.tokenBounds(values);
      // Clustering restrictions without a partition key (ALLOW FILTERING): one range is pushed down to the
      // scan, several are checked row by row.
      const ranges = this.where.hasClusteringRestrictions ? this.where.clusteringRanges(values) : undefined;
      const pushed = ranges?.length === 1 ? ranges[0] : undefined;
      if (ranges && !pushed) rangeFilter = (c: Buffer) => ranges.some((r) => inSlice(c, r.start, r.end));
      let after: PagingPosition | undefined = state
        ? {
            token: state.token,
            key: state.key,
            clustering: state.clustering.length > 0 ? state.clustering : undefined,
            rowsInPartition: state.rowsInPartition,
          }
        : undefined;
      const ppLimit = rowsPerPartition;
      for (;;) {
        const n = want();
        if (n <= 0) break;
        const chunk = Number.isFinite(n) ? n + (filters.length > 0 ? 64 : 0) : 1000;
        const res = store.scanRange({
          columns: this.projection,
          nowInSeconds: now,
          startToken: bounds.start,
          endToken: bounds.end,
          start: pushed?.start,
          end: pushed?.end,
          after,
          limit: chunk,
          perPartitionLimit: Number.isFinite(ppLimit) ? ppLimit : undefined,
          includeStatic: this.includeStatic || this.table.clustering.length > 0,
          withMetadata: this.projection.withMetadata,
        });
        let stoppedEarly = false;
        let lastPos: PagingPosition | undefined;
        for (const pr of res.partitions) {
          let inPartition = after?.key.equals(pr.key) ? (after.rowsInPartition ?? 0) : 0;
          if (pr.rows.length === 0 && pr.staticRow && !this.where.hasClusteringRestrictions) {
            if (want() <= 0) {
              stoppedEarly = true;
              break;
            }
            accept(pr, undefined);
            lastPos = { token: pr.token, key: pr.key, clustering: undefined, rowsInPartition: 1 };
          }
          for (const row of pr.rows) {
            if (want() <= 0) {
              stoppedEarly = true;
              break;
            }
            if (inPartition >= ppLimit) break;
            if (accept(pr, row)) inPartition++;
            lastPos = { token: pr.token, key: pr.key, clustering: row.clustering, rowsInPartition: inPartition };
          }
          if (stoppedEarly) break;
          if (inPartition >= ppLimit || pr.rows.length === 0) {
            lastPos = { token: pr.token, key: pr.key, clustering: undefined, rowsInPartition: inPartition };
          }
        }
        if (!res.next && !stoppedEarly) break;
        after = stoppedEarly ? lastPos : res.next;
        if (want() <= 0 || stoppedEarly) {
          if (after) {
            next = {
              ...this.blankState(),
              token: after.token,
              key: after.key,
              clustering: after.clustering ?? EMPTY,
              rowsInPartition: after.rowsInPartition ?? 0,
            };
          }
          break;
        }
        if (!after) break;
      }
    }

    if (aggregate) {
      // An ANN query collected its rows: they are folded now.
      let f = fold;
      if (!f) {
        f = new AggregateFold(this.selection, {
          groupBy: grouped ? this.groupBy : [],
          groups: limit,
          perPartition: Number.POSITIVE_INFINITY,
        });
        for (const row of out) f.add(row, EMPTY);
      }
      let rows = f.rows();
      if (merge && grouped) {
        // The groups of every partition sorted like rows, by their first row (SelectStatement.orderResults).
        const order = this.orderAcrossPartitions(f.firstRows);
        const index = new Map(f.firstRows.map((r, i) => [r, i]));
        rows = order.map((r) => rows[index.get(r)!]!).slice(0, Number.isFinite(mergeLimit) ? mergeLimit : undefined);
      }
      let pagingState: Buffer | undefined;
      // A page holding as many groups as the page allows may not be the last: Cassandra's pager cannot tell, so it
      // returns a paging state (and the next page may be empty); none once LIMIT's groups are all returned.
      const groupsLeft = groupPages ? (state ? remainingOf(state) : limit) - rows.length : 0;
      if (groupPages && lastTaken && rows.length >= groupCap && groupsLeft > 0) {
        const { pr, row } = lastTaken;
        pagingState = encodePagingState({
          partitionIndex: lastTaken.partitionIndex,
          rangeIndex: lastTaken.rangeIndex,
          token: pr.token,
          key: pr.key,
          clustering: row?.clustering ?? EMPTY,
          rowsInPartition: f.groupsInLastPartition,
          remaining: Number.isFinite(groupsLeft) ? groupsLeft : NO_LIMIT,
        });
      }
      return { kind: 'rows', metadata: { columns: this.selection.specs, pagingState }, rows };
    }
    let selected = out;
    if (this.ann) {
      const ann = this.ann;
      const v = ann.term.value(values);
      if (v === null || v === UNSET) throw new InvalidRequest(`Invalid null value for ANN OF`);
      const type = this.table.columns[ann.columnIndex]!.type;
      const q = decodeFloatVector(type, v);
      const scores = out.map((r) => {
        const x = r.values[ann.columnIndex];
        return x ? similarity(ann.similarity, q, decodeFloatVector(type, x)) : Number.NaN;
      });
      selected = topK(scores, limit).map((i) => out[i]!);
    } else if (merge) {
      selected = this.orderAcrossPartitions(out).slice(0, Number.isFinite(mergeLimit) ? mergeLimit : undefined);
    }
    const rows = selected.map((r) => this.selection.project(r));
    let pagingState: Buffer | undefined;
    if (next && remaining > 0) {
      next.remaining = Number.isFinite(remaining) ? remaining : NO_LIMIT;
      pagingState = encodePagingState(next);
    }
    return { kind: 'rows', metadata: { columns: this.selection.specs as ColumnSpec[], pagingState }, rows };
  }

  private blankState(): PagingState {
    return {
      partitionIndex: 0,
      rangeIndex: 0,
      token: 0n,
      key: EMPTY,
      clustering: EMPTY,
      rowsInPartition: 0,
      remaining: NO_LIMIT,
    };
  }

  /** A clustering range narrowed to what follows the last row returned (paging). */
  private resumeRange(range: ClusteringRange, last: Buffer | undefined): ClusteringRange {
    if (!last || last.length === 0) return range;
    return this.reversed
      ? { start: range.start, end: { prefix: last, inclusive: false } }
      : { start: { prefix: last, inclusive: false }, end: range.end };
  }

  /** The row as the selection and filters see it: every table column by index. */
  private selectedRow(pr: PartitionRead, row: ReadRow | undefined, params: readonly BoundValue[]): SelectedRow {
    const t = this.table;
    const values: (Buffer | null)[] = new Array(t.columns.length).fill(null);
    const pk = deserializePartitionKey(pr.key, t.partitionKey.length);
    const source = row ?? pr.staticRow;
    for (let i = 0; i < t.columns.length; i++) {
      const c = t.columns[i]!;
      if (c.kind === 'partition_key') values[i] = pk[c.position]!;
      else if (c.kind === 'clustering') values[i] = row ? (row.clusteringValues[c.position] ?? null) : null;
      else {
        const slot = this.slotOfColumn[i]!;
        if (slot < 0) continue;
        const from = c.kind === 'static' ? pr.staticRow : row;
        const v = from?.values[slot] ?? null;
        values[i] = v === null ? null : isMultiCell(c.type) ? complexToBytes(c.type, v as ComplexValue) : (v as Buffer);
      }
    }
    const slotOf = this.slotOfColumn;
    const columns = t.columns;
    return {
      values,
      params,
      writetime: (i) => {
        const slot = slotOf[i]!;
        const from = columns[i]!.kind === 'static' ? pr.staticRow : source;
        return slot < 0 ? null : (from?.writetimes?.[slot] ?? null);
      },
      ttl: (i) => {
        const slot = slotOf[i]!;
        const from = columns[i]!.kind === 'static' ? pr.staticRow : source;
        return slot < 0 ? null : (from?.ttls?.[slot] ?? null);
      },
      cells: (i) => {
        const slot = slotOf[i]!;
        const from = columns[i]!.kind === 'static' ? pr.staticRow : source;
        const v = slot < 0 ? null : (from?.values[slot] ?? null);
        return v === null || Buffer.isBuffer(v) ? null : v;
      },
    };
  }
}
