// The Arrow twin at the storage level: random writes, updates, deletes (row, range, partition), TTLs, truncates,
// flushes and compactions on a real pool; after every turn the twin agrees with the row store (checkTwin: key indexes,
// deletion vectors, buffer, segment values), also after reopening the pool.

import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { native } from '../cql/types/cql-type.js';
import { expiringCell, liveCell, type PartitionUpdate, rowLiveness } from '../storage/mutation.js';
import { StorageEngine } from '../storage/storage-engine.js';
import type { TableStore } from '../storage/table-store.js';
import { SegmentKeyIndex } from '../storage/twin/segment-key-index.js';
import { checkTwin } from '../storage/twin/twin-check.js';
import { startFlush } from '../storage/twin/twin-flush.js';
import { keyIndexKey, segmentBytesKey } from '../storage/twin/twin-keys.js';
import type { TwinSchema } from '../storage/twin/twin-schema.js';
import { seededRandom } from './support/seeded-random.js';
import { comparableInt, twinTestColumns } from './support/twin-test-table.js';
import { doubleBytes, int32Bytes, int64Bytes } from './support/value-bytes.js';

const hasAddon = existsSync(new URL('../native/build/Release/pmemcql_native.node', import.meta.url));
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-twin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Random writes, deletes, TTLs, truncates, flushes, compactions and reopens of one table; checkTwin after each turn. */
async function run(clustered: boolean, seed: number): Promise<void> {
  const path = join(dir, `pool-${clustered ? 'c' : 's'}-${seed}`);
  const opts = { flushRows: 40, flushBytes: 1 << 30, sliceRows: 16, autoFlush: true };
  const schema: TwinSchema = { columns: twinTestColumns(clustered), complexToBytes: () => null };
  let engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  const id = Buffer.alloc(16, clustered ? 1 : 2);
  let store: TableStore = await engine.createTable(id, { clustered });
  const r = seededRandom(seed);
  const pick = (n: number) => Math.floor(r() * n);
  let ts = 1_000_000;
  const now = () => Math.floor(Date.now() / 1000);
  const check = () => {
    const problems = checkTwin(store.twin!, now(), schema);
    expect(problems.slice(0, 5)).toEqual([]);
  };
  for (let turn = 0; turn < 60; turn++) {
    const writes: Promise<void>[] = [];
    const nOps = 1 + pick(12);
    for (let i = 0; i < nOps; i++) {
      const k = pick(30);
      const key = int32Bytes(k);
      const c = pick(5);
      const clustering = clustered ? comparableInt(c) : Buffer.alloc(0);
      const clusteringValues = clustered ? [int32Bytes(c)] : undefined;
      ts += 1 + pick(3);
      const op = r();
      let u: PartitionUpdate;
      const n = now();
      if (op < 0.45) {
        const ttl = r() < 0.15 ? 1 + pick(3) : 0;
        const cell = (col: number, v: Buffer) => (ttl > 0 ? expiringCell(col, ts, ttl, n, v) : liveCell(col, ts, v));
        u = {
          key,
          token: undefined,
          rows: [
            {
              clustering,
              clusteringValues,
              liveness: rowLiveness(ts, ttl, n),
              cells: [
                cell(2, doubleBytes(pick(1000) / 4)),
                cell(3, int64Bytes(pick(1e6))),
                cell(4, Buffer.from(`t${pick(99)}`)),
              ],
            },
          ],
        };
      } else if (op < 0.7) {
        // An UPDATE of one column, sometimes with a TTL (mixed expiries stay in the buffer).
        const ttl = r() < 0.2 ? 1 + pick(3) : 0;
        const v = doubleBytes(pick(1000));
        u = {
          key,
          token: undefined,
          rows: [
            { clustering, clusteringValues, cells: [ttl > 0 ? expiringCell(2, ts, ttl, n, v) : liveCell(2, ts, v)] },
          ],
        };
      } else if (op < 0.82) {
        u = { key, token: undefined, rows: [{ clustering, clusteringValues, deletion: { ts, ldt: n } }] };
      } else if (op < 0.9 || !clustered) {
        u = { key, token: undefined, deletion: { ts, ldt: n } };
      } else {
        const lo = pick(5);
        u = {
          key,
          token: undefined,
          rangeTombstones: [
            {
              start: { prefix: comparableInt(lo), inclusive: true },
              end: { prefix: comparableInt(lo + pick(3)), inclusive: r() < 0.5 },
              deletion: { ts, ldt: n },
            },
          ],
        };
      }
      writes.push(store.applyMutations([u], n));
    }
    if (r() < 0.03) writes.push(store.truncate());
    await Promise.all(writes);
    // Let background flush slices run sometimes; force flushes and compactions at random points.
    if (r() < 0.5) await new Promise((ok) => setImmediate(ok));
    if (r() < 0.15) store.flushTwin();
    if (r() < 0.08) store.compactTwin(r() < 0.5);
    check();
    if (r() < 0.05) {
      engine.close();
      engine = StorageEngine.open({ path, twin: opts });
      engine.setTwinSchemaSource(() => schema);
      store = engine.table(id)!;
      check();
    }
  }
  store.flushTwin();
  check();
  expect(store.twin!.segmentCount).toBeGreaterThan(0);
  if (process.env.TWIN_DEBUG) {
    const segs = store.twin!.segments().map((s) => [s.id, s.record.rows, s.deletions().count()]);
    console.log(clustered, seed, JSON.stringify(segs), store.twin!.bufferRows());
  }
  engine.close();
}

/**
 * Rewrites the twin the way pools written before key indexes and the buffer log held it: a row pointer per live
 * segment row in 'r', no key indexes, one 'b' entry per buffered row.
 */
function toOldLayout(store: TableStore): number {
  const twin = store.twin!;
  const batch = twin.pool.batch();
  batch.clear(twin.handles.buffer);
  for (const e of twin.buffer.sortedView()) {
    batch.put(twin.handles.buffer, Buffer.from(e.key), Buffer.from(e.value));
  }
  let pointers = 0;
  for (const seg of twin.segments()) {
    const index = seg.keyIndex()!;
    for (let i = 0; i < index.count; i++) {
      if (seg.deletions().test(index.rowAt(i))) continue;
      const p = Buffer.allocUnsafe(8);
      p.writeUInt32BE(seg.id, 0);
      p.writeUInt32BE(index.rowAt(i), 4);
      batch.put(twin.handles.pointers, Buffer.from(index.keyAt(i)), p);
      pointers++;
    }
    batch.del(twin.handles.segments, keyIndexKey(seg.id));
  }
  twin.pool.apply(batch);
  return pointers;
}

async function legacyPointers(clustered: boolean): Promise<void> {
  const path = join(dir, `pool-legacy-${clustered ? 'c' : 's'}`);
  const opts = { flushRows: 1000, flushBytes: 1 << 30, sliceRows: 16, autoFlush: false };
  const schema: TwinSchema = { columns: twinTestColumns(clustered), complexToBytes: () => null };
  let engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  const id = Buffer.alloc(16, 3);
  let store = await engine.createTable(id, { clustered });
  let ts = 1_000_000;
  const write = (k: number, x: number) => {
    const rows = [0, 1, 2].map((c) => ({
      clustering: clustered ? comparableInt(c) : Buffer.alloc(0),
      clusteringValues: clustered ? [int32Bytes(c)] : undefined,
      liveness: rowLiveness(++ts, 0, 0),
      cells: [liveCell(2, ts, doubleBytes(x)), liveCell(3, ts, int64Bytes(k)), liveCell(4, ts, Buffer.from(`t${k}`))],
    }));
    return store.applyMutations(
      [{ key: int32Bytes(k), token: undefined, rows: clustered ? rows : rows.slice(0, 1) }],
      0,
    );
  };
  const now = () => Math.floor(Date.now() / 1000);
  for (let k = 0; k < 50; k++) await write(k, k);
  store.flushTwin();
  for (let k = 0; k < 50; k += 3) await write(k, -k); // dead rows in the first segment
  store.flushTwin();
  for (let k = 1; k < 50; k += 5) await write(k, 2 * k); // buffered, not flushed
  expect(checkTwin(store.twin!, now(), schema)).toEqual([]);
  const buffered = store.twin!.bufferRows();
  expect(buffered).toBeGreaterThan(0);
  expect(toOldLayout(store)).toBeGreaterThan(0);
  engine.close();
  engine = StorageEngine.open({ path, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  store = engine.table(id)!;
  expect(store.twin!.pool.count(store.twin!.handles.pointers)).toBe(0);
  expect(checkTwin(store.twin!, now(), schema)).toEqual([]);
  expect(store.twin!.bufferRows()).toBe(buffered);
  expect(store.twin!.buffer.recordCount).toBe(1);
  expect(store.twin!.pool.count(store.twin!.handles.buffer)).toBe(1);
  // The converted indexes find flushed rows: updates and a partition deletion mark them.
  for (let k = 0; k < 50; k += 4) await write(k, 3 * k);
  await store.applyMutations([{ key: int32Bytes(7), token: undefined, deletion: { ts: ++ts, ldt: now() } }], now());
  expect(checkTwin(store.twin!, now(), schema)).toEqual([]);
  store.compactTwin(true);
  expect(checkTwin(store.twin!, now(), schema)).toEqual([]);
  engine.close();
}

/** The twin worker stops pausing between steps once the buffer holds a second flush's rows or bytes. */
async function backlogByRowsAndBytes(): Promise<void> {
  const schema: TwinSchema = { columns: twinTestColumns(false), complexToBytes: () => null };
  for (const by of ['rows', 'bytes'] as const) {
    const path = join(dir, `pool-backlog-${by}`);
    const opts = {
      flushRows: by === 'rows' ? 40 : 1 << 30,
      flushBytes: by === 'bytes' ? 4000 : 1 << 30,
      autoFlush: false,
    };
    const engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: opts });
    engine.setTwinSchemaSource(() => schema);
    const store = await engine.createTable(Buffer.alloc(16, 9), { clustered: false });
    let ts = 1;
    let k = 0;
    const write = () =>
      store.applyMutations(
        [
          {
            key: int32Bytes(k++),
            token: undefined,
            rows: [
              {
                clustering: Buffer.alloc(0),
                liveness: rowLiveness(++ts, 0, 0),
                cells: [liveCell(2, ts, doubleBytes(k))],
              },
            ],
          },
        ],
        0,
      );
    const twin = store.twin!;
    while (!twin.overThreshold()) await write();
    expect(twin.backlogged(), `${by}: one flush's worth is not a backlog`).toBe(false);
    while (!twin.backlogged() && k < 5000) await write();
    expect(twin.backlogged(), `${by}: two flushes' worth`).toBe(true);
    if (by === 'rows') expect(k).toBe(80);
    else expect(twin.bytesSinceFlush).toBeGreaterThanOrEqual(8000);
    store.flushTwin();
    expect(twin.backlogged(), `${by}: flushed`).toBe(false);
    engine.close();
  }
}

/**
 * Two partitions with one token and keys of different lengths: the buffer orders them by key length first, the
 * row store (and so the segment) bytewise. The flush must notice and sort.
 */
async function sameTokenPartitions(): Promise<void> {
  const path = join(dir, 'pool-same-token');
  const schema: TwinSchema = {
    columns: [
      { name: 'k', id: 0, kind: 'partition_key', type: native('blob'), position: 0 },
      { name: 'x', id: 2, kind: 'regular', type: native('double'), position: -1 },
    ],
    complexToBytes: () => null,
  };
  const engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: { autoFlush: false } });
  engine.setTwinSchemaSource(() => schema);
  const store = await engine.createTable(Buffer.alloc(16, 4), { clustered: false });
  const now = Math.floor(Date.now() / 1000);
  const keys = [Buffer.from([5]), Buffer.from([1, 0]), Buffer.from([9, 9, 9]), Buffer.from([0, 0, 0, 0])];
  // 64 ordinary rows, so the flush is well into streaming when it meets the pair.
  for (let k = 0; k < 64; k++) keys.push(Buffer.from(`row-${k}`));
  let ts = 1;
  for (const [i, key] of keys.entries()) {
    const token = i < 4 ? 42n : undefined;
    await store.applyMutations(
      [
        {
          key,
          token,
          rows: [
            {
              clustering: Buffer.alloc(0),
              liveness: rowLiveness(++ts, 0, now),
              cells: [liveCell(2, ts, doubleBytes(i))],
            },
          ],
        },
      ],
      now,
    );
  }
  store.flushTwin();
  expect(checkTwin(store.twin!, now, schema)).toEqual([]);
  const seg = store.twin!.segments()[0]!;
  expect(seg.record.rows).toBe(keys.length);
  const data = seg.open().batch!.data.children;
  const tokens = data[0]!.values as BigInt64Array;
  const pks: string[] = [];
  for (let i = 0; i < seg.record.rows; i++) {
    if (tokens[i] === 42n) {
      const off = data[1]!.valueOffsets as Int32Array;
      pks.push(Buffer.from((data[1]!.values as Uint8Array).subarray(off[i]!, off[i + 1]!)).toString('hex'));
    }
    if (i > 0) expect(tokens[i - 1]! <= tokens[i]!).toBe(true);
  }
  expect(pks).toEqual(['00000000', '0100', '05', '090909']);
  engine.close();
}

/** After a reopen, segments are read in place from the mapped pool: opening them adds no array buffers. */
async function zeroCopyAfterReopen(): Promise<void> {
  const path = join(dir, 'zero-copy.pool');
  const schema: TwinSchema = {
    columns: [
      { name: 'k', id: 0, kind: 'partition_key', type: native('blob'), position: 0 },
      { name: 'x', id: 2, kind: 'regular', type: native('blob'), position: -1 },
    ],
    complexToBytes: () => null,
  };
  const opts = { autoFlush: false };
  let engine = StorageEngine.open({ path, size: 128 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  const id = Buffer.alloc(16, 5);
  let store = await engine.createTable(id, { clustered: false });
  const now = Math.floor(Date.now() / 1000);
  const value = Buffer.alloc(4096, 7);
  const writes = Array.from({ length: 4000 }, (_, i) =>
    store.applyMutations(
      [
        {
          key: Buffer.from(`key-${i}`),
          rows: [
            { clustering: Buffer.alloc(0), liveness: rowLiveness(i + 1, 0, now), cells: [liveCell(2, i + 1, value)] },
          ],
        },
      ],
      now,
    ),
  );
  await Promise.all(writes);
  store.flushTwin();
  engine.close();
  engine = StorageEngine.open({ path, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  store = engine.table(id)!;
  const segments = store.twin!.segments();
  const bytes = segments.reduce((n, s) => n + s.record.size, 0);
  expect(bytes).toBeGreaterThan(15 * 1024 * 1024);
  const before = process.memoryUsage().arrayBuffers;
  const opened = segments.map((s) => s.open());
  expect(opened.every((o) => o.zeroCopy)).toBe(true);
  // 15 MiB of segments would show up as array buffers if they were copied out of the pool.
  expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(2 * 1024 * 1024);
  expect(checkTwin(store.twin!, now, schema)).toEqual([]);
  opened.length = 0;
  engine.close();
}

/** Writes row k of an unclustered test table (x in its double column), one batch a call, timestamps increasing. */
function unclusteredWriter(store: () => TableStore, now: number): (k: number, x: number) => Promise<void> {
  let ts = 1;
  return (k, x) =>
    store().applyMutations(
      [
        {
          key: int32Bytes(k),
          token: undefined,
          rows: [
            {
              clustering: Buffer.alloc(0),
              liveness: rowLiveness(++ts, 0, now),
              cells: [
                liveCell(2, ts, doubleBytes(x)),
                liveCell(3, ts, int64Bytes(k)),
                liveCell(4, ts, Buffer.from(`t${k}`)),
              ],
            },
          ],
        },
      ],
      now,
    );
}

/**
 * A crash between the flush's staging transaction (segment bytes and key index under the next id) and its commit:
 * the pool copied at that moment holds unused bytes and no new segment; the twin there is consistent, and its next
 * flush takes the same id and overwrites them. A cancelled flush removes what it staged.
 */
async function crashBetweenStageAndCommit(): Promise<void> {
  const path = join(dir, 'pool-staged');
  const crashed = join(dir, 'pool-staged-crashed');
  const schema: TwinSchema = { columns: twinTestColumns(false), complexToBytes: () => null };
  const opts = { autoFlush: false, sliceRows: 16 };
  let engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  const id = Buffer.alloc(16, 6);
  let store = await engine.createTable(id, { clustered: false });
  const now = Math.floor(Date.now() / 1000);
  const write = unclusteredWriter(() => store, now);
  for (let k = 0; k < 300; k++) await write(k, k);
  store.flushTwin();
  for (let k = 300; k < 700; k++) await write(k, k);
  const twin = store.twin!;
  const f = startFlush(twin)!;
  while (f.currentPhase !== 'commit') f.step(16);
  // Rows rewritten after the flush read them: their copies in the new segment must be born deleted.
  for (let k = 400; k < 420; k++) await write(k, -k);
  const staged = twin.pendingSegmentId();
  expect(twin.pool.get(twin.handles.segments, segmentBytesKey(staged))).toBeDefined();
  copyFileSync(path, crashed);
  f.cancel();
  expect(twin.pool.get(twin.handles.segments, segmentBytesKey(staged))).toBeUndefined();
  expect(twin.pool.get(twin.handles.segments, keyIndexKey(staged))).toBeUndefined();
  engine.close();

  engine = StorageEngine.open({ path: crashed, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  store = engine.table(id)!;
  const t2 = store.twin!;
  expect(t2.segmentCount).toBe(1);
  expect(t2.pendingSegmentId()).toBe(staged);
  expect(t2.pool.get(t2.handles.segments, segmentBytesKey(staged))).toBeDefined();
  expect(checkTwin(t2, now, schema)).toEqual([]);
  expect(t2.bufferRows()).toBe(400);
  // The interrupted flush again, this time to its end; then rows it flushed are rewritten.
  const again = startFlush(t2)!;
  while (!again.step(16)) {
    if (again.currentPhase === 'commit') for (let k = 500; k < 510; k++) await write(k, -k);
  }
  expect(again.result!.segment!.id).toBe(staged);
  // The new segment's key index came from the flush's writer: it answers like the one decoded from the pool.
  const fromFlush = t2.segment(staged)!.keyIndex()!;
  const decoded = SegmentKeyIndex.decode(t2.pool.get(t2.handles.segments, keyIndexKey(staged))!);
  expect(fromFlush.count).toBe(decoded.count);
  for (let i = 0; i < decoded.count; i++) {
    expect(fromFlush.rowOf(Buffer.from(decoded.keyAt(i)))).toBe(decoded.rowAt(i));
  }
  expect(t2.segment(staged)!.deletions().count()).toBe(10);
  for (let k = 600; k < 610; k++) await write(k, 2 * k);
  expect(checkTwin(t2, now, schema)).toEqual([]);
  expect(t2.segment(staged)!.deletions().count()).toBe(20);
  // The buffer map holds the marker of consumed records and the records still buffered, nothing the flush read.
  expect(t2.pool.count(t2.handles.buffer)).toBe(t2.buffer.recordCount + 1);

  // A crash after a commit, before its consumed records are deleted: they are skipped when the log is replayed,
  // and the next flush deletes them.
  for (let k = 700; k < 800; k++) await write(k, k);
  const third = startFlush(t2)!;
  while (third.currentPhase !== 'reclaim') third.step(16);
  const crashedAgain = join(dir, 'pool-staged-crashed-2');
  copyFileSync(crashed, crashedAgain);
  while (!third.step(16)) {}
  engine.close();
  engine = StorageEngine.open({ path: crashedAgain, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  store = engine.table(id)!;
  const t3 = store.twin!;
  expect(checkTwin(t3, now, schema)).toEqual([]);
  expect(t3.bufferRows()).toBe(0);
  expect(t3.pool.count(t3.handles.buffer)).toBeGreaterThan(t3.buffer.recordCount + 1);
  await write(5, 55);
  t3.buffer.load();
  store.flushTwin();
  expect(t3.pool.count(t3.handles.buffer)).toBe(t3.buffer.recordCount + 1);
  expect(checkTwin(t3, now, schema)).toEqual([]);
  engine.close();
}

/**
 * One record per batch, kept in memory as runs of records lying back to back: a flush's boundary (its snapshot, the
 * rewritten-row check) ends a run, so writes during a flush are neither flushed nor lost, and reclaiming the
 * consumed runs deletes every record they hold.
 */
async function recordRuns(): Promise<void> {
  const path = join(dir, 'pool-runs');
  const opts = { flushRows: 1 << 20, flushBytes: 1 << 30, sliceRows: 16, autoFlush: false };
  const schema: TwinSchema = { columns: twinTestColumns(false), complexToBytes: () => null };
  let engine = StorageEngine.open({ path, size: 64 * 1024 * 1024, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  const id = Buffer.alloc(16, 7);
  let store = await engine.createTable(id, { clustered: false });
  const now = Math.floor(Date.now() / 1000);
  const write = unclusteredWriter(() => store, now);
  for (let k = 0; k < 300; k++) await write(k, k);
  const twin = store.twin!;
  expect(twin.buffer.recordCount).toBe(300);
  expect(twin.pool.count(twin.handles.buffer)).toBe(300);
  // 300 records of ~60 bytes: a few runs (one per arena slab), not 300.
  expect(twin.buffer.runCount).toBeLessThan(10);
  const f = startFlush(twin)!;
  let k = 300;
  while (!f.step(8)) {
    // New rows and rewrites of rows the flush read, between its steps.
    await write(k, k);
    if (k < 600) await write(k - 300, -1);
    k++;
  }
  const written = k - 300;
  const rewritten = Math.min(written, 300);
  expect(written).toBeGreaterThan(5);
  expect(checkTwin(twin, now, schema)).toEqual([]);
  // The flush took its 300 rows, not one written after it started; the rewritten ones are deleted in the segment.
  expect(f.result!.segment!.rows).toBe(300);
  expect(twin.segment(f.result!.segment!.id)!.deletions().count()).toBe(rewritten);
  expect(twin.bufferRows()).toBe(written + rewritten);
  expect(twin.buffer.recordCount).toBe(written + rewritten);
  expect(twin.pool.count(twin.handles.buffer)).toBe(written + rewritten + 1);
  engine.close();
  engine = StorageEngine.open({ path, twin: opts });
  engine.setTwinSchemaSource(() => schema);
  store = engine.table(id)!;
  expect(checkTwin(store.twin!, now, schema)).toEqual([]);
  expect(store.twin!.bufferRows()).toBe(written + rewritten);
  engine.close();
}

describe.skipIf(!hasAddon)('Arrow twin in storage', () => {
  it('records written back to back are kept as runs, split where a flush starts and checks', recordRuns);
  it('rows of two partitions with one token are flushed in the row store order', sameTokenPartitions);
  it('a buffer holding a second flush of rows or bytes is a backlog (the worker runs flat out)', backlogByRowsAndBytes);
  it('segments are read in place from the pool after a reopen (no copy)', zeroCopyAfterReopen);
  it("a crash between a flush's staged bytes and its commit leaves a consistent twin", crashBetweenStageAndCommit);

  it('an old twin (row pointers, a buffer entry per row) is converted on open', async () => {
    await legacyPointers(false);
    await legacyPointers(true);
  });
  for (const seed of [1, 2, 3]) {
    it(`table without clustering columns agrees with the row store (seed ${seed})`, () => run(false, seed));
    it(`clustered table agrees with the row store (seed ${seed})`, () => run(true, seed));
  }
});
