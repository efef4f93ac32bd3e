// Arrow twin benchmark through the real server and the npm cassandra-driver:
// one table `k bigint PRIMARY KEY, x double, y double, i int, t text` of N rows (default 1 M; --rows 10000000),
// loaded through the driver with twins on and (separately) off — write throughput — then, on the twinned server,
// `SELECT sum(x)`, `count(*)`, `max(x) WHERE y > ? ALLOW FILTERING` and a full-table scan (paged, fetch size 5000)
// on the columnar path and on the row path (system_arrow.use_row_path), and DuckDB (single thread) over the same
// values generated in SQL. Pool on /dev/shm (emulated pmem).
//
//   npx tsc -p tsconfig.json && node dist/bench/arrow-twin.js [--rows N] [--skip-no-twin] [--no-duckdb] [--writes-only]
//     [--scan-only [--scan-repeat R] [--row-scan] [--raw-scan] [--gocql-scan]] [--pool-size 512MiB]
//     [--repeat R] (runs per query, best kept) [--columnar-repeat R] (runs per columnar query; default --repeat)
//     [--no-gocql] (the full run also scans through gocql when Go and Debian's gocql are installed)
// --scan-only: load (twins on only), flush, then only the full scan on the columnar path, R times (default 5), each
// with the server's CPU (/proc) and this client's CPU (process.cpuUsage) per row; --row-scan adds the row path,
// --raw-scan the same scan read by a minimal client that counts rows without decoding them, --gocql-scan the same
// scan through gocql (bench/gocql-scan/main.go, built offline against Debian's gocql), rows decoded into Go values.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { flag, numberOption, stringOption } from './support/cli-options.js';
import { openDuckDb } from './support/duckdb-engine.js';
import { buildGoBinary } from './support/go-build.js';
import { processCpuMs } from './support/process-cpu.js';
import { RawScanClient } from './support/raw-scan-client.js';

const N = numberOption('--rows', 1_000_000);
const CONCURRENCY = numberOption('--concurrency', 256);
const REPEAT = numberOption('--repeat', 5);
const SCAN_REPEAT = numberOption('--scan-repeat', 5);
// The columnar aggregates take milliseconds: more runs than the row path's seconds-long ones give a steadier best.
const COLUMNAR_REPEAT = numberOption('--columnar-repeat', REPEAT);
const Y_THRESHOLD = 900_000;

// Same formulas as DuckDB's SQL below.
const xOf = (k: number) => (k * 7919) % 10007;
const yOf = (k: number) => (k * 104729) % 1000003;
const iOf = (k: number) => k % 1000;

async function freePort(): Promise<number> {
  return await new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

interface Server {
  child: ChildProcess;
  port: number;
  dir: string;
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-bench-twin-'));
  const main = resolve(import.meta.dirname, '../server/main.js');
  const poolSize = stringOption('--pool-size') ?? `${Math.max(2, Math.ceil((N * 900) / 2 ** 30))}GiB`;
  const child = spawn(
    process.execPath,
    [
      // e.g. BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the server
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      main,
      '--listen-address',
      '127.0.0.1',
      '--port',
      String(port),
      '--data',
      dir,
      '--pool-path',
      join(dir, 'pool'),
      '--pool-size',
      poolSize,
    ],
    {
      env: { ...process.env, PMEM_IS_PMEM_FORCE: '1', PMEMCQL_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((ok, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`server did not start: ${out}`)), 60_000);
    const probe = setInterval(async () => {
      const c = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
      try {
        await c.connect();
        clearInterval(probe);
        clearTimeout(timer);
        ok();
      } catch {
        // not up yet
      } finally {
        await c.shutdown().catch(() => {});
      }
    }, 300);
    child.stdout?.on('data', (d) => {
      out += d;
    });
    child.once('exit', (code) => fail(new Error(`server exited ${code}: ${out}`)));
  });
  return { child, port, dir };
}

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((ok) => s.child.once('exit', ok));
  s.child.kill('SIGTERM');
  await exited;
  rmSync(s.dir, { recursive: true, force: true });
}

/** The server process's CPU time (user + system), ms; undefined where /proc is missing. */
function serverCpuMs(s: Server): number | undefined {
  return processCpuMs(s.child.pid);
}

/** Server CPU per write since `cpu0` (steadier than writes/s on a shared machine). */
function cpuPerWrite(s: Server, cpu0: number | undefined): string {
  const cpu1 = serverCpuMs(s);
  if (cpu0 === undefined || cpu1 === undefined) return '';
  return ` (server CPU ${(((cpu1 - cpu0) * 1000) / N).toFixed(1)} us/write)`;
}

function connect(port: number): cassandra.Client {
  return new cassandra.Client({
    contactPoints: [`127.0.0.1:${port}`],
    localDataCenter: 'datacenter1',
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 2 } },
    socketOptions: { readTimeout: 600_000 },
  });
}

/** Creates the table and loads N rows; returns writes per second. */
async function load(client: cassandra.Client): Promise<number> {
  await client.execute("CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE bench.t (k bigint PRIMARY KEY, x double, y double, i int, t text)');
  const insert = 'INSERT INTO bench.t (k, x, y, i, t) VALUES (?, ?, ?, ?, ?)';
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    for (;;) {
      const k = next++;
      if (k >= N) return;
      await client.execute(insert, [cassandra.types.Long.fromNumber(k), xOf(k), yOf(k), iOf(k), `text-${k % 1000}`], {
        prepare: true,
      });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return N / ((performance.now() - t0) / 1000);
}

async function timeQuery(
  client: cassandra.Client,
  q: string,
  params: unknown[],
  repeat = REPEAT,
): Promise<{ ms: number; value: string }> {
  let best = Number.POSITIVE_INFINITY;
  let value = '';
  for (let r = 0; r < repeat; r++) {
    const t = performance.now();
    const res = await client.execute(q, params, { prepare: true });
    best = Math.min(best, performance.now() - t);
    value = String(res.first()?.values()[0]);
  }
  return { ms: best, value };
}

async function timeScan(
  client: cassandra.Client,
  repeat: number,
  server?: Server,
): Promise<{ ms: number; value: string }> {
  let best = Number.POSITIVE_INFINITY;
  let rows = 0;
  for (let r = 0; r < repeat; r++) {
    rows = 0;
    const s0 = server ? serverCpuMs(server) : undefined;
    const c0 = process.cpuUsage();
    const t = performance.now();
    let pageState: string | undefined;
    do {
      const res = await client.execute('SELECT * FROM bench.t', [], { prepare: true, fetchSize: 5000, pageState });
      rows += res.rowLength;
      pageState = res.pageState ?? undefined;
    } while (pageState);
    const ms = performance.now() - t;
    best = Math.min(best, ms);
    if (server) {
      // CPU per row of each side: on a shared 2-core machine these hold where wall time does not.
      const c = process.cpuUsage(c0);
      const s1 = serverCpuMs(server);
      const serverUs = s0 !== undefined && s1 !== undefined ? (((s1 - s0) * 1000) / rows).toFixed(2) : '?';
      console.log(
        `  scan ${r + 1}: ${ms.toFixed(0)} ms, ${(rows / (ms / 1000)).toFixed(0)} rows/s, server CPU ${serverUs} us/row, client CPU ${((c.user + c.system) / rows).toFixed(2)} us/row`,
      );
    }
  }
  return { ms: best, value: String(rows) };
}

/**
 * The full scan through gocql (a compiled driver: bench/gocql-scan/main.go, rows decoded into typed Go values),
 * `repeat` times; the best run. Throws when Go or Debian's gocql is missing (the caller decides).
 */
async function gocqlScan(s: Server, repeat: number): Promise<{ ms: number; value: string }> {
  const binary = await buildGoBinary(resolve(import.meta.dirname, '../../bench/gocql-scan/main.go'), 'gocql-scan');
  const s0 = serverCpuMs(s);
  const out = await new Promise<string>((ok, fail) =>
    execFile(binary, [String(s.port), '5000', String(repeat)], { timeout: 600_000 }, (err, stdout, stderr) =>
      err ? fail(new Error(`gocql-scan failed: ${err.message}\n${stderr}`)) : ok(stdout),
    ),
  );
  const s1 = serverCpuMs(s);
  const runs = JSON.parse(out) as { rows: number; ms: number; cpu_ms: number }[];
  console.log('full scan, columnar path, through gocql (rows decoded into Go values):');
  runs.forEach((r, i) => {
    if (r.rows !== N) throw new Error(`gocql scan saw ${r.rows} rows, expected ${N}`);
    console.log(
      `  gocql scan ${i + 1}: ${r.ms.toFixed(0)} ms, ${(r.rows / (r.ms / 1000)).toFixed(0)} rows/s, client CPU ${((r.cpu_ms * 1000) / r.rows).toFixed(2)} us/row`,
    );
  });
  if (s0 !== undefined && s1 !== undefined) {
    const rows = runs.reduce((a, r) => a + r.rows, 0);
    console.log(`  server CPU over the gocql runs: ${(((s1 - s0) * 1000) / rows).toFixed(2)} us/row`);
  }
  return { ms: Math.min(...runs.map((r) => r.ms)), value: String(N) };
}

async function main(): Promise<void> {
  console.log(`Arrow twin bench: ${N} rows, ${CONCURRENCY} writes in flight, best of ${REPEAT}`);
  let writesNoTwin: number | undefined;
  if (!flag('--skip-no-twin') && !flag('--scan-only')) {
    const s = await startServer({ PMEMCQL_TWINS: 'off' });
    const c = connect(s.port);
    const cpu0 = serverCpuMs(s);
    writesNoTwin = await load(c);
    console.log(`writes/s without twins: ${writesNoTwin.toFixed(0)}${cpuPerWrite(s, cpu0)}`);
    await c.shutdown();
    await stopServer(s);
  }
  const s = await startServer({});
  const c = connect(s.port);
  const cpu0 = serverCpuMs(s);
  const writesTwin = await load(c);
  console.log(`writes/s with twins:    ${writesTwin.toFixed(0)}${cpuPerWrite(s, cpu0)}`);
  const buffers = await c.execute('SELECT * FROM system_arrow.buffers');
  console.log(`last background flush: ${buffers.first()?.get('last_flush_ms')} ms`);
  if (flag('--writes-only')) {
    if (writesNoTwin)
      console.log(`write cost of twins: ${(((writesNoTwin - writesTwin) / writesNoTwin) * 100).toFixed(1)}% slower`);
    await c.shutdown();
    await stopServer(s);
    return;
  }
  const flush = await c.execute('SELECT * FROM system_arrow.flush_now');
  console.log(`final flush: ${JSON.stringify(flush.rows.map((r) => [r.get('rows'), r.get('ms')]))}`);
  const segs = await c.execute(
    "SELECT segment_id, row_count, arrow_size FROM system_arrow.segments WHERE keyspace_name = 'bench' AND table_name = 't' ALLOW FILTERING",
  );
  console.log(`segments: ${segs.rowLength}, rows ${segs.rows.reduce((a, r) => a + (r.get('row_count') as number), 0)}`);

  if (flag('--scan-only')) {
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log('full scan, columnar path:');
    const col = await timeScan(c, SCAN_REPEAT, s);
    console.log(`best: ${(N / (col.ms / 1000)).toFixed(0)} rows/s (${col.value} rows)`);
    const stats = (await c.execute('SELECT * FROM system_arrow.use_auto_path')).first();
    console.log(
      `pages written from Arrow: ${stats.get('encoded')}, answered by read-ahead: ${stats.get('read_ahead')}`,
    );
    if (flag('--raw-scan')) {
      // The same scan read by a client that does not decode rows: what the server delivers.
      const raw = await RawScanClient.connect(s.port);
      console.log('full scan, columnar path, raw client (rows counted, not decoded):');
      for (let r = 0; r < SCAN_REPEAT; r++) {
        const s0 = serverCpuMs(s);
        const c0 = process.cpuUsage();
        const t = performance.now();
        const rows = await raw.scan('SELECT * FROM bench.t', 5000);
        const ms = performance.now() - t;
        const cpu = process.cpuUsage(c0);
        const s1 = serverCpuMs(s);
        const serverUs = s0 !== undefined && s1 !== undefined ? (((s1 - s0) * 1000) / rows).toFixed(2) : '?';
        console.log(
          `  raw scan ${r + 1}: ${ms.toFixed(0)} ms, ${(rows / (ms / 1000)).toFixed(0)} rows/s, server CPU ${serverUs} us/row, client CPU ${((cpu.user + cpu.system) / rows).toFixed(2)} us/row`,
        );
      }
      raw.close();
    }
    if (flag('--gocql-scan')) {
      const best = await gocqlScan(s, SCAN_REPEAT);
      console.log(`best: ${(N / (best.ms / 1000)).toFixed(0)} rows/s through gocql`);
    }
    if (flag('--row-scan')) {
      await c.execute('SELECT * FROM system_arrow.use_row_path');
      console.log('full scan, row path:');
      const row = await timeScan(c, SCAN_REPEAT, s);
      console.log(`best: ${(N / (row.ms / 1000)).toFixed(0)} rows/s (${row.value} rows)`);
      await c.execute('SELECT * FROM system_arrow.use_auto_path');
    }
    await c.shutdown();
    await stopServer(s);
    return;
  }
  const queries: [string, string, unknown[]][] = [
    ['sum(x)', 'SELECT sum(x) FROM bench.t', []],
    ['count(*)', 'SELECT count(*) FROM bench.t', []],
    [`max(x) WHERE y > ${Y_THRESHOLD}`, 'SELECT max(x) FROM bench.t WHERE y > ? ALLOW FILTERING', [Y_THRESHOLD]],
  ];
  const results: Record<
    string,
    {
      columnar?: { ms: number; value: string };
      row?: { ms: number; value: string };
      duck?: { ms: number; value: string };
    }
  > = {};
  for (const [name, q, p] of queries) {
    await c.execute('SELECT * FROM system_arrow.use_auto_path');
    const columnar = await timeQuery(c, q, p, COLUMNAR_REPEAT);
    await c.execute('SELECT * FROM system_arrow.use_row_path');
    const row = await timeQuery(c, q, p);
    results[name] = { columnar, row };
  }
  await c.execute('SELECT * FROM system_arrow.use_auto_path');
  const scanC = await timeScan(c, 2);
  await c.execute('SELECT * FROM system_arrow.use_row_path');
  const scanR = await timeScan(c, 2);
  await c.execute('SELECT * FROM system_arrow.use_auto_path');
  results['full scan (driver, pages of 5000)'] = { columnar: scanC, row: scanR };
  let gocql: { ms: number; value: string } | undefined;
  if (!flag('--no-gocql')) {
    try {
      gocql = await gocqlScan(s, 2);
    } catch (e) {
      console.log(`gocql scan skipped: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  await c.shutdown();
  await stopServer(s);

  if (!flag('--no-duckdb')) {
    try {
      const instance = await openDuckDb();
      const con = await instance.connect();
      await con.run('SET threads=1');
      await con.run(
        `CREATE TABLE t AS SELECT k::BIGINT AS k, ((k * 7919) % 10007)::DOUBLE AS x, ((k * 104729) % 1000003)::DOUBLE AS y,
         (k % 1000)::INTEGER AS i, 'text-' || (k % 1000) AS t FROM range(${N}) r(k)`,
      );
      const one = async (sql: string) => {
        let best = Number.POSITIVE_INFINITY;
        let value = '';
        for (let r = 0; r < REPEAT; r++) {
          const t = performance.now();
          value = String((await (await con.run(sql)).getRowsJS())[0]![0]);
          best = Math.min(best, performance.now() - t);
        }
        return { ms: best, value };
      };
      results['sum(x)']!.duck = await one('SELECT sum(x) FROM t');
      results['count(*)']!.duck = await one('SELECT count(*) FROM t');
      results[`max(x) WHERE y > ${Y_THRESHOLD}`]!.duck = await one(`SELECT max(x) FROM t WHERE y > ${Y_THRESHOLD}`);
      con.closeSync();
      instance.closeSync();
    } catch (e) {
      console.log(`duckdb skipped: ${(e as Error).message}`);
    }
  }

  console.log('');
  console.log(
    `${'query'.padEnd(36)} ${'columnar ms'.padStart(12)} ${'row ms'.padStart(10)} ${'row/col'.padStart(8)} ${'duckdb ms'.padStart(10)}  answers`,
  );
  for (const [name, r] of Object.entries(results)) {
    const ratio = r.row && r.columnar ? (r.row.ms / r.columnar.ms).toFixed(1) : '';
    console.log(
      `${name.padEnd(36)} ${r.columnar!.ms.toFixed(1).padStart(12)} ${r.row!.ms.toFixed(1).padStart(10)} ${ratio.padStart(8)} ${(r.duck ? r.duck.ms.toFixed(1) : '-').padStart(10)}  ${r.columnar!.value} | ${r.row!.value}${r.duck ? ` | ${r.duck.value}` : ''}`,
    );
  }
  const scan = results['full scan (driver, pages of 5000)']!;
  console.log(
    `full scan rows/s: columnar ${(N / (scan.columnar!.ms / 1000)).toFixed(0)}, row ${(N / (scan.row!.ms / 1000)).toFixed(0)} (npm driver)${gocql ? `; columnar through gocql ${(N / (gocql.ms / 1000)).toFixed(0)}` : ''}`,
  );
  if (writesNoTwin)
    console.log(`write cost of twins: ${(((writesNoTwin - writesTwin) / writesNoTwin) * 100).toFixed(1)}% slower`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
