// Reading a SELECT through a secondary index: slices of the index partition, in term order, each entry
// pointing at a base row that the caller re-reads (and re-checks: entries may be stale). Paging resumes
// after the last entry visited.

import { Projection } from '../../storage/row-projection.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type { BoundValue } from '../query-handler.js';
import { indexStorageIdBytes } from '../schema/index-metadata.js';
import {
  ENTRY_TS_COLUMN,
  type EntryTarget,
  entryTarget,
  INDEX_PARTITION_KEY,
  INDEX_PARTITION_TOKEN,
} from './index-entries.js';
import type { IndexQuery } from './index-query.js';

/** The entry's timestamp cell, with its writetime. */
const ENTRY_TS = new Projection([ENTRY_TS_COLUMN], true);
const CHUNK = 256;

/**
 * Visits the base rows of the chosen index's entries after `after` (an entry clustering from a paging state)
 * while `want()` is positive. Returns the last entry visited when the page filled (the next page's start).
 */
export function readThroughIndex(
  ctx: ExecutionContext,
  query: IndexQuery,
  values: readonly BoundValue[],
  now: number,
  after: Buffer | undefined,
  want: () => number,
  visit: (target: EntryTarget) => void,
): Buffer | undefined {
  const store = ctx.storage.table(indexStorageIdBytes(query.chosen!.terms.index));
  if (!store) return undefined;
  let last = after && after.length > 0 ? after : undefined;
  for (const range of query.ranges(values)) {
    for (;;) {
      const start =
        last && (!range.start || Buffer.compare(last, range.start.prefix) >= 0)
          ? { prefix: last, inclusive: false }
          : range.start;
      // A resume point past this range: the range was finished on an earlier page.
      if (last && range.end && Buffer.compare(last.subarray(0, range.end.prefix.length), range.end.prefix) > 0) break;
      const pr = store.readPartition(INDEX_PARTITION_KEY, INDEX_PARTITION_TOKEN, {
        columns: ENTRY_TS,
        nowInSeconds: now,
        start,
        end: range.end,
        limit: CHUNK,
        withMetadata: true,
      });
      const entries = pr?.rows ?? [];
      for (const e of entries) {
        if (want() <= 0) return last;
        last = e.clustering;
        visit(entryTarget(e.clustering, e.clusteringValues, e.writetimes?.[0] ?? null));
        // A full page resumes here even when no entry follows: Cassandra's pager cannot tell either, so its next
        // page is empty (clients paging while pages are full need the state to stop).
        if (want() <= 0) return last;
      }
      if (entries.length < CHUNK) break;
    }
  }
  return undefined;
}
