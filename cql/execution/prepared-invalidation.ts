// Which schema changes evict a table's prepared statements (Cassandra's QueryProcessor listener and
// TableMetadata.changeAffectsPreparedStatements): clients then get UNPREPARED and re-prepare.

import type { TableMetadata } from '../schema/table-metadata.js';
import { marshalClassName } from '../types/marshal-class-names.js';

/** TableMetadata.changeAffectsPreparedStatements, plus a drop and re-create (Cassandra evicts on the drop). */
export function changeAffectsPreparedStatements(before: TableMetadata, after: TableMetadata): boolean {
  if (before === after) return false;
  const columns = (t: TableMetadata) =>
    t.columns.map((c) => `${c.id} ${c.name} ${c.kind} ${c.position} ${c.clusteringOrder} ${marshalClassName(c.type)}`);
  const indexes = (t: TableMetadata) =>
    (t.indexes ?? []).map((i) => `${i.name} ${i.storageId} ${JSON.stringify(i.options)}`);
  return (
    before.id !== after.id ||
    before.droppedColumns.length !== after.droppedColumns.length ||
    columns(before).join('\n') !== columns(after).join('\n') ||
    indexes(before).join('\n') !== indexes(after).join('\n') ||
    before.options.default_time_to_live !== after.options.default_time_to_live ||
    before.options.gc_grace_seconds !== after.options.gc_grace_seconds
  );
}
