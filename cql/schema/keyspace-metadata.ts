import type { UserAggregateMetadata, UserFunctionMetadata } from '../functions/user-function-metadata.js';
import type { CqlType } from '../types/cql-type.js';
import type { TableMetadata } from './table-metadata.js';
import type { ViewMetadata } from './view-metadata.js';

export interface UserTypeMetadata {
  readonly keyspace: string;
  readonly name: string;
  readonly fields: readonly { readonly name: string; readonly type: CqlType }[];
}

export interface KeyspaceMetadata {
  readonly name: string;
  readonly durableWrites: boolean;
  /** As system_schema.keyspaces shows it: fully qualified `class` plus options. */
  readonly replication: Readonly<Record<string, string>>;
  readonly tables: ReadonlyMap<string, TableMetadata>;
  readonly types: ReadonlyMap<string, UserTypeMetadata>;
  /** Virtual keyspaces are listed in system_virtual_schema, not system_schema. */
  readonly virtual: boolean;
  /** User-defined functions by signature `name(type, ...)`. */
  readonly functions?: ReadonlyMap<string, UserFunctionMetadata>;
  /** User-defined aggregates by signature. */
  readonly aggregates?: ReadonlyMap<string, UserAggregateMetadata>;
  /** Materialized views by name (absent: none). */
  readonly views?: ReadonlyMap<string, ViewMetadata> | undefined;
}
