// Finds user-defined functions and aggregates for a statement: unqualified names resolve in the
// statement's keyspace; overloads are chosen by exact argument types.

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { UserFunctionResolver } from '../selection/selection.js';
import type { CqlType } from '../types/cql-type.js';
import { signature } from './user-function-metadata.js';
import type { UserFunctionRuntime } from './user-function-runtime.js';

export function userFunctionResolver(
  catalog: SchemaCatalog,
  defaultKeyspace: string,
  runtime: UserFunctionRuntime,
): UserFunctionResolver {
  return {
    runtime,
    function(keyspace: string | undefined, name: string, argTypes: readonly CqlType[]) {
      return catalog.keyspace(keyspace ?? defaultKeyspace)?.functions?.get(signature(name, argTypes));
    },
    aggregate(keyspace: string | undefined, name: string, argTypes: readonly CqlType[]) {
      const ks = catalog.keyspace(keyspace ?? defaultKeyspace);
      const aggregate = ks?.aggregates?.get(signature(name, argTypes));
      if (!ks || !aggregate) return undefined;
      const state = ks.functions?.get(signature(aggregate.stateFunction, [aggregate.stateType, ...argTypes]));
      if (!state) return undefined;
      const final = aggregate.finalFunction
        ? ks.functions?.get(signature(aggregate.finalFunction, [aggregate.stateType]))
        : undefined;
      return { aggregate, state, final };
    },
  };
}
