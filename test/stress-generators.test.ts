// The stress tool's profile machinery without a server: cassandra-stress's distributions, the column
// value generators, the partition generator (rows regenerated from their seeds), the seed manager,
// profile parsing (Cassandra's example profiles and the errors it reports), the new command-line
// options, the report's chart layout and page script, the HdrHistogram log, and where the default
// report goes.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import vm from 'node:vm';
import cassandra from 'cassandra-driver';
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { parseArgs, StressArgError } from '../bench/stress/args.js';
import { chartLayout } from '../bench/stress/chart-layout.js';
import { ColumnGenerator, valueKey } from '../bench/stress/column-generator.js';
import {
  averageOf,
  distributionFactory,
  parseDistribution,
  ratioDistributionFactory,
} from '../bench/stress/distribution.js';
import { HdrLatencyLog } from '../bench/stress/hdr-log.js';
import { renderReport } from '../bench/stress/html-report.js';
import { legacyKey } from '../bench/stress/legacy-workload.js';
import { PartitionGenerator } from '../bench/stress/partition-generator.js';
import { loadProfile, parseProfile } from '../bench/stress/profile.js';
import { defaultReportFile } from '../bench/stress/report-location.js';
import type { ReportData, RunData, Series } from '../bench/stress/run-data.js';
import { SeedManager } from '../bench/stress/seed-manager.js';
import { SeededRandom } from '../bench/stress/seeded-random.js';
import { seededRandom } from './support/seeded-random.js';

const PROFILES = resolve(import.meta.dirname, '../bench/stress/profiles');
const T = cassandra.types.dataTypes;

function draws(spec: string, count: number, seed = 1): number[] {
  const d = distributionFactory(spec)(new SeededRandom(seed));
  return Array.from({ length: count }, () => d.next());
}

describe("cassandra-stress's distributions", () => {
  it('stay within their ranges, with the skew of each kind', () => {
    for (const spec of [
      'uniform(1..100)',
      'gaussian(1..100)',
      'gauss(1..100,5)',
      'normal(1..100,20,5)',
      'exp(1..100)',
      'extreme(1..100,1.5)',
      'extr(1..100,0.5)',
      'weibull(1..100,2)',
      'qextreme(1..100,1.5,4)',
      '~exp(1..100)',
      'seq(1..100)',
    ]) {
      for (const v of draws(spec, 2000)) {
        expect(v, spec).toBeGreaterThanOrEqual(1);
        expect(v, spec).toBeLessThanOrEqual(100);
        expect(Number.isInteger(v), spec).toBe(true);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // exp favours the bottom of its range, ~exp the top; uniform sits in the middle.
    expect(mean(draws('exp(1..1000)', 20_000))).toBeLessThan(300);
    expect(mean(draws('~exp(1..1000)', 20_000))).toBeGreaterThan(700);
    expect(Math.abs(mean(draws('uniform(1..1000)', 20_000)) - 500)).toBeLessThan(20);
    expect(Math.abs(mean(draws('gaussian(1..1000)', 20_000)) - 500)).toBeLessThan(10);
    // Both ends of a uniform range come up.
    const u = draws('uniform(1..3)', 1000);
    expect(new Set(u)).toEqual(new Set([1, 2, 3]));
    expect(draws('fixed(7)', 3)).toEqual([7, 7, 7]);
    expect(draws('uniform(5..5)', 2)).toEqual([5, 5]);
    expect(draws('seq(3..5)', 4)).toEqual([3, 4, 5, 3]);
  });

  it('repeat their draws after the same seed, and report min, max and the average', () => {
    const d = distributionFactory('uniform(1..100B)')(new SeededRandom(0));
    d.setSeed(42);
    const a = [d.next(), d.next(), d.nextDouble()];
    d.setSeed(43);
    const b = d.next();
    d.setSeed(42);
    expect([d.next(), d.next(), d.nextDouble()]).toEqual(a);
    expect(b).not.toBe(a[0]);
    expect(a[0]).toBeGreaterThan(1000); // 53 random bits: the whole 100-billion range is reachable
    expect(d.min).toBe(1);
    expect(d.max).toBe(100_000_000_000);
    expect(averageOf(parseDistribution('uniform(1..4)'))).toBe(2);
    expect(averageOf(parseDistribution('fixed(3)'))).toBe(3);
    expect(parseDistribution('~uniform(1..10)').spec).toBe('~UNIFORM(1..10)');
    expect(parseDistribution('NORM(1..10, 2)').spec).toBe('GAUSSIAN(1..10,2)');
  });

  it('divide ratio specs into 0..1', () => {
    const r = ratioDistributionFactory('uniform(1..10)/10')(seededRandom(3));
    expect(r.min).toBe(0.1);
    expect(r.max).toBe(1);
    for (let i = 0; i < 500; i++) {
      const v = r.next();
      expect(v).toBeGreaterThanOrEqual(0.1);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(ratioDistributionFactory('fixed(1)/1000')().next()).toBe(0.001);
    expect(() => ratioDistributionFactory('uniform(1..10)')).toThrow(StressArgError);
  });

  it('reject what cassandra-stress rejects', () => {
    for (const bad of [
      'zipf(1..2)',
      'uniform(5..1)',
      'uniform(1..2,3)',
      'extreme(1..10)',
      'gaussian(1..10,a)',
      'qextreme(1..9,1)',
      'fixed(1,2)',
    ]) {
      expect(() => distributionFactory(bad), bad).toThrow(StressArgError);
    }
  });
});

function generator(name: string, type: { code: number; info?: unknown }, spec = {}): ColumnGenerator {
  return new ColumnGenerator(name, type, spec);
}

describe('column generators', () => {
  it('make the same value from the same seed, within the population and size asked', () => {
    const g = generator('name', { code: T.text }, { size: 'uniform(3..6)', population: 'uniform(1..10)' });
    const seen = new Set<string>();
    for (let seed = 0; seed < 500; seed++) {
      g.setSeed(seed);
      const v = g.generate() as string;
      g.setSeed(seed);
      expect(g.generate()).toBe(v);
      expect(v.length).toBeGreaterThanOrEqual(3);
      expect(v.length).toBeLessThanOrEqual(6);
      expect(v).toMatch(/^[!-~]+$/);
      seen.add(v);
    }
    // A population of 10 gives at most 10 distinct values.
    expect(seen.size).toBeLessThanOrEqual(10);
    expect(seen.size).toBeGreaterThanOrEqual(8);
  });

  it('give the driver a value of every type cassandra-stress generates, and of collections', () => {
    const at = (code: number, info?: unknown, spec = {}) => {
      const g = generator(`c${code}`, { code, info }, spec);
      g.setSeed(12345);
      return g.toDriver(g.generate());
    };
    expect(typeof at(T.ascii)).toBe('string');
    expect(typeof at(T.varchar)).toBe('string');
    expect(Buffer.isBuffer(at(T.blob, undefined, { size: 'fixed(20)' }))).toBe(true);
    expect((at(T.blob, undefined, { size: 'fixed(20)' }) as Buffer).length).toBe(20);
    expect(at(T.bigint)).toBeInstanceOf(cassandra.types.Long);
    expect(at(T.counter, undefined, { population: 'fixed(1)' })).toEqual(cassandra.types.Long.fromNumber(1));
    const int = at(T.int) as number;
    expect(Number.isInteger(int) && int >= -(2 ** 31) && int < 2 ** 31).toBe(true);
    const small = at(T.smallint) as number;
    expect(small >= -32768 && small < 32768).toBe(true);
    const tiny = at(T.tinyint) as number;
    expect(tiny >= -128 && tiny < 128).toBe(true);
    expect(typeof at(T.boolean)).toBe('boolean');
    expect(typeof at(T.double)).toBe('number');
    const f = at(T.float) as number;
    expect(Math.fround(f)).toBe(f);
    expect(typeof at(T.varint)).toBe('number');
    expect(typeof at(T.decimal)).toBe('number');
    const ts = at(T.timestamp) as Date;
    expect(ts).toBeInstanceOf(Date);
    expect(ts.getTime()).toBeLessThanOrEqual(50 * 365 * 86_400_000);
    expect(at(T.date)).toBeInstanceOf(cassandra.types.LocalDate);
    expect(at(T.time)).toBeInstanceOf(cassandra.types.LocalTime);
    expect(at(T.inet)).toBeInstanceOf(cassandra.types.InetAddress);
    const uuid = at(T.uuid) as cassandra.types.Uuid;
    expect(uuid).toBeInstanceOf(cassandra.types.Uuid);
    const tu = at(T.timeuuid) as cassandra.types.TimeUuid;
    expect(tu).toBeInstanceOf(cassandra.types.TimeUuid);
    expect(tu.getBuffer()[6]! >> 4).toBe(1); // version 1
    expect(tu.getDate().getTime()).toBeLessThanOrEqual(50 * 365 * 86_400_000);
    const list = at(T.list, { code: T.int }, { size: 'fixed(4)' }) as number[];
    expect(list).toHaveLength(4);
    const set = at(T.set, { code: T.text }, { size: 'fixed(3)' }) as string[];
    expect(new Set(set).size).toBe(set.length);
    const map = at(T.map, [{ code: T.text }, { code: T.bigint }], { size: 'fixed(2)' }) as Map<string, unknown>;
    expect(map).toBeInstanceOf(Map);
    expect(map.size).toBe(2);
    expect([...map.values()][0]).toBeInstanceOf(cassandra.types.Long);
    expect(() => generator('d', { code: T.duration })).toThrow(/cassandra-stress generates no values of this type/);
  });
});

function wideTable(): PartitionGenerator {
  return new PartitionGenerator(
    [generator('pk', { code: T.bigint }, { population: 'uniform(1..1000000)' })],
    [
      generator('c1', { code: T.int }, { cluster: 'uniform(2..5)' }),
      generator('c2', { code: T.text }, { cluster: 'fixed(4)', size: 'fixed(6)' }),
    ],
    [generator('v', { code: T.blob }, { size: 'uniform(8..16)' }), generator('n', { code: T.double })],
  );
}

describe('partition generator', () => {
  it('regenerates the same partition from a seed: key, clustering rows and values', () => {
    const g = wideTable();
    expect(g.minRowCount).toBe(8);
    expect(g.maxRowCount).toBe(20);
    expect(g.descendantAverages).toEqual([4, 1]);
    const random = seededRandom(9);
    const a = g.partition(77);
    const b = g.partition(77);
    expect(b.key).toEqual(a.key);
    const rows = a.selectRows(1, random).rows;
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.length).toBeLessThanOrEqual(20);
    expect(rows.length % 4).toBe(0);
    expect(new Set(rows.map((r) => valueKey(r.clustering))).size).toBe(rows.length);
    const again = b.selectRows(1, random).rows;
    expect(again.map((r) => valueKey(r.clustering))).toEqual(rows.map((r) => valueKey(r.clustering)));
    expect(again.map((r) => valueKey(b.value(r, 0)))).toEqual(rows.map((r) => valueKey(a.value(r, 0))));
    // A random row (what a samerow query binds) is one of the partition's rows.
    const keys = new Set(rows.map((r) => valueKey(r.clustering)));
    for (let i = 0; i < 50; i++) expect(keys.has(valueKey(a.randomRow(random).clustering))).toBe(true);
    expect(g.partition(78).key).not.toEqual(a.key);
  });

  it('visits each row with the select chance, and covers a partition exactly once in slices', () => {
    const g = wideTable();
    const random = seededRandom(4);
    let picked = 0;
    let total = 0;
    for (let seed = 0; seed < 400; seed++) {
      const p = g.partition(seed);
      total += p.selectRows(1, random).rows.length;
      picked += p.selectRows(0.25, random).rows.length;
    }
    expect(picked / total).toBeGreaterThan(0.2);
    expect(picked / total).toBeLessThan(0.32);
    const p = g.partition(5);
    const all = p.selectRows(1, random).rows.map((r) => valueKey(r.clustering));
    const sliced: string[] = [];
    let finished = false;
    for (let from = 0; !finished; from += 3) {
      const s = p.selectRows(1, random, from, 3);
      sliced.push(...s.rows.map((r) => valueKey(r.clustering)));
      finished = s.finished;
    }
    expect(sliced).toEqual(all);
  });

  it('gives a partition without clustering columns its one row', () => {
    const g = new PartitionGenerator([generator('k', { code: T.blob })], [], [generator('c', { code: T.counter })]);
    const rows = g.partition(3).selectRows(0.001, Math.random).rows;
    expect(rows).toHaveLength(1);
  });
});

describe('seed manager', () => {
  const fixed1 = () => parseDistribution('fixed(1)');
  it('hands out a seq population in order, wrapping unless told not to', () => {
    const wrap = new SeedManager(
      { kind: 'seq', min: 1, max: 3, wrap: true },
      fixed1(),
      parseDistribution('uniform(1..10)'),
    );
    expect([1, 2, 3, 4].map(() => wrap.nextWrite()!.value)).toEqual([1, 2, 3, 1]);
    const once = new SeedManager(
      { kind: 'seq', min: 1, max: 2, wrap: false },
      fixed1(),
      parseDistribution('uniform(1..10)'),
    );
    expect([once.nextWrite()?.value, once.nextRead()?.value, once.nextWrite()]).toEqual([1, 2, undefined]);
  });

  it('revisits partitions written in several visits until they are finished', () => {
    const seeds = new SeedManager(
      { kind: 'seq', min: 1, max: 1000, wrap: true },
      parseDistribution('fixed(3)'),
      parseDistribution('fixed(1)', seededRandom(1)),
    );
    const first = seeds.nextWrite()!;
    expect(first.visits).toBe(3);
    // A revisit pool of one slot: every write continues the partition in it until it is finished.
    expect(seeds.nextWrite()).toBe(first);
    seeds.finished(first);
    expect(seeds.nextWrite()!.value).toBe(2);
  });
});

describe('profiles', () => {
  it("reads Cassandra's example profiles", () => {
    const example = loadProfile(join(PROFILES, 'cqlstress-example.yaml'));
    expect(example).toMatchObject({ keyspace: 'stresscql', table: 'typestest', specName: 'stresscql.typestest' });
    expect(example.columnSpecs.get('name')).toEqual({ size: 'uniform(1..10)', population: 'uniform(1..10)' });
    expect(example.columnSpecs.get('lval')).toEqual({ population: 'gaussian(1..1000)', cluster: 'uniform(1..4)' });
    expect(Object.fromEntries(example.insert)).toEqual({
      partitions: 'uniform(1..50)',
      batchtype: 'LOGGED',
      select: 'uniform(1..10)/10',
    });
    expect(example.queries.get('range1')).toEqual({
      cql: 'select * from typestest where name = ? and choice = ? and date >= ? LIMIT 100',
      fields: 'multirow',
    });
    expect(example.tokenRangeQueries.get('all_columns_tr_query')).toEqual({ columns: '*', pageSize: 5000 });
    expect(example.tokenRangeQueries.get('value_tr_query')).toEqual({ columns: 'value', pageSize: 5000 });
    expect(loadProfile(join(PROFILES, 'cqlstress-counter-example.yaml')).table).toBe('counttest');
    expect(loadProfile(join(PROFILES, 'cqlstress-insanity-example.yaml')).columnSpecs.get('date')).toEqual({
      cluster: 'gaussian(1..20)',
    });
    expect(loadProfile(join(PROFILES, 'every-type.yaml')).queries.get('byrow')!.fields).toBe('samerow');
  });

  it('reports what is wrong with a profile', () => {
    const base = 'keyspace: ks\ntable: t\nqueries:\n  q:\n    cql: select * from t\n';
    expect(parseProfile(base, 'p.yaml').specName).toBe('ks.t');
    const cases: [string, RegExp][] = [
      ['table: t\n', /keyspace name is required/],
      ['keyspace: ks\n', /table name is required/],
      [
        `${base}table_definition: CREATE TABLE other (k int PRIMARY KEY)\n`,
        /doesn't match the table property: 'other' != 't'/,
      ],
      [`${base}keyspace_definition: CREATE KEYSPACE ks2 WITH replication = {}\n`, /'ks2' != 'ks'/],
      [`${base}insert:\n  partitons: fixed(1)\n`, /unrecognised insert option: partitons/],
      [`${base}columnspec:\n  - name: k\n    sise: fixed(1)\n`, /unrecognised option in the column spec of k: sise/],
      [`${base}columnspec:\n  - size: fixed(1)\n`, /missing name argument/],
      [`${base}columnspec:\n  - name: k\n    size: zipf(1..3)\n`, /unknown distribution zipf/],
      [`${base}token_range_queries:\n  q:\n    columns: '*'\n`, /found q in both queries and token_range_queries/],
      ['keyspace: ks\ntable: t\nqueries:\n  q:\n    cql: x\n    fields: onerow\n', /samerow or multirow/],
      ['keyspace: [', /not valid YAML/],
    ];
    for (const [yaml, message] of cases) expect(() => parseProfile(yaml, 'p.yaml'), yaml).toThrow(message);
    expect(() => loadProfile('/nonexistent/profile.yaml')).toThrow(/cannot read the profile/);
    // Keys are case-insensitive; a CREATE TABLE may name the keyspace and quote the table.
    const p = parseProfile(
      'Keyspace: ks\nTABLE: t\ntable_definition: CREATE TABLE IF NOT EXISTS ks."T" (k int PRIMARY KEY)\nQueries:\n  Q1:\n    CQL: select 1\n',
      'p.yaml',
    );
    expect(p.queries.has('q1')).toBe(true);
  });
});

describe('command line', () => {
  it('takes the user command with its profile, ops and option groups', () => {
    const s = parseArgs(
      'user profile=a.yaml,b.yaml ops(insert=2,ks.t.Simple1=1,skip=0) clustering=fixed(1) duration=10s -insert partitions=uniform(1..5) select-ratio=fixed(1)/2 row-population-ratio=fixed(5)/10 batchtype=unlogged visits=fixed(2) revisit=uniform(1..100) -tokenrange wrap split-factor=4 -pop seq=1..1k no-wrap -log hdrfile=l.hlog'.split(
        ' ',
      ),
    );
    expect(s.command).toBe('user');
    expect(s.userCommand!.profiles).toEqual(['a.yaml', 'b.yaml']);
    expect([...s.userCommand!.ops]).toEqual([
      ['insert', 2],
      ['ks.t.simple1', 1],
    ]);
    expect(s.userCommand!.clustering).toBe('FIXED(1)');
    expect(s.insert).toEqual({
      partitions: 'UNIFORM(1..5)',
      selectRatio: 'FIXED(1)/2',
      rowPopulationRatio: 'FIXED(5)/10',
      batchType: 'UNLOGGED',
      visits: 'FIXED(2)',
      revisit: 'UNIFORM(1..100)',
    });
    expect(s.tokenRange).toEqual({ wrap: true, splitFactor: 4 });
    expect(s.population).toEqual({ kind: 'seq', spec: 'SEQ(1..1000)', wrap: false });
    expect(s.hdrFile).toBe('l.hlog');
    expect(s.duration).toBe(10_000);
    // An unquoted ops(...) split by the shell still parses; so does no-wrap without seq= (seq=1..n).
    const split = parseArgs(['user', 'profile=p.yaml', 'ops(insert=1,', 'q=3)', 'n=50', '-pop', 'no-wrap']);
    expect([...split.userCommand!.ops.keys()]).toEqual(['insert', 'q']);
    expect(split.population).toEqual({ kind: 'seq', spec: 'SEQ(1..50)', wrap: false });
  });

  it('takes the counter commands by their cassandra-stress names', () => {
    for (const [word, command] of [
      ['counter_write', 'counter_write'],
      ['counterwrite', 'counter_write'],
      ['counter_add', 'counter_write'],
      ['counter_read', 'counter_read'],
      ['counter_get', 'counter_read'],
    ]) {
      expect(parseArgs([word!, 'n=10']).command).toBe(command);
    }
    const s = parseArgs(['counter_write', 'n=10', 'add=uniform(1..3)', 'keysize=12']);
    expect(s.counterAdd).toBe('UNIFORM(1..3)');
    expect(s.keySize).toBe(12);
    expect(legacyKey(7, 12)).toHaveLength(12);
    expect(legacyKey(7, 4).toString()).toBe(legacyKey(7).toString().slice(6));
  });

  it('rejects user and counter options where they do not belong', () => {
    for (const bad of [
      ['user', 'ops(insert=1)'],
      ['user', 'profile=p.yaml'],
      ['user', 'profile=p.yaml', 'ops(insert=0)'],
      ['write', 'ops(insert=1)'],
      ['write', 'profile=p.yaml'],
      ['read', 'add=fixed(2)'],
      ['user', 'profile=p.yaml', 'ops(insert=1)', '-insert', 'batchtype=sometimes'],
      ['user', 'profile=p.yaml', 'ops(insert=1)', '-insert', 'partitions=zipf(1..2)'],
      ['user', 'profile=p.yaml', 'ops(insert=1)', '-pop', 'read-lookback=fixed(1)'],
      ['write', '-pop', 'seq=1..5', 'no-wrap'],
      ['write', '-log', 'hdrfile='],
    ]) {
      expect(() => parseArgs(bad), bad.join(' ')).toThrow(StressArgError);
    }
  });
});

function series(time: number[], seconds: number[], opRate: number[]): Series {
  const zero = time.map(() => 0);
  return {
    time,
    seconds,
    opRate,
    pkRate: zero,
    rowRate: zero,
    mean: zero,
    median: zero,
    p95: zero,
    p99: zero,
    p999: zero,
    max: zero,
    errors: zero,
  };
}

function run(revision: string, s: Series): RunData {
  return {
    revision,
    command: 'write',
    workload: 'WRITE',
    startedAt: new Date(0).toISOString(),
    durationSeconds: s.time[s.time.length - 1] ?? 0,
    threads: 8,
    intervalSeconds: 1,
    nodes: [],
    client: { hostname: 'h', node: 'v', cpus: 1 },
    opTypes: ['WRITE'],
    series: { total: s, WRITE: s },
    summary: {},
  };
}

describe('report charts', () => {
  const long = run('long', series([1, 2, 3, 3.05], [1, 1, 1, 0.05], [1000, 1100, 1050, 9000]));
  const short = run('short', series([0.3], [0.3], [5000]));

  it('size the axis by full intervals: partial points above it sit on the edge', () => {
    const layout = chartLayout([long, short], 'total', 'opRate');
    expect(layout.yMax).toBe(2000);
    const [l, s] = layout.lines;
    expect(l!.points.map((p) => p.y)).toEqual([1000, 1100, 1050, 2000]);
    expect(l!.points[3]).toMatchObject({ value: 9000, partial: true, clipped: true });
    expect(s!.points).toEqual([{ x: 0.3, y: 2000, value: 5000, partial: true, clipped: true }]);
    // Only short runs: nothing to size the axis by but themselves.
    expect(chartLayout([short], 'total', 'opRate').yMax).toBeUndefined();
    // A partial point below the full ones changes nothing.
    const low = run('low', series([1, 1.1], [1, 0.1], [1000, 10]));
    expect(chartLayout([low], 'total', 'opRate').yMax).toBeUndefined();
  });

  it('draws a run shorter than one interval as a visible marker in the page', () => {
    const charts: { data: { datasets: Record<string, unknown>[] }; options: { scales: { y: { max?: number } } } }[] =
      [];
    const render = (runs: RunData[]) => {
      charts.length = 0;
      const data: ReportData = { version: 1, title: 't', runs };
      const html = renderReport(data);
      const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
      const page = scripts[scripts.length - 1]!;
      const elements = new Map<string, Record<string, unknown>>();
      const element = (): Record<string, unknown> => {
        const e: Record<string, unknown> = { style: {}, value: '', checked: false, children: [] as unknown[] };
        e.appendChild = (child: Record<string, unknown>) => {
          (e.children as unknown[]).push(child);
          if (e.value === '' && typeof child.value === 'string') e.value = child.value;
        };
        e.addEventListener = () => {};
        return e;
      };
      const document = {
        getElementById: (id: string) => {
          if (!elements.has(id)) elements.set(id, element());
          const e = elements.get(id)!;
          if (id === 'pmemcql-stress-data') e.textContent = JSON.stringify(data);
          return e;
        },
        createElement: element,
      };
      class Chart {
        data: unknown;
        options: unknown;
        constructor(_canvas: unknown, config: { data: unknown; options: unknown }) {
          this.data = config.data;
          this.options = config.options;
          charts.push(this as unknown as (typeof charts)[number]);
        }
        update() {}
      }
      vm.runInNewContext(page, { document, Chart });
    };
    render([long, short]);
    const throughput = charts[0]!;
    expect(throughput.options.scales.y.max).toBe(2000);
    const [l, s] = throughput.data.datasets;
    expect(l!.pointRadius).toEqual([0, 0, 0, 6]);
    expect(l!.pointStyle).toEqual(['circle', 'circle', 'circle', 'triangle']);
    expect(s!.label).toBe('short');
    expect(s!.pointRadius).toEqual([6]);
    render([short]);
    expect(charts[0]!.options.scales.y.max).toBeUndefined();
    expect(charts[0]!.data.datasets[0]!.pointRadius).toEqual([5]);
    expect((charts[0]!.data.datasets[0]!.data as { y: number }[])[0]!.y).toBe(5000);
  });
});

describe('HdrHistogram log', () => {
  it("writes interval histograms per operation type that HdrHistogram's reader reads back", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmemcql-stress-hdr-'));
    try {
      const file = join(dir, 'l.hlog');
      const started = Date.now();
      const log = new HdrLatencyLog(file, started);
      const t0 = performance.now();
      // 1000 inserts of 1..1000 µs, 10 reads of 5 ms; then an interval of reads with a rate limit.
      for (let i = 1; i <= 1000; i++) log.record('insert', t0, t0 + i / 1000);
      for (let i = 0; i < 10; i++) log.record('simple1', t0, t0 + 5);
      log.interval(t0, t0 + 1000);
      for (let i = 0; i < 20; i++) log.record('simple1', t0 + 1000, t0 + 1002, t0 + 999);
      log.interval(t0 + 1000, t0 + 2000);
      log.close();
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n');
      expect(lines[0]).toBe('#Logging op latencies for pmemcql-stress');
      expect(lines[1]).toBe('#[Histogram log format version 1.3]');
      expect(lines[2]).toMatch(/^#\[BaseTime: \d+\.000 \(seconds since epoch\)\]$/);
      expect(lines[3]).toMatch(/^#\[StartTime: \d+\.000 \(seconds since epoch\), .+\]$/);
      expect(lines[4]).toBe('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
      expect(lines[5]).toMatch(/^Tag=insert-st,\d+\.\d{3},1\.000,1\.000,HISTF/);
      expect(hdr.listTags(text).sort()).toEqual(['insert-st', 'simple1-rt', 'simple1-st', 'simple1-wt']);
      const reader = new hdr.HistogramLogReader(text);
      const read: Record<string, hdr.Histogram[]> = {};
      for (let h = reader.nextIntervalHistogram(); h; h = reader.nextIntervalHistogram()) {
        read[h.tag] = [...(read[h.tag] ?? []), h];
      }
      const insert = read['insert-st']![0]!;
      expect(insert.totalCount).toBe(1000);
      // Nanoseconds at 3 significant digits.
      expect(Math.abs(insert.getValueAtPercentile(50) - 500_000) / 500_000).toBeLessThan(0.002);
      expect(Math.abs(insert.maxValue - 1_000_000) / 1_000_000).toBeLessThan(0.002);
      expect(insert.startTimeStampMsec).toBeGreaterThanOrEqual(started - 1000);
      expect(read['simple1-st']!.map((h) => h.totalCount)).toEqual([10, 20]);
      expect(read['simple1-rt']![0]!.totalCount).toBe(20);
      expect(Math.abs(read['simple1-rt']![0]!.getValueAtPercentile(50) - 3e6) / 3e6).toBeLessThan(0.002);
      expect(Math.abs(read['simple1-wt']![0]!.getValueAtPercentile(50) - 1e6) / 1e6).toBeLessThan(0.002);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("decodes HdrHistogram's Java-written lines, and encodes what decodes to the same histogram", () => {
    // From HdrHistogram's own test logs (tagged-non-monotonic.hlog), written by the Java library.
    const java = 'HISTFAAAAD942pNpmSzMwMAgwwABTBDKT4GBgdnNYMcCBvsPEBE+Ph4OLgk5OSkeIS4+LgEeswIDo1+MbmdYNASYAA51CSo=';
    const h = hdr.decodeFromCompressedBase64(java);
    expect(h.totalCount).toBeGreaterThan(0);
    const again = hdr.decodeFromCompressedBase64(hdr.encodeIntoCompressedBase64(h));
    expect(again.totalCount).toBe(h.totalCount);
    for (const p of [50, 90, 99, 100]) expect(again.getValueAtPercentile(p)).toBe(h.getValueAtPercentile(p));
  });
});

describe('default report location', () => {
  it('is stress-reports/ under the working directory, or under the temporary one when that is read-only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pmemcql-stress-where-'));
    try {
      const file = defaultReportFile('write', new Date(Date.UTC(2026, 0, 2, 3, 4, 5)), dir);
      expect(file).toBe(join(dir, 'stress-reports', 'pmemcql-stress-write-20260102-030405.html'));
      expect(existsSync(join(dir, 'stress-reports'))).toBe(true);
      const readOnly = join(dir, 'ro');
      mkdirSync(readOnly);
      chmodSync(readOnly, 0o500);
      // root writes anywhere; the fallback only matters for others.
      if (process.getuid?.() !== 0) {
        expect(defaultReportFile('read', new Date(), readOnly).startsWith(join(tmpdir(), 'stress-reports'))).toBe(true);
      }
      chmodSync(readOnly, 0o700);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
