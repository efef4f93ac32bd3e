// pmemcql-stress's user, counter and HdrHistogram modes against the real server: Cassandra's three
// example profiles run for two seconds each and leave what they describe in their tables; a
// profile of every generated type writes partitions that its queries find row by row and that a
// token range sweep counts exactly; counter_write and counter_read keep cassandra-stress's counter1
// semantics; -log hdrfile= writes a log HdrHistogram's reader takes; and a run from the repository
// root leaves its report where neither git nor the linter looks.
// Needs the build: npx tsc -p tsconfig.json.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import * as hdr from 'hdr-histogram-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractReportData } from '../bench/stress/html-report.js';
import type { RunData } from '../bench/stress/run-data.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');
const STRESS = join(ROOT, 'dist/bench/stress.js');
const PROFILES = join(ROOT, 'bench/stress/profiles');

let server: ServerProcess;
let client: cassandra.Client;
let dataDir: string;
let outDir: string;

interface StressRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function stress(args: string[], cwd = outDir): Promise<StressRun> {
  return await new Promise((ok) => {
    execFile(
      process.execPath,
      [STRESS, ...args, '-port', String(server.port)],
      { cwd, timeout: 40_000, env: { ...process.env, PMEMCQL_STRESS_HOST: '' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        ok({ code, stdout, stderr });
      },
    );
  });
}

let reportCount = 0;
/** Runs the tool with its run added to a fresh report, and returns that run's data. */
async function stressRun(args: string[], expectedCode = 0): Promise<{ run: StressRun; data: RunData }> {
  const file = join(outDir, `r${reportCount++}.html`);
  const run = await stress([...args, '-graph', `file=${file}`]);
  expect(run.code, `${run.stdout}\n${run.stderr}\n${serverProblems()}`).toBe(expectedCode);
  const data = extractReportData(readFileSync(file, 'utf8'))!.runs[0]!;
  return { run, data };
}

/** The server's warnings and errors so far, for a failed run's message (its own words on a server failure). */
function serverProblems(): string {
  const lines = server.output().split('\n');
  return lines.filter((l) => /"level":(40|50|60)/.test(l) && !l.includes('Batch for')).join('\n');
}

const profile = (name: string) => `profile=${join(PROFILES, name)}`;

async function rows(cql: string): Promise<cassandra.types.Row[]> {
  const out: cassandra.types.Row[] = [];
  let pageState: string | undefined;
  do {
    const rs = await client.execute(cql, [], { fetchSize: 1000, pageState });
    out.push(...rs.rows);
    pageState = rs.pageState ?? undefined;
  } while (pageState);
  return out;
}

beforeAll(async () => {
  const shm = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  dataDir = mkdtempSync(join(shm, 'pmemcql-stress-profiles-'));
  outDir = mkdtempSync(join(tmpdir(), 'pmemcql-stress-profiles-out-'));
  // The profiles' runs leave ~30 MiB in use when the file runs alone; under the full suite the test servers' usual
  // 128 MiB pool filled up (POOL_FULL) during the every-type runs.
  server = await startServer({ dataDir, env: { PMEM_IS_PMEM_FORCE: '1' }, args: ['--pool-size', '512MiB'] });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe("Cassandra's example profiles", () => {
  it('cqlstress-example.yaml: inserts, its two queries and a token range sweep for 2 s', async () => {
    // The profile's own partitions: uniform(1..50) makes LOGGED batches past the 50 KiB batch size
    // fail threshold ("Batch too large", as Cassandra answers them); one partition per batch fits.
    const { run, data } = await stressRun([
      'user',
      profile('cqlstress-example.yaml'),
      'ops(insert=2,simple1=1,range1=1,all_columns_tr_query=1)',
      'duration=2s',
      'no-warmup',
      '-insert',
      'partitions=fixed(1)',
      '-tokenrange',
      'wrap',
      '-log',
      'interval=500ms',
    ]);
    expect(run.stdout).toContain(
      '  UPDATE typestest SET value = ? WHERE name = ? AND choice = ? AND date = ? AND address = ? AND dbl = ? AND lval = ? AND ival = ? AND uid = ?',
    );
    expect(run.stdout).toMatch(
      /^Running \[insert, simple1, range1, all_columns_tr_query\] with 8 threads for 2 seconds$/m,
    );
    for (const type of ['all_columns_tr_query', 'insert', 'range1', 'simple1']) {
      expect(run.stdout).toMatch(new RegExp(`^${type},\\s+\\d+,`, 'm'));
      expect(data.summary[type]!.ops, type).toBeGreaterThan(0);
      expect(data.summary[type]!.errors, type).toBe(0);
    }
    expect(data.opTypes).toEqual(['all_columns_tr_query', 'insert', 'range1', 'simple1']);
    expect(data.summary.simple1!.rows).toBeGreaterThan(0);
    expect(data.summary.all_columns_tr_query!.rows).toBeGreaterThan(0);
    const stored = await rows('SELECT name, choice, value FROM stresscql.typestest');
    expect(stored.length).toBeGreaterThanOrEqual(data.summary.insert!.ops);
    // name: size uniform(1..10), population uniform(1..10); value: a blob of the default 4..8 bytes.
    const names = new Set(stored.map((r) => r.get('name') as string));
    expect(names.size).toBeLessThanOrEqual(10);
    for (const name of names) expect(name.length).toBeGreaterThanOrEqual(1);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(10);
    for (const r of stored.slice(0, 200)) expect((r.get('value') as Buffer).length).toBeGreaterThanOrEqual(4);
  });

  it('cqlstress-counter-example.yaml: every insert adds 1 to a counter', async () => {
    const { data } = await stressRun([
      'user',
      profile('cqlstress-counter-example.yaml'),
      'ops(insert=1,simple1=1)',
      'duration=2s',
      'no-warmup',
    ]);
    const inserts = data.summary.insert!;
    expect(inserts.ops).toBeGreaterThan(0);
    expect(inserts.errors).toBe(0);
    expect(data.summary.simple1!.ops).toBeGreaterThan(0);
    const counters = await rows('SELECT name, count FROM stresscql.counttest');
    const sum = counters.reduce((n, r) => n + Number(r.get('count')), 0);
    expect(sum).toBe(inserts.rows);
    for (const r of counters) expect((r.get('name') as string).length).toBeLessThanOrEqual(4);
  });

  it('cqlstress-insanity-example.yaml: partitions of up to 20 rows', async () => {
    const { data } = await stressRun([
      'user',
      profile('cqlstress-insanity-example.yaml'),
      'ops(insert=1,simple1=1)',
      'duration=2s',
      'no-warmup',
    ]);
    expect(data.summary.insert!.ops).toBeGreaterThan(0);
    expect(data.summary.insert!.errors).toBe(0);
    const perPartition = new Map<string, number>();
    for (const r of await rows('SELECT name, choice, lval FROM stresscql.insanitytest')) {
      const key = `${r.get('name')}|${r.get('choice')}`;
      perPartition.set(key, (perPartition.get(key) ?? 0) + 1);
      expect(Number(r.get('lval'))).toBe(1); // population fixed(1)
    }
    expect(perPartition.size).toBeGreaterThan(0);
    // date: cluster gaussian(1..20).
    for (const n of perPartition.values()) expect(n).toBeLessThanOrEqual(20);
  });
});

describe('a profile of every type', () => {
  it('writes n partitions that its queries then find row by row, and a token range sweep counts them all', async () => {
    const common = [profile('every-type.yaml'), 'n=300', 'no-warmup', '-pop', 'seq=1..300'];
    const write = await stressRun(['user', 'ops(insert=1)', ...common]);
    // n counts partitions, as in cassandra-stress; each insert writes 1 to 3 of them.
    expect(write.data.summary.insert!.partitions).toBe(300);
    expect(write.data.summary.insert!.ops).toBeLessThan(300);
    expect(write.run.stdout).toContain('Generating batches with [1..3] partitions and [6..36] rows');
    const stored = await rows('SELECT * FROM stress_types.everytype');
    expect(stored.length).toBe(write.data.summary.insert!.rows);
    const partitions = new Map<string, number>();
    for (const r of stored) {
      const key = `${r.get('id')}|${r.get('region')}`;
      partitions.set(key, (partitions.get(key) ?? 0) + 1);
    }
    // 300 seeds: distinct partition keys but for a rare collision; 2..4 days × 3 seqs each.
    expect(partitions.size).toBeGreaterThan(290);
    expect(partitions.size).toBeLessThanOrEqual(300);
    for (const n of partitions.values()) expect(n === 6 || n === 9 || n === 12).toBe(true);
    const row = stored[0]!;
    expect(row.get('region')).toMatch(/^[!-~]{2}$/);
    expect((row.get('note') as string).length).toBeGreaterThanOrEqual(10);
    expect((row.get('payload') as Buffer).length).toBeGreaterThanOrEqual(16);
    expect((row.get('tags') as string[]).length).toBeGreaterThanOrEqual(1);
    const attrs = Object.keys(row.get('attrs') as Record<string, unknown>);
    expect(attrs.length === 1 || attrs.length === 2).toBe(true);
    expect(new Set(row.get('frozen_tags') as number[]).size).toBeGreaterThanOrEqual(4);
    expect((row.get('version') as cassandra.types.TimeUuid).getBuffer()[6]! >> 4).toBe(1);
    expect(row.get('day')).toBeInstanceOf(cassandra.types.LocalDate);
    expect(row.get('moment')).toBeInstanceOf(cassandra.types.LocalTime);
    expect(row.get('ip')).toBeInstanceOf(cassandra.types.InetAddress);

    // The same seeds regenerate the same rows: a samerow query by the full key finds exactly one.
    const read = await stressRun(['user', 'ops(byrow=2,bypartition=1)', ...common]);
    const byrow = read.data.summary.byrow!;
    expect(byrow.ops).toBeGreaterThan(0);
    expect(byrow.rows).toBe(byrow.ops);
    expect(byrow.partitions).toBe(byrow.ops);
    expect(read.data.summary.bypartition!.rows).toBeGreaterThan(read.data.summary.bypartition!.ops);

    const sweep = await stressRun(['user', profile('every-type.yaml'), 'ops(sweep=1)', 'n=100000', 'no-warmup']);
    expect(sweep.data.summary.sweep!.rows).toBe(stored.length);
    expect(sweep.data.summary.sweep!.partitions).toBe(partitions.size);
  });

  it('logs each operation type to -log hdrfile= in the HdrHistogram log format', async () => {
    const file = join(outDir, 'user.hlog');
    const { run, data } = await stressRun([
      'user',
      profile('every-type.yaml'),
      'ops(insert=1,byrow=1)',
      'duration=2s',
      'no-warmup',
      '-log',
      `hdrfile=${file}`,
      'interval=500ms',
    ]);
    expect(run.stdout).toContain(`HdrHistogram log: ${file}`);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[1]).toBe('#[Histogram log format version 1.3]');
    expect(hdr.listTags(text).sort()).toEqual(['byrow-st', 'insert-st']);
    const reader = new hdr.HistogramLogReader(text);
    const counts: Record<string, number> = {};
    let intervals = 0;
    for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
      counts[h.tag] = (counts[h.tag] ?? 0) + h.totalCount;
      intervals++;
    }
    expect(counts['insert-st']).toBe(data.summary.insert!.ops);
    expect(counts['byrow-st']).toBe(data.summary.byrow!.ops);
    expect(intervals).toBeGreaterThanOrEqual(4);
  });

  it('fails before the run, naming the problem, when a query binds what is not a column', async () => {
    const yaml = join(outDir, 'bad.yaml');
    const source = readFileSync(join(PROFILES, 'every-type.yaml'), 'utf8').replace(
      'where id = ? and region = ? limit 20',
      'where id = ? and region = ? limit ?',
    );
    writeFileSync(yaml, source);
    const run = await stress(['user', `profile=${yaml}`, 'ops(bypartition=1)', 'n=10', 'no-warmup']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/query bypartition: the bind variable \[limit\] is not a column of everytype/);
    const unknown = await stress(['user', `profile=${yaml}`, 'ops(nosuch=1)', 'n=10']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no query defined with name nosuch');
  });
});

describe('counter_write and counter_read', () => {
  it('add to and read back counter1, an empty partition being an error', async () => {
    const write = await stressRun(['counter_write', 'n=1000', 'no-warmup']);
    expect(write.data.summary.COUNTER_WRITE!.ops).toBe(1000);
    const counters = await rows('SELECT * FROM keyspace1.counter1');
    expect(counters).toHaveLength(1000);
    for (const r of counters) {
      expect((r.get('key') as Buffer).length).toBe(10);
      for (let c = 0; c < 5; c++) expect(Number(r.get(`C${c}`))).toBe(1);
    }
    const read = await stressRun(['counter_read', 'n=1000', 'no-warmup', '-pop', 'seq=1..1000']);
    expect(read.data.summary.COUNTER_READ).toMatchObject({ ops: 1000, rows: 1000, errors: 0 });

    const missing = ['counter_read', 'n=50', 'no-warmup', '-pop', 'seq=5001..5050'];
    const ignored = await stressRun([...missing, '-errors', 'ignore']);
    expect(ignored.data.summary.COUNTER_READ).toMatchObject({ ops: 0, errors: 50 });
    const stopped = await stress(missing);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain('Data returned was not validated');
  });

  it('logs response and wait times too when the rate is limited', async () => {
    const file = join(outDir, 'counter.hlog');
    await stressRun([
      'counter_write',
      'n=200',
      'no-warmup',
      '-rate',
      'threads=4',
      'limit=400/s',
      '-log',
      `hdrfile=${file}`,
    ]);
    const text = readFileSync(file, 'utf8');
    expect(hdr.listTags(text).sort()).toEqual(['COUNTER_WRITE-rt', 'COUNTER_WRITE-st', 'COUNTER_WRITE-wt']);
    const reader = new hdr.HistogramLogReader(text);
    let st = 0;
    for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
      if (h.tag === 'COUNTER_WRITE-st') st += h.totalCount;
    }
    expect(st).toBe(200);
  });
});

describe('reports', () => {
  it('a run in the repository root puts its report in stress-reports/, which git and biome skip', async () => {
    const before = readdirSync(ROOT).filter((f) => f.startsWith('pmemcql-stress-'));
    const run = await stress(['write', 'n=200', 'no-warmup', '-log', 'no-progress'], ROOT);
    expect(run.code, `${run.stderr}\n${serverProblems()}`).toBe(0);
    const report = /^Report: (.+) \(1 run\)$/m.exec(run.stdout)?.[1];
    expect(report).toMatch(/^stress-reports\/pmemcql-stress-write-\d{8}-\d{6}\.html$/);
    try {
      expect(existsSync(join(ROOT, report!))).toBe(true);
      expect(readdirSync(ROOT).filter((f) => f.startsWith('pmemcql-stress-'))).toEqual(before);
      expect(spawnSync('git', ['check-ignore', '-q', report!], { cwd: ROOT }).status).toBe(0);
      const biome = spawnSync(join(ROOT, 'node_modules/.bin/biome'), ['check', report!], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(`${biome.stdout}${biome.stderr}`).toContain('These paths were provided but ignored');
    } finally {
      rmSync(join(ROOT, report!), { force: true });
      try {
        rmdirSync(join(ROOT, 'stress-reports'));
      } catch {
        // Other reports are there: leave them.
      }
    }
  });
});
