// Differential test of the Arrow twin through the real server and the npm cassandra-driver: random inserts,
// updates, deletes (row, range, partition), TTLs and truncates, with random flush / compaction points (tiny flush
// thresholds); every scan and aggregate query must answer the same on the columnar path and on the row path
// (system_arrow.use_row_path / use_auto_path switch them), and every twin must agree with its row store.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from './support/seeded-random.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/pmemcql-twin-diff-') : undefined;
let server: ServerProcess;
let client: cassandra.Client;

beforeAll(async () => {
  server = await startServer({
    args: shm ? ['--pool-path', join(shm, 'pool'), '--pool-size', '256MiB'] : [],
    env: { PMEMCQL_TWIN_FLUSH_ROWS: '40', PMEMCQL_TWIN_SLICE_ROWS: '16', PMEM_IS_PMEM_FORCE: '1' },
  });
  client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    queryOptions: { prepare: true },
  });
  await client.connect();
  await client.execute(
    "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    [],
    { prepare: false },
  );
  await client.execute('CREATE TABLE ks.kv (k int PRIMARY KEY, x double, y bigint, i int, s smallint, t text)', [], {
    prepare: false,
  });
  await client.execute(
    'CREATE TABLE ks.cl (k int, c int, x double, y bigint, i int, t text, m map<int, int>, PRIMARY KEY (k, c))',
    [],
    { prepare: false },
  );
}, 60_000);

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  if (shm) rmSync(shm, { recursive: true, force: true });
});

/** Rows as comparable plain values; doubles rounded (float sums depend on summation order). */
function plain(rows: cassandra.types.Row[]): unknown[] {
  return rows.map((r) =>
    Object.fromEntries(
      r.keys().map((k) => {
        const v = r.get(k);
        if (typeof v === 'number' && !Number.isInteger(v)) return [k, Number(v.toPrecision(10))];
        if (v && typeof v === 'object' && 'toString' in v && !(v instanceof Map)) return [k, String(v)];
        if (v instanceof Map) return [k, JSON.stringify([...v.entries()])];
        return [k, v];
      }),
    ),
  );
}

async function all(query: string, params: unknown[]): Promise<cassandra.types.Row[]> {
  const out: cassandra.types.Row[] = [];
  for await (const row of client.stream(query, params, { prepare: true, fetchSize: 7, autoPage: true })) {
    out.push(row as cassandra.types.Row);
  }
  return out;
}

async function pathStats(): Promise<{ columnar: number; declined: number }> {
  const r = (await client.execute('SELECT * FROM system_arrow.use_auto_path')).first();
  return { columnar: r.get('columnar') as number, declined: r.get('declined') as number };
}

/** Runs `query` on both paths; TTLs expire meanwhile, so a disagreement is retried a few times before failing. */
async function sameOnBothPaths(query: string, params: unknown[]): Promise<void> {
  let last: [unknown, unknown] | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    await client.execute('SELECT * FROM system_arrow.use_auto_path');
    const columnar = plain(await all(query, params));
    await client.execute('SELECT * FROM system_arrow.use_row_path');
    const row = plain(await all(query, params));
    await client.execute('SELECT * FROM system_arrow.use_auto_path');
    if (JSON.stringify(columnar) === JSON.stringify(row)) return;
    last = [columnar, row];
  }
  expect({ query, params, columnar: last![0] }).toEqual({ query, params, columnar: last![1] });
}

const QUERIES: [string, (r: () => number) => unknown[]][] = [
  [
    'SELECT count(*), sum(x), avg(x), min(x), max(x), sum(y), avg(y), min(y), max(y), sum(i), count(t), min(s), max(s), sum(s) FROM ks.kv',
    () => [],
  ],
  [
    'SELECT count(*), max(x), min(i) FROM ks.kv WHERE y > ? ALLOW FILTERING',
    (r) => [cassandra.types.Long.fromNumber(Math.floor(r() * 1e6))],
  ],
  [
    'SELECT sum(i), count(x) FROM ks.kv WHERE x <= ? AND i != ? ALLOW FILTERING',
    (r) => [r() * 250, Math.floor(r() * 50)],
  ],
  ['SELECT count(*), sum(y) FROM ks.kv WHERE token(k) > ? AND token(k) <= ?', (r) => tokenRange(r)],
  ['SELECT * FROM ks.kv', () => []],
  ['SELECT k, x, t FROM ks.kv WHERE x > ? ALLOW FILTERING', (r) => [r() * 250]],
  ['SELECT * FROM ks.kv WHERE token(k) >= ? LIMIT 13', (r) => [tokenRange(r)[0]]],
  // A filter keeps a short LIMIT scan on the columnar path.
  ['SELECT * FROM ks.kv WHERE token(k) >= ? AND i >= ? LIMIT 13 ALLOW FILTERING', (r) => [tokenRange(r)[0], 5]],
  ['SELECT count(*), sum(x), min(y), max(i), avg(i), count(m) FROM ks.cl', () => []],
  ['SELECT k, count(*), sum(x), max(i), min(y) FROM ks.cl GROUP BY k', () => []],
  [
    'SELECT k, count(*), avg(y) FROM ks.cl WHERE i > ? GROUP BY k LIMIT 5 ALLOW FILTERING',
    (r) => [Math.floor(r() * 50)],
  ],
  [
    'SELECT count(*), max(x) FROM ks.cl WHERE token(k) < ? AND y >= ? ALLOW FILTERING',
    (r) => [tokenRange(r)[1], cassandra.types.Long.fromNumber(Math.floor(r() * 1e6))],
  ],
];

function tokenRange(r: () => number): [cassandra.types.Long, cassandra.types.Long] {
  const a = BigInt(Math.floor((r() * 2 - 1) * 2 ** 62)) * 2n;
  const b = BigInt(Math.floor((r() * 2 - 1) * 2 ** 62)) * 2n;
  const [lo, hi] = a < b ? [a, b] : [b, a];
  return [cassandra.types.Long.fromString(lo.toString()), cassandra.types.Long.fromString(hi.toString())];
}

describe('Arrow twin: columnar path = row path', () => {
  it('random writes, deletes, TTLs, truncates and flushes', async () => {
    const r = seededRandom(7);
    const pick = (n: number) => Math.floor(r() * n);
    const before = await pathStats();
    for (let round = 0; round < 30; round++) {
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const k = pick(60);
        const c = pick(6);
        const op = r();
        const ttl = r() < 0.1 ? 1 + pick(2) : 0;
        const using = ttl > 0 ? ` USING TTL ${ttl}` : '';
        // Some values are null; integral doubles keep float sums exact on both paths.
        const x = r() < 0.1 ? null : pick(1000) / 4;
        const y = cassandra.types.Long.fromNumber(pick(1e6) - 3e5);
        if (op < 0.35) {
          writes.push(
            client.execute(
              `INSERT INTO ks.kv (k, x, y, i, s, t) VALUES (?, ?, ?, ?, ?, ?)${using}`,
              [k, x, y, pick(50), pick(100) - 50, r() < 0.1 ? null : `t${pick(30)}`],
              { prepare: true, hints: [null, 'double', 'bigint', 'int', 'smallint', 'text'] },
            ),
          );
        } else if (op < 0.45) {
          writes.push(client.execute(`UPDATE ks.kv${using} SET x = ? WHERE k = ?`, [x, k], { prepare: true }));
        } else if (op < 0.5) {
          writes.push(client.execute('DELETE FROM ks.kv WHERE k = ?', [k], { prepare: true }));
        } else if (op < 0.8) {
          writes.push(
            client.execute(
              `INSERT INTO ks.cl (k, c, x, y, i, t, m) VALUES (?, ?, ?, ?, ?, ?, ?)${using}`,
              [pick(12), c, x, y, pick(50), `u${pick(9)}`, r() < 0.5 ? null : new Map([[pick(5), pick(5)]])],
              { prepare: true },
            ),
          );
        } else if (op < 0.87) {
          writes.push(
            client.execute(`UPDATE ks.cl${using} SET i = ? WHERE k = ? AND c = ?`, [pick(50), pick(12), c], {
              prepare: true,
            }),
          );
        } else if (op < 0.91) {
          writes.push(client.execute('DELETE FROM ks.cl WHERE k = ? AND c = ?', [pick(12), c], { prepare: true }));
        } else if (op < 0.95) {
          writes.push(
            client.execute('DELETE FROM ks.cl WHERE k = ? AND c >= ? AND c < ?', [pick(12), c, c + pick(3)], {
              prepare: true,
            }),
          );
        } else {
          writes.push(client.execute('DELETE FROM ks.cl WHERE k = ?', [pick(12)], { prepare: true }));
        }
      }
      await Promise.all(writes);
      if (round === 9 || round === 21) await client.execute('TRUNCATE ks.kv');
      if (r() < 0.4) await client.execute('SELECT * FROM system_arrow.flush_now');
      if (r() < 0.15) await client.execute('SELECT * FROM system_arrow.compact_now');
      for (const [q, params] of QUERIES) await sameOnBothPaths(q, params(r));
      const check = await client.execute('SELECT * FROM system_arrow.consistency');
      for (const row of check.rows)
        expect([row.get('table_name'), row.get('first_problem')]).toEqual([row.get('table_name'), null]);
    }
    const segments = await client.execute('SELECT * FROM system_arrow.segments');
    expect(segments.rows.length).toBeGreaterThan(0);
    const after = await pathStats();
    if (process.env.TWIN_DEBUG) console.log(before, after, segments.rows.length);
    // Most queries really ran columnar.
    expect(after.columnar - before.columnar).toBeGreaterThan(100);
  }, 120_000);
});
