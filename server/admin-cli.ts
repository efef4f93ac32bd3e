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
    const rss = await metric(t, 'process_resident_memory_bytes');
    const start = await metric(t, 'process_start_time_seconds');
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

/** Arrow twin administration: through reads of the read-only system_arrow tables. */
async function arrow(t: Target, action: string, table: string | undefined, file: string | undefined): Promise<void> {
  await withClient(t, async (c) => {
    const [ks, name] = (table ?? '').split('.');
    const mine = (r: cassandra.types.Row) => !table || (r.keyspace_name === ks && (!name || r.table_name === name));
    switch (action) {
      case 'flush':
      case 'compact': {
        const rows = (await c.execute(`SELECT * FROM system_arrow.${action}_now`)).rows.filter(mine);
        for (const r of rows) {
          console.log(
            action === 'flush'
              ? `${r.keyspace_name}.${r.table_name}: segment ${r.segment_id ?? '-'} with ${r.rows} rows (${r.ms} ms)`
              : `${r.keyspace_name}.${r.table_name}: ${JSON.stringify(Object.fromEntries(Object.entries(r)))}`,
          );
        }
        return;
      }
      case 'segments': {
        const rows = (await c.execute('SELECT * FROM system_arrow.segments')).rows.filter(mine);
        console.log('table'.padEnd(30), 'segment', 'rows'.padStart(10), 'deleted'.padStart(10), 'bytes'.padStart(12));
        for (const r of rows) {
          console.log(
            `${r.keyspace_name}.${r.table_name}`.padEnd(30),
            String(r.segment_id).padStart(7),
            String(r.row_count).padStart(10),
            String(r.deleted_count).padStart(10),
            String(r.arrow_size).padStart(12),
          );
        }
        return;
      }
      case 'check': {
        const rows = (await c.execute('SELECT * FROM system_arrow.consistency')).rows.filter(mine);
        for (const r of rows)
          console.log(`${r.keyspace_name}.${r.table_name}: ${JSON.stringify(Object.fromEntries(Object.entries(r)))}`);
        return;
      }
      case 'export': {
        if (!ks || !name || !file) throw new Error('usage: pmemcql-admin arrow export <keyspace.table> <file.arrow>');
        await exportArrow(c, ks, name, file);
        return;
      }
      default:
        throw new Error(`unknown arrow action ${action} (flush, compact, segments, check, export)`);
    }
  });
}

/**
 * Writes a table's live rows as an Arrow IPC file (pyarrow, DuckDB and Polars read it). Columns get the
 * Arrow type of their CQL type (ints, floats, bigints, booleans, text, blobs, timestamps); uuids, inets,
 * decimals, varints and other types become text, collections and UDTs JSON text.
 */
async function exportArrow(c: cassandra.Client, ks: string, table: string, file: string): Promise<void> {
  const arrow = await import('apache-arrow');
  const { writeFileSync } = await import('node:fs');
  const codes = cassandra.types.dataTypes;
  const arrowType = (code: number) => {
    switch (code) {
      case codes.int:
        return new arrow.Int32();
      case codes.smallint:
        return new arrow.Int16();
      case codes.tinyint:
        return new arrow.Int8();
      case codes.bigint:
      case codes.counter:
        return new arrow.Int64();
      case codes.double:
        return new arrow.Float64();
      case codes.float:
        return new arrow.Float32();
      case codes.boolean:
        return new arrow.Bool();
      case codes.blob:
        return new arrow.Binary();
      case codes.timestamp:
        return new arrow.TimestampMillisecond();
      default:
        return new arrow.Utf8();
    }
  };
  const convert = (code: number, v: unknown): unknown => {
    if (v === null || v === undefined) return null;
    if (code === codes.bigint || code === codes.counter) return BigInt(String(v));
    if (code === codes.timestamp) return (v as Date).getTime();
    if (code === codes.blob) return new Uint8Array(v as Buffer);
    if ([codes.int, codes.smallint, codes.tinyint, codes.double, codes.float, codes.boolean].includes(code)) return v;
    if (typeof v === 'object' && !('toJSON' in (v as object) && !Array.isArray(v) && !(v instanceof Map))) {
      return JSON.stringify(v, (_k, x) =>
        x instanceof Map ? Object.fromEntries(x) : typeof x === 'bigint' ? String(x) : x,
      );
    }
    return String(v);
  };
  let names: string[] = [];
  let typeCodes: number[] = [];
  const values: unknown[][] = [];
  let pageState: string | undefined;
  let n = 0;
  do {
    const r = await c.execute(`SELECT * FROM "${ks}"."${table}"`, [], { fetchSize: 5000, pageState });
    if (names.length === 0) {
      names = r.columns.map((col) => col.name);
      typeCodes = r.columns.map((col) => col.type.code);
      for (const _ of names) values.push([]);
    }
    for (const row of r.rows) {
      names.forEach((name, i) => {
        values[i]!.push(convert(typeCodes[i]!, row.get(name)));
      });
      n++;
    }
    pageState = r.pageState ?? undefined;
  } while (pageState);
  const vectors = Object.fromEntries(
    names.map((name, i) => [name, arrow.vectorFromArray(values[i] as never, arrowType(typeCodes[i]!) as never)]),
  );
  const ipc = arrow.tableToIPC(new arrow.Table(vectors as never), 'file');
  writeFileSync(file, ipc);
  console.log(`wrote ${n} rows of ${ks}.${table} to ${file} (${ipc.length} bytes, Arrow IPC file)`);
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
common(
  program
    .command('arrow <action> [table] [file]')
    .description('Arrow twins: flush | compact | segments | check | export <ks.table> <file.arrow>'),
).action((action, table, file, o) => arrow(target(o), action, table, file));
program
  .command('pool-check <path>')
  .description('check a pool file for consistency (server stopped), with pmempool')
  .action((path) => poolCheck(path));

program.parseAsync(process.argv).catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
