// Writes to a table that has secondary indexes or materialized views: the base mutation, the index entries
// and the view changes are staged as ONE op of the group commit (one transaction), so a reader never sees
// one without the others. Tables without dependents keep the plain write path.

import type { CommitContext } from '../../storage/commit-context.js';
import { murmur3Token } from '../../storage/murmur3-token.js';
import type { PartitionUpdate, RowUpdate } from '../../storage/mutation.js';
import { Projection } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';
import { InvalidRequest } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import { IndexTerms, indexUpdate } from '../index/index-entries.js';
import { indexStorageIdBytes } from '../schema/index-metadata.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import { type TouchedRow, ViewMaintainer } from './view-maintenance.js';

export interface Dependents {
  readonly indexes: readonly { terms: IndexTerms; store: TableStore }[];
  readonly views: readonly ViewMaintainer[];
}

export interface TableWrite {
  table: TableMetadata;
  updates: readonly PartitionUpdate[];
  now: number;
}

/** Per keyspace version: table id -> its dependents (null: none). Rebuilt when the keyspace object changes. */
const cache = new WeakMap<KeyspaceMetadata, Map<string, Dependents | null>>();

/** The indexes and views a write to `table` must maintain, from the current schema (not the prepared one). */
export function dependentsOf(ctx: ExecutionContext, table: TableMetadata): Dependents | undefined {
  const ks = ctx.catalog.keyspace(table.keyspace);
  if (!ks) return undefined;
  let byTable = cache.get(ks);
  if (!byTable) {
    byTable = new Map();
    cache.set(ks, byTable);
  }
  let deps = byTable.get(table.id);
  if (deps === undefined) {
    deps = build(ctx, ks, table);
    byTable.set(table.id, deps);
  }
  return deps ?? undefined;
}

function build(ctx: ExecutionContext, ks: KeyspaceMetadata, prepared: TableMetadata): Dependents | null {
  const table = ks.tables.get(prepared.name);
  if (!table || table.id !== prepared.id) return null;
  const indexes: { terms: IndexTerms; store: TableStore }[] = [];
  for (const index of table.indexes ?? []) {
    // An index whose column was dropped (ALTER TABLE should refuse it) maintains nothing rather than failing writes.
    if (!table.columns.some((c) => c.name === index.column)) continue;
    const terms = new IndexTerms(table, index);
    if (!terms.keepsEntries) continue;
    const store = ctx.storage.table(indexStorageIdBytes(index));
    if (store) indexes.push({ terms, store });
  }
  const views: ViewMaintainer[] = [];
  for (const view of ks.views?.values() ?? []) {
    if (view.baseTableId !== table.id) continue;
    const store = ctx.storage.table(tableIdBytes(view.table), view.table.options.gc_grace_seconds);
    if (store) views.push(new ViewMaintainer(table, view, store));
  }
  return indexes.length > 0 || views.length > 0 ? { indexes, views } : null;
}

/** Applies writes of several tables (some with dependents) atomically. */
export function applyWithDependents(
  ctx: ExecutionContext,
  writes: readonly TableWrite[],
  baseStore: (t: TableMetadata) => TableStore,
): Promise<void> {
  const plan = writes.map((w) => ({ ...w, store: baseStore(w.table), deps: dependentsOf(ctx, w.table) }));
  // Partition and range deletions touch rows the write does not name: they are found by reading the committed
  // partition, so everything submitted before must be committed first (as for conditional updates).
  if (
    plan.some(
      (p) => p.deps && p.deps.views.length > 0 && p.updates.some((u) => u.deletion || u.rangeTombstones?.length),
    )
  ) {
    ctx.storage.commit.flush();
  }
  return ctx.storage.run((c) => {
    for (const p of plan) {
      if (!p.deps) p.store.stageMutations(c, p.updates, p.now);
      else stageWithDependents(c, p.table, p.store, p.deps, p.updates, p.now);
    }
  });
}

function stageWithDependents(
  c: CommitContext,
  table: TableMetadata,
  store: TableStore,
  deps: Dependents,
  updates: readonly PartitionUpdate[],
  now: number,
): void {
  for (const { terms, store: indexStore } of deps.indexes) {
    const rows: RowUpdate[] = [];
    for (const u of updates) terms.entriesOf(table, u, rows);
    if (rows.length > 0) indexStore.stageMutations(c, [indexUpdate(rows)], now);
  }
  if (deps.views.length === 0) {
    store.stageMutations(c, updates, now);
    return;
  }
  const touched = touchedRows(table, store, updates, now);
  const before = deps.views.map((v) => touched.map((r) => v.readBase(c, store, r, now)));
  store.stageMutations(c, updates, now);
  deps.views.forEach((v, vi) => {
    const changes: PartitionUpdate[] = [];
    touched.forEach((r, i) => {
      changes.push(...v.changes(r, before[vi]![i], v.readBase(c, store, r, now), now));
    });
    if (changes.length > 0) v.store.stageMutations(c, changes, now);
  });
}

const NO_COLUMNS = new Projection([]);
const EMPTY = Buffer.alloc(0);

/** Base rows a write may change (static rows never reach a view: views cannot select static columns). */
function touchedRows(
  table: TableMetadata,
  store: TableStore,
  updates: readonly PartitionUpdate[],
  now: number,
): TouchedRow[] {
  const seen = new Set<string>();
  const out: TouchedRow[] = [];
  const add = (key: Buffer, token: bigint, clustering: Buffer) => {
    const id = `${key.toString('latin1')}\u0000${clustering.toString('latin1')}`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ key, token, clustering });
  };
  for (const u of updates) {
    const token = u.token ?? murmur3Token(u.key);
    for (const r of u.rows ?? []) add(u.key, token, r.clustering);
    if (u.deletion || (u.rangeTombstones?.length ?? 0) > 0) {
      if (table.clustering.length === 0) {
        add(u.key, token, EMPTY);
        continue;
      }
      // Rows are read with no columns: only their clusterings are wanted (dead ones are skipped, fine: they
      // have no view row).
      const pr = store.readPartition(u.key, token, { columns: NO_COLUMNS, nowInSeconds: now });
      if (pr && pr.rows.length > 100_000) {
        throw new InvalidRequest('Partition too large to delete with materialized views attached (over 100000 rows)');
      }
      for (const r of pr?.rows ?? []) add(u.key, token, r.clustering);
    }
  }
  return out;
}
