// Results Apache Cassandra 5.0 gives where pmemcql used to answer differently, through the DataStax Node.js driver
// against the real server; each expected value is Cassandra's answer. Each describe names Cassandra's rule and
// where it lives: GROUP BY limits and pages count groups (DataLimits.CQLGroupByLimits, AggregationQueryPager), IN
// with ORDER BY sorts the result rows (SelectStatement.orderResults), a partition-key IN reads partitions in key
// order without duplicates (MultiCBuilder.build), Lists.Prepender keeps the literal order, a failed condition shows
// the static row (ModificationStatement.buildCasFailureResultSet), timestamps are 64-bit exact, views keep empty
// key values, builds are recorded (ViewBuilder.finish) and a full page always carries a paging state.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;
let tableCount = 0;

/** Paging off: the driver sends no page size (one page holds every row). */
const UNPAGED = { autoPage: false, fetchSize: 0 } as cassandra.QueryOptions;

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, { prepare: params.length > 0, ...options });
}

/** Rows as arrays of their values, in column order. */
async function tuples(query: string, params: unknown[] = [], options: cassandra.QueryOptions = UNPAGED) {
  const rs = await q(query, params, options);
  return rs.rows.map((r) => r.values().map(plain));
}

function plain(v: unknown): unknown {
  if (cassandra.types.Long.isLong(v)) return (v as cassandra.types.Long).toString();
  return v ?? null;
}

/** Every page of a query read with `fetchSize`, passing on each paging state until none comes back. */
async function pages(query: string, fetchSize: number, params: unknown[] = []): Promise<unknown[][][]> {
  const out: unknown[][][] = [];
  let pageState: string | undefined;
  do {
    const rs = await q(query, params, { fetchSize, pageState, autoPage: false, prepare: true });
    out.push(rs.rows.map((r) => r.values().map(plain)));
    pageState = rs.pageState ?? undefined;
    if (out.length > 50) throw new Error(`paging did not end: ${JSON.stringify(out.slice(0, 5))}`);
  } while (pageState);
  return out;
}

/** A fresh table `r.tN` made by `ddl` (with `%t` for its name). */
async function table(ddl: string): Promise<string> {
  const name = `r.t${++tableCount}`;
  await q(ddl.replaceAll('%t', name));
  return name;
}

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q(`CREATE KEYSPACE r WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe('GROUP BY with PER PARTITION LIMIT limits groups per partition, not rows (CQLGroupByLimits)', () => {
  it('keeps the first group of each partition, and every row of that group', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, c int, v int, PRIMARY KEY (a, b, c))');
    await q(`INSERT INTO ${t} (a, b, c, v) VALUES (1, 1, 1, 10)`);
    await q(`INSERT INTO ${t} (a, b, c, v) VALUES (1, 1, 2, 20)`);
    await q(`INSERT INTO ${t} (a, b, c, v) VALUES (1, 2, 1, 30)`);
    expect(await tuples(`SELECT a, b, count(*), max(v) FROM ${t} GROUP BY a, b PER PARTITION LIMIT 1`)).toEqual([
      [1, 1, '2', 20],
    ]);
    expect(await tuples(`SELECT a, b, c FROM ${t} WHERE a = 1 GROUP BY a, b PER PARTITION LIMIT 2`)).toEqual([
      [1, 1, 1],
      [1, 2, 1],
    ]);
  });

  it('is refused for aggregates without GROUP BY, which fold every row (SelectStatement.RawStatement.prepare)', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, v int, PRIMARY KEY (a, b))');
    const err = await q(`SELECT count(*) FROM ${t} PER PARTITION LIMIT 1`).catch((e: Error & { code?: number }) => e);
    expect(err).toMatchObject({ code: 0x2200, message: 'PER PARTITION LIMIT is not allowed with aggregate queries.' });
  });
});

describe('GROUP BY results are paged by groups: the page size counts groups (AggregationQueryPager)', () => {
  it('pages one group at a time; a full last page carries a paging state unless LIMIT is reached', async () => {
    const t = await table('CREATE TABLE %t (p int, c1 int, c2 int, v int, PRIMARY KEY (p, c1, c2))');
    for (const [c1, c2, v] of [
      [0, 0, 1],
      [0, 1, 2],
      [1, 0, 3],
      [1, 1, 4],
    ]) {
      await q(`INSERT INTO ${t} (p, c1, c2, v) VALUES (0, ?, ?, ?)`, [c1, c2, v]);
    }
    expect(await pages(`SELECT p, c1, c2, v FROM ${t} GROUP BY p, c1`, 1)).toEqual([
      [[0, 0, 0, 1]],
      [[0, 1, 0, 3]],
      [],
    ]);
    expect(await pages(`SELECT p, c1, c2, v FROM ${t} GROUP BY p, c1 LIMIT 2`, 1)).toEqual([
      [[0, 0, 0, 1]],
      [[0, 1, 0, 3]],
    ]);
  });
});

describe("GROUP BY under paging: Cassandra's SelectGroupByTest.testGroupByWithPaging, every page size 1..9", () => {
  const rows: [string, unknown[][]][] = [
    [
      'SELECT a, b, e, count(b), max(e) FROM %t GROUP BY a',
      [
        [1, 2, 6, '4', 24],
        [2, 2, 6, '2', 12],
        [4, 8, 24, '1', 24],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t GROUP BY a, b',
      [
        [1, 2, 6, '2', 12],
        [1, 4, 12, '2', 24],
        [2, 2, 6, '1', 6],
        [2, 4, 12, '1', 12],
        [4, 8, 24, '1', 24],
      ],
    ],
    ['SELECT a, b, e, count(b), max(e) FROM %t', [[1, 2, 6, '7', 24]]],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t WHERE b = 2 GROUP BY a, b ALLOW FILTERING',
      [
        [1, 2, 6, '2', 12],
        [2, 2, 6, '1', 6],
      ],
    ],
    [
      'SELECT a, b, c, d FROM %t GROUP BY a, b, c',
      [
        [1, 2, 1, 3],
        [1, 2, 2, 6],
        [1, 4, 2, 6],
        [2, 2, 3, 3],
        [2, 4, 3, 6],
        [4, 8, 2, 12],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t GROUP BY a, b LIMIT 2',
      [
        [1, 2, 6, '2', 12],
        [1, 4, 12, '2', 24],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t GROUP BY a, b PER PARTITION LIMIT 1',
      [
        [1, 2, 6, '2', 12],
        [2, 2, 6, '1', 6],
        [4, 8, 24, '1', 24],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t GROUP BY a, b PER PARTITION LIMIT 1 LIMIT 2',
      [
        [1, 2, 6, '2', 12],
        [2, 2, 6, '1', 6],
      ],
    ],
    [
      'SELECT a, b, c, d FROM %t GROUP BY a, b, c PER PARTITION LIMIT 2 LIMIT 3',
      [
        [1, 2, 1, 3],
        [1, 2, 2, 6],
        [2, 2, 3, 3],
      ],
    ],
    [
      'SELECT * FROM %t GROUP BY a, b PER PARTITION LIMIT 1',
      [
        [1, 2, 1, 3, 6],
        [2, 2, 3, 3, 6],
        [4, 8, 2, 12, 24],
      ],
    ],
    [
      'SELECT DISTINCT a, count(a) FROM %t GROUP BY a LIMIT 2',
      [
        [1, '1'],
        [2, '1'],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t WHERE a = 1 GROUP BY a, b, c',
      [
        [1, 2, 6, '1', 6],
        [1, 2, 12, '1', 12],
        [1, 4, 12, '2', 24],
      ],
    ],
    ['SELECT count(b), max(e) FROM %t WHERE a = 1 GROUP BY a, b, c LIMIT 1', [['1', 6]]],
    [
      'SELECT * FROM %t WHERE a = 1 GROUP BY a, b, c PER PARTITION LIMIT 2',
      [
        [1, 2, 1, 3, 6],
        [1, 2, 2, 6, 12],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t WHERE a = 1 GROUP BY a, b, c ORDER BY b DESC, c DESC PER PARTITION LIMIT 2',
      [
        [1, 4, 24, '2', 24],
        [1, 2, 12, '1', 12],
      ],
    ],
    [
      'SELECT a, b, e, count(b), max(e) FROM %t WHERE a IN (1, 2, 4) GROUP BY a, b, c',
      [
        [1, 2, 6, '1', 6],
        [1, 2, 12, '1', 12],
        [1, 4, 12, '2', 24],
        [2, 2, 6, '1', 6],
        [2, 4, 12, '1', 12],
        [4, 8, 24, '1', 24],
      ],
    ],
    ['SELECT a, b, e, count(b), max(e) FROM %t WHERE a IN (1, 2, 4) AND b = 2', [[1, 2, 6, '3', 12]]],
  ];

  it('returns the same groups whatever the page size', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, c int, d int, e int, PRIMARY KEY (a, b, c, d))');
    for (const r of [
      [1, 2, 1, 3, 6],
      [1, 2, 2, 6, 12],
      [1, 3, 2, 12, 24],
      [1, 4, 2, 12, 24],
      [1, 4, 2, 6, 12],
      [2, 2, 3, 3, 6],
      [2, 4, 3, 6, 12],
      [3, 3, 2, 12, 24],
      [4, 8, 2, 12, 24],
    ]) {
      await q(`INSERT INTO ${t} (a, b, c, d, e) VALUES (?, ?, ?, ?, ?)`, r);
    }
    // Some tombstones.
    await q(`DELETE FROM ${t} WHERE a = 1 AND b = 3 AND c = 2 AND d = 12`);
    await q(`DELETE FROM ${t} WHERE a = 3`);
    for (const [query, expected] of rows) {
      for (let pageSize = 1; pageSize < 10; pageSize++) {
        const got = await pages(query.replaceAll('%t', t), pageSize);
        expect(got.flat(), `${query} [page size ${pageSize}]`).toEqual(expected);
        // A GROUP BY page holds at most page-size groups.
        if (query.includes('GROUP BY') && !query.includes('DISTINCT')) {
          expect(Math.max(...got.map((p) => p.length)), `${query} [page size ${pageSize}]`).toBeLessThanOrEqual(
            pageSize,
          );
        }
      }
    }
  });

  it('pages GROUP BY the partition key over the Arrow twin by groups too', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, v int)');
    for (let k = 0; k < 5; k++) await q(`INSERT INTO ${t} (k, v) VALUES (?, ?)`, [k, k * 10]);
    const query = `SELECT k, count(*), sum(v) FROM ${t} GROUP BY k`;
    const unpaged = await tuples(query);
    expect(unpaged).toHaveLength(5);
    const columnar = async () => Number((await q('SELECT columnar FROM system_arrow.use_auto_path')).rows[0]!.columnar);
    const before = await columnar();
    expect((await pages(query, 2)).map((p) => p.length)).toEqual([2, 2, 1]);
    // A full last page: a paging state, then an empty page; LIMIT reached on it: none.
    expect((await pages(query, 5)).map((p) => p.length)).toEqual([5, 0]);
    expect((await pages(`${query} LIMIT 4`, 2)).map((p) => p.length)).toEqual([2, 2]);
    expect((await pages(query, 2)).flat()).toEqual(unpaged);
    expect(await columnar()).toBeGreaterThan(before);
  });
});

describe('DISTINCT and PER PARTITION LIMIT under paging over static columns (DistinctQueryPagingTest, SelectLimitTest)', () => {
  /** Every page size 1..6: the rows across pages equal Cassandra's. */
  async function everyPageSize(cases: [string, unknown[][]][]) {
    for (let pageSize = 1; pageSize < 7; pageSize++) {
      for (const [query, expected] of cases) {
        expect((await pages(query, pageSize)).flat(), `${query} [page size ${pageSize}]`).toEqual(expected);
      }
    }
  }

  it('returns each partition once, static-only partitions included, whatever the page size', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, s int static, c int, d int, PRIMARY KEY (a, b))');
    const distinct: [string, unknown[][]][] = [
      [
        `SELECT DISTINCT a, s FROM ${t}`,
        [
          [1, 1],
          [0, 0],
          [2, 2],
          [4, 4],
          [3, 3],
        ],
      ],
      [
        `SELECT DISTINCT a, s FROM ${t} LIMIT 3`,
        [
          [1, 1],
          [0, 0],
          [2, 2],
        ],
      ],
      [
        `SELECT DISTINCT a, s FROM ${t} WHERE s >= 2 ALLOW FILTERING`,
        [
          [2, 2],
          [4, 4],
          [3, 3],
        ],
      ],
      [
        `SELECT DISTINCT a, s FROM ${t} WHERE a IN (1, 2, 3, 4)`,
        [
          [1, 1],
          [2, 2],
          [3, 3],
          [4, 4],
        ],
      ],
      [
        `SELECT DISTINCT a, s FROM ${t} WHERE a IN (1, 2, 3, 4) LIMIT 3`,
        [
          [1, 1],
          [2, 2],
          [3, 3],
        ],
      ],
      [
        `SELECT DISTINCT a, s FROM ${t} WHERE a IN (1, 2, 3, 4) AND s >= 2 ALLOW FILTERING`,
        [
          [2, 2],
          [3, 3],
          [4, 4],
        ],
      ],
    ];
    // Only static data, then a mix of partitions with and without rows, then rows everywhere.
    for (let i = 0; i < 5; i++) await q(`INSERT INTO ${t} (a, s) VALUES (?, ?)`, [i, i]);
    await everyPageSize(distinct);
    for (const i of [0, 2, 4]) {
      for (let j = 1; j < 4; j++) await q(`INSERT INTO ${t} (a, b, c, d) VALUES (?, ?, ?, ?)`, [i, j, j, i + j]);
    }
    await everyPageSize(distinct);
    for (let i = 0; i < 5; i++) {
      for (let j = 1; j < 4; j++) await q(`INSERT INTO ${t} (a, b, c, d) VALUES (?, ?, ?, ?)`, [i, j, j, i + j]);
    }
    await everyPageSize(distinct);
  });

  it('shows static-only partitions of an IN once per page boundary (PER PARTITION LIMIT)', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, s int static, c int, PRIMARY KEY (a, b))');
    for (let i = 0; i < 5; i++) await q(`INSERT INTO ${t} (a, s) VALUES (?, ?)`, [i, i]);
    const only = (i: number) => [i, null, i, null];
    await everyPageSize([
      [`SELECT * FROM ${t} WHERE a IN (1,3,4) PER PARTITION LIMIT 2`, [1, 3, 4].map(only)],
      [`SELECT * FROM ${t} WHERE a IN (1,3,4) PER PARTITION LIMIT 2 LIMIT 2`, [1, 3].map(only)],
    ]);
    for (const i of [0, 2, 3, 4]) {
      for (let j = 0; j < 5; j++) await q(`INSERT INTO ${t} (a, b, s, c) VALUES (?, ?, ?, ?)`, [i, j, i, j]);
    }
    await everyPageSize([
      [`SELECT * FROM ${t} WHERE a IN (1,2,3) PER PARTITION LIMIT 2 LIMIT 3`, [only(1), [2, 0, 2, 0], [2, 1, 2, 1]]],
    ]);
  });
});

describe('IN on the partition key with ORDER BY and GROUP BY sorts the groups (SelectStatement.orderResults)', () => {
  it('merges the groups of every partition in clustering order', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, c int, PRIMARY KEY (a, b))');
    await q(`INSERT INTO ${t} (a, b, c) VALUES (1, 1, 1)`);
    await q(`INSERT INTO ${t} (a, b, c) VALUES (1, 3, 1)`);
    await q(`INSERT INTO ${t} (a, b, c) VALUES (2, 2, 1)`);
    expect(await tuples(`SELECT a, b FROM ${t} WHERE a IN (1, 2) ORDER BY b DESC`)).toEqual([
      [1, 3],
      [2, 2],
      [1, 1],
    ]);
    expect(await tuples(`SELECT a, b, count(*) FROM ${t} WHERE a IN (1, 2) GROUP BY a, b ORDER BY b DESC`)).toEqual([
      [1, 3, '1'],
      [2, 2, '1'],
      [1, 1, '1'],
    ]);
  });
});

describe('a partition-key IN reads partitions in key order, not token order (MultiCBuilder.build)', () => {
  it('orders by the key type, with a static-only partition among them', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, s int static, PRIMARY KEY (a, b))');
    for (const a of [1, 2, 3, 4]) await q(`INSERT INTO ${t} (a, b) VALUES (?, 1)`, [a]);
    await q(`UPDATE ${t} SET s = 5 WHERE a = 5`);
    expect(await tuples(`SELECT a FROM ${t}`)).toEqual([[5], [1], [2], [4], [3]]);
    expect(await tuples(`SELECT a FROM ${t} WHERE a IN (4, 3, 2, 1)`)).toEqual([[1], [2], [3], [4]]);
    expect(await tuples(`SELECT a, b, s FROM ${t} WHERE a IN (1, 2, 3, 4, 5)`)).toEqual([
      [1, 1, null],
      [2, 1, null],
      [3, 1, null],
      [4, 1, null],
      [5, null, 5],
    ]);
    expect(await tuples(`SELECT a, count(*) FROM ${t} WHERE a IN (1, 2, 3, 4) GROUP BY a`)).toEqual([
      [1, '1'],
      [2, '1'],
      [3, '1'],
      [4, '1'],
    ]);
  });

  it('keeps key order across pages, and for a bound list', async () => {
    const t = await table('CREATE TABLE %t (a int, b int, PRIMARY KEY (a, b))');
    for (const a of [1, 2, 3, 4]) await q(`INSERT INTO ${t} (a, b) VALUES (?, 1)`, [a]);
    expect(await pages(`SELECT a FROM ${t} WHERE a IN ?`, 3, [[4, 3, 2, 1, -7]])).toEqual([[[1], [2], [3]], [[4]]]);
  });
});

describe('duplicate values in a clustering-key IN select the row once', () => {
  it('reads each clustering once', async () => {
    const t = await table('CREATE TABLE %t (k1 int, k2 int, v int, PRIMARY KEY (k1, k2))');
    await q(`INSERT INTO ${t} (k1, k2, v) VALUES (1, 1, 1)`);
    expect(await tuples(`SELECT * FROM ${t} WHERE k1 IN (1, 1)`)).toEqual([[1, 1, 1]]);
    expect(await tuples(`SELECT * FROM ${t} WHERE k1 = 1 AND k2 IN (1, 1)`)).toEqual([[1, 1, 1]]);
    expect(await tuples(`SELECT * FROM ${t} WHERE k1 IN (1, 1) AND k2 IN (1, 1)`)).toEqual([[1, 1, 1]]);
    expect(await tuples(`SELECT * FROM ${t} WHERE k1 = 1 AND k2 IN ?`, [[1, 1]])).toEqual([[1, 1, 1]]);
  });
});

describe('prepending a list literal keeps the literal order (Lists.Prepender)', () => {
  it('puts the literal, in its order, before the existing elements', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, l list<text>)');
    await q(`INSERT INTO ${t} (k, l) VALUES (0, ['a'])`);
    await q(`UPDATE ${t} SET l = ['m', 'n'] + l WHERE k = 0`);
    expect(await tuples(`SELECT l FROM ${t} WHERE k = 0`)).toEqual([[['m', 'n', 'a']]]);
    await q(`UPDATE ${t} SET l = ? + l WHERE k = 0`, [['x', 'y', 'z']]);
    expect(await tuples(`SELECT l FROM ${t} WHERE k = 0`)).toEqual([[['x', 'y', 'z', 'm', 'n', 'a']]]);
  });
});

describe('a failed IF on a static column shows the static value (ModificationStatement.buildCasFailureResultSet)', () => {
  it('returns [applied] false with the current static value when the row is gone', async () => {
    const t = await table('CREATE TABLE %t (k text, s text static, i int, v text, PRIMARY KEY (k, i))');
    await q(`INSERT INTO ${t} (k, s, i, v) VALUES ('k', 's', 0, 'v')`);
    await q(`DELETE FROM ${t} WHERE k = 'k' AND i = 0`);
    expect(await tuples(`SELECT * FROM ${t}`)).toEqual([['k', null, 's', null]]);
    const del = await q(`DELETE v FROM ${t} WHERE k = 'k' AND i = 0 IF s = 'z'`);
    expect(del.columns.map((c) => c.name)).toEqual(['[applied]', 's']);
    expect(del.rows.map((r) => [r['[applied]'], r.s])).toEqual([[false, 's']]);
    const upd = await q(`UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z'`);
    expect(upd.rows.map((r) => [r['[applied]'], r.s])).toEqual([[false, 's']]);
    // With a regular column in the condition too: the row is absent, so that one is null.
    const both = await q(`UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z' AND v = 'v'`);
    expect(both.columns.map((c) => c.name)).toEqual(['[applied]', 's', 'v']);
    expect(both.rows.map((r) => [r['[applied]'], r.s, r.v])).toEqual([[false, 's', null]]);
    // A conditional batch shows the primary key too: the static row alone has null clustering.
    const batch = await q(`BEGIN BATCH UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z' APPLY BATCH`);
    expect(batch.columns.map((c) => c.name)).toEqual(['[applied]', 'k', 'i', 's']);
    expect(batch.rows.map((r) => [r['[applied]'], r.k, r.i, r.s])).toEqual([[false, 'k', null, 's']]);
  });

  it("with conditions on static columns only, shows the partition's first live row", async () => {
    const t = await table('CREATE TABLE %t (k text, s text static, i int, v text, PRIMARY KEY (k, i))');
    await q(`INSERT INTO ${t} (k, i, v) VALUES ('k', 5, 'x')`);
    const r = await q(`UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z'`);
    expect(r.columns.map((c) => c.name)).toEqual(['[applied]', 's']);
    expect(r.rows.map((x) => [x['[applied]'], x.s])).toEqual([[false, null]]);
    const batch = await q(`BEGIN BATCH UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 0 IF s = 'z' APPLY BATCH`);
    expect(batch.rows.map((x) => [x['[applied]'], x.k, x.i, x.s])).toEqual([[false, 'k', 5, null]]);
  });

  it('returns [applied] false alone when neither the row nor a static condition value exists', async () => {
    const t = await table('CREATE TABLE %t (k text, s text static, i int, v text, PRIMARY KEY (k, i))');
    await q(`INSERT INTO ${t} (k, i, v) VALUES ('k', 0, 'v')`);
    const r = await q(`UPDATE ${t} SET v = 'w' WHERE k = 'k' AND i = 1 IF v = 'z'`);
    expect(r.columns.map((c) => c.name)).toEqual(['[applied]']);
    expect(r.rows[0]!['[applied]']).toBe(false);
  });
});

describe('USING TIMESTAMP keeps every 64-bit value exactly', () => {
  it('stores -2^63+1 and 2^63-1 and reads them back', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, v int)');
    await q(`INSERT INTO ${t} (k, v) VALUES (1, 1) USING TIMESTAMP -9223372036854775807`);
    expect(await tuples(`SELECT writetime(v) FROM ${t} WHERE k = 1`)).toEqual([['-9223372036854775807']]);
    await q(`INSERT INTO ${t} (k, v) VALUES (2, 2) USING TIMESTAMP 9223372036854775807`);
    expect(await tuples(`SELECT writetime(v) FROM ${t} WHERE k = 2`)).toEqual([['9223372036854775807']]);
    // Neighbours that a double cannot tell apart still order as integers.
    await q(`INSERT INTO ${t} (k, v) VALUES (3, 3) USING TIMESTAMP 9223372036854775806`);
    await q(`INSERT INTO ${t} (k, v) VALUES (3, 4) USING TIMESTAMP 9223372036854775805`);
    expect(await tuples(`SELECT v, writetime(v) FROM ${t} WHERE k = 3`)).toEqual([[3, '9223372036854775806']]);
    await q(`DELETE FROM ${t} USING TIMESTAMP 9223372036854775805 WHERE k = 3`);
    expect(await tuples(`SELECT v FROM ${t} WHERE k = 3`)).toEqual([[3]]);
    await q(`DELETE FROM ${t} USING TIMESTAMP 9223372036854775807 WHERE k = 3`);
    expect(await tuples(`SELECT v FROM ${t} WHERE k = 3`)).toEqual([]);
    // The protocol's default timestamp too.
    const ts = cassandra.types.Long.fromString('-9223372036854775000');
    await client.execute(`INSERT INTO ${t} (k, v) VALUES (4, 4)`, [], { timestamp: ts });
    expect(await tuples(`SELECT writetime(v) FROM ${t} WHERE k = 4`)).toEqual([['-9223372036854775000']]);
    // The Arrow twin takes these rows too, and still agrees with the row store.
    await q('SELECT * FROM system_arrow.flush_now');
    const [ks, name] = t.split('.');
    const check = `SELECT problems, first_problem FROM system_arrow.consistency WHERE keyspace_name = '${ks}' AND table_name = '${name}'`;
    expect(await tuples(check)).toEqual([[0, null]]);
    expect(await tuples(`SELECT k, v, writetime(v) FROM ${t} WHERE k IN (1, 2, 4)`)).toEqual([
      [1, 1, '-9223372036854775807'],
      [2, 2, '9223372036854775807'],
      [4, 4, '-9223372036854775000'],
    ]);
  });

  it('overwrites and reads collections at extreme timestamps', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, l list<int>, s set<int>)');
    await q(`INSERT INTO ${t} (k, l, s) VALUES (1, [1, 2], {1}) USING TIMESTAMP 9223372036854775000`);
    // Overwriting deletes the old elements just before its own timestamp.
    await q(`UPDATE ${t} USING TIMESTAMP 9223372036854775001 SET l = [3], s = {2} WHERE k = 1`);
    expect(await tuples(`SELECT l, s, writetime(l), maxwritetime(s) FROM ${t} WHERE k = 1`)).toEqual([
      [[3], [2], [cassandra.types.Long.fromString('9223372036854775001')], '9223372036854775001'],
    ]);
  });

  it('refuses -2^63 as UpdateParameters does', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, v int)');
    const err = await q(`INSERT INTO ${t} (k, v) VALUES (1, 1) USING TIMESTAMP -9223372036854775808`).catch(
      (e: { code?: number; message: string }) => e,
    );
    expect(err).toMatchObject({
      code: 0x2200,
      message: 'Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]',
    });
  });
});

describe('materialized views (ViewBuilder, SystemDistributedKeyspace)', () => {
  it('keep a base row whose view partition key is the empty string', async () => {
    const t = await table('CREATE TABLE %t (p int PRIMARY KEY, v text)');
    await q(
      `CREATE MATERIALIZED VIEW r.mv_empty AS SELECT * FROM ${t} WHERE v IS NOT NULL AND p IS NOT NULL PRIMARY KEY (v, p)`,
    );
    await q(`INSERT INTO ${t} (p, v) VALUES (123, '')`);
    await q(`INSERT INTO ${t} (p, v) VALUES (1, 'dog')`);
    expect(await tuples('SELECT * FROM r.mv_empty')).toEqual([
      ['', 123],
      ['dog', 1],
    ]);
    // Moving the row off the empty key removes the view row.
    await q(`UPDATE ${t} SET v = 'cat' WHERE p = 123`);
    expect(await tuples('SELECT * FROM r.mv_empty')).toEqual([
      ['cat', 123],
      ['dog', 1],
    ]);
  });

  it('record their build in system_distributed.view_build_status and system.built_views', async () => {
    await q(`CREATE KEYSPACE rv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
    await q('CREATE TABLE rv.t (p int PRIMARY KEY, v int)');
    await q('INSERT INTO rv.t (p, v) VALUES (1, 1)');
    await q(
      'CREATE MATERIALIZED VIEW rv.mv AS SELECT * FROM rv.t WHERE v IS NOT NULL AND p IS NOT NULL PRIMARY KEY (v, p)',
    );
    const status = `SELECT keyspace_name, view_name, status FROM system_distributed.view_build_status WHERE keyspace_name = 'rv' ALLOW FILTERING`;
    // Tools poll until the build is recorded; the build has its own pace, so poll the same way.
    let rows: unknown[][] = [];
    for (let i = 0; i < 200; i++) {
      rows = await tuples(status);
      if (rows.length > 0 && rows.every((r) => r[2] === 'SUCCESS')) break;
      await new Promise((ok) => setImmediate(ok));
    }
    expect(rows).toEqual([['rv', 'mv', 'SUCCESS']]);
    expect(await tuples('SELECT * FROM rv.mv')).toEqual([[1, 1]]);
    const hostId = (await q('SELECT host_id FROM system.local')).rows[0]!.host_id.toString();
    expect(
      (
        await tuples(
          `SELECT host_id FROM system_distributed.view_build_status WHERE keyspace_name = 'rv' AND view_name = 'mv'`,
        )
      ).map((r) => String(r[0])),
    ).toEqual([hostId]);
    expect(await tuples(`SELECT * FROM system.built_views WHERE keyspace_name = 'rv'`)).toEqual([['rv', 'mv', true]]);
    // A dropped view leaves both tables.
    await q('DROP MATERIALIZED VIEW rv.mv');
    expect(await tuples(status)).toEqual([]);
    expect(await tuples(`SELECT * FROM system.built_views WHERE keyspace_name = 'rv'`)).toEqual([]);
  });
});

describe('a full last page of a paged index query carries a paging state, then an empty page comes', () => {
  it('pages a legacy and an SAI index like the row path', async () => {
    const t = await table('CREATE TABLE %t (k int, c int, x int, y int, PRIMARY KEY (k, c))');
    await q(`CREATE INDEX ON ${t} (x)`);
    await q(`CREATE INDEX ON ${t} (y) USING 'sai'`);
    await q(`INSERT INTO ${t} (k, c, x, y) VALUES (1, 1, 3, 3)`);
    await q(`INSERT INTO ${t} (k, c, x, y) VALUES (2, 1, 3, 3)`);
    await q(`INSERT INTO ${t} (k, c, x, y) VALUES (3, 1, 4, 4)`);
    for (const column of ['x', 'y']) {
      const got = await pages(`SELECT k FROM ${t} WHERE ${column} = 3`, 1);
      expect(got.map((p) => p.length)).toEqual([1, 1, 0]);
      expect(
        got
          .flat()
          .map((r) => r[0])
          .sort(),
      ).toEqual([1, 2]);
      // With LIMIT reached on the full page, no paging state.
      expect((await pages(`SELECT k FROM ${t} WHERE ${column} = 3 LIMIT 2`, 1)).map((p) => p.length)).toEqual([1, 1]);
    }
  });
});

describe('list operations of one statement see the earlier ones (UpdateParameters.getPrefetchedRow)', () => {
  it("follows CollectionsTest.testMultipleOperationOnListWithinTheSameQuery's answers", async () => {
    const t = await table('CREATE TABLE %t (pk int PRIMARY KEY, l list<int>)');
    await q(`INSERT INTO ${t} (pk, l) VALUES (1, [1, 2, 3, 4])`);
    const list = async () => (await tuples(`SELECT l FROM ${t} WHERE pk = 1`))[0]![0];
    const steps: [string, unknown[], number[] | string][] = [
      // The same element set twice: the greater value wins (equal timestamps).
      ['UPDATE %t SET l[?] = ?, l[?] = ? WHERE pk = ?', [2, 7, 2, 8, 1], [1, 2, 8, 4]],
      ['UPDATE %t SET l[?] = ?, l[?] = ? WHERE pk = ?', [2, 9, 2, 6, 1], [1, 2, 9, 4]],
      // Deleting index 2 twice deletes that element and the one after it.
      ['DELETE l[?], l[?] FROM %t WHERE pk = ?', [2, 2, 1], [1, 2]],
      // An index set after an append sees the appended elements; the greater value wins.
      ['UPDATE %t SET l = l + ?, l[?] = ? WHERE pk = ?', [[3, 4], 3, 7, 1], [1, 2, 3, 7]],
      ['UPDATE %t SET l = l + ?, l[?] = ? WHERE pk = ?', [[6, 8], 4, 5, 1], [1, 2, 3, 7, 6, 8]],
      // Order matters: the index is checked before the append.
      ['UPDATE %t SET l[?] = ?, l = l + ? WHERE pk = ?', [6, 5, [9], 1], 'List index 6 out of bound, list has size 6'],
      // The updated element is then removed by value.
      ['UPDATE %t SET l[?] = ?, l = l - ? WHERE pk = ?', [2, 8, [8], 1], [1, 2, 7, 6]],
      ['UPDATE %t SET l = l - ?, l[?] = ? WHERE pk = ?', [[6], 3, 4, 1], 'List index 3 out of bound, list has size 3'],
      ['UPDATE %t SET l[?] = ?, l = l - ? WHERE pk = ?', [2, 8, [1], 1], [2, 8, 6]],
      ['UPDATE %t SET l = l - ?, l[?] = ? WHERE pk = ?', [[2, 6], 0, 9, 1], [9]],
    ];
    for (const [statement, params, expected] of steps) {
      const run = q(statement.replace('%t', t), params);
      if (typeof expected === 'string') {
        await expect(run).rejects.toMatchObject({ code: 0x2200, message: expected });
      } else {
        await run;
        expect(await list(), statement).toEqual(expected);
      }
    }
  });

  it('refuses index operations on an empty list with Lists.SetterByIndex / DiscarderByIndex messages', async () => {
    const t = await table('CREATE TABLE %t (pk int PRIMARY KEY, l list<int>)');
    await q(`INSERT INTO ${t} (pk) VALUES (1)`);
    await expect(q(`UPDATE ${t} SET l[0] = 1 WHERE pk = 1`)).rejects.toMatchObject({
      code: 0x2200,
      message: 'Attempted to set an element on a list which is null',
    });
    await expect(q(`DELETE l[0] FROM ${t} WHERE pk = 1`)).rejects.toMatchObject({
      code: 0x2200,
      message: 'Attempted to delete an element from a list which is null',
    });
    // An element appended by the same statement can be set.
    await q(`UPDATE ${t} SET l = l + [1], l[0] = 5 WHERE pk = 1`);
    expect(await tuples(`SELECT l FROM ${t} WHERE pk = 1`)).toEqual([[[5]]]);
  });
});

describe('selection of empty collections (CollectionsTest.testSelectionOfEmptyCollections)', () => {
  it('slices a frozen collection into a collection, empty when nothing matches; a non-frozen one into null', async () => {
    const frozen = await table('CREATE TABLE %t (k int PRIMARY KEY, m frozen<map<text, int>>, s frozen<set<int>>)');
    const cells = await table('CREATE TABLE %t (k int PRIMARY KEY, m map<text, int>, s set<int>)');
    for (const t of [frozen, cells]) {
      await q(`INSERT INTO ${t} (k) VALUES (0)`);
      await q(`INSERT INTO ${t} (k, m, s) VALUES (1, {}, {})`);
      await q(`INSERT INTO ${t} (k, m, s) VALUES (3, {'2': 2}, {2})`);
    }
    const select = (t: string, k: number) =>
      Promise.all([
        tuples(`SELECT m, s FROM ${t} WHERE k = ${k}`),
        tuples(`SELECT m['0'] AS a, s[0] AS b FROM ${t} WHERE k = ${k}`),
        tuples(`SELECT m['0'..'1'] AS a, s[0..1] AS b FROM ${t} WHERE k = ${k}`),
        tuples(`SELECT m['0'..'1']['3'..'5'] AS a, s[0..1][3..5] AS b FROM ${t} WHERE k = ${k}`),
      ]);
    const nulls = [[null, null]];
    expect(await select(frozen, 0)).toEqual([nulls, nulls, nulls, nulls]);
    expect(await select(frozen, 1)).toEqual([[[{}, []]], nulls, [[{}, []]], [[{}, []]]]);
    expect(await select(frozen, 3)).toEqual([[[{ '2': 2 }, [2]]], nulls, [[{}, []]], [[{}, []]]]);
    expect(await select(cells, 0)).toEqual([nulls, nulls, nulls, nulls]);
    expect(await select(cells, 1)).toEqual([nulls, nulls, nulls, nulls]);
    expect(await select(cells, 3)).toEqual([[[{ '2': 2 }, [2]]], nulls, nulls, nulls]);
  });
});

describe('secondary-index results with expiring columns and with PER PARTITION LIMIT', () => {
  /** Waits until `query` (one cell of one row) reads null: its TTL ran out. */
  async function expired(query: string) {
    for (let i = 0; i < 500; i++) {
      const rows = await tuples(query);
      if (rows.length === 0 || rows[0]![0] === null) return;
      await new Promise((ok) => setTimeout(ok, 10));
    }
    throw new Error(`${query} never expired`);
  }

  it('keeps a row reachable through a key-column index when an UPDATE USING TTL expires one of its cells', async () => {
    // CassandraIndex.getPrimaryKeyIndexLiveness: the entry takes the newest timestamp but only the row's own TTL.
    const p = await table('CREATE TABLE %t (k1 int, k2 int, a int, b int, PRIMARY KEY ((k1, k2)))');
    await q(`CREATE INDEX ON ${p} (k1)`);
    const c = await table('CREATE TABLE %t (pk int, ck int, a int, b int, PRIMARY KEY (pk, ck))');
    await q(`CREATE INDEX ON ${c} (ck)`);
    await q(`CREATE INDEX ON ${c} (a)`);
    await q(`INSERT INTO ${p} (k1, k2, a, b) VALUES (1, 2, 3, 4)`);
    await q(`INSERT INTO ${c} (pk, ck, a, b) VALUES (1, 2, 3, 4)`);
    await q(`UPDATE ${p} USING TTL 1 SET b = 10 WHERE k1 = 1 AND k2 = 2`);
    await q(`UPDATE ${c} USING TTL 1 SET b = 10 WHERE pk = 1 AND ck = 2`);
    await expired(`SELECT b FROM ${p} WHERE k1 = 1 AND k2 = 2`);
    await expired(`SELECT b FROM ${c} WHERE pk = 1 AND ck = 2`);
    expect(await tuples(`SELECT * FROM ${p} WHERE k1 = 1`)).toEqual([[1, 2, 3, null]]);
    expect(await tuples(`SELECT * FROM ${c} WHERE ck = 2`)).toEqual([[1, 2, 3, null]]);
    expect(await tuples(`SELECT * FROM ${c} WHERE a = 3`)).toEqual([[1, 2, 3, null]]);
    // An expiring indexed value takes its entry with it; the old value's entry is gone.
    await q(`UPDATE ${c} USING TTL 1 SET a = 5 WHERE pk = 1 AND ck = 2`);
    await expired(`SELECT a FROM ${c} WHERE pk = 1 AND ck = 2`);
    expect(await tuples(`SELECT * FROM ${c} WHERE a = 3`)).toEqual([]);
    expect(await tuples(`SELECT * FROM ${c} WHERE a = 5`)).toEqual([]);
    // A row that only lived through an expired cell is gone, and back once written again.
    const o = await table('CREATE TABLE %t (pk int, ck int, v int, PRIMARY KEY (pk, ck))');
    await q(`CREATE INDEX ON ${o} (ck)`);
    await q(`UPDATE ${o} USING TTL 1 SET v = 3 WHERE pk = 1 AND ck = 2`);
    await expired(`SELECT v FROM ${o} WHERE pk = 1 AND ck = 2`);
    expect(await tuples(`SELECT * FROM ${o} WHERE ck = 2`)).toEqual([]);
    await q(`UPDATE ${o} SET v = 3 WHERE pk = 1 AND ck = 2`);
    expect(await tuples(`SELECT * FROM ${o} WHERE ck = 2`)).toEqual([[1, 2, 3]]);
  });

  it('applies PER PARTITION LIMIT to the rows an index query returns, after filtering, across pages', async () => {
    const t = await table('CREATE TABLE %t (pk int, c int, s int static, v int, w int, PRIMARY KEY (pk, c))');
    await q(`CREATE INDEX ON ${t} (v)`);
    for (const pk of [1, 2]) {
      for (const c of [1, 2, 3]) await q(`INSERT INTO ${t} (pk, c, s, v, w) VALUES (?, ?, 9, 1, ?)`, [pk, c, c]);
    }
    expect(await tuples(`SELECT pk, c FROM ${t} WHERE v = 1 PER PARTITION LIMIT 1`)).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(await tuples(`SELECT pk, c FROM ${t} WHERE v = 1 PER PARTITION LIMIT 2 LIMIT 3`)).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    expect(await tuples(`SELECT pk, c FROM ${t} WHERE v = 1 AND w > 1 PER PARTITION LIMIT 1 ALLOW FILTERING`)).toEqual([
      [1, 2],
      [2, 2],
    ]);
    for (let pageSize = 1; pageSize < 5; pageSize++) {
      expect((await pages(`SELECT pk, c FROM ${t} WHERE v = 1 PER PARTITION LIMIT 2`, pageSize)).flat()).toEqual([
        [1, 1],
        [1, 2],
        [2, 1],
        [2, 2],
      ]);
    }
  });
});

describe('decimals: keys, toJson and arithmetic with large mantissas and exponents (DecimalType)', () => {
  it('writes toJson and SELECT JSON of decimals as BigDecimal.toString', async () => {
    const t = await table('CREATE TABLE %t (k int, c decimal, v decimal, PRIMARY KEY (k, c))');
    const values = [
      '1E+1000',
      '1.5E-1000',
      '3.3E-400',
      '123456789E-20',
      '0.0000001',
      '0.000001',
      '100',
      '1E2',
      '-9.99E+307',
    ];
    for (const [i, v] of values.entries()) await q(`INSERT INTO ${t} (k, c, v) VALUES (?, ${v}, ${v})`, [i]);
    const json = async (k: number) => (await tuples(`SELECT toJson(c), toJson(v) FROM ${t} WHERE k = ${k}`))[0];
    const expected = [
      '1E+1000',
      '1.5E-1000',
      '3.3E-400',
      '1.23456789E-12',
      '1E-7',
      '0.000001',
      '100',
      '1E+2',
      '-9.99E+307',
    ];
    for (const [i, e] of expected.entries()) expect(await json(i), values[i]).toEqual([e, e]);
    expect(await tuples(`SELECT JSON c FROM ${t} WHERE k = 0`)).toEqual([['{"c": 1E+1000}']]);
    // Map keys in JSON are the decimal's text too.
    const m = await table('CREATE TABLE %t (k int PRIMARY KEY, m map<decimal, boolean>)');
    await q(`INSERT INTO ${m} JSON '{"k": 0, "m": {"1.23": true, "4.56E+400": false}}'`);
    expect(await tuples(`SELECT JSON k, m FROM ${m}`)).toEqual([['{"k": 0, "m": {"1.23": true, "4.56E+400": false}}']]);
  });

  it('reads partitions and clustering rows by decimal keys of any size in key order', async () => {
    const p = await table('CREATE TABLE %t (k decimal PRIMARY KEY, v int)');
    for (const [i, k] of ['1.0', '1.00', '1E+1000', '1E-1000', '0'].entries())
      await q(`INSERT INTO ${p} (k, v) VALUES (${k}, ${i})`);
    // A partition key is its bytes: 1.0 and 1.00 are two partitions. IN reads its keys in DecimalType order, one per
    // equal run (the first given), as MultiCBuilder's sorted set keeps them.
    expect(await tuples(`SELECT toJson(k), v FROM ${p} WHERE k IN (1E+1000, 1.00, 1E-1000, 1.0)`)).toEqual([
      ['1E-1000', 3],
      ['1.00', 1],
      ['1E+1000', 2],
    ]);
    expect(await tuples(`SELECT toJson(k), v FROM ${p} WHERE k = 1.0`)).toEqual([['1.0', 0]]);
    const c = await table('CREATE TABLE %t (k int, c decimal, PRIMARY KEY (k, c))');
    for (const v of ['1E+1000', '-1E+1000', '1E-1000', '12345678901234567890.123456789', '0']) {
      await q(`INSERT INTO ${c} (k, c) VALUES (0, ${v})`);
    }
    expect((await tuples(`SELECT toJson(c) FROM ${c} WHERE k = 0 AND c > 0`)).flat()).toEqual([
      '1E-1000',
      '12345678901234567890.123456789',
      '1E+1000',
    ]);
  });

  it('adds, subtracts, multiplies, divides and takes remainders exactly (no overflow to Infinity)', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, a decimal, b decimal, i int)');
    await q(`INSERT INTO ${t} (k, a, b, i) VALUES (1, 1E+400, 3, 7)`);
    await q(`INSERT INTO ${t} (k, a, b, i) VALUES (2, 12345678901234567890.123456789, 0.000000000000000000001, 7)`);
    await q(`INSERT INTO ${t} (k, a, b, i) VALUES (3, 10, 4, 0)`);
    const row = async (k: number, exprs: string) =>
      (
        await tuples(
          `SELECT ${exprs
            .split(', ')
            .map((e) => `toJson(${e})`)
            .join(', ')} FROM ${t} WHERE k = ${k}`,
        )
      )[0];
    expect(await row(1, 'a + a, a * b, a - a, -a')).toEqual(['2E+400', '3E+400', '0E+400', '-1E+400']);
    expect(await row(1, 'a - b')).toEqual([`${'9'.repeat(399)}7`]);
    // DecimalType.divide: at least 32 significant digits, HALF_UP, trailing zeros stripped.
    expect(await row(1, 'a / b')).toEqual([`${'3'.repeat(400)}.${'3'.repeat(32)}`]);
    expect(await row(1, 'a % b')).toEqual(['1']);
    expect(await row(2, 'a + b, a / b')).toEqual([
      '12345678901234567890.123456789000000000001',
      '1.2345678901234567890123456789E+40',
    ]);
    // An int operand becomes BigDecimal.valueOf(its double): 7 reads as 7.0.
    expect(await row(3, 'a + i, a / b, a % b, b / a')).toEqual(['10.0', '2.5', '2', '0.4']);
    await expect(q(`SELECT a / i FROM ${t} WHERE k = 3`)).rejects.toMatchObject({
      code: 0x1400,
      message: "the operation 'decimal / int' failed: Division by zero",
    });
  });
});

describe('vectors of variable-length elements (VectorType: a length before each element without a fixed length)', () => {
  const T = cassandra.types;
  const { Vector } = T as unknown as { Vector: new (elements: unknown[], subtype?: string) => { elements: unknown[] } };
  /** A vector's elements, nested vectors as arrays (the driver names text elements `varchar`). */
  const elements = (v: unknown): unknown =>
    v instanceof Vector ? (v as { elements: unknown[] }).elements.map(elements) : v;

  it('round-trips every element type and collections of them through cassandra-driver, prepared or not', async () => {
    await q('CREATE TYPE r.my_udt (f1 text)');
    const time = () => new T.LocalTime(T.Long.fromString('6331999999911'));
    const base: [string, unknown[]][] = [
      ['float', [1.5, 2.5, 3.5]],
      ['double', [1.1, 2.2, 3.3]],
      ['text', ['ab', 'b', 'cde']],
      ['bigint', [T.Long.fromNumber(1), T.Long.fromNumber(2), T.Long.fromNumber(3)]],
      ['blob', [Buffer.from([1, 2, 3]), Buffer.from([4, 5, 6]), Buffer.from([7, 8, 9])]],
      ['boolean', [true, false, true]],
      ['decimal', ['1.1', '2.2', '3.3'].map((d) => T.BigDecimal.fromString(d))],
      ['inet', ['127.0.0.1', '0.0.0.0', '34.12.10.19'].map((a) => T.InetAddress.fromString(a))],
      ['tinyint', [1, 2, 3]],
      ['smallint', [1, 2, 3]],
      ['int', [-1, 0, -3]],
      ['duration', [new T.Duration(1, 2, 3), new T.Duration(4, 5, 6), new T.Duration(7, 8, 9)]],
      ['date', [new T.LocalDate(2020, 1, 1), new T.LocalDate(2020, 2, 1), new T.LocalDate(2020, 3, 1)]],
      ['time', [time(), time(), time()]],
      ['timestamp', [new Date(2020, 1, 1, 1, 1, 1, 1), new Date(2020, 2, 1, 1, 1, 1, 1), new Date(2020, 3, 1)]],
      ['uuid', [T.Uuid.random(), T.Uuid.random(), T.Uuid.random()]],
      ['timeuuid', [T.TimeUuid.now(), T.TimeUuid.now(), T.TimeUuid.now()]],
      ['varint', [1, 2, 3].map((n) => T.Integer.fromNumber(n))],
    ];
    const data: [string, unknown[]][] = [...base];
    for (const [s, v] of base) {
      data.push([`list<${s}>`, v.map((e) => [e, e, e])]);
      if (s !== 'duration') data.push([`set<${s}>`, v.map((e) => [e])]);
      data.push([`map<int, ${s}>`, v.map((e) => ({ 1: e, 2: e }))]);
      data.push([`tuple<${s}, ${s}>`, v.map((e) => new T.Tuple(e, e))]);
      data.push([`vector<${s}, 3>`, v.map((e) => new Vector([e, e, e], s))]);
    }
    data.push(['my_udt', [{ f1: 'a' }, { f1: 'b' }, { f1: 'c' }]]);
    const name = (s: string) => `r.v${s.replace(/<|>|,| /g, '_')}`;
    for (const [s, values] of data) {
      await q(`CREATE TABLE ${name(s)} (id uuid PRIMARY KEY, v vector<${s}, 3>)`);
      const vector = new Vector(values, s);
      for (const prepare of s === 'my_udt' ? [true] : [true, false]) {
        const id = T.Uuid.random();
        await client.execute(`INSERT INTO ${name(s)} (id, v) VALUES (?, ?)`, [id, vector], { prepare });
        const rs = await client.execute(`SELECT v FROM ${name(s)} WHERE id = ?`, [id], { prepare });
        expect(elements(rs.rows[0]!.v), `${s} (prepare: ${prepare})`).toEqual(elements(vector));
      }
    }
  });

  it('reads and writes tinyint, smallint, date, time, text and collection elements length-prefixed', async () => {
    const t = await table(
      'CREATE TABLE %t (k int PRIMARY KEY, ti vector<tinyint, 3>, si vector<smallint, 2>, d vector<date, 2>, ' +
        'tm vector<time, 2>, tx vector<text, 2>, l vector<frozen<list<int>>, 2>, f vector<float, 2>)',
    );
    // Server to driver: the server lays out the literal, the driver decodes it.
    await q(
      `INSERT INTO ${t} (k, ti, si, d, tm, tx, l, f) VALUES (1, [1, -2, 127], [300, -1], ['2020-01-01', '1970-01-02'], ` +
        `['00:00:01', '23:59:59.000000001'], ['a', 'bcd'], [[1, 2], []], [1.5, -2])`,
    );
    const row = (await q(`SELECT ti, si, d, tm, tx, l, f FROM ${t} WHERE k = 1`)).rows[0]!;
    expect(elements(row.ti)).toEqual([1, -2, 127]);
    expect(elements(row.si)).toEqual([300, -1]);
    expect((elements(row.d) as unknown[]).map(String)).toEqual(['2020-01-01', '1970-01-02']);
    expect((elements(row.tm) as unknown[]).map(String)).toEqual(['00:00:01', '23:59:59.000000001']);
    expect(elements(row.tx)).toEqual(['a', 'bcd']);
    expect(elements(row.l)).toEqual([[1, 2], []]);
    expect(elements(row.f)).toEqual([1.5, -2]);
    // Driver to server: the driver lays the values out, the server reads them.
    await client.execute(
      `INSERT INTO ${t} (k, ti, si, d, tm, tx) VALUES (2, ?, ?, ?, ?, ?)`,
      [
        new Vector([5, 6, 7], 'tinyint'),
        new Vector([-300, 2], 'smallint'),
        new Vector([new T.LocalDate(2024, 2, 29), new T.LocalDate(1999, 12, 31)], 'date'),
        new Vector([T.LocalTime.fromString('12:34:56'), T.LocalTime.fromString('00:00:00.5')], 'time'),
        new Vector(['x', ''], 'text'),
      ],
      { prepare: true },
    );
    expect(
      await tuples(`SELECT toJson(ti), toJson(si), toJson(d), toJson(tm), toJson(tx) FROM ${t} WHERE k = 2`),
    ).toEqual([
      [
        '[5, 6, 7]',
        '[-300, 2]',
        '["2024-02-29", "1999-12-31"]',
        '["12:34:56.000000000", "00:00:00.500000000"]',
        '["x", ""]',
      ],
    ]);
  });
});

describe('writetime, maxwritetime and ttl of collection elements and slices (WritetimeOrTTLTest)', () => {
  /**
   * [writetime, maxwritetime, whether each cell expires] of `selection` in the table's only row. (The cases below
   * avoid TTL lists mixing null and non-null elements: the Node.js driver decodes those wrongly.)
   */
  async function meta(t: string, selection: string) {
    const [row] = await tuples(
      `SELECT writetime(${selection}) AS w, maxwritetime(${selection}) AS m, ttl(${selection}) AS t FROM ${t}`,
    );
    const ttl = (v: unknown): unknown =>
      v === null ? null : Array.isArray(v) ? v.map((x) => (x === null ? null : 'ttl')) : 'ttl';
    const long = (v: unknown): unknown => (Array.isArray(v) ? v.map((x) => String(x)) : v === null ? null : String(v));
    return [long(row![0]), long(row![1]), ttl(row![2])];
  }

  it('selects the cells of a set or map element or slice; a frozen collection is one cell', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, s set<int>, m map<int, int>, fs frozen<set<int>>)');
    await q(`INSERT INTO ${t} (k, s, m, fs) VALUES (1, {1}, {1: 10}, {1}) USING TIMESTAMP 1`);
    await q(`UPDATE ${t} USING TIMESTAMP 2 AND TTL 20000 SET s = s + {2}, m = m + {2: 20} WHERE k = 1`);
    for (const c of ['s', 'm']) {
      expect(await meta(t, `${c}[0]`)).toEqual([null, null, null]);
      expect(await meta(t, `${c}[1]`)).toEqual(['1', '1', null]);
      expect(await meta(t, `${c}[2]`)).toEqual(['2', '2', 'ttl']);
      expect(await meta(t, `${c}[..1]`)).toEqual([['1'], '1', [null]]);
      expect((await meta(t, `${c}[1..]`)).slice(0, 2)).toEqual([['1', '2'], '2']);
      expect(await meta(t, `${c}[2..3]`)).toEqual([['2'], '2', ['ttl']]);
      expect(await meta(t, `${c}[3..4]`)).toEqual([null, null, null]);
    }
    expect(await meta(t, 'fs[1]')).toEqual(['1', '1', null]);
    expect(await meta(t, 'fs[2]')).toEqual([null, null, null]);
    expect(await meta(t, 'fs[0..1]')).toEqual(['1', '1', null]);
    expect(await meta(t, 'fs[2..]')).toEqual([null, null, null]);
    expect(await tuples(`SELECT k, writetime(s[2]) AS a, writetime(s[1]) AS b FROM ${t}`)).toEqual([[1, '2', '1']]);
  });

  it('refuses elements and slices of lists, frozen or not', async () => {
    const t = await table('CREATE TABLE %t (k int PRIMARY KEY, l list<int>, fl frozen<list<int>>)');
    for (const [selection, list] of [
      ['l[0]', 'l'],
      ['fl[1]', 'fl'],
    ]) {
      for (const f of ['writetime', 'maxwritetime', 'ttl']) {
        await expect(q(`SELECT ${f}(${selection}) FROM ${t}`)).rejects.toMatchObject({
          code: 0x2200,
          message: `Element selection is only allowed on sets and maps, but ${list} is a list`,
        });
      }
    }
    await expect(q(`SELECT writetime(l[0..1]) FROM ${t}`)).rejects.toMatchObject({
      code: 0x2200,
      message: 'Slice selection is only allowed on sets and maps, but l is a list',
    });
  });
});
