// A materialized view: its own table (columns, key, options, id: what reads and system_schema.columns
// use) plus how it derives from its base table (system_schema.views).

import type { Relation } from '../parser/ast.js';
import type { TableMetadata } from './table-metadata.js';

export interface ViewMetadata {
  readonly keyspace: string;
  readonly name: string;
  readonly baseTableId: string;
  readonly baseTableName: string;
  /** `SELECT *`. */
  readonly includeAllColumns: boolean;
  /** The WHERE clause as CQL text (system_schema.views.where_clause). */
  readonly whereClause: string;
  /** Restrictions of the WHERE clause other than IS NOT NULL (on base key columns, literal values). */
  readonly filters?: readonly Relation[] | undefined;
  /** The view's table: partition key, clustering, regular columns, options; its id names its storage. */
  readonly table: TableMetadata;
}
