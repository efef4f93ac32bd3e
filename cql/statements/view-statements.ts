// CREATE / ALTER / DROP MATERIALIZED VIEW with Cassandra 5.0's restrictions and messages (CreateViewStatement).
// A view is a table of its own in storage, filled from the base table's existing rows before CREATE returns,
// then maintained in the same transaction as every base write (cql/views/dependent-writes.ts).

import { randomUUID } from 'node:crypto';
import { AlreadyExists, InvalidRequest } from '../errors.js';
import { BindSpecs } from '../execution/bound-term.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type {
  AlterViewStatement as AlterAst,
  CreateViewStatement as CreateAst,
  DropViewStatement as DropAst,
  Relation,
  Term,
} from '../parser/ast.js';
import type { ClientState, ResultMessage } from '../query-handler.js';
import { bindPredicate, preparePredicate } from '../restrictions/row-filter.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import { orderColumns, type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import { defaultTableOptions } from '../schema/table-options.js';
import { applyTableProperties } from '../schema/table-options-parser.js';
import type { ViewMetadata } from '../schema/view-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import { cqlTypeToString, isMultiCell, referencesDuration } from '../types/cql-type.js';
import { buildView } from '../views/view-build.js';
import { publishSchemaChange, validateName } from './schema-change.js';
import { SchemaStatement } from './schema-statement.js';
import { resolveKeyspace } from './table-resolution.js';

const FILTER_OPS = new Set(['=', '<', '<=', '>', '>=', 'IN']);

/** A literal as CQL text (where_clause), undefined for anything else. */
function termText(t: Term): string | undefined {
  if (t.kind !== 'literal') return undefined;
  return t.type === 'string' ? `'${t.text.replaceAll("'", "''")}'` : t.text;
}

function cqlName(name: string): string {
  return /^[a-z][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

export class CreateViewStatement extends SchemaStatement {
  constructor(readonly ast: CreateAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ast = this.ast;
    const ksName = resolveKeyspace(ast.view.keyspace, state.keyspace);
    const viewName = ast.view.name;
    if (ast.baseTable.keyspace !== undefined && ast.baseTable.keyspace !== ksName)
      throw new InvalidRequest('Cannot create a materialized view on a table in a different keyspace');
    if (ast.bindMarkers.length > 0)
      throw new InvalidRequest('Bind variables are not allowed in CREATE MATERIALIZED VIEW statements');
    if (SYSTEM_KEYSPACE_NAMES.has(ksName)) throw new InvalidRequest(`${ksName} keyspace is not user-modifiable`);
    const ks = ctx.catalog.keyspace(ksName);
    if (!ks) throw new InvalidRequest(`Keyspace '${ksName}' doesn't exist`);
    const baseName = ast.baseTable.name;
    if (ks.views?.has(baseName))
      throw new InvalidRequest('Materialized views cannot be created against other materialized views');
    const base = ks.tables.get(baseName);
    if (!base) throw new InvalidRequest(`Base table '${baseName}' doesn't exist`);
    if (ks.tables.has(viewName))
      throw new InvalidRequest(
        `Cannot create materialized view '${viewName}' - a table with the same name already exists`,
      );
    if (ks.views?.has(viewName)) {
      if (ast.ifNotExists) return { kind: 'void' };
      throw new AlreadyExists(
        `Cannot add already existing table "${viewName}" to keyspace "${ksName}"`,
        ksName,
        viewName,
      );
    }
    validateName('Table', viewName);
    if (base.isCounter) throw new InvalidRequest('Materialized views are not supported on counter tables');
    if (base.options.gc_grace_seconds === 0) {
      throw new InvalidRequest(
        `Cannot create materialized view '${viewName}' for base table '${baseName}' with gc_grace_seconds of 0, since this value is used to TTL undelivered updates. Setting gc_grace_seconds too low might cause undelivered updates to expire before being replayed.`,
      );
    }

    // SELECT clause.
    const selected = new Set<string>();
    if (ast.selectors.length === 0) for (const c of base.columns) selected.add(c.name);
    for (const s of ast.selectors) {
      const name = s.selectable.kind === 'column' ? s.selectable.name : undefined;
      if (s.alias !== undefined)
        throw new InvalidRequest(
          `Cannot use aliases when defining a materialized view (got ${name ?? '?'} AS ${s.alias})`,
        );
      if (name === undefined)
        throw new InvalidRequest('Can only select columns by name when defining a materialized view');
      if (!base.columns.some((c) => c.name === name))
        throw new InvalidRequest(`Undefined column name ${name} in table ${ksName}.${baseName}`);
      selected.add(name);
    }
    for (const name of selected) {
      const c = base.columns.find((x) => x.name === name)!;
      if (c.kind === 'static')
        throw new InvalidRequest(`Cannot include static column '${c.name}' in materialized view '${viewName}'`);
    }

    // PRIMARY KEY and CLUSTERING ORDER BY.
    const keyNames = new Set<string>();
    for (const name of [...ast.partitionKey, ...ast.clustering]) {
      const c = base.columns.find((x) => x.name === name);
      if (!c || !selected.has(name))
        throw new InvalidRequest(
          `Unknown column '${name}' referenced in PRIMARY KEY for materialized view '${viewName}'`,
        );
      if (keyNames.has(name))
        throw new InvalidRequest(
          `Duplicate column '${name}' in PRIMARY KEY clause for materialized view '${viewName}'`,
        );
      keyNames.add(name);
      if (isMultiCell(c.type)) {
        const what = c.type.kind === 'udt' ? 'user-defined type' : 'collection type';
        throw new InvalidRequest(
          `Invalid non-frozen ${what} '${cqlTypeToString(c.type)}' for PRIMARY KEY column '${name}'`,
        );
      }
      if (c.type.kind === 'native' && c.type.name === 'counter')
        throw new InvalidRequest(`counter type is not supported for PRIMARY KEY column '${name}'`);
      if (referencesDuration(c.type))
        throw new InvalidRequest(`duration type is not supported for PRIMARY KEY column '${name}'`);
    }
    const order = ast.clusteringOrder;
    if (
      order.length > 0 &&
      (order.length !== ast.clustering.length || order.some((o, i) => o.column !== ast.clustering[i]))
    )
      throw new InvalidRequest('Clustering key columns must exactly match columns in CLUSTERING ORDER BY directive');
    const basePk = [...base.partitionKey, ...base.clustering];
    const missing = basePk.filter((c) => !keyNames.has(c.name));
    if (missing.length > 0) {
      throw new InvalidRequest(
        `Cannot create materialized view '${viewName}' without primary key columns ${missing.map((c) => c.name).join(', ')} from base table '${baseName}'`,
      );
    }
    const regularInKey = [...keyNames].filter((n) => !basePk.some((c) => c.name === n));
    if (regularInKey.length > 1) {
      throw new InvalidRequest(
        `Cannot include more than one non-primary key column in materialized view primary key (got ${regularInKey.join(', ')})`,
      );
    }

    // WHERE clause.
    const restricted = new Set<string>();
    const parts: string[] = [];
    const filters: Relation[] = [];
    for (const r of ast.where) this.checkRelation(r, base, viewName, restricted, parts, filters);
    const unrestricted = [...keyNames].filter((n) => !restricted.has(n));
    if (unrestricted.length > 0) {
      throw new InvalidRequest(
        `Primary key columns ${unrestricted.join(', ')} must be restricted with 'IS NOT NULL' or otherwise`,
      );
    }

    // WITH.
    if (ast.properties.has('default_time_to_live')) {
      throw new InvalidRequest(
        'Cannot set default_time_to_live for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table.',
      );
    }
    const { options, id } = applyTableProperties(defaultTableOptions(), ast.properties, true);

    let nextId = 0;
    const col = (name: string, kind: ColumnMetadata['kind'], position: number): ColumnMetadata => {
      const b = base.columns.find((c) => c.name === name)!;
      // Without CLUSTERING ORDER BY, a base clustering column keeps its base order (CreateViewStatement).
      const explicit = order.find((o) => o.column === name);
      const desc =
        kind === 'clustering' && (explicit ? explicit.descending : order.length === 0 && b.clusteringOrder === 'desc');
      return {
        name,
        type: b.type,
        kind,
        position,
        clusteringOrder: kind === 'clustering' ? (desc ? 'desc' : 'asc') : 'none',
        id: nextId++,
      };
    };
    const columns = [
      ...ast.partitionKey.map((n, i) => col(n, 'partition_key', i)),
      ...ast.clustering.map((n, i) => col(n, 'clustering', i)),
      ...[...selected].filter((n) => !keyNames.has(n)).map((n) => col(n, 'regular', -1)),
    ];
    const ordered = orderColumns(columns);
    const table: TableMetadata = {
      keyspace: ksName,
      name: viewName,
      id: id ?? randomUUID(),
      columns: ordered,
      partitionKey: ordered.filter((c) => c.kind === 'partition_key'),
      clustering: ordered.filter((c) => c.kind === 'clustering'),
      options,
      isCounter: false,
      isVirtual: false,
      droppedColumns: [],
      nextColumnId: nextId,
    };
    const view: ViewMetadata = {
      keyspace: ksName,
      name: viewName,
      baseTableId: base.id,
      baseTableName: base.name,
      includeAllColumns: ast.selectors.length === 0,
      whereClause: parts.join(' AND '),
      filters: filters.length > 0 ? filters : undefined,
      table,
    };
    const viewStore = await ctx.storage.createTable(tableIdBytes(table), {
      clustered: table.clustering.length > 0,
      gcGraceSeconds: options.gc_grace_seconds,
    });
    const current = ctx.catalog.keyspace(ksName)!;
    const views = new Map(current.views ?? []);
    views.set(viewName, view);
    ctx.catalog.putKeyspace({ ...current, views });
    const baseStore = ctx.storage.table(tableIdBytes(base));
    if (baseStore) await ctx.viewBuilds.build(ksName, viewName, () => buildView(base, view, baseStore, viewStore));
    return publishSchemaChange(ctx, ksName, { change: 'CREATED', target: 'TABLE', keyspace: ksName, name: viewName });
  }

  private checkRelation(
    r: Relation,
    base: TableMetadata,
    viewName: string,
    restricted: Set<string>,
    parts: string[],
    filters: Relation[],
  ): void {
    if (r.kind === 'token') throw new InvalidRequest('Cannot use token relation when defining a materialized view');
    if (r.kind === 'customIndex')
      throw new InvalidRequest(
        `WHERE clause for materialized view '${viewName}' cannot contain custom index expressions`,
      );
    if (r.kind !== 'single') throw new InvalidRequest(`Unsupported restriction in materialized view '${viewName}'`);
    const c = base.columns.find((x) => x.name === r.column);
    if (!c) throw new InvalidRequest(`Undefined column name ${r.column} in table ${base.keyspace}.${base.name}`);
    const isKey = c.kind === 'partition_key' || c.kind === 'clustering';
    if (r.op !== 'IS NOT') {
      if (!isKey) {
        throw new InvalidRequest(
          `Non-primary key columns can only be restricted with 'IS NOT NULL' (got: ${c.name} restricted illegally)`,
        );
      }
      const text =
        r.op === 'IN'
          ? r.in?.kind === 'terms' && r.in.terms.every((t) => termText(t) !== undefined)
            ? `(${r.in.terms.map((t) => termText(t)).join(', ')})`
            : undefined
          : r.value && termText(r.value);
      if (!FILTER_OPS.has(r.op) || text === undefined) {
        throw new InvalidRequest(
          `Only IS NOT NULL, =, IN and comparisons with literals are supported in materialized view WHERE clauses (got ${c.name} ${r.op})`,
        );
      }
      // Validates the literal against the column type now rather than on the first write.
      bindPredicate(preparePredicate(base, r, new BindSpecs(0)), [], c.name);
      filters.push(r);
      restricted.add(c.name);
      parts.push(`${cqlName(c.name)} ${r.op} ${text}`);
      return;
    }
    restricted.add(c.name);
    parts.push(`${cqlName(c.name)} IS NOT NULL`);
  }
}

export class DropViewStatement extends SchemaStatement {
  constructor(readonly ast: DropAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ksName = resolveKeyspace(this.ast.view.keyspace, state.keyspace);
    const name = this.ast.view.name;
    const ks = ctx.catalog.keyspace(ksName);
    const view = ks?.views?.get(name);
    if (!ks || !view) {
      if (this.ast.ifExists) return { kind: 'void' };
      if (ks?.tables.has(name))
        throw new InvalidRequest(`Cannot use DROP MATERIALIZED VIEW on table ${ksName}.${name}`);
      throw new InvalidRequest(`Materialized view '${ksName}.${name}' doesn't exist`);
    }
    const views = new Map(ks.views);
    views.delete(name);
    ctx.catalog.putKeyspace({ ...ks, views });
    const result = await publishSchemaChange(ctx, ksName, {
      change: 'DROPPED',
      target: 'TABLE',
      keyspace: ksName,
      name,
    });
    await ctx.storage.dropTable(tableIdBytes(view.table));
    return result;
  }
}

export class AlterViewStatement extends SchemaStatement {
  constructor(readonly ast: AlterAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ksName = resolveKeyspace(this.ast.view.keyspace, state.keyspace);
    const name = this.ast.view.name;
    const ks = ctx.catalog.keyspace(ksName);
    const view = ks?.views?.get(name);
    if (!ks || !view) {
      if (this.ast.ifExists) return { kind: 'void' };
      if (ks?.tables.has(name))
        throw new InvalidRequest(`Cannot use ALTER MATERIALIZED VIEW on table ${ksName}.${name}`);
      throw new InvalidRequest(`Materialized view '${ksName}.${name}' doesn't exist`);
    }
    const { options } = applyTableProperties(view.table.options, this.ast.properties, false);
    if (options.default_time_to_live > 0) {
      throw new InvalidRequest(
        'Forbidden default_time_to_live detected for a materialized view. Data in a materialized view always expire at the same time than the corresponding data in the parent table. default_time_to_live must be set to zero, see CASSANDRA-12868 for more information',
      );
    }
    const views = new Map(ks.views);
    views.set(name, { ...view, table: { ...view.table, options } });
    ctx.catalog.putKeyspace({ ...ks, views });
    ctx.storage.table(tableIdBytes(view.table), options.gc_grace_seconds);
    return publishSchemaChange(ctx, ksName, { change: 'UPDATED', target: 'TABLE', keyspace: ksName, name });
  }
}
