// Which code produces the rows of each built-in table. Tables without a source read as empty.

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { aggregatesRows, functionsRows } from './function-rows.js';
import { localRows, settingsRows } from './local-rows.js';
import type { NodeInfo } from './node-info.js';
import {
  columnsRows,
  droppedColumnsRows,
  indexesRows,
  keyspacesRows,
  tablesRows,
  typesRows,
  viewsRows,
  virtualKeyspacesRows,
  virtualTablesRows,
} from './schema-rows.js';
import type { RowObject, RowSource } from './virtual-table.js';

export interface SystemRowContext {
  catalog: SchemaCatalog;
  node: NodeInfo;
  /** system_views.clients rows, from the server's connection list. */
  clients: () => RowObject[];
  settings: () => Record<string, unknown>;
  /** system.size_estimates rows. */
  sizeEstimates: () => RowObject[];
}

export class SystemRows {
  private readonly sources = new Map<string, RowSource>();

  constructor(ctx: SystemRowContext) {
    const { catalog } = ctx;
    this.sources.set('system.local', () => localRows(ctx.node, catalog));
    this.sources.set('system.size_estimates', ctx.sizeEstimates);
    this.sources.set('system_schema.keyspaces', () => keyspacesRows(catalog));
    this.sources.set('system_schema.tables', () => tablesRows(catalog));
    this.sources.set('system_schema.columns', () => columnsRows(catalog));
    this.sources.set('system_schema.dropped_columns', () => droppedColumnsRows(catalog));
    this.sources.set('system_schema.types', () => typesRows(catalog));
    this.sources.set('system_schema.indexes', () => indexesRows(catalog));
    this.sources.set('system_schema.views', () => viewsRows(catalog));
    this.sources.set('system_schema.functions', () => functionsRows(catalog));
    this.sources.set('system_schema.aggregates', () => aggregatesRows(catalog));
    this.sources.set('system_virtual_schema.keyspaces', () => virtualKeyspacesRows(catalog));
    this.sources.set('system_virtual_schema.tables', () => virtualTablesRows(catalog));
    this.sources.set('system_virtual_schema.columns', () => columnsRows(catalog, true));
    this.sources.set('system_views.clients', ctx.clients);
    this.sources.set('system_views.settings', () => settingsRows(ctx.settings()));
  }

  /** Adds or replaces the source of one table (e.g. system_auth tables once auth exists). */
  register(keyspace: string, table: string, source: RowSource): void {
    this.sources.set(`${keyspace}.${table}`, source);
  }

  rows(keyspace: string, table: string): RowObject[] {
    return this.sources.get(`${keyspace}.${table}`)?.() ?? [];
  }
}
