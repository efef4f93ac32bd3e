#!/usr/bin/env node
// pmemcql-admin: nodetool-like commands against a running server. Cluster state comes over CQL
// (system tables), process figures from the metrics endpoint; `pool check` runs PMDK's pmempool on
// a pool file (with the server stopped).

import { spawnSync } from 'node:child_process';
import cassandra from 'cassandra-driver';
import { Command } from 'commander';

interface Target {
  host: string;
  port: number;
  dc: string;
  metricsPort: number;
}

function target(opts: Record<string, string>): Target {
  return {
    host: opts.host ?? '127.0.0.1',
    port: Number(opts.port ?? 9042),
    dc: opts.dc ?? 'datacenter1',
    metricsPort: Number(opts.metricsPort ?? 9180),
  };
}

async function withClient<T>(t: Target, run: (c: cassandra.Client) => Promise<T>): Promise<T> {
  const client = new cassandra.Client({ contactPoints: [`${t.host}:${t.port}`], localDataCenter: t.dc });
  try {
    await client.connect();
    return await run(client);
  } finally {
    await client.shutdown();
  }
}

async function metric(t: Target, name: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://${t.host}:${t.metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.split(' ').pop()) : undefined;
  } catch {
    return undefined;
  }
}

function bytes(n: number | undefined): string {
  if (n === undefined) return '?';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(i === 0 ? 0 : 2)} ${units[i]}`;
}

async function status(t: Target): Promise<void> {
  await withClient(t, async (c) => {
    const local = (await c.execute('SELECT * FROM system.local')).first();
    const used = await metric(t, 'pmemcql_pool_bytes{kind="used"}');
    console.log(`Datacenter: ${local.data_center}`);
    console.log('='.repeat(12 + String(local.data_center).length));
    console.log('Status=Up/Down\n|/ State=Normal/Leaving/Joining/Moving');
    console.log('--  Address         Load        Tokens  Owns (effective)  Host ID                               Rack');
    console.log(
      `UN  ${String(local.rpc_address).padEnd(14)}  ${bytes(used).padEnd(10)}  ${String(local.tokens.length).padEnd(6)}  100.0%            ${local.host_id}  ${local.rack}`,
    );
  });
}

async function info(t: Target): Promise<void> {
  await withClient(t, async (c) => {
    const local = (await c.execute('SELECT * FROM system.local')).first();
    const rss = await metric(t, 'pmemcql_process_resident_memory_bytes');
    const start = await metric(t, 'pmemcql_process_start_time_seconds');
    const size = await metric(t, 'pmemcql_pool_bytes{kind="size"}');
    const used = await metric(t, 'pmemcql_pool_bytes{kind="used"}');
    const rows: [string, string][] = [
      ['ID', String(local.host_id)],
      ['Native Transport active', 'true'],
      ['Load', bytes(used)],
      ['Pool size', bytes(size)],
      ['Uptime (seconds)', start ? String(Math.round(Date.now() / 1000 - start)) : '?'],
      ['Resident memory', bytes(rss)],
      ['Data Center', String(local.data_center)],
      ['Rack', String(local.rack)],
      ['Release version', String(local.release_version)],
      ['Schema version', String(local.schema_version)],
      ['Token', `(invoke with -T/--tokens to see all ${local.tokens.length} tokens)`],
    ];
    for (const [k, v] of rows) console.log(`${k.padEnd(24)}: ${v}`);
  });
}

async function tablestats(t: Target, filter: string | undefined): Promise<void> {
  const [ksFilter, tableFilter] = (filter ?? '').split('.');
  await withClient(t, async (c) => {
    const tables = (await c.execute('SELECT keyspace_name, table_name FROM system_schema.tables')).rows.filter(
      (r) =>
        !String(r.keyspace_name).startsWith('system') &&
        (!ksFilter || r.keyspace_name === ksFilter) &&
        (!tableFilter || r.table_name === tableFilter),
    );
    const estimates = (await c.execute('SELECT keyspace_name, table_name, partitions_count FROM system.size_estimates'))
      .rows;
    let ks = '';
    for (const r of tables) {
      if (r.keyspace_name !== ks) {
        ks = r.keyspace_name;
        console.log(`Keyspace : ${ks}`);
      }
      const partitions = estimates
        .filter((e) => e.keyspace_name === ks && e.table_name === r.table_name)
        .reduce((sum, e) => sum + Number(e.partitions_count), 0);
      console.log(`\t\tTable: ${r.table_name}`);
      console.log(`\t\tNumber of partitions (estimate): ${partitions}`);
      console.log('');
    }
  });
}

function poolCheck(path: string): void {
  const r = spawnSync('pmempool', ['check', '--verbose', path], { encoding: 'utf8' });
  if (r.error) {
    console.error(`pmempool is not available: ${r.error.message} (install pmdk-tools)`);
    process.exit(2);
  }
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exit(r.status ?? 1);
}

const program = new Command().name('pmemcql-admin').description('Administer a running pmemcql server (like nodetool)');
const common = (cmd: Command) =>
  cmd
    .option('-h, --host <host>', 'server address', '127.0.0.1')
    .option('-p, --port <port>', 'native transport port', '9042')
    .option('--dc <dc>', 'local data center', 'datacenter1')
    .option('--metrics-port <port>', 'metrics endpoint port', '9180');
common(program.command('status').description('node state, load, tokens, ownership')).action((o) => status(target(o)));
common(program.command('info').description('host id, load, uptime, memory')).action((o) => info(target(o)));
common(program.command('tablestats [table]').description('per-table statistics (keyspace or keyspace.table)')).action(
  (table, o) => tablestats(target(o), table),
);
program
  .command('pool-check <path>')
  .description('check a pool file for consistency (server stopped), with pmempool')
  .action((path) => poolCheck(path));

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
