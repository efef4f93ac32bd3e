// The columnar executor's entry point, called first thing by SELECT over a user table (user-table-read.ts): when
// the planner says the query fits the Arrow twin, answer it there; otherwise (or if the twin meets data only the
// row path handles exactly) return undefined and the row path runs. A debug log line says which path ran.

import type { ExecutionContext } from '../execution/cql-statement.js';
import { decodePagingState, encodePagingState } from '../execution/paging-state.js';
import { nowInSeconds } from '../execution/write-clock.js';
import type { SelectStatement as SelectAst } from '../parser/ast.js';
import type { ColumnSpec, QueryOptions, ResultMessage } from '../query-handler.js';
import type { KeyRestrictions } from '../restrictions/key-restrictions.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { Selection } from '../selection/selection.js';
import { storeOf } from '../statements/modification-statement.js';
import { columnarAggregate } from './columnar-aggregate.js';
import { columnarPath } from './columnar-mode.js';
import { type ColumnarPlan, type PlanResult, planColumnar } from './columnar-plan.js';
import { columnarScan } from './columnar-scan.js';
import { ColumnarDecline } from './columnar-sources.js';

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

/** Counters for tests and system_arrow: how many SELECTs ran on each path. */
export const pathStats = { columnar: 0, row: 0, declined: 0 };

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
    if (!(e instanceof ColumnarDecline)) throw e;
    pathStats.declined++;
    log.debug?.(
      { table: `${query.table.keyspace}.${query.table.name}`, path: 'row', reason: e.message },
      'select path',
    );
    return undefined;
  }
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
  if (plan.aggregate) {
    const rows = columnarAggregate({ plan, twin, values, nowInSeconds: now, bounds, limit });
    return { kind: 'rows', metadata: { columns: specs }, rows };
  }
  const pageSize = options.pageSize <= 0 ? Number.POSITIVE_INFINITY : options.pageSize;
  const state = options.pagingState ? decodePagingState(options.pagingState) : undefined;
  const remaining = state ? (state.remaining === NO_LIMIT ? Number.POSITIVE_INFINITY : state.remaining) : limit;
  const want = Math.min(pageSize, remaining);
  const res = columnarScan({
    plan,
    twin,
    values,
    nowInSeconds: now,
    bounds,
    want,
    resume: state ? { token: state.token, key: state.key } : undefined,
  });
  const left = remaining - res.rows.length;
  let pagingState: Buffer | undefined;
  if (res.next && left > 0) {
    pagingState = encodePagingState({
      partitionIndex: 0,
      rangeIndex: 0,
      token: res.next.token,
      key: res.next.key,
      clustering: EMPTY,
      rowsInPartition: 1,
      remaining: Number.isFinite(left) ? left : NO_LIMIT,
    });
  }
  return {
    kind: 'rows',
    metadata: { columns: specs as ColumnSpec[], pagingState },
    rows: res.rows.map((r) => query.selection.project(r)),
  };
}
