// DESCRIBE, answered by the server as Cassandra 5.0 answers it (cqlsh sends it as-is when the
// server's release_version is 4 or more): element listings, CREATE statements, DESCRIBE CLUSTER.
// Errors and their texts follow Cassandra's DescribeStatement.

import { InvalidRequest } from '../errors.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import type { DescribeStatement as DescribeAst, DescribeTarget, QualifiedName } from '../parser/ast.js';
import type { ClientState, ColumnSpec, QueryOptions, ResultMessage } from '../query-handler.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import { native } from '../types/cql-type.js';
import { clusterColumns, clusterRow } from './cluster-description.js';
import { describePagingOffset, encodeDescribePagingState } from './describe-paging.js';
import { compareIgnoreCase } from './java-ordering.js';
import {
  aggregateElement,
  elementColumns,
  findIndexedTable,
  functionElement,
  indexElement,
  isSystemKeyspace,
  keyspaceElement,
  keyspaceElements,
  type SchemaElement,
  sortElements,
  sortedAggregates,
  sortedFunctions,
  sortedKeyspaces,
  sortedTables,
  sortedTypes,
  tableElement,
  tableIndexElements,
  typeElement,
  viewElement,
} from './schema-elements.js';

function column(name: string): ColumnSpec {
  return { keyspace: 'system', table: 'describe', name, type: native('text') };
}

/** Columns of listings (DESCRIBE KEYSPACES, TABLES, ...). */
const LIST_METADATA: readonly ColumnSpec[] = [column('keyspace_name'), column('type'), column('name')];
/** Columns of element descriptions (CREATE statements). */
const ELEMENT_METADATA: readonly ColumnSpec[] = [...LIST_METADATA, column('create_statement')];

type Row = (Buffer | null)[];

function text(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

function validateKeyspace(catalog: SchemaCatalog, name: string): KeyspaceMetadata {
  const ks = catalog.keyspace(name);
  if (!ks) throw new InvalidRequest(`'${name}' not found in keyspaces`);
  return ks;
}

function elementKeyspace(catalog: SchemaCatalog, name: string | undefined, current: string | undefined) {
  const ks = name ?? current;
  if (ks === undefined) throw new InvalidRequest('No keyspace specified and no current keyspace');
  return validateKeyspace(catalog, ks);
}

function isListing(target: DescribeTarget): boolean {
  switch (target.kind) {
    case 'keyspaces':
    case 'tables':
    case 'types':
    case 'functions':
    case 'aggregates':
      return true;
    default:
      return false;
  }
}

/** DESCRIBE CLUSTER adds range ownership only for a non-system keyspace in use. */
function withRangeOwnership(keyspace: string | undefined): boolean {
  return keyspace !== undefined && !SYSTEM_KEYSPACE_NAMES.has(keyspace);
}

export class DescribeStatement implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[] = [];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[];
  readonly isSchemaChange = false;
  /** DESCRIBE CLUSTER's columns depend on the keyspace in use: never let clients skip metadata. */
  readonly variableResultMetadata = true;

  constructor(
    readonly ast: DescribeAst,
    keyspace: string | undefined,
  ) {
    this.resultColumns = this.columns(keyspace);
  }

  private columns(keyspace: string | undefined): readonly ColumnSpec[] {
    const target = this.ast.target;
    if (target.kind === 'cluster') return clusterColumns(withRangeOwnership(keyspace));
    return isListing(target) ? LIST_METADATA : ELEMENT_METADATA;
  }

  execute(ctx: ExecutionContext, state: ClientState, options: QueryOptions): ResultMessage {
    const keyspace = options.keyspace ?? state.keyspace;
    const version = ctx.catalog.version;
    const offset = describePagingOffset(options.pagingState, version);
    let rows = this.describe(ctx, keyspace);
    if (offset > 0) rows = rows.slice(offset);
    let pagingState: Buffer | undefined;
    if (options.pageSize > 0) {
      rows = rows.slice(0, options.pageSize);
      // As Cassandra: a full page always announces another one, which may turn out empty.
      if (rows.length === options.pageSize) pagingState = encodeDescribePagingState(offset + rows.length, version);
    }
    return { kind: 'rows', metadata: { columns: [...this.columns(keyspace)], pagingState }, rows };
  }

  private describe(ctx: ExecutionContext, current: string | undefined): Row[] {
    const target = this.ast.target;
    const catalog = ctx.catalog;
    switch (target.kind) {
      case 'cluster':
        return [clusterRow(ctx.node, withRangeOwnership(current))];
      case 'keyspaces':
        return this.list(sortedKeyspaces(catalog).map(keyspaceElement));
      case 'tables':
        return this.list(this.listed(catalog, current, sortedTables));
      case 'types':
        return this.list(this.listed(catalog, current, sortedTypes));
      case 'functions':
        return this.list(this.listed(catalog, current, sortedFunctions));
      case 'aggregates':
        return this.list(this.listed(catalog, current, sortedAggregates));
      case 'schema':
        return this.elements(
          sortedKeyspaces(catalog)
            .filter((ks) => target.full || !isSystemKeyspace(ks))
            .flatMap((ks) => keyspaceElements(ks, false)),
        );
      case 'keyspace':
        return this.elements(keyspaceElements(elementKeyspace(catalog, target.keyspace, current), target.only));
      case 'table':
        return this.elements(this.describeTable(catalog, target.name, current));
      case 'type': {
        const ks = elementKeyspace(catalog, target.name.keyspace, current);
        const type = ks.types.get(target.name.name);
        if (!type) throw new InvalidRequest(`User defined type '${target.name.name}' not found in '${ks.name}'`);
        return this.elements([typeElement(type)]);
      }
      case 'function': {
        const ks = elementKeyspace(catalog, target.name.keyspace, current);
        const found = [...(ks.functions?.values() ?? [])].filter((f) => f.name === target.name.name);
        if (found.length === 0) {
          throw new InvalidRequest(`User defined function '${target.name.name}' not found in '${ks.name}'`);
        }
        return this.elements(sortElements(found.map(functionElement)));
      }
      case 'aggregate': {
        const ks = elementKeyspace(catalog, target.name.keyspace, current);
        const found = [...(ks.aggregates?.values() ?? [])].filter((a) => a.name === target.name.name);
        if (found.length === 0) {
          throw new InvalidRequest(`User defined aggregate '${target.name.name}' not found in '${ks.name}'`);
        }
        return this.elements(sortElements(found.map(aggregateElement)));
      }
      case 'index':
        return this.elements(this.describeIndex(catalog, target.name, current));
      case 'materializedView':
        return this.elements(this.describeView(catalog, target.name, current));
      case 'generic':
        return this.elements(this.generic(catalog, target.name, current));
    }
  }

  /** Listings cover the keyspace in use, or every keyspace when none is. */
  private listed(
    catalog: SchemaCatalog,
    current: string | undefined,
    provider: (ks: KeyspaceMetadata) => SchemaElement[],
  ): SchemaElement[] {
    const keyspaces = current === undefined ? sortedKeyspaces(catalog) : [validateKeyspace(catalog, current)];
    // Listings are by name, even for types (which DESCRIBE KEYSPACE gives in dependency order).
    return keyspaces.flatMap((ks) => provider(ks).sort((a, b) => compareIgnoreCase(a.name, b.name)));
  }

  private describeTable(catalog: SchemaCatalog, name: QualifiedName, current: string | undefined): SchemaElement[] {
    const ks = elementKeyspace(catalog, name.keyspace, current);
    const table = ks.tables.get(name.name);
    if (!table) throw new InvalidRequest(`Table '${name.name}' not found in keyspace '${ks.name}'`);
    // As Cassandra: the table, then its indexes (its views are not included).
    return [tableElement(ks, table), ...tableIndexElements(table)];
  }

  private describeIndex(catalog: SchemaCatalog, name: QualifiedName, current: string | undefined): SchemaElement[] {
    const ks = elementKeyspace(catalog, name.keyspace, current);
    const found = findIndexedTable(ks, name.name);
    if (!found) throw new InvalidRequest(`Table for existing index '${name.name}' not found in '${ks.name}'`);
    return [indexElement(found.table, found.index)];
  }

  private describeView(catalog: SchemaCatalog, name: QualifiedName, current: string | undefined): SchemaElement[] {
    const ks = elementKeyspace(catalog, name.keyspace, current);
    const view = ks.views?.get(name.name);
    if (!view) throw new InvalidRequest(`Materialized view '${name.name}' not found in '${ks.name}'`);
    return [viewElement(view)];
  }

  /** `DESCRIBE name`: a keyspace, else a table, index or view of the keyspace named or in use. */
  private generic(catalog: SchemaCatalog, name: QualifiedName, current: string | undefined): SchemaElement[] {
    let keyspace = name.keyspace;
    if (keyspace === undefined) {
      const ks = catalog.keyspace(name.name);
      if (ks) return keyspaceElements(ks, false);
      // As Cassandra: with no keyspace in use the name itself is looked up as a keyspace (and not found).
      keyspace = current ?? name.name;
    }
    const ks = validateKeyspace(catalog, keyspace);
    if (ks.tables.has(name.name)) return this.describeTable(catalog, { keyspace, name: name.name }, current);
    if (findIndexedTable(ks, name.name)) return this.describeIndex(catalog, { keyspace, name: name.name }, current);
    if (ks.views?.has(name.name)) return this.describeView(catalog, { keyspace, name: name.name }, current);
    throw new InvalidRequest(`'${name.name}' not found in keyspace '${keyspace}'`);
  }

  private list(elements: SchemaElement[]): Row[] {
    return elements.map((e) => elementColumns(e).map(text));
  }

  private elements(elements: SchemaElement[]): Row[] {
    const internals = this.ast.withInternals;
    return elements.map((e) => [...elementColumns(e).map(text), text(e.toCql(internals))]);
  }
}
