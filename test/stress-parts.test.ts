// The stress tool's building blocks without a server: the log-linear histogram's accuracy, YCSB's
// generators (FNV hash, zipfian skew, scrambled zipfian range, latest), the argument grammar and
// distributions, the output formatting and the HTML report's embed / append round trip.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs, StressArgError } from '../bench/stress/args.js';
import { AutoThreads, nextThreadCount } from '../bench/stress/auto-threads.js';
import { parseDistribution } from '../bench/stress/distribution.js';
import { GcStats } from '../bench/stress/gc-stats.js';
import { LatencyHistogram } from '../bench/stress/histogram.js';
import { extractReportData, writeReport } from '../bench/stress/html-report.js';
import { legacyKey } from '../bench/stress/legacy-workload.js';
import { Reporter } from '../bench/stress/reporter.js';
import type { RunData } from '../bench/stress/run-data.js';
import { StatsCollector } from '../bench/stress/stats.js';
import { ycsbKey } from '../bench/stress/ycsb-workload.js';
import {
  AcknowledgedCounter,
  fnvhash64,
  ScrambledZipfianGenerator,
  SkewedLatestGenerator,
  ZipfianGenerator,
} from '../bench/stress/zipfian.js';
import { seededRandom } from './support/seeded-random.js';

describe('LatencyHistogram', () => {
  it('gives percentiles within 1% of the exact ones, and exact count, mean, min and max', () => {
    const random = seededRandom(1);
    const h = new LatencyHistogram();
    const values: number[] = [];
    for (let i = 0; i < 50_000; i++) {
      // Log-normal-ish latencies from ~50 µs to seconds.
      const v = Math.round(Math.exp(5 + random() * 9));
      values.push(v);
      h.record(v);
    }
    values.sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.95, 0.99, 0.999]) {
      const exact = values[Math.ceil(q * values.length) - 1]!;
      expect(Math.abs(h.quantile(q) - exact) / exact).toBeLessThan(0.01);
    }
    expect(h.count).toBe(50_000);
    expect(h.max).toBe(values[values.length - 1]);
    expect(h.min).toBe(values[0]);
    expect(h.mean()).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 6);
    expect(h.quantile(1)).toBe(h.max);
  });

  it('is exact below 256 µs, merges, and resets', () => {
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    for (let v = 1; v <= 100; v++) a.record(v);
    for (let v = 101; v <= 200; v++) b.record(v);
    a.add(b);
    expect(a.count).toBe(200);
    expect(a.quantile(0.5)).toBe(100);
    expect(a.quantile(0.99)).toBe(198);
    a.reset();
    expect(a.count).toBe(0);
    expect(a.quantile(0.5)).toBe(0);
  });

  it('keeps huge values without overflowing its buckets', () => {
    const h = new LatencyHistogram();
    h.record(3.6e9); // an hour in µs
    h.record(1e15);
    expect(h.quantile(0.5)).toBeGreaterThan(3.5e9);
    expect(h.quantile(0.5)).toBeLessThan(3.7e9);
    expect(h.max).toBe(1e15);
  });
});

describe('YCSB generators', () => {
  it('fnvhash64 and key names match YCSB (user6284781860667377211 is its first hashed key)', () => {
    expect(fnvhash64(0)).toBe(6284781860667377211n);
    expect(ycsbKey(0)).toBe('user6284781860667377211');
    expect(ycsbKey(1)).toBe('user8517097267634966620');
  });

  it('zipfian: item 0 is the most popular, with about 1/zeta(n) of the draws', () => {
    const z = new ZipfianGenerator(0, 999, seededRandom(2));
    const counts = new Array(1000).fill(0);
    for (let i = 0; i < 100_000; i++) counts[z.next()]++;
    let zeta = 0;
    for (let i = 1; i <= 1000; i++) zeta += 1 / i ** 0.99;
    expect(counts[0] / 100_000).toBeCloseTo(1 / zeta, 1);
    expect(counts[0]).toBeGreaterThan(counts[1]);
    expect(counts[1]).toBeGreaterThan(counts[10]);
  });

  it('scrambled zipfian stays in range and spreads the hot keys', () => {
    const z = new ScrambledZipfianGenerator(0, 999, seededRandom(3));
    const counts = new Map<number, number>();
    for (let i = 0; i < 50_000; i++) {
      const v = z.next();
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    expect(Math.min(...counts.keys())).toBeGreaterThanOrEqual(0);
    expect(Math.max(...counts.keys())).toBeLessThanOrEqual(999);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
    expect(top[0]![0]).not.toBe(0);
    expect(top[0]![1]).toBeGreaterThan((50_000 / 1000) * 10);
  });

  it('latest favours the most recently acknowledged inserts', () => {
    const counter = new AcknowledgedCounter(1000);
    const latest = new SkewedLatestGenerator(counter, seededRandom(4));
    let recent = 0;
    for (let i = 0; i < 10_000; i++) {
      const v = latest.next();
      expect(v).toBeLessThanOrEqual(999);
      if (v >= 990) recent++;
    }
    expect(recent).toBeGreaterThan(3000);
    const k = counter.next();
    const k2 = counter.next();
    counter.acknowledge(k2);
    expect(counter.last()).toBe(999);
    counter.acknowledge(k);
    expect(counter.last()).toBe(1001);
  });
});

describe('arguments', () => {
  it("parses cassandra-stress's grammar", () => {
    const s = parseArgs(
      'mixed n=10k ratio(write=1,read=3) cl=one -node 127.0.0.1 -port native=9142 -rate threads=16 limit=500/s -col n=FIXED(3) size=FIXED(20) -pop dist=UNIFORM(1..100) -log file=x.html interval=2s -graph file=g.html revision=r1 -errors ignore retries=2 -schema keyspace=ks replication(factor=1)'.split(
        ' ',
      ),
    );
    expect(s).toMatchObject({
      command: 'mixed',
      n: 10_000,
      ratio: { write: 1, read: 3 },
      consistency: 'ONE',
      nodes: ['127.0.0.1'],
      port: 9142,
      threads: 16,
      rateLimit: 500,
      columnCount: 'FIXED(3)',
      columnSize: 'FIXED(20)',
      population: { kind: 'dist', spec: 'UNIFORM(1..100)' },
      logFile: 'x.html',
      interval: 2,
      graph: { file: 'g.html', revision: 'r1' },
      errors: { ignore: true, retries: 2 },
      keyspace: 'ks',
    });
  });

  it('has the defaults of cassandra-stress and YCSB', () => {
    const w = parseArgs(['write', 'n=100']);
    expect(w).toMatchObject({
      consistency: 'LOCAL_ONE',
      keyspace: 'keyspace1',
      columnCount: 'FIXED(5)',
      columnSize: 'FIXED(34)',
    });
    expect(w.nodes).toEqual(['127.0.0.1']);
    expect(w.port).toBe(9042);
    expect(parseArgs(['write', 'n=1'], { PMEMCQL_STRESS_HOST: 'db', PMEMCQL_STRESS_PORT: '9999' })).toMatchObject({
      nodes: ['db'],
      port: 9999,
    });
    expect(parseArgs(['read', 'duration=1m']).duration).toBe(60_000);
    const y = parseArgs(['ycsb', 'workload=workloadd', 'recordcount=5', 'operationcount=7', 'distribution=uniform']);
    expect(y.keyspace).toBe('ycsb');
    expect(y.ycsb).toMatchObject({
      workload: 'd',
      recordCount: 5,
      operationCount: 7,
      distribution: 'uniform',
      fieldCount: 10,
      fieldLength: 100,
    });
    // The command's options may also follow the groups.
    expect(parseArgs(['write', '-col', 'n=3', '-port', '9', 'n=7', 'threads=3'])).toMatchObject({
      n: 7,
      threads: 3,
      port: 9,
    });
    // An unquoted ratio split by the shell at the comma still parses.
    expect(parseArgs(['mixed', 'ratio(write=2,', 'read=1)']).ratio).toEqual({ write: 2, read: 1 });
  });

  it('rejects what it does not know', () => {
    for (const bad of [
      ['fly'],
      ['write', 'n=abc'],
      ['write', 'bogus=1'],
      ['write', '-rate', 'threads=0'],
      ['write', '-nope'],
      ['write', 'ratio(write=1)'],
      ['ycsb', 'workload=z'],
      ['write', '-graph', 'revision=x'],
      ['write', 'err<0.02'],
    ]) {
      expect(() => parseArgs(bad), bad.join(' ')).toThrow(StressArgError);
    }
  });

  it('distributions stay within their ranges', () => {
    const random = seededRandom(5);
    for (const spec of ['UNIFORM(1..10)', 'GAUSSIAN(1..10)', 'GAUSSIAN(1..10,5,1)', 'EXP(1..10)', 'SEQ(1..10)']) {
      const d = parseDistribution(spec, random);
      for (let i = 0; i < 1000; i++) {
        const v = d.next();
        expect(v).toBeGreaterThanOrEqual(1);
        expect(v).toBeLessThanOrEqual(10);
      }
    }
    const seq = parseDistribution('SEQ(3..5)');
    expect([seq.next(), seq.next(), seq.next(), seq.next()]).toEqual([3, 4, 5, 3]);
    expect(parseDistribution('34').next()).toBe(34);
    expect(() => parseDistribution('ZIPF(1..2)')).toThrow(StressArgError);
  });

  it('legacy keys are 10 bytes and distinct', () => {
    const keys = new Set<string>();
    let wrongLength = 0;
    for (let seed = 0; seed < 20_000; seed++) {
      const k = legacyKey(seed);
      if (k.length !== 10) wrongLength++;
      keys.add(k.toString('latin1'));
    }
    expect(wrongLength).toBe(0);
    expect(keys.size).toBe(20_000);
  });
});

describe('-rate auto', () => {
  it("follows cassandra-stress's thread counts and stops after three steps without a 5% gain", () => {
    const seq = [4];
    while (seq.length < 8) seq.push(nextThreadCount(seq[seq.length - 1]!));
    expect(seq).toEqual([4, 8, 16, 24, 36, 54, 81, 121]);
    const auto = new AutoThreads(4, 1000);
    const rate = (opRate: number) => ({ opRate }) as Parameters<AutoThreads['record']>[1];
    expect(auto.record(4, rate(100))).toBe(8);
    expect(auto.record(8, rate(200))).toBe(16);
    expect(auto.improvement()).toBe('Improvement over 4 threadCount: 100%');
    expect(auto.record(16, rate(205))).toBe(24);
    expect(auto.record(24, rate(190))).toBe(36);
    expect(auto.record(36, rate(209))).toBeUndefined();
    expect(new AutoThreads(4, 10).record(8, rate(1))).toBeUndefined();
    expect(parseArgs(['write', '-rate', 'auto', 'threads>=8', 'threads<=64']).autoThreads).toEqual({ min: 8, max: 64 });
    expect(() => parseArgs(['ycsb', '-rate', 'auto'])).toThrow(StressArgError);
  });
});

describe('output and report', () => {
  it('prints the periodic columns and the Results block', () => {
    const lines: string[] = [];
    const reporter = new Reporter(['READ', 'WRITE'], (l) => lines.push(l));
    const collector = new StatsCollector(['READ', 'WRITE'], 0);
    for (let i = 0; i < 30; i++) collector.record('READ', 1000 + i, 1, 1);
    for (let i = 0; i < 10; i++) collector.record('WRITE', 2000, 1, 1);
    collector.error('WRITE');
    reporter.header();
    reporter.interval(collector.snapshot(1000), collector.cumulative, 40, {
      count: 0,
      maxMs: 0,
      sumMs: 0,
      sdvMs: 0,
      mb: 0,
    });
    const summaries = reporter.results(collector.cumulative, collector.cumulativeTotal(), 1, new GcStats());
    expect(lines[0]).toMatch(/^type\s+total ops,\s+op\/s,/);
    expect(lines[1]).toMatch(/^READ,\s+30,\s+30,\s+30,\s+30,\s+1\.0,/);
    expect(lines[2]).toMatch(/^WRITE,\s+10,\s+10,/);
    expect(lines[3]).toMatch(/^total,\s+40,\s+40,\s+40,\s+40,\s+1\.3,.*,\s+1,\s+0,/);
    const text = lines.join('\n');
    expect(text).toContain('Op rate                   :       40 op/s  [READ: 30 op/s, WRITE: 10 op/s]');
    expect(text).toContain('Latency max               :    2.0 ms [READ: 1.0 ms, WRITE: 2.0 ms]');
    expect(text).toContain('Total errors              :          1 [READ: 0, WRITE: 1]');
    expect(text).toMatch(/Total operation time {6}: 00:00:01/);
    expect(summaries.total!.ops).toBe(40);
    expect(reporter.series.READ!.opRate).toEqual([30]);
  });

  it('embeds the run data and Chart.js, and -graph appends runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmemcql-stress-report-'));
    try {
      const file = join(dir, 'r.html');
      const run: RunData = {
        revision: 'a </script> & b',
        command: 'write n=1',
        workload: 'WRITE',
        startedAt: new Date(0).toISOString(),
        durationSeconds: 1,
        threads: 1,
        nodes: ['127.0.0.1:9042'],
        client: { hostname: 'h', node: 'v20', cpus: 2 },
        opTypes: ['WRITE'],
        series: {},
        summary: {},
      };
      expect(writeReport(file, run, false)).toBe(1);
      expect(writeReport(file, { ...run, revision: 'second' }, true)).toBe(2);
      expect(writeReport(file, { ...run, revision: 'second' }, true)).toBe(3);
      const html = readFileSync(file, 'utf8');
      expect(html.match(/<\/script>/g)).toHaveLength(3);
      expect(html).toContain('new Chart(');
      expect(extractReportData(html)!.runs.map((r) => r.revision)).toEqual(['a </script> & b', 'second', 'second (2)']);
      expect(writeReport(file, { ...run, revision: 'fresh' }, false)).toBe(1);
      writeFileSync(join(dir, 'other.html'), '<html>not ours</html>');
      expect(() => writeReport(join(dir, 'other.html'), run, true)).toThrow(/not a pmemcql-stress report/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
