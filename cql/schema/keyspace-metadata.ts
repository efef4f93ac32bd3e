import type { CqlType } from '../types/cql-type.js';
import type { TableMetadata } from './table-metadata.js';

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
}
