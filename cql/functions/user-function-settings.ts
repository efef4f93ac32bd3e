// The switches and limits of user-defined functions, with Cassandra 5.0's names (cassandra.yaml) where it has
// them; docs/user-defined-functions.md explains each.

export type UserFunctionTimeoutPolicy = 'die' | 'die_immediate' | 'ignore';

export interface UserFunctionSettings {
  /** user_defined_functions_enabled: CREATE FUNCTION/AGGREGATE and calls of user functions. */
  readonly enabled: boolean;
  /** scripted_user_defined_functions_enabled: LANGUAGE javascript as well (only with `enabled`). */
  readonly scriptedEnabled: boolean;
  /** user_defined_functions_warn_timeout: a call taking longer sends a client warning and logs one. */
  readonly warnTimeoutMs: number;
  /** user_defined_functions_fail_timeout: a call taking longer is interrupted and fails. */
  readonly failTimeoutMs: number;
  /** user_function_timeout_policy: what the server does after a call hit the fail timeout. */
  readonly timeoutPolicy: UserFunctionTimeoutPolicy;
  /** user_defined_functions_memory_limit: bytes of memory of one function's isolate (its engine instance). */
  readonly memoryLimitBytes: number;
}

export const DEFAULT_USER_FUNCTION_SETTINGS: UserFunctionSettings = {
  enabled: false,
  scriptedEnabled: false,
  warnTimeoutMs: 500,
  failTimeoutMs: 1500,
  // Cassandra's default is `die` because it cannot stop a Java thread safely; here the call is interrupted and
  // its isolate discarded, so nothing is left running and the node can keep serving.
  timeoutPolicy: 'ignore',
  memoryLimitBytes: 32 * 1024 * 1024,
};
