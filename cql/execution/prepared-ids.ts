// Statement and result-metadata ids computed as Cassandra 5.0 does, so drivers that cache ids
// across connections and restarts see the same values.

import { createHash } from 'node:crypto';
import type { Statement } from '../parser/ast.js';
import type { ColumnSpec } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { marshalClassName } from '../types/marshal-class-names.js';

/** QueryProcessor.computeId: MD5 of the query string, prefixed by the keyspace when there is one. */
export function preparedStatementId(query: string, keyspace: string | undefined): Buffer {
  return createHash('md5')
    .update(keyspace === undefined ? query : keyspace + query, 'utf8')
    .digest();
}

/** A QualifiedStatement in Cassandra (SELECT, INSERT, UPDATE, DELETE, TRUNCATE) that names its keyspace. */
export function isFullyQualified(ast: Statement): boolean {
  switch (ast.kind) {
    case 'select':
    case 'insert':
    case 'insertJson':
    case 'update':
    case 'delete':
    case 'truncate':
      return ast.table.keyspace !== undefined;
    default:
      return false;
  }
}

const NUL = Buffer.from([0]);
const NUL_NUL = Buffer.from([0, 0]);

/**
 * ResultMetadata.computeResultMetadataId: MD5 over each column's name, 0, its type's class name (AbstractType.toString,
 * ReversedType for a DESC clustering column of `table` selected by its name), 0, 0.
 */
export function resultMetadataId(columns: readonly ColumnSpec[], table: TableMetadata | undefined): Buffer {
  const h = createHash('md5');
  for (const c of columns) {
    const column =
      table && c.table === table.name && c.keyspace === table.keyspace
        ? table.clustering.find((k) => k.name === c.name)
        : undefined;
    h.update(c.name, 'utf8');
    h.update(NUL);
    h.update(marshalClassName(c.type, column?.clusteringOrder === 'desc'), 'utf8');
    h.update(NUL_NUL);
  }
  return h.digest();
}
