// What DESCRIBE lists: keyspaces, types, tables (functions, aggregates, indexes and views once
// they exist) as Cassandra's SchemaElement, with the orders DescribeStatement gives them.

import type { KeyspaceMetadata, UserTypeMetadata } from '../schema/keyspace-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import type { CqlType } from '../types/cql-type.js';
import { maybeQuote } from './cql-identifiers.js';
import { compareIgnoreCase, compareSignedBytes } from './java-ordering.js';
import { keyspaceCql } from './keyspace-cql.js';
import { tableCql } from './table-cql.js';
import { userTypeCql } from './user-type-cql.js';

export type SchemaElementType =
  | 'keyspace'
  | 'type'
  | 'function'
  | 'aggregate'
  | 'table'
  | 'index'
  | 'materialized_view';

export interface SchemaElement {
  readonly type: SchemaElementType;
  readonly keyspace: string;
  readonly name: string;
  toCql(withInternals: boolean): string;
}

/** The keyspace_name / type / name columns of a DESCRIBE row. */
export function elementColumns(e: SchemaElement): [string, string, string] {
  return [maybeQuote(e.keyspace), e.type, maybeQuote(e.name)];
}

/** SchemaConstants.isSystemKeyspace: local, replicated and virtual system keyspaces. */
export function isSystemKeyspace(ks: KeyspaceMetadata): boolean {
  return ks.virtual || SYSTEM_KEYSPACE_NAMES.has(ks.name);
}

export function keyspaceElement(ks: KeyspaceMetadata): SchemaElement {
  return { type: 'keyspace', keyspace: ks.name, name: ks.name, toCql: () => keyspaceCql(ks) };
}

export function typeElement(t: UserTypeMetadata): SchemaElement {
  return { type: 'type', keyspace: t.keyspace, name: t.name, toCql: () => userTypeCql(t) };
}

export function tableElement(ks: KeyspaceMetadata, t: TableMetadata): SchemaElement {
  return {
    type: 'table',
    keyspace: t.keyspace,
    name: t.name,
    toCql: (withInternals) => tableCql(t, { virtual: ks.virtual, withInternals }),
  };
}

function byName<T extends { readonly name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => compareIgnoreCase(a.name, b.name));
}

/** Every keyspace, system and virtual ones included, sorted by name ignoring case. */
export function sortedKeyspaces(catalog: SchemaCatalog): KeyspaceMetadata[] {
  return byName(catalog.keyspaces());
}

export function sortedTables(ks: KeyspaceMetadata): SchemaElement[] {
  return byName(ks.tables.values()).map((t) => tableElement(ks, t));
}

/** Types.sortedStream: in name order, each type after the types it uses, so that they replay. */
export function sortedTypes(ks: KeyspaceMetadata): SchemaElement[] {
  const names = [...ks.types.keys()].sort(compareSignedBytes);
  const sorted = new Set<string>();
  const visit = (t: CqlType): void => {
    switch (t.kind) {
      case 'list':
      case 'set':
      case 'vector':
        visit(t.element);
        break;
      case 'map':
        visit(t.key);
        visit(t.value);
        break;
      case 'tuple':
        for (const e of t.elements) visit(e);
        break;
      case 'udt':
        for (const f of t.fields) visit(f.type);
        if (t.keyspace === ks.name && ks.types.has(t.name)) sorted.add(t.name);
        break;
    }
  };
  for (const name of names) {
    const t = ks.types.get(name)!;
    for (const f of t.fields) visit(f.type);
    sorted.add(name);
  }
  return [...sorted].map((n) => typeElement(ks.types.get(n)!));
}

/** The keyspace, then (unless `onlyKeyspace`) its types, functions, aggregates and tables with their indexes and views. */
export function keyspaceElements(ks: KeyspaceMetadata, onlyKeyspace: boolean): SchemaElement[] {
  const out = [keyspaceElement(ks)];
  if (!onlyKeyspace) out.push(...sortedTypes(ks), ...sortedTables(ks));
  return out;
}
