// Statement and result-metadata ids computed as Cassandra does, so drivers that cache ids
// across nodes/restarts see the same values.

import { createHash } from 'node:crypto';
import type { ColumnSpec } from '../query-handler.js';
import { cqlTypeToString } from '../types/cql-type.js';

/** MD5 of (keyspace + query) when a keyspace is set, else of the query alone (QueryProcessor.computeId). */
export function preparedStatementId(query: string, keyspace: string | undefined): Buffer {
  return createHash('md5')
    .update(keyspace ? keyspace + query : query, 'utf8')
    .digest();
}

/** MD5 over the result columns (ResultMetadata.computeResultMetadataId); changes when the columns change. */
export function resultMetadataId(columns: readonly ColumnSpec[]): Buffer {
  const h = createHash('md5');
  for (const c of columns) {
    h.update(c.keyspace, 'utf8');
    h.update(c.table, 'utf8');
    h.update(c.name, 'utf8');
    h.update(cqlTypeToString(c.type), 'utf8');
  }
  return h.digest();
}
