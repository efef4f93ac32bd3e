// BATCH: a group of INSERT/UPDATE/DELETE applied as one atomic group commit (one pmem
// transaction), whether it arrives as a BATCH message or as a `BEGIN BATCH ... APPLY BATCH` string.

import type { PartitionUpdate } from '../../storage/mutation.js';
import type { TableMutation } from '../../storage/storage-engine.js';
import type { Timestamp } from '../../storage/timestamp.js';
import { InvalidRequest } from '../errors.js';
import { checkBatchLimits } from '../execution/batch-limits.js';
import { BindSpecs, type BoundTerm, prepareTerm } from '../execution/bound-term.js';
import {
  checkConditionalConsistency,
  checkConsistency,
  validateWriteConsistency,
} from '../execution/consistency-check.js';
import { PendingCounterWrites } from '../execution/counter-values.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import { storeOf } from '../execution/table-stores.js';
import { nextWriteTimestamp } from '../execution/write-clock.js';
import { clientTimestamp, usingTimestamp } from '../execution/write-timestamp.js';
import type { BatchStatement as BatchAst } from '../parser/ast.js';
import {
  type BoundValue,
  type ClientState,
  type ColumnSpec,
  type QueryOptions,
  type ResultMessage,
  UNSET,
} from '../query-handler.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { native } from '../types/cql-type.js';
import { applyWithDependents, dependentsOf } from '../views/dependent-writes.js';
import { type ConditionCheck, columnSpecOf, ModificationStatement } from './modification-statement.js';

export type BatchType = 'LOGGED' | 'UNLOGGED' | 'COUNTER';

export interface BatchItem {
  statement: CqlStatement;
  values: BoundValue[];
}

/** Runs the items as one atomic write. `timestamp`: the batch's, used by statements without their own. */
export function executeBatch(
  ctx: ExecutionContext,
  type: BatchType,
  items: readonly BatchItem[],
  options: QueryOptions,
  timestamp: Timestamp | undefined,
): Promise<ResultMessage> {
  const modifications = modificationItems(items);
  validateBatch(
    type,
    modifications.map((m) => m.statement),
    false,
  );
  if (modifications.some((m) => m.statement.conditions)) return executeConditionalBatch(ctx, modifications, options);
  validateWriteConsistency(options.consistency);
  for (const ks of new Set(modifications.map((m) => m.statement.table.keyspace))) {
    const metadata = ctx.catalog.keyspace(ks);
    if (metadata) checkConsistency(options.consistency, metadata, ctx.node.dataCenter, true);
  }
  // COUNTER batches, and UNLOGGED ones of counter updates.
  const counters = modifications.some((m) => m.statement.isCounter) ? new PendingCounterWrites() : undefined;
  let plan: { writes: PlannedWrite[]; warnings: string[] | undefined };
  try {
    plan = planBatch(ctx, type, modifications, options, timestamp, counters);
  } catch (e) {
    counters?.discard();
    throw e;
  }
  const { writes, warnings } = plan;
  if (writes.some((e) => dependentsOf(ctx, e.table))) {
    return applyWithDependents(ctx, writes, (t) => storeOf(ctx, t)).then(
      () => {
        counters?.release();
        return { kind: 'void', warnings } as const;
      },
      (e: unknown) => {
        counters?.release();
        throw e;
      },
    );
  }
  const mutations: TableMutation[] = writes.map((e) => ({
    table: storeOf(ctx, e.table),
    updates: e.updates,
    nowInSeconds: e.now,
  }));
  if (!counters) return ctx.storage.apply(mutations).then(() => ({ kind: 'void', warnings }) as const);
  return new Promise((resolve, reject) => {
    ctx.storage.applyCallback(mutations, (err) => {
      counters.release();
      if (err) reject(err);
      else resolve({ kind: 'void', warnings });
    });
  });
}

interface ModificationItem {
  statement: ModificationStatement;
  values: BoundValue[];
}

function modificationItems(items: readonly BatchItem[]): ModificationItem[] {
  return items.map(({ statement, values }) => {
    if (!(statement instanceof ModificationStatement)) {
      throw new InvalidRequest('Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.');
    }
    return { statement, values };
  });
}

/**
 * Cassandra 5.0's BatchStatement.validate(), checks in its order. `timestampSet`: the batch has USING TIMESTAMP
 * (a BATCH message's default timestamp is not one: its statements may still carry their own).
 */
export function validateBatch(
  type: BatchType,
  statements: readonly ModificationStatement[],
  timestampSet: boolean,
): void {
  const hasConditions = statements.some((s) => s.conditions);
  if (timestampSet) {
    if (hasConditions) throw new InvalidRequest('Cannot provide custom timestamp for conditional BATCH');
    if (type === 'COUNTER') throw new InvalidRequest('Cannot provide custom timestamp for counter BATCH');
  }
  let hasCounters = false;
  let hasNonCounters = false;
  for (const s of statements) {
    if (timestampSet && s.hasTimestamp) {
      throw new InvalidRequest('Timestamp must be set either on BATCH or individual statements');
    }
    if (s.isCounter) hasCounters = true;
    else hasNonCounters = true;
  }
  if (timestampSet && hasCounters) {
    throw new InvalidRequest('Cannot provide custom timestamp for a BATCH containing counters');
  }
  if (type === 'COUNTER' && hasNonCounters) {
    throw new InvalidRequest('Cannot include non-counter statement in a counter batch');
  }
  if (hasCounters && hasNonCounters) {
    throw new InvalidRequest('Counter and non-counter mutations cannot exist in the same batch');
  }
  // An UNLOGGED batch of counter updates is allowed, as in Cassandra.
  if (type === 'LOGGED' && hasCounters)
    throw new InvalidRequest('Cannot include a counter statement in a logged batch');
  if (hasConditions) {
    const first = statements[0]!.table;
    if (statements.some((s) => s.table.keyspace !== first.keyspace || s.table.name !== first.name)) {
      throw new InvalidRequest('Batch with conditions cannot span multiple tables');
    }
  }
}

interface PlannedWrite {
  table: TableMetadata;
  updates: PartitionUpdate[];
  now: number;
}

/** The batch's writes grouped by table, after Cassandra's batch-type and size checks. */
function planBatch(
  ctx: ExecutionContext,
  type: BatchType,
  items: readonly ModificationItem[],
  options: QueryOptions,
  timestamp: Timestamp | undefined,
  counters: PendingCounterWrites | undefined,
): { writes: PlannedWrite[]; warnings: string[] | undefined } {
  const ts = timestamp ?? (options.timestamp !== undefined ? clientTimestamp(options.timestamp) : nextWriteTimestamp());
  const byTable = new Map<string, PlannedWrite>();
  for (const { statement, values } of items) {
    const { updates, now } = statement.updates(
      values,
      { ...options, values },
      statement.isCounter ? undefined : ts,
      ctx,
      counters,
    );
    const key = statement.table.id;
    const entry = byTable.get(key);
    if (entry) entry.updates.push(...updates);
    else byTable.set(key, { table: statement.table, updates, now });
  }
  const writes = [...byTable.values()];
  const warnings = checkBatchLimits(type, writes, ctx.logger);
  return { writes, warnings };
}

/**
 * A batch with IF clauses: one partition of one table; every condition is checked against the rows as
 * committed (after a flush) and the whole batch applies only if all hold, in the same synchronous step.
 */
function executeConditionalBatch(
  ctx: ExecutionContext,
  statements: readonly ModificationItem[],
  options: QueryOptions,
): Promise<ResultMessage> {
  // validateBatch refused a custom timestamp and a second table.
  const table = statements[0]!.statement.table;
  const ks = ctx.catalog.keyspace(table.keyspace);
  if (ks) checkConditionalConsistency(options.serialConsistency, options.consistency, ks, ctx.node.dataCenter);
  const ts = nextWriteTimestamp();
  const planned = statements.map((s) => ({
    ...s,
    ...s.statement.updates(s.values, { ...options, values: s.values }, ts, ctx),
  }));
  const keys = new Set(planned.flatMap((p) => p.updates.map((u) => u.key.toString('hex'))));
  if (keys.size > 1) throw new InvalidRequest('Batch with conditions cannot span multiple partitions');
  ctx.storage.commit.flush();
  const checks = planned
    .filter((p) => p.statement.conditions)
    .map((p) => p.statement.checkConditions(ctx, p.values, p.updates, p.now));
  const applied = checks.every((c) => c.applied);
  let result: ResultMessage;
  if (applied) {
    result = { kind: 'rows', metadata: { columns: [checks[0]!.columns[0]!] }, rows: [[Buffer.from([1])]] };
  } else {
    return Promise.resolve(batchCasFailure(table, planned, checks));
  }
  const writes = planned.map((p) => ({ table: p.statement.table, updates: p.updates, now: p.now }));
  if (dependentsOf(ctx, table)) return applyWithDependents(ctx, writes, (t) => storeOf(ctx, t)).then(() => result);
  const mutations: TableMutation[] = writes.map((w) => ({
    table: storeOf(ctx, w.table),
    updates: w.updates,
    nowInSeconds: w.now,
  }));
  return ctx.storage.apply(mutations).then(() => result);
}

/** `BEGIN [UNLOGGED|COUNTER] BATCH [USING TIMESTAMP t] ... APPLY BATCH` sent as one query string. */
export class BatchStatement implements CqlStatement {
  /** Conditional batches answer with `[applied]` rows whose columns vary. */
  readonly variableResultMetadata = true;
  readonly bindSpecs: readonly ColumnSpec[];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[] = [];
  readonly isSchemaChange = false;
  private readonly statements: ModificationStatement[];
  private readonly timestamp: BoundTerm | undefined;

  constructor(
    readonly ast: BatchAst,
    catalog: SchemaCatalog,
    keyspace: string | undefined,
  ) {
    const specs = new BindSpecs(ast.bindMarkers.length);
    if (ast.attrs.ttl) throw new InvalidRequest('Global TTL on the BATCH statement is not supported.');
    this.statements = ast.statements.map((s) => ModificationStatement.prepare(s, catalog, keyspace, specs));
    this.timestamp = ast.attrs.timestamp
      ? prepareTerm(
          ast.attrs.timestamp,
          { keyspace: keyspace ?? '', table: '', name: '[timestamp]', type: native('bigint') },
          specs,
        )
      : undefined;
    this.bindSpecs = specs.complete();
    validateBatch(ast.type, this.statements, ast.attrs.timestamp !== undefined);
  }

  execute(ctx: ExecutionContext, _state: ClientState, options: QueryOptions): Promise<ResultMessage> {
    let ts: Timestamp | undefined;
    if (this.timestamp) {
      const v = this.timestamp.value(options.values);
      if (v === null) throw new InvalidRequest('Invalid null value of timestamp');
      if (v !== UNSET) ts = usingTimestamp(v);
    }
    const items = this.statements.map((statement) => ({ statement, values: options.values }));
    return executeBatch(ctx, this.ast.type, items, options, ts);
  }
}

/**
 * A conditional batch that did not apply (ModificationStatement.buildCasFailureResultSet with isBatch): one row per
 * existing row its conditions read, showing the primary key columns then the columns with conditions in IF
 * order — every column when some statement has IF EXISTS / IF NOT EXISTS. No such row: `[applied]` alone.
 */
function batchCasFailure(
  table: TableMetadata,
  planned: readonly { statement: ModificationStatement }[],
  checks: readonly ConditionCheck[],
): ResultMessage {
  const applied = checks[0]!.columns[0]!;
  // The rows the conditions read; none: the static row alone, when one is shown (the partition read holds no row).
  const rows = checks.filter((c) => c.exists);
  const shown = rows.length > 0 ? rows : checks.filter((c) => c.shown).slice(0, 1);
  const existing = [...new Map(shown.map((c) => [c.rowKey, c])).values()];
  if (existing.length === 0) return { kind: 'rows', metadata: { columns: [applied] }, rows: [[Buffer.from([0])]] };
  const withConditions = planned.flatMap((p) => (p.statement.conditions ? [p.statement.conditions] : []));
  const columns = withConditions.some((c) => c.kind !== 'conditions')
    ? table.columns
    : [
        ...new Set([
          ...table.columns.filter((c) => c.kind === 'partition_key' || c.kind === 'clustering'),
          ...withConditions.flatMap((c) => c.columns),
        ]),
      ];
  return {
    kind: 'rows',
    metadata: { columns: [applied, ...columns.map((c) => columnSpecOf(table, c))] },
    rows: existing.map((c) => [Buffer.from([0]), ...c.valuesOf(columns)]),
  };
}
