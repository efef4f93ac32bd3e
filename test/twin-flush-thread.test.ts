// The flush thread (storage/twin/flush-thread.ts): segments assembled there are byte for byte the segments the
// event loop assembles, background flushes wait for it without blocking, a flush cancelled while the thread works
// leaves nothing behind, and tables with multi-cell columns stay on the event loop.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { native } from '../cql/types/cql-type.js';
import type { TwinColumn } from '../storage/arrow/arrow-schema.js';
import { expiringCell, liveCell, type PartitionUpdate, rowLiveness } from '../storage/mutation.js';
import { StorageEngine } from '../storage/storage-engine.js';
import type { TableStore } from '../storage/table-store.js';
import { FlushThreadClient } from '../storage/twin/flush-thread-client.js';
import { RecordArena, SlabNames, slabIdOf } from '../storage/twin/record-arena.js';
import { checkTwin } from '../storage/twin/twin-check.js';
import { startFlush } from '../storage/twin/twin-flush.js';
import { keyIndexKey, segmentBytesKey } from '../storage/twin/twin-keys.js';
import type { TwinOptions, TwinSchema } from '../storage/twin/twin-schema.js';
import { seededRandom } from './support/seeded-random.js';
import { comparableInt, twinTestColumns } from './support/twin-test-table.js';
import { doubleBytes, int32Bytes, int64Bytes } from './support/value-bytes.js';

const hasAddon = existsSync(new URL('../native/build/Release/pmemcql_native.node', import.meta.url));
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-flush-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes the same pseudo-random rows (inserts, TTLs — some mixed —, row and partition deletions) to `store`. */
async function writeRows(store: TableStore, clustered: boolean, n: number, seed: number): Promise<void> {
  const r = seededRandom(seed);
  const pick = (m: number) => Math.floor(r() * m);
  const now = Math.floor(Date.now() / 1000);
  let ts = 1_000_000;
  for (let i = 0; i < n; i++) {
    const k = pick(n);
    const c = pick(4);
    const clustering = clustered ? comparableInt(c) : Buffer.alloc(0);
    const clusteringValues = clustered ? [int32Bytes(c)] : undefined;
    ts++;
    const op = r();
    let u: PartitionUpdate;
    if (op < 0.75) {
      const ttl = r() < 0.1 ? 3600 : 0;
      // Now and then one cell expires on its own: the row stays in the buffer.
      const mixed = r() < 0.05;
      u = {
        key: int32Bytes(k),
        token: undefined,
        rows: [
          {
            clustering,
            clusteringValues,
            liveness: rowLiveness(ts, ttl, now),
            cells: [
              mixed ? expiringCell(2, ts, 7200, now, doubleBytes(k / 4)) : liveCell(2, ts, doubleBytes(k / 4)),
              liveCell(3, ts, int64Bytes(k * 3)),
              liveCell(4, ts, Buffer.from(`text ${k} ${'z'.repeat(pick(40))}`)),
            ],
          },
        ],
      };
    } else if (op < 0.9) {
      u = {
        key: int32Bytes(k),
        token: undefined,
        rows: [{ clustering, clusteringValues, deletion: { ts, ldt: now } }],
      };
    } else {
      u = { key: int32Bytes(k), token: undefined, deletion: { ts, ldt: now } };
    }
    await store.applyMutations([u], now);
  }
}

async function open(name: string, schema: TwinSchema, twin: Partial<TwinOptions>, clustered: boolean) {
  const engine = StorageEngine.open({ path: join(dir, name), size: 64 * 1024 * 1024, twin });
  engine.setTwinSchemaSource(() => schema);
  const store = await engine.createTable(Buffer.alloc(16, 3), { clustered });
  return { engine, store };
}

/** A table of `rows` written rows whose flush has been stepped until the segment is the thread's to assemble. */
async function flushUnderWay(name: string, clustered: boolean, sliceRows: number, rows: number, seed: number) {
  const schema: TwinSchema = { columns: twinTestColumns(clustered), complexToBytes: () => null };
  const options = { flushRows: 1 << 20, sliceRows, autoFlush: false };
  const { engine, store } = await open(name, schema, options, clustered);
  await writeRows(store, clustered, rows, seed);
  const twin = store.twin!;
  const f = startFlush(twin)!;
  while (f.currentPhase !== 'assemble') f.step(sliceRows);
  return { engine, store, twin, schema, f };
}

describe.skipIf(!hasAddon)('flush thread', () => {
  for (const clustered of [false, true]) {
    it(`assembles the same segment bytes as the event loop (${clustered ? 'clustered' : 'single-row partitions'})`, async () => {
      const schema: TwinSchema = { columns: twinTestColumns(clustered), complexToBytes: () => null };
      const base = { flushRows: 1 << 20, flushBytes: 1 << 30, sliceRows: 64, autoFlush: false };
      const a = await open(`same-${clustered}-thread`, schema, { ...base, flushThread: true }, clustered);
      const b = await open(`same-${clustered}-inline`, schema, { ...base, flushThread: false }, clustered);
      await writeRows(a.store, clustered, 3000, 7);
      await writeRows(b.store, clustered, 3000, 7);
      const ra = a.store.flushTwin()!;
      const rb = b.store.flushTwin()!;
      expect(ra.thread).toBe(true);
      expect(rb.thread).toBe(false);
      expect(ra.segment!.rows).toBeGreaterThan(1000);
      expect({ ...ra.segment, ts: 0 }).toEqual({ ...rb.segment, ts: 0 });
      expect([ra.removed, ra.kept]).toEqual([rb.removed, rb.kept]);
      expect(ra.kept).toBeGreaterThan(0); // the mixed-expiry rows
      // The Arrow IPC file and the key index, byte for byte.
      const id = ra.segment!.id;
      const ta = a.store.twin!;
      const tb = b.store.twin!;
      expect(
        Buffer.compare(
          ta.pool.get(ta.handles.segments, segmentBytesKey(id))!,
          tb.pool.get(tb.handles.segments, segmentBytesKey(id))!,
        ),
      ).toBe(0);
      expect(
        Buffer.compare(
          ta.pool.get(ta.handles.segments, keyIndexKey(id))!,
          tb.pool.get(tb.handles.segments, keyIndexKey(id))!,
        ),
      ).toBe(0);
      const now = Math.floor(Date.now() / 1000);
      expect(checkTwin(ta, now, schema)).toEqual([]);
      expect(checkTwin(tb, now, schema)).toEqual([]);
      a.engine.close();
      b.engine.close();
    });
  }

  it('background flushes wait for the thread without holding the event loop, rows rewritten meanwhile are born deleted', async () => {
    const { engine, store, twin, schema, f } = await flushUnderWay('background', false, 256, 4000, 11);
    expect(f.waiting).toBe(true);
    // While the thread assembles, the event loop takes writes; some rewrite flushed rows.
    let turns = 0;
    const now = Math.floor(Date.now() / 1000);
    while (!f.step(256)) {
      turns++;
      await store.applyMutations(
        [
          {
            key: int32Bytes(turns % 4000),
            token: undefined,
            rows: [
              {
                clustering: Buffer.alloc(0),
                liveness: rowLiveness(10_000_000 + turns, 0, now),
                cells: [liveCell(2, 10_000_000 + turns, doubleBytes(-1))],
              },
            ],
          },
        ],
        now,
      );
      await new Promise((ok) => setTimeout(ok, 1));
    }
    expect(f.result!.thread).toBe(true);
    expect(turns).toBeGreaterThan(0);
    expect(checkTwin(twin, now, schema)).toEqual([]);
    engine.close();
  });

  it('a flush cancelled while the thread works leaves no staged bytes and the next flush completes', async () => {
    const { engine, store, twin, schema, f } = await flushUnderWay('cancel', true, 128, 3000, 13);
    f.cancel();
    expect(f.result!.segment).toBeUndefined();
    expect(twin.flushing).toBeUndefined();
    const staged = twin.pendingSegmentId();
    expect(twin.pool.get(twin.handles.segments, segmentBytesKey(staged))).toBeUndefined();
    // A reader built the buffer's view meanwhile: the flush takes it instead of having the thread sort.
    expect(twin.bufferRows()).toBeGreaterThan(0);
    const again = store.flushTwin()!;
    expect(again.thread).toBe(true);
    expect(again.segment!.id).toBe(staged);
    expect(checkTwin(twin, Math.floor(Date.now() / 1000), schema)).toEqual([]);
    engine.close();
  });

  it('a flush thread that dies fails the flush under way; the next flush starts another thread and completes', async () => {
    const { engine, store, twin, schema, f } = await flushUnderWay('dies', false, 256, 3000, 19);
    const thread = FlushThreadClient.shared()!;
    await (thread as unknown as { worker: Worker }).worker.terminate();
    expect(thread.dead).toBe(true);
    expect(() => {
      while (!f.step(256)) {}
    }).toThrow(/flush thread/);
    f.cancel();
    expect(twin.flushing).toBeUndefined();
    const again = store.flushTwin()!;
    expect(again.thread).toBe(true);
    expect(FlushThreadClient.shared()).not.toBe(thread);
    expect(again.segment!.rows).toBeGreaterThan(1000);
    expect(checkTwin(twin, Math.floor(Date.now() / 1000), schema)).toEqual([]);
    engine.close();
  });

  it('keys of 50 to 140 bytes are all in the key index', async () => {
    const columns: TwinColumn[] = [
      { name: 'k', id: 0, kind: 'partition_key', type: native('text'), position: 0 },
      { name: 'x', id: 2, kind: 'regular', type: native('double'), position: -1 },
    ];
    const schema: TwinSchema = { columns, complexToBytes: () => null };
    const { engine, store } = await open('long-keys', schema, { flushRows: 1 << 20, autoFlush: false }, false);
    const now = Math.floor(Date.now() / 1000);
    const keyOf = (i: number) => Buffer.from(`${'k'.repeat(40 + (i % 90))}-${i}`);
    for (let i = 0; i < 2000; i++) {
      const ts = 1000 + i;
      await store.applyMutations(
        [
          {
            key: keyOf(i),
            token: undefined,
            rows: [
              {
                clustering: Buffer.alloc(0),
                liveness: rowLiveness(ts, 0, now),
                cells: [liveCell(2, ts, doubleBytes(i))],
              },
            ],
          },
        ],
        now,
      );
    }
    const r = store.flushTwin()!;
    expect(r.thread).toBe(true);
    expect(r.segment!.rows).toBe(2000);
    const twin = store.twin!;
    // Every row found through the key index (checkTwin looks each live row up), the index sorted.
    expect(checkTwin(twin, now, schema)).toEqual([]);
    const index = twin.segments()[0]!.keyIndex()!;
    expect(index.count).toBe(2000);
    engine.close();
  });

  it('a table with a multi-cell column is assembled on the event loop (its values need the schema layer)', async () => {
    const set: TwinColumn = {
      name: 's',
      id: 5,
      kind: 'regular',
      type: { kind: 'set', element: native('int'), frozen: false },
      position: -1,
    };
    const schema: TwinSchema = { columns: twinTestColumns(false, [set]), complexToBytes: () => null };
    const { engine, store } = await open('multi-cell', schema, { flushRows: 1 << 20, autoFlush: false }, false);
    await writeRows(store, false, 500, 17);
    const r = store.flushTwin()!;
    expect(r.thread).toBe(false);
    expect(r.segment!.rows).toBeGreaterThan(100);
    expect(checkTwin(store.twin!, Math.floor(Date.now() / 1000), schema)).toEqual([]);
    engine.close();
  });
});

describe('record arena', () => {
  it('keeps each buffer in slabs of its own, growing from 4 KiB, a large record alone, records back to back', () => {
    const a = new RecordArena();
    const b = new RecordArena();
    const rec = (n: number, v: number) => Buffer.alloc(n, v);
    const ra = a.copy(rec(100, 1));
    const rb = b.copy(rec(100, 2));
    expect(slabIdOf(ra)).not.toBe(0);
    expect(slabIdOf(ra)).not.toBe(slabIdOf(rb));
    expect(ra.buffer.byteLength).toBe(4096);
    const more = Array.from({ length: 60 }, (_, i) => a.copy(rec(101, i)));
    // The 40th record of 101 bytes no longer fits the first 4 KiB slab; the next slab is 8 KiB.
    expect(new Set(more.map(slabIdOf)).size).toBe(2);
    expect(slabIdOf(more[38]!)).toBe(slabIdOf(ra));
    expect(slabIdOf(more[39]!)).not.toBe(slabIdOf(ra));
    expect(more.at(-1)!.buffer.byteLength).toBe(8192);
    // No padding: a slab's records lie back to back (the twin buffer keeps such a run as one record).
    expect(more[0]!.byteOffset).toBe(100);
    for (let i = 1; i < more.length; i++) {
      if (slabIdOf(more[i]!) === slabIdOf(more[i - 1]!)) {
        expect(more[i]!.byteOffset).toBe(more[i - 1]!.byteOffset + 101);
      }
    }
    expect(more.map((r) => r[0])).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(ra.equals(rec(100, 1))).toBe(true);
    const big = a.copy(rec(50_000, 9), 10, 40_010);
    expect(big.length).toBe(40_000);
    expect(big.buffer.byteLength).toBe(40_000);
    // The current slab stays current after a record of its own.
    expect(slabIdOf(a.copy(rec(10, 3)))).toBe(slabIdOf(more.at(-1)!));
    // Naming slabs for the flush thread: each once, and a buffer outside the arena every time it is met.
    const names = new SlabNames();
    expect([ra, more[0]!, more.at(-1)!, more[1]!, big].map((r) => names.name(r))).toEqual(
      [ra, more[0]!, more.at(-1)!, more[1]!, big].map(slabIdOf),
    );
    expect(names.take().map(([id]) => id)).toEqual([slabIdOf(ra), slabIdOf(more.at(-1)!), slabIdOf(big)]);
    expect(names.take()).toEqual([]);
    expect(() => names.name(rec(8, 0))).toThrow(/outside the record arena/);
    expect(() => names.name(rec(8, 0))).toThrow(/outside the record arena/);
  });
});
