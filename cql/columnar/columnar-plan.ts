// The planner's half of the columnar path: which SELECTs run over the Arrow twin. Whole-table and
// token-range scans of tables without clustering columns, count/sum/avg/min/max (optionally GROUP BY the partition
// key) and ALLOW FILTERING comparisons on numeric regular columns go columnar; anything else (partition or
// clustering restrictions, indexes, DISTINCT, ORDER BY, PER PARTITION LIMIT, writetime/ttl, functions, JSON, ...)
// stays on the row path. Compiled once per prepared SELECT.

import type { SelectStatement as SelectAst, Selectable } from '../parser/ast.js';
import type { KeyRestrictions } from '../restrictions/key-restrictions.js';
import type { ColumnPredicate } from '../restrictions/row-filter.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { Selection } from '../selection/selection.js';
import type { CqlType } from '../types/cql-type.js';
import { hasTwin } from './twin-schema-source.js';

export type AggregateKind = 'countRows' | 'count' | 'sum' | 'avg' | 'min' | 'max';

/** One output column of an aggregate query. */
export type OutputColumn =
  | { kind: 'aggregate'; fn: AggregateKind; column: number | undefined }
  /** A partition key column (GROUP BY the partition key). */
  | { kind: 'key'; column: number };

export interface ColumnarPlan {
  readonly table: TableMetadata;
  readonly aggregate: boolean;
  readonly outputs: readonly OutputColumn[];
  /** GROUP BY the partition key. */
  readonly grouped: boolean;
  readonly filters: readonly ColumnPredicate[];
  /** Table column indexes the query reads from regular columns. */
  readonly regularColumns: readonly number[];
}

export type PlanResult = { plan: ColumnarPlan } | { reason: string };

const NUMERIC = new Set(['tinyint', 'smallint', 'int', 'bigint', 'float', 'double']);
const FILTER_OPS = new Set(['=', '!=', '<', '<=', '>', '>=']);

export function isNumeric(t: CqlType): boolean {
  return t.kind === 'native' && NUMERIC.has(t.name);
}

function columnOf(table: TableMetadata, s: Selectable): number | undefined {
  if (s.kind !== 'column') return undefined;
  const i = table.columns.findIndex((c) => c.name === s.name);
  return i < 0 ? undefined : i;
}

function aggregateOf(table: TableMetadata, s: Selectable): OutputColumn | string {
  if (s.kind === 'countRows') return { kind: 'aggregate', fn: 'countRows', column: undefined };
  if (s.kind !== 'function' || s.keyspace !== undefined || s.args.length !== 1) return 'selector not supported';
  const name = s.name.toLowerCase();
  const arg = s.args[0]!;
  if (name === 'count' && arg.kind === 'term') return { kind: 'aggregate', fn: 'countRows', column: undefined };
  if (!['count', 'sum', 'avg', 'min', 'max'].includes(name)) return `function ${name} not supported`;
  const i = columnOf(table, arg);
  if (i === undefined) return 'aggregate argument is not a column';
  const c = table.columns[i]!;
  if (c.kind !== 'regular') return 'aggregate over a key column';
  if (name !== 'count' && !isNumeric(c.type)) return `${name} over a non-numeric column`;
  return { kind: 'aggregate', fn: name as AggregateKind, column: i };
}

export function planColumnar(
  ast: SelectAst,
  table: TableMetadata,
  selection: Selection,
  where: KeyRestrictions,
  groupBy: readonly number[],
): PlanResult {
  if (!hasTwin(table)) return { reason: 'table has no twin' };
  if ((table.indexes?.length ?? 0) > 0) return { reason: 'table has indexes' };
  if (where.hasPartitionKey || where.hasClusteringRestrictions) return { reason: 'key restrictions' };
  if (ast.distinct || ast.json || ast.perPartitionLimit || ast.orderBy.length > 0) return { reason: 'query shape' };
  if (selection.needsCellMetadata) return { reason: 'writetime/ttl' };
  // Every WHERE relation must be a token bound or a filter we evaluate (no index took one).
  const tokenRelations = ast.where.filter((r) => r.kind === 'token').length;
  if (tokenRelations + where.filters.length !== ast.where.length) return { reason: 'relations' };
  const regular = new Set<number>();
  for (const f of where.filters) {
    const c = table.columns[f.columnIndex]!;
    if (c.kind !== 'regular' || !isNumeric(c.type)) return { reason: 'filter on a non-numeric or key column' };
    if (!FILTER_OPS.has(f.op) || f.terms.length !== 1 || f.inMarker) return { reason: `filter operator ${f.op}` };
    regular.add(f.columnIndex);
  }
  const grouped = groupBy.length > 0;
  const aggregate = selection.isAggregate || grouped;
  if (grouped) {
    const pk = table.partitionKey.map((c) => table.columns.indexOf(c));
    if (groupBy.length !== pk.length || groupBy.some((g, i) => g !== pk[i]))
      return { reason: 'GROUP BY not the partition key' };
  }
  const outputs: OutputColumn[] = [];
  if (aggregate) {
    for (const sel of ast.selectors) {
      const i = columnOf(table, sel.selectable);
      if (i !== undefined && grouped && table.columns[i]!.kind === 'partition_key') {
        outputs.push({ kind: 'key', column: i });
        continue;
      }
      const o = aggregateOf(table, sel.selectable);
      if (typeof o === 'string') return { reason: o };
      outputs.push(o);
      if (o.kind === 'aggregate' && o.column !== undefined) regular.add(o.column);
    }
  } else {
    // Full scans return rows: tables without clustering columns (rows ordered by token and key).
    if (table.clustering.length > 0) return { reason: 'scan of a clustered table' };
    for (const s of selection.selectors) {
      for (const i of s.columns) if (table.columns[i]!.kind === 'regular') regular.add(i);
    }
    for (const sel of ast.selectors) if (sel.selectable.kind !== 'column') return { reason: 'selector not a column' };
  }
  return {
    plan: {
      table,
      aggregate,
      outputs,
      grouped,
      filters: where.filters,
      regularColumns: [...regular].sort((a, b) => a - b),
    },
  };
}

export function regularColumn(table: TableMetadata, i: number): ColumnMetadata {
  return table.columns[i]!;
}
