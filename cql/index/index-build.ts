// CREATE INDEX on a table that already holds data: entries for every live row, written in bounded slices
// (one group commit per slice), so other requests keep being served while it runs. Writes arriving during the
// build index themselves (the index is in the schema before the build starts).

import type { LivenessInfo, RowUpdate } from '../../storage/mutation.js';
import { NO_DELETION_TIME, NO_TTL } from '../../storage/mutation.js';
import { deserializePartitionKey } from '../../storage/partition-key.js';
import type { ComplexValue } from '../../storage/row-projection.js';
import { Projection } from '../../storage/row-projection.js';
import type { PagingPosition } from '../../storage/table-reader.js';
import type { TableStore } from '../../storage/table-store.js';
import type { Timestamp } from '../../storage/timestamp.js';
import { complexToBytes } from '../execution/complex-value.js';
import { isMultiCell } from '../types/cql-type.js';
import { entryRow, type IndexTerms, indexUpdate } from './index-entries.js';

const SLICE_ROWS = 1000;

export async function buildIndex(
  base: TableStore,
  index: TableStore,
  terms: IndexTerms,
  nowMicros: number,
): Promise<void> {
  const col = terms.column;
  const table = terms.table;
  const stored = col.kind === 'regular' || col.kind === 'static';
  const projection = new Projection(stored ? [col.id] : [], stored && !isMultiCell(col.type));
  let after: PagingPosition | undefined;
  for (;;) {
    const now = Math.floor(Date.now() / 1000);
    const res = base.scanRange({
      columns: projection,
      nowInSeconds: now,
      after,
      limit: SLICE_ROWS,
      includeStatic: col.kind === 'static',
      withMetadata: projection.withMetadata,
    });
    const rows: RowUpdate[] = [];
    for (const pr of res.partitions) {
      const pk = col.kind === 'partition_key' ? deserializePartitionKey(pr.key, table.partitionKey.length) : [];
      const add = (value: Buffer | null, clustering: Buffer, writetime: Timestamp | null, ttl: number | null) => {
        const liveness: LivenessInfo =
          ttl !== null && ttl > 0
            ? { ts: writetime ?? nowMicros, ttl, expiry: now + ttl }
            : { ts: writetime ?? nowMicros, ttl: NO_TTL, expiry: NO_DELETION_TIME };
        for (const term of terms.termsOfValue(value)) {
          rows.push(entryRow(term, pr.token, pr.key, clustering, liveness));
        }
      };
      const valueOf = (v: unknown): Buffer | null =>
        v === null || v === undefined ? null : Buffer.isBuffer(v) ? v : complexToBytes(col.type, v as ComplexValue);
      if (col.kind === 'static') {
        const s = pr.staticRow;
        if (s) add(valueOf(s.values[0]), Buffer.alloc(0), s.writetimes?.[0] ?? null, s.ttls?.[0] ?? null);
        continue;
      }
      for (const row of pr.rows) {
        if (col.kind === 'regular')
          add(valueOf(row.values[0]), row.clustering, row.writetimes?.[0] ?? null, row.ttls?.[0] ?? null);
        else if (col.kind === 'partition_key') add(pk[col.position] ?? null, row.clustering, null, null);
        else add(row.clusteringValues[col.position] ?? null, row.clustering, null, null);
      }
    }
    if (rows.length > 0) await index.applyMutations([indexUpdate(rows)], now);
    if (!res.next) return;
    after = res.next;
  }
}
