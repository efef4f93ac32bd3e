// What every DDL statement does after changing the catalog: persist the keyspace with the new schema
// version, log it, tell registered clients (SCHEMA_CHANGE event), and answer with a Schema_change result.

import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type { ResultMessage, SchemaChange } from '../query-handler.js';

export async function publishSchemaChange(
  ctx: ExecutionContext,
  keyspace: string,
  change: SchemaChange,
): Promise<ResultMessage> {
  await ctx.schemaStore.save(keyspace);
  const what = `${change.keyspace}${change.name === undefined ? '' : `.${change.name}`}${change.argTypes ? `(${change.argTypes.join(', ')})` : ''}`;
  ctx.logger.info(
    {
      change: change.change,
      target: change.target,
      keyspace: change.keyspace,
      name: change.name,
      version: ctx.catalog.version,
    },
    `schema change: ${change.change} ${change.target} ${what}`,
  );
  ctx.emit({ type: 'SCHEMA_CHANGE', change });
  return { kind: 'schema_change', change };
}

const NAME = /^\w+$/;
export const MAX_NAME_LENGTH = 48;

/** Cassandra's rule for keyspace and table names. */
export function validateName(kind: 'Keyspace' | 'Table' | 'Type', name: string): void {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || !NAME.test(name)) {
    throw new InvalidRequest(
      `${kind} name must not be empty, more than ${MAX_NAME_LENGTH} characters long, or contain non-alphanumeric-underscore characters (got "${name}")`,
    );
  }
}
