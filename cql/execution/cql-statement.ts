// A prepared statement: what PREPARE returns (bind specs, partition-key bind indices, result
// columns) and how it runs. Built once per query string and keyspace; executed many times.

import type { Logger } from 'pino';
import type { StorageEngine } from '../../storage/storage-engine.js';
import type { AccessControl } from '../auth/access-control.js';
import type { UserFunctionRuntime } from '../functions/user-function-runtime.js';
import type { ClientState, ColumnSpec, QueryOptions, ResultMessage, ServerEvent } from '../query-handler.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { NodeInfo } from '../system/node-info.js';
import type { SystemRows } from '../system/system-rows.js';
import type { TraceStore } from '../tracing/trace-store.js';
import type { ViewBuilds } from '../views/view-build-status.js';
import type { SchemaStore } from './schema-store.js';

export interface ExecutionContext {
  readonly catalog: SchemaCatalog;
  readonly systemRows: SystemRows;
  readonly storage: StorageEngine;
  readonly schemaStore: SchemaStore;
  readonly node: NodeInfo;
  readonly logger: Logger;
  /** Trace sessions of requests sent with the tracing flag. */
  readonly traces?: TraceStore;
  /** Roles and permissions; role/permission statements need it, undefined in bare test contexts. */
  readonly auth?: AccessControl | undefined;
  /** Runs user-defined functions (and knows whether they are enabled). */
  readonly userFunctions: UserFunctionRuntime;
  /** Materialized view builds, as system.built_views and system_distributed.view_build_status show them. */
  readonly viewBuilds: ViewBuilds;
  emit(event: ServerEvent): void;
}

export interface CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[];
  /** Bind indices of the partition key columns, in key order; empty when not all are bound by markers. */
  readonly partitionKeyIndices: readonly number[];
  /** Columns of the rows this statement returns (empty for statements returning no rows). */
  readonly resultColumns: readonly ColumnSpec[];
  /** Statements that change the schema are not cached across schema versions. */
  readonly isSchemaChange: boolean;
  /** Results whose columns differ per execution (LWT `[applied]` rows): metadata is always sent. */
  readonly variableResultMetadata?: boolean;
  /** The table read or written (consistency checks), when there is one. */
  readonly table?: TableMetadata | undefined;
  execute(ctx: ExecutionContext, state: ClientState, options: QueryOptions): ResultMessage | Promise<ResultMessage>;
}
