// Crash test of the Arrow twin: the server is SIGKILLed while writers keep it busy and its twins are flushing and
// compacting (tiny thresholds: a flush is almost always in progress); after each restart every twin must agree with
// its row store (system_arrow.consistency: pointers, deletion vectors, buffer, segment values) and the columnar
// path must answer like the row path.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

const base = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-twin-crash-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function start(): Promise<{ server: ServerProcess; client: cassandra.Client }> {
  const server = await startServer({
    dataDir: join(base, 'data'),
    args: ['--pool-path', join(base, 'pool'), '--pool-size', '256MiB'],
    env: { PMEMCQL_TWIN_FLUSH_ROWS: '150', PMEMCQL_TWIN_SLICE_ROWS: '8', PMEM_IS_PMEM_FORCE: '1' },
  });
  const client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    queryOptions: { prepare: true },
  });
  await client.connect();
  return { server, client };
}

async function consistent(client: cassandra.Client): Promise<void> {
  const res = await client.execute('SELECT * FROM system_arrow.consistency');
  expect(res.rows.length).toBeGreaterThan(0);
  for (const row of res.rows) {
    expect([row.get('table_name'), row.get('first_problem')]).toEqual([row.get('table_name'), null]);
  }
  const q = 'SELECT count(*), sum(y), max(x) FROM ks.t';
  await client.execute('SELECT * FROM system_arrow.use_auto_path');
  const columnar = (await client.execute(q)).first();
  await client.execute('SELECT * FROM system_arrow.use_row_path');
  const row = (await client.execute(q)).first();
  await client.execute('SELECT * FROM system_arrow.use_auto_path');
  expect(String(columnar.get('count'))).toEqual(String(row.get('count')));
  expect(String(columnar.get('system.sum(y)'))).toEqual(String(row.get('system.sum(y)')));
}

describe('Arrow twin crash safety', () => {
  it('SIGKILL during flushes and compactions leaves twins consistent', async () => {
    let { server, client } = await start();
    // A failed check must not leave the server running (its data directory goes with afterAll).
    try {
      await client.execute(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        [],
        { prepare: false },
      );
      await client.execute('CREATE TABLE ks.t (k int PRIMARY KEY, x double, y bigint, t text)', [], { prepare: false });
      let seed = 1;
      const next = () => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed;
      };
      let segmentsSeen = 0;
      for (let crash = 0; crash < 4; crash++) {
        let stop = false;
        const writer = async () => {
          while (!stop) {
            const k = next() % 2000;
            const op = next() % 10;
            try {
              if (op < 7) {
                await client.execute('INSERT INTO ks.t (k, x, y, t) VALUES (?, ?, ?, ?)', [
                  k,
                  next() % 1000,
                  cassandra.types.Long.fromNumber(next() % 100000),
                  `v${next() % 100}`,
                ]);
              } else if (op < 9) {
                await client.execute('DELETE FROM ks.t WHERE k = ?', [k]);
              } else {
                await client.execute(`SELECT * FROM system_arrow.${next() % 2 ? 'flush_now' : 'compact_now'}`);
              }
            } catch {
              return; // the server died under us
            }
          }
        };
        const writers = Array.from({ length: 8 }, writer);
        // Segments come and go (a compaction re-buffers live rows until the next flush), so they are looked for
        // all through the window, not once.
        const until = Date.now() + 600 + (next() % 900);
        while (Date.now() < until) {
          const segs = await client.execute('SELECT * FROM system_arrow.segments').catch(() => undefined);
          segmentsSeen = Math.max(segmentsSeen, segs?.rows.length ?? 0);
          await new Promise((ok) => setTimeout(ok, 100));
        }
        await server.stop('SIGKILL');
        stop = true;
        await Promise.all(writers);
        await client.shutdown().catch(() => {});
        ({ server, client } = await start());
        await consistent(client);
      }
      expect(segmentsSeen).toBeGreaterThan(0);
      await client.shutdown();
      await server.stop();
    } finally {
      await client.shutdown().catch(() => {});
      await server.stop('SIGKILL');
    }
  }, 120_000);
});
