// Aggregates on the row path fold rows as they are read: a server whose JS heap is far smaller than the rows it
// aggregates answers `count(*)` / `sum` / `max` and GROUP BY ... LIMIT over the whole table, and stays up. Before,
// the rows were collected first: `SELECT sum(x)` over 10 M rows ran the server out of heap.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

const ROWS = 150_000;
// Emulated pmem (a pool in /dev/shm): loading the rows in disk mode takes 10x longer, and is not what is tested.
const shm = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-agg-'));
let server: ServerProcess;
let client: cassandra.Client;

beforeAll(async () => {
  server = await startServer({
    args: ['--pool-size', '256MiB', '--pool-path', join(shm, 'pool')],
    // 48 MiB of old space: the ~150 k row objects collected before folding took more than that.
    env: {
      NODE_OPTIONS: '--max-old-space-size=48',
      PMEMCQL_COLUMNAR: 'row',
      PMEMCQL_TWINS: 'off',
      PMEM_IS_PMEM_FORCE: '1',
    },
  });
  client = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
    queryOptions: { prepare: true },
  });
  await client.connect();
  await client.execute(
    "CREATE KEYSPACE agg WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    [],
    { prepare: false },
  );
  await client.execute('CREATE TABLE agg.t (k int PRIMARY KEY, v int, s text)', [], { prepare: false });
  const insert = 'INSERT INTO agg.t (k, v, s) VALUES (?, ?, ?)';
  let next = 0;
  const loader = async () => {
    for (;;) {
      const from = next;
      next += 500;
      if (from >= ROWS) return;
      const queries = [];
      for (let k = from; k < Math.min(ROWS, from + 500); k++) {
        queries.push({ query: insert, params: [k, k % 1000, `s${k % 777}`] });
      }
      await client.batch(queries, { logged: false });
    }
  };
  await Promise.all(Array.from({ length: 8 }, loader));
}, 120_000);

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  rmSync(shm, { recursive: true, force: true });
});

describe('row-path aggregates over more rows than the heap holds', () => {
  it('count, sum and max over the whole table, then GROUP BY with LIMIT', async () => {
    const whole = (await client.execute('SELECT count(*), sum(v), max(s) FROM agg.t')).first();
    expect(whole.get('count').toString()).toBe(String(ROWS));
    // sum of k % 1000 over 0 .. ROWS-1: 150 full cycles of 0 .. 999.
    expect(whole.get('system.sum(v)')).toBe((ROWS / 1000) * 499_500);
    expect(whole.get('system.max(s)')).toBe('s99'); // text orders bytewise: s99 > s776
    const groups = await client.execute('SELECT k, count(*) FROM agg.t GROUP BY k LIMIT 3');
    expect(groups.rows.map((r) => r.get('count').toString())).toEqual(['1', '1', '1']);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/heap out of memory/);
  }, 120_000);
});
