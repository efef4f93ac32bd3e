// The throughput bench's driver-less load generator (bench/support/raw-execute-client.ts) against a real server:
// pipelined EXECUTEs land (read back through cassandra-driver), an ERROR answer reaches its own request only, and
// the bench itself runs with it and starts each INSERT run from an empty table.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawExecuteClient } from '../bench/support/raw-execute-client.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let driver: cassandra.Client;

beforeAll(async () => {
  server = await startServer();
  driver = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await driver.connect();
  await driver.execute(
    "CREATE KEYSPACE rawexec WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
  );
  await driver.execute('CREATE TABLE rawexec.kv (k bigint PRIMARY KEY, v blob)');
}, 60_000);

afterAll(async () => {
  reportIfDied(server);
  await driver?.shutdown();
  await server?.stop();
});

function bigintBytes(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

describe('raw execute client', () => {
  it('pipelines EXECUTEs of a prepared INSERT and each answer reaches its request', async () => {
    const raw = await RawExecuteClient.connect(server.port);
    try {
      const id = await raw.prepare('INSERT INTO rawexec.kv (k, v) VALUES (?, ?)');
      expect(id.length).toBe(16); // md5, as Cassandra computes it
      const done = await Promise.all(
        Array.from(
          { length: 2000 },
          (_, i) =>
            new Promise<number>((ok, fail) =>
              raw.execute(id, [bigintBytes(i), Buffer.from([i & 0xff])], (err) => (err ? fail(err) : ok(i))),
            ),
        ),
      );
      expect(done.length).toBe(2000);
      const rs = await driver.execute('SELECT v FROM rawexec.kv WHERE k = ?', [cassandra.types.Long.fromNumber(1234)], {
        prepare: true,
      });
      expect(rs.rows[0]!.v).toEqual(Buffer.from([1234 & 0xff]));
      const count = await driver.execute('SELECT count(*) FROM rawexec.kv');
      expect(Number(count.rows[0]!.count)).toBe(2000);
    } finally {
      raw.close();
    }
  });

  it('gives an ERROR answer to its own request only', async () => {
    const raw = await RawExecuteClient.connect(server.port);
    try {
      const id = await raw.prepare('SELECT v FROM rawexec.kv WHERE k = ?');
      const answer = (values: Buffer[]) => new Promise<Error | null>((ok) => raw.execute(id, values, (err) => ok(err)));
      // A 3-byte bigint is an invalid value (0x2200); the requests around it succeed.
      const [before, bad, after] = await Promise.all([
        answer([bigintBytes(1)]),
        answer([Buffer.from([1, 2, 3])]),
        answer([bigintBytes(2)]),
      ]);
      expect(before).toBeNull();
      expect(after).toBeNull();
      expect(bad?.message).toBe('server error 0x2200: Expected 8 or 0 byte long (3)');
      await expect(raw.prepare('SELECT nope FROM rawexec.kv')).rejects.toThrow(/0x2200: Undefined column name nope/);
    } finally {
      raw.close();
    }
  });

  it('runs the throughput bench (--raw-client), each INSERT run into an empty table, and names the twin', () => {
    const r = spawnSync(
      process.execPath,
      [
        resolve(import.meta.dirname, '../dist/bench/cql-throughput.js'),
        ...['--raw-client', '--port', String(server.port), '--ops', '2000', '--warmup', '0'],
        ...['--client-warmup', '100', '--in-flight', '8,16', '--rate', '4000', '--only', 'insert'],
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('(--raw-client, not cassandra-driver), each INSERT run into an empty table');
    // The test server keeps twins (system_arrow.buffers lists bench.kv).
    expect(r.stdout).toContain(', Arrow twin on, ');
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('| prepared INSERT |'));
    expect(rows.length).toBe(2);
    for (const row of rows) {
      const cells = row.split('|').map((c) => c.trim());
      expect(Number(cells[4]), 'ops/s').toBeGreaterThan(0);
      // 2 000 timed rows, 2 x 100 client warm-up rows and the row that prepared the statement: not the rows of the
      // run before (truncated away).
      expect(cells[11], 'rows after').toBe('2201');
    }
  }, 150_000);
});
