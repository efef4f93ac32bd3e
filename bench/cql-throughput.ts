// Full-stack throughput: prepared INSERT and SELECT by key through cassandra-driver against a real
// server (started here, in emulated or disk mode), at several request concurrencies.
// Run: npx tsc -p tsconfig.json && node dist/bench/cql-throughput.js [--ops 200000] [--mode emulated|disk]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';

interface Result {
  name: string;
  concurrency: number;
  ops: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

async function startServer(mode: string, port: number): Promise<{ stop: () => void; dir: string }> {
  const dir =
    mode === 'emulated' ? mkdtempSync('/dev/shm/pmemcql-bench-') : mkdtempSync(join(tmpdir(), 'pmemcql-bench-'));
  const child = spawn(
    process.execPath,
    [
      resolve(import.meta.dirname, '../server/main.js'),
      '--port',
      String(port),
      '--data',
      dir,
      '--pool-size',
      '4GiB',
      '--log-level',
      'warn',
    ],
    { env: { ...process.env, ...(mode === 'emulated' ? { PMEM_IS_PMEM_FORCE: '1' } : {}) }, stdio: 'inherit' },
  );
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const c = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
    try {
      await c.connect();
      await c.shutdown();
      return { stop: () => child.kill('SIGTERM'), dir };
    } catch {
      await c.shutdown().catch(() => {});
    }
  }
  child.kill('SIGKILL');
  throw new Error('server did not start');
}

async function run(
  name: string,
  concurrency: number,
  total: number,
  op: (i: number) => Promise<unknown>,
  progress: (done: number) => void,
): Promise<Result> {
  const latencies = new Float64Array(total);
  let next = 0;
  let done = 0;
  const start = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= total) return;
      const t0 = performance.now();
      await op(i);
      latencies[i] = performance.now() - t0;
      if (++done % 10000 === 0) progress(done);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort();
  const q = (p: number) => latencies[Math.min(total - 1, Math.floor(total * p))]!;
  return { name, concurrency, ops: total / seconds, seconds, p50: q(0.5), p99: q(0.99), max: latencies[total - 1]! };
}

async function main(): Promise<void> {
  const total = Number(arg('ops', '200000'));
  const mode = arg('mode', 'emulated');
  const port = 19042 + Math.floor(Math.random() * 1000);
  const server = await startServer(mode, port);
  const client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${port}`],
    localDataCenter: 'datacenter1',
    pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 2 }, maxRequestsPerConnection: 2048 },
  });
  const results: Result[] = [];
  try {
    await client.connect();
    await client.execute(
      "CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    );
    await client.execute('CREATE TABLE bench.kv (k bigint PRIMARY KEY, v blob)');
    const value = Buffer.alloc(100, 7);
    const insert = 'INSERT INTO bench.kv (k, v) VALUES (?, ?)';
    const select = 'SELECT v FROM bench.kv WHERE k = ?';
    const bar = (label: string) => (d: number) => process.stderr.write(`\r${label}: ${d}/${total}`);
    for (const c of [64, 256]) {
      const base = c * 10_000_000;
      results.push(
        await run(
          'prepared INSERT',
          c,
          total,
          (i) => client.execute(insert, [cassandra.types.Long.fromNumber(base + i), value], { prepare: true }),
          bar(`insert x${c}`),
        ),
      );
      results.push(
        await run(
          'prepared SELECT by key',
          c,
          total,
          (i) => client.execute(select, [cassandra.types.Long.fromNumber(base + (i % total))], { prepare: true }),
          bar(`select x${c}`),
        ),
      );
    }
    process.stderr.write('\n');
  } finally {
    await client.shutdown();
    server.stop();
    await new Promise((r) => setTimeout(r, 500));
    rmSync(server.dir, { recursive: true, force: true });
  }
  console.log(`\nmode ${mode}, ${total} ops per run, client and server on one ${process.arch} machine`);
  console.log('| workload | in flight | ops/s | p50 ms | p99 ms | max ms |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of results) {
    console.log(
      `| ${r.name} | ${r.concurrency} | ${Math.round(r.ops)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(1)} |`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
