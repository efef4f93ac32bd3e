// Calling user-defined functions and aggregates: argument bytes to JS values, the sandboxed body,
// the result back to bytes; failures become FunctionFailure as in Cassandra.

import { FunctionFailure } from '../errors.js';
import { cqlTypeToString } from '../types/cql-type.js';
import { type CompiledUdf, compileUdf } from './js-sandbox.js';
import { fromJs, toJs } from './js-udf-values.js';
import type { UserAggregateMetadata, UserFunctionMetadata } from './user-function-metadata.js';

const compiled = new WeakMap<UserFunctionMetadata, CompiledUdf>();

function failure(f: UserFunctionMetadata, e: unknown): FunctionFailure {
  const types = f.argTypes.map(cqlTypeToString);
  return new FunctionFailure(
    `execution of '${f.keyspace}.${f.name}[${types.join(', ')}]' failed: ${(e as Error)?.message ?? String(e)}`,
    f.keyspace,
    f.name,
    types,
  );
}

export function callUserFunction(f: UserFunctionMetadata, args: readonly (Buffer | null)[]): Buffer | null {
  if (!f.calledOnNullInput && args.some((a) => a === null)) return null;
  let fn = compiled.get(f);
  try {
    if (!fn) {
      fn = compileUdf(f.argNames, f.body);
      compiled.set(f, fn);
    }
    const result = fn.call(args.map((a, i) => toJs(f.argTypes[i]!, a)));
    return fromJs(f.returnType, result);
  } catch (e) {
    throw failure(f, e);
  }
}

/** Compiles a body now (CREATE FUNCTION), so syntax errors surface at creation. */
export function checkCompiles(argNames: readonly string[], body: string): string | undefined {
  try {
    compileUdf(argNames, body);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export interface UserAggregateState {
  add(args: readonly (Buffer | null)[]): void;
  result(): Buffer | null;
}

export function startAggregate(
  a: UserAggregateMetadata,
  stateFunction: UserFunctionMetadata,
  finalFunction: UserFunctionMetadata | undefined,
): UserAggregateState {
  let state = a.initCondition;
  return {
    add(args) {
      state = callUserFunction(stateFunction, [state, ...args]);
    },
    result() {
      return finalFunction ? callUserFunction(finalFunction, [state]) : state;
    },
  };
}
