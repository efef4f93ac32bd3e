// Rows of system.size_estimates: per user table and local token range, an estimate of the
// partitions it holds (Spark and other bulk readers split work by these).

import type { StorageEngine } from '../../storage/storage-engine.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { tableIdBytes } from '../schema/table-metadata.js';
import type { RowObject } from './virtual-table.js';

/** Mean stored bytes per partition is not tracked per table; this is a fixed estimate. */
const MEAN_PARTITION_SIZE = 256n;

export function sizeEstimateRows(
  catalog: SchemaCatalog,
  storage: StorageEngine,
  tokens: readonly string[],
): RowObject[] {
  const sorted = [...tokens].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  // The node owns (previous token, token] for each of its tokens, wrapping around the ring.
  const ranges = sorted.map((t, i) => [sorted[(i + sorted.length - 1) % sorted.length]!, t] as const);
  const rows: RowObject[] = [];
  for (const ks of catalog.keyspaces()) {
    if (ks.virtual || ks.replication.class?.endsWith('LocalStrategy')) continue;
    for (const t of ks.tables.values()) {
      if (t.isVirtual) continue;
      const total = storage.table(tableIdBytes(t))?.estimatePartitions() ?? 0;
      const base = Math.floor(total / ranges.length);
      const extra = total % ranges.length;
      ranges.forEach(([start, end], i) => {
        const perRange = BigInt(base + (i < extra ? 1 : 0));
        rows.push({
          keyspace_name: ks.name,
          table_name: t.name,
          range_start: start,
          range_end: end,
          mean_partition_size: MEAN_PARTITION_SIZE,
          partitions_count: perRange,
        });
      });
    }
  }
  return rows;
}
