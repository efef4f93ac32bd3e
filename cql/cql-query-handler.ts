// The QueryHandler server/ calls: parses, prepares (with a cache of prepared statements keyed
// by Cassandra's statement ids) and executes statements.

// Imported, not the global: globalThis.performance is an accessor Node resolves on every use.
import { performance } from 'node:perf_hooks';
import { InvalidRequest, ProtocolError, Unprepared } from './errors.js';
import { checkConsistency, consistencyName } from './execution/consistency-check.js';
import type { CqlStatement, ExecutionContext } from './execution/cql-statement.js';
import { isFullyQualified, preparedStatementId, resultMetadataId } from './execution/prepared-ids.js';
import { changeAffectsPreparedStatements } from './execution/prepared-invalidation.js';
import { prepareStatement } from './execution/statement-preparer.js';
import { storageErrorToCql } from './execution/storage-errors.js';
import type { Statement } from './parser/ast.js';
import { parseStatement } from './parser/parser.js';
import type {
  BatchRequest,
  BoundValue,
  ClientState,
  QueryHandler,
  QueryOptions,
  ResultMessage,
  ServerEvent,
  StatementKind,
  StatementObserver,
} from './query-handler.js';
import { executeBatch } from './statements/batch-statement.js';
import { ModificationStatement } from './statements/modification-statement.js';

interface PreparedEntry {
  query: string;
  keyspace: string | undefined;
  statement: CqlStatement;
  schemaVersion: string;
  metadataId: Buffer;
  /** Names its table with a keyspace (Cassandra's QualifiedStatement.isFullyQualified): its id leaves the keyspace out. */
  fullyQualified: boolean;
  /** SELECT, INSERT, UPDATE, DELETE or BATCH: what Cassandra evicts when their table changes. */
  readsOrWritesTable: boolean;
  /** Executed since the eviction sweep last passed it (second chance before eviction). */
  used: boolean;
  /** Read, write or other, for metrics. */
  kind: StatementKind;
}

/** Bounded like Cassandra's prepared statement cache; evicts the least recently used (CLOCK: second chance if executed). */
const MAX_PREPARED = 10_000;
/** Simple (unprepared) statements are cached too, so repeated QUERY strings skip parsing. */
const MAX_SIMPLE = 1_000;

export class CqlQueryHandler implements QueryHandler {
  /** By the statement id's bytes as a latin1 string (half the length of hex, and cheaper to make per request). */
  private readonly prepared = new Map<string, PreparedEntry>();
  private readonly simple = new Map<string, PreparedEntry>();
  private readonly listeners: ((event: ServerEvent) => void)[] = [];
  private observer: StatementObserver | undefined;

  constructor(private readonly ctx: ExecutionContext) {}

  /** Events raised by statements (schema changes) reach registered connections. */
  emit(event: ServerEvent): void {
    for (const l of this.listeners) l(event);
  }

  onEvent(listener: (event: ServerEvent) => void): void {
    this.listeners.push(listener);
  }

  observeStatements(observer: StatementObserver): void {
    this.observer = observer;
  }

  private build(query: string, keyspace: string | undefined): PreparedEntry {
    const ast = parseStatement(query);
    const statement = prepareStatement(ast, this.ctx.catalog, keyspace, this.ctx.userFunctions);
    return {
      query,
      keyspace,
      statement,
      schemaVersion: this.ctx.catalog.version,
      metadataId: resultMetadataId(statement.resultColumns, statement.table),
      fullyQualified: isFullyQualified(ast),
      readsOrWritesTable: DATA_STATEMENTS.has(ast.kind),
      used: false,
      kind: ast.kind === 'select' ? 'read' : DATA_STATEMENTS.has(ast.kind) ? 'write' : 'other',
    };
  }

  /** A simple statement, from the cache when the schema has not changed since it was built. */
  private simpleEntry(cql: string, keyspace: string | undefined): PreparedEntry {
    const key = `${keyspace ?? ''}\u0000${cql}`;
    let entry = this.simple.get(key);
    if (!entry || entry.schemaVersion !== this.ctx.catalog.version) {
      entry = this.build(cql, keyspace);
      if (!entry.statement.isSchemaChange) {
        if (this.simple.size >= MAX_SIMPLE) this.simple.delete(this.simple.keys().next().value!);
        this.simple.set(key, entry);
      }
    }
    return entry;
  }

  query(state: ClientState, cql: string, options: QueryOptions): ResultMessage | Promise<ResultMessage> {
    checkPageSize(options);
    return this.run(this.simpleEntry(cql, options.keyspace ?? state.keyspace), state, options, undefined);
  }

  prepare(state: ClientState, cql: string, keyspace: string | undefined): ResultMessage {
    const ks = keyspace ?? state.keyspace;
    const entry = this.build(cql, ks);
    // As Cassandra 5.0's QueryProcessor.prepare: `ks.t` gets the id of the query alone, whatever the session keyspace.
    const id = preparedStatementId(cql, entry.fullyQualified ? undefined : ks);
    const key = id.toString('latin1');
    this.prepared.delete(key);
    while (this.prepared.size >= MAX_PREPARED) {
      const [oldest, old] = this.prepared.entries().next().value!;
      this.prepared.delete(oldest);
      if (old.used) {
        old.used = false;
        this.prepared.set(oldest, old);
      }
    }
    this.prepared.set(key, entry);
    return {
      kind: 'prepared',
      id,
      resultMetadataId: entry.metadataId,
      bindMetadata: {
        columns: [...entry.statement.bindSpecs],
        partitionKeyIndices: [...entry.statement.partitionKeyIndices],
      },
      resultMetadata: { columns: [...entry.statement.resultColumns] },
    };
  }

  execute(
    state: ClientState,
    id: Buffer,
    clientMetadataId: Buffer | undefined,
    options: QueryOptions,
  ): ResultMessage | Promise<ResultMessage> {
    const entry = this.preparedEntry(id); // UNPREPARED comes first, as in Cassandra's ExecuteMessage
    checkPageSize(options);
    return this.run(entry, state, options, clientMetadataId);
  }

  /** The prepared statement `id`, checked against the current schema (or Unprepared). */
  private preparedEntry(id: Buffer): PreparedEntry {
    const key = id.toString('latin1');
    let entry = this.prepared.get(key);
    if (!entry) throw notFound(id);
    if (entry.schemaVersion !== this.ctx.catalog.version) entry = this.revalidate(key, id, entry);
    entry.used = true;
    return entry;
  }

  /**
   * A prepared statement after a schema change. Cassandra evicts the statements of a table that is dropped or whose
   * columns, indexes, default TTL or gc_grace change (QueryProcessor.StatementInvalidatingListener), so the client
   * gets UNPREPARED and re-prepares (a v5 client holding the old result_metadata_id then gets METADATA_CHANGED);
   * other statements are rebuilt against the new schema in place.
   */
  private revalidate(key: string, id: Buffer, entry: PreparedEntry): PreparedEntry {
    let fresh: PreparedEntry;
    try {
      fresh = this.build(entry.query, entry.keyspace);
    } catch (e) {
      if (!entry.readsOrWritesTable) throw e;
      this.prepared.delete(key);
      throw notFound(id);
    }
    const before = entry.statement.table;
    const after = fresh.statement.table;
    if (before && after && changeAffectsPreparedStatements(before, after)) {
      this.prepared.delete(key);
      throw notFound(id);
    }
    this.prepared.set(key, fresh);
    return fresh;
  }

  batch(state: ClientState, batch: BatchRequest): Promise<ResultMessage> {
    const keyspace = batch.keyspace ?? state.keyspace;
    const items = batch.statements.map((s) => {
      const entry = s.id ? this.preparedEntry(s.id) : this.simpleEntry(s.query ?? '', keyspace);
      const st = entry.statement;
      if (s.names === undefined && s.values.length !== st.bindSpecs.length) {
        throw new InvalidRequest(
          `There were ${st.bindSpecs.length} markers(?) in CQL but ${s.values.length} bound variables`,
        );
      }
      const values = s.names === undefined ? s.values : this.byName(st, s.names, s.values);
      return { statement: st, values };
    });
    const options: QueryOptions = {
      consistency: batch.consistency,
      values: [],
      names: undefined,
      skipMetadata: false,
      pageSize: 0,
      pagingState: undefined,
      serialConsistency: batch.serialConsistency,
      timestamp: batch.timestamp,
      keyspace,
      nowInSeconds: batch.nowInSeconds,
    };
    // Authorization: every statement of the batch.
    if (this.ctx.auth) for (const it of items) this.ctx.auth.authorize(it.statement, state, keyspace);
    const t0 = performance.now();
    const result = executeBatch(this.ctx, batch.type, items, options, undefined).catch((e: unknown) => {
      throw storageErrorToCql(
        e,
        batch.consistency,
        batch.type === 'LOGGED' ? 'BATCH' : batch.type === 'COUNTER' ? 'COUNTER' : 'UNLOGGED_BATCH',
        this.ctx.logger,
      );
    });
    const observer = this.observer;
    if (!observer) return result;
    return result.finally(() => {
      const seconds = (performance.now() - t0) / 1000;
      for (const table of new Set(items.map((it) => it.statement.table))) observer('write', table, seconds);
    });
  }

  private run(
    entry: PreparedEntry,
    state: ClientState,
    options: QueryOptions,
    clientMetadataId: Buffer | undefined,
  ): ResultMessage | Promise<ResultMessage> {
    if (!this.observer) return this.runStatement(entry, state, options, clientMetadataId);
    const t0 = performance.now();
    let result: ResultMessage | Promise<ResultMessage>;
    try {
      result = this.runStatement(entry, state, options, clientMetadataId);
    } catch (e) {
      this.observed(entry, t0);
      throw e;
    }
    if (result instanceof Promise) return result.finally(() => this.observed(entry, t0));
    this.observed(entry, t0);
    return result;
  }

  private observed(entry: PreparedEntry, t0: number): void {
    this.observer?.(entry.kind, entry.statement.table, (performance.now() - t0) / 1000);
  }

  private runStatement(
    entry: PreparedEntry,
    state: ClientState,
    options: QueryOptions,
    clientMetadataId: Buffer | undefined,
  ): ResultMessage | Promise<ResultMessage> {
    if (options.tracing && this.ctx.traces) return this.traced(entry, state, options, clientMetadataId);
    const st = entry.statement;
    if (options.values.length !== st.bindSpecs.length && options.names === undefined) {
      throw new InvalidRequest(
        `There were ${st.bindSpecs.length} markers(?) in CQL but ${options.values.length} bound variables`,
      );
    }
    if (options.names !== undefined) options = { ...options, values: this.byName(st, options.names, options.values) };
    if (st.table && !st.table.isVirtual) this.checkConsistency(st, options.consistency);
    // Authorization: QUERY and EXECUTE of prepared statements.
    this.ctx.auth?.authorize(st, state, entry.keyspace);
    let result: ReturnType<typeof st.execute>;
    try {
      result = st.execute(this.ctx, state, options);
    } catch (e) {
      throw storageErrorToCql(e, options.consistency, 'SIMPLE', this.ctx.logger);
    }
    if (result instanceof Promise) {
      return result.then(
        (r) => this.finishRows(r, entry, options, clientMetadataId),
        (e: unknown) => {
          throw storageErrorToCql(e, options.consistency, 'SIMPLE', this.ctx.logger);
        },
      );
    }
    return this.finishRows(result, entry, options, clientMetadataId);
  }

  /** Runs a request with a trace session; the response carries the session id. */
  private async traced(
    entry: PreparedEntry,
    state: ClientState,
    options: QueryOptions,
    clientMetadataId: Buffer | undefined,
  ): Promise<ResultMessage> {
    const session = this.ctx.traces!.start(
      clientMetadataId === undefined && this.simple.get(`${entry.keyspace ?? ''}\u0000${entry.query}`) === entry
        ? 'Execute CQL3 query'
        : 'Execute CQL3 prepared query',
      state.remoteAddress,
      {
        query: entry.query,
        consistency_level: consistencyName(options.consistency),
        ...(options.pageSize > 0 ? { page_size: String(options.pageSize) } : {}),
      },
    );
    session.event(`Processing ${entry.statement.constructor.name.replace(/Statement$/, '').toLowerCase()} statement`);
    try {
      const result = await this.run(entry, state, { ...options, tracing: false }, clientMetadataId);
      session.event(
        result.kind === 'rows'
          ? `Read ${result.encoded?.count ?? result.rows.length} rows`
          : 'Applied in one group-commit transaction',
      );
      return { ...result, tracingId: session.id };
    } catch (e) {
      session.event(`Request failed: ${(e as Error).message}`);
      throw e;
    } finally {
      session.finish();
    }
  }

  private checkConsistency(st: CqlStatement, cl: number): void {
    // A conditional write checks its own levels: Paxos (the serial level) first, as Cassandra's StorageProxy.cas.
    if (st instanceof ModificationStatement && st.conditions) return;
    const ks = this.ctx.catalog.keyspace(st.table!.keyspace);
    if (ks) checkConsistency(cl, ks, this.ctx.node.dataCenter, st instanceof ModificationStatement);
  }

  /** Values sent with names (flag 0x40) reordered into marker order. */
  private byName(st: CqlStatement, names: readonly string[], values: readonly BoundValue[]): BoundValue[] {
    return st.bindSpecs.map((spec) => {
      const i = names.indexOf(spec.name);
      if (i < 0) throw new InvalidRequest(`Invalid bind variable name ${spec.name}: no value bound`);
      return values[i]!;
    });
  }

  private finishRows(
    result: ResultMessage,
    entry: PreparedEntry,
    options: QueryOptions,
    clientMetadataId: Buffer | undefined,
  ): ResultMessage {
    // LWT results always carry their metadata and never METADATA_CHANGED (ExecuteMessage, CASSANDRA-13992).
    if (result.kind !== 'rows' || entry.statement.variableResultMetadata) return result;
    if (clientMetadataId && !clientMetadataId.equals(entry.metadataId)) {
      result.metadata.newMetadataId = entry.metadataId;
    } else if (options.skipMetadata) {
      result.metadata.noMetadata = true;
    }
    return result;
  }
}

/** What Cassandra evicts when its table changes (the others are rebuilt in place). */
const DATA_STATEMENTS = new Set<Statement['kind']>(['select', 'insert', 'insertJson', 'update', 'delete', 'batch']);

/** Page size 0 is refused as in Cassandra's QueryMessage / ExecuteMessage (a negative one means unpaged). */
function checkPageSize(options: QueryOptions): void {
  if (options.pageSize === 0) throw new ProtocolError('The page size cannot be 0');
}

function notFound(id: Buffer): Unprepared {
  return new Unprepared(
    `Prepared query with ID ${id.toString('hex')} not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)`,
    id,
  );
}
