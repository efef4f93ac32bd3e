// INSERT, UPDATE and DELETE: prepared into key terms and per-column operations; executed into
// storage PartitionUpdates (cells keep the client's bytes) applied through group commit.

import { murmur3Token } from '../../storage/murmur3-token.js';
import type {
  Cell,
  ComplexDeletion,
  DeletionTime,
  PartitionUpdate,
  RangeTombstone,
  RowUpdate,
} from '../../storage/mutation.js';
import { NO_DELETION_TIME, NO_TTL, rowLiveness } from '../../storage/mutation.js';
import { deserializePartitionKey, serializePartitionKey } from '../../storage/partition-key.js';
import { type ComplexValue, Projection } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';
import { type Timestamp, timestampPlus } from '../../storage/timestamp.js';
import { InvalidRequest } from '../errors.js';
import { BindSpecs, type BoundTerm, prepareTerm, type TermValue } from '../execution/bound-term.js';
import { bytesToElements, listElementPath, udtFieldPath } from '../execution/complex-value.js';
import { checkConditionalConsistency, validateWriteConsistency } from '../execution/consistency-check.js';
import { currentCounter, PendingCounterWrites } from '../execution/counter-values.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import { JsonFieldTerm, JsonObjectSource } from '../execution/json-terms.js';
import { listAsUpdated } from '../execution/list-as-updated.js';
import { storeOf } from '../execution/table-stores.js';
import { nextWriteTimestamp, nowInSeconds } from '../execution/write-clock.js';
import { clientTimestamp, usingTimestamp } from '../execution/write-timestamp.js';
import type {
  Attributes,
  DeleteStatement as DeleteAst,
  InsertStatement as InsertAst,
  InsertJsonStatement as InsertJsonAst,
  Operation,
  UpdateStatement as UpdateAst,
} from '../parser/ast.js';
import { termText } from '../parser/term-text.js';
import {
  type BoundValue,
  type ClientState,
  type ColumnSpec,
  type QueryOptions,
  type ResultMessage,
  UNSET,
} from '../query-handler.js';
import { KeyRestrictions } from '../restrictions/key-restrictions.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { encodeClusteringKey, encodeKeyComponent } from '../types/byte-comparable.js';
import { type CqlType, isMultiCell, native } from '../types/cql-type.js';
import { readCollectionElements } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';
import { applyWithDependents, dependentsOf } from '../views/dependent-writes.js';
import { Conditions } from './conditions.js';
import { lookupTable } from './table-resolution.js';

const MAX_TTL = 630_720_000;

/** Operations that need the row's current value. */
const READ_BEFORE_WRITE: ReadonlySet<string> = new Set([
  'counterAdd',
  'counterSubtract',
  'listSetIndex',
  'listRemove',
  'listDeleteIndex',
]);
/** List operations by index or value: they read the list (with what the statement did to it before them). */
const LIST_READ_BEFORE_WRITE: ReadonlySet<string> = new Set(['listSetIndex', 'listRemove', 'listDeleteIndex']);
const EMPTY = Buffer.alloc(0);
const VOID: ResultMessage = { kind: 'void' };

/** What a write does to one column. */
interface ColumnOp {
  column: ColumnMetadata;
  kind:
    | 'set'
    | 'add'
    | 'prepend'
    | 'subtract'
    | 'setElement'
    | 'setField'
    | 'delete'
    | 'deleteElement'
    | 'deleteField'
    | 'counterAdd'
    | 'counterSubtract'
    | 'listSetIndex'
    | 'listRemove'
    | 'listDeleteIndex';
  term: BoundTerm | undefined;
  key: BoundTerm | undefined;
  field: number;
}

interface WriteContext {
  ts: Timestamp;
  ttl: number;
  now: number;
}

function cellFor(columnId: number, value: Buffer, w: WriteContext, path?: Buffer): Cell {
  return w.ttl > 0
    ? { column: columnId, path, ts: w.ts, ttl: w.ttl, ldt: w.now + w.ttl, value }
    : { column: columnId, path, ts: w.ts, ttl: NO_TTL, ldt: NO_DELETION_TIME, value };
}

function tombstone(columnId: number, w: WriteContext, path?: Buffer): Cell {
  return { column: columnId, path, ts: w.ts, ttl: NO_TTL, ldt: w.now, value: null };
}

/** What checking a statement's IF clause found (see checkConditions). */
export interface ConditionCheck {
  applied: boolean;
  /** The `[applied]` result of this statement alone. */
  columns: ColumnSpec[];
  row: (Buffer | null)[];
  /** Whether the row the conditions read exists. */
  exists: boolean;
  /**
   * Whether a failure shows a row: the row, another live row (static conditions only) or the static row alone;
   * `rowKey` names the shown row within the partition (empty for the static row alone).
   */
  shown: boolean;
  rowKey: string;
  /** Values of any columns of that row (key columns included), as the conditions read it. */
  valuesOf(columns: readonly ColumnMetadata[]): (Buffer | null)[];
}

export function columnSpecOf(table: TableMetadata, c: ColumnMetadata): ColumnSpec {
  return { keyspace: table.keyspace, table: table.name, name: c.name, type: c.type };
}

/** The parts of a write that depend only on the statement (see ModificationStatement.plan). */
interface UpdatePlan {
  readonly types: CqlType[];
  readonly desc: boolean[];
  readonly staticOps: ColumnOp[];
  readonly regularOps: ColumnOp[];
  readonly readBeforeWrite: boolean;
}

export class ModificationStatement implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[] = [];
  readonly isSchemaChange = false;
  private readonly ops: ColumnOp[] = [];
  private readonly timestamp: BoundTerm | undefined;
  private readonly ttl: BoundTerm | undefined;
  /** INSERT: one term per primary key column. */
  private readonly pkTerms: BoundTerm[] = [];
  private readonly ckTerms: BoundTerm[] = [];
  /** UPDATE / DELETE: the WHERE clause. */
  private readonly where: KeyRestrictions | undefined;
  private readonly touchesStatic: boolean;
  /** An INSERT of static columns only, without clustering columns: it writes the static row alone. */
  private staticOnlyInsert = false;
  /** IF NOT EXISTS / IF EXISTS / IF conditions (lightweight transactions). */
  readonly conditions: Conditions | undefined;
  readonly variableResultMetadata = true;

  constructor(
    readonly kind: 'insert' | 'update' | 'delete',
    readonly table: TableMetadata,
    ast: InsertAst | InsertJsonAst | UpdateAst | DeleteAst,
    /** Inside a BATCH string, markers are numbered across the whole batch: the batch owns the specs. */
    batchSpecs?: BindSpecs,
  ) {
    if (table.isVirtual)
      throw new InvalidRequest(`Modification is not supported by table ${table.keyspace}.${table.name}`);
    if (table.isCounter) {
      if (ast.kind === 'insert' || ast.kind === 'insertJson') {
        throw new InvalidRequest('INSERT statements are not allowed on counter tables, use UPDATE instead');
      }
      if (ast.attrs.ttl) throw new InvalidRequest('Cannot provide custom TTL for counter updates');
      if (ast.attrs.timestamp) throw new InvalidRequest('Cannot provide custom timestamp for counter updates');
    }
    const specs = batchSpecs ?? new BindSpecs(ast.bindMarkers.length);
    const base = { keyspace: table.keyspace, table: table.name };
    this.timestamp = this.attr(ast.attrs, 'timestamp', specs);
    this.ttl = kind === 'delete' ? undefined : this.attr(ast.attrs, 'ttl', specs);
    if (kind === 'delete' && ast.attrs.ttl) throw new InvalidRequest('TTL attribute is not allowed for deletes');
    const pkMarkers: (number | undefined)[] = table.partitionKey.map(() => undefined);

    if (ast.kind === 'insertJson') {
      this.conditions = ast.ifNotExists ? new Conditions(table, 'ifNotExists', [], specs) : undefined;
      const jsonTerm = prepareTerm(ast.json, { ...base, name: '[json]', type: native('text') }, specs);
      const source = new JsonObjectSource(table, (values) => jsonTerm.value(values));
      for (const col of table.columns) {
        const term = new JsonFieldTerm(source, col.name, col.type, ast.defaultUnset);
        if (col.kind === 'partition_key') this.pkTerms[col.position] = term;
        else if (col.kind === 'clustering') this.ckTerms[col.position] = term;
        else this.ops.push({ column: col, kind: 'set', term, key: undefined, field: -1 });
      }
      this.where = undefined;
    } else if (ast.kind === 'insert') {
      this.conditions = ast.ifNotExists ? new Conditions(table, 'ifNotExists', [], specs) : undefined;
      if (ast.columns.length !== ast.values.length) throw new InvalidRequest('Unmatched column names/values');
      const seen = new Set<string>();
      ast.columns.forEach((name, i) => {
        const col = table.columns.find((c) => c.name === name);
        if (!col) throw new InvalidRequest(`Undefined column name ${name} in table ${table.keyspace}.${table.name}`);
        if (seen.has(name)) throw new InvalidRequest(`Multiple definitions found for column ${name}`);
        seen.add(name);
        const v = ast.values[i]!;
        const term = prepareTerm(v, { ...base, name, type: col.type }, specs);
        if (col.kind === 'partition_key') {
          this.pkTerms[col.position] = term;
          if (v.kind === 'marker') pkMarkers[col.position] = v.index;
        } else if (col.kind === 'clustering') this.ckTerms[col.position] = term;
        else this.ops.push({ column: col, kind: 'set', term, key: undefined, field: -1 });
      });
      const missingPk = table.partitionKey.filter((c) => !seen.has(c.name));
      if (missingPk.length > 0)
        throw new InvalidRequest(`Some partition key parts are missing: ${missingPk.map((c) => c.name).join(', ')}`);
      const missingCk = table.clustering.filter((c) => !seen.has(c.name));
      // An INSERT setting static columns only may leave out every clustering column (it writes the static row).
      this.staticOnlyInsert =
        missingCk.length === table.clustering.length &&
        this.ops.length > 0 &&
        this.ops.every((o) => o.column.kind === 'static');
      if (missingCk.length > 0 && !this.staticOnlyInsert)
        throw new InvalidRequest(`Some clustering keys are missing: ${missingCk.map((c) => c.name).join(', ')}`);
      this.where = undefined;
    } else {
      this.conditions = ast.ifExists
        ? new Conditions(table, 'ifExists', [], specs)
        : ast.conditions.length > 0
          ? new Conditions(table, 'conditions', ast.conditions, specs)
          : undefined;
      const onlyStatic =
        ast.kind === 'update' &&
        ast.operations.length > 0 &&
        ast.operations.every((o) => table.columns.find((c) => c.name === o.column)?.kind === 'static');
      this.where = new KeyRestrictions(
        table,
        ast.where,
        specs,
        onlyStatic || ast.kind === 'delete' ? 'delete' : 'update',
        false,
      );
      this.partitionKeyIndices = this.where.partitionKeyIndices;
      if (ast.kind === 'update') {
        for (const op of ast.operations) this.ops.push(this.operation(op, specs));
      } else {
        for (const d of ast.deletions) {
          const col = table.columns.find((c) => c.name === d.column);
          if (!col)
            throw new InvalidRequest(`Undefined column name ${d.column} in table ${table.keyspace}.${table.name}`);
          if (col.kind === 'partition_key' || col.kind === 'clustering')
            throw new InvalidRequest(`Invalid identifier ${col.name} for deletion (should not be a PRIMARY KEY part)`);
          if (d.kind === 'column')
            this.ops.push({ column: col, kind: 'delete', term: undefined, key: undefined, field: -1 });
          else if (d.kind === 'element') {
            const t = col.type;
            if (t.kind !== 'list' && t.kind !== 'set' && t.kind !== 'map')
              throw new InvalidRequest(`Invalid deletion operation for non collection column ${col.name}`);
            if (t.frozen)
              throw new InvalidRequest(`Invalid deletion operation for frozen collection column ${col.name}`);
            if (t.kind === 'list') {
              const key = prepareTerm(d.key, { ...base, name: `idx(${col.name})`, type: native('int') }, specs);
              this.ops.push({ column: col, kind: 'listDeleteIndex', term: undefined, key, field: -1 });
              continue;
            }
            const keyType = t.kind === 'map' ? t.key : t.element;
            const key = prepareTerm(d.key, { ...base, name: `key(${col.name})`, type: keyType }, specs);
            this.ops.push({ column: col, kind: 'deleteElement', term: undefined, key, field: -1 });
          } else {
            if (col.type.kind !== 'udt')
              throw new InvalidRequest(`Invalid field deletion operation for non-UDT column ${col.name}`);
            if (col.type.frozen)
              throw new InvalidRequest(`Frozen UDT column ${col.name} does not support field deletions`);
            const field = col.type.fields.findIndex((f) => f.name === d.field);
            if (field < 0) throw new InvalidRequest(`UDT column ${col.name} does not have a field named ${d.field}`);
            this.ops.push({ column: col, kind: 'deleteField', term: undefined, key: undefined, field });
          }
        }
        if (
          ast.deletions.length > 0 &&
          !this.where.clusteringIsComplete &&
          this.ops.some((o) => o.column.kind !== 'static')
        ) {
          throw new InvalidRequest(`Range deletions are not supported for specific columns`);
        }
      }
    }
    if (ast.kind === 'insert')
      this.partitionKeyIndices = pkMarkers.every((m) => m !== undefined) ? (pkMarkers as number[]) : [];
    this.touchesStatic = this.ops.some((o) => o.column.kind === 'static');
    if (this.conditions && table.isCounter)
      throw new InvalidRequest('Conditional updates are not supported on counter tables');
    if (this.conditions && ast.attrs.timestamp)
      throw new InvalidRequest('Cannot provide custom timestamp for conditional updates');
    this.bindSpecs = batchSpecs ? [] : specs.complete();
  }

  static prepare(
    ast: InsertAst | InsertJsonAst | UpdateAst | DeleteAst,
    catalog: SchemaCatalog,
    keyspace: string | undefined,
    batchSpecs?: BindSpecs,
  ): ModificationStatement {
    const ksName = ast.table.keyspace ?? keyspace;
    if (ksName !== undefined && catalog.keyspace(ksName)?.views?.has(ast.table.name))
      throw new InvalidRequest('Cannot directly modify a materialized view');
    const table = lookupTable(catalog, ast.table, keyspace);
    return new ModificationStatement(ast.kind === 'insertJson' ? 'insert' : ast.kind, table, ast, batchSpecs);
  }

  private attr(attrs: Attributes, which: 'timestamp' | 'ttl', specs: BindSpecs): BoundTerm | undefined {
    const term = attrs[which];
    if (!term) return undefined;
    return prepareTerm(
      term,
      {
        keyspace: this.table.keyspace,
        table: this.table.name,
        name: `[${which}]`,
        type: native(which === 'ttl' ? 'int' : 'bigint'),
      },
      specs,
    );
  }

  private operation(op: Operation, specs: BindSpecs): ColumnOp {
    const t = this.table;
    const col = t.columns.find((c) => c.name === op.column);
    if (!col) throw new InvalidRequest(`Undefined column name ${op.column} in table ${t.keyspace}.${t.name}`);
    if (col.kind === 'partition_key' || col.kind === 'clustering')
      throw new InvalidRequest(`PRIMARY KEY part ${col.name} found in SET part`);
    const base = { keyspace: t.keyspace, table: t.name };
    const type = col.type;
    if (type.kind === 'native' && type.name === 'counter') {
      if (op.kind !== 'add' && op.kind !== 'subtract') {
        throw new InvalidRequest(
          `Cannot set the value of counter column ${col.name} (counters can only be incremented/decremented, not set)`,
        );
      }
      const term = prepareTerm(op.value, { ...base, name: col.name, type: native('bigint') }, specs);
      return {
        column: col,
        kind: op.kind === 'add' ? 'counterAdd' : 'counterSubtract',
        term,
        key: undefined,
        field: -1,
      };
    }
    switch (op.kind) {
      case 'set':
        return {
          column: col,
          kind: 'set',
          term: prepareTerm(op.value, { ...base, name: col.name, type }, specs),
          key: undefined,
          field: -1,
        };
      case 'add':
      case 'prepend':
      case 'subtract': {
        const value = termText(op.value);
        // Cassandra's Prepend prints its operation as `c = value - c`.
        const written =
          op.kind === 'prepend'
            ? `${col.name} = ${value} - ${col.name}`
            : `${col.name} = ${col.name} ${op.kind === 'subtract' ? '-' : '+'} ${value}`;
        const isCollection = type.kind === 'list' || type.kind === 'set' || type.kind === 'map';
        if (op.kind === 'prepend') {
          if (type.kind !== 'list')
            throw new InvalidRequest(`Invalid operation (${written}) for non list column ${col.name}`);
          if (type.frozen)
            throw new InvalidRequest(`Invalid operation (${written}) for frozen list column ${col.name}`);
        }
        if (!isCollection)
          throw new InvalidRequest(`Invalid operation (${written}) for non counter column ${col.name}`);
        if (!isMultiCell(type))
          throw new InvalidRequest(`Invalid operation (${written}) for frozen collection column ${col.name}`);
        if (op.kind === 'subtract' && type.kind === 'list') {
          return {
            column: col,
            kind: 'listRemove',
            term: prepareTerm(op.value, { ...base, name: col.name, type }, specs),
            key: undefined,
            field: -1,
          };
        }
        // Subtracting from a map takes a set of keys.
        const valueType: CqlType =
          op.kind === 'subtract' && type.kind === 'map' ? { kind: 'set', element: type.key, frozen: false } : type;
        return {
          column: col,
          kind: op.kind,
          term: prepareTerm(op.value, { ...base, name: col.name, type: valueType }, specs),
          key: undefined,
          field: -1,
        };
      }
      case 'setElement': {
        const written = `${col.name}[${termText(op.key)}] = ${termText(op.value)}`;
        if (type.kind !== 'list' && type.kind !== 'set' && type.kind !== 'map')
          throw new InvalidRequest(`Invalid operation (${written}) for non collection column ${col.name}`);
        if (type.frozen)
          throw new InvalidRequest(`Invalid operation (${written}) for frozen collection column ${col.name}`);
        if (type.kind === 'set') throw new InvalidRequest(`Invalid operation (${written}) for set column ${col.name}`);
        if (type.kind === 'list') {
          return {
            column: col,
            kind: 'listSetIndex',
            key: prepareTerm(op.key, { ...base, name: `idx(${col.name})`, type: native('int') }, specs),
            term: prepareTerm(op.value, { ...base, name: `value(${col.name})`, type: type.element }, specs),
            field: -1,
          };
        }
        return {
          column: col,
          kind: 'setElement',
          key: prepareTerm(op.key, { ...base, name: `key(${col.name})`, type: type.key }, specs),
          term: prepareTerm(op.value, { ...base, name: `value(${col.name})`, type: type.value }, specs),
          field: -1,
        };
      }
      case 'setField': {
        const written = `${col.name}.${op.field} = ${termText(op.value)}`;
        if (type.kind !== 'udt')
          throw new InvalidRequest(`Invalid operation (${written}) for non-UDT column ${col.name}`);
        if (type.frozen) throw new InvalidRequest(`Invalid operation (${written}) for frozen UDT column ${col.name}`);
        const field = type.fields.findIndex((f) => f.name === op.field);
        if (field < 0) throw new InvalidRequest(`UDT column ${col.name} does not have a field named ${op.field}`);
        return {
          column: col,
          kind: 'setField',
          term: prepareTerm(
            op.value,
            { ...base, name: `${col.name}.${op.field}`, type: type.fields[field]!.type },
            specs,
          ),
          key: undefined,
          field,
        };
      }
    }
  }

  private writeContext(values: readonly BoundValue[], options: QueryOptions, batchTs?: Timestamp): WriteContext {
    // Counter cells hold totals computed here, so only this server's monotonic clock may order them: a client
    // timestamp older than a concurrent client's would let an earlier total win and lose an acknowledged increment.
    let ts = this.table.isCounter
      ? undefined
      : (batchTs ?? (options.timestamp !== undefined ? clientTimestamp(options.timestamp) : undefined));
    if (this.timestamp) {
      const v = this.timestamp.value(values);
      if (v === null) throw new InvalidRequest('Invalid null value of timestamp');
      if (v !== UNSET) ts = usingTimestamp(v);
    }
    let ttl = this.table.options.default_time_to_live;
    if (this.ttl) {
      const v = this.ttl.value(values);
      if (v === null) throw new InvalidRequest('Invalid null value of TTL');
      if (v !== UNSET) {
        ttl = v.readInt32BE(0);
        if (ttl < 0) throw new InvalidRequest(`A TTL must be greater or equal to 0, but was ${ttl}`);
        if (ttl > MAX_TTL) throw new InvalidRequest(`ttl is too large. requested (${ttl}) maximum (${MAX_TTL})`);
      }
    }
    return { ts: ts ?? nextWriteTimestamp(), ttl, now: options.nowInSeconds ?? nowInSeconds() };
  }

  /** What updates() needs of the statement alone, worked out at its first execution instead of at every one. */
  private planned: UpdatePlan | undefined;

  private plan(): UpdatePlan {
    if (this.planned === undefined) {
      const cks = this.table.clustering;
      this.planned = {
        types: cks.map((c) => c.type),
        desc: cks.map((c) => c.clusteringOrder === 'desc'),
        staticOps: this.ops.filter((o) => o.column.kind === 'static'),
        regularOps: this.ops.filter((o) => o.column.kind === 'regular'),
        readBeforeWrite: this.ops.some((o) => READ_BEFORE_WRITE.has(o.kind)),
      };
    }
    return this.planned;
  }

  /** The partition updates this statement makes with these values (also used by BATCH). */
  updates(
    values: readonly BoundValue[],
    options: QueryOptions,
    batchTs?: Timestamp,
    ctx?: ExecutionContext,
    counters?: PendingCounterWrites,
  ): { updates: PartitionUpdate[]; now: number } {
    const w = this.writeContext(values, options, batchTs);
    const keys = this.where ? this.where.partitionKeys(values) : [this.insertPartitionKey(values)];
    const cks = this.table.clustering;
    const { types, desc, staticOps, regularOps, readBeforeWrite } = this.plan();
    const rows: RowUpdate[] = [];
    const rangeTombstones: RangeTombstone[] = [];
    let partitionDeletion: DeletionTime | undefined;
    let staticRow: RowUpdate | undefined;

    if (staticOps.length > 0) staticRow = this.rowUpdate(EMPTY, undefined, staticOps, values, w, false);

    if (this.kind === 'insert') {
      if (!this.staticOnlyInsert) {
        const ckValues = this.ckTerms.map((t, i) => this.keyValue(t, values, cks[i]!));
        const clustering = cks.length > 0 ? encodeClusteringKey(types, desc, ckValues) : EMPTY;
        rows.push(this.rowUpdate(clustering, ckValues, regularOps, values, w, true));
      }
    } else if (this.kind === 'update') {
      if (regularOps.length > 0 || !this.touchesStatic) {
        for (const ckValues of this.checkedPrefixes(values)) {
          if (ckValues.length !== cks.length)
            throw new InvalidRequest(
              `Some clustering keys are missing: ${cks
                .slice(ckValues.length)
                .map((c) => c.name)
                .join(', ')}`,
            );
          const clustering = cks.length > 0 ? encodeClusteringKey(types, desc, ckValues) : EMPTY;
          rows.push(this.rowUpdate(clustering, ckValues, regularOps, values, w, false));
        }
      }
    } else if (this.ops.length > 0) {
      if (regularOps.length > 0) {
        for (const ckValues of this.checkedPrefixes(values)) {
          const clustering = cks.length > 0 ? encodeClusteringKey(types, desc, ckValues) : EMPTY;
          rows.push(this.rowUpdate(clustering, ckValues, regularOps, values, w, false));
        }
      }
    } else if (!this.where!.hasClusteringRestrictions) {
      partitionDeletion = { ts: w.ts, ldt: w.now };
    } else if (this.where!.clusteringIsComplete) {
      for (const ckValues of this.checkedPrefixes(values)) {
        rows.push({
          clustering: encodeClusteringKey(types, desc, ckValues),
          clusteringValues: ckValues,
          deletion: { ts: w.ts, ldt: w.now },
        });
      }
    } else {
      for (const r of this.where!.clusteringRanges(values)) {
        rangeTombstones.push({
          start: r.start ?? { prefix: EMPTY, inclusive: true },
          end: r.end ?? { prefix: EMPTY, inclusive: true },
          deletion: { ts: w.ts, ldt: w.now },
        });
      }
    }
    const updates: PartitionUpdate[] = keys.map((key) => ({
      key,
      // No token: storage hashes the key straight into its map key, without building a bigint (mutation.ts).
      token: undefined,
      deletion: partitionDeletion,
      staticRow,
      rows,
      rangeTombstones,
    }));
    if (readBeforeWrite) {
      if (!ctx) throw new InvalidRequest('this update needs storage access');
      return { updates: updates.map((u) => this.withReadBeforeWrite(ctx, u, values, w, counters)), now: w.now };
    }
    return { updates, now: w.now };
  }

  /**
   * Cells for `l[i] = v`, `DELETE l[i]` and `l = l - [..]` against the list as the statement's earlier operations
   * (`cells`, `deletions`) leave the stored one (`stored`: its read, once per column), with Lists.SetterByIndex's and
   * DiscarderByIndex's checks and messages.
   */
  private listCells(
    stored: () => ComplexValue | null,
    op: ColumnOp,
    values: readonly BoundValue[],
    w: WriteContext,
    cells: Cell[],
    deletions: readonly ComplexDeletion[],
  ): void {
    const col = op.column;
    const list = () => listAsUpdated(stored(), col.id, cells, deletions, w.now);
    if (op.kind === 'listRemove') {
      const v = op.term!.value(values);
      if (v === UNSET || v === null) return;
      const remove = readCollectionElements(v);
      const element = (col.type as { element: CqlType }).element;
      for (const e of list()) {
        if (remove.some((r) => compareValues(element, r, e.value) === 0)) cells.push(tombstone(col.id, w, e.path));
      }
      return;
    }
    const setting = op.kind === 'listSetIndex';
    const idx = op.key!.value(values);
    if (idx === null) throw new InvalidRequest('Invalid null value for list index');
    if (idx === UNSET) {
      if (setting) throw new InvalidRequest('Invalid unset value for list index');
      return;
    }
    const current = list();
    const i = idx.readInt32BE(0);
    if (current.length === 0) {
      throw new InvalidRequest(
        setting
          ? 'Attempted to set an element on a list which is null'
          : 'Attempted to delete an element from a list which is null',
      );
    }
    if (i < 0 || i >= current.length)
      throw new InvalidRequest(`List index ${i} out of bound, list has size ${current.length}`);
    const path = current[i]!.path;
    if (!setting) {
      cells.push(tombstone(col.id, w, path));
      return;
    }
    const v = op.term!.value(values);
    if (v === UNSET) return;
    cells.push(v === null ? tombstone(col.id, w, path) : cellFor(col.id, v, w, path));
  }

  /** A list column's stored value at `clustering`, with its cells' timestamps and TTLs. */
  private storedList(
    store: TableStore,
    u: PartitionUpdate,
    clustering: Buffer,
    col: ColumnMetadata,
    now: number,
  ): ComplexValue | null {
    const bound = clustering.length > 0 ? { prefix: clustering, inclusive: true } : undefined;
    const pr = store.readPartition(u.key, u.token ?? murmur3Token(u.key), {
      columns: new Projection([col.id], true),
      nowInSeconds: now,
      start: bound,
      end: bound,
      limit: 1,
      includeStatic: col.kind === 'static',
      withMetadata: true,
    });
    return ((col.kind === 'static' ? pr?.staticRow : pr?.rows[0])?.values[0] ?? null) as ComplexValue | null;
  }

  /**
   * Operations that depend on the current row: counter increments become cells holding the new totals
   * (current total + delta, Java long arithmetic); list index updates and element removals find the
   * cell paths of the current list (Cassandra also reads before writing for these).
   */
  private withReadBeforeWrite(
    ctx: ExecutionContext,
    u: PartitionUpdate,
    values: readonly BoundValue[],
    w: WriteContext,
    counters: PendingCounterWrites | undefined,
  ): PartitionUpdate {
    const store = storeOf(ctx, this.table);
    const addCells = (row: RowUpdate | undefined, isStatic: boolean): RowUpdate | undefined => {
      if (!row) return row;
      const ops = this.ops.filter((op) => (op.column.kind === 'static') === isStatic);
      let cells = [...(row.cells ?? [])];
      let complexDeletions = row.complexDeletions;
      if (ops.some((op) => LIST_READ_BEFORE_WRITE.has(op.kind))) {
        // Each list operation sees what the operations before it in the statement did to the list: they run again
        // in statement order (UpdateParameters.getPrefetchedRow merges the pending row into the read one).
        cells = [];
        const deletions: ComplexDeletion[] = [];
        const stored = new Map<number, ComplexValue | null>();
        for (const op of ops) {
          if (!LIST_READ_BEFORE_WRITE.has(op.kind)) {
            this.applyOp(op, values, w, cells, deletions);
            continue;
          }
          const read = () => {
            if (!stored.has(op.column.id))
              stored.set(op.column.id, this.storedList(store, u, row.clustering, op.column, w.now));
            return stored.get(op.column.id)!;
          };
          this.listCells(read, op, values, w, cells, deletions);
        }
        complexDeletions = deletions;
      }
      for (const op of ops) {
        if (op.kind !== 'counterAdd' && op.kind !== 'counterSubtract') continue;
        const d = op.term!.value(values);
        if (d === UNSET) continue;
        if (d === null) throw new InvalidRequest(`Invalid null value for counter increment/decrement`);
        const delta = d.readBigInt64BE(0);
        const current = currentCounter(
          store,
          u.key,
          u.token ?? murmur3Token(u.key),
          row.clustering,
          op.column.id,
          w.now,
        );
        const total = BigInt.asIntN(64, op.kind === 'counterAdd' ? current + delta : current - delta);
        if (!counters) throw new Error('counter increment without a pending-totals collector');
        counters.add(store, u.key, row.clustering, op.column.id, total);
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(total);
        cells.push(cellFor(op.column.id, b, w));
      }
      // A counter row exists through its counter cells only (UPDATE sets no row liveness).
      return { ...row, cells, complexDeletions };
    };
    return {
      ...u,
      staticRow: addCells(u.staticRow, true),
      rows: u.rows?.map((r) => addCells(r, false)!),
    };
  }

  private keyValue(t: BoundTerm, values: readonly BoundValue[], col: ColumnMetadata): Buffer {
    const v = t.value(values);
    if (v === UNSET) throw new InvalidRequest(`Invalid unset value for column ${col.name}`);
    if (v === null) throw new InvalidRequest(`Invalid null value in condition for column ${col.name}`);
    checkKeyLength(v);
    return v;
  }

  private checkedPrefixes(values: readonly BoundValue[]): Buffer[][] {
    const prefixes = this.where!.clusteringPrefixes(values);
    for (const p of prefixes) for (const v of p) checkKeyLength(v);
    return prefixes;
  }

  private insertPartitionKey(values: readonly BoundValue[]): Buffer {
    const key = serializePartitionKey(
      this.pkTerms.map((t, i) => this.keyValue(t, values, this.table.partitionKey[i]!)),
    );
    if (key.length === 0) throw new InvalidRequest('Key may not be empty');
    return key;
  }

  private rowUpdate(
    clustering: Buffer,
    clusteringValues: Buffer[] | undefined,
    ops: readonly ColumnOp[],
    values: readonly BoundValue[],
    w: WriteContext,
    withLiveness: boolean,
  ): RowUpdate {
    const cells: Cell[] = [];
    const complexDeletions: ComplexDeletion[] = [];
    for (const op of ops) this.applyOp(op, values, w, cells, complexDeletions);
    return {
      clustering,
      clusteringValues,
      liveness: withLiveness ? rowLiveness(w.ts, w.ttl, w.now) : undefined,
      cells,
      complexDeletions,
    };
  }

  private applyOp(
    op: ColumnOp,
    values: readonly BoundValue[],
    w: WriteContext,
    cells: Cell[],
    deletions: ComplexDeletion[],
  ): void {
    const col = op.column;
    const id = col.id;
    const multi = isMultiCell(col.type);
    const value = (t: BoundTerm | undefined): TermValue => (t ? t.value(values) : null);
    switch (op.kind) {
      case 'set': {
        const v = value(op.term);
        if (v === UNSET) return;
        if (!multi) {
          cells.push(v === null ? tombstone(id, w) : cellFor(id, v, w));
          return;
        }
        // Overwriting a collection: delete what was there (just before this write), then add elements.
        deletions.push({ column: id, deletion: { ts: timestampPlus(w.ts, -1), ldt: w.now } });
        if (v !== null)
          for (const e of bytesToElements(col.type, v, () => listElementPath(false)))
            cells.push(cellFor(id, e.value, w, e.path));
        return;
      }
      case 'add': {
        const v = value(op.term);
        if (v === UNSET || v === null) return;
        for (const e of bytesToElements(col.type, v, () => listElementPath(false)))
          cells.push(cellFor(id, e.value, w, e.path));
        return;
      }
      case 'prepend': {
        const v = value(op.term);
        if (v === UNSET || v === null) return;
        // Each prepend path sorts before the previous one: the last element takes the first path, so the literal
        // keeps its order in front of the list (Lists.Prepender walks the elements backwards).
        const elements = bytesToElements(col.type, v, () => listElementPath(true));
        const paths = elements.map((e) => e.path).reverse();
        for (let i = 0; i < elements.length; i++) cells.push(cellFor(id, elements[i]!.value, w, paths[i]));
        return;
      }
      case 'subtract': {
        const v = value(op.term);
        if (v === UNSET || v === null) return;
        const keyType = col.type.kind === 'map' ? col.type.key : (col.type as { element: CqlType }).element;
        for (const e of readCollectionElements(v)) cells.push(tombstone(id, w, encodeKeyComponent(keyType, e)));
        return;
      }
      case 'setElement': {
        const k = value(op.key);
        const v = value(op.term);
        if (k === UNSET || v === UNSET) return;
        if (k === null) throw new InvalidRequest(`Invalid null map key for ${col.name}`);
        const path = encodeKeyComponent((col.type as { key: CqlType }).key, k);
        cells.push(v === null ? tombstone(id, w, path) : cellFor(id, v, w, path));
        return;
      }
      case 'setField': {
        const v = value(op.term);
        if (v === UNSET) return;
        const path = udtFieldPath(op.field);
        cells.push(v === null ? tombstone(id, w, path) : cellFor(id, v, w, path));
        return;
      }
      case 'delete':
        if (multi) deletions.push({ column: id, deletion: { ts: w.ts, ldt: w.now } });
        else cells.push(tombstone(id, w));
        return;
      case 'deleteElement': {
        const k = value(op.key);
        if (k === UNSET || k === null) throw new InvalidRequest(`Invalid null value for ${col.name} element`);
        const keyType = col.type.kind === 'map' ? col.type.key : (col.type as { element: CqlType }).element;
        cells.push(tombstone(id, w, encodeKeyComponent(keyType, k)));
        return;
      }
      case 'deleteField':
        cells.push(tombstone(id, w, udtFieldPath(op.field)));
        return;
      case 'counterAdd':
      case 'counterSubtract':
      case 'listSetIndex':
      case 'listRemove':
      case 'listDeleteIndex':
        // These depend on the row's current value: see withReadBeforeWrite.
        return;
    }
  }

  /** Whether the statement has its own USING TIMESTAMP (BATCH checks). */
  get hasTimestamp(): boolean {
    return this.timestamp !== undefined;
  }

  /** Whether this statement changes a counter table (BATCH type checks). */
  get isCounter(): boolean {
    return this.table.isCounter;
  }

  execute(ctx: ExecutionContext, _state: ClientState, options: QueryOptions): Promise<ResultMessage> {
    if (this.conditions) return this.executeConditional(ctx, options);
    validateWriteConsistency(options.consistency, this.table.isCounter ? this.table.name : undefined);
    const counters = this.table.isCounter ? new PendingCounterWrites() : undefined;
    let planned: { updates: PartitionUpdate[]; now: number };
    try {
      planned = this.updates(options.values, options, undefined, ctx, counters);
    } catch (e) {
      counters?.discard();
      throw e;
    }
    const { updates, now } = planned;
    const store = storeOf(ctx, this.table);
    if (dependentsOf(ctx, this.table)) {
      const applied = applyWithDependents(ctx, [{ table: this.table, updates, now }], (t) => storeOf(ctx, t));
      return applied.then(
        () => {
          counters?.release();
          return VOID;
        },
        (e: unknown) => {
          counters?.release();
          throw e;
        },
      );
    }
    return new Promise((resolve, reject) => {
      store.applyMutationsCallback(updates, now, (err) => {
        counters?.release();
        if (err) reject(err);
        else resolve({ kind: 'void' });
      });
    });
  }

  /**
   * Reads the row a conditional statement addresses and evaluates its IF clause against it. The
   * caller has committed everything submitted before (flush), and submits the write in the same
   * synchronous step, so no other write can come between this read and that write.
   */
  checkConditions(
    ctx: ExecutionContext,
    values: readonly BoundValue[],
    updates: readonly PartitionUpdate[],
    now: number,
  ): ConditionCheck {
    const conditions = this.conditions!;
    if (updates.length !== 1)
      throw new InvalidRequest('IN on the partition key is not supported with conditional updates');
    const u = updates[0]!;
    const rows = u.rows ?? [];
    if (rows.length > 1)
      throw new InvalidRequest('IN on the clustering key columns is not supported with conditional updates');
    if ((u.rangeTombstones?.length ?? 0) > 0) {
      throw new InvalidRequest(
        'DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions',
      );
    }
    const cks = this.table.clustering;
    const prefix = this.where?.clusteringPrefixes(values)[0];
    const clustering =
      rows[0]?.clustering ??
      (prefix && prefix.length > 0
        ? encodeClusteringKey(
            cks.map((c) => c.type),
            cks.map((c) => c.clusteringOrder === 'desc'),
            prefix,
          )
        : EMPTY);
    const store = storeOf(ctx, this.table);
    const wanted = this.table.columns.filter((c) => c.kind === 'regular' || c.kind === 'static');
    const bound = clustering.length > 0 ? { prefix: clustering, inclusive: true } : undefined;
    const pr = store.readPartition(u.key, u.token, {
      columns: new Projection(wanted.map((c) => c.id)),
      nowInSeconds: now,
      start: bound,
      end: bound,
      limit: 1,
      includeStatic: wanted.some((c) => c.kind === 'static'),
    });
    // A static-only INSERT's IF NOT EXISTS is about the static row (CQL3CasRequest's static condition).
    const row = this.staticOnlyInsert ? undefined : pr?.rows[0];
    const exists = this.staticOnlyInsert ? (pr?.staticRow?.values.some((v) => v !== null) ?? false) : row !== undefined;
    const current = (c: ColumnMetadata) => Conditions.current(c, row, pr?.staticRow, wanted.indexOf(c));
    const applied = conditions.applies(values, exists, current);

    // A failed statement shows what its CAS read returned (buildCasFailureResultSet): the row, or with conditions
    // on static columns only, the partition's first live row (CQL3CasRequest.readCommand); without one, the static
    // row alone when the static columns read (those of the conditions, all when the statement writes the static
    // row: columnsToRead) hold a value, with null clustering and regular columns.
    let shownRow = row;
    if (!applied && !shownRow && !this.staticOnlyInsert && conditions.onlyStaticColumns) {
      const regular = new Projection(wanted.filter((c) => c.kind === 'regular').map((c) => c.id));
      shownRow = store.readPartition(u.key, u.token, { columns: regular, nowInSeconds: now, limit: 1 })?.rows[0];
    }
    const staticRead = wanted.filter(
      (c) => c.kind === 'static' && (u.staticRow !== undefined || conditions.columns.includes(c)),
    );
    const shown = exists || shownRow !== undefined || staticRead.some((c) => current(c) !== null);
    const valuesOf = (columns: readonly ColumnMetadata[]): (Buffer | null)[] => {
      const pk = deserializePartitionKey(u.key, this.table.partitionKey.length);
      return columns.map((c) =>
        c.kind === 'partition_key'
          ? pk[c.position]!
          : c.kind === 'clustering'
            ? (shownRow?.clusteringValues[c.position] ?? null)
            : c.kind === 'static' || shownRow === row
              ? current(c)
              : null,
      );
    };
    const result = conditions.result(applied, shown, () => {
      const columns = conditions.kind === 'conditions' ? conditions.columns : this.table.columns;
      return { specs: columns.map((c) => columnSpecOf(this.table, c)), values: valuesOf(columns) };
    });
    const rowKey = (shownRow?.clustering ?? (exists ? clustering : EMPTY)).toString('hex');
    return { applied, ...result, exists, shown, rowKey, valuesOf };
  }

  /** A lightweight transaction: flush, check, and submit the write in one synchronous step. */
  private executeConditional(ctx: ExecutionContext, options: QueryOptions): Promise<ResultMessage> {
    const ks = ctx.catalog.keyspace(this.table.keyspace);
    if (ks) checkConditionalConsistency(options.serialConsistency, options.consistency, ks, ctx.node.dataCenter);
    const values = options.values;
    const { updates, now } = this.updates(values, options);
    ctx.storage.commit.flush();
    const { applied, columns, row } = this.checkConditions(ctx, values, updates, now);
    const result: ResultMessage = { kind: 'rows', metadata: { columns }, rows: [row] };
    if (!applied) return Promise.resolve(result);
    if (dependentsOf(ctx, this.table)) {
      return applyWithDependents(ctx, [{ table: this.table, updates, now }], (t) => storeOf(ctx, t)).then(() => result);
    }
    const store = storeOf(ctx, this.table);
    return new Promise((resolve, reject) => {
      store.applyMutationsCallback(updates, now, (err) => (err ? reject(err) : resolve(result)));
    });
  }
}

/** Cassandra's bound on every key component; it also keeps huge varint/decimal keys from costing seconds to encode. */
function checkKeyLength(v: Buffer): void {
  if (v.length > 0xffff) throw new InvalidRequest(`Key length of ${v.length} is longer than maximum of 65535`);
}
