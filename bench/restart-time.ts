// Restart time and JS heap vs data size: a fresh server process, from spawn to the first CQL query
// answered, with an empty table and with N rows of 100-byte values, emulated pmem (pool on /dev/shm,
// PMEM_IS_PMEM_FORCE=1). Opening the pool is O(1) (no replay, no scan), so the time must be flat in the
// data size, and the heap must not grow with the data (it lives in the pool).
// --disk: a journaled disk pool (the default durability, commitlog_sync periodic) in a directory under the
// temporary directory, and three kinds of restart for each size: after a clean stop (SIGTERM), after a SIGKILL
// (the working pool is opened as it is), and after a simulated power cut (a SIGKILL, then another boot id: the
// working pool is rebuilt from the image and the journal; the pool_open column says which happened).
//
//   npx tsc -p tsconfig.json && npm run build:bundle && node dist/bench/restart-time.js [--rows 1000000]
//     [--repeat 5] [--batch 10000] [--pool-size <bytes>] [--dir /dev/shm] [--keep] [--disk]
//
// (build:bundle makes dist/server-bundle/, which dist/server/main.js starts while it matches the tsc output;
// without it the server loads module by module, ~0.3 s slower: the last line says which ran, docs/startup.md.)
//
// How: the server is started once to create keyspace `bench` and table `kv (k text PRIMARY KEY, v blob)`
// through CQL and stopped; the rows are then written beneath the schema layer, straight into that table's
// store (StorageEngine + TableStore.applyMutations, big group-committed batches: the same partition updates
// an INSERT makes, table id and column id read from the pool's catalog). For each size (1 M if --rows is
// larger, then --rows) the server is started `--repeat` times on that pool, alternating with starts on a
// second pool of the same size that stays empty (so the machine's load drifts over both alike): the time from spawn() to the answer
// of `SELECT v FROM bench.kv WHERE k = ...` over a raw socket (STARTUP + QUERY, protocol v4, connecting
// as soon as the port accepts), the server's own pool_open_ms and "ready" time, and its heap from the
// metrics endpoint (nodejs_heap_size_used_bytes, after the query). A bare `node -e 0` is timed
// too: the floor any Node.js server pays.
// The loader does not feed the Arrow twin; the measured query is a point read on the row store.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { stringMap } from './support/protocol-strings.js';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '5' },
    batch: { type: 'string', default: '10000' },
    'pool-size': { type: 'string' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    disk: { type: 'boolean', default: false },
  },
});
const DISK = args.disk;
args.dir ??= !DISK && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
// libpmem reads this when the addon loads (it is loaded lazily, on the first pool open below).
process.env.PMEM_IS_PMEM_FORCE = DISK ? '0' : '1';

/** How the server before a start ended: a clean stop, a SIGKILL, or a SIGKILL and a power cut (a new boot id). */
type Restart = 'clean' | 'SIGKILL' | 'power cut';
let bootId = randomUUID();
const ROWS = Number(args.rows);
const REPEAT = Math.max(1, Number(args.repeat));
const BATCH = Number(args.batch);
const VALUE = 100;
// ~300 bytes per row in the pool (row codec + B+tree entry + allocator), plus room for the twin and logs.
const POOL_SIZE = args['pool-size']
  ? Number(args['pool-size'])
  : Math.max(1 << 30, Math.ceil((ROWS * 500) / 2 ** 30) * 2 ** 30);
const MAIN = resolve(import.meta.dirname, '../server/main.js');
const key = (i: number) => `user:${String(i).padStart(12, '0')}`; // 17 bytes
const valueOf = (i: number) => {
  const v = Buffer.alloc(VALUE, 0x61);
  v.writeUInt32BE(i, 0);
  return v;
};

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

// ---- a minimal native-protocol v4 client ---------------------------------------------------------------

const OP_ERROR = 0x00;
const OP_STARTUP = 0x01;
const OP_READY = 0x02;
const OP_QUERY = 0x07;
const OP_RESULT = 0x08;

function frame(stream: number, opcode: number, body: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h[0] = 0x04;
  h[1] = 0;
  h.writeInt16BE(stream, 2);
  h[4] = opcode;
  h.writeInt32BE(body.length, 5);
  return Buffer.concat([h, body]);
}

const STARTUP = frame(0, OP_STARTUP, stringMap({ CQL_VERSION: '3.0.0' }));

function queryFrame(stream: number, cql: string): Buffer {
  const q = Buffer.from(cql, 'utf8');
  const len = Buffer.alloc(4);
  len.writeInt32BE(q.length, 0);
  // consistency ONE, no flags
  return frame(stream, OP_QUERY, Buffer.concat([len, q, Buffer.from([0x00, 0x01, 0x00])]));
}

interface Reply {
  opcode: number;
  body: Buffer;
}

/** Connects (retrying while the port refuses), sends STARTUP then each query; resolves with the replies. */
async function session(port: number, queries: string[], deadlineMs = 60_000): Promise<Reply[]> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await once(port, queries);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ECONNREFUSED' && code !== 'ECONNRESET') || Date.now() > deadline) throw e;
      await new Promise((ok) => setTimeout(ok, 2));
    }
  }
}

function once(port: number, queries: string[]): Promise<Reply[]> {
  return new Promise((ok, fail) => {
    const sock = connect({ port, host: '127.0.0.1', noDelay: true });
    const replies: Reply[] = [];
    let buf = Buffer.alloc(0);
    sock.once('error', fail);
    sock.once('connect', () => sock.write(STARTUP));
    sock.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      while (buf.length >= 9) {
        const len = buf.readInt32BE(5);
        if (buf.length < 9 + len) break;
        const reply = { opcode: buf[4]!, body: buf.subarray(9, 9 + len) };
        buf = buf.subarray(9 + len);
        if (reply.opcode === OP_ERROR) {
          sock.destroy();
          fail(new Error(`server error: ${reply.body.subarray(6).toString('utf8')}`));
          return;
        }
        if (reply.opcode === OP_RESULT) replies.push(reply);
        else if (reply.opcode !== OP_READY) continue;
        if (replies.length === queries.length) {
          sock.destroy();
          ok(replies);
          return;
        }
        // One query at a time (schema changes in order).
        sock.write(queryFrame(replies.length + 1, queries[replies.length]!));
      }
    });
  });
}

// ---- server processes ----------------------------------------------------------------------------------

interface Started {
  child: ChildProcess;
  port: number;
  metricsPort: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startServer(dataDir: string, extra: string[] = []): Promise<Started & { spawnedAt: number }> {
  const env = {
    ...process.env,
    PMEM_IS_PMEM_FORCE: DISK ? '0' : '1',
    PMEMCQL_LOG_LEVEL: 'info',
    ...(DISK ? { PMEMCQL_BOOT_ID: bootId } : {}),
  };
  const port = await freePort();
  const metricsPort = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [
      MAIN,
      '--listen-address',
      '127.0.0.1',
      '--port',
      String(port),
      '--data',
      dataDir,
      '--pool-path',
      join(dataDir, 'pmemcql.pool'),
      '--metrics-port',
      String(metricsPort),
      ...extra,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  return { child, port, metricsPort, output: () => out, exited, spawnedAt };
}

async function stopServer(s: Started, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill(signal);
  const code = await s.exited;
  if (signal === 'SIGTERM' && code !== 0) throw new Error(`server exited with ${code}:\n${s.output()}`);
}

interface Measured {
  firstAnswerMs: number;
  readyMs: number | undefined;
  poolOpenMs: number | undefined;
  /** Journaled pools: what the open did (opened, rebuilt). */
  poolOpen: string | undefined;
  /** How the server loaded its code (its "ready" line): 'bundle' (dist/server-bundle/) or 'modules'. */
  build: string | undefined;
  heapUsed: number;
  rss: number;
  poolUsed: number;
}

/** A start on `dataDir`, its server then ended as `next` says (what the following start restarts from). */
async function measureStart(
  dataDir: string,
  probe: { key: string; value: Buffer } | undefined,
  next: Restart = 'clean',
): Promise<Measured> {
  const s = await startServer(dataDir);
  let readyAt: number | undefined;
  const onData = () => {
    if (readyAt === undefined && s.output().includes('"msg":"ready"')) readyAt = performance.now();
  };
  s.child.stdout!.on('data', onData);
  try {
    const k = probe?.key ?? key(0);
    const [reply] = await session(s.port, [`SELECT v FROM bench.kv WHERE k = '${k}'`]);
    const answeredAt = performance.now();
    const kind = reply!.body.readInt32BE(0);
    if (kind !== 2) throw new Error(`expected a Rows result, got kind ${kind}`);
    if (probe && reply!.body.indexOf(probe.value) < 0) throw new Error(`row ${probe.key} not found after restart`);
    // Metrics load after the transport listens: wait for "ready" before reading them.
    while (!s.output().includes('"msg":"ready"')) await new Promise((ok) => setTimeout(ok, 10));
    onData();
    const line = s
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"ready"'));
    const readyLine = line
      ? (JSON.parse(line) as { pool_open_ms?: number; pool_open?: string; build?: string })
      : undefined;
    const poolOpenMs = readyLine?.pool_open_ms;
    const metrics = await (await fetch(`http://127.0.0.1:${s.metricsPort}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1]);
    return {
      firstAnswerMs: answeredAt - s.spawnedAt,
      readyMs: readyAt === undefined ? undefined : readyAt - s.spawnedAt,
      poolOpenMs,
      poolOpen: readyLine?.pool_open,
      build: readyLine?.build,
      heapUsed: metric('nodejs_heap_size_used_bytes'),
      rss: metric('process_resident_memory_bytes'),
      poolUsed: Number(/^pmemcql_pool_bytes\{kind="used"\} (\S+)$/m.exec(metrics)?.[1]),
    };
  } finally {
    await stopServer(s, next === 'clean' ? 'SIGTERM' : 'SIGKILL');
    if (next === 'power cut') bootId = randomUUID();
  }
}

// ---- loading rows beneath the schema layer -------------------------------------------------------------

async function load(poolPath: string, from: number, to: number): Promise<void> {
  const { StorageEngine } = await import('../storage/storage-engine.js');
  const { NO_DELETION_TIME, NO_TTL } = await import('../storage/mutation.js');
  if (DISK) process.env.PMEMCQL_BOOT_ID = bootId; // the boot the servers run in
  const engine = StorageEngine.open({ path: poolPath });
  try {
    const mode = DISK ? 'disk' : 'emulated';
    if (engine.info.mode !== mode) throw new Error(`pool mode ${engine.info.mode}, expected ${mode}`);
    const ks = engine.catalogGet('ks/bench');
    if (!ks) throw new Error('keyspace bench is not in the catalog');
    const schema = JSON.parse(ks.toString('utf8')) as {
      tables: { name: string; id: string; columns: { name: string; id: number }[] }[];
    };
    const table = schema.tables.find((t) => t.name === 'kv')!;
    const column = table.columns.find((c) => c.name === 'v')!.id;
    const store = engine.table(Buffer.from(table.id.replace(/-/g, ''), 'hex'));
    if (!store) throw new Error(`table ${table.id} has no store`);
    const bar = new cliProgress.SingleBar(
      {
        format: 'loading [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s | ETA {eta}s',
        etaBuffer: 50,
        // Piped output (no TTY): a line every 10 s instead of nothing.
        noTTYOutput: true,
        notTTYSchedule: 10_000,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(to - from, 0, { rate: 0 });
    const t0 = performance.now();
    const now = Math.floor(Date.now() / 1000);
    const ts = Date.now() * 1000;
    const empty = Buffer.alloc(0);
    for (let i = from; i < to; i += BATCH) {
      const end = Math.min(to, i + BATCH);
      const updates = [];
      for (let j = i; j < end; j++) {
        updates.push({
          key: Buffer.from(key(j), 'utf8'),
          rows: [
            {
              clustering: empty,
              clusteringValues: [],
              liveness: { ts, ttl: NO_TTL, expiry: NO_DELETION_TIME },
              cells: [{ column, ts, ttl: NO_TTL, ldt: NO_DELETION_TIME, value: valueOf(j) }],
            },
          ],
        });
      }
      await store.applyMutations(updates, now);
      bar.update(end - from, { rate: Math.round((end - from) / ((performance.now() - t0) / 1000)) });
    }
    bar.stop();
  } finally {
    engine.close();
  }
}

function nodeFloorMs(): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

// ---- main -----------------------------------------------------------------------------------------------

const emptyDir = mkdtempSync(join(args.dir, 'pmemcql-restart-empty-'));
const dataDir = mkdtempSync(join(args.dir, 'pmemcql-restart-'));
const poolPath = join(dataDir, 'pmemcql.pool');
const load0 = loadavg();
const sizes = [...new Set([...(ROWS > 1_000_000 ? [1_000_000] : []), Math.max(1, ROWS)])];
const results: { rows: number; label: string; restart: Restart; runs: Measured[] }[] = [];
try {
  // Two pools of the same size (fixed at creation), each with the schema made through CQL: one stays empty,
  // the other gets the rows. Their starts alternate, so the machine's load drifts over both alike.
  for (const dir of [emptyDir, dataDir]) {
    const first = await startServer(dir, ['--pool-size', String(POOL_SIZE)]);
    await session(first.port, [
      "CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
      'CREATE TABLE bench.kv (k text PRIMARY KEY, v blob)',
    ]);
    await stopServer(first);
  }
  let loaded = 0;
  for (const rows of sizes) {
    await load(poolPath, loaded, rows);
    loaded = rows;
    // Journaled: the start after a clean stop, after a SIGKILL, after a power cut (the previous start ends so).
    const kinds: Restart[] = DISK ? ['clean', 'SIGKILL', 'power cut'] : ['clean'];
    for (const restart of kinds) {
      const empty: Measured[] = [];
      const full: Measured[] = [];
      const probe = () => {
        const i = Math.floor(Math.random() * rows);
        return { key: key(i), value: valueOf(i) };
      };
      // One start that ends as `restart` says, then the measured ones, each ending the same way.
      await measureStart(dataDir, probe(), restart);
      await measureStart(emptyDir, undefined, restart);
      for (let r = 0; r < REPEAT; r++) {
        full.push(await measureStart(dataDir, probe(), restart));
        empty.push(await measureStart(emptyDir, undefined, restart));
      }
      // Leave both pools cleanly closed for the next kind of restart.
      await measureStart(dataDir, probe(), 'clean');
      await measureStart(emptyDir, undefined, 'clean');
      results.push(
        { rows: 0, label: `0 (alternating with ${rows.toLocaleString('en-US')})`, restart, runs: empty },
        { rows, label: rows.toLocaleString('en-US'), restart, runs: full },
      );
      process.stderr.write(
        `${rows} rows, after ${restart}: ${full.map((m) => m.firstAnswerMs.toFixed(0)).join(', ')} ms to the first ` +
          `answer; empty: ${empty.map((m) => m.firstAnswerMs.toFixed(0)).join(', ')} ms\n`,
      );
    }
  }
} finally {
  if (!args.keep) {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
  }
}

const floor = [nodeFloorMs(), nodeFloorMs(), nodeFloorMs()];
const load1 = loadavg();
const ms = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(0));
const mib = (x: number) => (Number.isNaN(x) ? '-' : (x / 2 ** 20).toFixed(1));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuModel = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
console.log(
  `node ${process.version}, ${cpus().length} × ${cpuModel}; pool ${args.dir} (${DISK ? 'journaled disk pool, commitlog_sync periodic' : 'emulated pmem'}), ` +
    `pool_size ${(POOL_SIZE / 2 ** 30).toFixed(0)} GiB, ${VALUE}-byte values, 17-byte text keys; ` +
    `load average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after`,
);
console.log('');
console.log(
  '| rows | restart after | pool used MiB | spawn → first answer ms (each run) | median | spawn → "ready" ms | pool open ms | pool_open | JS heap used MiB | RSS MiB |',
);
console.log('| --- | --- | ---: | --- | ---: | --- | --- | --- | --- | --- |');
for (const r of results) {
  const first = r.runs.map((m) => m.firstAnswerMs);
  console.log(
    `| ${r.label} | ${r.restart} | ${mib(r.runs[0]!.poolUsed)} | ${first.map(ms).join(', ')} | ${ms(median(first))} | ` +
      `${r.runs.map((m) => ms(m.readyMs)).join(', ')} | ${r.runs.map((m) => m.poolOpenMs ?? '-').join(', ')} | ` +
      `${[...new Set(r.runs.map((m) => m.poolOpen ?? '-'))].join(', ')} | ` +
      `${r.runs.map((m) => mib(m.heapUsed)).join(', ')} | ${r.runs.map((m) => mib(m.rss)).join(', ')} |`,
  );
}
console.log('');
console.log(`bare \`node -e 0\` spawn → exit: ${floor.map(ms).join(', ')} ms`);
const builds = [...new Set(results.flatMap((r) => r.runs.map((m) => m.build ?? '-')))];
console.log(
  `server code loaded from: ${builds.join(', ')} (bundle: dist/server-bundle/, current with the tsc output; ` +
    'modules: the tsc output module by module, e.g. after a `tsc` without `npm run build:bundle`)',
);
