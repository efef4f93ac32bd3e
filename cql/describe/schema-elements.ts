// What DESCRIBE lists: keyspaces, types, functions, aggregates, tables, indexes and materialized
// views as Cassandra's SchemaElement, with the orders DescribeStatement gives them.

import type { UserAggregateMetadata, UserFunctionMetadata } from '../functions/user-function-metadata.js';
import type { IndexMetadata } from '../schema/index-metadata.js';
import type { KeyspaceMetadata, UserTypeMetadata } from '../schema/keyspace-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { ViewMetadata } from '../schema/view-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import type { CqlType } from '../types/cql-type.js';
import { maybeQuote } from './cql-identifiers.js';
import { aggregateCql, functionCql, functionElementName } from './function-cql.js';
import { indexCql } from './index-cql.js';
import { compareIgnoreCase, compareSignedBytes } from './java-ordering.js';
import { keyspaceCql } from './keyspace-cql.js';
import { tableCql } from './table-cql.js';
import { userTypeCql } from './user-type-cql.js';
import { viewCql } from './view-cql.js';

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

/** SchemaElement.elementNameQuotedIfNeeded: for functions and aggregates only the name before `(`. */
function quotedElementName(e: SchemaElement): string {
  if (e.type === 'function' || e.type === 'aggregate') {
    const i = e.name.indexOf('(');
    return maybeQuote(e.name.slice(0, i)) + e.name.slice(i);
  }
  return maybeQuote(e.name);
}

/** The keyspace_name / type / name columns of a DESCRIBE row. */
export function elementColumns(e: SchemaElement): [string, string, string] {
  return [maybeQuote(e.keyspace), e.type, quotedElementName(e)];
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

export function functionElement(f: UserFunctionMetadata): SchemaElement {
  return {
    type: 'function',
    keyspace: f.keyspace,
    name: functionElementName(f.name, f.argTypes),
    toCql: () => functionCql(f),
  };
}

export function aggregateElement(a: UserAggregateMetadata): SchemaElement {
  return {
    type: 'aggregate',
    keyspace: a.keyspace,
    name: functionElementName(a.name, a.argTypes),
    toCql: () => aggregateCql(a),
  };
}

export function indexElement(t: TableMetadata, index: IndexMetadata): SchemaElement {
  return { type: 'index', keyspace: t.keyspace, name: index.name, toCql: () => indexCql(index, t) };
}

export function viewElement(v: ViewMetadata): SchemaElement {
  return {
    type: 'materialized_view',
    keyspace: v.keyspace,
    name: v.name,
    toCql: (withInternals) => viewCql(v, withInternals),
  };
}

/** SchemaElement.NAME_COMPARATOR: String.compareToIgnoreCase on the element names. */
export function sortElements(elements: SchemaElement[]): SchemaElement[] {
  return elements.sort((a, b) => compareIgnoreCase(a.name, b.name));
}

/** Functions (by name, ignoring case), name being `name(types)` for overloads. */
export function sortedFunctions(ks: KeyspaceMetadata): SchemaElement[] {
  return sortElements([...(ks.functions?.values() ?? [])].map(functionElement));
}

export function sortedAggregates(ks: KeyspaceMetadata): SchemaElement[] {
  return sortElements([...(ks.aggregates?.values() ?? [])].map(aggregateElement));
}

/** The indexes of a table, by name ignoring case. */
export function tableIndexElements(t: TableMetadata): SchemaElement[] {
  return sortElements((t.indexes ?? []).map((i) => indexElement(t, i)));
}

/** The materialized views of a base table, by name ignoring case. */
export function tableViewElements(ks: KeyspaceMetadata, t: TableMetadata): SchemaElement[] {
  const views = [...(ks.views?.values() ?? [])].filter((v) => v.baseTableId === t.id);
  return sortElements(views.map(viewElement));
}

/** The table in which an index of this name is (KeyspaceMetadata.findIndexedTable). */
export function findIndexedTable(
  ks: KeyspaceMetadata,
  name: string,
): { table: TableMetadata; index: IndexMetadata } | undefined {
  for (const table of ks.tables.values()) {
    const index = table.indexes?.find((i) => i.name === name);
    if (index) return { table, index };
  }
  return undefined;
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
  if (!onlyKeyspace) {
    out.push(...sortedTypes(ks), ...sortedFunctions(ks), ...sortedAggregates(ks));
    for (const t of byName(ks.tables.values())) {
      out.push(tableElement(ks, t), ...tableIndexElements(t), ...tableViewElements(ks, t));
    }
  }
  return out;
}
