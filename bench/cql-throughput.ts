// Full-stack throughput: prepared INSERT and SELECT by key through cassandra-driver against a real
// server (started here, emulated or disk mode), at several numbers of requests in flight. The load
// comes from `--clients` worker processes (default 2) so that the driver, not the server, is not the
// single-core bottleneck of the measurement.
// The client processes' own CPU per operation is printed next to the server's: on a shared machine the two
// together bound the throughput (2 cores at 40 k ops/s leave ~50 µs of CPU per operation for both).
// Run: npx tsc -p tsconfig.json && node dist/bench/cql-throughput.js [--ops 200000] [--mode emulated|disk] [--clients 2] [--pool-size 4GiB]
//   (PMEMCQL_COMMITLOG_SYNC=periodic|group|batch in the environment picks the disk pool's commit log policy)
//   [--warmup 80000] (untimed INSERTs and SELECTs first, so that V8 has compiled the hot path: in a cold server
//   TurboFan's compiler threads took ~35 % of the first 40 000 requests' CPU) [--in-flight 64,256] [--only insert|select] [--port N --server-pid P] (an already running server, e.g. under
//   `node --cpu-prof`) [--rate N[,N...]] (open loop: N requests/s in all, one run per rate, for latency at a given load; the in-flight
//   figure is then the most outstanding at once) [--lean-driver] (driver settings that save client CPU, see leanDriverOptions)
//   [--client-warmup 5000] (untimed requests each client process sends before the timed phase)
//   [--raw-client] (bench/support/raw-execute-client.ts instead of cassandra-driver: about half its CPU per request, to
//   tell the server's share of a latency tail from the load generator's; the issue's figures are the driver's)
//   [--keep-table] (no TRUNCATE before each INSERT run: each run then adds its rows to the earlier runs', and the tail
//   grows with the table, docs/benchmarks.md; the table's rows after each run are printed)
//   [--no-client-heap-floor] (client processes without the server's old-generation floor, server/heap-floor.ts:
//   cassandra-driver then ran ~40 mark-compacts a 30 s run at 20 000/s, see clientNodeArgs)
//   [--slow-log FILE] (open loop: append each request slower than 5 ms, due time and latency, see writeSlowLog)
//   [--gap-probe] (the server started here and the client processes run support/event-loop-gap-probe.js: after the
//   table, each timed run's event-loop gaps over 4 ms, split into running / waiting for a CPU / neither, and GC
//   pauses; the server's, and the clients' summed — an open loop's latency counts the clients' stalls too; and an
//   idle control process's, support/idle-control.ts: the stalls the machine imposed on a process with no work)

import { type ChildProcess, fork, spawn } from 'node:child_process';
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { HEAP_FLOOR_FLAG, heapFloorMb } from '../server/heap-floor.js';
import { startBenchServer } from './support/bench-server.js';
import { flag, numberOption, stringOption } from './support/cli-options.js';
import { type GapSummary, gapTable, type RunWindow, sumGaps, summarizeGaps } from './support/event-loop-gaps.js';
import { processCpuMs } from './support/process-cpu.js';
import { RawExecuteClient } from './support/raw-execute-client.js';

interface Result {
  name: string;
  concurrency: number;
  /** Open loop: the requests/s asked for (0: closed loop). */
  rate: number;
  ops: number;
  p50: number;
  p99: number;
  max: number;
  /** Server CPU per operation (µs), when /proc shows it. */
  serverCpuUs: number | undefined;
  /** The client processes' CPU per operation (µs), from process.cpuUsage() in each worker. */
  clientCpuUs: number;
  /** Wall-clock span of the timed part (ms since the epoch), for --gap-probe. */
  from: number;
  to: number;
  /** --gap-probe: the client processes' event-loop gaps in the timed part, summed. */
  clientGaps?: GapSummary;
  /** Rows in the table after the run. */
  rows?: number;
}

interface WorkerJob {
  port: number;
  kind: 'insert' | 'select';
  first: number;
  count: number;
  concurrency: number;
  /** Driver settings a user of a one-node cluster may choose to save client CPU (see leanDriverOptions). */
  leanDriver: boolean;
  /** Open loop: this worker's requests per second (0: as fast as `concurrency` allows). */
  rate: number;
  /** Untimed requests this worker sends first, so that its own driver code is compiled when timing starts. */
  clientWarmup: number;
  /** Where to append this worker's slow requests (see writeSlowLog); empty: nowhere. */
  slowLog: string;
  /** `--raw-client`: support/raw-execute-client.ts instead of cassandra-driver. */
  rawClient: boolean;
}

/**
 * `--lean-driver`: no per-request read timeout timer (readTimeout 0) and round-robin instead of token-aware
 * routing (with one node the token — a Murmur3 hash of every routing key in JS — picks nothing).
 */
function leanDriverOptions(): Partial<cassandra.ClientOptions> {
  return {
    socketOptions: { readTimeout: 0 },
    policies: { loadBalancing: new cassandra.policies.loadBalancing.DCAwareRoundRobinPolicy('datacenter1') },
  };
}

/**
 * Node options of the client processes: this process's, plus the server's heap floor (server/heap-floor.ts) unless
 * `--no-client-heap-floor`. cassandra-driver keeps each in-flight request's objects across scavenges, so its old
 * generation grows and, from V8's small initial limit, ran ~40 mark-compacts a 30 s run at 20 000 requests/s.
 */
function clientNodeArgs(): string[] {
  const args = [...process.execArgv];
  if (!flag('--no-client-heap-floor') && heapFloorMb(args) === undefined) args.push(HEAP_FLOOR_FLAG);
  return args;
}

/** What a worker sends back once its share is done. */
interface WorkerReport {
  latencies: number[];
  /** CPU (µs, user + system) the worker used between the start signal and its last answer. */
  cpuUs: number;
}

/** --gap-probe: the server's probe file; each client process writes its own beside it. */
const gapFile = flag('--gap-probe') ? join(tmpdir(), `pmemcql-gap-probe-${process.pid}.json`) : '';
const GAP_PROBE = resolve(import.meta.dirname, 'support/event-loop-gap-probe.js');
const IDLE_CONTROL = resolve(import.meta.dirname, 'support/idle-control.js');

const INSERT = 'INSERT INTO bench.kv (k, v) VALUES (?, ?)';
const SELECT = 'SELECT v FROM bench.kv WHERE k = ?';

/** How a worker sends request `key` of its workload: through cassandra-driver, or a driver-less client. */
interface LoadConnection {
  send(key: number, done: (err: Error | null) => void): void;
  close(): Promise<void>;
}

async function driverConnection(job: WorkerJob, value: Buffer): Promise<LoadConnection> {
  const client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${job.port}`],
    localDataCenter: 'datacenter1',
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 }, maxRequestsPerConnection: 4096 },
    ...(job.leanDriver ? leanDriverOptions() : {}),
  });
  await client.connect();
  const query = job.kind === 'insert' ? INSERT : SELECT;
  const options = { prepare: true };
  return {
    // The driver's callback API: a promise per request was the load generator's own cost.
    send: (key, done) => {
      const k = cassandra.types.Long.fromNumber(key);
      client.execute(query, job.kind === 'insert' ? [k, value] : [k], options, (err) => done(err ?? null));
    },
    close: () => client.shutdown(),
  };
}

/** `--raw-client`: one connection of support/raw-execute-client.ts, the key encoded here as a bigint's 8 bytes. */
async function rawConnection(job: WorkerJob, value: Buffer): Promise<LoadConnection> {
  const raw = await RawExecuteClient.connect(job.port);
  const id = await raw.prepare(job.kind === 'insert' ? INSERT : SELECT);
  return {
    send: (key, done) => {
      const k = Buffer.allocUnsafe(8);
      k.writeBigInt64BE(BigInt(key));
      raw.execute(id, job.kind === 'insert' ? [k, value] : [k], done);
    },
    close: async () => raw.close(),
  };
}

function sendAsync(connection: LoadConnection, key: number): Promise<void> {
  return new Promise((ok, fail) => connection.send(key, (err) => (err ? fail(err) : ok())));
}

/**
 * Open loop (`--rate`): request i is due at start + i / rate and its latency counts from then, so time spent
 * waiting for a free slot behind a slow answer is latency too (no coordinated omission). One pacing timer sends
 * whatever is due each tick (at most `concurrency` outstanding): a timer per request was the load generator's own
 * cost, and its own event-loop stalls showed in the tail.
 */
function openLoop(connection: LoadConnection, job: WorkerJob, latencies: Float64Array, start: number): Promise<void> {
  const msPerRequest = 1000 / job.rate;
  let sent = 0;
  let answered = 0;
  let outstanding = 0;
  return new Promise((ok, fail) => {
    const send = (i: number): void => {
      // Sent up to a tick early (timer granularity): its latency counts from the send then.
      const t0 = Math.min(start + i * msPerRequest, performance.now());
      outstanding++;
      connection.send(job.first + i, (err) => {
        if (err) return fail(err);
        latencies[i] = performance.now() - t0;
        outstanding--;
        if (++answered === job.count) return ok();
        pump();
      });
    };
    const pump = (): void => {
      const due = Math.min(job.count, Math.floor((performance.now() - start) / msPerRequest) + 1);
      while (sent < due && outstanding < job.concurrency) send(sent++);
    };
    const tick = (): void => {
      pump();
      if (sent < job.count) setTimeout(tick, Math.max(0, start + sent * msPerRequest - performance.now()));
    };
    tick();
  });
}

/** Worker process: runs its share of one workload and sends back its latencies (ms). */
async function worker(job: WorkerJob): Promise<void> {
  const value = Buffer.alloc(100, 7);
  const connection = await (job.rawClient ? rawConnection(job, value) : driverConnection(job, value));
  const latencies = new Float64Array(job.count);
  let next = 0;
  // Prepares the statement (the driver's cache, or the raw client's id) before anything is timed.
  await sendAsync(connection, -1);
  // Each worker is a fresh process: without this, the timed phase starts with an interpreted driver (in an open
  // loop that showed as a ~0.5 s backlog at the start: p99 ~0.5 s at 20 000 requests/s).
  let warm = 0;
  const warmLoop = async () => {
    for (let j = warm++; j < job.clientWarmup; j = warm++) {
      // INSERTs write keys below the timed ones; SELECTs read the timed ones (the INSERT run wrote them).
      await sendAsync(connection, job.kind === 'insert' ? -(job.first + 1 + j) : job.first + (j % job.count));
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, warmLoop));
  process.send!({ ready: true });
  await new Promise<void>((ok) => process.once('message', () => ok()));
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  // Closed loop: `concurrency` requests outstanding at all times.
  const closedLoop = async () => {
    for (;;) {
      const i = next++;
      if (i >= job.count) return;
      const t0 = performance.now();
      await sendAsync(connection, job.first + i);
      latencies[i] = performance.now() - t0;
    }
  };
  if (job.rate > 0) await openLoop(connection, job, latencies, start);
  else await Promise.all(Array.from({ length: job.concurrency }, closedLoop));
  const cpu = process.cpuUsage(cpu0);
  if (job.slowLog && job.rate > 0)
    writeSlowLog(job.slowLog, performance.timeOrigin + start, 1000 / job.rate, latencies);
  const report: WorkerReport = { latencies: Array.from(latencies), cpuUs: cpu.user + cpu.system };
  process.send!(report);
  await connection.close();
}

/**
 * `--slow-log FILE`: appends the requests of an open-loop run slower than 5 ms, one line each: due time (ms since
 * the epoch) and latency (ms), to line them up with the server's log (e.g. its `arrow twin flushed` lines).
 */
function writeSlowLog(file: string, origin: number, msPerRequest: number, latencies: Float64Array): void {
  const lines: string[] = [];
  for (let i = 0; i < latencies.length; i++) {
    if (latencies[i]! > 5) lines.push(`${(origin + i * msPerRequest).toFixed(1)} ${latencies[i]!.toFixed(1)}\n`);
  }
  appendFileSync(file, lines.join(''));
}

/** Runs one workload split over `clients` worker processes started together. */
async function run(
  serverPid: number | undefined,
  port: number,
  kind: 'insert' | 'select',
  concurrency: number,
  total: number,
  clients: number,
  base: number,
  rate: number,
): Promise<Result> {
  const share = Math.floor(total / clients);
  const workers: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const reports: Promise<WorkerReport>[] = [];
  const exits: Promise<void>[] = [];
  const clientGapFiles: string[] = [];
  for (let w = 0; w < clients; w++) {
    const job: WorkerJob = {
      port,
      kind,
      first: base + w * share,
      count: share,
      concurrency: Math.max(1, Math.floor(concurrency / clients)),
      leanDriver: flag('--lean-driver'),
      rawClient: flag('--raw-client'),
      rate: rate / clients,
      clientWarmup: numberOption('--client-warmup', 5000),
      slowLog: stringOption('--slow-log') ?? '',
    };
    const clientGapFile = gapFile ? `${gapFile}.client${w}` : '';
    if (clientGapFile) clientGapFiles.push(clientGapFile);
    const child = fork(import.meta.filename, ['--worker', JSON.stringify(job)], {
      stdio: 'inherit',
      execArgv: [...clientNodeArgs(), ...(clientGapFile ? ['--import', GAP_PROBE] : [])],
      env: clientGapFile ? { ...process.env, PMEMCQL_GAP_PROBE: clientGapFile } : process.env,
    });
    workers.push(child);
    exits.push(new Promise((ok) => child.once('exit', () => ok())));
    ready.push(new Promise((ok) => child.once('message', () => ok())));
    reports.push(
      new Promise((ok, fail) => {
        child.on('message', (m: Partial<WorkerReport>) => {
          if (m.latencies) ok(m as WorkerReport);
        });
        child.once('exit', (code) => (code ? fail(new Error(`worker exited ${code}`)) : undefined));
      }),
    );
  }
  await Promise.all(ready);
  const cpu0 = processCpuMs(serverPid);
  const from = Date.now();
  const start = performance.now();
  for (const w of workers) w.send({ go: true });
  const done = await Promise.all(reports);
  const seconds = (performance.now() - start) / 1000;
  const cpu1 = processCpuMs(serverPid);
  const to = Date.now();
  let clientGaps: GapSummary | undefined;
  if (clientGapFiles.length > 0) {
    await Promise.all(exits); // each probe writes its file as its process exits
    const window = [{ label: 'clients', from, to }];
    clientGaps = sumGaps(
      'clients',
      clientGapFiles.map((f) => summarizeGaps(f, window)[0]!),
    );
    for (const f of clientGapFiles) rmSync(f, { force: true });
  }
  const lat = Float64Array.from(done.flatMap((r) => r.latencies)).sort();
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))]!;
  return {
    name: kind === 'insert' ? 'prepared INSERT' : 'prepared SELECT by key',
    concurrency,
    rate,
    ops: lat.length / seconds,
    p50: q(0.5),
    p99: q(0.99),
    max: lat[lat.length - 1]!,
    serverCpuUs: cpu0 !== undefined && cpu1 !== undefined ? ((cpu1 - cpu0) * 1000) / lat.length : undefined,
    clientCpuUs: done.reduce((sum, r) => sum + r.cpuUs, 0) / lat.length,
    from,
    to,
    clientGaps,
  };
}

/**
 * Waits until the table's Arrow twin is not flushing (three polls in a row, 250 ms apart; at most 60 s), so that a
 * timed run does not pay for the flushes of the rows the run before it wrote (a SELECT run after 200 000 INSERTs
 * met three flushes: p99 25-31 ms instead of 5-7).
 */
async function quiesce(admin: cassandra.Client): Promise<void> {
  const until = Date.now() + 60_000;
  for (let quiet = 0; quiet < 3 && Date.now() < until; ) {
    const rs = await admin.execute(
      "SELECT flushing FROM system_arrow.buffers WHERE keyspace_name = 'bench' AND table_name = 'kv'",
    );
    quiet = rs.rows.some((r) => r.flushing) ? 0 : quiet + 1;
    await new Promise((ok) => setTimeout(ok, 250));
  }
}

/** `TRUNCATE` of the bench table, unless `--keep-table` (then each run adds its rows to the earlier ones'). */
async function emptyTable(admin: cassandra.Client): Promise<void> {
  if (!flag('--keep-table')) await admin.execute('TRUNCATE bench.kv');
}

/** Whether the server keeps an Arrow twin of bench.kv (system_arrow lists it), which costs writes ~10 µs here. */
async function hasTwin(admin: cassandra.Client): Promise<boolean> {
  const rs = await admin.execute(
    "SELECT table_name FROM system_arrow.buffers WHERE keyspace_name = 'bench' AND table_name = 'kv' ALLOW FILTERING",
  );
  return rs.rows.length > 0;
}

async function countRows(admin: cassandra.Client): Promise<number> {
  const rs = await admin.execute('SELECT count(*) FROM bench.kv', [], { readTimeout: 120_000 });
  return Number(rs.rows[0]!.count);
}

/** The server under test: one started here, or one already running (`--port`, `--server-pid`). */
async function benchServer(
  mode: string,
  gapFile: string,
): Promise<{ port: number; pid: number | undefined; stop(): Promise<void> }> {
  const port = stringOption('--port') ?? '';
  if (port) {
    const pid = stringOption('--server-pid') ?? '';
    return { port: Number(port), pid: pid ? Number(pid) : undefined, stop: async () => {} };
  }
  const poolSize = stringOption('--pool-size') ?? '';
  const probe = gapFile
    ? {
        nodeArgs: ['--import', GAP_PROBE],
        env: { PMEMCQL_GAP_PROBE: gapFile },
      }
    : {};
  const server = await startBenchServer(mode === 'disk' ? 'disk' : 'emulated', {
    ...(poolSize ? { poolSize } : {}),
    ...probe,
  });
  return { port: server.port, pid: server.child.pid, stop: () => server.stop() };
}

/** The idle control process (support/idle-control.ts) under the gap probe; it writes `file` when stopped. */
function startIdleControl(file: string): { file: string; stop(): Promise<void> } {
  const child = spawn(process.execPath, ['--import', GAP_PROBE, IDLE_CONTROL], {
    env: { ...process.env, PMEMCQL_GAP_PROBE: file },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((ok) => {
    child.once('exit', () => ok());
    child.once('error', () => ok());
  });
  return {
    file,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main(): Promise<void> {
  const total = numberOption('--ops', 200000);
  const mode = stringOption('--mode') ?? 'emulated';
  const clients = numberOption('--clients', 2);
  const inFlight = (stringOption('--in-flight') ?? '64,256').split(',').map(Number);
  const only = stringOption('--only') ?? '';
  // Enough INSERTs that the table's twin flushes once (65 536 rows by default): a server's first flush runs cold
  // code, and in a 10 s run its window held most of the slow requests.
  const warmup = numberOption('--warmup', 80000);
  // --rate N[,N...]: one open-loop run per rate (each after the other, same server).
  const rates = (stringOption('--rate') ?? '0').split(',').map(Number);
  if (flag('--gap-probe') && stringOption('--port')) throw new Error('--gap-probe needs the server started here');
  const server = await benchServer(mode, gapFile);
  const control = gapFile ? startIdleControl(`${gapFile}.control`) : undefined;
  const port = server.port;
  const results: Result[] = [];
  let twin = false;
  try {
    const admin = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
    await admin.connect();
    await admin.execute(
      "CREATE KEYSPACE IF NOT EXISTS bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await admin.execute('CREATE TABLE IF NOT EXISTS bench.kv (k bigint PRIMARY KEY, v blob)');
    twin = await hasTwin(admin);
    if (warmup > 0) {
      process.stderr.write(`warm-up: ${warmup} INSERTs and SELECTs...\n`);
      for (const kind of ['insert', 'select'] as const) {
        await run(server.pid, port, kind, inFlight[0]!, warmup, clients, 1_000_000_000, rates[0]!);
      }
      await quiesce(admin);
    }
    for (const [r, rate] of rates.entries()) {
      for (const c of inFlight) {
        const base = c * 10_000_000 + r * 1_000_000;
        for (const kind of ['insert', 'select'] as const) {
          if (only && only !== kind) continue;
          // Every INSERT run starts from an empty table: the tail grows with the table's size (docs/benchmarks.md),
          // and the later runs would otherwise pay for the rows of the earlier ones.
          if (kind === 'insert' || only === 'select') await emptyTable(admin);
          if (kind === 'select' && only === 'select') {
            // The SELECTs read the keys the INSERT run of the same base wrote: without it they would read nothing.
            process.stderr.write(`loading the rows the SELECTs read...\n`);
            await run(server.pid, port, 'insert', c, total, clients, base, 0);
          }
          await quiesce(admin);
          process.stderr.write(`${kind} x${c}${rate ? ` at ${rate}/s` : ''}...\n`);
          const result = await run(server.pid, port, kind, c, total, clients, base, rate);
          result.rows = await countRows(admin);
          results.push(result);
        }
      }
    }
    await admin.shutdown();
  } finally {
    await server.stop();
    await control?.stop();
  }
  console.log(
    `\nmode ${mode}, Arrow twin ${twin ? 'on' : 'off'}, ${total} ops per run after ${warmup} warm-up ops of each kind, ${clients} client processes${flag('--lean-driver') ? ' (--lean-driver)' : ''}${flag('--raw-client') ? ' (--raw-client, not cassandra-driver)' : ''}${flag('--keep-table') ? ' (--keep-table)' : ', each INSERT run into an empty table'}${stringOption('--rate') ? `, open loop at ${stringOption('--rate')} requests/s` : ''}, client and server on one machine`,
  );
  console.log(
    '| workload | in flight | rate/s | ops/s | p50 ms | p99 ms | max ms | server CPU µs/op | client CPU µs/op | server ops per CPU-second | rows after |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    const cpu = r.serverCpuUs === undefined ? '-' : r.serverCpuUs.toFixed(1);
    const perCpuSecond = r.serverCpuUs ? Math.round(1e6 / r.serverCpuUs) : '-';
    console.log(
      `| ${r.name} | ${r.concurrency} | ${r.rate || 'closed'} | ${Math.round(r.ops)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(1)} | ${cpu} | ${r.clientCpuUs.toFixed(1)} | ${perCpuSecond} | ${r.rows ?? '-'} |`,
    );
  }
  console.log(
    '\nServer ops per CPU-second: what one core of server could answer if the clients ran elsewhere (the target is 40 k/s).',
  );
  console.log(
    `Client CPU µs/op: all client processes together (${flag('--raw-client') ? 'the driver-less client' : 'cassandra-driver'}), the floor the server shares the cores with.`,
  );
  if (gapFile) {
    const windows: RunWindow[] = results.map((r) => ({
      label: `${r.name} x${r.concurrency}${r.rate ? ` at ${r.rate}/s` : ''}`,
      from: r.from,
      to: r.to,
    }));
    const server = summarizeGaps(gapFile, windows);
    // No file: the control process could not start or died early (the table then has no control rows).
    const idle = control && existsSync(control.file) ? summarizeGaps(control.file, windows) : [];
    const rows = server.flatMap((s, i) => [
      { ...s, label: `${s.label}: server` },
      { ...results[i]!.clientGaps!, label: `${s.label}: ${clients} clients` },
      ...(idle[i] ? [{ ...idle[i]!, label: `${s.label}: idle control process` }] : []),
    ]);
    console.log(
      `\nThe event loops in each run, the server's and the client processes' summed, and a process with no work (--gap-probe; times in ms):\n${gapTable(rows)}`,
    );
    rmSync(gapFile, { force: true });
    if (control) rmSync(control.file, { force: true });
  }
}

const workerJob = stringOption('--worker');
(workerJob ? worker(JSON.parse(workerJob) as WorkerJob) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
