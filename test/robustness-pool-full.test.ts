// Pool full against the real server (--pool-size 16MiB): writes fail with WriteFailure (0x1500)
// and are not applied, reads keep working, the server stays up, and after TRUNCATE frees the space
// writes succeed again. Driven through the npm cassandra-driver.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;

beforeAll(async () => {
  // Twin flushes every few rows, so they are attempted while the pool is full too.
  server = await startServer({ args: ['--pool-size', '16MiB'], env: { PMEMCQL_TWIN_FLUSH_ROWS: '4' } });
  client = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
  });
  await client.connect();
  await client.execute("CREATE KEYSPACE rp WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE rp.t (k int PRIMARY KEY, v blob)');
}, 60_000);

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
});

const INSERT = 'INSERT INTO rp.t (k, v) VALUES (?, ?)';

async function fill(from: number): Promise<{ stored: number; error: { code?: number; message: string } }> {
  const value = Buffer.alloc(256 * 1024, 0x77);
  for (let k = from; k < from + 400; k++) {
    try {
      await client.execute(INSERT, [k, value], { prepare: true });
    } catch (e) {
      return { stored: k - from, error: e as { code?: number; message: string } };
    }
  }
  throw new Error('the 16 MiB pool never filled up');
}

describe('pool full', () => {
  it('WriteFailure when full, reads keep working, writes resume after TRUNCATE', async () => {
    const first = await fill(0);
    expect(first.stored).toBeGreaterThan(0);
    expect(first.error.code).toBe(0x1500);
    // The failed write was not applied; the others are all there.
    const rows = await client.execute('SELECT k FROM rp.t');
    const keys = rows.rows.map((r) => r.k as number).sort((a, b) => a - b);
    expect(keys).toEqual(Array.from({ length: first.stored }, (_, i) => i));
    const one = await client.execute('SELECT v FROM rp.t WHERE k = 0');
    expect((one.first().v as Buffer).length).toBe(256 * 1024);
    // Small writes may still fit or fail the same way: never another kind of error.
    for (let i = 0; i < 5; i++) {
      await client.execute(INSERT, [10_000 + i, Buffer.alloc(8 * 1024)], { prepare: true }).catch((e) => {
        expect((e as { code?: number }).code).toBe(0x1500);
      });
    }
    // The flush those writes started (threshold 4 rows) runs in steps between requests: it meets the full pool.
    for (let waited = 0; waited < 5000 && !/arrow twin flush postponed/.test(server.output()); waited += 50) {
      await new Promise((ok) => setTimeout(ok, 50));
    }
    // Free the space; writes succeed again.
    await client.execute('TRUNCATE rp.t');
    const second = await fill(1000);
    expect(second.stored).toBeGreaterThanOrEqual(Math.floor(first.stored / 2));
    expect(second.error.code).toBe(0x1500);
    await client.execute('TRUNCATE rp.t');
    await client.execute(INSERT, [1, Buffer.from('ok')], { prepare: true });
    expect((await client.execute('SELECT k FROM rp.t')).rowLength).toBe(1);
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/unexpected error/);
    // A full pool postpones twin flushes (a warning, then retries with backoff), never one failure per write.
    expect(server.output()).not.toMatch(/arrow twin flush failed/);
    const postponed = (server.output().match(/arrow twin flush postponed/g) ?? []).length;
    expect(postponed).toBeGreaterThan(0);
    expect(postponed).toBeLessThan(10);
  }, 60_000);
});
