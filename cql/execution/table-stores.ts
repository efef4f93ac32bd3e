// The storage of a user table, for the statements that read and write it: looked up once per table metadata
// object (each ALTER makes a new one), so the hot path skips the id lookup.

import type { TableStore } from '../../storage/table-store.js';
import { InvalidRequest } from '../errors.js';
import { type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import type { ExecutionContext } from './cql-statement.js';

const stores = new WeakMap<TableMetadata, TableStore>();

export function storeOf(ctx: ExecutionContext, table: TableMetadata): TableStore {
  let store = stores.get(table);
  if (store && !store.dropped) return store;
  store = ctx.storage.table(tableIdBytes(table), table.options.gc_grace_seconds);
  if (!store) throw new InvalidRequest(`table ${table.name} has no storage (was it dropped?)`);
  stores.set(table, store);
  return store;
}
