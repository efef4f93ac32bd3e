// The native pool (native/ + storage/native-binding.ts) on real pool files: the ordered map
// against a sorted-array model, batches, limits, layout checks, reopen and crash safety.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openPool } from '../storage/native-binding.js';
import { type NativePool, PoolError } from '../storage/native-pool.js';
import { runUntilKilled, writeBindingModules } from './support/killed-child.js';

// tmpfs keeps the many small transactions cheap in 'disk' mode too (the journal's syncs are free there).
const base = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'pmemcql-native-'));
let seq = 0;
const poolPath = () => join(base, `p${seq++}.pool`);
const MiB = 1024 * 1024;

function existsShm(): boolean {
  try {
    return spawnSync('test', ['-d', '/dev/shm', '-a', '-w', '/dev/shm']).status === 0;
  } catch {
    return false;
  }
}

afterAll(() => rmSync(base, { recursive: true, force: true }));

const b = (s: string) => Buffer.from(s);

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PoolError);
    return (e as PoolError).code;
  }
  return undefined;
}

function putAll(pool: NativePool, map: number, entries: [Buffer, Buffer][]): void {
  const batch = pool.batch();
  for (const [k, v] of entries) batch.put(map, k, v);
  pool.apply(batch);
}

const cmp = (x: Buffer, y: Buffer) => Buffer.compare(x, y);

interface Bounds {
  start?: Buffer;
  startInclusive?: boolean;
  end?: Buffer;
  endInclusive?: boolean;
  reverse?: boolean;
  limit?: number;
}

/** The scan contract evaluated on a sorted array. */
function modelScan(sorted: [Buffer, Buffer][], o: Bounds): [Buffer, Buffer][] {
  let out = sorted.filter(([k]) => {
    if (o.start) {
      const c = cmp(k, o.start);
      if (c < 0 || (c === 0 && o.startInclusive === false)) return false;
    }
    if (o.end) {
      const c = cmp(k, o.end);
      if (c > 0 || (c === 0 && o.endInclusive === false)) return false;
    }
    return true;
  });
  if (o.reverse) out = out.reverse();
  return o.limit === undefined ? out : out.slice(0, o.limit);
}

function sortedModel(model: Map<string, Buffer>): [Buffer, Buffer][] {
  return [...model.entries()]
    .map(([k, v]) => [Buffer.from(k, 'hex'), v] as [Buffer, Buffer])
    .sort((x, y) => cmp(x[0], y[0]));
}

function expectScan(pool: NativePool, map: number, sorted: [Buffer, Buffer][], o: Bounds): void {
  const got = pool.scan(map, o);
  const want = modelScan(sorted, o);
  expect(got.keys.map((k) => k.toString('hex'))).toEqual(want.map(([k]) => k.toString('hex')));
  expect(got.values.map((v) => v?.toString('hex'))).toEqual(want.map(([, v]) => v.toString('hex')));
}

describe('native pool: basics', () => {
  it('puts, gets, replaces and deletes values; counts in O(1)', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    expect(['disk', 'emulated', 'pmem']).toContain(pool.info.mode);
    const root = pool.root;
    expect(pool.get(root, b('a'))).toBeUndefined();
    pool.apply(pool.batch().put(root, b('a'), b('1')).put(root, b('b'), b('2')).put(root, b(''), b('empty key')));
    expect(pool.get(root, b('a'))?.toString()).toBe('1');
    expect(pool.get(root, b(''))?.toString()).toBe('empty key');
    expect(pool.count(root)).toBe(3);
    // Replace with a same-size value (in place), a longer one (new blob), and an empty one.
    pool.apply(pool.batch().put(root, b('a'), b('x')));
    expect(pool.get(root, b('a'))?.toString()).toBe('x');
    pool.apply(pool.batch().put(root, b('a'), Buffer.alloc(500, 7)));
    expect(pool.get(root, b('a'))).toEqual(Buffer.alloc(500, 7));
    pool.apply(pool.batch().put(root, b('a'), Buffer.alloc(0)));
    expect(pool.get(root, b('a'))).toEqual(Buffer.alloc(0));
    pool.apply(pool.batch().del(root, b('a')).del(root, b('missing')));
    expect(pool.get(root, b('a'))).toBeUndefined();
    expect(pool.count(root)).toBe(2);
    expect(pool.info.used).toBeGreaterThan(0);
    pool.close();
    expect(codeOf(() => pool.get(root, b('b')))).toBe('POOL_CLOSED');
  });

  it('returns values larger than the internal scratch buffer', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = i % 251;
    pool.apply(pool.batch().put(pool.root, b('big'), big));
    // Buffer.equals: a deep toEqual over 300 k bytes takes seconds.
    expect(pool.get(pool.root, b('big'))?.equals(big)).toBe(true);
    expect(pool.scan(pool.root).values[0]?.equals(big)).toBe(true);
    pool.close();
  });

  it('hands out independent value buffers across many gets, small and large', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    const sizes = [0, 1, 7, 100, 1000, 4095, 4096, 4097, 9000];
    const batch = pool.batch();
    for (let i = 0; i < 3000; i++) batch.put(pool.root, b(`k${i}`), Buffer.alloc(sizes[i % sizes.length]!, i & 255));
    pool.apply(batch);
    const got: Buffer[] = [];
    const firstScan = pool.scan(pool.root, { limit: 20 });
    const firstScanCopy = firstScan.values.map((v) => Buffer.from(v!));
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3000; i++) {
        got.push(pool.get(pool.root, b(`k${i}`))!);
        if (i % 100 === 0) pool.scan(pool.root, { start: b(`k${i}`), limit: 30 });
      }
    }
    // Overwrite everything; earlier results must not change.
    const batch2 = pool.batch();
    for (let i = 0; i < 3000; i++)
      batch2.put(pool.root, b(`k${i}`), Buffer.alloc(sizes[i % sizes.length]!, 255 - (i & 255)));
    pool.apply(batch2);
    for (let j = 0; j < got.length; j++) {
      const i = j % 3000;
      expect(got[j]!.equals(Buffer.alloc(sizes[i % sizes.length]!, i & 255))).toBe(true);
    }
    expect(firstScan.values.map((v) => Buffer.from(v!))).toEqual(firstScanCopy);
    pool.close();
  });

  it('getMany answers thousands of keys across value blocks: small, large, absent and child entries', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    const sizes = [0, 1, 7, 100, 1000, 4095, 4096, 4097, 9000];
    const batch = pool.batch();
    for (let i = 0; i < 3000; i++) batch.put(pool.root, b(`k${i}`), Buffer.alloc(sizes[i % sizes.length]!, i & 255));
    batch.ensureChild(pool.root, b('child'));
    pool.apply(batch);
    const keys: Buffer[] = [];
    for (let i = 2999; i >= 0; i--) keys.push(b(`k${i}`), b(`missing${i}`));
    keys.push(b('child'));
    const got = pool.getMany(pool.root, keys);
    for (let j = 0; j < 6000; j += 2) {
      const i = 2999 - j / 2;
      expect(got[j]?.equals(Buffer.alloc(sizes[i % sizes.length]!, i & 255))).toBe(true);
      expect(got[j + 1]).toBeUndefined();
    }
    expect(got[6000]).toBeUndefined();
    // getManyEach visits the same values in place, in key order, -1 for absent keys and child maps.
    const seen: (Buffer | undefined)[] = [];
    pool.getManyEach(pool.root, keys, (i, bytes, offset, length) => {
      expect(i).toBe(seen.length);
      seen.push(length < 0 ? undefined : Buffer.from(bytes.subarray(offset, offset + length)));
    });
    expect(seen).toEqual(got);
    // The results stay valid after later reads and writes.
    pool.getMany(pool.root, keys.slice(0, 500));
    const batch2 = pool.batch();
    for (let i = 0; i < 3000; i++) batch2.put(pool.root, b(`k${i}`), Buffer.alloc(3, 1));
    pool.apply(batch2);
    expect(got[0]?.equals(Buffer.alloc(sizes[2999 % sizes.length]!, 2999 & 255))).toBe(true);
    expect(pool.getMany(pool.root, [])).toEqual([]);
    pool.close();
  });

  it('views a value in place: same bytes as get, no copy into process memory', () => {
    const pool = openPool({ path: poolPath(), size: 64 * MiB });
    const big = Buffer.alloc(8 * MiB);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i >> 12) & 255;
    const child = pool.batch();
    const ref = child.ensureChild(pool.root, b('child'));
    child.put(ref, b('x'), b('y'));
    pool.apply(child.put(pool.root, b('big'), big).put(pool.root, b('small'), b('abc')));
    expect(pool.view(pool.root, b('small'))?.toString()).toBe('abc');
    expect(pool.view(pool.root, b('absent'))).toBeUndefined();
    expect(pool.view(pool.root, b('child'))).toBeUndefined();
    const before = process.memoryUsage().arrayBuffers;
    const views = Array.from({ length: 40 }, () => pool.view(pool.root, b('big'))!);
    // 40 copies would be 320 MiB of array buffers; views add none.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * MiB);
    expect(views.every((v) => v.length === big.length)).toBe(true);
    expect(views[39]!.equals(big)).toBe(true);
    expect(views[0]!.equals(pool.get(pool.root, b('big'))!)).toBe(true);
    views.length = 0;
    pool.close();
  });
  it('reserves a value, then fills it in slices: same bytes as a put, across reopen; refuses bad fills', () => {
    const path = poolPath();
    let pool = openPool({ path, size: 64 * MiB });
    const big = Buffer.alloc(3 * MiB + 12345);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 9)) & 255;
    pool.apply(pool.batch().reserve(pool.root, b('seg'), big.length).put(pool.root, b('small'), b('abc')));
    expect(pool.get(pool.root, b('seg'))?.length).toBe(big.length);
    const slice = 512 * 1024;
    for (let at = 0; at < big.length; at += slice) pool.fill(pool.root, b('seg'), at, big.subarray(at, at + slice));
    expect(pool.get(pool.root, b('seg'))!.equals(big)).toBe(true);
    // Bad fills change nothing.
    expect(codeOf(() => pool.fill(pool.root, b('seg'), big.length - 1, b('xy')))).toBe('BAD_ARGUMENT');
    expect(codeOf(() => pool.fill(pool.root, b('absent'), 0, b('x')))).toBe('NOT_FOUND');
    const ref = pool.batch();
    ref.ensureChild(pool.root, b('child'));
    pool.apply(ref);
    expect(codeOf(() => pool.fill(pool.root, b('child'), 0, b('x')))).toBe('NOT_A_VALUE');
    expect(codeOf(() => pool.batch().reserve(pool.root, b('k'), -1))).toBe('BAD_BATCH');
    // Reserving over a value of the same size (a staged segment written again) and over a smaller one.
    pool.apply(pool.batch().reserve(pool.root, b('seg'), big.length).reserve(pool.root, b('small'), 5000));
    const again = Buffer.from(big).reverse();
    pool.fill(pool.root, b('seg'), 0, again);
    pool.fill(pool.root, b('small'), 0, Buffer.alloc(5000, 9));
    pool.close();
    pool = openPool({ path });
    expect(pool.get(pool.root, b('seg'))!.equals(again)).toBe(true);
    expect(pool.get(pool.root, b('small'))!.equals(Buffer.alloc(5000, 9))).toBe(true);
    pool.close();
  });

  it('keeps everything, and the same handles, across close and reopen', () => {
    const path = poolPath();
    let pool = openPool({ path, size: 32 * MiB });
    const root = pool.root;
    const batch = pool.batch();
    const t = batch.ensureChild(root, b('table'));
    for (let i = 0; i < 3000; i++) batch.put(t, b(`row${i}`), b(`value${i}`));
    const [table] = pool.apply(batch);
    pool.close();
    pool = openPool({ path, size: 999 * MiB }); // size only matters on create
    expect(pool.root).toBe(root);
    expect(pool.getChild(root, b('table'))).toBe(table);
    expect(pool.count(table!)).toBe(3000);
    expect(pool.get(table!, b('row1234'))?.toString()).toBe('value1234');
    expect(pool.info.size).toBe(32 * MiB);
    pool.close();
  });

  it('refuses a second open of the same pool', () => {
    const path = poolPath();
    const pool = openPool({ path, size: 16 * MiB });
    expect(codeOf(() => openPool({ path }))).toBe('POOL_BUSY');
    pool.close();
    openPool({ path }).close();
  });

  it('rejects a pool_size below the libpmemobj minimum', () => {
    expect(codeOf(() => openPool({ path: poolPath(), size: 1024 }))).toBe('BAD_OPTION');
  });
});

describe('native pool: child maps', () => {
  it('creates, finds, nests and drops child maps', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    const root = pool.root;
    const batch = pool.batch();
    const ks = batch.ensureChild(root, b('ks'));
    const tbl = batch.ensureChild(ks, b('tbl'));
    batch.put(tbl, b('r1'), b('v1')).put(tbl, b('r2'), b('v2'));
    const again = batch.ensureChild(root, b('ks')); // existing one, same handle
    batch.put(again, b('meta'), b('m'));
    const handles = pool.apply(batch);
    expect(handles).toHaveLength(3);
    const [ksH, tblH, againH] = handles as [number, number, number];
    expect(againH).toBe(ksH);
    expect(pool.getChild(root, b('ks'))).toBe(ksH);
    expect(pool.getChild(ksH, b('tbl'))).toBe(tblH);
    expect(pool.getChild(root, b('nope'))).toBe(0);
    expect(pool.get(root, b('ks'))).toBeUndefined(); // holds a map, not a value
    expect(pool.count(ksH)).toBe(2);
    const s = pool.scan(ksH);
    expect(s.keys.map(String)).toEqual(['meta', 'tbl']);
    expect(s.values[0]?.toString()).toBe('m');
    expect(s.values[1]).toBeUndefined();
    expect(s.children).toEqual([0, tblH]);
    // ensureChild over a value is refused (and the whole batch with it).
    const bad = pool.batch().put(ksH, b('x'), b('1'));
    bad.ensureChild(ksH, b('meta'));
    expect(codeOf(() => pool.apply(bad))).toBe('NOT_A_MAP');
    expect(pool.get(ksH, b('x'))).toBeUndefined();
    // Existing handles work in a later batch; dropChild frees the subtree; stale handles fail.
    pool.apply(pool.batch().put(tblH, b('r3'), b('v3')));
    expect(pool.count(tblH)).toBe(3);
    pool.apply(pool.batch().dropChild(root, b('ks')));
    expect(pool.getChild(root, b('ks'))).toBe(0);
    expect(codeOf(() => pool.get(ksH, b('meta')))).toBe('NO_SUCH_MAP');
    expect(codeOf(() => pool.count(tblH))).toBe('NO_SUCH_MAP');
    expect(pool.count(root)).toBe(0);
    pool.close();
  });

  it('put over a child map replaces it; clear empties a map and frees its children', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    const root = pool.root;
    const objects = () =>
      (pool as NativePool & { objectCountsForTest(): Record<string, number> }).objectCountsForTest();
    const baseline = objects();
    const batch = pool.batch();
    const m = batch.ensureChild(root, b('m'));
    for (let i = 0; i < 500; i++) {
      const c = batch.ensureChild(m, b(`c${i}`));
      batch.put(c, b('k'), b(`v${i}`));
    }
    const handles = pool.apply(batch);
    const mH = handles[0]!;
    const c7 = handles[8]!;
    expect(pool.count(mH)).toBe(500);
    const usedBefore = pool.info.used;
    pool.apply(pool.batch().put(mH, b('c7'), b('plain')));
    expect(pool.get(mH, b('c7'))?.toString()).toBe('plain');
    expect(codeOf(() => pool.count(c7))).toBe('NO_SUCH_MAP');
    pool.apply(pool.batch().clear(mH));
    expect(pool.count(mH)).toBe(0);
    expect(pool.scan(mH).keys).toEqual([]);
    expect(pool.info.used).toBeLessThan(usedBefore);
    // The map stays usable after clear, also within the batch that clears it.
    pool.apply(pool.batch().put(mH, b('a'), b('1')).clear(mH).put(mH, b('b'), b('2')));
    expect(pool.scan(mH).keys.map(String)).toEqual(['b']);
    // Nothing leaks: dropping the map leaves the objects of an empty pool.
    pool.apply(pool.batch().dropChild(root, b('m')));
    expect(objects()).toEqual(baseline);
    pool.close();
  });

  it('refuses ChildRefs from another batch and bad handles', () => {
    const pool = openPool({ path: poolPath(), size: 16 * MiB });
    const other = pool.batch();
    const ref = other.ensureChild(pool.root, b('x'));
    expect(codeOf(() => pool.batch().put(ref, b('k'), b('v')))).toBe('BAD_BATCH');
    expect(codeOf(() => pool.get(12345, b('k')))).toBe('NO_SUCH_MAP');
    expect(codeOf(() => pool.get(-1, b('k')))).toBe('NO_SUCH_MAP');
    expect(codeOf(() => pool.get(0, b('k')))).toBe('NO_SUCH_MAP');
    expect(codeOf(() => pool.apply(pool.batch().put(1e15, b('k'), b('v'))))).toBe('NO_SUCH_MAP');
    pool.close();
  });
});

describe('native pool: ordered scans', () => {
  const pool = openPool({ path: poolPath(), size: 64 * MiB });
  // Keys sharing long prefixes and differing in length exercise the prefix-tie path.
  const keys = new Set<string>();
  for (let i = 0; i < 6000; i++) keys.add(`${'p'.repeat(i % 3 ? 10 : 2)}${(i * 7919) % 100003}`);
  for (const k of ['', '\u0000', 'a', 'a\u0000', 'ab', 'pp', 'pppppppppp', '\u00ff\u00ff']) keys.add(k);
  const entries = [...keys].map((k) => [Buffer.from(k, 'latin1'), b(`v:${k}`)] as [Buffer, Buffer]);
  // Several batches so both in-batch and cross-batch splits happen.
  for (let i = 0; i < entries.length; i += 1000) putAll(pool, pool.root, entries.slice(i, i + 1000));
  const sorted = entries.slice().sort((x, y) => cmp(x[0], y[0]));
  afterAll(() => pool.close());

  it('returns everything in order, forward and reverse', () => {
    expect(pool.count(pool.root)).toBe(sorted.length);
    expectScan(pool, pool.root, sorted, {});
    expectScan(pool, pool.root, sorted, { reverse: true });
  });

  it('honours every bound combination and limits (property)', () => {
    const keyArb = fc.oneof(
      fc.constantFrom(...sorted.map(([k]) => k)),
      fc.uint8Array({ maxLength: 14 }).map((u) => Buffer.from(u)),
      fc.constantFrom(...sorted.map(([k]) => k)).map((k) => Buffer.concat([k, b('\u0000')])),
    );
    fc.assert(
      fc.property(
        fc.option(keyArb, { nil: undefined }),
        fc.boolean(),
        fc.option(keyArb, { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.nat({ max: 300 }), { nil: undefined }),
        (start, startInclusive, end, endInclusive, reverse, limit) => {
          expectScan(pool, pool.root, sorted, { start, startInclusive, end, endInclusive, reverse, limit });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('handles empty maps and empty ranges', () => {
    const [empty] = pool.apply(
      (() => {
        const batch = pool.batch();
        batch.ensureChild(pool.root, b('zzzz-empty'));
        return batch;
      })(),
    );
    expect(pool.scan(empty!, { reverse: true }).keys).toEqual([]);
    expect(pool.scan(pool.root, { start: b('b'), end: b('a') }).keys).toEqual([]);
    expect(pool.scan(pool.root, { limit: 0 }).keys).toEqual([]);
    pool.apply(pool.batch().dropChild(pool.root, b('zzzz-empty')));
  });
});

describe('native pool: random operations against a model (property)', () => {
  it('matches a sorted map after random batches of put/del/clear, across reopen', () => {
    const path = poolPath();
    let pool = openPool({ path, size: 64 * MiB });
    const [mapH] = pool.apply(
      (() => {
        const batch = pool.batch();
        batch.ensureChild(pool.root, b('model'));
        return batch;
      })(),
    );
    const map = mapH!;
    const model = new Map<string, Buffer>();
    const keyArb = fc.oneof(
      fc.uint8Array({ maxLength: 3 }).map((u) => Buffer.from(u)),
      fc.tuple(fc.constantFrom('', 'abcdefgh', 'abcdefghij'), fc.nat({ max: 400 })).map(([p, n]) => b(`${p}${n}`)),
    );
    const opArb = fc.oneof(
      { weight: 6, arbitrary: fc.tuple(fc.constant('put' as const), keyArb, fc.uint8Array({ maxLength: 40 })) },
      { weight: 3, arbitrary: fc.tuple(fc.constant('del' as const), keyArb, fc.constant(new Uint8Array())) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constant('clear' as const), fc.constant(b('')), fc.constant(new Uint8Array())),
      },
    );
    fc.assert(
      fc.property(fc.array(fc.array(opArb, { maxLength: 200 }), { maxLength: 8 }), fc.boolean(), (batches, reopen) => {
        for (const ops of batches) {
          const batch = pool.batch();
          for (const [op, k, v] of ops) {
            const hex = k.toString('hex');
            if (op === 'put') {
              batch.put(map, k, Buffer.from(v));
              model.set(hex, Buffer.from(v));
            } else if (op === 'del') {
              batch.del(map, k);
              model.delete(hex);
            } else {
              batch.clear(map);
              model.clear();
            }
          }
          pool.apply(batch);
        }
        if (reopen) {
          pool.close();
          pool = openPool({ path });
        }
        const sorted = sortedModel(model);
        expect(pool.count(map)).toBe(sorted.length);
        expectScan(pool, map, sorted, {});
        expectScan(pool, map, sorted, { reverse: true });
        for (const [k, v] of sorted.slice(0, 50)) expect(pool.get(map, k)).toEqual(v);
        // getMany over present keys, absent ones and keys sharing their first 8 bytes (the prefix the
        // batched leaf search compares first), in a shuffled order.
        const probes = [...sorted.map(([k]) => k), b('abcdefgh'), b('abcdefghz'), b('zz'), b('')];
        probes.sort(() => Math.random() - 0.5);
        const many = pool.getMany(map, probes);
        expect(many.length).toBe(probes.length);
        for (let i = 0; i < probes.length; i++) expect(many[i]).toEqual(model.get(probes[i]!.toString('hex')));
        pool.getManyEach(map, probes, (i, bytes, offset, length) => {
          const want = model.get(probes[i]!.toString('hex'));
          expect(length < 0 ? undefined : Buffer.from(bytes.subarray(offset, offset + length))).toEqual(want);
        });
        if (sorted.length > 2) {
          const mid = sorted[sorted.length >> 1]![0];
          expectScan(pool, map, sorted, { start: mid, startInclusive: false, limit: 17 });
          expectScan(pool, map, sorted, { end: mid, reverse: true, limit: 17 });
        }
      }),
      { numRuns: 60 },
    );
    pool.close();
  });
});

describe('native pool: deep trees', () => {
  it('splits, merges and collapses a multi-level tree without leaking pool memory', () => {
    const pool = openPool({ path: poolPath(), size: 64 * MiB });
    const [mapH] = pool.apply(
      (() => {
        const batch = pool.batch();
        batch.ensureChild(pool.root, b('deep'));
        return batch;
      })(),
    );
    const map = mapH!;
    const objects = () =>
      (pool as NativePool & { objectCountsForTest(): Record<string, number> }).objectCountsForTest();
    const baseline = objects();
    // Deterministic shuffle of 40 k keys: height 3 at fanout 64.
    const n = 40_000;
    const order = Array.from({ length: n }, (_, i) => i);
    let seed = 12345;
    for (let i = n - 1; i > 0; i--) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const j = seed % (i + 1);
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const k = (i: number) => b(`key-${String(i).padStart(6, '0')}`);
    const model = new Map<string, Buffer>();
    for (let s = 0; s < n; s += 2000) {
      const batch = pool.batch();
      for (const i of order.slice(s, s + 2000)) {
        batch.put(map, k(i), b(`v${i}`));
        model.set(k(i).toString('hex'), b(`v${i}`));
      }
      pool.apply(batch);
    }
    expect(pool.count(map)).toBe(n);
    // Delete 95 % in shuffled order, in batches: many merges and root shrinks.
    for (let s = 0; s < n * 0.95; s += 2000) {
      const batch = pool.batch();
      for (const i of order.slice(s, Math.min(s + 2000, n * 0.95))) {
        batch.del(map, k(i));
        model.delete(k(i).toString('hex'));
      }
      pool.apply(batch);
    }
    const sorted = sortedModel(model);
    expect(pool.count(map)).toBe(sorted.length);
    expectScan(pool, map, sorted, {});
    expectScan(pool, map, sorted, { reverse: true });
    expectScan(pool, map, sorted, { start: sorted[100]![0], end: sorted[1500]![0], endInclusive: false });
    for (const [key, v] of sorted.slice(0, 200)) expect(pool.get(map, key)).toEqual(v);
    // Delete the rest in small batches: back to an empty map and exactly the objects it started
    // with (pool `used` also counts libpmemobj's own log buffers, so compare objects instead).
    for (let s = 0; s < sorted.length; s += 37) {
      const batch = pool.batch();
      for (const [key] of sorted.slice(s, s + 37)) batch.del(map, key);
      pool.apply(batch);
    }
    expect(pool.count(map)).toBe(0);
    expect(pool.scan(map).keys).toEqual([]);
    expect(objects()).toEqual(baseline);
    pool.close();
  });
});

describe('native pool: atomic batches and limits', () => {
  it('applies nothing of a batch in which one op fails', () => {
    const pool = openPool({ path: poolPath(), size: 32 * MiB });
    putAll(pool, pool.root, [[b('keep'), b('1')]]);
    const batch = pool.batch();
    const child = batch.ensureChild(pool.root, b('child'));
    for (let i = 0; i < 2000; i++) batch.put(child, b(`k${i}`), b(`v${i}`));
    batch.put(pool.root, b('keep'), b('changed')).del(pool.root, b('keep'));
    batch.put(987654320, b('x'), b('y')); // no such map
    const err = (() => {
      try {
        pool.apply(batch);
      } catch (e) {
        return e as PoolError;
      }
      return undefined;
    })();
    expect(err?.code).toBe('NO_SUCH_MAP');
    expect(err?.message).toMatch(/batch op 2003/);
    expect(pool.getChild(pool.root, b('child'))).toBe(0);
    expect(pool.get(pool.root, b('keep'))?.toString()).toBe('1');
    expect(pool.count(pool.root)).toBe(1);
    pool.close();
  });

  it('fails with POOL_FULL naming pool_size, stays readable, and takes writes again after deletes', () => {
    const path = poolPath();
    const pool = openPool({ path, size: 8 * MiB });
    const value = Buffer.alloc(1000, 1);
    let n = 0;
    let full: PoolError | undefined;
    while (!full && n < 100_000) {
      const batch = pool.batch();
      for (let i = 0; i < 100; i++) batch.put(pool.root, b(`k${String(n + i).padStart(6, '0')}`), value);
      try {
        pool.apply(batch);
        n += 100;
      } catch (e) {
        full = e as PoolError;
      }
    }
    expect(full).toBeInstanceOf(PoolError);
    expect(full!.code).toBe('POOL_FULL');
    expect(full!.message).toMatch(/pool_size/);
    // The failed batch left nothing; reads still work.
    expect(pool.count(pool.root)).toBe(n);
    expect(pool.get(pool.root, b(`k${String(n).padStart(6, '0')}`))).toBeUndefined();
    expect(pool.get(pool.root, b('k000000'))).toEqual(value);
    expect(pool.scan(pool.root, { limit: 5 }).keys).toHaveLength(5);
    // Free space, then write again.
    const deleted = n / 2 - ((n / 2) % 100);
    for (let i = 0; i < deleted; i += 100) {
      const batch = pool.batch();
      for (let j = i; j < i + 100; j++) batch.del(pool.root, b(`k${String(j).padStart(6, '0')}`));
      pool.apply(batch);
    }
    putAll(pool, pool.root, [[b('after'), value]]);
    expect(pool.get(pool.root, b('after'))).toEqual(value);
    pool.close();
    const reopened = openPool({ path });
    expect(reopened.count(reopened.root)).toBe(n - deleted + 1);
    reopened.close();
  });
});

describe('native pool: layout', () => {
  it('refuses a pool of another layout version with POOL_LAYOUT', () => {
    const path = poolPath();
    const pool = openPool({ path, size: 16 * MiB }) as NativePool & { setLayoutVersionForTest(v: number): void };
    pool.setLayoutVersionForTest(999);
    pool.close();
    const err = (() => {
      try {
        openPool({ path });
      } catch (e) {
        return e as PoolError;
      }
      return undefined;
    })();
    expect(err?.code).toBe('POOL_LAYOUT');
    expect(err?.message).toMatch(/layout version 999/);
  });

  it.skipIf(!hasPmempool())('refuses a libpmemobj pool with another layout name', () => {
    const path = poolPath();
    const r = spawnSync('pmempool', ['create', '--layout', 'other', '--size', '16M', 'obj', path]);
    expect(r.status).toBe(0);
    expect(codeOf(() => openPool({ path }))).toBe('POOL_LAYOUT');
  });
});

function hasPmempool(): boolean {
  return spawnSync('pmempool', ['--version']).status === 0;
}

describe('native pool: crash safety', () => {
  const childDir = join(base, 'child');
  // The child runs the real binding, transpiled from TypeScript (no TS loader in plain node).
  const prepareChild = () => {
    writeBindingModules(childDir);
    writeFileSync(
      join(childDir, 'writer.js'),
      `import { openPool } from './native-binding.js';
const pool = openPool({ path: process.argv[2], size: 64 * 1024 * 1024, commitLog: { sync: process.argv[3] } });
process.stdout.write('mode ' + pool.info.mode + ' sync ' + pool.sync + '\\n');
const key = (n, i) => Buffer.from('b' + String(n).padStart(8, '0') + ':' + String(i).padStart(2, '0'));
for (let n = 0; ; n++) {
  const batch = pool.batch();
  const data = batch.ensureChild(pool.root, Buffer.from('data'));
  for (let i = 0; i < 50; i++) batch.put(data, key(n, i), Buffer.alloc(100 + i, n & 255));
  if (n >= 20) for (let i = 0; i < 50; i++) batch.del(data, key(n - 20, i));
  const last = Buffer.alloc(8);
  last.writeDoubleLE(n);
  batch.put(pool.root, Buffer.from('last'), last);
  pool.apply(batch);
  if (n === 30) process.stdout.write('ready\\n');
}
`,
    );
  };

  const crashOnce = async (dir: string, env: Record<string, string>, sync = 'periodic') => {
    const path = join(dir, `crash-${seq++}.pool`);
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PMEMCQL_NATIVE_ADDON: resolve('native/build/Release/pmemcql_native.node'),
      ...env,
    };
    if (!('PMEM_IS_PMEM_FORCE' in env)) delete childEnv.PMEM_IS_PMEM_FORCE;
    const out = await runUntilKilled(join(childDir, 'writer.js'), [path, sync], childEnv, {
      startTimeoutMs: 60_000,
      minMs: 150,
      jitterMs: 300,
    });

    const pool = openPool({ path });
    const last = pool.get(pool.root, b('last'))!.readDoubleLE(0);
    expect(last).toBeGreaterThanOrEqual(30);
    const data = pool.getChild(pool.root, b('data'));
    const live = Math.min(last + 1, 20);
    // Exactly the batches the last committed one leaves alive, each whole.
    expect(pool.count(data)).toBe(live * 50);
    const s = pool.scan(data);
    const first = last + 1 - live;
    for (let j = 0; j < s.keys.length; j++) {
      const n = first + Math.floor(j / 50);
      const i = j % 50;
      expect(s.keys[j]!.toString()).toBe(`b${String(n).padStart(8, '0')}:${String(i).padStart(2, '0')}`);
      expect(s.values[j]).toEqual(Buffer.alloc(100 + i, n & 255));
    }
    // Still writable after the crash.
    putAll(pool, pool.root, [[b('after'), b('crash')]]);
    pool.close();
    if (hasPmempool()) {
      const check = spawnSync('pmempool', ['check', path], { encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    }
    return out;
  };

  it('survives SIGKILL mid-writes in emulated mode: pool opens, batches are whole, pmempool check passes', async () => {
    prepareChild();
    for (let round = 0; round < 3; round++) {
      const out = await crashOnce(base, { PMEM_IS_PMEM_FORCE: '1' });
      expect(out).toMatch(/mode (emulated)/);
    }
  }, 180_000);

  it.each([['periodic'], ['batch']])(
    'survives SIGKILL mid-writes in disk mode (commitlog_sync %s)',
    async (sync) => {
      prepareChild();
      const dir = mkdtempSync(join(tmpdir(), 'pmemcql-native-disk-'));
      try {
        const out = await crashOnce(dir, {}, sync);
        expect(out).toContain(`mode disk sync ${sync}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
