// CREATE [OR REPLACE] / DROP FUNCTION and AGGREGATE (user-defined functions in Java or JavaScript).

import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { toLiteral } from '../execution/term-literal.js';
import { functionOverloads } from '../functions/native-functions.js';
import {
  signature,
  type UserAggregateMetadata,
  type UserFunctionMetadata,
} from '../functions/user-function-metadata.js';
import {
  type CreateAggregateStatement as CreateAggregateAst,
  type CreateFunctionStatement as CreateFunctionAst,
  type DropAggregateStatement as DropAggregateAst,
  type DropFunctionStatement as DropFunctionAst,
  type RawType,
  resolveType,
} from '../parser/ast.js';
import { rawTypeText } from '../parser/term-text.js';
import type { ClientState, ResultMessage } from '../query-handler.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { type CqlType, cqlTypeToString } from '../types/cql-type.js';
import { literalToBytes } from '../types/literal-parser.js';
import { formatValue } from '../types/value-formatter.js';
import { publishSchemaChange } from './schema-change.js';
import { modifiableKeyspace, SchemaStatement } from './schema-statement.js';
import { udtResolver } from './table-statements.js';

function types(ks: KeyspaceMetadata, raw: readonly RawType[]): CqlType[] {
  return raw.map((t) => resolveType(t, udtResolver(ks)));
}

/** Overloads of `name` in the keyspace. */
export function userFunctionsNamed(ks: KeyspaceMetadata, name: string): UserFunctionMetadata[] {
  return [...(ks.functions?.values() ?? [])].filter((f) => f.name === name);
}

export function userAggregatesNamed(ks: KeyspaceMetadata, name: string): UserAggregateMetadata[] {
  return [...(ks.aggregates?.values() ?? [])].filter((f) => f.name === name);
}

function sameTypes(a: readonly CqlType[], b: readonly CqlType[]): boolean {
  return a.length === b.length && a.every((t, i) => cqlTypeToString(t) === cqlTypeToString(b[i]!));
}

export class CreateFunctionStatement extends SchemaStatement {
  constructor(readonly ast: CreateFunctionAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ast = this.ast;
    ctx.userFunctions.assertEnabled(ast.language);
    const ks = modifiableKeyspace(ctx, ast.function.keyspace, state);
    const name = ast.function.name;
    if (functionOverloads(name).length > 0)
      throw new InvalidRequest(`Cannot add function '${name}': a native function with that name exists`);
    const argTypes = types(
      ks,
      ast.args.map((a) => a.type),
    );
    const names = new Set<string>();
    for (const a of ast.args) {
      if (names.has(a.name))
        throw new InvalidRequest(
          `Duplicate argument names for given function ${ks.name}.${name} with argument names ${ast.args.map((x) => x.name).join(', ')}`,
        );
      names.add(a.name);
    }
    // Functions take and return values whole: frozen<> is implied (tuples are frozen by nature).
    const frozen = (t: RawType) => t.kind !== 'tuple' && 'frozen' in t && t.frozen;
    const frozenArg = ast.args.find((a) => frozen(a.type));
    if (frozenArg) {
      const text = rawTypeText(frozenArg.type);
      throw new InvalidRequest(`Argument '${text}' cannot be frozen; remove frozen<> modifier from '${text}'`);
    }
    if (frozen(ast.returnType)) {
      const text = rawTypeText(ast.returnType);
      throw new InvalidRequest(`Return type '${text}' cannot be frozen; remove frozen<> modifier from '${text}'`);
    }
    const returnType = resolveType(ast.returnType, udtResolver(ks));
    const sig = signature(name, argTypes);
    const existing = ks.functions?.get(sig);
    if (existing) {
      if (ast.ifNotExists) return { kind: 'void' };
      if (!ast.orReplace) throw new InvalidRequest(`Function '${name}' already exists`);
      if (existing.calledOnNullInput !== ast.calledOnNullInput)
        throw new InvalidRequest(
          `Function '${name}' must have ${ast.calledOnNullInput ? 'CALLED ON NULL INPUT' : 'RETURNS NULL ON NULL INPUT'} directive`,
        );
      if (cqlTypeToString(existing.returnType) !== cqlTypeToString(returnType))
        throw new InvalidRequest(
          `Cannot replace function '${name}', the new return type ${cqlTypeToString(returnType)} is not compatible with the return type ${cqlTypeToString(existing.returnType)} of existing function`,
        );
    } else if (ks.aggregates?.get(sig)) {
      throw new InvalidRequest(`Function '${name}' cannot replace an aggregate`);
    }
    const f: UserFunctionMetadata = {
      keyspace: ks.name,
      name,
      argNames: ast.args.map((a) => a.name),
      argTypes,
      returnType,
      calledOnNullInput: ast.calledOnNullInput,
      language: ast.language,
      body: ast.body,
    };
    await ctx.userFunctions.validate(f);
    const functions = new Map(ks.functions ?? []);
    functions.set(sig, f);
    ctx.catalog.putKeyspace({ ...ks, functions });
    return publishSchemaChange(ctx, ks.name, {
      change: existing ? 'UPDATED' : 'CREATED',
      target: 'FUNCTION',
      keyspace: ks.name,
      name,
      argTypes: argTypes.map(cqlTypeToString),
    });
  }
}

export class DropFunctionStatement extends SchemaStatement {
  constructor(readonly ast: DropFunctionAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ks = modifiableKeyspace(ctx, this.ast.function.keyspace, state);
    const name = this.ast.function.name;
    let candidates = userFunctionsNamed(ks, name);
    if (this.ast.argTypes) {
      const t = types(ks, this.ast.argTypes);
      candidates = candidates.filter((f) => sameTypes(f.argTypes, t));
    } else if (candidates.length > 1) {
      throw new InvalidRequest(
        `'${ks.name}.${name}' matches multiple function definitions; specify the argument types by issuing a statement like 'DROP FUNCTION ${name} (type, type, ...)'. Hint: use cqlsh 'DESCRIBE FUNCTION ${name}' command to find all overloads`,
      );
    }
    const f = candidates[0];
    if (!f) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Function '${ks.name}.${name}' doesn't exist`);
    }
    const dependents = [...(ks.aggregates?.values() ?? [])].filter(
      (a) => a.stateFunction === f.name || a.finalFunction === f.name,
    );
    if (dependents.length > 0) {
      const names = dependents.map((a) => `${ks.name}.${a.name}`).join(', ');
      throw new InvalidRequest(`Function '${ks.name}.${f.name}' is still referenced by aggregates ${names}`);
    }
    const functions = new Map(ks.functions ?? []);
    functions.delete(signature(f.name, f.argTypes));
    ctx.catalog.putKeyspace({ ...ks, functions });
    return publishSchemaChange(ctx, ks.name, {
      change: 'DROPPED',
      target: 'FUNCTION',
      keyspace: ks.name,
      name,
      argTypes: f.argTypes.map(cqlTypeToString),
    });
  }
}

export class CreateAggregateStatement extends SchemaStatement {
  constructor(readonly ast: CreateAggregateAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ast = this.ast;
    ctx.userFunctions.assertEnabled('java');
    const ks = modifiableKeyspace(ctx, ast.aggregate.keyspace, state);
    const name = ast.aggregate.name;
    const argTypes = types(ks, ast.argTypes);
    const stateType = resolveType(ast.stateType, udtResolver(ks));
    const sfuncSig = signature(ast.stateFunction, [stateType, ...argTypes]);
    const sfunc = ks.functions?.get(sfuncSig);
    if (!sfunc) throw new InvalidRequest(`State function ${ks.name}.${sfuncSig} does not exist`);
    if (cqlTypeToString(sfunc.returnType) !== cqlTypeToString(stateType)) {
      throw new InvalidRequest(
        `State function ${ks.name}.${sfuncSig} return type must be the same as the first argument type - check STYPE, argument and return types`,
      );
    }
    let returnType = stateType;
    if (ast.finalFunction) {
      const ffSig = signature(ast.finalFunction, [stateType]);
      const ff = ks.functions?.get(ffSig);
      if (!ff) throw new InvalidRequest(`Final function ${ks.name}.${ffSig} does not exist`);
      returnType = ff.returnType;
    }
    let initCondition: Buffer | null = null;
    if (ast.initCondition) {
      const lit = toLiteral(ast.initCondition);
      if (!lit) throw new InvalidRequest('INITCOND must be a constant');
      initCondition = literalToBytes(stateType, lit, 'initcond');
    }
    const sig = signature(name, argTypes);
    const existing = ks.aggregates?.get(sig);
    if (existing) {
      if (ast.ifNotExists) return { kind: 'void' };
      if (!ast.orReplace) throw new InvalidRequest(`Aggregate '${name}' already exists`);
    }
    const a: UserAggregateMetadata = {
      keyspace: ks.name,
      name,
      argTypes,
      stateFunction: ast.stateFunction,
      stateType,
      finalFunction: ast.finalFunction,
      initCondition,
      initConditionText: initCondition === null ? null : formatValue(stateType, initCondition),
      returnType,
    };
    const aggregates = new Map(ks.aggregates ?? []);
    aggregates.set(sig, a);
    ctx.catalog.putKeyspace({ ...ks, aggregates });
    return publishSchemaChange(ctx, ks.name, {
      change: existing ? 'UPDATED' : 'CREATED',
      target: 'AGGREGATE',
      keyspace: ks.name,
      name,
      argTypes: argTypes.map(cqlTypeToString),
    });
  }
}

export class DropAggregateStatement extends SchemaStatement {
  constructor(readonly ast: DropAggregateAst) {
    super();
  }
  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const ks = modifiableKeyspace(ctx, this.ast.aggregate.keyspace, state);
    const name = this.ast.aggregate.name;
    let candidates = userAggregatesNamed(ks, name);
    if (this.ast.argTypes) {
      const t = types(ks, this.ast.argTypes);
      candidates = candidates.filter((a) => sameTypes(a.argTypes, t));
    } else if (candidates.length > 1) {
      throw new InvalidRequest(
        `'${ks.name}.${name}' matches multiple function definitions; specify the argument types by issuing a statement like 'DROP AGGREGATE ${name} (type, type, ...)'. Hint: use cqlsh 'DESCRIBE AGGREGATE ${name}' command to find all overloads`,
      );
    }
    const a = candidates[0];
    if (!a) {
      if (this.ast.ifExists) return { kind: 'void' };
      throw new InvalidRequest(`Aggregate '${ks.name}.${name}' doesn't exist`);
    }
    const aggregates = new Map(ks.aggregates ?? []);
    aggregates.delete(signature(a.name, a.argTypes));
    ctx.catalog.putKeyspace({ ...ks, aggregates });
    return publishSchemaChange(ctx, ks.name, {
      change: 'DROPPED',
      target: 'AGGREGATE',
      keyspace: ks.name,
      name,
      argTypes: a.argTypes.map(cqlTypeToString),
    });
  }
}
