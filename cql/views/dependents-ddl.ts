// What table DDL must do about a table's secondary indexes and materialized views (Cassandra 5.0's rules and
// messages): refuse to drop a table views depend on or a column an index / view uses, drop index storage with
// the table, and truncate indexes and views with it.

import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { indexStorageIdBytes } from '../schema/index-metadata.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import type { ViewMetadata } from '../schema/view-metadata.js';

export function viewsOf(ks: KeyspaceMetadata, table: TableMetadata): ViewMetadata[] {
  return [...(ks.views?.values() ?? [])].filter((v) => v.baseTableId === table.id);
}

/** DROP TABLE: refused while views depend on the table (DropTableStatement). */
export function checkTableDrop(ks: KeyspaceMetadata, table: TableMetadata): void {
  const views = viewsOf(ks, table);
  if (views.length > 0) {
    // Cassandra 4.0+ passes the view names as an extra format argument, so only the keyspace shows.
    throw new InvalidRequest(`Cannot drop a table when materialized views still depend on it (${ks.name})`);
  }
}

/** ALTER TABLE DROP column: refused while an index or a view uses it (AlterTableStatement.DropColumns). */
export function checkColumnDrop(ks: KeyspaceMetadata, table: TableMetadata, column: string): void {
  const indexes = (table.indexes ?? []).filter((i) => i.column === column);
  if (indexes.length > 0) {
    throw new InvalidRequest(
      `Cannot drop column ${column} because it has dependent secondary indexes (${indexes.map((i) => i.name).join(',')})`,
    );
  }
  if (viewsOf(ks, table).length > 0)
    throw new InvalidRequest(`Cannot drop column ${column} on base table ${table.name} with materialized views`);
}

/** After DROP TABLE: the storage of its indexes (their schema went with the table). */
export async function dropIndexStorage(ctx: ExecutionContext, table: TableMetadata): Promise<void> {
  for (const index of table.indexes ?? []) await ctx.storage.dropTable(indexStorageIdBytes(index));
}

/** TRUNCATE: the table's index entries and views go too. */
export async function truncateDependents(
  ctx: ExecutionContext,
  ks: KeyspaceMetadata,
  table: TableMetadata,
): Promise<void> {
  for (const index of table.indexes ?? []) await ctx.storage.table(indexStorageIdBytes(index))?.truncate();
  for (const view of viewsOf(ks, table)) await ctx.storage.table(tableIdBytes(view.table))?.truncate();
}

/** After DROP KEYSPACE: the storage of every index and view it held. */
export async function dropKeyspaceDependents(ctx: ExecutionContext, ks: KeyspaceMetadata): Promise<void> {
  for (const table of ks.tables.values()) await dropIndexStorage(ctx, table);
  for (const view of ks.views?.values() ?? []) await ctx.storage.dropTable(tableIdBytes(view.table));
}
