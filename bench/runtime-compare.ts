// Two Node.js runtimes side by side in one run: the server of this checkout on the Node.js running this script, and
// the server of a second checkout built for another Node.js (e.g. the system's), on the same machine minutes apart.
// For each: start-up to the first answer (spawn to the SUPPORTED answer of an OPTIONS request over a raw socket,
// restarts of a journaled disk pool, alternating between the runtimes, medians, beside a bare `node -e 0`), and
// prepared INSERT / SELECT by key through cassandra-driver (bench/cql-throughput.ts against each server in turn:
// ops/s, p99, the server's CPU per operation). The load generator is the same for both (this Node.js).
//
//   node dist/bench/runtime-compare.js --baseline-dir DIR --baseline-node /usr/bin/node
//     [--starts 7] [--ops 100000] [--warmup 40000] [--in-flight 64] [--rounds 2] (0: start-up only)
//
// DIR is a copy of this checkout whose addon and bundle were built by the baseline Node.js (docs/benchmarks.md,
// "Node.js runtime", says how).

import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startBenchServer } from './support/bench-server.js';
import { numberOption, stringOption } from './support/cli-options.js';

interface Runtime {
  label: string;
  node: string;
  main: string;
}

interface Throughput {
  opsPerSecond: number;
  p99: number;
  serverCpuUs: number;
}

const OPTIONS_FRAME = Buffer.from([0x04, 0x00, 0x00, 0x01, 0x05, 0, 0, 0, 0]);
const SUPPORTED = 0x06;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Resolves with the time the server on `port` first answers an OPTIONS request, retrying refused connects. */
function firstAnswer(port: number, child: ChildProcess): Promise<number> {
  return new Promise((ok, fail) => {
    const attempt = () => {
      if (child.exitCode !== null) return fail(new Error(`server exited with ${child.exitCode} before answering`));
      const socket = connect(port, '127.0.0.1');
      let got = Buffer.alloc(0);
      socket.on('connect', () => socket.write(OPTIONS_FRAME));
      socket.on('data', (d) => {
        got = Buffer.concat([got, d]);
        if (got.length >= 9) {
          const at = performance.now();
          socket.destroy();
          if (got[4] === SUPPORTED) ok(at);
          else fail(new Error(`unexpected opcode ${got[4]}`));
        }
      });
      socket.on('error', () => {
        socket.destroy();
        setTimeout(attempt, 2);
      });
    };
    attempt();
  });
}

function serverArgs(runtime: Runtime, port: number, dir: string): string[] {
  return [runtime.main, '--port', String(port), '--data', dir, '--pool-size', '256MiB', '--metrics-port', '-1'];
}

/** Spawn to first answer of one start of `runtime`'s server on the pool in `dir`, then a clean stop. */
async function timedStart(runtime: Runtime, port: number, dir: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn(runtime.node, serverArgs(runtime, port, dir), {
    env: { ...process.env, PMEMCQL_LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    return (await firstAnswer(port, child)) - t0;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Whether the checkout whose server is `main` starts from its bundle (server/main.ts decides the same way). */
function bundleIsCurrent(main: string): boolean {
  const dist = resolve(main, '../..');
  try {
    const builtFrom = readFileSync(join(dist, 'server-bundle/built-from.txt'), 'utf8').trim();
    return (
      builtFrom ===
      createHash('sha1')
        .update(readFileSync(join(dist, '.tsbuildinfo')))
        .digest('hex')
    );
  } catch {
    return false;
  }
}

function bareNode(node: string): number {
  const t0 = performance.now();
  spawnSync(node, ['-e', '0']);
  return performance.now() - t0;
}

/** One cql-throughput run against `runtime`'s server: its INSERT and SELECT lines. */
async function throughput(
  runtime: Runtime,
  ops: number,
  warmup: number,
  inFlight: number,
): Promise<Record<'insert' | 'select', Throughput>> {
  const server = await startBenchServer('disk', { node: runtime.node, main: runtime.main, poolSize: '4GiB' });
  try {
    const out = await new Promise<string>((ok, fail) => {
      execFile(
        process.execPath,
        [
          resolve(import.meta.dirname, 'cql-throughput.js'),
          '--port',
          String(server.port),
          '--server-pid',
          String(server.child.pid),
          '--ops',
          String(ops),
          '--warmup',
          String(warmup),
          '--in-flight',
          String(inFlight),
          '--mode',
          'disk',
        ],
        { maxBuffer: 16 << 20 },
        (error, stdout) => (error ? fail(error) : ok(stdout)),
      );
    });
    const line = (workload: string): Throughput => {
      const row = out.split('\n').find((l) => l.startsWith(`| ${workload} |`));
      if (!row) throw new Error(`no ${workload} line in cql-throughput's output:\n${out}`);
      const cells = row.split('|').map((c) => c.trim());
      return { opsPerSecond: Number(cells[4]), p99: Number(cells[6]), serverCpuUs: Number(cells[8]) };
    };
    return { insert: line('prepared INSERT'), select: line('prepared SELECT by key') };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const baselineDir = stringOption('--baseline-dir');
  const baselineNode = stringOption('--baseline-node');
  if (!baselineDir || !baselineNode) throw new Error('--baseline-dir DIR and --baseline-node PATH are required');
  const starts = numberOption('--starts', 7);
  const ops = numberOption('--ops', 100_000);
  const warmup = numberOption('--warmup', 40_000);
  const inFlight = numberOption('--in-flight', 64);
  const rounds = numberOption('--rounds', 2);
  const version = (node: string) => spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const runtimes: Runtime[] = [
    { label: `Node.js ${version(baselineNode)}`, node: baselineNode, main: join(baselineDir, 'dist/server/main.js') },
    {
      label: `Node.js ${process.version}`,
      node: process.execPath,
      main: resolve(import.meta.dirname, '../server/main.js'),
    },
  ];
  for (const r of runtimes) {
    // A stale bundle makes that server load module by module, ~2x slower to start (docs/startup.md).
    if (!bundleIsCurrent(r.main))
      throw new Error(`${r.main}: the bundle is not current; run npm run build:bundle there`);
  }
  const load0 = loadavg()[0]!;

  // Each runtime restarts its own pool, created by one untimed start first.
  const dirs = runtimes.map(() => mkdtempSync(join(tmpdir(), 'pmemcql-runtime-')));
  const port = 19042 + Math.floor(Math.random() * 2000);
  const startTimes: number[][] = runtimes.map(() => []);
  const bare: number[][] = runtimes.map(() => []);
  try {
    for (const [i, r] of runtimes.entries()) await timedStart(r, port, dirs[i]!);
    for (let s = 0; s < starts; s++) {
      for (const [i, r] of runtimes.entries()) {
        process.stderr.write(`\rstart-up: ${s + 1}/${starts} ${r.label}        `);
        bare[i]!.push(bareNode(r.node));
        startTimes[i]!.push(await timedStart(r, port, dirs[i]!));
      }
    }
    process.stderr.write('\n');
    for (const [i, r] of runtimes.entries()) {
      process.stderr.write(
        `${r.label}: start to first answer ${startTimes[i]!.map((t) => t.toFixed(0)).join(', ')} ms; node -e 0 ${bare[i]!.map((t) => t.toFixed(0)).join(', ')} ms\n`,
      );
    }
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }

  const runs: Record<'insert' | 'select', Throughput>[][] = runtimes.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, r] of runtimes.entries()) {
      process.stderr.write(`throughput: round ${round + 1}/${rounds}, ${r.label}...\n`);
      runs[i]!.push(await throughput(r, ops, warmup, inFlight));
    }
  }
  const none: Throughput = { opsPerSecond: Number.NaN, p99: Number.NaN, serverCpuUs: Number.NaN };
  const best = (i: number, kind: 'insert' | 'select') =>
    runs[i]!.map((x) => x[kind]).reduce(
      (a, b) => (Number.isNaN(a.opsPerSecond) || b.opsPerSecond > a.opsPerSecond ? b : a),
      none,
    );

  console.log(
    `\n${starts} starts each (alternating), ${rounds} throughput rounds each (best shown), ${ops} ops per run at ${inFlight} in flight after ${warmup} warm-up ops, journaled disk pools, load average ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log(
    '| runtime | `node -e 0` ms | start to first answer ms | INSERT ops/s | p99 ms | server CPU µs/INSERT | SELECT ops/s | p99 ms | server CPU µs/SELECT |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [i, r] of runtimes.entries()) {
    const ins = best(i, 'insert');
    const sel = best(i, 'select');
    console.log(
      `| ${r.label} | ${median(bare[i]!).toFixed(0)} | ${median(startTimes[i]!).toFixed(0)} | ${Math.round(ins.opsPerSecond)} | ${ins.p99.toFixed(2)} | ${ins.serverCpuUs.toFixed(1)} | ${Math.round(sel.opsPerSecond)} | ${sel.p99.toFixed(2)} | ${sel.serverCpuUs.toFixed(1)} |`,
    );
  }
}

await main();
