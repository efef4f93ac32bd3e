// pmemcql-stress (dist/bench/stress.js) against the real server: write, read, mixed and YCSB A runs
// exit 0 with cassandra-stress's summary (positive rates, no errors), leave their rows in the
// tables, and write a self-contained HTML report to which -graph runs add further revisions.
// Needs the build: npx tsc -p tsconfig.json.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractReportData } from '../bench/stress/html-report.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const STRESS = resolve(import.meta.dirname, '../dist/bench/stress.js');

let server: ServerProcess;
let client: cassandra.Client;
let dataDir: string;
let outDir: string;
let report: string;

interface StressRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function stress(...args: string[]): Promise<StressRun> {
  return await new Promise((ok) => {
    execFile(
      process.execPath,
      [STRESS, ...args, '-port', String(server.port)],
      { cwd: outDir, timeout: 40_000, env: { ...process.env, PMEMCQL_STRESS_HOST: '' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        ok({ code, stdout, stderr });
      },
    );
  });
}

interface Summary {
  opRate: number;
  partitionRate: number;
  rowRate: number;
  latency: Record<string, number>;
  partitions: number;
  errors: number;
  time: string;
}

/** The last "Results:" block of a run's output. */
function summary(stdout: string): Summary {
  const block = stdout.slice(stdout.lastIndexOf('\nResults:\n'));
  expect(block.startsWith('\nResults:'), stdout).toBe(true);
  const number = (label: string, unit: string): number => {
    const m = new RegExp(`^${label}\\s*:\\s*([\\d,.]+|NaN) ${unit}`, 'm').exec(block);
    expect(m, `${label} in\n${block}`).not.toBeNull();
    return Number(m![1]!.replace(/,/g, ''));
  };
  const latency: Record<string, number> = {};
  for (const [key, label] of [
    ['mean', 'Latency mean'],
    ['median', 'Latency median'],
    ['p95', 'Latency 95th percentile'],
    ['p99', 'Latency 99th percentile'],
    ['p999', 'Latency 99\\.9th percentile'],
    ['max', 'Latency max'],
  ]) {
    latency[key!] = number(label!, 'ms');
  }
  const time = /^Total operation time\s*:\s*(\d\d:\d\d:\d\d)$/m.exec(block);
  expect(time).not.toBeNull();
  return {
    opRate: number('Op rate', 'op/s'),
    partitionRate: number('Partition rate', 'pk/s'),
    rowRate: number('Row rate', 'row/s'),
    latency,
    partitions: number('Total partitions', ''),
    errors: number('Total errors', ''),
    time: time![1]!,
  };
}

function expectHealthy(run: StressRun): Summary {
  expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
  const s = summary(run.stdout);
  expect(s.opRate).toBeGreaterThan(0);
  expect(s.partitionRate).toBeGreaterThan(0);
  expect(s.rowRate).toBeGreaterThan(0);
  expect(s.errors).toBe(0);
  expect(s.latency.max).toBeGreaterThanOrEqual(s.latency.p99);
  expect(s.latency.p99).toBeGreaterThanOrEqual(s.latency.median);
  return s;
}

async function countRows(table: string): Promise<number> {
  const rs = await client.execute(`SELECT count(*) FROM ${table}`);
  return Number(rs.first().get(0));
}

beforeAll(async () => {
  // Emulated persistent memory on tmpfs, as the benchmarks run: the test is about the tool, not the disk.
  const shm = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  dataDir = mkdtempSync(join(shm, 'pmemcql-stress-'));
  outDir = mkdtempSync(join(tmpdir(), 'pmemcql-stress-out-'));
  report = join(outDir, 'report.html');
  server = await startServer({ dataDir, env: { PMEM_IS_PMEM_FORCE: '1' } });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('pmemcql-stress', () => {
  it('write n=2000 stores 2000 partitions in keyspace1.standard1 and writes the HTML report', async () => {
    const run = await stress('write', 'n=2000', 'threads=8', '-log', `file=${report}`);
    const s = expectHealthy(run);
    expect(s.partitions).toBe(2000);
    expect(run.stdout).toMatch(/^Running WRITE with 8 threads for 2000 iteration$/m);
    expect(run.stdout).toMatch(
      /^type\s+total ops,\s+op\/s,\s+pk\/s,\s+row\/s,\s+mean,\s+med,\s+\.95,\s+\.99,\s+\.999,\s+max,\s+time,\s+stderr,\s+errors,\s+gc: #,\s+max ms,\s+sum ms,\s+sdv ms,\s+mb$/m,
    );
    expect(run.stdout).toMatch(/^total,\s+2000,/m);
    expect(await countRows('keyspace1.standard1')).toBe(2000);
    const cols = await client.execute('SELECT * FROM keyspace1.standard1 LIMIT 1');
    const row = cols.first();
    expect(row.get('key')).toHaveLength(10);
    for (let c = 0; c < 5; c++) expect(row.get(`C${c}`)).toHaveLength(34);

    expect(existsSync(report)).toBe(true);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('Chart.js v4');
    expect(html).not.toMatch(/<script[^>]+src=/);
    const data = extractReportData(html)!;
    expect(data.runs).toHaveLength(1);
    const total = data.runs[0]!.series.total!;
    expect(total.time.length).toBeGreaterThan(0);
    expect(total.opRate.some((r) => r > 0)).toBe(true);
    expect(data.runs[0]!.summary.WRITE!.ops).toBe(2000);
    expect(data.runs[0]!.summary.total!.p99).toBeGreaterThan(0);
  });

  it('read n=2000 finds the rows it reads', async () => {
    const run = await stress('read', 'n=2000', 'threads=8', '-log', `file=${join(outDir, 'read.html')}`);
    const s = expectHealthy(run);
    expect(s.partitions).toBe(2000);
    // GAUSSIAN(1..2000) over the partitions the write stored: every read returns its row.
    expect(s.rowRate).toBeCloseTo(s.partitionRate, 0);
  });

  it('mixed ratio(write=1,read=3) with -graph adds a second revision to the report', async () => {
    const run = await stress(
      'mixed',
      'n=2000',
      'ratio(write=1,read=3)',
      'threads=8',
      '-graph',
      `file=${report}`,
      'revision=mixed-1to3',
    );
    expectHealthy(run);
    expect(run.stdout).toMatch(/^Op rate\s*:.*\[READ: [\d,]+ op\/s, WRITE: [\d,]+ op\/s\]$/m);
    expect(run.stdout).toMatch(/^READ,\s+\d+,/m);
    const data = extractReportData(readFileSync(report, 'utf8'))!;
    expect(data.runs.map((r) => r.revision)).toEqual([expect.stringMatching(/^write /), 'mixed-1to3']);
    const mixed = data.runs[1]!;
    expect(mixed.opTypes).toEqual(['READ', 'WRITE']);
    const reads = mixed.summary.READ!.ops;
    const writes = mixed.summary.WRITE!.ops;
    expect(reads + writes).toBe(2000);
    expect(reads).toBeGreaterThan(writes * 2);
  });

  it('ycsb workload=a loads 1000 records and runs 2000 reads and updates', async () => {
    const run = await stress(
      'ycsb',
      'workload=a',
      'recordcount=1000',
      'operationcount=2000',
      'threads=8',
      '-graph',
      `file=${report}`,
      'revision=ycsb-a',
    );
    const s = expectHealthy(run);
    expect(s.partitions).toBe(2000);
    expect(run.stdout).toMatch(/^Running YCSB-LOAD with 8 threads for 1000 iteration$/m);
    expect(run.stdout).toMatch(/^Running YCSB-A with 8 threads for 2000 iteration$/m);
    expect(run.stdout).toMatch(/^\[OVERALL\], Throughput\(ops\/sec\), [\d.]+$/m);
    expect(run.stdout).toMatch(/^\[UPDATE\], Return=OK, \d+$/m);
    expect(await countRows('ycsb.usertable')).toBe(1000);
    const row = (await client.execute("SELECT * FROM ycsb.usertable WHERE y_id = 'user6284781860667377211'")).first();
    expect(row).toBeTruthy();
    for (let f = 0; f < 10; f++) expect(row.get(`field${f}`)).toHaveLength(100);
    const data = extractReportData(readFileSync(report, 'utf8'))!;
    expect(data.runs.map((r) => r.revision)).toEqual([expect.stringMatching(/^write /), 'mixed-1to3', 'ycsb-a']);
    expect(data.runs[2]!.opTypes).toEqual(['READ', 'UPDATE']);
  });

  it('duration= with -rate limit= stops on time at the rate asked, and -log file=*.txt keeps the output', async () => {
    const log = join(outDir, 'run.txt');
    const run = await stress(
      'write',
      'duration=2s',
      '-rate',
      'threads=16',
      'limit=200/s',
      '-log',
      `file=${log}`,
      'interval=500ms',
    );
    const s = expectHealthy(run);
    expect(s.opRate).toBeGreaterThan(100);
    expect(s.opRate).toBeLessThan(230);
    expect(s.time).toMatch(/^00:00:0[23]$/);
    expect(run.stdout).toMatch(/^Running WRITE with 16 threads for 2 seconds at 200 op\/s$/m);
    expect(run.stdout.match(/^total,/gm)!.length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(log, 'utf8')).toBe(run.stdout);
  });

  it('rejects bad arguments with the usage text and exit code 1', async () => {
    const run = await stress('write', 'n=lots');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not a count: lots');
    expect(run.stderr).toContain('Usage: pmemcql-stress');
  });
});
