// The list a statement's list operations by index or value (`l[i] = v`, `DELETE l[i]`, `l = l - [..]`) work on:
// the stored list merged with the cells and deletions the statement's earlier operations made, then purged, as
// Cassandra's UpdateParameters.getPrefetchedRow does. So `SET l = l + [3, 4], l[3] = 7` sets an appended element,
// and `DELETE l[2], l[2]` deletes two elements.

import type { Cell, ComplexDeletion } from '../../storage/mutation.js';
import { NO_DELETION_TIME, NO_TTL } from '../../storage/mutation.js';
import { reconcileCells } from '../../storage/reconcile.js';
import type { ComplexValue } from '../../storage/row-projection.js';

export interface ListElement {
  readonly path: Buffer;
  readonly value: Buffer;
}

/**
 * The live elements, in list order, of column `column` once the statement's `cells` and `deletions` so far apply to
 * `stored` (read with cell metadata; null: no list).
 */
export function listAsUpdated(
  stored: ComplexValue | null,
  column: number,
  cells: readonly Cell[],
  deletions: readonly ComplexDeletion[],
  nowInSeconds: number,
): ListElement[] {
  const byPath = new Map<string, Cell>();
  if (stored) {
    for (let i = 0; i < stored.paths.length; i++) {
      const ttl = stored.ttls?.[i] ?? null;
      const path = stored.paths[i]!;
      byPath.set(path.toString('latin1'), {
        column,
        path,
        ts: stored.writetimes?.[i] ?? Number.NEGATIVE_INFINITY,
        ttl: ttl === null ? NO_TTL : ttl,
        ldt: ttl === null ? NO_DELETION_TIME : nowInSeconds + ttl,
        value: stored.values[i]!,
      });
    }
  }
  for (const c of cells) {
    if (c.column !== column || !c.path) continue;
    const id = c.path.toString('latin1');
    const before = byPath.get(id);
    byPath.set(id, before ? reconcileCells(before, c) : c);
  }
  let deletedAt: Cell['ts'] | undefined;
  for (const d of deletions) {
    if (d.column === column && (deletedAt === undefined || d.deletion.ts > deletedAt)) deletedAt = d.deletion.ts;
  }
  const live: ListElement[] = [];
  for (const c of byPath.values()) {
    if (c.value === null || (deletedAt !== undefined && c.ts <= deletedAt)) continue;
    live.push({ path: c.path!, value: c.value });
  }
  return live.sort((a, b) => Buffer.compare(a.path, b.path));
}
