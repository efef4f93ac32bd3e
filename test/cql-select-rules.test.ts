// SELECT rules of Cassandra 5.0 through the DataStax Node.js driver against the real server, each with its exact
// message and the queries next to it that stay allowed: ORDER BY with an IN on the partition key under paging
// (SelectStatement.execute / needsPostQueryOrdering, StatementRestrictions.keyIsInRelation), ORDER BY with a
// secondary index (SelectStatement.RawStatement.verifyOrderingIsAllowed) and GROUP BY on clustering columns in a
// SELECT DISTINCT (SelectStatement.RawStatement.getAggregationSpecFactory).
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDriverError as expectError } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const CODE = { invalid: 0x2200 } as const;
const KS = 'selrules';
const PAGING_MESSAGE =
  'Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ' +
  'ORDER BY or the IN and sort client side, or disable paging for this query';
const INDEX_ORDER_MESSAGE = 'ORDER BY with 2ndary indexes is not supported, except for ANN queries.';
const DISTINCT_GROUP_MESSAGE = 'Grouping on clustering columns is not allowed for SELECT DISTINCT queries';

let server: ServerProcess;
let client: cassandra.Client;

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, options);
}

async function rows(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return (await q(query, params, options)).rows;
}

/** Expects the exact error: its code and the whole message. */

const invalid = (query: string, message: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) =>
  expectError(q(query, params, options), CODE.invalid, message);

/** Paging off: the driver sends no page size. */
const UNPAGED = { autoPage: false, fetchSize: 0 } as cassandra.QueryOptions;

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await q(`CREATE TABLE ${KS}.t (k int, c int, v int, PRIMARY KEY (k, c))`);
  await q(`CREATE TABLE ${KS}.ix (k int, c int, v int, w int, x int, PRIMARY KEY (k, c))`);
  await q(`CREATE INDEX ON ${KS}.ix (v)`);
  await q(`CREATE INDEX ix_w ON ${KS}.ix (w) USING 'sai'`);
  for (let k = 1; k <= 3; k++) {
    for (let c = 0; c < 5; c++) {
      await q(`INSERT INTO ${KS}.t (k, c, v) VALUES (?, ?, ?)`, [k, c, k * 100 + c], { prepare: true });
      await q(`INSERT INTO ${KS}.ix (k, c, v, w, x) VALUES (?, ?, ?, ?, ?)`, [k, c, c * 10, c, c % 2], {
        prepare: true,
      });
    }
  }
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe('ORDER BY with an IN restriction on the partition key and paging', () => {
  const byC = (r: cassandra.types.Row[]) => r.map((x) => x.c as number);

  it('is refused for an IN of several values when the query is paged', async () => {
    await invalid(`SELECT k, c FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC`, PAGING_MESSAGE, [], { fetchSize: 100 });
    await invalid(`SELECT k, c FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC`, PAGING_MESSAGE, [], {
      fetchSize: 100,
      prepare: true,
    });
  });

  it('is refused for a prepared `k IN ?` even when the bound list has one value', async () => {
    await invalid(`SELECT k, c FROM ${KS}.t WHERE k IN ? ORDER BY c DESC`, PAGING_MESSAGE, [[1]], {
      fetchSize: 100,
      prepare: true,
    });
    // Unpaged, the same statement reads the one partition in ORDER BY order.
    const r = await rows(`SELECT k, c FROM ${KS}.t WHERE k IN ? ORDER BY c DESC`, [[1]], { ...UNPAGED, prepare: true });
    expect(byC(r)).toEqual([4, 3, 2, 1, 0]);
    expect(r.every((x) => x.k === 1)).toBe(true);
  });

  it('a literal IN of one value is an EQ: paged ORDER BY works', async () => {
    const first = await q(`SELECT k, c FROM ${KS}.t WHERE k IN (1) ORDER BY c DESC`, [], { fetchSize: 2 });
    expect(byC(first.rows)).toEqual([4, 3]);
    expect(first.pageState).toBeTruthy();
    const all: number[] = [];
    await new Promise<void>((resolve, reject) =>
      client.eachRow(
        `SELECT k, c FROM ${KS}.t WHERE k IN (1) ORDER BY c DESC`,
        [],
        { fetchSize: 2, autoPage: true },
        (_n, row) => all.push(row.c as number),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    expect(all).toEqual([4, 3, 2, 1, 0]);
  });

  it('unpaged, rows of several partitions come out in ORDER BY order', async () => {
    const r = await rows(`SELECT k, c FROM ${KS}.t WHERE k IN (1, 2) AND c < 2 ORDER BY c DESC`, [], UNPAGED);
    expect(byC(r)).toEqual([1, 1, 0, 0]);
    const p = await rows(`SELECT k, c FROM ${KS}.t WHERE k IN ? AND c >= 3 ORDER BY c ASC`, [[3, 1]], {
      ...UNPAGED,
      prepare: true,
    });
    expect(byC(p)).toEqual([3, 3, 4, 4]);
    expect(new Set(p.map((x) => x.k))).toEqual(new Set([1, 3]));
  });

  it('a LIMIT that fits in one page runs unpaged; a larger one is refused', async () => {
    const r = await rows(`SELECT k, c FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC LIMIT 3`, [], { fetchSize: 100 });
    expect(byC(r)).toEqual([4, 4, 3]);
    await invalid(`SELECT k, c FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC LIMIT 3`, PAGING_MESSAGE, [], {
      fetchSize: 2,
    });
  });

  it('aggregates page internally: refused whenever a page size is set', async () => {
    await invalid(`SELECT count(*) FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC`, PAGING_MESSAGE, [], {
      fetchSize: 100,
    });
    const r = await rows(`SELECT count(*) FROM ${KS}.t WHERE k IN (1, 2) ORDER BY c DESC`, [], UNPAGED);
    expect(r[0]!.count.toNumber()).toBe(10);
  });

  it('an EQ partition key pages with ORDER BY as before', async () => {
    const r = await rows(`SELECT c FROM ${KS}.t WHERE k = 2 ORDER BY c DESC`, [], { fetchSize: 100 });
    expect(byC(r)).toEqual([4, 3, 2, 1, 0]);
  });
});

describe('ORDER BY with a secondary index', () => {
  it('is refused when an index serves a relation and the partition key is restricted', async () => {
    await invalid(`SELECT c FROM ${KS}.ix WHERE k = 1 AND v = 10 ORDER BY c DESC`, INDEX_ORDER_MESSAGE);
    await invalid(`SELECT c FROM ${KS}.ix WHERE k = 1 AND w > 1 ORDER BY c DESC`, INDEX_ORDER_MESSAGE);
    await invalid(`SELECT c FROM ${KS}.ix WHERE k = 1 AND v = 10 ORDER BY c DESC ALLOW FILTERING`, INDEX_ORDER_MESSAGE);
  });

  it('takes precedence over the key range and the filtering checks', async () => {
    // Without an index the same query is refused for its key range; with one the index message comes first.
    await invalid(`SELECT c FROM ${KS}.ix WHERE v = 10 ORDER BY c DESC`, INDEX_ORDER_MESSAGE);
    await invalid(
      `SELECT c FROM ${KS}.t WHERE v = 10 ORDER BY c DESC ALLOW FILTERING`,
      'ORDER BY is only supported when the partition key is restricted by an EQ or an IN.',
    );
    // x needs ALLOW FILTERING, checked after ORDER BY (SelectStatement.RawStatement.checkNeedsFiltering).
    await invalid(`SELECT c FROM ${KS}.ix WHERE v = 10 AND x = 1 ORDER BY c DESC`, INDEX_ORDER_MESSAGE);
  });

  it('allowed neighbours: no index relation, or no ORDER BY', async () => {
    expect((await rows(`SELECT c FROM ${KS}.ix WHERE k = 1 ORDER BY c DESC`)).map((r) => r.c)).toEqual([4, 3, 2, 1, 0]);
    expect(
      (await rows(`SELECT c FROM ${KS}.ix WHERE k = 1 AND x = 1 ORDER BY c DESC ALLOW FILTERING`)).map((r) => r.c),
    ).toEqual([3, 1]);
    expect((await rows(`SELECT c FROM ${KS}.ix WHERE k = 1 AND c >= 3 ORDER BY c DESC`)).map((r) => r.c)).toEqual([
      4, 3,
    ]);
    expect((await rows(`SELECT k, c FROM ${KS}.ix WHERE k = 1 AND v = 10`)).map((r) => [r.k, r.c])).toEqual([[1, 1]]);
  });
});

describe('SELECT DISTINCT with GROUP BY', () => {
  it('refuses grouping on clustering columns', async () => {
    await invalid(`SELECT DISTINCT k, count(k) FROM ${KS}.t GROUP BY k, c`, DISTINCT_GROUP_MESSAGE);
    await invalid(`SELECT DISTINCT k, count(k) FROM ${KS}.t GROUP BY k, c LIMIT 2`, DISTINCT_GROUP_MESSAGE);
    await invalid(`SELECT DISTINCT k FROM ${KS}.t WHERE k = 1 GROUP BY k, c`, DISTINCT_GROUP_MESSAGE);
  });

  it('allowed neighbours: DISTINCT grouped by the partition key, GROUP BY a clustering column without DISTINCT', async () => {
    const d = await rows(`SELECT DISTINCT k, count(k) FROM ${KS}.t GROUP BY k`);
    expect(d.map((r) => [r.k, r['system.count(k)'].toNumber()]).sort()).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    const g = await rows(`SELECT k, c, count(*) FROM ${KS}.t WHERE k = 1 GROUP BY k, c`);
    expect(g.map((r) => [r.k, r.c, r.count.toNumber()])).toEqual([
      [1, 0, 1],
      [1, 1, 1],
      [1, 2, 1],
      [1, 3, 1],
      [1, 4, 1],
    ]);
  });
});
