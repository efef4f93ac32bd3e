// What a built-in scalar function is: a name, its argument and return types and its body over serialized values.
// The families of functions (native-functions.ts, floor-functions.ts, math-functions.ts, the factories) build these.

import type { CqlType } from '../types/cql-type.js';

export interface NativeFunction {
  /** Lower-case name as Cassandra reports it (e.g. `totimestamp`). */
  readonly name: string;
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  /** Pure functions with constant args may be folded at prepare time. */
  readonly deterministic: boolean;
  readonly call: (args: readonly (Buffer | null)[]) => Buffer | null;
}
