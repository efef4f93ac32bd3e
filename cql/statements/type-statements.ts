// CREATE / ALTER / DROP TYPE (user-defined types).

import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import {
  ALTER_FIELD_TYPE_MESSAGE,
  type AlterTypeStatement as AlterAst,
  type CreateTypeStatement as CreateAst,
  type DropTypeStatement as DropAst,
  resolveType,
} from '../parser/ast.js';
import type { ClientState, ResultMessage } from '../query-handler.js';
import type { KeyspaceMetadata, UserTypeMetadata } from '../schema/keyspace-metadata.js';
import type { CqlType } from '../types/cql-type.js';
import { cqlTypeToString } from '../types/cql-type.js';
import { publishSchemaChange, validateName } from './schema-change.js';
import { modifiableKeyspace, SchemaStatement } from './schema-statement.js';
import { udtResolver } from './table-statements.js';

/** True when `t` mentions the user type `name` anywhere. */
function references(t: CqlType, keyspace: string, name: string): boolean {
  switch (t.kind) {
    case 'udt':
      return (t.keyspace === keyspace && t.name === name) || t.fields.some((f) => references(f.type, keyspace, name));
    case 'list':
    case 'set':
    case 'vector':
      return references(t.element, keyspace, name);
    case 'map':
      return references(t.key, keyspace, name) || references(t.value, keyspace, name);
    case 'tuple':
      return t.elements.some((e) => references(e, keyspace, name));
    default:
      return false;
  }
}

function withTypes(ks: KeyspaceMetadata, types: Map<string, UserTypeMetadata>): KeyspaceMetadata {
  return { ...ks, types };
}

export class CreateTypeStatement extends SchemaStatement {
  constructor(readonly ast: CreateAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ks = modifiableKeyspace(ctx, this.ast.type.keyspace, state);
    const name = this.ast.type.name;
    validateName('Type', name);
    if (ks.types.has(name)) {
      if (this.ast.ifNotExists) return { kind: 'void' };
      throw new InvalidRequest(`A user type with name '${name}' already exists`);
    }
    const seen = new Set<string>();
    const fields = this.ast.fields.map((f) => {
      if (seen.has(f.name)) throw new InvalidRequest(`Duplicate field name '${f.name}' in type '${name}'`);
      seen.add(f.name);
      const type = resolveType(f.type, udtResolver(ks));
      if (references(type, ks.name, name))
        throw new InvalidRequest(`Cannot create type '${name}' that refers to itself`);
      if (type.kind === 'native' && type.name === 'counter')
        throw new InvalidRequest('A user type cannot contain counters');
      return { name: f.name, type };
    });
    const types = new Map(ks.types);
    types.set(name, { keyspace: ks.name, name, fields });
    ctx.catalog.putKeyspace(withTypes(ks, types));
    return publishSchemaChange(ctx, ks.name, { change: 'CREATED', target: 'TYPE', keyspace: ks.name, name });
  }
}

export class AlterTypeStatement extends SchemaStatement {
  constructor(readonly ast: AlterAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ks = modifiableKeyspace(ctx, this.ast.type.keyspace, state);
    const name = this.ast.type.name;
    const type = ks.types.get(name);
    if (!type) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Type ${ks.name}.${name} doesn't exist`);
    }
    const op = this.ast.operation;
    let fields = [...type.fields];
    switch (op.kind) {
      case 'add': {
        if (fields.some((f) => f.name === op.field)) {
          if (op.ifNotExists) return { kind: 'void' };
          throw new InvalidRequest(
            `Cannot add field ${op.field} to type ${ks.name}.${name}: a field with name ${op.field} already exists`,
          );
        }
        const t = resolveType(op.type, udtResolver(ks));
        if (references(t, ks.name, name))
          throw new InvalidRequest(
            `Cannot add new field ${op.field} of type ${cqlTypeToString(t)} to user type ${ks.name}.${name} as it would create a circular reference`,
          );
        fields.push({ name: op.field, type: t });
        break;
      }
      case 'rename':
        for (const { from, to } of op.renames) {
          if (!fields.some((f) => f.name === from)) {
            if (op.ifExists) continue;
            // Cassandra's own spelling (AlterTypeStatement.RenameFields).
            throw new InvalidRequest(`Unkown field ${from} in user type ${ks.name}.${name}`);
          }
          if (fields.some((f) => f.name === to))
            // Cassandra formats this with the keyspace name in the type's place.
            throw new InvalidRequest(`Duplicate field name ${to} in type ${ks.name}`);
          fields = fields.map((f) => (f.name === from ? { ...f, name: to } : f));
        }
        break;
      case 'alter':
        throw new InvalidRequest(ALTER_FIELD_TYPE_MESSAGE);
    }
    const updated: UserTypeMetadata = { ...type, fields };
    const types = new Map(ks.types);
    types.set(name, updated);
    // Tables using the type see the new fields (stored values are unchanged: new fields read as null).
    const tables = new Map(
      [...ks.tables].map(([tn, t]) => [
        tn,
        {
          ...t,
          columns: t.columns.map((c) =>
            references(c.type, ks.name, name) ? { ...c, type: replaceUdt(c.type, updated) } : c,
          ),
        },
      ]),
    );
    for (const [tn, t] of tables) {
      tables.set(tn, {
        ...t,
        partitionKey: t.columns.filter((c) => c.kind === 'partition_key'),
        clustering: t.columns.filter((c) => c.kind === 'clustering'),
      });
    }
    ctx.catalog.putKeyspace({ ...ks, types, tables });
    return publishSchemaChange(ctx, ks.name, { change: 'UPDATED', target: 'TYPE', keyspace: ks.name, name });
  }
}

/** `t` with every use of the user type `u` replaced by its new definition. */
function replaceUdt(t: CqlType, u: UserTypeMetadata): CqlType {
  switch (t.kind) {
    case 'udt':
      if (t.keyspace === u.keyspace && t.name === u.name) return { ...t, fields: u.fields };
      return { ...t, fields: t.fields.map((f) => ({ name: f.name, type: replaceUdt(f.type, u) })) };
    case 'list':
    case 'set':
      return { ...t, element: replaceUdt(t.element, u) };
    case 'vector':
      return { ...t, element: replaceUdt(t.element, u) };
    case 'map':
      return { ...t, key: replaceUdt(t.key, u), value: replaceUdt(t.value, u) };
    case 'tuple':
      return { ...t, elements: t.elements.map((e) => replaceUdt(e, u)) };
    default:
      return t;
  }
}

export class DropTypeStatement extends SchemaStatement {
  constructor(readonly ast: DropAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ks = modifiableKeyspace(ctx, this.ast.type.keyspace, state);
    const name = this.ast.type.name;
    if (!ks.types.has(name)) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Type '${ks.name}.${name}' doesn't exist`);
    }
    // Functions, then types, then tables, each naming every user (DropTypeStatement).
    const uses = (t: CqlType) => references(t, ks.name, name);
    const functions = [...(ks.functions?.values() ?? [])].filter((f) => f.argTypes.some(uses) || uses(f.returnType));
    if (functions.length > 0) {
      const names = functions.map((f) => `${f.keyspace}.${f.name}`).join(', ');
      throw new InvalidRequest(`Cannot drop user type '${ks.name}.${name}' as it is still used by functions ${names}`);
    }
    const userTypes = [...ks.types.values()].filter((o) => o.name !== name && o.fields.some((f) => uses(f.type)));
    if (userTypes.length > 0) {
      const names = userTypes.map((t) => t.name).join(', ');
      throw new InvalidRequest(`Cannot drop user type '${ks.name}.${name}' as it is still used by user types ${names}`);
    }
    const tables = [...ks.tables.values()].filter((t) => t.columns.some((c) => uses(c.type)));
    if (tables.length > 0) {
      const names = tables.map((t) => t.name).join(', ');
      throw new InvalidRequest(`Cannot drop user type '${ks.name}.${name}' as it is still used by tables ${names}`);
    }
    const types = new Map(ks.types);
    types.delete(name);
    ctx.catalog.putKeyspace(withTypes(ks, types));
    return publishSchemaChange(ctx, ks.name, { change: 'DROPPED', target: 'TYPE', keyspace: ks.name, name });
  }
}
