// CREATE / ALTER / DROP KEYSPACE.

import { AlreadyExists, ConfigurationError, InvalidRequest, SyntaxError } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type {
  AlterKeyspaceStatement as AlterAst,
  CreateKeyspaceStatement as CreateAst,
  DropKeyspaceStatement as DropAst,
  Properties,
} from '../parser/ast.js';
import type { ResultMessage } from '../query-handler.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { tableIdBytes } from '../schema/table-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import { dropKeyspaceDependents } from '../views/dependents-ddl.js';
import { publishSchemaChange, validateName } from './schema-change.js';
import { SchemaStatement } from './schema-statement.js';

const LOCATOR = 'org.apache.cassandra.locator.';

function parseReplication(
  keyspace: string,
  properties: Properties,
  dataCenter: string,
  existing: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const prop = properties.get('replication');
  if (!prop) {
    if (existing) return { ...existing };
    throw new ConfigurationError("Missing mandatory option 'replication'");
  }
  if (prop.kind !== 'map') throw new SyntaxError("Invalid value for property 'replication'. It should be a map.");
  const m = new Map(prop.entries);
  const cls = m.get('class');
  if (!cls) throw new ConfigurationError('Missing replication strategy class');
  const full = cls.includes('.') ? cls : LOCATOR + cls;
  const out: Record<string, string> = { class: full };
  if (full === `${LOCATOR}SimpleStrategy`) {
    const rf = m.get('replication_factor');
    if (rf === undefined) throw new ConfigurationError('SimpleStrategy requires a replication_factor strategy option.');
    if (!/^\d+(\/\d+)?$/.test(rf)) throw new ConfigurationError(`Replication factor must be non-negative; found ${rf}`);
    for (const k of m.keys()) {
      if (k !== 'class' && k !== 'replication_factor')
        throw new ConfigurationError(
          `Unrecognized strategy option {${k}} passed to SimpleStrategy for keyspace ${keyspace}`,
        );
    }
    out.replication_factor = rf;
  } else if (full === `${LOCATOR}NetworkTopologyStrategy`) {
    for (const [k, v] of m) {
      if (k === 'class') continue;
      if (!/^\d+(\/\d+)?$/.test(v)) throw new ConfigurationError(`Replication factor must be non-negative; found ${v}`);
      // replication_factor is a shorthand for "every known datacenter".
      out[k === 'replication_factor' ? dataCenter : k] = v;
    }
    // Only datacenters the cluster knows (this node's), as NetworkTopologyStrategy.validateExpectedOptions.
    for (const k of m.keys()) {
      if (k !== 'class' && k !== 'replication_factor' && k !== dataCenter)
        throw new ConfigurationError(
          `Unrecognized strategy option {${k}} passed to NetworkTopologyStrategy for keyspace ${keyspace}`,
        );
    }
  } else if (full === `${LOCATOR}LocalStrategy` || full === `${LOCATOR}EverywhereStrategy`) {
    throw new ConfigurationError(`Unable to use given strategy class: LocalStrategy is reserved for internal use.`);
  } else {
    throw new ConfigurationError(`Unable to find replication strategy class '${full}'`);
  }
  return out;
}

function parseDurableWrites(properties: Properties, fallback: boolean): boolean {
  const p = properties.get('durable_writes');
  if (!p) return fallback;
  if (p.kind !== 'simple') throw new SyntaxError("Invalid value for property 'durable_writes'");
  const v = p.value.toLowerCase();
  if (v !== 'true' && v !== 'false') throw new SyntaxError(`Invalid boolean value ${p.value} for 'durable_writes'`);
  return v === 'true';
}

function checkProperties(properties: Properties): void {
  for (const k of properties.keys()) {
    if (k !== 'replication' && k !== 'durable_writes' && k !== 'graph_engine')
      throw new SyntaxError(`Unknown property '${k}'`);
  }
}

export class CreateKeyspaceStatement extends SchemaStatement {
  constructor(readonly ast: CreateAst) {
    super();
  }
  async execute(ctx: ExecutionContext): Promise<ResultMessage> {
    const name = this.ast.keyspace;
    validateName('Keyspace', name);
    checkProperties(this.ast.properties);
    const replication = parseReplication(name, this.ast.properties, ctx.node.dataCenter, undefined);
    const durableWrites = parseDurableWrites(this.ast.properties, true);
    if (ctx.catalog.keyspace(name)) {
      if (this.ast.ifNotExists) return { kind: 'void' };
      throw new AlreadyExists(`Cannot add existing keyspace "${name}"`, name, '');
    }
    const ks: KeyspaceMetadata = {
      name,
      durableWrites,
      replication,
      tables: new Map(),
      types: new Map(),
      virtual: false,
    };
    ctx.catalog.putKeyspace(ks);
    return publishSchemaChange(ctx, name, { change: 'CREATED', target: 'KEYSPACE', keyspace: name });
  }
}

export class AlterKeyspaceStatement extends SchemaStatement {
  constructor(readonly ast: AlterAst) {
    super();
  }
  async execute(ctx: ExecutionContext): Promise<ResultMessage> {
    const name = this.ast.keyspace;
    if (
      SYSTEM_KEYSPACE_NAMES.has(name) &&
      name !== 'system_auth' &&
      name !== 'system_distributed' &&
      name !== 'system_traces'
    ) {
      throw new InvalidRequest(`${name} keyspace is not user-modifiable`);
    }
    const ks = ctx.catalog.keyspace(name);
    if (!ks) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Keyspace '${name}' doesn't exist`);
    }
    checkProperties(this.ast.properties);
    const replication = parseReplication(name, this.ast.properties, ctx.node.dataCenter, ks.replication);
    if (replication.class !== ks.replication.class && ks.replication.class?.endsWith('LocalStrategy')) {
      throw new ConfigurationError('Unable to use given strategy class: LocalStrategy is reserved for internal use.');
    }
    ctx.catalog.putKeyspace({
      ...ks,
      replication,
      durableWrites: parseDurableWrites(this.ast.properties, ks.durableWrites),
    });
    return publishSchemaChange(ctx, name, { change: 'UPDATED', target: 'KEYSPACE', keyspace: name });
  }
}

export class DropKeyspaceStatement extends SchemaStatement {
  constructor(readonly ast: DropAst) {
    super();
  }
  async execute(ctx: ExecutionContext): Promise<ResultMessage> {
    const name = this.ast.keyspace;
    if (SYSTEM_KEYSPACE_NAMES.has(name)) throw new InvalidRequest(`${name} keyspace is not user-modifiable`);
    const ks = ctx.catalog.keyspace(name);
    if (!ks) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Keyspace '${name}' doesn't exist`);
    }
    ctx.catalog.dropKeyspace(name);
    const result = await publishSchemaChange(ctx, name, { change: 'DROPPED', target: 'KEYSPACE', keyspace: name });
    for (const t of ks.tables.values()) await ctx.storage.dropTable(tableIdBytes(t));
    await dropKeyspaceDependents(ctx, ks);
    return result;
  }
}
