// Counter columns are stored as plain 8-byte totals: an increment reads the current total and writes
// the new one. Increments submitted in the same event-loop turn are not committed yet when the next
// one reads, so the totals they wrote are kept here until their group commit completes.

import { Projection } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';

/** One statement's (or batch's) uncommitted total of one counter cell. */
interface PendingTotal {
  readonly total: bigint;
}

const pending = new Map<string, PendingTotal>();

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
  const p = pending.get(cellKey(store, key, clustering, column));
  if (p !== undefined) return p.total;
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

/**
 * The totals one write (a statement or a COUNTER BATCH) computed. Released when its group commit
 * completes or fails: a release drops only the entries this write set and no later write replaced, so
 * totals of writes still waiting to commit stay. A write refused before it was submitted is discarded
 * instead: the entries it replaced (totals of earlier writes not committed yet) come back.
 */
export class PendingCounterWrites {
  private readonly entries: { key: string; entry: PendingTotal; replaced: PendingTotal | undefined }[] = [];

  add(store: TableStore, key: Buffer, clustering: Buffer, column: number, total: bigint): void {
    const k = cellKey(store, key, clustering, column);
    const entry: PendingTotal = { total };
    this.entries.push({ key: k, entry, replaced: pending.get(k) });
    pending.set(k, entry);
  }

  release(): void {
    for (const { key, entry } of this.entries) if (pending.get(key) === entry) pending.delete(key);
    this.entries.length = 0;
  }

  /** Only right synchronously after the adds: nothing else can have read these totals yet. */
  discard(): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const { key, entry, replaced } = this.entries[i]!;
      if (pending.get(key) !== entry) continue;
      if (replaced) pending.set(key, replaced);
      else pending.delete(key);
    }
    this.entries.length = 0;
  }
}
