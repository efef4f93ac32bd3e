// CREATE / ALTER / DROP TABLE and TRUNCATE.

import { maybeQuote } from '../describe/cql-identifiers.js';
import { AlreadyExists, ConfigurationError, InvalidRequest, ServerError } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import {
  ALTER_COLUMN_TYPE_MESSAGE,
  type AlterTableStatement as AlterAst,
  type CreateTableStatement as CreateAst,
  type DropTableStatement as DropAst,
  type QualifiedName,
  resolveType,
  type TruncateStatement as TruncateAst,
} from '../parser/ast.js';
import type { ClientState, ResultMessage } from '../query-handler.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { buildTableMetadata, type UdtResolver } from '../schema/table-builder.js';
import { orderColumns, type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import { applyTableProperties } from '../schema/table-options-parser.js';
import type { ViewMetadata } from '../schema/view-metadata.js';
import { cqlTypeToString, isMultiCell } from '../types/cql-type.js';
import {
  checkColumnDrop,
  checkTableDrop,
  dropIndexStorage,
  truncateDependents,
  viewsOf,
} from '../views/dependents-ddl.js';
import { publishSchemaChange, validateName } from './schema-change.js';
import { checkUserModifiable, SchemaStatement } from './schema-statement.js';
import { lookupTable, resolveKeyspace } from './table-resolution.js';

function existingKeyspace(catalog: SchemaCatalog, name: string): KeyspaceMetadata {
  const ks = catalog.keyspace(name);
  if (!ks) throw new InvalidRequest(`Keyspace '${name}' doesn't exist`);
  return ks;
}

/** Resolves user type names of `keyspace` (types of other keyspaces cannot be used, as in Cassandra). */
export function udtResolver(ks: KeyspaceMetadata): UdtResolver {
  return (keyspace, name, frozen) => {
    if (keyspace !== undefined && keyspace !== ks.name) {
      throw new InvalidRequest(
        `Statement on keyspace ${ks.name} cannot refer to a user type in keyspace ${keyspace}; user types can only be used in the keyspace they are defined in`,
      );
    }
    const t = ks.types.get(name);
    if (!t) throw new InvalidRequest(`Unknown type ${ks.name}.${name}`);
    return { kind: 'udt', keyspace: ks.name, name, fields: t.fields, frozen };
  };
}

export class CreateTableStatement extends SchemaStatement {
  constructor(readonly ast: CreateAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ksName = resolveKeyspace(this.ast.table.keyspace, state.keyspace);
    checkUserModifiable(ksName);
    const ks = existingKeyspace(ctx.catalog, ksName);
    validateName('Table', this.ast.table.name);
    if (ks.tables.has(this.ast.table.name)) {
      if (this.ast.ifNotExists) return { kind: 'void' };
      throw new AlreadyExists(
        `Cannot add already existing table "${this.ast.table.name}" to keyspace "${ksName}"`,
        ksName,
        this.ast.table.name,
      );
    }
    const table = buildTableMetadata(this.ast, ksName, udtResolver(ks));
    checkTableIdFree(ctx.catalog, table);
    ctx.catalog.putTable(table);
    await ctx.storage.createTable(tableIdBytes(table), {
      clustered: table.clustering.length > 0,
      gcGraceSeconds: table.options.gc_grace_seconds,
    });
    return publishSchemaChange(ctx, ksName, { change: 'CREATED', target: 'TABLE', keyspace: ksName, name: table.name });
  }
}

/** `ks.name` as Cassandra's TableMetadata.toString() prints it in messages. */
function tableString(keyspace: string, name: string): string {
  return `${maybeQuote(keyspace)}.${maybeQuote(name)}`;
}

/**
 * `WITH ID` naming an id some table or view already has. Cassandra 5.0 has no explicit check: Guava's
 * ImmutableMap builder of the schema's tables by id throws, which reaches the client as a ServerError.
 */
function checkTableIdFree(catalog: SchemaCatalog, table: TableMetadata): void {
  for (const ks of catalog.keyspaces()) {
    const others = [...ks.tables.values(), ...[...(ks.views?.values() ?? [])].map((v) => v.table)];
    const existing = others.find((t) => t.id === table.id);
    if (existing) {
      throw new ServerError(
        `java.lang.IllegalArgumentException: Multiple entries with same key: ${table.id}=${tableString(existing.keyspace, existing.name)} and ${table.id}=${tableString(table.keyspace, table.name)}`,
      );
    }
  }
}

/** The user table a DROP/ALTER names; undefined when it does not exist and IF EXISTS was given. */
function modifiableTable(
  ctx: ExecutionContext,
  name: QualifiedName,
  state: ClientState,
  ifExists: boolean,
  verb: 'ALTER' | 'DROP',
): { ks: KeyspaceMetadata; table: TableMetadata } | undefined {
  const ksName = resolveKeyspace(name.keyspace, state.keyspace);
  checkUserModifiable(ksName);
  const ks = ctx.catalog.keyspace(ksName);
  const table = ks?.tables.get(name.name);
  if (ks && table) return { ks, table };
  // As Cassandra's Alter/DropTableStatement: a view is found, then refused; no keyspace is "no table".
  if (ks?.views?.has(name.name)) {
    throw new InvalidRequest(`Cannot use ${verb} TABLE on a materialized view; use ${verb} MATERIALIZED VIEW instead`);
  }
  if (ifExists) return undefined;
  throw new InvalidRequest(`Table '${ksName}.${name.name}' doesn't exist`);
}

export class DropTableStatement extends SchemaStatement {
  constructor(readonly ast: DropAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const found = modifiableTable(ctx, this.ast.table, state, this.ast.ifExists, 'DROP');
    if (!found) return { kind: 'void' };
    const { ks, table } = found;
    const ksName = ks.name;
    checkTableDrop(ks, table);
    ctx.catalog.dropTable(ksName, table.name);
    const result = await publishSchemaChange(ctx, ksName, {
      change: 'DROPPED',
      target: 'TABLE',
      keyspace: ksName,
      name: table.name,
    });
    await ctx.storage.dropTable(tableIdBytes(table));
    await dropIndexStorage(ctx, table);
    return result;
  }
}

export class AlterTableStatement extends SchemaStatement {
  constructor(readonly ast: AlterAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const found = modifiableTable(ctx, this.ast.table, state, this.ast.ifExists, 'ALTER');
    if (!found) return { kind: 'void' };
    const { ks, table } = found;
    const ksName = ks.name;
    const updated = this.alter(ks, table);
    if (updated === table) return { kind: 'void' };
    const views = viewsWithAddedColumns(ks, table, updated);
    if (views) {
      const tables = new Map(ks.tables);
      tables.set(updated.name, updated);
      ctx.catalog.putKeyspace({ ...ks, tables, views });
    } else {
      ctx.catalog.putTable(updated);
    }
    // Refreshes gc_grace_seconds of the open store.
    ctx.storage.table(tableIdBytes(updated), updated.options.gc_grace_seconds);
    return publishSchemaChange(ctx, ksName, { change: 'UPDATED', target: 'TABLE', keyspace: ksName, name: table.name });
  }

  private alter(ks: KeyspaceMetadata, table: TableMetadata): TableMetadata {
    const op = this.ast.operation;
    const qualified = tableString(table.keyspace, table.name);
    switch (op.kind) {
      case 'add': {
        let columns = [...table.columns];
        let nextId = table.nextColumnId;
        for (const def of op.columns) {
          if (columns.some((c) => c.name === def.name)) {
            if (op.ifNotExists) continue;
            throw new InvalidRequest(`Column with name '${def.name}' already exists`);
          }
          const type = resolveType(def.type, udtResolver(ks));
          if (def.isStatic && table.clustering.length === 0) {
            throw new InvalidRequest(
              `Static columns are only useful (and thus allowed) if the table has at least one clustering column`,
            );
          }
          const isCounter = type.kind === 'native' && type.name === 'counter';
          if (isCounter !== table.isCounter) {
            // TableMetadata.validate() of the altered table (ConfigurationException, "ks.table: " prefix).
            throw new ConfigurationError(
              `${table.keyspace}.${table.name}: ` +
                (table.isCounter
                  ? `Cannot have a non counter column ("${def.name}") in a counter table`
                  : `Cannot have a counter column ("${def.name}") in a non counter table`),
            );
          }
          const dropped = table.droppedColumns.find((d) => d.name === def.name);
          if (dropped && dropped.type !== cqlTypeToString(type) && isMultiCell(type)) {
            throw new InvalidRequest(
              `Cannot re-add previously dropped column '${def.name}' of type ${cqlTypeToString(type)}, incompatible with previous type ${dropped.type}`,
            );
          }
          const col: ColumnMetadata = {
            name: def.name,
            type,
            kind: def.isStatic ? 'static' : 'regular',
            position: -1,
            clusteringOrder: 'none',
            id: nextId++,
          };
          columns.push(col);
        }
        columns = orderColumns(columns);
        if (nextId === table.nextColumnId) return table;
        return { ...table, columns, nextColumnId: nextId };
      }
      case 'drop': {
        let columns = [...table.columns];
        const dropped = [...table.droppedColumns];
        for (const name of op.columns) {
          const col = columns.find((c) => c.name === name);
          if (!col) {
            if (op.ifExists) continue;
            throw new InvalidRequest(`Column ${name} was not found in table '${qualified}'`);
          }
          if (col.kind === 'partition_key' || col.kind === 'clustering')
            throw new InvalidRequest(`Cannot drop PRIMARY KEY column ${name}`);
          checkColumnDrop(ks, table, name);
          columns = columns.filter((c) => c !== col);
          dropped.push({
            name,
            type: cqlTypeToString(col.type),
            kind: col.kind === 'static' ? 'static' : 'regular',
            droppedTime: op.timestamp ?? BigInt(Date.now()) * 1000n,
          });
        }
        if (columns.length === table.columns.length) return table;
        return { ...table, columns, droppedColumns: dropped };
      }
      case 'rename': {
        let columns = [...table.columns];
        for (const { from, to } of op.renames) {
          // Cassandra 5.0 reads the column with getExistingColumn, which throws before RENAME IF EXISTS is
          // consulted; the other checks look at the table as it was before this statement.
          const col = table.columns.find((c) => c.name === from);
          if (!col) throw new InvalidRequest(`Undefined column name ${maybeQuote(from)} in table ${qualified}`);
          if (col.kind !== 'partition_key' && col.kind !== 'clustering') {
            throw new InvalidRequest(`Cannot rename non PRIMARY KEY column ${from}`);
          }
          if (table.columns.some((c) => c.name === to) || columns.some((c) => c.name === to)) {
            throw new InvalidRequest(
              `Cannot rename column ${from} to ${to} in table '${qualified}'; another column with that name already exists`,
            );
          }
          columns = columns.map((c) => (c.id === col.id ? { ...c, name: to } : c));
        }
        columns = orderColumns(columns);
        return {
          ...table,
          columns,
          partitionKey: columns.filter((c) => c.kind === 'partition_key'),
          clustering: columns.filter((c) => c.kind === 'clustering'),
        };
      }
      case 'with': {
        const { options } = applyTableProperties(table.options, op.properties, false);
        if (table.isCounter && options.default_time_to_live > 0) {
          throw new InvalidRequest('Cannot set default_time_to_live on a table with counters');
        }
        return { ...table, options };
      }
      case 'alterColumnType':
        throw new InvalidRequest(ALTER_COLUMN_TYPE_MESSAGE);
      case 'dropCompactStorage':
        // drop_compact_storage_enabled is false by default in Cassandra 5.0, checked before anything else.
        throw new InvalidRequest('DROP COMPACT STORAGE is disabled. Enable in cassandra.yaml to use.');
      case 'mask':
        throw new InvalidRequest('Dynamic data masking is not supported');
    }
  }
}

export class TruncateStatement extends SchemaStatement {
  override readonly isSchemaChange = false;
  constructor(readonly ast: TruncateAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    // Cassandra 5.0 TruncateStatement.validate: a view is refused, else Schema.validateTable's messages.
    const ks = ctx.catalog.keyspace(resolveKeyspace(this.ast.table.keyspace, state.keyspace));
    if (ks?.views?.has(this.ast.table.name)) {
      throw new InvalidRequest('Cannot TRUNCATE materialized view directly; must truncate base table instead');
    }
    const table = lookupTable(ctx.catalog, this.ast.table, state.keyspace);
    if (table.isVirtual) throw new InvalidRequest(`Error during truncate: Cannot truncate virtual tables`);
    const store = ctx.storage.table(tableIdBytes(table));
    if (store) await store.truncate();
    await truncateDependents(ctx, ks!, table);
    return { kind: 'void' };
  }
}

/**
 * ALTER TABLE ADD on a base table: views selecting `*` get the new regular columns too (as in Cassandra's
 * AlterTableStatement.AddColumns); undefined when no view changes.
 */
function viewsWithAddedColumns(
  ks: KeyspaceMetadata,
  before: TableMetadata,
  after: TableMetadata,
): Map<string, ViewMetadata> | undefined {
  const added = after.columns.filter((c) => c.kind === 'regular' && !before.columns.some((b) => b.name === c.name));
  if (added.length === 0) return undefined;
  const changed = viewsOf(ks, before).filter((v) => v.includeAllColumns);
  if (changed.length === 0) return undefined;
  const views = new Map(ks.views);
  for (const view of changed) {
    let nextId = view.table.nextColumnId;
    const columns = [...view.table.columns, ...added.map((c) => ({ ...c, id: nextId++ }))];
    views.set(view.name, { ...view, table: { ...view.table, columns: orderColumns(columns), nextColumnId: nextId } });
  }
  return views;
}
