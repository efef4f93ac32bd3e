// SELECT: prepared once (table, selection, restrictions, limits), executed with bound values.
// System and virtual tables are read from code (all rows, then filtered); user tables from storage.

import { BindSpecs, type BoundTerm } from '../execution/bound-term.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import { limitValue, prepareLimit } from '../execution/limit-term.js';
import { userFunctionResolver } from '../functions/user-function-resolver.js';
import type { UserFunctionRuntime } from '../functions/user-function-runtime.js';
import type { SelectStatement as SelectAst } from '../parser/ast.js';
import type { ClientState, ColumnSpec, QueryOptions, ResultMessage } from '../query-handler.js';
import { bindPredicate, type ColumnPredicate, preparePredicate } from '../restrictions/row-filter.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { Selection } from '../selection/selection.js';
import { sortAsStored } from '../system/virtual-row-order.js';
import { native } from '../types/cql-type.js';
import { encodeJsValue } from '../types/js-value-encoder.js';
import { toJsonValue } from '../types/json-codec.js';
import { lookupTable } from './table-resolution.js';
import { UserTableRead } from './user-table-read.js';

export class SelectStatement implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[];
  readonly partitionKeyIndices: readonly number[];
  readonly resultColumns: readonly ColumnSpec[];
  readonly isSchemaChange = false;
  private readonly predicates: ColumnPredicate[] = [];
  private readonly limit: BoundTerm | undefined;
  private readonly userRead: UserTableRead | undefined;

  constructor(
    readonly ast: SelectAst,
    readonly table: TableMetadata,
    readonly selection: Selection,
    /** Shared with the selection when it holds bind markers (`similarity_cosine(v, ?)`). */
    bindSpecs?: BindSpecs,
  ) {
    const specs = bindSpecs ?? new BindSpecs(ast.bindMarkers.length);
    if (table.isVirtual) {
      for (const r of ast.where) this.predicates.push(preparePredicate(table, r, specs));
      this.partitionKeyIndices = [];
    } else {
      this.userRead = new UserTableRead(ast, table, selection, specs);
      this.partitionKeyIndices = this.userRead.partitionKeyIndices;
    }
    this.limit = prepareLimit(ast.limit, '[limit]', table.keyspace, table.name, specs);
    this.bindSpecs = specs.complete();
    this.resultColumns = ast.json
      ? [{ keyspace: table.keyspace, table: table.name, name: '[json]', type: native('text') }]
      : selection.specs;
  }

  static prepare(
    ast: SelectAst,
    catalog: SchemaCatalog,
    keyspace: string | undefined,
    functions: UserFunctionRuntime,
  ): SelectStatement {
    // A materialized view reads like a table: its own table metadata and storage.
    const view = catalog.keyspace(ast.table.keyspace ?? keyspace ?? '')?.views?.get(ast.table.name);
    const table = view ? view.table : lookupTable(catalog, ast.table, keyspace);
    const specs = new BindSpecs(ast.bindMarkers.length);
    return new SelectStatement(
      ast,
      table,
      new Selection(table, ast.selectors, userFunctionResolver(catalog, table.keyspace, functions), specs),
      specs,
    );
  }

  execute(ctx: ExecutionContext, _state: ClientState, options: QueryOptions): ResultMessage | Promise<ResultMessage> {
    // User functions run in isolates that may need an engine instance first (created asynchronously).
    const ready = ctx.userFunctions.prepare(this.selection.userFunctions);
    return ready ? ready.then(() => this.run(ctx, options)) : this.run(ctx, options);
  }

  private run(ctx: ExecutionContext, options: QueryOptions): ResultMessage {
    const limit = limitValue(this.limit, options.values);
    ctx.userFunctions.takeWarnings(); // none left over from a request that failed
    const result = this.userRead
      ? this.userRead.execute(ctx, options, limit)
      : this.executeVirtual(ctx, options, limit);
    const answer = this.ast.json && result.kind === 'rows' ? this.asJson(result) : result;
    // Slow user functions (user_defined_functions_warn_timeout) warn the client, as Cassandra's ClientWarn does.
    const warnings = ctx.userFunctions.takeWarnings();
    return warnings ? { ...answer, warnings: [...(answer.warnings ?? []), ...warnings] } : answer;
  }

  /** SELECT JSON: each row becomes one `[json]` text column holding an object of the selected columns. */
  private asJson(result: ResultMessage & { kind: 'rows' }): ResultMessage {
    const specs = this.selection.specs;
    // Cassandra quotes a name only when it is not all lower case (Selection.rowToJson).
    const keys = specs.map((c) => JSON.stringify(c.name === c.name.toLowerCase() ? c.name : `"${c.name}"`));
    const rows = result.rows.map((row) => {
      const fields = row.map((v, i) => `${keys[i]}: ${v === null ? 'null' : toJsonValue(specs[i]!.type, v)}`);
      return [Buffer.from(`{${fields.join(', ')}}`, 'utf8')];
    });
    return { kind: 'rows', metadata: { ...result.metadata, columns: this.resultColumns as ColumnSpec[] }, rows };
  }

  private executeVirtual(ctx: ExecutionContext, options: QueryOptions, limit: number): ResultMessage {
    const t = this.table;
    const filters = this.predicates.map((p) => bindPredicate(p, options.values, t.columns[p.columnIndex]!.name));
    let matching: SelectedRow[] = [];
    for (const obj of ctx.systemRows.rows(t.keyspace, t.name)) {
      const row: SelectedRow = { values: t.columns.map((c) => encodeJsValue(c.type, obj[c.name])) };
      if (filters.every((f) => f(row))) matching.push(row);
    }
    matching = sortAsStored(t, ctx.catalog.keyspace(t.keyspace)?.virtual === true, matching);
    const rows = this.selection.isAggregate
      ? [this.selection.aggregate(matching)]
      : matching.slice(0, Number.isFinite(limit) ? limit : undefined).map((r) => this.selection.project(r));
    return { kind: 'rows', metadata: { columns: this.resultColumns as ColumnSpec[] }, rows };
  }
}
