// Counter columns are stored as plain 8-byte totals: an increment reads the current total and writes
// the new one. Increments submitted in the same event-loop turn are not committed yet when the next
// one reads, so the totals they wrote are kept here until their group commit completes.

import { Projection } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';

const pending = new Map<string, bigint>();

function cellKey(store: TableStore, key: Buffer, clustering: Buffer, column: number): string {
  return `${store.id.toString('hex')}:${key.toString('hex')}:${clustering.toString('hex')}:${column}`;
}

/** The counter's total as of every write submitted so far (committed or pending). */
export function currentCounter(
  store: TableStore,
  key: Buffer,
  token: bigint,
  clustering: Buffer,
  column: number,
  now: number,
): bigint {
  const k = cellKey(store, key, clustering, column);
  const p = pending.get(k);
  if (p !== undefined) return p;
  const bound = clustering.length > 0 ? { prefix: clustering, inclusive: true } : undefined;
  const pr = store.readPartition(key, token, {
    columns: new Projection([column]),
    nowInSeconds: now,
    start: bound,
    end: bound,
    limit: 1,
    includeStatic: clustering.length === 0,
  });
  const row = pr?.rows[0] ?? pr?.staticRow;
  const v = row?.values[0];
  return Buffer.isBuffer(v) && v.length === 8 ? v.readBigInt64BE(0) : 0n;
}

export function setPendingCounter(
  store: TableStore,
  key: Buffer,
  clustering: Buffer,
  column: number,
  total: bigint,
): void {
  pending.set(cellKey(store, key, clustering, column), total);
}

/** Called when a group commit holding counter writes completes (or fails): totals are in the pool now. */
export function clearPendingCounters(): void {
  pending.clear();
}
