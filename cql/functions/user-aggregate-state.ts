// A user-defined aggregate over the rows of a group, as UDAggregate does: INITCOND as the first state, the state
// function per row, the final function at the end.

import type { UserAggregateMetadata, UserFunctionMetadata } from './user-function-metadata.js';
import type { UserFunctionRuntime } from './user-function-runtime.js';

export interface UserAggregateState {
  add(args: readonly (Buffer | null)[]): void;
  result(): Buffer | null;
}

export function startAggregate(
  runtime: UserFunctionRuntime,
  a: UserAggregateMetadata,
  stateFunction: UserFunctionMetadata,
  finalFunction: UserFunctionMetadata | undefined,
): UserAggregateState {
  let state = a.initCondition;
  return {
    add(args) {
      // A RETURNS NULL ON NULL INPUT state function skips rows with a null argument; a null state stays null.
      if (runtime.rejectsNullInput(stateFunction, args, 1)) return;
      state = runtime.call(stateFunction, [state, ...args]);
    },
    result() {
      return finalFunction ? runtime.call(finalFunction, [state]) : state;
    },
  };
}
