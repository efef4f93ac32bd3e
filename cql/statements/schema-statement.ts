// What every DDL statement shares: no bind markers, no result rows, and it changes the schema;
// plus finding the user keyspace it modifies.

import { InvalidRequest } from '../errors.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import type { ClientState, ColumnSpec, QueryOptions, ResultMessage } from '../query-handler.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { SYSTEM_KEYSPACE_NAMES } from '../system/system-keyspaces.js';
import { resolveKeyspace } from './table-resolution.js';

export abstract class SchemaStatement implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[] = [];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[] = [];
  readonly isSchemaChange: boolean = true;
  abstract execute(ctx: ExecutionContext, state: ClientState, options: QueryOptions): Promise<ResultMessage>;
}

/** Built-in keyspaces cannot be changed by users. */
export function checkUserModifiable(keyspace: string): void {
  if (SYSTEM_KEYSPACE_NAMES.has(keyspace)) throw new InvalidRequest(`${keyspace} keyspace is not user-modifiable`);
}

/** The user keyspace a statement modifies (named, or the connection's), which must exist. */
export function modifiableKeyspace(
  ctx: ExecutionContext,
  name: string | undefined,
  state: ClientState,
): KeyspaceMetadata {
  const ksName = resolveKeyspace(name, state.keyspace);
  checkUserModifiable(ksName);
  const ks = ctx.catalog.keyspace(ksName);
  if (!ks) throw new InvalidRequest(`Keyspace '${ksName}' doesn't exist`);
  return ks;
}
