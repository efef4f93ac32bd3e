// Keeps one materialized view equal to a function of its base table, inside the base write's transaction.
// For every base row a write touches, the row is read as this batch leaves it before and after the base
// mutation is staged; the view row of the old state is deleted and the view row of the new state written.
// View rows carry timestamps of a view clock (monotonic, serialised by the group commit) rather than the
// base's: a view row is always replaced as a whole, so a later maintenance step must always win, whatever
// USING TIMESTAMP the base writes had. Expiring base cells stay expiring (same expiry) in the view.

import type { CommitContext } from '../../storage/commit-context.js';
import { murmur3Token } from '../../storage/murmur3-token.js';
import type { Cell, LivenessInfo, PartitionUpdate, RowUpdate } from '../../storage/mutation.js';
import { NO_DELETION_TIME, NO_TTL } from '../../storage/mutation.js';
import { deserializePartitionKey, serializePartitionKey } from '../../storage/partition-key.js';
import { type ComplexValue, Projection, type ReadRow } from '../../storage/row-projection.js';
import type { TableStore } from '../../storage/table-store.js';
import { BindSpecs } from '../execution/bound-term.js';
import { bindPredicate, preparePredicate } from '../restrictions/row-filter.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { ViewMetadata } from '../schema/view-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { decodeClusteringKey, encodeClusteringKey } from '../types/byte-comparable.js';

const EMPTY = Buffer.alloc(0);

let lastViewTs = 0;

/** Timestamps of view maintenance: strictly increasing, two per step (deletion, then the new row). */
function nextViewTimestamp(): number {
  const now = Date.now() * 1000;
  lastViewTs = Math.max(now, lastViewTs + 2);
  return lastViewTs;
}

/** Where a view column's value comes from in the base row. */
type Source =
  | { kind: 'partition_key'; position: number }
  | { kind: 'clustering'; position: number }
  /** slot -1: the base column was dropped (ALTER TABLE should refuse that): always null. */
  | { kind: 'regular'; slot: number };

/** A base row touched by a write: its partition and clustering. */
export interface TouchedRow {
  key: Buffer;
  token: bigint;
  /** Byte-comparable clustering; empty for tables without clustering columns. */
  clustering: Buffer;
}

export class ViewMaintainer {
  /** Every regular base column (view liveness needs them all), with writetime/ttl. */
  readonly projection: Projection;
  private readonly pkSources: Source[];
  private readonly ckSources: Source[];
  private readonly regular: { id: number; source: Source & { kind: 'regular' } }[];
  /** Slot of the regular base column in the view's primary key, if any. */
  private readonly keySlot: number;
  /** WHERE restrictions on base key columns, evaluated on base column values. */
  private readonly filters: ((row: SelectedRow) => boolean)[];

  constructor(
    readonly base: TableMetadata,
    readonly view: ViewMetadata,
    readonly store: TableStore,
  ) {
    const baseRegular = base.columns.filter((c) => c.kind === 'regular');
    this.projection = new Projection(
      baseRegular.map((c) => c.id),
      true,
    );
    const sourceOf = (name: string): Source => {
      const c = base.columns.find((x) => x.name === name);
      if (!c) return { kind: 'regular', slot: -1 };
      if (c.kind === 'partition_key') return { kind: 'partition_key', position: c.position };
      if (c.kind === 'clustering') return { kind: 'clustering', position: c.position };
      return { kind: 'regular', slot: baseRegular.indexOf(c) };
    };
    const vt = view.table;
    this.pkSources = vt.partitionKey.map((c) => sourceOf(c.name));
    this.ckSources = vt.clustering.map((c) => sourceOf(c.name));
    this.regular = vt.columns
      .filter((c) => c.kind === 'regular')
      .map((c) => ({ id: c.id, source: sourceOf(c.name) as Source & { kind: 'regular' } }));
    const keyRegular = [...this.pkSources, ...this.ckSources].find((s) => s.kind === 'regular');
    this.keySlot = keyRegular?.kind === 'regular' ? keyRegular.slot : -1;
    this.filters = (view.filters ?? []).map((r) => {
      const p = preparePredicate(base, r, new BindSpecs(0));
      return bindPredicate(p, [], base.columns[p.columnIndex]!.name);
    });
  }

  /** The base row as this batch leaves it (committed data plus what was staged so far). */
  readBase(c: CommitContext, baseStore: TableStore, row: TouchedRow, now: number): ReadRow | undefined {
    return baseStore.readRowInBatch(
      c,
      row.key,
      row.token,
      this.base.clustering.length > 0 ? row.clustering : undefined,
      this.projection,
      now,
    );
  }

  /** View updates turning the view row of `before` into the one of `after`. */
  changes(row: TouchedRow, before: ReadRow | undefined, after: ReadRow | undefined, now: number): PartitionUpdate[] {
    const oldKey = before ? this.viewKey(row, before) : undefined;
    const newKey = after ? this.viewKey(row, after) : undefined;
    if (!oldKey && !newKey) return [];
    const ts = nextViewTimestamp();
    const out: PartitionUpdate[] = [];
    if (oldKey && !(newKey && oldKey.key.equals(newKey.key) && oldKey.clustering.equals(newKey.clustering))) {
      out.push({
        key: oldKey.key,
        rows: [{ clustering: oldKey.clustering, clusteringValues: oldKey.values, deletion: { ts, ldt: now } }],
      });
    }
    if (newKey && after) {
      // With a regular base column in the view key, the view row dies with that cell: so do all its cells.
      const cap = this.keySlot >= 0 ? (after.ttls?.[this.keySlot] ?? null) : null;
      const ttl = (t: number | null) => (cap === null ? t : t === null ? cap : Math.min(t, cap));
      const cells: Cell[] = [];
      for (const { id, source } of this.regular) {
        const v = after.values[source.slot] ?? null;
        if (v === null) continue;
        if (Buffer.isBuffer(v)) {
          cells.push(viewCell(id, undefined, v, ts + 1, ttl(after.ttls?.[source.slot] ?? null), now));
        } else {
          const cv = v as ComplexValue;
          for (let i = 0; i < cv.paths.length; i++)
            cells.push(viewCell(id, cv.paths[i], cv.values[i]!, ts + 1, ttl(cv.ttls?.[i] ?? null), now));
        }
      }
      const r: RowUpdate = {
        clustering: newKey.clustering,
        clusteringValues: newKey.values,
        // Deleting first drops cells the base row no longer has.
        deletion: { ts, ldt: now },
        liveness: this.liveness(after, ts + 1, now),
        cells,
      };
      out.push({ key: newKey.key, rows: [r] });
    }
    return out;
  }

  /** A view row lives as long as its base row; with a regular column in its key, as long as that cell. */
  private liveness(after: ReadRow, ts: number, now: number): LivenessInfo {
    let remaining: number | null = null;
    if (this.keySlot >= 0) remaining = after.ttls?.[this.keySlot] ?? null;
    else {
      // Approximation: a base row whose every live cell expires expires with the last one.
      let all = true;
      let max = 0;
      let any = false;
      for (let i = 0; i < after.values.length; i++) {
        const v = after.values[i];
        if (v === null || v === undefined) continue;
        any = true;
        const ttls = Buffer.isBuffer(v) ? [after.ttls?.[i] ?? null] : ((v as ComplexValue).ttls ?? [null]);
        for (const t of ttls) {
          if (t === null) all = false;
          else max = Math.max(max, t);
        }
      }
      if (any && all) remaining = max;
    }
    return remaining === null || remaining <= 0
      ? { ts, ttl: NO_TTL, expiry: NO_DELETION_TIME }
      : { ts, ttl: remaining, expiry: now + remaining };
  }

  private viewKey(
    row: TouchedRow,
    r: ReadRow,
  ): { key: Buffer; token: bigint; clustering: Buffer; values: Buffer[] } | undefined {
    const pk = deserializePartitionKey(row.key, this.base.partitionKey.length);
    const ck =
      r.clusteringValues.length === this.base.clustering.length
        ? r.clusteringValues
        : decodeClusteringKey(
            this.base.clustering.map((c) => c.type),
            this.base.clustering.map((c) => c.clusteringOrder === 'desc'),
            row.clustering,
          );
    const valueOf = (s: Source): Buffer | null => {
      if (s.kind === 'partition_key') return pk[s.position] ?? null;
      if (s.kind === 'clustering') return ck[s.position] ?? null;
      const v = r.values[s.slot];
      return Buffer.isBuffer(v) ? v : null;
    };
    const pkValues: Buffer[] = [];
    for (const s of this.pkSources) {
      const v = valueOf(s);
      // IS NOT NULL on every view key column: a row missing one is not in the view. An empty value is a value:
      // Cassandra keeps such a row, under the empty partition key (token minimum) when it is the whole key.
      if (v === null) return undefined;
      pkValues.push(v);
    }
    const ckValues: Buffer[] = [];
    for (const s of this.ckSources) {
      const v = valueOf(s);
      if (v === null) return undefined;
      ckValues.push(v);
    }
    if (this.filters.length > 0) {
      const values: (Buffer | null)[] = this.base.columns.map((c) =>
        c.kind === 'partition_key'
          ? (pk[c.position] ?? null)
          : c.kind === 'clustering'
            ? (ck[c.position] ?? null)
            : null,
      );
      for (const f of this.filters) if (!f({ values })) return undefined;
    }
    const vt = this.view.table;
    const key = serializePartitionKey(pkValues);
    const clustering =
      vt.clustering.length > 0
        ? encodeClusteringKey(
            vt.clustering.map((c) => c.type),
            vt.clustering.map((c) => c.clusteringOrder === 'desc'),
            ckValues,
          )
        : EMPTY;
    return { key, token: murmur3Token(key), clustering, values: ckValues };
  }
}

function viewCell(
  column: number,
  path: Buffer | undefined,
  value: Buffer,
  ts: number,
  remaining: number | null,
  now: number,
): Cell {
  return remaining !== null && remaining > 0
    ? { column, path, ts, ttl: remaining, ldt: now + remaining, value }
    : { column, path, ts, ttl: NO_TTL, ldt: NO_DELETION_TIME, value };
}
