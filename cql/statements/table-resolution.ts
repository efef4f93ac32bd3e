// Finding the keyspace and table a statement names, with Cassandra's messages.

import { InvalidRequest } from '../errors.js';
import type { QualifiedName } from '../parser/ast.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';

export function resolveKeyspace(name: string | undefined, current: string | undefined): string {
  const ks = name ?? current;
  if (!ks) {
    throw new InvalidRequest(
      'No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename',
    );
  }
  return ks;
}

export function lookupTable(catalog: SchemaCatalog, name: QualifiedName, current: string | undefined): TableMetadata {
  const ks = resolveKeyspace(name.keyspace, current);
  const keyspace = catalog.keyspace(ks);
  if (!keyspace) throw new InvalidRequest(`keyspace ${ks} does not exist`);
  const table = keyspace.tables.get(name.name);
  if (!table) throw new InvalidRequest(`table ${name.name} does not exist`);
  return table;
}
