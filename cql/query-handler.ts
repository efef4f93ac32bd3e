// The contract between server/ (frames, sockets) and cql/ (statements). server/ decodes a
// request into these shapes, keeping bound values as the exact bytes the client sent, and
// encodes whatever comes back; cql/ never sees a socket or a frame.

import type { CqlType } from './types/cql-type.js';

/** A bound value: bytes as sent, null, or "unset" (protocol v4+, length -2). */
export const UNSET: unique symbol = Symbol('unset');
export type BoundValue = Buffer | null | typeof UNSET;

/** Per-connection state that statements see and change (USE, login). */
export interface ClientState {
  keyspace: string | undefined;
  /** Logged-in role, undefined before authentication or with AllowAllAuthenticator. */
  user: string | undefined;
  readonly protocolVersion: number;
  /** Remote address, for system_views.clients. */
  readonly remoteAddress: string;
  readonly remotePort: number;
}

export interface QueryOptions {
  consistency: number;
  values: BoundValue[];
  /** Present when values were sent with names (flag 0x40). */
  names: string[] | undefined;
  skipMetadata: boolean;
  /** <= 0 means no paging. */
  pageSize: number;
  pagingState: Buffer | undefined;
  serialConsistency: number | undefined;
  /** Client-supplied default timestamp, microseconds. */
  timestamp: bigint | undefined;
  /** v5: keyspace flag. */
  keyspace: string | undefined;
  /** v5: now_in_seconds flag. */
  nowInSeconds: number | undefined;
  /** The request had the tracing flag: record a trace session (system_traces). */
  tracing?: boolean;
}

export interface ColumnSpec {
  keyspace: string;
  table: string;
  name: string;
  type: CqlType;
}

export interface RowsMetadata {
  columns: ColumnSpec[];
  /** Set when there are more pages. */
  pagingState?: Buffer | undefined;
  /** v5: id of the result metadata, sent when it changed since the client's id. */
  newMetadataId?: Buffer | undefined;
  /** Omit column specs (client asked skip_metadata and its metadata is current). */
  noMetadata?: boolean;
}

export interface PreparedMetadata {
  columns: ColumnSpec[];
  /** Indices of the bind markers that make up the partition key, in key order (v4+). */
  partitionKeyIndices: number[];
}

export type SchemaChangeTarget = 'KEYSPACE' | 'TABLE' | 'TYPE' | 'FUNCTION' | 'AGGREGATE';
export interface SchemaChange {
  change: 'CREATED' | 'UPDATED' | 'DROPPED';
  target: SchemaChangeTarget;
  keyspace: string;
  /** Table / type / function / aggregate name; absent for KEYSPACE. */
  name?: string;
  /** Argument types for FUNCTION / AGGREGATE. */
  argTypes?: string[];
}

/** What a response carries besides its result: a tracing session id and warnings. */
export interface ResponseExtras {
  tracingId?: Buffer | undefined;
  warnings?: string[] | undefined;
}

/** Rows already in the ROWS body's wire form: `[bytes]` cells, row after row (columnar scans write these). */
export interface EncodedRows {
  readonly count: number;
  readonly bytes: Buffer;
}

export type ResultMessage = (
  | { kind: 'void' }
  | {
      kind: 'rows';
      metadata: RowsMetadata;
      /** Empty when `encoded` holds the rows. */
      rows: (Buffer | null)[][];
      encoded?: EncodedRows | undefined;
    }
  | { kind: 'set_keyspace'; keyspace: string }
  | {
      kind: 'prepared';
      id: Buffer;
      resultMetadataId: Buffer;
      bindMetadata: PreparedMetadata;
      resultMetadata: RowsMetadata;
    }
  | { kind: 'schema_change'; change: SchemaChange }
) &
  ResponseExtras;

export interface BatchStatement {
  /** Either a query string or a prepared id. */
  query: string | undefined;
  id: Buffer | undefined;
  values: BoundValue[];
  names: string[] | undefined;
}

export interface BatchRequest {
  type: 'LOGGED' | 'UNLOGGED' | 'COUNTER';
  statements: BatchStatement[];
  consistency: number;
  serialConsistency: number | undefined;
  timestamp: bigint | undefined;
  keyspace: string | undefined;
  nowInSeconds: number | undefined;
  tracing?: boolean;
}

export type ServerEvent =
  | { type: 'SCHEMA_CHANGE'; change: SchemaChange }
  | { type: 'TOPOLOGY_CHANGE'; change: 'NEW_NODE' | 'REMOVED_NODE'; address: string; port: number }
  | { type: 'STATUS_CHANGE'; change: 'UP' | 'DOWN'; address: string; port: number };

/**
 * What server/ calls. Results may be returned synchronously (hot path, no promise) or as a
 * promise (writes that wait for group commit, DDL). Errors are thrown/rejected as CqlError.
 */
export interface QueryHandler {
  query(state: ClientState, cql: string, options: QueryOptions): ResultMessage | Promise<ResultMessage>;
  prepare(state: ClientState, cql: string, keyspace: string | undefined): ResultMessage | Promise<ResultMessage>;
  /** `resultMetadataId` is the v5 id the client holds, undefined before v5. */
  execute(
    state: ClientState,
    id: Buffer,
    resultMetadataId: Buffer | undefined,
    options: QueryOptions,
  ): ResultMessage | Promise<ResultMessage>;
  batch(state: ClientState, batch: BatchRequest): ResultMessage | Promise<ResultMessage>;
  /** Server events (schema changes) go to connections that REGISTERed for them. */
  onEvent(listener: (event: ServerEvent) => void): void;
  /** Metrics: told of every statement run (QUERY, EXECUTE, and each table of a BATCH). */
  observeStatements?(observer: StatementObserver): void;
}

/** What a statement did, as Cassandra's client request metrics split it. */
export type StatementKind = 'read' | 'write' | 'other';

/** `table` is the user or system table read or written (undefined for statements on none). */
export type StatementObserver = (
  kind: StatementKind,
  table: { readonly keyspace: string; readonly name: string; readonly id: string } | undefined,
  seconds: number,
) => void;
