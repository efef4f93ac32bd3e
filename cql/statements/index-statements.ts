// CREATE [CUSTOM] INDEX and DROP INDEX, with Cassandra 5.0's validation and messages
// (CreateIndexStatement, IndexAttributes). The index lives in its base table's metadata (system_schema.indexes)
// and in a hidden storage table of entries, built from the existing rows before the statement returns.

import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { nextWriteTimestamp } from '../execution/write-clock.js';
import { buildIndex } from '../index/index-build.js';
import { IndexTerms } from '../index/index-entries.js';
import { similarityOf } from '../index/vector-search.js';
import type {
  CreateIndexStatement as CreateAst,
  DropIndexStatement as DropAst,
  IndexTarget,
  IndexTargetKind,
} from '../parser/ast.js';
import type { ClientState, ResultMessage } from '../query-handler.js';
import { type IndexMetadata, indexStorageIdBytes, indexTargetText, SAI_CLASS } from '../schema/index-metadata.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import type { CqlType } from '../types/cql-type.js';
import { cqlTypeToString, isMultiCell } from '../types/cql-type.js';
import { publishSchemaChange } from './schema-change.js';
import { SchemaStatement } from './schema-statement.js';
import { resolveKeyspace } from './table-resolution.js';

/** Every index of a keyspace with its table. */
export function* keyspaceIndexes(ks: KeyspaceMetadata): Generator<{ table: TableMetadata; index: IndexMetadata }> {
  for (const table of ks.tables.values()) for (const index of table.indexes ?? []) yield { table, index };
}

const SAI_NAMES = new Set(['sai', 'storageattachedindex', SAI_CLASS.toLowerCase()]);

/** The `USING` class: SAI under its aliases; legacy_local_table is the plain secondary index. */
function indexClass(using: string | undefined, custom: boolean): { kind: IndexMetadata['kind']; className?: string } {
  if (using === undefined) {
    if (custom) throw new InvalidRequest('A CUSTOM index requires specifying the index class');
    return { kind: 'COMPOSITES' };
  }
  const lower = using.toLowerCase();
  if (SAI_NAMES.has(lower)) return { kind: 'CUSTOM', className: SAI_CLASS };
  if (lower === 'legacy_local_table') return { kind: 'COMPOSITES' };
  if (lower === 'sasi' || lower.endsWith('sasiindex'))
    throw new InvalidRequest('SASI indexes are disabled. Enable in cassandra.yaml to use.');
  throw new InvalidRequest(`Unable to find custom indexer class '${using}'`);
}

function referencesDuration(t: CqlType): boolean {
  switch (t.kind) {
    case 'native':
      return t.name === 'duration';
    case 'list':
    case 'set':
    case 'vector':
      return referencesDuration(t.element);
    case 'map':
      return referencesDuration(t.key) || referencesDuration(t.value);
    case 'tuple':
      return t.elements.some(referencesDuration);
    case 'udt':
      return t.fields.some((f) => referencesDuration(f.type));
    default:
      return false;
  }
}

function isCollection(t: CqlType): boolean {
  return t.kind === 'list' || t.kind === 'set' || t.kind === 'map';
}

function validateTarget(table: TableMetadata, target: IndexTarget): void {
  const column = table.columns.find((c) => c.name === target.column);
  if (!column) throw new InvalidRequest(`Column '${target.column}' doesn't exist`);
  const t = column.type;
  const name = column.name;
  if (referencesDuration(t)) {
    if (isCollection(t))
      throw new InvalidRequest('Secondary indexes are not supported on collections containing durations');
    if (t.kind === 'tuple')
      throw new InvalidRequest('Secondary indexes are not supported on tuples containing durations');
    if (t.kind === 'udt') throw new InvalidRequest('Secondary indexes are not supported on UDTs containing durations');
    throw new InvalidRequest('Secondary indexes are not supported on duration columns');
  }
  if (column.kind === 'partition_key' && table.partitionKey.length === 1)
    throw new InvalidRequest(`Cannot create secondary index on the only partition key column ${name}`);
  const frozenCollection = isCollection(t) && !isMultiCell(t);
  const kind: IndexTargetKind = target.kind;
  if (frozenCollection && kind !== 'full') {
    throw new InvalidRequest(
      `Cannot create ${kind}() index on frozen column ${name}. Frozen collections are immutable and must be fully indexed by using the 'full(${name})' modifier`,
    );
  }
  if (!frozenCollection && kind === 'full')
    throw new InvalidRequest('full() indexes can only be created on frozen collections');
  if (!isCollection(t) && kind !== 'simple')
    throw new InvalidRequest(
      `Cannot create ${kind}() index on ${name}. Non-collection columns only support simple indexes`,
    );
  if (!(t.kind === 'map' && isMultiCell(t)) && (kind === 'keys' || kind === 'entries'))
    throw new InvalidRequest(`Cannot create index on ${kind} of column ${name} with non-map type`);
  if (t.kind === 'udt' && isMultiCell(t))
    throw new InvalidRequest(`Cannot create index on non-frozen UDT column ${name}`);
}

/** Cassandra's default name: `<table>_<column>_idx` without non-word characters, made unique with `_n`. */
function defaultIndexName(ks: KeyspaceMetadata, table: string, column: string): string {
  const base = `${table}_${column}_idx`.replace(/\W/g, '');
  const taken = new Set([...keyspaceIndexes(ks)].map((x) => x.index.name));
  if (!taken.has(base)) return base;
  for (let i = 1; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
}

export class CreateIndexStatement extends SchemaStatement {
  constructor(readonly ast: CreateAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ast = this.ast;
    const ksName = resolveKeyspace(ast.table.keyspace, state.keyspace);
    if (SYSTEM_KEYSPACE_NAMES.has(ksName)) throw new InvalidRequest(`${ksName} keyspace is not user-modifiable`);
    const ks = ctx.catalog.keyspace(ksName);
    if (!ks) throw new InvalidRequest(`Keyspace '${ksName}' doesn't exist`);
    if (ks.views?.has(ast.table.name))
      throw new InvalidRequest("Secondary indexes on materialized views aren't supported");
    const table = ks.tables.get(ast.table.name);
    if (!table) throw new InvalidRequest(`Table '${ast.table.name}' doesn't exist`);
    if (ast.name !== undefined && [...keyspaceIndexes(ks)].some((x) => x.index.name === ast.name)) {
      if (ast.ifNotExists) return { kind: 'void' };
      throw new InvalidRequest(`Index '${ast.name}' already exists`);
    }
    const options = ast.properties.get('options');
    const userOptions: Record<string, string> = options?.kind === 'map' ? Object.fromEntries(options.entries) : {};
    for (const key of ast.properties.keys()) {
      if (key !== 'options') throw new InvalidRequest(`Unknown property '${key}'`);
    }
    const custom = ast.custom || ast.using !== undefined;
    const cls = indexClass(ast.using, custom);
    if (cls.kind === 'COMPOSITES' && Object.keys(userOptions).length > 0 && ast.using === undefined)
      throw new InvalidRequest('Cannot specify options for a non-CUSTOM index');
    if ('class_name' in userOptions) throw new InvalidRequest('Cannot specify class_name as a CUSTOM option');
    if ('target' in userOptions) throw new InvalidRequest('Cannot specify target as a CUSTOM option');
    if (table.isCounter) throw new InvalidRequest("Secondary indexes on counter tables aren't supported");
    if (ast.targets.length === 0) {
      if (!custom) throw new InvalidRequest('Only CUSTOM indexes can be created without specifying a target column');
      throw new InvalidRequest('CUSTOM indexes without a target column are not supported');
    }
    if (ast.targets.length > 1) {
      if (!custom) throw new InvalidRequest('Only CUSTOM indexes support multiple columns');
      throw new InvalidRequest('Indexes on multiple columns are not supported');
    }
    const raw = ast.targets[0]!;
    // `(c)` on a collection means `values(c)` (IndexTarget.Raw.prepare).
    const rawColumn = table.columns.find((c) => c.name === raw.column);
    const target: IndexTarget =
      raw.kind === 'simple' && rawColumn && isCollection(rawColumn.type) ? { column: raw.column, kind: 'values' } : raw;
    validateTarget(table, target);
    const column = table.columns.find((c) => c.name === target.column)!;
    if (column.type.kind === 'vector') {
      if (cls.kind !== 'CUSTOM')
        throw new InvalidRequest(`Cannot create secondary index on vector column ${column.name}: use 'sai'`);
      const e = column.type.element;
      if (!(e.kind === 'native' && e.name === 'float'))
        throw new InvalidRequest(
          `SAI vector indexes are only supported on vector<float, n> columns (got ${cqlTypeToString(column.type)})`,
        );
      similarityOf(userOptions);
    } else if ('similarity_function' in userOptions) {
      throw new InvalidRequest('Similarity function option is only valid for vector columns');
    }
    const targetText = indexTargetText(column.name, target.kind);
    const name = ast.name ?? defaultIndexName(ks, table.name, column.name);
    const indexOptions: Record<string, string> =
      cls.kind === 'CUSTOM'
        ? { class_name: cls.className!, target: targetText, ...userOptions }
        : { target: targetText };
    const index: IndexMetadata = {
      name,
      kind: cls.kind,
      options: indexOptions,
      column: column.name,
      target: target.kind,
      storageId: randomUUID(),
    };
    const same = (table.indexes ?? []).find(
      (i) => i.kind === index.kind && JSON.stringify(i.options) === JSON.stringify(index.options),
    );
    if (same) {
      if (ast.ifNotExists) return { kind: 'void' };
      throw new InvalidRequest(`Index ${name} is a duplicate of existing index ${same.name}`);
    }
    const indexStore = await ctx.storage.createTable(indexStorageIdBytes(index), { clustered: true });
    const updated: TableMetadata = { ...table, indexes: [...(table.indexes ?? []), index] };
    ctx.catalog.putTable(updated);
    const terms = new IndexTerms(updated, index);
    const base = ctx.storage.table(tableIdBytes(table));
    if (base && terms.keepsEntries) await buildIndex(base, indexStore, terms, nextWriteTimestamp());
    return publishSchemaChange(ctx, ksName, { change: 'UPDATED', target: 'TABLE', keyspace: ksName, name: table.name });
  }
}

export class DropIndexStatement extends SchemaStatement {
  constructor(readonly ast: DropAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ksName = resolveKeyspace(this.ast.index.keyspace, state.keyspace);
    const name = this.ast.index.name;
    const ks = ctx.catalog.keyspace(ksName);
    const found = ks ? [...keyspaceIndexes(ks)].find((x) => x.index.name === name) : undefined;
    if (!found) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Index '${ksName}.${name}' doesn't exist`);
    }
    const { table, index } = found;
    ctx.catalog.putTable({ ...table, indexes: (table.indexes ?? []).filter((i) => i !== index) });
    const result = await publishSchemaChange(ctx, ksName, {
      change: 'UPDATED',
      target: 'TABLE',
      keyspace: ksName,
      name: table.name,
    });
    await ctx.storage.dropTable(indexStorageIdBytes(index));
    return result;
  }
}
