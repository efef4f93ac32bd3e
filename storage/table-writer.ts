// Stages one table's mutations into a group-commit batch: read (committed data, or this batch's overlay),
// merge by Cassandra's rules, purge what is shadowed or past gc_grace, write back. Deletions also rewrite the
// rows they shadow, so stored data stays small; the partition header keeps them to shadow later, older writes.

import { prefixSuccessor, sliceToKeyRange } from './clustering-bounds.js';
import type { CommitContext, MapRef } from './commit-context.js';
import type { DeletionTime, PartitionUpdate, RangeTombstone, RowUpdate } from './mutation.js';
import { deletionSupersedes, maxDeletion } from './mutation.js';
import type { MapHandle } from './native-pool.js';
import type { PurgeContext } from './reconcile.js';
import { mergeRows, purgeRow, rowFromUpdate, rowMinTimestamp } from './reconcile.js';
import type { PartitionHeader, StoredRow } from './row-codec.js';
import {
  decodeHeader,
  decodeRow,
  EMPTY_HEADER,
  encodeHeader,
  encodeRow,
  encodeSingleRowPartition,
  isEmptyHeader,
  readSingleRowHeader,
} from './row-codec.js';
import type { Projection, ReadRow } from './row-projection.js';
import { shadowTsOf } from './row-projection.js';
import { HEADER_KEY, partitionMapKey, ROW_TAG, rowMapKey, STATIC_KEY } from './table-layout.js';
import type { TableState } from './table-state.js';
import { shadowFor } from './table-state.js';
import type { TableTwin } from './twin/table-twin.js';

const SCAN_CHUNK = 1024;
const ROWS_END = prefixSuccessor(ROW_TAG)!;

/** One partition's state within a batch. */
class PartitionStage {
  /** The partition's map at the start of the batch (0: none). Clustered tables only. */
  committed: MapHandle;
  /** Where this batch writes the partition's rows (set on first write). */
  ref: MapRef | undefined;
  /** Every committed row was removed in this batch: only the overlay counts. */
  cleared = false;
  header: PartitionHeader | undefined;
  /** Rows touched in this batch, by latin1 of their map key; null = deleted. */
  readonly rows = new Map<string, StoredRow | null>();
  // Tables without clustering columns: the partition is one value.
  singleLoaded = false;
  singleExists = false;
  singleDeletion: DeletionTime | undefined;
  singleRow: StoredRow | undefined;

  constructor(
    readonly mapKey: Buffer,
    committed: MapHandle,
  ) {
    this.committed = committed;
  }
}

/** One table's state within a batch. */
class TableStage {
  truncated = false;
  dropped = false;
  readonly partitions = new Map<string, PartitionStage>();
}

export class TableWriter {
  /** `twin`: the table's Arrow twin, told of every row change in the same batch. */
  constructor(
    private readonly t: TableState,
    private readonly twin?: TableTwin,
  ) {}

  private stage(ctx: CommitContext): TableStage {
    const s = ctx.overlay(this.t, () => new TableStage());
    if (s.dropped || this.t.dropped) throw new Error('table has been dropped');
    return s;
  }

  stageUpdates(ctx: CommitContext, updates: readonly PartitionUpdate[], nowInSeconds: number): void {
    const ts = this.stage(ctx);
    const pctx: PurgeContext = { nowInSeconds, gcBefore: nowInSeconds - this.t.gcGraceSeconds };
    for (const u of updates) {
      const mapKey = partitionMapKey(u.key, u.token);
      if (this.t.clustered) this.stageClustered(ctx, ts, mapKey, u, pctx);
      else this.stageSingle(ctx, ts, mapKey, u, pctx);
    }
  }

  stageTruncate(ctx: CommitContext): void {
    const ts = this.stage(ctx);
    ctx.batch.clear(this.t.partitionsHandle);
    this.twin?.stageTruncate(ctx);
    ts.truncated = true;
    ts.partitions.clear();
  }

  /** Later ops of the same batch must not write into the freed maps. */
  markDropped(ctx: CommitContext): void {
    this.stage(ctx).dropped = true;
  }

  /**
   * Background GC of up to `maxPartitions` partitions from `after` (exclusive): applies headers to rows,
   * drops tombstones older than gc_grace, removes empty partitions. Returns where to continue (undefined: end).
   */
  stageGc(ctx: CommitContext, after: Buffer | undefined, maxPartitions: number, nowInSeconds: number) {
    const ts = this.stage(ctx);
    if (ts.truncated) return undefined;
    const pctx: PurgeContext = { nowInSeconds, gcBefore: nowInSeconds - this.t.gcGraceSeconds };
    const res = this.t.pool.scan(this.t.partitionsHandle, {
      start: after,
      startInclusive: false,
      limit: maxPartitions,
    });
    for (let i = 0; i < res.keys.length; i++) {
      const mapKey = res.keys[i]!;
      const ps = this.partition(ts, mapKey);
      if (this.t.clustered) this.gcClustered(ctx, ps, pctx);
      else this.gcSingle(ctx, ps, pctx);
    }
    return res.keys.length < maxPartitions ? undefined : res.keys[res.keys.length - 1];
  }

  /**
   * A row as this batch would leave it so far (committed data + the batch's earlier writes): what a
   * conditional update (LWT) must test. `clustering` undefined = the static row (or the single row of a
   * table without clustering columns).
   */
  readRowInBatch(
    ctx: CommitContext,
    key: Buffer,
    token: bigint | undefined,
    clustering: Buffer | undefined,
    proj: Projection,
    nowInSeconds: number,
  ): ReadRow | undefined {
    const ps = this.partition(this.stage(ctx), partitionMapKey(key, token));
    if (!this.t.clustered) {
      if (!ps.singleRow) return undefined;
      return proj.project(encodeRow(ps.singleRow), 0, EMPTY_CLUSTERING, shadowTsOf(ps.singleDeletion), nowInSeconds);
    }
    const header = this.header(ps);
    const row = this.getRow(ps, clustering === undefined ? STATIC_KEY : rowMapKey(clustering));
    if (!row) return undefined;
    const shadow = clustering === undefined ? header.deletion : shadowFor(header, clustering);
    return proj.project(encodeRow(row), 0, clustering ?? EMPTY_CLUSTERING, shadowTsOf(shadow), nowInSeconds);
  }

  // ---- partitions -----------------------------------------------------------------------------

  private partition(ts: TableStage, mapKey: Buffer): PartitionStage {
    const k = mapKey.toString('latin1');
    let ps = ts.partitions.get(k);
    if (ps) return ps;
    const pool = this.t.pool;
    if (this.t.clustered) {
      ps = new PartitionStage(mapKey, ts.truncated ? 0 : pool.getChild(this.t.partitionsHandle, mapKey));
    } else {
      ps = new PartitionStage(mapKey, 0);
      const v = ts.truncated ? undefined : pool.get(this.t.partitionsHandle, mapKey);
      ps.singleLoaded = true;
      if (v) {
        const { deletion, rowAt } = readSingleRowHeader(v);
        ps.singleExists = true;
        ps.singleDeletion = deletion;
        ps.singleRow = rowAt < v.length ? decodeRow(v, rowAt) : undefined;
      }
    }
    ts.partitions.set(k, ps);
    return ps;
  }

  private partitionRef(ctx: CommitContext, ps: PartitionStage): MapRef {
    if (ps.ref === undefined) {
      ps.ref = ps.committed !== 0 ? ps.committed : ctx.ensureChild(this.t.partitionsHandle, ps.mapKey).ref;
    }
    return ps.ref;
  }

  private header(ps: PartitionStage): PartitionHeader {
    if (ps.header === undefined) {
      const v = ps.committed !== 0 && !ps.cleared ? this.t.pool.get(ps.committed, HEADER_KEY) : undefined;
      ps.header = v ? decodeHeader(v) : EMPTY_HEADER;
    }
    return ps.header;
  }

  private getRow(ps: PartitionStage, key: Buffer): StoredRow | undefined {
    const o = ps.rows.get(key.toString('latin1'));
    if (o !== undefined) return o ?? undefined;
    if (ps.committed === 0 || ps.cleared) return undefined;
    const v = this.t.pool.get(ps.committed, key);
    return v ? decodeRow(v) : undefined;
  }

  private putRow(ctx: CommitContext, ps: PartitionStage, key: Buffer, row: StoredRow | undefined, existed: boolean) {
    let bytes: Buffer | undefined;
    if (row) {
      bytes = encodeRow(row);
      ctx.batch.put(this.partitionRef(ctx, ps), key, bytes);
    } else if (existed) ctx.batch.del(this.partitionRef(ctx, ps), key);
    ps.rows.set(key.toString('latin1'), row ?? null);
    // The static row has no twin row of its own (tables with static columns get no twin).
    if (this.twin && key[0] === ROW_TAG[0]) this.twin.touchRow(ctx, ps.mapKey, key, bytes, existed);
  }

  private putHeader(ctx: CommitContext, ps: PartitionStage, header: PartitionHeader, existed: boolean) {
    if (!isEmptyHeader(header)) ctx.batch.put(this.partitionRef(ctx, ps), HEADER_KEY, encodeHeader(header));
    else if (existed) ctx.batch.del(this.partitionRef(ctx, ps), HEADER_KEY);
    ps.header = header;
  }

  /** Rows with map keys in [lo, hi): committed ones not yet touched, then the overlay's. */
  private rowsInRange(ps: PartitionStage, lo: Buffer, hi: Buffer | undefined): [Buffer, StoredRow][] {
    const out: [Buffer, StoredRow][] = [];
    if (ps.committed !== 0 && !ps.cleared) {
      let start = lo;
      let startInclusive = true;
      for (;;) {
        const res = this.t.pool.scan(ps.committed, {
          start,
          startInclusive,
          end: hi,
          endInclusive: false,
          limit: SCAN_CHUNK,
        });
        for (let i = 0; i < res.keys.length; i++) {
          const k = res.keys[i]!;
          if (ps.rows.has(k.toString('latin1'))) continue;
          out.push([k, decodeRow(res.values[i]!)]);
        }
        if (res.keys.length < SCAN_CHUNK) break;
        start = res.keys[res.keys.length - 1]!;
        startInclusive = false;
      }
    }
    for (const [k, row] of ps.rows) {
      if (!row) continue;
      const key = Buffer.from(k, 'latin1');
      if (Buffer.compare(key, lo) >= 0 && (!hi || Buffer.compare(key, hi) < 0)) out.push([key, row]);
    }
    return out;
  }

  // ---- tables with clustering columns ---------------------------------------------------------

  private stageClustered(
    ctx: CommitContext,
    ts: TableStage,
    mapKey: Buffer,
    u: PartitionUpdate,
    pctx: PurgeContext,
  ): void {
    const ps = this.partition(ts, mapKey);
    if (u.staticRow) this.stageRow(ctx, ps, STATIC_KEY, EMPTY_CLUSTERING, u.staticRow, pctx, true);
    if (u.rows) {
      for (const r of u.rows) this.stageRow(ctx, ps, rowMapKey(r.clustering), r.clustering, r, pctx, false);
    }
    // Deletions after the rows: whatever the same mutation wrote at an older timestamp is purged at once.
    if (u.deletion || (u.rangeTombstones && u.rangeTombstones.length > 0)) {
      this.stageDeletions(ctx, ps, u.deletion, u.rangeTombstones ?? [], pctx);
    }
  }

  private stageRow(
    ctx: CommitContext,
    ps: PartitionStage,
    key: Buffer,
    clustering: Buffer,
    u: RowUpdate,
    pctx: PurgeContext,
    isStatic: boolean,
  ): void {
    const existing = this.getRow(ps, key);
    const merged = mergeRows(existing, rowFromUpdate(u));
    // The header is only consulted when this batch already loaded it; reads apply it anyway.
    const h = ps.header;
    const shadow = h ? (isStatic ? h.deletion : shadowFor(h, clustering)) : undefined;
    this.putRow(ctx, ps, key, purgeRow(merged, shadow, pctx), existing !== undefined);
  }

  private stageDeletions(
    ctx: CommitContext,
    ps: PartitionStage,
    deletion: DeletionTime | undefined,
    newRts: readonly RangeTombstone[],
    pctx: PurgeContext,
  ): void {
    const old = this.header(ps);
    const headerExisted = !isEmptyHeader(old);
    const pd = maxDeletion(old.deletion, deletion);
    const pdChanged = pd !== old.deletion;
    const rts = pdChanged && pd ? old.rangeTombstones.filter((rt) => survives(rt, pd)) : [...old.rangeTombstones];
    const added: RangeTombstone[] = [];
    for (const rt of newRts) {
      if (pd && !survives(rt, pd)) continue;
      const same = rts.findIndex((o) => sameBounds(o, rt));
      if (same >= 0) {
        if (!deletionSupersedes(rt.deletion, rts[same]!.deletion)) continue;
        rts[same] = rt;
      } else {
        rts.push(rt);
      }
      added.push(rt);
    }
    const header: PartitionHeader = { deletion: pd, rangeTombstones: rts };

    if (pdChanged) {
      // Rewrite every row under the new partition deletion; if nothing survives, empty the map in one op.
      const rows = this.rowsInRange(ps, ROW_TAG, ROWS_END);
      const changes: [Buffer, StoredRow | undefined][] = [];
      let survivors = 0;
      for (const [key, row] of rows) {
        const after = purgeRow(row, shadowFor(header, key.subarray(1)), pctx);
        if (after) survivors++;
        if (!after || rowMinTimestamp(row) <= pd!.ts) changes.push([key, after]);
      }
      const st = this.getRow(ps, STATIC_KEY);
      const stAfter = st ? purgeRow(st, pd, pctx) : undefined;
      if (survivors === 0 && !stAfter) {
        if (ps.committed !== 0 || ps.ref !== undefined) ctx.batch.clear(this.partitionRef(ctx, ps));
        this.twin?.touchPartition(ctx, ps.mapKey);
        ps.cleared = true;
        ps.rows.clear();
        this.putHeader(ctx, ps, header, false);
        return;
      }
      for (const [key, after] of changes) this.putRow(ctx, ps, key, after, true);
      if (st && rowMinTimestamp(st) <= pd!.ts) this.putRow(ctx, ps, STATIC_KEY, stAfter, true);
    } else {
      const done = new Set<string>();
      for (const rt of added) {
        const range = sliceToKeyRange(ROW_TAG, rt.start, rt.end);
        if (range.empty) continue;
        for (const [key, row] of this.rowsInRange(ps, range.start!, range.end)) {
          const k = key.toString('latin1');
          if (done.has(k) || rowMinTimestamp(row) > rt.deletion.ts) continue;
          done.add(k);
          this.putRow(ctx, ps, key, purgeRow(row, shadowFor(header, key.subarray(1)), pctx), true);
        }
      }
    }
    this.putHeader(ctx, ps, header, headerExisted);
  }

  private gcClustered(ctx: CommitContext, ps: PartitionStage, pctx: PurgeContext): void {
    const header = this.header(ps);
    const headerExisted = !isEmptyHeader(header);
    let survivors = 0;
    for (const [key, row] of this.rowsInRange(ps, ROW_TAG, ROWS_END)) {
      const after = purgeRow(row, shadowFor(header, key.subarray(1)), pctx);
      if (after) survivors++;
      if (!sameRow(row, after)) this.putRow(ctx, ps, key, after, true);
    }
    const st = this.getRow(ps, STATIC_KEY);
    const stAfter = st ? purgeRow(st, header.deletion, pctx) : undefined;
    if (st && !sameRow(st, stAfter)) this.putRow(ctx, ps, STATIC_KEY, stAfter, true);
    // Rows are purged against the header now, so its old deletions can go without resurrecting anything.
    const gced: PartitionHeader = {
      deletion: header.deletion && header.deletion.ldt >= pctx.gcBefore ? header.deletion : undefined,
      rangeTombstones: header.rangeTombstones.filter((rt) => rt.deletion.ldt >= pctx.gcBefore),
    };
    if (survivors === 0 && !stAfter && isEmptyHeader(gced)) {
      ctx.batch.dropChild(this.t.partitionsHandle, ps.mapKey);
      this.twin?.touchPartition(ctx, ps.mapKey);
      // Later ops of this batch must not write into the freed map: they start a new one.
      ps.committed = 0;
      ps.ref = undefined;
      ps.cleared = true;
      ps.header = EMPTY_HEADER;
      ps.rows.clear();
      return;
    }
    if (gced.deletion !== header.deletion || gced.rangeTombstones.length !== header.rangeTombstones.length) {
      this.putHeader(ctx, ps, gced, headerExisted);
    }
  }

  // ---- tables without clustering columns ------------------------------------------------------

  private stageSingle(
    ctx: CommitContext,
    ts: TableStage,
    mapKey: Buffer,
    u: PartitionUpdate,
    pctx: PurgeContext,
  ): void {
    if (u.staticRow || (u.rangeTombstones && u.rangeTombstones.length > 0)) {
      throw new Error('a table without clustering columns has no static row and no range tombstones');
    }
    const ps = this.partition(ts, mapKey);
    let row = ps.singleRow;
    if (u.rows) for (const r of u.rows) row = mergeRows(row, rowFromUpdate(r));
    this.writeSingle(ctx, ps, maxDeletion(ps.singleDeletion, u.deletion), row, pctx);
  }

  private gcSingle(ctx: CommitContext, ps: PartitionStage, pctx: PurgeContext): void {
    const row = ps.singleRow;
    const after = row ? purgeRow(row, ps.singleDeletion, pctx) : undefined;
    const d = ps.singleDeletion;
    const deletionGone = d !== undefined && d.ldt < pctx.gcBefore;
    if ((row ? sameRow(row, after) : true) && !deletionGone) return;
    this.writeSingle(ctx, ps, d, after, pctx);
  }

  private writeSingle(
    ctx: CommitContext,
    ps: PartitionStage,
    deletion: DeletionTime | undefined,
    row: StoredRow | undefined,
    pctx: PurgeContext,
  ): void {
    if (row) row = purgeRow(row, deletion, pctx);
    // The row was just purged against the deletion, so an old deletion can go.
    if (deletion && deletion.ldt < pctx.gcBefore) deletion = undefined;
    let bytes: Buffer | undefined;
    // The row, not the partition value: a value holding only a deletion has no row, and no live copy.
    const existed = ps.singleRow !== undefined;
    if (!row && !deletion) {
      if (ps.singleExists) ctx.batch.del(this.t.partitionsHandle, ps.mapKey);
      ps.singleExists = false;
    } else {
      bytes = encodeSingleRowPartition(deletion, row);
      ctx.batch.put(this.t.partitionsHandle, ps.mapKey, bytes);
      ps.singleExists = true;
    }
    this.twin?.touchRow(ctx, ps.mapKey, EMPTY_CLUSTERING, row ? bytes : undefined, existed);
    ps.singleDeletion = deletion;
    ps.singleRow = row;
  }
}

const EMPTY_CLUSTERING = Buffer.alloc(0);

function survives(rt: RangeTombstone, pd: DeletionTime): boolean {
  return deletionSupersedes(rt.deletion, pd);
}

function sameBounds(a: RangeTombstone, b: RangeTombstone): boolean {
  return (
    a.start.inclusive === b.start.inclusive &&
    a.end.inclusive === b.end.inclusive &&
    a.start.prefix.equals(b.start.prefix) &&
    a.end.prefix.equals(b.end.prefix)
  );
}

/** Cheap structural check after a purge: purgeRow only ever removes or converts things. */
function sameRow(before: StoredRow, after: StoredRow | undefined): boolean {
  if (!after) return false;
  if (before.liveness !== after.liveness || before.deletion !== after.deletion) return false;
  if (before.columns.length !== after.columns.length) return false;
  for (let i = 0; i < before.columns.length; i++) {
    const b = before.columns[i]!;
    const a = after.columns[i]!;
    if (a === b) continue;
    if (a.complex !== b.complex) return false;
    if (!a.complex && !b.complex) {
      if (a.cell !== b.cell) return false;
    } else if (a.complex && b.complex) {
      if (a.deletion !== b.deletion || a.cells.length !== b.cells.length) return false;
      for (let j = 0; j < a.cells.length; j++) if (a.cells[j] !== b.cells[j]) return false;
    }
  }
  return true;
}
