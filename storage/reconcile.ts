// Cassandra 5.0's merge rules (Cells.resolveRegular, LivenessInfo.supersedes, DeletionTime.deletes) and the
// write-time purge that keeps stored rows small: shadowed data is dropped, tombstones and expired cells older
// than gc_grace_seconds disappear.

import type { Cell, DeletionTime, LivenessInfo, RowUpdate } from './mutation.js';
import { deletionSupersedes, maxDeletion, NO_DELETION_TIME, NO_TTL } from './mutation.js';
import type { ColumnData, ComplexColumnData, StoredRow } from './row-codec.js';
import type { Timestamp } from './timestamp.js';

const EMPTY = Buffer.alloc(0);

/** Which of two cells of the same column/path survives (Cassandra 5.0 Cells.resolveRegular, commutative). */
export function reconcileCells(left: Cell, right: Cell): Cell {
  if (left.ts !== right.ts) return left.ts > right.ts ? left : right;
  const leftExpOrTomb = left.ldt !== NO_DELETION_TIME;
  const rightExpOrTomb = right.ldt !== NO_DELETION_TIME;
  if (leftExpOrTomb || rightExpOrTomb) {
    // CASSANDRA-14592: expiring cells rank with tombstones so the outcome does not depend on the clock.
    if (leftExpOrTomb !== rightExpOrTomb) return leftExpOrTomb ? left : right;
    const leftTomb = left.ttl === NO_TTL;
    const rightTomb = right.ttl === NO_TTL;
    if (leftTomb !== rightTomb) return leftTomb ? left : right;
    if (left.ldt !== right.ldt) return left.ldt > right.ldt ? left : right;
  }
  return Buffer.compare(left.value ?? EMPTY, right.value ?? EMPTY) >= 0 ? left : right;
}

/** LivenessInfo.supersedes (Cassandra 5.0; no "expired liveness" of views here). */
export function livenessSupersedes(a: LivenessInfo, b: LivenessInfo): boolean {
  if (a.ts !== b.ts) return a.ts > b.ts;
  const aExp = a.ttl !== NO_TTL;
  const bExp = b.ttl !== NO_TTL;
  if (aExp === bExp) return a.expiry > b.expiry;
  return aExp;
}

export function mergeLiveness(existing: LivenessInfo | undefined, update: LivenessInfo | undefined) {
  if (!existing) return update;
  if (!update) return existing;
  return livenessSupersedes(existing, update) ? existing : update;
}

/** DeletionTime.deletes: data with timestamp <= markedForDeleteAt is shadowed. */
export function deletes(d: DeletionTime | undefined, ts: Timestamp): boolean {
  return d !== undefined && ts <= d.ts;
}

// ---- merging ----------------------------------------------------------------------------------

function comparePaths(a: Cell, b: Cell): number {
  return Buffer.compare(a.path!, b.path!);
}

/** Turns an update into stored-row form: cells grouped by column (and path), duplicates reconciled. */
export function rowFromUpdate(u: RowUpdate): StoredRow {
  const fast = simpleSortedColumns(u);
  if (fast) return { clusteringValues: u.clusteringValues, liveness: u.liveness, deletion: u.deletion, columns: fast };
  const byColumn = new Map<number, { simple?: Cell; complex?: Cell[]; deletion?: DeletionTime }>();
  const slot = (column: number) => {
    let s = byColumn.get(column);
    if (!s) {
      s = {};
      byColumn.set(column, s);
    }
    return s;
  };
  if (u.cells) {
    for (const c of u.cells) {
      const s = slot(c.column);
      if (c.path === undefined) s.simple = s.simple ? reconcileCells(s.simple, c) : c;
      else if (s.complex) s.complex.push(c);
      else s.complex = [c];
    }
  }
  if (u.complexDeletions) {
    for (const cd of u.complexDeletions) {
      const s = slot(cd.column);
      s.deletion = maxDeletion(s.deletion, cd.deletion);
      s.complex ??= [];
    }
  }
  const columns: ColumnData[] = [];
  const ids = [...byColumn.keys()].sort((a, b) => a - b);
  for (const column of ids) {
    const s = byColumn.get(column)!;
    if (s.complex) {
      const cells = s.complex.sort(comparePaths);
      const unique: Cell[] = [];
      for (const c of cells) {
        const last = unique[unique.length - 1];
        if (last && comparePaths(last, c) === 0) unique[unique.length - 1] = reconcileCells(last, c);
        else unique.push(c);
      }
      columns.push({ column, complex: true, deletion: s.deletion, cells: unique });
    } else if (s.simple) {
      columns.push({ column, complex: false, cell: s.simple });
    }
  }
  return { clusteringValues: u.clusteringValues, liveness: u.liveness, deletion: u.deletion, columns };
}

/** The common case (simple cells in ascending column order, nothing else) without grouping. */
function simpleSortedColumns(u: RowUpdate): ColumnData[] | undefined {
  if (u.complexDeletions && u.complexDeletions.length > 0) return undefined;
  const cells = u.cells;
  if (!cells) return [];
  const out = new Array<ColumnData>(cells.length);
  let prev = -1;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    if (c.path !== undefined || c.column <= prev) return undefined;
    prev = c.column;
    out[i] = { column: c.column, complex: false, cell: c };
  }
  return out;
}

function mergeComplex(a: ComplexColumnData, b: ComplexColumnData): ComplexColumnData {
  const cells: Cell[] = [];
  let i = 0;
  let j = 0;
  while (i < a.cells.length || j < b.cells.length) {
    if (i === a.cells.length) cells.push(b.cells[j++]!);
    else if (j === b.cells.length) cells.push(a.cells[i++]!);
    else {
      const c = comparePaths(a.cells[i]!, b.cells[j]!);
      if (c < 0) cells.push(a.cells[i++]!);
      else if (c > 0) cells.push(b.cells[j++]!);
      else cells.push(reconcileCells(a.cells[i++]!, b.cells[j++]!));
    }
  }
  return { column: a.column, complex: true, deletion: maxDeletion(a.deletion, b.deletion), cells };
}

function mergeColumn(a: ColumnData, b: ColumnData): ColumnData {
  if (!a.complex && !b.complex) {
    const cell = reconcileCells(a.cell, b.cell);
    return cell === a.cell ? a : b;
  }
  if (a.complex && b.complex) return mergeComplex(a, b);
  return b; // a column changed between simple and complex: the schema moved on, keep the newer form
}

/** Merges two versions of one row (no purge). */
export function mergeRows(existing: StoredRow | undefined, update: StoredRow): StoredRow {
  if (!existing) return update;
  const columns: ColumnData[] = [];
  const a = existing.columns;
  const b = update.columns;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i === a.length) columns.push(b[j++]!);
    else if (j === b.length) columns.push(a[i++]!);
    else if (a[i]!.column < b[j]!.column) columns.push(a[i++]!);
    else if (a[i]!.column > b[j]!.column) columns.push(b[j++]!);
    else columns.push(mergeColumn(a[i++]!, b[j++]!));
  }
  return {
    clusteringValues: update.clusteringValues ?? existing.clusteringValues,
    liveness: mergeLiveness(existing.liveness, update.liveness),
    deletion: maxDeletion(existing.deletion, update.deletion),
    columns,
  };
}

// ---- purging ----------------------------------------------------------------------------------

export interface PurgeContext {
  readonly nowInSeconds: number;
  /** Tombstones with local deletion time < gcBefore are dropped (now - gc_grace_seconds). */
  readonly gcBefore: number;
}

/** A cell after shadowing / gc: undefined when it can be dropped. */
function purgeCell(c: Cell, shadow: DeletionTime | undefined, ctx: PurgeContext): Cell | undefined {
  if (deletes(shadow, c.ts)) return undefined;
  if (c.value === null) return c.ldt < ctx.gcBefore ? undefined : c;
  // An expired cell is a tombstone deleted at (expiry - ttl), i.e. when it was written. It is kept as it is
  // (not rewritten as a tombstone) until purgeable: Cassandra reconciles an unconverted expiring cell with
  // equal-timestamp cells differently from a tombstone, and results must not depend on when we merged.
  if (c.ttl !== NO_TTL && ctx.nowInSeconds >= c.ldt && c.ldt - c.ttl < ctx.gcBefore) return undefined;
  return c;
}

/**
 * Drops what `shadow` (partition deletion / covering range tombstones, may be undefined) and the row's own
 * deletions shadow and drops tombstones (and expired cells) older than gc_grace.
 * Returns undefined when nothing is left.
 */
export function purgeRow(row: StoredRow, shadow: DeletionTime | undefined, ctx: PurgeContext): StoredRow | undefined {
  if (!shadow && !row.deletion && nothingToPurge(row, ctx)) return row;
  // Shadow with every deletion first; only then decide which deletion records are still worth keeping.
  const effective = maxDeletion(shadow, row.deletion);
  let rowDeletion = row.deletion;
  if (rowDeletion && (rowDeletion.ldt < ctx.gcBefore || (shadow && !deletionSupersedes(rowDeletion, shadow)))) {
    rowDeletion = undefined;
  }
  let liveness = row.liveness;
  if (liveness) {
    if (deletes(effective, liveness.ts)) liveness = undefined;
    else if (liveness.ttl !== NO_TTL && ctx.nowInSeconds >= liveness.expiry) {
      if (liveness.expiry - liveness.ttl < ctx.gcBefore) liveness = undefined;
    }
  }
  const columns: ColumnData[] = [];
  for (const col of row.columns) {
    if (!col.complex) {
      const cell = purgeCell(col.cell, effective, ctx);
      if (cell) columns.push(cell === col.cell ? col : { column: col.column, complex: false, cell });
      continue;
    }
    const colShadow = maxDeletion(effective, col.deletion);
    let cd = col.deletion;
    if (cd && (cd.ldt < ctx.gcBefore || (effective && !deletionSupersedes(cd, effective)))) cd = undefined;
    const cells: Cell[] = [];
    for (const c of col.cells) {
      const p = purgeCell(c, colShadow, ctx);
      if (p) cells.push(p);
    }
    if (cells.length > 0 || cd) columns.push({ column: col.column, complex: true, deletion: cd, cells });
  }
  if (!liveness && !rowDeletion && columns.length === 0) return undefined;
  return { clusteringValues: row.clusteringValues, liveness, deletion: rowDeletion, columns };
}

/** The common case of a write (no deletions, no tombstones, nothing expired): no allocation at all. */
function nothingToPurge(row: StoredRow, ctx: PurgeContext): boolean {
  const l = row.liveness;
  if (l && l.ttl !== NO_TTL && ctx.nowInSeconds >= l.expiry) return false;
  for (const col of row.columns) {
    if (!col.complex) {
      const c = col.cell;
      if (c.ldt !== NO_DELETION_TIME) return false;
      continue;
    }
    if (col.deletion) return false;
    for (const c of col.cells) if (c.ldt !== NO_DELETION_TIME) return false;
  }
  return true;
}

/** The oldest timestamp of anything in the row (a deletion at or above it changes the row). */
export function rowMinTimestamp(row: StoredRow): Timestamp {
  let ts: Timestamp = Number.POSITIVE_INFINITY;
  if (row.liveness && row.liveness.ts < ts) ts = row.liveness.ts;
  if (row.deletion && row.deletion.ts < ts) ts = row.deletion.ts;
  for (const col of row.columns) {
    if (!col.complex) {
      if (col.cell.ts < ts) ts = col.cell.ts;
      continue;
    }
    if (col.deletion && col.deletion.ts < ts) ts = col.deletion.ts;
    for (const c of col.cells) if (c.ts < ts) ts = c.ts;
  }
  return ts;
}
