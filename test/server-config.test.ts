// Configuration: YAML with Cassandra-like names, environment and flag overrides, and fail-fast
// errors naming the key — through the real server binary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { commitLogOptions, DEFAULT_GROUP_WINDOW_MS, loadConfig } from '../server/config.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const main = resolve(import.meta.dirname, '../dist/server/main.js');
const dir = mkdtempSync(join(tmpdir(), 'pmemcql-config-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runWithConfig(yaml: string, env: Record<string, string> = {}) {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  return spawnSync(process.execPath, [main, '--config', file, '--data', join(dir, 'data')], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 20_000,
  });
}

describe('configuration', () => {
  it('rejects an unknown key, naming it, with exit code 2', () => {
    const r = runWithConfig('cluster_name: x\nnative_transport_prot: 9042\n');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Invalid configuration for 'native_transport_prot': unknown setting");
  });

  it('rejects a bad value, naming the key and the value', () => {
    const r = runWithConfig('native_transport_port: lots\n');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Invalid configuration for 'native_transport_port'");
    expect(r.stderr).toContain('"lots"');
    const bad = runWithConfig('authenticator: FancyAuthenticator\n');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Invalid configuration for 'authenticator'");
  });

  it('applies YAML, then environment, then flags', () => {
    const file = join(dir, 'layers.yaml');
    writeFileSync(file, 'cluster_name: from-yaml\nnum_tokens: 8\npool_size: 64MiB\ndata_center: dc-yaml\n');
    const c = loadConfig({
      file,
      env: { PMEMCQL_CLUSTER_NAME: 'from-env', PMEMCQL_NUM_TOKENS: '4' },
      flags: { cluster_name: 'from-flag' },
    });
    expect(c.cluster_name).toBe('from-flag');
    expect(c.num_tokens).toBe(4);
    expect(c.pool_size).toBe(64 * 1024 * 1024);
    expect(c.data_center).toBe('dc-yaml');
    expect(c.rpc_address).toBe(c.listen_address);
  });

  it('a configured cluster name and data center reach system.local', async () => {
    const file = join(dir, 'node.yaml');
    writeFileSync(file, `cluster_name: Prod Cluster\ndata_center: dc-east\nrack: r7\nnum_tokens: 4\n`);
    const server = await startServer({ args: ['--config', file] });
    const client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'dc-east' });
    try {
      await client.connect();
      const local = (await client.execute('SELECT cluster_name, data_center, rack, tokens FROM system.local')).first();
      expect(local.cluster_name).toBe('Prod Cluster');
      expect(local.data_center).toBe('dc-east');
      expect(local.rack).toBe('r7');
      expect(local.tokens.length).toBe(4);
      expect(server.output()).toMatch(/"mode":"(disk|emulated|pmem)"/);
    } finally {
      await client.shutdown();
      await server.stop();
    }
  });
  it('reads commitlog_sync and its durations as Cassandra writes them, and refuses what Cassandra refuses', () => {
    const file = (yaml: string) => {
      const f = join(dir, `cl${Math.random().toString(36).slice(2)}.yaml`);
      writeFileSync(f, yaml);
      return f;
    };
    expect(commitLogOptions(loadConfig({}))).toEqual({
      sync: 'periodic',
      periodMs: 10_000,
      groupWindowMs: DEFAULT_GROUP_WINDOW_MS,
      lagBlockMs: 15_000,
    });
    expect(
      commitLogOptions(loadConfig({ file: file('commitlog_sync: periodic\ncommitlog_sync_period: 10s\n') })),
    ).toMatchObject({ sync: 'periodic', periodMs: 10_000, lagBlockMs: 15_000 });
    expect(
      commitLogOptions(loadConfig({ file: file('commitlog_sync: group\ncommitlog_sync_group_window: 15ms\n') })),
    ).toMatchObject({ sync: 'group', groupWindowMs: 15 });
    expect(
      commitLogOptions(
        loadConfig({ env: { PMEMCQL_COMMITLOG_SYNC_PERIOD: '2m', PMEMCQL_PERIODIC_COMMITLOG_SYNC_LAG_BLOCK: '1s' } }),
      ),
    ).toMatchObject({ periodMs: 120_000, lagBlockMs: 1000 });
    // The pre-4.1 names: plain milliseconds.
    expect(commitLogOptions(loadConfig({ file: file('commitlog_sync_period_in_ms: 500\n') }))).toMatchObject({
      periodMs: 500,
      lagBlockMs: 750,
    });
    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused(() => loadConfig({ file: file('commitlog_sync_period: 10000\n') }))).toMatch(
      /'commitlog_sync_period'.*a number needs its unit/,
    );
    expect(refused(() => loadConfig({ file: file('commitlog_sync_group_window: 500us\n') }))).toMatch(
      /'commitlog_sync_group_window'/,
    );
    expect(refused(() => loadConfig({ file: file('commitlog_sync: sometimes\n') }))).toMatch(
      /'commitlog_sync'.*periodic, group, batch/,
    );
    expect(
      refused(() => loadConfig({ file: file('commitlog_sync: batch\ncommitlog_sync_period: 10000ms\n') })),
    ).toMatch(/Batch sync specified, but commitlog_sync_period found/);
    expect(
      refused(() => loadConfig({ file: file('commitlog_sync: group\ncommitlog_sync_period: 10000ms\n') })),
    ).toMatch(/Group sync specified, but commitlog_sync_period found/);
    expect(refused(() => loadConfig({ file: file('disk_sync: journal\n') }))).toMatch(
      /'disk_sync': was replaced by commitlog_sync/,
    );
    expect(refused(() => loadConfig({ env: { PMEMCQL_DISK_SYNC: 'commit' } }))).toMatch(
      /'disk_sync': was replaced by commitlog_sync/,
    );
  });

  it('a server with commitlog_sync: group says so; a write survives a stop and a reboot (pool rebuilt, logged)', async () => {
    const file = join(dir, 'group.yaml');
    writeFileSync(file, 'commitlog_sync: group\ncommitlog_sync_group_window: 5ms\n');
    const dataDir = mkdtempSync(join(dir, 'gdata-'));
    const servers: ServerProcess[] = [];
    const clients: cassandra.Client[] = [];
    const connect = async (server: ServerProcess) => {
      const client = new cassandra.Client({
        contactPoints: [`127.0.0.1:${server.port}`],
        localDataCenter: 'datacenter1',
      });
      clients.push(client);
      await client.connect();
      return client;
    };
    try {
      const first = await startServer({ args: ['--config', file], dataDir, env: { PMEM_IS_PMEM_FORCE: '0' } });
      servers.push(first);
      expect(first.readyLine()).toMatchObject({
        mode: 'disk',
        commitlog_sync: 'group',
        commitlog_sync_group_window: '5ms',
        pool_open: 'created',
      });
      const client = await connect(first);
      const settings = await client.execute(
        "SELECT name, value FROM system_views.settings WHERE name IN ('commitlog_sync', 'commitlog_sync_group_window')",
      );
      expect(Object.fromEntries(settings.rows.map((r) => [r.name, r.value]))).toEqual({
        commitlog_sync: 'group',
        commitlog_sync_group_window: '5ms',
      });
      await client.execute("CREATE KEYSPACE j WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      await client.execute('CREATE TABLE j.t (k int PRIMARY KEY, v text)');
      await client.execute("INSERT INTO j.t (k, v) VALUES (1, 'durable')");
      await client.shutdown();
      expect(await first.stop('SIGTERM')).toBe(0);
      expect(existsSync(join(dataDir, 'pmemcql.image'))).toBe(true);
      // Another boot id: the working pool is not trusted and is rebuilt from the image and the journal.
      const second = await startServer({
        args: ['--config', file],
        dataDir,
        env: { PMEM_IS_PMEM_FORCE: '0', PMEMCQL_BOOT_ID: '6f1c3b8e-0000-4000-8000-000000000001' },
      });
      servers.push(second);
      expect(second.readyLine().pool_open).toBe('rebuilt');
      expect(second.output()).toContain('working pool rebuilt from its image and journal');
      const again = await connect(second);
      const row = (await again.execute('SELECT v FROM j.t WHERE k = 1')).first();
      expect(row?.v).toBe('durable');
    } finally {
      for (const client of clients) await client.shutdown().catch(() => {});
      for (const server of servers) await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('logs a damaged journal record found on open and does not apply it (nor anything after it)', async () => {
    const dataDir = mkdtempSync(join(dir, 'tdata-'));
    const env = { PMEM_IS_PMEM_FORCE: '0', PMEMCQL_COMMITLOG_SYNC: 'batch' };
    const servers: ServerProcess[] = [];
    const connect = async (server: ServerProcess) => {
      const client = new cassandra.Client({
        contactPoints: [`127.0.0.1:${server.port}`],
        localDataCenter: 'datacenter1',
      });
      await client.connect();
      return client;
    };
    try {
      const first = await startServer({ dataDir, env });
      servers.push(first);
      const client = await connect(first);
      await client.execute("CREATE KEYSPACE d WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      await client.execute('CREATE TABLE d.t (k int PRIMARY KEY, v text)');
      await client.execute("INSERT INTO d.t (k, v) VALUES (1, 'kept')");
      const journal = join(dataDir, 'pmemcql.journal-0');
      const before = readFileSync(journal).length;
      await client.execute("INSERT INTO d.t (k, v) VALUES (2, 'damaged-record-marker')");
      await client.execute("INSERT INTO d.t (k, v) VALUES (3, 'after')");
      await client.shutdown();
      expect(await first.stop('SIGKILL')).toBe(null);
      // A flipped byte inside the record that holds row 2 (after what was there before it).
      const bytes = readFileSync(journal);
      const at = bytes.indexOf(Buffer.from('damaged-record-marker'), before);
      expect(at).toBeGreaterThan(before);
      bytes[at] = bytes[at]! ^ 0x20;
      writeFileSync(journal, bytes);
      const second = await startServer({
        dataDir,
        env: { ...env, PMEMCQL_BOOT_ID: '6f1c3b8e-0000-4000-8000-000000000002' },
      });
      servers.push(second);
      expect(second.output()).toMatch(
        /fails its checksum.*"msg":"journal: torn or damaged data found on open, not applied"/,
      );
      const again = await connect(second);
      try {
        const rows = (await again.execute('SELECT k, v FROM d.t')).rows.map((r) => [r.k, r.v]);
        expect(rows).toEqual([[1, 'kept']]);
      } finally {
        await again.shutdown();
      }
    } finally {
      for (const server of servers) await server.stop('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops at start-up naming commitlog_sync when disk_sync is set', () => {
    const r = runWithConfig('disk_sync: ranges\n');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Invalid configuration for 'disk_sync': was replaced by commitlog_sync");
  });
});
