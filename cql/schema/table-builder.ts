// CREATE TABLE (AST) -> TableMetadata, with Cassandra's validation and messages.

import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import type { CreateTableStatement, RawType } from '../parser/ast.js';
import { resolveType } from '../parser/ast.js';
import { type CqlType, cqlTypeToString, isMultiCell } from '../types/cql-type.js';
import type { ColumnKind, ColumnMetadata } from './column-metadata.js';
import { orderColumns, type TableMetadata } from './table-metadata.js';
import { defaultTableOptions } from './table-options.js';
import { applyTableProperties } from './table-options-parser.js';

export type UdtResolver = (keyspace: string | undefined, name: string, frozen: boolean) => CqlType;

function isCounter(t: CqlType): boolean {
  return t.kind === 'native' && t.name === 'counter';
}

/** Types with a non-frozen collection/UDT anywhere cannot be in the primary key. */
function checkKeyType(name: string, t: CqlType): void {
  if (isMultiCell(t))
    throw new InvalidRequest(
      `Invalid non-frozen collection type ${cqlTypeToString(t)} for PRIMARY KEY component ${name}`,
    );
  if (isCounter(t)) throw new InvalidRequest(`counter type is not supported for PRIMARY KEY column '${name}'`);
  if (t.kind === 'native' && t.name === 'duration') {
    throw new InvalidRequest(`duration type is not supported for PRIMARY KEY column '${name}'`);
  }
}

export function buildTableMetadata(
  ast: CreateTableStatement,
  keyspace: string,
  resolveUdt: UdtResolver,
  options: { virtual?: boolean; id?: string } = {},
): TableMetadata {
  const defs = new Map<string, { type: CqlType; isStatic: boolean; raw: RawType }>();
  for (const c of ast.columns) {
    if (defs.has(c.name))
      throw new InvalidRequest(`Duplicate column '${c.name}' declaration for table ${keyspace}.${ast.table.name}`);
    defs.set(c.name, { type: resolveType(c.type, resolveUdt), isStatic: c.isStatic, raw: c.type });
  }
  const keyNames = new Set<string>();
  for (const name of [...ast.partitionKey, ...ast.clustering]) {
    if (!defs.has(name))
      throw new InvalidRequest(`Unknown column '${name}' referenced in PRIMARY KEY for table '${ast.table.name}'`);
    if (keyNames.has(name))
      throw new InvalidRequest(`Duplicate column '${name}' in PRIMARY KEY clause for table '${ast.table.name}'`);
    keyNames.add(name);
  }
  if (ast.partitionKey.length === 0)
    throw new InvalidRequest(`No PRIMARY KEY specified for table '${ast.table.name}' (exactly one required)`);

  const order = new Map<string, boolean>();
  for (const o of ast.clusteringOrder) order.set(o.column, o.descending);
  const notClustering = [...order.keys()].filter((c) => !ast.clustering.includes(c));
  if (notClustering.length > 0) {
    throw new InvalidRequest(
      `Only clustering key columns can be defined in CLUSTERING ORDER directive: [${notClustering.join(', ')}] are not clustering columns`,
    );
  }
  // The directive may name a prefix of the clustering key, in key order.
  [...order.keys()].forEach((id, n) => {
    const c = ast.clustering[n]!;
    if (id !== c) {
      if (order.has(c)) {
        throw new InvalidRequest(
          `The order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (${c} must appear before ${id})`,
        );
      }
      throw new InvalidRequest(`Missing CLUSTERING ORDER for column ${c}`);
    }
  });

  let nextId = 0;
  const columns: ColumnMetadata[] = [];
  let counters = 0;
  let nonCounters = 0;
  for (const [name, d] of defs) {
    let kind: ColumnKind = 'regular';
    let position = -1;
    const pk = ast.partitionKey.indexOf(name);
    const ck = ast.clustering.indexOf(name);
    if (pk >= 0) {
      kind = 'partition_key';
      position = pk;
    } else if (ck >= 0) {
      kind = 'clustering';
      position = ck;
    } else if (d.isStatic) {
      kind = 'static';
    }
    if (kind === 'partition_key' || kind === 'clustering') {
      checkKeyType(name, d.type);
      if (d.isStatic) throw new InvalidRequest(`Static column ${name} cannot be part of the PRIMARY KEY`);
    } else if (isCounter(d.type)) {
      counters++;
    } else {
      nonCounters++;
    }
    columns.push({
      name,
      type: d.type,
      kind,
      position,
      clusteringOrder: kind === 'clustering' ? (order.get(name) ? 'desc' : 'asc') : 'none',
      id: nextId++,
    });
  }
  if (counters > 0 && nonCounters > 0)
    throw new InvalidRequest('Cannot mix counter and non counter columns in the same table');
  if (ast.clustering.length === 0 && columns.some((c) => c.kind === 'static')) {
    throw new InvalidRequest(
      'Static columns are only useful (and thus allowed) if the table has at least one clustering column',
    );
  }
  const { options: tableOptions, id } = applyTableProperties(defaultTableOptions(), ast.properties, true);
  if (counters > 0 && tableOptions.default_time_to_live > 0) {
    throw new InvalidRequest('Cannot set default_time_to_live on a table with counters');
  }
  const ordered = orderColumns(columns);
  return {
    keyspace,
    name: ast.table.name,
    id: options.id ?? id ?? randomUUID(),
    columns: ordered,
    partitionKey: ordered.filter((c) => c.kind === 'partition_key'),
    clustering: ordered.filter((c) => c.kind === 'clustering'),
    options: tableOptions,
    isCounter: counters > 0,
    isVirtual: options.virtual ?? false,
    droppedColumns: [],
    nextColumnId: nextId,
  };
}
