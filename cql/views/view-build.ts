// CREATE MATERIALIZED VIEW over a table that already holds data: view rows for every base row, written in
// bounded slices. Base writes arriving meanwhile maintain the view themselves (it is in the schema first); the
// view clock orders their steps after the build's for rows the build had already read.

import type { PartitionUpdate } from '../../storage/mutation.js';
import type { PagingPosition } from '../../storage/table-reader.js';
import type { TableStore } from '../../storage/table-store.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { ViewMetadata } from '../schema/view-metadata.js';
import { ViewMaintainer } from './view-maintenance.js';

const SLICE_ROWS = 1000;

export async function buildView(
  base: TableMetadata,
  view: ViewMetadata,
  baseStore: TableStore,
  viewStore: TableStore,
): Promise<void> {
  const m = new ViewMaintainer(base, view, viewStore);
  let after: PagingPosition | undefined;
  for (;;) {
    const now = Math.floor(Date.now() / 1000);
    const res = baseStore.scanRange({
      columns: m.projection,
      nowInSeconds: now,
      after,
      limit: SLICE_ROWS,
      withMetadata: true,
    });
    const changes: PartitionUpdate[] = [];
    for (const pr of res.partitions) {
      for (const row of pr.rows) {
        changes.push(...m.changes({ key: pr.key, token: pr.token, clustering: row.clustering }, undefined, row, now));
      }
    }
    if (changes.length > 0) await viewStore.applyMutations(changes, now);
    if (!res.next) return;
    after = res.next;
  }
}
