// What an operator reads in the logs, through the real server: expected start-up failures as one line and exit
// code 3 (the port in use, the pool open in another process), repeated warnings rate-limited as Cassandra's
// NoSpamLogger does (clients still get every warning), and schema changes at info.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAP_FLOOR_FLAG } from '../server/heap-floor.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const main = resolve(import.meta.dirname, '../dist/server/main.js');
const scratch = mkdtempSync(join(tmpdir(), 'pmemcql-logs-'));
let server: ServerProcess;
let client: cassandra.Client;

function start(args: string[]) {
  return spawnSync(
    process.execPath,
    [HEAP_FLOOR_FLAG, main, '--pool-size', '64MiB', '--metrics-port', '-1', '--listen-address', '127.0.0.1', ...args],
    { encoding: 'utf8', timeout: 30_000 },
  );
}

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('start-up failures', () => {
  it('the port in use: one line, exit code 3', () => {
    const r = start(['--port', String(server.port), '--data', join(scratch, 'other')]);
    expect(r.status).toBe(3);
    expect(r.stderr.trim()).toBe(
      `pmemcql: cannot listen on 127.0.0.1:${server.port}: the address is in use (another server running? set native_transport_port)`,
    );
    expect(r.stdout).not.toMatch(/"level":50/);
  });

  it('the pool open in another process: one line, exit code 3', () => {
    const r = start(['--port', '0', '--data', server.dataDir]);
    expect(r.status).toBe(3);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^pmemcql: the pool is in use by another process \(another server on the same data directory\?\): /,
    );
  });
});

describe('warnings and schema changes', () => {
  it('an unlogged batch warning repeated 30 times is logged once; every client gets it', async () => {
    await client.execute(
      "CREATE KEYSPACE logs WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await client.execute('CREATE TABLE logs.t (k int PRIMARY KEY, v int)');
    const queries = Array.from({ length: 12 }, (_, i) => ({
      query: 'INSERT INTO logs.t (k, v) VALUES (?, ?)',
      params: [i, i],
    }));
    for (let round = 0; round < 30; round++) {
      const r = await client.batch(queries, { prepare: true, logged: false });
      expect(r.info.warnings?.[0]).toMatch(/^Unlogged batch covering 12 partitions detected against table \[logs\.t\]/);
    }
    const logged = server
      .output()
      .split('\n')
      .filter((l) => l.includes('Unlogged batch covering'));
    expect(logged).toHaveLength(1);
  });

  it('schema changes are logged at info', async () => {
    await client.execute('CREATE TABLE logs.u (k int PRIMARY KEY)');
    await client.execute('DROP TABLE logs.u');
    const schemaLines = () =>
      server
        .output()
        .split('\n')
        .filter((l) => l.includes('schema change:'))
        .map((l) => JSON.parse(l) as { level: number; msg: string });
    // The log reaches the test through the server's stdout, which may trail its answer on the socket.
    for (const until = Date.now() + 5000; schemaLines().length < 4 && Date.now() < until; ) {
      await new Promise((ok) => setTimeout(ok, 10));
    }
    const lines = schemaLines();
    expect(lines.map((l) => l.msg)).toEqual([
      'schema change: CREATED KEYSPACE logs',
      'schema change: CREATED TABLE logs.t',
      'schema change: CREATED TABLE logs.u',
      'schema change: DROPPED TABLE logs.u',
    ]);
    expect(lines.every((l) => l.level === 30)).toBe(true);
  });
});
