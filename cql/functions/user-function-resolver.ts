// Finds user-defined functions and aggregates for a statement: unqualified names resolve in the statement's
// keyspace; the selection picks among the overloads as Cassandra's FunctionResolver does (function-resolver.ts).

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { UserFunctionResolver } from '../selection/selection.js';
import { signature, type UserAggregateMetadata } from './user-function-metadata.js';
import type { UserFunctionRuntime } from './user-function-runtime.js';

export function userFunctionResolver(
  catalog: SchemaCatalog,
  defaultKeyspace: string,
  runtime: UserFunctionRuntime,
): UserFunctionResolver {
  return {
    runtime,
    overloads(keyspace: string | undefined, name: string) {
      const ks = catalog.keyspace(keyspace ?? defaultKeyspace);
      if (!ks) return [];
      return [
        ...[...(ks.functions?.values() ?? [])].filter((f) => f.name === name),
        ...[...(ks.aggregates?.values() ?? [])].filter((a) => a.name === name),
      ];
    },
    aggregateFunctions(aggregate: UserAggregateMetadata) {
      const ks = catalog.keyspace(aggregate.keyspace);
      const state = ks?.functions?.get(
        signature(aggregate.stateFunction, [aggregate.stateType, ...aggregate.argTypes]),
      );
      if (!state) return undefined;
      const final = aggregate.finalFunction
        ? ks?.functions?.get(signature(aggregate.finalFunction, [aggregate.stateType]))
        : undefined;
      return { state, final };
    },
  };
}
