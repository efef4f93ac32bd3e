// The columnar executor's entry point, called first thing by SELECT over a user table (user-table-read.ts): when
// the planner says the query fits the Arrow twin, answer it there; otherwise (or if the twin meets data only the
// row path handles exactly) return undefined and the row path runs. A debug log line says which path ran.

import { TwinCannotAnswer } from '../../storage/twin/twin-read.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { decodePagingState, encodePagingState } from '../execution/paging-state.js';
import { storeOf } from '../execution/table-stores.js';
import { nowInSeconds } from '../execution/write-clock.js';
import type { SelectStatement as SelectAst } from '../parser/ast.js';
import type { ColumnSpec, QueryOptions, ResultMessage } from '../query-handler.js';
import type { KeyRestrictions } from '../restrictions/key-restrictions.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { Selection } from '../selection/selection.js';
import { columnarAggregate } from './columnar-aggregate.js';
import { ColumnarDecline } from './columnar-decline.js';
import { columnarPath, directScanEncoding, scanContinuation, scanReadAhead } from './columnar-mode.js';
import { type ColumnarPlan, type PlanResult, planColumnar } from './columnar-plan.js';
import { columnarScan, type ScanContext } from './columnar-scan.js';
import { EncodedScanState, scanOutputs } from './encoded-scan.js';
import { type ScanPage, type ScanPageKey, ScanReadAhead } from './scan-read-ahead.js';

/** What the columnar path needs of a prepared SELECT (UserTableRead passes itself and its restrictions). */
export interface ColumnarQuery {
  readonly ast: SelectAst;
  readonly table: TableMetadata;
  readonly selection: Selection;
}

const plans = new WeakMap<object, PlanResult>();
const NO_LIMIT = -1;
const EMPTY = Buffer.alloc(0);

/** LIMITs up to this many rows scan faster on the row path (see tryColumnar). */
const SHORT_SCAN_LIMIT = 1000;

/** Next pages of paged scans, prepared while the client reads the current one. */
const readAhead = new ScanReadAhead();

/** Counters for tests and system_arrow: how many SELECTs ran on each path. */
export const pathStats = { columnar: 0, row: 0, declined: 0, encoded: 0 };

export function tryColumnar(
  query: ColumnarQuery,
  where: KeyRestrictions,
  groupBy: readonly number[],
  ctx: ExecutionContext,
  options: QueryOptions,
  limit: number,
): ResultMessage | undefined {
  const mode = columnarPath();
  if (mode === 'row') {
    pathStats.row++;
    return undefined;
  }
  let planned = plans.get(query);
  if (!planned) {
    planned = planColumnar(query.ast, query.table, query.selection, where, groupBy);
    plans.set(query, planned);
  }
  const log = ctx.logger;
  if (!('plan' in planned)) {
    pathStats.row++;
    log.debug?.(
      { table: `${query.table.keyspace}.${query.table.name}`, path: 'row', reason: planned.reason },
      'select path',
    );
    return undefined;
  }
  // A short unfiltered LIMIT scan reads only the rows it returns on the row path, while the twin first masks the
  // live rows of every overlapping segment: YCSB E-style scans run about twice as fast on the row path.
  if (!planned.plan.aggregate && planned.plan.filters.length === 0 && limit <= SHORT_SCAN_LIMIT) {
    pathStats.row++;
    return undefined;
  }
  const twin = storeOf(ctx, query.table).twin;
  // A twin that missed writes (made while twins were off) cannot answer: the row path is exact.
  if (!twin?.enabled || twin.incomplete) {
    pathStats.row++;
    return undefined;
  }
  try {
    const result = run(planned.plan, query, twin, where, options, limit);
    pathStats.columnar++;
    log.debug?.(
      { table: `${query.table.keyspace}.${query.table.name}`, path: 'columnar', segments: twin.segmentCount },
      'select path',
    );
    return result;
  } catch (e) {
    if (!(e instanceof ColumnarDecline) && !(e instanceof TwinCannotAnswer)) throw e;
    pathStats.declined++;
    log.debug?.(
      { table: `${query.table.keyspace}.${query.table.name}`, path: 'row', reason: e.message },
      'select path',
    );
    return undefined;
  }
}

/** The paging state after a page that stopped at `next` with `left` rows still allowed by LIMIT. */
function pagingAfter(next: { token: bigint; key: Buffer } | undefined, left: number): Buffer | undefined {
  if (!next || left <= 0) return undefined;
  return encodePagingState({
    partitionIndex: 0,
    rangeIndex: 0,
    token: next.token,
    key: next.key,
    clustering: EMPTY,
    rowsInPartition: 1,
    remaining: Number.isFinite(left) ? left : NO_LIMIT,
  });
}

function run(
  plan: ColumnarPlan,
  query: ColumnarQuery,
  twin: NonNullable<ReturnType<typeof storeOf>['twin']>,
  where: KeyRestrictions,
  options: QueryOptions,
  limit: number,
): ResultMessage {
  const values = options.values;
  const now = options.nowInSeconds ?? nowInSeconds();
  const bounds = where.tokenBounds(values);
  const specs = query.selection.specs;
  if (plan.aggregate && !plan.grouped) {
    const { rows } = columnarAggregate({ plan, twin, values, nowInSeconds: now, bounds, limit });
    return { kind: 'rows', metadata: { columns: specs }, rows };
  }
  if (plan.aggregate) {
    // GROUP BY the partition key pages by groups, one per partition (AggregationQueryPager): a page holding as
    // many groups as the page allows carries a paging state unless LIMIT's groups are all returned.
    const state = options.pagingState ? decodePagingState(options.pagingState) : undefined;
    const left = state ? (state.remaining === NO_LIMIT ? Number.POSITIVE_INFINITY : state.remaining) : limit;
    const cap = Math.min(options.pageSize <= 0 ? Number.POSITIVE_INFINITY : options.pageSize, left);
    const after = state ? { token: state.token, key: state.key } : undefined;
    // Partitions before the resume point's token are not read at all.
    const from =
      after && (!bounds.start || bounds.start.token <= after.token)
        ? { token: after.token, inclusive: true }
        : bounds.start;
    const out = columnarAggregate({
      plan,
      twin,
      values,
      nowInSeconds: now,
      bounds: { ...bounds, start: from },
      limit: cap,
      after,
    });
    const last = out.partitions?.[out.partitions.length - 1];
    const pagingState = out.rows.length >= cap && last ? pagingAfter(last, left - out.rows.length) : undefined;
    return { kind: 'rows', metadata: { columns: specs, pagingState }, rows: out.rows };
  }
  const pageSize = options.pageSize <= 0 ? Number.POSITIVE_INFINITY : options.pageSize;
  const scan = (pagingState: Buffer | undefined): ScanContext & { remaining: number } => {
    const state = pagingState ? decodePagingState(pagingState) : undefined;
    const remaining = state ? (state.remaining === NO_LIMIT ? Number.POSITIVE_INFINITY : state.remaining) : limit;
    return {
      plan,
      twin,
      values,
      nowInSeconds: now,
      bounds,
      want: Math.min(pageSize, remaining),
      resume: state ? { token: state.token, key: state.key } : undefined,
      remaining,
    };
  };
  // Scans write the ROWS cells straight from the Arrow columns.
  const outputs = directScanEncoding ? scanOutputs(query.selection) : undefined;
  if (outputs) {
    const key: ScanPageKey = { statement: query, twin, values, pageSize, nowInSeconds: now };
    const pageAt = (pagingState: Buffer | undefined): ScanPage => {
      const c = scan(pagingState);
      // The scan where the previous page left it, when still valid; else opened at the paging state.
      const kept = pagingState && scanContinuation ? readAhead.resume(pagingState, key) : undefined;
      const state = kept ?? new EncodedScanState(c, outputs);
      const res = state.page(c.want);
      const next = pagingAfter(res.next, c.remaining - res.count);
      if (next && scanContinuation) readAhead.keep(next, key, state);
      return { count: res.count, bytes: res.bytes, pagingState: next };
    };
    const page = (options.pagingState && readAhead.take(options.pagingState, key)) || pageAt(options.pagingState);
    const next = page.pagingState;
    pathStats.encoded++;
    if (next && scanReadAhead) readAhead.prepare(next, key, () => pageAt(next));
    return {
      kind: 'rows',
      metadata: { columns: specs as ColumnSpec[], pagingState: next },
      rows: [],
      encoded: { count: page.count, bytes: page.bytes },
    };
  }
  const c = scan(options.pagingState);
  const res = columnarScan(c);
  const metadata = {
    columns: specs as ColumnSpec[],
    pagingState: pagingAfter(res.next, c.remaining - res.rows.length),
  };
  return { kind: 'rows', metadata, rows: res.rows.map((r) => query.selection.project(r)) };
}
