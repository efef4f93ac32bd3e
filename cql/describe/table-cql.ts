// TableMetadata.toCqlString: CREATE TABLE as DESCRIBE prints it (Cassandra 5.0), and VIRTUAL TABLE
// inside a comment for tables of virtual keyspaces. With internals: the table id and the history
// of dropped columns (as ALTER TABLE statements), so a replay recreates the same table.

import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { DroppedColumn, TableMetadata } from '../schema/table-metadata.js';
import type { TableOptions } from '../schema/table-options.js';
import { isMultiCell } from '../types/cql-type.js';
import { javaFloatingToString } from '../types/java-number-text.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { typeAsCql } from './cql-type-text.js';
import {
  hashMapCapacityForCopy,
  hashMapCapacityForPuts,
  javaByteBufferHash,
  javaHashMapOrder,
} from './java-ordering.js';

export function qualifiedTableName(t: TableMetadata): string {
  return `${maybeQuote(t.keyspace)}.${maybeQuote(t.name)}`;
}

/**
 * ColumnIdentifier's order (ColumnMetadata.compareTo within one kind): a 6-byte prefix with the top
 * bit of the first byte flipped, then all bytes unsigned.
 */
function compareColumnNames(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  for (let i = 0; i < 6; i++) {
    let p = x[i] ?? 0;
    let q = y[i] ?? 0;
    if (i === 0) {
      p ^= 0x80;
      q ^= 0x80;
    }
    if (p !== q) return p - q;
  }
  return Buffer.compare(x, y);
}

/** Cassandra's Columns order: simple columns before complex (multi-cell) ones, then by name. */
function columnsInCassandraOrder(columns: readonly ColumnMetadata[]): ColumnMetadata[] {
  return [...columns].sort(
    (a, b) => Number(isMultiCell(a.type)) - Number(isMultiCell(b.type)) || compareColumnNames(a.name, b.name),
  );
}

/** allColumnsInCreateOrder: partition key, clustering, statics, regulars. */
function columnsInCreateOrder(t: TableMetadata): ColumnMetadata[] {
  const byPosition = (a: ColumnMetadata, b: ColumnMetadata) => a.position - b.position;
  return [
    ...t.columns.filter((c) => c.kind === 'partition_key').sort(byPosition),
    ...t.columns.filter((c) => c.kind === 'clustering').sort(byPosition),
    ...columnsInCassandraOrder(t.columns.filter((c) => c.kind === 'static')),
    ...columnsInCassandraOrder(t.columns.filter((c) => c.kind === 'regular')),
  ];
}

function columnCql(c: ColumnMetadata): string {
  return `${maybeQuote(c.name)} ${typeAsCql(c.type)}${c.kind === 'static' ? ' static' : ''}`;
}

function droppedColumnCql(d: DroppedColumn): string {
  return `${maybeQuote(d.name)} ${d.type}${d.kind === 'static' ? ' static' : ''}`;
}

/**
 * Dropped columns, one per name (the latest drop), in the order Cassandra holds them after loading the
 * schema: read by name from system_schema.dropped_columns into a HashMap, then copied into another.
 */
function droppedColumns(t: TableMetadata): DroppedColumn[] {
  const byName = new Map<string, DroppedColumn>();
  for (const d of t.droppedColumns) byName.set(d.name, d);
  const names = [...byName.keys()].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  const fetched = javaHashMapOrder(names, javaByteBufferHash, hashMapCapacityForPuts(names.length));
  return javaHashMapOrder(fetched, javaByteBufferHash, hashMapCapacityForCopy(names.length)).map((n) => byName.get(n)!);
}

function double(n: number): string {
  return javaFloatingToString(n, false);
}

/** TableParams.appendCqlTo (5.0): alphabetical except `memtable`, which Cassandra prints after compression. */
export function appendTableParams(b: CqlBuilder, o: TableOptions, isView = false): void {
  const extensions: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.extensions)) extensions[k] = `0x${Buffer.from(v).toString('hex')}`;
  b.append('additional_write_policy = ')
    .appendWithSingleQuotes(o.additional_write_policy)
    .newLine()
    .append(`AND allow_auto_snapshot = ${o.allow_auto_snapshot}`)
    .newLine()
    .append(`AND bloom_filter_fp_chance = ${double(o.bloom_filter_fp_chance)}`)
    .newLine()
    .append('AND caching = ')
    .appendMap(o.caching)
    .newLine()
    .append(`AND cdc = ${o.cdc}`)
    .newLine()
    .append('AND comment = ')
    .appendWithSingleQuotes(o.comment)
    .newLine()
    .append('AND compaction = ')
    .appendMap(o.compaction)
    .newLine()
    .append('AND compression = ')
    .appendMap(o.compression)
    .newLine()
    .append('AND memtable = ')
    .appendWithSingleQuotes(o.memtable)
    .newLine()
    .append(`AND crc_check_chance = ${double(o.crc_check_chance)}`)
    .newLine();
  // Views have no default_time_to_live of their own (TableParams.appendCqlTo(builder, isView)).
  if (!isView) b.append(`AND default_time_to_live = ${o.default_time_to_live}`).newLine();
  b.append('AND extensions = ')
    .appendMap(extensions, false)
    .newLine()
    .append(`AND gc_grace_seconds = ${o.gc_grace_seconds}`)
    .newLine()
    .append(`AND incremental_backups = ${o.incremental_backups}`)
    .newLine()
    .append(`AND max_index_interval = ${o.max_index_interval}`)
    .newLine()
    .append(`AND memtable_flush_period_in_ms = ${o.memtable_flush_period_in_ms}`)
    .newLine()
    .append(`AND min_index_interval = ${o.min_index_interval}`)
    .newLine()
    .append('AND read_repair = ')
    .appendWithSingleQuotes(o.read_repair)
    .newLine()
    .append('AND speculative_retry = ')
    .appendWithSingleQuotes(o.speculative_retry);
}

function keyColumns(t: TableMetadata, kind: 'partition_key' | 'clustering'): ColumnMetadata[] {
  return t.columns.filter((c) => c.kind === kind).sort((a, c) => a.position - c.position);
}

/** TableMetadata.appendPrimaryKey: `PRIMARY KEY ((pk1, pk2), ck1, ck2)` and a new line. */
export function appendPrimaryKey(b: CqlBuilder, t: TableMetadata): void {
  const pk = keyColumns(t, 'partition_key');
  const ck = keyColumns(t, 'clustering');
  const partition = pk.length > 1 ? `(${pk.map((c) => maybeQuote(c.name)).join(', ')})` : maybeQuote(pk[0]!.name);
  const clustering = ck.map((c) => `, ${maybeQuote(c.name)}`).join('');
  b.append(`PRIMARY KEY (${partition}${clustering})`).newLine();
}

/** TableMetadata.appendTableOptions: ID (with internals), CLUSTERING ORDER BY, the parameters, `;`. */
export function appendTableOptions(
  b: CqlBuilder,
  t: TableMetadata,
  opts: { readonly virtual: boolean; readonly withInternals: boolean; readonly isView: boolean },
): void {
  if (opts.withInternals) b.append(`ID = ${t.id}`).newLine().append('AND ');
  const ck = keyColumns(t, 'clustering');
  if (ck.length > 0) {
    const order = ck.map((c) => `${maybeQuote(c.name)} ${c.clusteringOrder === 'desc' ? 'DESC' : 'ASC'}`).join(', ');
    b.append(`CLUSTERING ORDER BY (${order})`).newLine().append('AND ');
  }
  if (opts.virtual) b.append('comment = ').appendWithSingleQuotes(t.options.comment);
  else appendTableParams(b, t.options, opts.isView);
  b.append(';');
}

/** Columns.selectOrderIterator within statics, then regulars: by name only (simple and complex mixed). */
export function columnsInSelectOrder(t: TableMetadata): ColumnMetadata[] {
  const byName = (a: ColumnMetadata, b: ColumnMetadata) => compareColumnNames(a.name, b.name);
  return [
    ...keyColumns(t, 'partition_key'),
    ...keyColumns(t, 'clustering'),
    ...t.columns.filter((c) => c.kind === 'static').sort(byName),
    ...t.columns.filter((c) => c.kind === 'regular').sort(byName),
  ];
}

export interface TableCqlOptions {
  /** The table belongs to a virtual keyspace: printed as a commented VIRTUAL TABLE. */
  readonly virtual: boolean;
  /** WITH INTERNALS: table id and dropped columns. */
  readonly withInternals: boolean;
}

export function tableCql(t: TableMetadata, { virtual, withInternals }: TableCqlOptions): string {
  const b = new CqlBuilder();
  const name = qualifiedTableName(t);
  const dropped = withInternals ? droppedColumns(t) : [];
  const droppedNames = new Set(dropped.map((d) => d.name));
  if (virtual) {
    b.append(
      `/*\nWarning: Table ${name} is a virtual table and cannot be recreated with CQL.\nStructure, for reference:\n`,
    );
  }
  b.append(`${virtual ? 'VIRTUAL' : 'CREATE'} TABLE ${name} (`)
    .newLine()
    .increaseIndent();

  const pk = t.columns.filter((c) => c.kind === 'partition_key').sort((a, c) => a.position - c.position);
  const ck = t.columns.filter((c) => c.kind === 'clustering').sort((a, c) => a.position - c.position);
  const singleColumnKey = pk.length === 1 && ck.length === 0;
  // A column re-added after a drop comes after its drop (ALTER TABLE ... ADD below), not here.
  const columns = columnsInCreateOrder(t).filter((c) => !droppedNames.has(c.name));
  columns.forEach((c, i) => {
    b.append(columnCql(c));
    if (singleColumnKey && c.kind === 'partition_key') b.append(' PRIMARY KEY');
    if (!singleColumnKey || dropped.length > 0 || i < columns.length - 1) b.append(',');
    b.newLine();
  });
  dropped.forEach((d, i) => {
    b.append(droppedColumnCql(d));
    if (!singleColumnKey || i < dropped.length - 1) b.append(',');
    b.newLine();
  });
  if (!singleColumnKey) appendPrimaryKey(b, t);
  b.decreaseIndent().append(')');

  b.append(' WITH ').increaseIndent();
  appendTableOptions(b, t, { virtual, withInternals, isView: false });
  b.decreaseIndent();
  if (virtual) b.newLine().append('*/');

  for (const d of dropped) {
    b.newLine().append(`ALTER TABLE ${name} DROP ${maybeQuote(d.name)} USING TIMESTAMP ${d.droppedTime};`);
    const current = t.columns.find((c) => c.name === d.name);
    if (current) b.newLine().append(`ALTER TABLE ${name} ADD ${columnCql(current)};`);
  }
  return b.toString();
}
