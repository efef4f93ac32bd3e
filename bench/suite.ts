// The repeatable benchmark suite (`npm run bench`): the study's cassandra-stress experiments (writes,
// reads, mixed, restart time with that data), YCSB A–F, and the other benchmarks of bench/, written
// to docs/benchmarks.md with the machine they ran on and the ratio to the study's published figures
// per core. Only the tables between the file's bench markers are replaced (support/generated-blocks.ts): the
// rest of the file is hand-written and stays. `--quick` runs every workload briefly (CI proves it works; figures are not meaningful).
// Run: npx tsc -p tsconfig.json && node dist/bench/suite.js [--quick] [--rows 10000000] [--pool-size 8GiB]
//   [--pool-dir DIR] [--ycsb-records N] [--ycsb-ops N] [--no-children] [--out docs/benchmarks.md]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { runStress } from './stress/cli.js';
import type { Summary } from './stress/run-data.js';
import { startBenchServer, waitForCql } from './support/bench-server.js';
import { type GeneratedBlock, mergeGeneratedBlocks } from './support/generated-blocks.js';

/** The study's published figures (48 cores): cassandra-stress op/s and restart seconds. */
const STUDY = { cores: 48, write: 222_905, read: 274_269, mixed: 267_253, restartSeconds: 20.99 };

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const quick = process.argv.includes('--quick');
const rows = Number(arg('rows', quick ? '2000' : '10000000'));
const ycsbRecords = Number(arg('ycsb-records', quick ? '1000' : '1000000'));
const ycsbOps = Number(arg('ycsb-ops', quick ? '1000' : '1000000'));
const threads = arg('threads', quick ? '8' : '64');
// The pool lives on /dev/shm (RAM) and is allocated whole at creation: 10 M stress rows with their twins take
// about 5 GiB.
const poolSize = arg('pool-size', quick ? '1GiB' : '8GiB');
// --pool-dir puts the pools in a directory of a disk filesystem instead (still emulated pmem: CPU cache flushes),
// for pools larger than the RAM /dev/shm can spare; 10 M stress rows with their twins outgrow 8 GiB.
const poolDir = process.argv.includes('--pool-dir') ? resolve(arg('pool-dir', '')) : undefined;
const poolDirFor = (): string | undefined => (poolDir ? mkdtempSync(join(poolDir, 'pmemcql-bench-')) : undefined);
const out = resolve(arg('out', 'docs/benchmarks.md'));
const cores = cpus().length;

function machine(): string {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/)?.[1] ?? cpus()[0]?.model ?? '?';
  return `${cores} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`;
}

/** Stress reports (HTML) go to a temporary directory, not the working tree. */
const reports = mkdtempSync(join(tmpdir(), 'pmemcql-suite-reports-'));

async function stress(port: number, args: string[]): Promise<Record<string, Summary>> {
  const lines: string[] = [];
  const report = join(
    reports,
    `${args
      .slice(0, 2)
      .join('-')
      .replace(/[^a-z0-9=-]/gi, '')}.html`,
  );
  const r = await runStress([...args, '-port', String(port), '-log', `file=${report}`], {
    print: (l) => lines.push(l),
  });
  if (r.code !== 0 || !r.run) throw new Error(`stress ${args.join(' ')} failed (${r.code}):\n${lines.join('\n')}`);
  return r.run.summary;
}

/** Another benchmark script of bench/ run as a child; its markdown output is kept as is. */
function child(script: string, args: string[]): string {
  const file = resolve(import.meta.dirname, script);
  if (!existsSync(file)) return `(${script} not built)`;
  const r = spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: 30 * 60_000 });
  if (r.status !== 0) return `(${script} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')})`;
  return r.stdout.trim();
}

function row(name: string, s: Summary | undefined, study?: number): string {
  if (!s) return `| ${name} | - | - | - | - | - | - |`;
  const perCore = s.opRate / cores;
  const ratio = study ? (perCore / (study / STUDY.cores)).toFixed(2) : '';
  return `| ${name} | ${Math.round(s.opRate)} | ${Math.round(perCore)} | ${study ? Math.round(study / STUDY.cores) : ''} | ${ratio} | ${s.median.toFixed(2)} / ${s.p99.toFixed(2)} | ${s.errors} |`;
}

async function main(): Promise<void> {
  const sections: GeneratedBlock[] = [];
  const n = `n=${rows}`;
  const t = `threads=${threads}`;

  // The study's experiments: writes, reads, mixed, then a restart with that data.
  process.stderr.write(`study experiments (${rows} rows)...\n`);
  const server = await startBenchServer('emulated', { poolSize, dir: poolDirFor() });
  let write: Record<string, Summary>;
  let read: Record<string, Summary>;
  let mixed: Record<string, Summary>;
  let restartMs = Number.NaN;
  try {
    write = await stress(server.port, ['write', n, t, 'no-warmup']);
    read = await stress(server.port, ['read', n, t, 'no-warmup']);
    mixed = await stress(server.port, ['mixed', n, t, 'ratio(write=1,read=1)', 'no-warmup']);
    await server.stop(false);
    const started = performance.now();
    const again = await startBenchServer('emulated', { dir: server.dir, poolSize });
    restartMs = performance.now() - started;
    await waitForCql(again.port);
    await again.stop(true);
  } catch (e) {
    await server.stop(true).catch(() => {});
    throw e;
  }
  sections.push({
    id: 'study',
    text: [
      `## The study's experiments (cassandra-stress defaults, ${rows} operations, ${threads} threads, emulated pmem)`,
      '',
      '| workload | op/s | op/s per core | study op/s per core | ratio per core | median / p99 ms | errors |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      row('write', Object.values(write)[0], STUDY.write),
      row('read', Object.values(read)[0], STUDY.read),
      row('mixed (1:1)', mixed.total ?? Object.values(mixed)[0], STUDY.mixed),
      '',
      `Restart with that data, process start to first query answered: **${(restartMs / 1000).toFixed(2)} s**` +
        ` (study: ${STUDY.restartSeconds} s).`,
    ].join('\n'),
  });

  // YCSB core workloads.
  process.stderr.write('YCSB A-F...\n');
  const ycsbServer = await startBenchServer('emulated', { poolSize, dir: poolDirFor() });
  const ycsbRows: string[] = [];
  try {
    for (const w of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const s = await stress(ycsbServer.port, [
        'ycsb',
        `workload=${w}`,
        `recordcount=${ycsbRecords}`,
        `operationcount=${ycsbOps}`,
        t,
      ]);
      const total = s.total ?? Object.values(s)[0];
      ycsbRows.push(row(`YCSB ${w.toUpperCase()}`, total));
    }
  } finally {
    await ycsbServer.stop(true);
  }
  sections.push({
    id: 'ycsb',
    text: [
      `## YCSB core workloads (${ycsbRecords} records of 1 KB, ${ycsbOps} operations, ${threads} threads, emulated pmem)`,
      '',
      '| workload | op/s | op/s per core | | | median / p99 ms | errors |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...ycsbRows,
    ].join('\n'),
  });

  // The other benchmarks of bench/, each printing its own table (--no-children: CI proves the suite only).
  if (process.argv.includes('--no-children')) return finish(sections);
  process.stderr.write('other benchmarks...\n');
  sections.push({
    id: 'cql-throughput',
    text: `## Prepared statements through the driver\n\n${child('cql-throughput.js', quick ? ['--ops', '2000', '--warmup', '2000'] : ['--ops', '200000'])}`,
  });
  sections.push({
    id: 'arrow-twin',
    text: `## Arrow twins: column queries\n\n${child('arrow-twin.js', quick ? ['--rows', '20000'] : [])}`,
  });
  sections.push({
    id: 'storage-compare',
    text: `## Storage engine vs LMDB and SQLite\n\n${child('storage-compare.js', ['--rows', quick ? '5000' : '1000000'])}`,
  });
  sections.push({
    id: 'restart-time',
    text: `## Restart time vs data size\n\n${child('restart-time.js', ['--rows', quick ? '5000' : '1000000'])}`,
  });
  sections.push({
    id: 'commitlog',
    text: `## Durability policies (commitlog_sync) against Cassandra\n\n${child(
      'commitlog-throughput.js',
      quick ? ['--ops', '4000', '--warmup', '2000', '--single-ops', '500', '--pool-size', '1GiB'] : [],
    )}`,
  });

  finish(sections);
}

function finish(sections: GeneratedBlock[]): void {
  const generated: GeneratedBlock = {
    id: 'generated',
    text: [
      `Tables between bench markers last generated by \`npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${machine()}.`,
      'Client and server share the machine. The study ran on 48 cores: its figures are compared per core.',
      quick ? '\n**Quick mode**: every workload ran briefly to prove it works; these figures mean nothing.' : '',
    ].join('\n'),
  };
  const existing = existsSync(out) ? readFileSync(out, 'utf8') : '# Benchmarks\n';
  writeFileSync(out, mergeGeneratedBlocks(existing, [generated, ...sections]));
  process.stderr.write(`wrote ${out}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
