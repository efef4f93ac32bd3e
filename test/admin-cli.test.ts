// pmemcql-admin against a real server: status, info, tablestats; pool-check on a stopped server's pool.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, startServer } from './support/server-process.js';

const cli = resolve(import.meta.dirname, '../dist/server/admin-cli.js');
let server: ServerProcess;
let metricsPort: number;
const dataDir = mkdtempSync(join(tmpdir(), 'pmemcql-admin-'));

function admin(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
}

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({ dataDir, args: ['--metrics-port', String(metricsPort)] });
  const client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await client.execute("CREATE KEYSPACE a WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE a.t (k int PRIMARY KEY, v int)');
  for (let i = 0; i < 5; i++) await client.execute('INSERT INTO a.t (k, v) VALUES (?, ?)', [i, i], { prepare: true });
  await client.shutdown();
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('pmemcql-admin', () => {
  const target = () => ['-p', String(server.port), '--metrics-port', String(metricsPort)];

  it('status shows the node up with its tokens and host id', () => {
    const r = admin('status', ...target());
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^UN {2}127\.0\.0\.1 .* 16 {6}100\.0% +[0-9a-f-]{36} {2}rack1$/m);
    expect(r.stdout).toContain('Datacenter: datacenter1');
  });

  it('info shows the host id, load and release version', () => {
    const r = admin('info', ...target());
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ID +: [0-9a-f-]{36}$/m);
    expect(r.stdout).toMatch(/^Release version +: 5\.0\./m);
    expect(r.stdout).toMatch(/^Uptime \(seconds\) +: \d+$/m);
  });

  it('tablestats counts partitions per table', () => {
    const r = admin('tablestats', 'a.t', ...target());
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Keyspace : a');
    expect(r.stdout).toContain('Number of partitions (estimate): 5');
  });

  it('arrow flush, segments, check and export', async () => {
    expect(admin('arrow', 'flush', 'a.t', ...target()).stdout).toMatch(/^a\.t: segment \d+ with 5 rows/m);
    expect(admin('arrow', 'segments', 'a.t', ...target()).stdout).toMatch(/^a\.t +\d+ +5 +0 +\d+$/m);
    expect(admin('arrow', 'check', 'a.t', ...target()).stdout).toContain('"problems":0');
    const file = join(dataDir, 't.arrow');
    const r = admin('arrow', 'export', 'a.t', file, ...target());
    expect(r.status, r.stderr).toBe(0);
    const table = tableFromIPC(readFileSync(file));
    expect(table.numRows).toBe(5);
    expect(table.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual(['k:Int32', 'v:Int32']);
    expect([...table.getChild('v')!.toArray()].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('pool-check reports a consistent pool after a clean stop', async () => {
    await server.stop();
    const r = admin('pool-check', join(dataDir, 'pmemcql.pool'));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('consistent');
  });
});
