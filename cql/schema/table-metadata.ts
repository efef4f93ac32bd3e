import type { ColumnMetadata } from './column-metadata.js';
import type { IndexMetadata } from './index-metadata.js';
import type { TableOptions } from './table-options.js';

export interface DroppedColumn {
  readonly name: string;
  /** CQL type text at drop time. */
  readonly type: string;
  readonly kind: 'regular' | 'static';
  /** Microseconds. */
  readonly droppedTime: bigint;
}

export interface TableMetadata {
  readonly keyspace: string;
  readonly name: string;
  /** Table id (uuid text). */
  readonly id: string;
  /** Every column, in Cassandra's `SELECT *` order (see orderColumns). */
  readonly columns: readonly ColumnMetadata[];
  readonly partitionKey: readonly ColumnMetadata[];
  readonly clustering: readonly ColumnMetadata[];
  readonly options: TableOptions;
  readonly isCounter: boolean;
  /** Served by code (system tables, virtual tables), not stored in the pool. */
  readonly isVirtual: boolean;
  readonly droppedColumns: readonly DroppedColumn[];
  /** Next column id to hand out (ids are never reused). */
  readonly nextColumnId: number;
  /** Secondary indexes on this table (absent: none). */
  readonly indexes?: readonly IndexMetadata[] | undefined;
}

export function columnByName(table: TableMetadata, name: string): ColumnMetadata | undefined {
  for (const c of table.columns) if (c.name === name) return c;
  return undefined;
}

const RANK = { partition_key: 0, clustering: 1, static: 2, regular: 3 } as const;

/** Orders columns as Cassandra's `SELECT *`: partition key, clustering (by position), statics by name, regulars by name. */
export function orderColumns(columns: readonly ColumnMetadata[]): ColumnMetadata[] {
  const rank = (c: ColumnMetadata) => RANK[c.kind];
  return [...columns].sort((a, b) => {
    const r = rank(a) - rank(b);
    if (r !== 0) return r;
    if (rank(a) < 2) return a.position - b.position;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}

/** The table id as the 16 bytes storage keys its table root by. */
export function tableIdBytes(table: TableMetadata): Buffer {
  return Buffer.from(table.id.replace(/-/g, ''), 'hex');
}
