// Deleting stale index entries found by queries (the base row is gone, or now holds other values), so indexes
// on often-updated columns or with many deleted rows do not grow without bound. An entry is deleted at its own
// timestamp: a newer write of the same entry (the same value written again to the same row) has a newer
// timestamp and survives, whatever happened between the query's read and this deletion.

import type { RowUpdate } from '../../storage/mutation.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { indexStorageIdBytes } from '../schema/index-metadata.js';
import { type EntryTarget, indexUpdate } from './index-entries.js';
import type { IndexQuery } from './index-query.js';

export function purgeStaleEntries(
  ctx: ExecutionContext,
  query: IndexQuery,
  stale: readonly EntryTarget[],
  now: number,
): void {
  const index = ctx.storage.table(indexStorageIdBytes(query.chosen!.terms.index));
  if (!index) return;
  const rows: RowUpdate[] = [];
  for (const e of stale) {
    if (e.ts === null) continue;
    rows.push({
      clustering: e.entry,
      clusteringValues: [e.term, e.key, e.clustering],
      deletion: { ts: e.ts, ldt: now },
    });
  }
  // Fire and forget: a failed cleanup only leaves the entries to be filtered again.
  if (rows.length > 0) index.applyMutationsCallback([indexUpdate(rows)], now, () => {});
}
