// Configuration: YAML with Cassandra-like names, environment and flag overrides, and fail-fast
// errors naming the key — through the real server binary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { startServer } from './support/server-process.js';

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
  it.skipIf(!existsSync('/dev/shm'))(
    'disk_sync: journal runs the journal policy; a write survives a stop and a "reboot"',
    async () => {
      const file = join(dir, 'journal.yaml');
      writeFileSync(file, 'disk_sync: journal\n');
      const dataDir = mkdtempSync(join(dir, 'jdata-'));
      const shmDir = mkdtempSync('/dev/shm/pmemcql-config-');
      const env = { PMEM_IS_PMEM_FORCE: '0', PMEMCQL_JOURNAL_SHM_DIR: shmDir };
      try {
        let server = await startServer({ args: ['--config', file], dataDir, env, keepData: true });
        expect(server.output()).toContain('"mode":"disk"');
        expect(server.output()).toContain('"sync":"journal"');
        expect(server.output()).toContain(`"working_pool":"${shmDir}/pmemcql-`);
        let client = new cassandra.Client({
          contactPoints: [`127.0.0.1:${server.port}`],
          localDataCenter: 'datacenter1',
        });
        await client.connect();
        await client.execute(
          "CREATE KEYSPACE j WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
        );
        await client.execute('CREATE TABLE j.t (k int PRIMARY KEY, v text)');
        await client.execute("INSERT INTO j.t (k, v) VALUES (1, 'durable')");
        await client.shutdown();
        expect(await server.stop('SIGTERM')).toBe(0);
        expect(existsSync(join(dataDir, 'pmemcql.image'))).toBe(true);
        for (const f of readdirSync(shmDir)) rmSync(join(shmDir, f));
        server = await startServer({ args: ['--config', file], dataDir, env, keepData: true });
        client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
        try {
          await client.connect();
          const row = (await client.execute('SELECT v FROM j.t WHERE k = 1')).first();
          expect(row?.v).toBe('durable');
        } finally {
          await client.shutdown();
          await server.stop();
        }
      } finally {
        rmSync(shmDir, { recursive: true, force: true });
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
