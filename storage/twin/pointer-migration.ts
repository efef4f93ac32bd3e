// Pools written before segment key indexes kept one row pointer per flushed row in the 'r' map (twin key ->
// [segment id | row]). When such a table is opened, its pointers become one key index per segment and the map is
// emptied, in one transaction (a crash leaves the pointers, and the next open converts them again). A pointer
// existed only for a live row, so a converted index may list fewer keys than its segment has rows: the rows left
// out were dead, which their deletion bits already say.

import type { NativePool } from '../native-pool.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import type { TwinHandles } from './table-twin.js';
import { keyIndexKey } from './twin-keys.js';

const CHUNK = 4096;

/** Converts the table's row pointers into key indexes; returns how many pointers were converted. */
export function migrateRowPointers(pool: NativePool, h: TwinHandles): number {
  if (pool.count(h.pointers) === 0) return 0;
  const bySegment = new Map<number, { keys: Buffer[]; rows: number[] }>();
  // Every segment gets an index, an empty one when none of its rows had a pointer (all dead).
  forEachEntry(pool, h.index, (k) => {
    if (k.length === 4) bySegment.set(k.readUInt32BE(0), { keys: [], rows: [] });
  });
  let converted = 0;
  // The scan yields keys in Buffer.compare order, which is the order an index needs.
  forEachEntry(pool, h.pointers, (k, v) => {
    const seg = bySegment.get(v.readUInt32BE(0));
    if (!seg) return; // a pointer to a segment that is gone names nothing
    seg.keys.push(k);
    seg.rows.push(v.readUInt32BE(4));
    converted++;
  });
  const batch = pool.batch();
  for (const [id, seg] of bySegment) batch.put(h.segments, keyIndexKey(id), SegmentKeyIndex.encode(seg.keys, seg.rows));
  batch.clear(h.pointers);
  pool.apply(batch);
  return converted;
}

function forEachEntry(pool: NativePool, map: number, visit: (k: Buffer, v: Buffer) => void): void {
  let start: Buffer | undefined;
  for (;;) {
    const res = pool.scan(map, { start, startInclusive: false, limit: CHUNK });
    for (let i = 0; i < res.keys.length; i++) visit(res.keys[i]!, res.values[i]!);
    if (res.keys.length < CHUNK) return;
    start = res.keys[res.keys.length - 1];
  }
}
