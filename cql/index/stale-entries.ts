// Deleting stale index entries found by queries (an entry whose base row now holds another value), so
// indexes on often-updated columns do not grow without bound. The deletion takes the timestamp of the base
// cell that replaced the entry's value: an entry written later for the same value (a newer timestamp) is not
// shadowed, exactly as the base row resolves the two writes. Entries of deleted rows are left to be filtered:
// the deletion's timestamp is not visible to a read.

import { murmur3Token } from '../../storage/murmur3-token.js';
import { Projection } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { indexStorageIdBytes } from '../schema/index-metadata.js';
import { type EntryTarget, indexUpdate } from './index-entries.js';
import type { IndexQuery } from './index-query.js';

export function purgeStaleEntries(
  ctx: ExecutionContext,
  query: IndexQuery,
  base: TableStore,
  stale: readonly EntryTarget[],
  now: number,
): void {
  const terms = query.chosen!.terms;
  const col = terms.column;
  // Element cells of collections carry their own timestamps; key columns are never stale while the row lives.
  if (col.kind !== 'regular' && col.kind !== 'static') return;
  if (terms.index.target !== 'simple' && terms.index.target !== 'full') return;
  const index = ctx.storage.table(indexStorageIdBytes(terms.index));
  if (!index) return;
  const projection = new Projection([col.id], true);
  const rows = [];
  for (const e of stale) {
    const bound =
      e.clustering.length > 0 && col.kind === 'regular' ? { prefix: e.clustering, inclusive: true } : undefined;
    const pr = base.readPartition(e.key, murmur3Token(e.key), {
      columns: projection,
      nowInSeconds: now,
      start: bound,
      end: bound,
      limit: 1,
      includeStatic: col.kind === 'static',
      withMetadata: true,
    });
    const r = col.kind === 'static' ? pr?.staticRow : pr?.rows[0];
    const ts = r?.writetimes?.[0];
    if (ts === null || ts === undefined) continue;
    rows.push({ clustering: e.entry, clusteringValues: [e.term, e.key, e.clustering], deletion: { ts, ldt: now } });
  }
  // Fire and forget: a failed cleanup only leaves the entries to be filtered again.
  if (rows.length > 0) index.applyMutationsCallback([indexUpdate(rows)], now, () => {});
}
