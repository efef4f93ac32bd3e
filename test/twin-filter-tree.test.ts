// Token filters per block of segment ids (storage/twin/segment-filter-tree.ts): once a block's ids are all taken,
// its filter is built in the background and the write path probes it instead of each member. Rewrites of rows in
// such segments must still find and mark their live copies (checkTwin), through compaction and truncate.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { native } from '../cql/types/cql-type.js';
import { murmur3Token, tokenToSortableBytes } from '../storage/murmur3-token.js';
import { liveCell, type PartitionUpdate, rowLiveness } from '../storage/mutation.js';
import { StorageEngine } from '../storage/storage-engine.js';
import type { TableStore } from '../storage/table-store.js';
import type { LiveSegment } from '../storage/twin/live-segment.js';
import { checkTwin } from '../storage/twin/twin-check.js';
import type { TwinSchema } from '../storage/twin/twin-schema.js';
import { int32Bytes, int64Bytes } from './support/value-bytes.js';

const hasAddon = existsSync(new URL('../native/build/Release/pmemcql_native.node', import.meta.url));
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-groups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema: TwinSchema = {
  columns: [
    { name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 },
    { name: 'x', id: 1, kind: 'regular', type: native('bigint'), position: -1 },
  ],
  complexToBytes: () => null,
};

const ROWS_PER_SEGMENT = 50;
let ts = 1_000_000;

function write(store: TableStore, keys: number[], x: number): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const updates: PartitionUpdate[] = keys.map((k) => {
    ts++;
    return {
      key: int32Bytes(k),
      token: undefined,
      rows: [
        { clustering: Buffer.alloc(0), liveness: rowLiveness(ts, 0, now), cells: [liveCell(1, ts, int64Bytes(x))] },
      ],
    };
  });
  return store.applyMutations(updates, now);
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Lets the twin's worker run its background steps (filter builds: one segment a step) until none is left. */
async function settle(store: TableStore): Promise<void> {
  let idle = 0;
  for (let i = 0; i < 5000 && idle < 3; i++) {
    await new Promise((ok) => setImmediate(ok));
    idle = store.twinWorker!.busy ? 0 : idle + 1;
  }
}

function check(store: TableStore): void {
  expect(checkTwin(store.twin!, Math.floor(Date.now() / 1000), schema).slice(0, 5)).toEqual([]);
}

/** An engine in `dir/name` with one unclustered table (twins flushed only on demand), its id bytes all `seed`. */
async function openTable(name: string, seed: number): Promise<{ engine: StorageEngine; store: TableStore }> {
  const opts = { flushRows: 1 << 20, flushBytes: 1 << 30, sliceRows: 16, autoFlush: false };
  const engine = StorageEngine.open({ path: join(dir, name), size: 64 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  return { engine, store: await engine.createTable(Buffer.alloc(16, seed), { clustered: false }) };
}

describe.skipIf(!hasAddon)('token filters per block of segments', () => {
  it('a fresh insert does not look for a live copy; rows deleted and inserted again leave none behind', async () => {
    const { engine, store } = await openTable('fresh', 8);
    try {
      const twin = store.twin!;
      await write(store, range(0, 200), 1);
      store.flushTwin();
      expect(twin.segmentCount).toBe(1);
      // Counts the write path's questions to the segments' token filters.
      let probes = 0;
      const tree = twin.filterTree;
      const candidates = tree.candidates.bind(tree);
      tree.candidates = (hi, lo, out) => {
        probes++;
        return candidates(hi, lo, out);
      };
      await write(store, range(1000, 100), 2);
      expect(probes).toBe(0);
      await write(store, range(0, 100), 3);
      expect(probes).toBe(100);
      const now = Math.floor(Date.now() / 1000);
      await store.applyMutations(
        range(100, 50).map((k) => ({ key: int32Bytes(k), token: undefined, deletion: { ts: ++ts, ldt: now } })),
        now,
      );
      expect(probes).toBe(150);
      // The row store holds their deletions, not the rows: inserts again, no look.
      await write(store, range(100, 50), 4);
      expect(probes).toBe(150);
      check(store);
      store.flushTwin();
      check(store);
      // Each row once: the re-inserted rows' first copies were marked when they were deleted.
      let live = 0;
      for (const seg of twin.liveSegments()) live += seg.record.rows - seg.deletions().count();
      expect(live).toBe(300);
    } finally {
      engine.close();
    }
  });

  it('segments under block filters still have their live copies marked on rewrite, through compaction and truncate', async () => {
    const { engine, store } = await openTable('pool', 7);
    try {
      const twin = store.twin!;
      // Ids 1-70: blocks [0, 64) (with its 4 blocks of 16 and their 16 blocks of 4) and [64, 68), then 3 segments.
      const segments = 70;
      for (let s = 0; s < segments; s++) {
        await write(store, range(s * ROWS_PER_SEGMENT, ROWS_PER_SEGMENT), s);
        store.flushTwin();
      }
      expect(twin.segmentCount).toBe(segments);
      // The first write after the flushes asks which segments may hold its token: the blocks are laid out and
      // the worker builds their filters.
      await write(store, [1_000_000], 0);
      await settle(store);
      expect(twin.pendingSegmentId()).toBe(segments + 1);
      expect(twin.filterTree.blockFilters).toBe(1 + 4 + 16 + 1);

      // Every flushed row is a candidate of its own token; fresh tokens mostly meet no segment.
      const out: LiveSegment[] = [];
      let misses = 0;
      for (let k = 0; k < segments * ROWS_PER_SEGMENT; k += 7) {
        const t = tokenToSortableBytes(murmur3Token(int32Bytes(k)));
        const hi = t.readInt32BE(0) ^ (0x80000000 | 0);
        const lo = t.readInt32BE(4);
        const ids = twin.filterTree.candidates(hi, lo, out).map((s) => s.id);
        if (!ids.includes(Math.floor(k / ROWS_PER_SEGMENT) + 1)) misses++;
      }
      expect(misses).toBe(0);
      let probes = 0;
      for (let k = 2_000_000; k < 2_010_000; k++) {
        const t = tokenToSortableBytes(murmur3Token(int32Bytes(k)));
        probes += twin.filterTree.candidates(t.readInt32BE(0) ^ (0x80000000 | 0), t.readInt32BE(4), out).length;
      }
      expect(probes / 10_000).toBeLessThan(0.2);

      // Rewrites of rows in every segment (under block filters or not) and deletes: each live copy is marked.
      await write(
        store,
        range(0, segments * ROWS_PER_SEGMENT).filter((k) => k % 3 === 0),
        -1,
      );
      const now = Math.floor(Date.now() / 1000);
      await store.applyMutations(
        range(0, segments).map((s) => ({
          key: int32Bytes(s * ROWS_PER_SEGMENT + 1),
          token: undefined,
          deletion: { ts: ++ts, ldt: now },
        })),
        now,
      );
      check(store);
      store.flushTwin();
      check(store);

      // Compaction takes segments out of blocks (their filters keep stale tokens: false positives only).
      store.compactTwin(true);
      await settle(store);
      check(store);
      await write(
        store,
        range(0, segments * ROWS_PER_SEGMENT).filter((k) => k % 5 === 0),
        -2,
      );
      check(store);

      await store.truncate();
      expect(twin.segmentCount).toBe(0);
      expect(twin.filterTree.blockFilters).toBe(0);
      check(store);
    } finally {
      engine.close();
    }
  });
});
