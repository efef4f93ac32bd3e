// Write throughput under each commit log policy, side by side in one run, with the client and table of the
// Cassandra comparison (docs/benchmarks.md, "Durability policies"): cassandra-driver, prepared single-row INSERTs
// into cassandra-stress's table `standard1 (key blob PRIMARY KEY, "C0".."C4" blob)` with 34-byte values. For each
// policy a fresh server (a journaled pool in a directory on disk; `emulated`: pmem emulated on /dev/shm), warmed up,
// then:
//   - writes: --ops INSERTs of new keys, --in-flight requests outstanding, from --clients worker processes;
//   - mixed 1:1: --ops requests, every other one an INSERT, the others SELECTs by key of rows written before;
//   - reads: --ops SELECTs by key;
//   - one in flight: --single-ops INSERTs from one process over one connection, one at a time (a loader, cqlsh COPY);
// with ops/s, latency percentiles and the server's CPU per operation (/proc). Ratios are against Cassandra: a live
// node with --compare-host HOST[:PORT] (the same runs against it, keyspace `bench_cmp`), else the figures the
// comparison measured (Cassandra 4.0, default settings, same client and machine).
//
//   npx tsc -p tsconfig.json && node dist/bench/commitlog-throughput.js [--policies periodic,group,batch,emulated]
//     [--ops 100000] [--in-flight 64] [--clients 2] [--single-ops 10000] [--warmup 30000] [--pool-size 4GiB]
//     [--group-window 1ms] [--compare-host 10.0.0.5] [--port N --server-pid P] (a server already running, e.g. under
//     perf, measured alone)

import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import cassandra from 'cassandra-driver';
import { HEAP_FLOOR_FLAG } from '../server/heap-floor.js';
import { startBenchServer } from './support/bench-server.js';
import { numberOption, stringOption } from './support/cli-options.js';
import { processCpuMs } from './support/process-cpu.js';

type Kind = 'insert' | 'select' | 'mixed';

interface Job {
  host: string;
  port: number;
  keyspace: string;
  kind: Kind;
  first: number;
  count: number;
  concurrency: number;
  /** Keys below this were written before (what SELECTs and the mixed run's reads pick from). */
  written: number;
}

interface Report {
  latencies: number[];
}

interface Result {
  ops: number;
  p50: number;
  p99: number;
  max: number;
  serverCpuUs: number | undefined;
}

/** Cassandra 4.0 with its default settings (periodic commitlog), same client and machine (docs/benchmarks.md). */
const CASSANDRA_REFERENCE = {
  writes: 17_078,
  writeP50: 2.4,
  writeP99: 18.8,
  mixed: 22_722,
  reads: 18_153,
  single: 930,
};

const VALUE_BYTES = 34;
const columns = ['"C0"', '"C1"', '"C2"', '"C3"', '"C4"'];
const INSERT = (ks: string) => `INSERT INTO ${ks}.standard1 (key, ${columns.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`;
const SELECT = (ks: string) => `SELECT * FROM ${ks}.standard1 WHERE key = ?`;

/** cassandra-stress's keys are 10-byte blobs. */
function keyOf(i: number): Buffer {
  const k = Buffer.alloc(10);
  k.writeUIntBE(i, 4, 6);
  k.writeUInt32BE(0x706d6571, 0);
  return k;
}

function valueOf(i: number, c: number): Buffer {
  const v = Buffer.alloc(VALUE_BYTES, 0x41 + c);
  v.writeUInt32BE(i >>> 0, 0);
  return v;
}

async function worker(job: Job): Promise<void> {
  const client = new cassandra.Client({
    contactPoints: [`${job.host}:${job.port}`],
    localDataCenter: 'datacenter1',
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 }, maxRequestsPerConnection: 4096 },
  });
  await client.connect();
  const insert = INSERT(job.keyspace);
  const select = SELECT(job.keyspace);
  const options = { prepare: true };
  const send = (i: number, done: (err: Error | null) => void) => {
    const n = job.first + i;
    const read = job.kind === 'select' || (job.kind === 'mixed' && i % 2 === 1);
    if (read) {
      client.execute(select, [keyOf((n * 7919) % job.written)], options, (err) => done(err ?? null));
    } else {
      client.execute(insert, [keyOf(n), ...columns.map((_, c) => valueOf(n, c))], options, (err) => done(err ?? null));
    }
  };
  const sendAsync = (i: number) => new Promise<void>((ok, fail) => send(i, (e) => (e ? fail(e) : ok())));
  // Both statements prepared before anything is timed (a key of its own, far above the workload's).
  const spare = 2 ** 40 + job.first;
  await client.execute(insert, [keyOf(spare), ...columns.map((_, c) => valueOf(spare, c))], options);
  await client.execute(select, [keyOf(spare)], options);
  process.send!({ ready: true });
  await new Promise<void>((ok) => process.once('message', () => ok()));
  const latencies = new Float64Array(job.count);
  let next = 0;
  const loop = async () => {
    for (;;) {
      const i = next++;
      if (i >= job.count) return;
      const t0 = performance.now();
      await sendAsync(i);
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  process.send!({ latencies: Array.from(latencies) } satisfies Report);
  await client.shutdown();
}

/** One workload over `clients` worker processes started together; the server's CPU read around it. */
async function run(
  target: { host: string; port: number; pid: number | undefined; keyspace: string },
  kind: Kind,
  total: number,
  inFlight: number,
  clients: number,
  first: number,
  written: number,
): Promise<Result> {
  const share = Math.floor(total / clients);
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const reports: Promise<Report>[] = [];
  for (let w = 0; w < clients; w++) {
    const job: Job = {
      host: target.host,
      port: target.port,
      keyspace: target.keyspace,
      kind,
      first: first + w * share,
      count: share,
      concurrency: Math.max(1, Math.floor(inFlight / clients)),
      written: Math.max(1, written),
    };
    const child = fork(import.meta.filename, ['--worker', JSON.stringify(job)], {
      stdio: 'inherit',
      execArgv: [...process.execArgv, HEAP_FLOOR_FLAG],
    });
    children.push(child);
    ready.push(
      new Promise((ok, fail) => {
        child.once('message', () => ok());
        child.once('exit', (code) => fail(new Error(`worker exited ${code} before it was ready`)));
      }),
    );
    reports.push(
      new Promise((ok, fail) => {
        child.on('message', (m: Partial<Report>) => {
          if (m.latencies) ok(m as Report);
        });
        child.once('exit', (code) => (code ? fail(new Error(`worker exited ${code}`)) : undefined));
      }),
    );
  }
  await Promise.all(ready);
  const cpu0 = processCpuMs(target.pid);
  const start = performance.now();
  for (const c of children) c.send({ go: true });
  const done = await Promise.all(reports);
  const seconds = (performance.now() - start) / 1000;
  const cpu1 = processCpuMs(target.pid);
  const lat = Float64Array.from(done.flatMap((r) => r.latencies)).sort();
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))]!;
  return {
    ops: lat.length / seconds,
    p50: q(0.5),
    p99: q(0.99),
    max: lat[lat.length - 1]!,
    serverCpuUs: cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1000) / lat.length : undefined,
  };
}

interface PolicyResult {
  name: string;
  writes: Result;
  mixed: Result;
  reads: Result;
  single: Result;
}

async function measure(
  name: string,
  target: { host: string; port: number; pid: number | undefined; keyspace: string },
): Promise<PolicyResult> {
  const ops = numberOption('--ops', 100_000);
  const inFlight = numberOption('--in-flight', 64);
  const clients = numberOption('--clients', 2);
  const singleOps = numberOption('--single-ops', 10_000);
  const warmup = numberOption('--warmup', 30_000);
  const admin = new cassandra.Client({
    contactPoints: [`${target.host}:${target.port}`],
    localDataCenter: 'datacenter1',
  });
  await admin.connect();
  await admin.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${target.keyspace} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  );
  await admin.execute(
    `CREATE TABLE IF NOT EXISTS ${target.keyspace}.standard1 (key blob PRIMARY KEY, ${columns.map((c) => `${c} blob`).join(', ')})`,
  );
  await admin.shutdown();
  // Warm: V8 has compiled the server's write and read paths before anything is timed.
  process.stderr.write(`${name}: warm-up...\n`);
  await run(target, 'insert', warmup, inFlight, clients, 0, 0);
  await run(target, 'select', warmup / 2, inFlight, clients, 0, warmup);
  let base = warmup;
  process.stderr.write(`${name}: writes...\n`);
  const writes = await run(target, 'insert', ops, inFlight, clients, base, base);
  base += ops;
  process.stderr.write(`${name}: mixed...\n`);
  const mixed = await run(target, 'mixed', ops, inFlight, clients, base, base);
  base += ops;
  process.stderr.write(`${name}: reads...\n`);
  const reads = await run(target, 'select', ops, inFlight, clients, base, base);
  process.stderr.write(`${name}: one in flight...\n`);
  const single = await run(target, 'insert', singleOps, 1, 1, base + ops, base);
  return { name, writes, mixed, reads, single };
}

function loadNow(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function main(): Promise<void> {
  const policies = (stringOption('--policies') ?? 'periodic,group,batch,emulated').split(',');
  const poolSize = stringOption('--pool-size') ?? '4GiB';
  const groupWindow = stringOption('--group-window');
  const results: PolicyResult[] = [];
  const loads: string[] = [`start ${loadNow()}`];
  const port = stringOption('--port');
  if (port) {
    const pid = stringOption('--server-pid');
    results.push(
      await measure('running server', {
        host: '127.0.0.1',
        port: Number(port),
        pid: pid ? Number(pid) : undefined,
        keyspace: 'bench',
      }),
    );
    policies.length = 0;
  }
  for (const policy of policies) {
    const emulated = policy === 'emulated';
    const server = await startBenchServer(emulated ? 'emulated' : 'disk', {
      poolSize,
      env: emulated
        ? {}
        : {
            PMEMCQL_COMMITLOG_SYNC: policy,
            ...(policy === 'group' && groupWindow ? { PMEMCQL_COMMITLOG_SYNC_GROUP_WINDOW: groupWindow } : {}),
          },
    });
    try {
      results.push(
        await measure(policy, { host: '127.0.0.1', port: server.port, pid: server.child.pid, keyspace: 'bench' }),
      );
    } finally {
      await server.stop();
    }
    loads.push(`after ${policy} ${loadNow()}`);
  }
  const compare = stringOption('--compare-host');
  let reference = CASSANDRA_REFERENCE;
  let referenceName = 'Cassandra 4.0 defaults, measured earlier (docs/benchmarks.md)';
  if (compare) {
    const [host, port] = compare.split(':');
    const c = await measure('cassandra', {
      host: host!,
      port: Number(port ?? 9042),
      pid: undefined,
      keyspace: 'bench_cmp',
    });
    results.push(c);
    reference = {
      writes: c.writes.ops,
      writeP50: c.writes.p50,
      writeP99: c.writes.p99,
      mixed: c.mixed.ops,
      reads: c.reads.ops,
      single: c.single.ops,
    };
    referenceName = `Cassandra at ${compare}, measured in this run`;
  }
  const ops = numberOption('--ops', 100_000);
  console.log(
    `\n${ops} operations per run at ${numberOption('--in-flight', 64)} in flight from ${numberOption('--clients', 2)} client processes ` +
      `(cassandra-driver, prepared, standard1 with 5 x ${VALUE_BYTES}-byte values), one in flight: ${numberOption('--single-ops', 10_000)} INSERTs ` +
      `over one connection; ${spawnSync('nproc').stdout.toString().trim()} CPUs, load average ${loads.join(', ')}`,
  );
  console.log(
    '| policy | writes/s | x Cassandra | p50 / p99 / max ms | server CPU µs/write | mixed 1:1 ops/s | x Cassandra | reads/s | one in flight rows/s | x Cassandra |',
  );
  console.log('| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  const x = (a: number, b: number) => (a / b).toFixed(2);
  for (const r of results) {
    const w = r.writes;
    console.log(
      `| ${r.name} | ${Math.round(w.ops)} | ${x(w.ops, reference.writes)} | ${w.p50.toFixed(2)} / ${w.p99.toFixed(2)} / ${w.max.toFixed(1)} | ` +
        `${w.serverCpuUs === undefined ? '-' : w.serverCpuUs.toFixed(1)} | ${Math.round(r.mixed.ops)} | ${x(r.mixed.ops, reference.mixed)} | ` +
        `${Math.round(r.reads.ops)} | ${Math.round(r.single.ops)} | ${x(r.single.ops, reference.single)} |`,
    );
  }
  console.log(
    `\nRatios against ${referenceName}: ${Math.round(reference.writes)} writes/s (p50 ${reference.writeP50} ms, p99 ${reference.writeP99} ms), ` +
      `${Math.round(reference.mixed)} mixed ops/s, ${Math.round(reference.reads)} reads/s, ${Math.round(reference.single)} rows/s one at a time.`,
  );
}

const workerJob = stringOption('--worker');
(workerJob ? worker(JSON.parse(workerJob) as Job) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
