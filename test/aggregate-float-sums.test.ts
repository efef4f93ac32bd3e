// sum() and avg() of float and double columns as Cassandra 5.0 computes them (AggregateFcts.FloatSumAggregate and
// FloatAvgAggregate): Kahan summation in doubles, a float result rounded once at the end. Plain float or double
// arithmetic loses the small addends: 16777216f + 1f + 1f is 16777216 in floats but 16777218 for Cassandra. Both
// read paths (the row path, and the columnar path over the Arrow twin) and collection_sum / collection_avg, which
// use the same aggregates, give Cassandra's answers.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await client.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute(
    'CREATE TABLE ks.t (k int, c int, f float, d double, lf list<float>, ld list<double>, PRIMARY KEY (k, c))',
  );
  const rows: [number, number, number][] = [
    [0, 16777216, 1e16],
    [1, 1, 1],
    [2, 1, 1],
  ];
  for (const [c, f, d] of rows) {
    await client.execute('INSERT INTO ks.t (k, c, f, d) VALUES (1, ?, ?, ?)', [c, f, d], { prepare: true });
  }
  await client.execute('UPDATE ks.t SET lf = [16777216, 1, 1], ld = [1e16, 1, 1] WHERE k = 1 AND c = 0');
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
});

async function one(query: string): Promise<cassandra.types.Row> {
  const rs = await client.execute(query);
  expect(rs.rows).toHaveLength(1);
  return rs.rows[0]!;
}

describe('sum and avg of float and double', () => {
  it('are Kahan sums in doubles on the row path (one partition)', async () => {
    const r = await one('SELECT sum(f) AS sf, avg(f) AS af, sum(d) AS sd, avg(d) AS ad FROM ks.t WHERE k = 1');
    expect(r.get('sf')).toBe(16777218);
    expect(r.get('af')).toBe(5592406);
    expect(r.get('sd')).toBe(10000000000000002);
    expect(r.get('ad')).toBe(10000000000000002 / 3);
  });

  it('give the same answers over the whole table', async () => {
    const r = await one('SELECT sum(f) AS sf, avg(f) AS af, sum(d) AS sd, avg(d) AS ad FROM ks.t');
    expect(r.get('sf')).toBe(16777218);
    expect(r.get('af')).toBe(5592406);
    expect(r.get('sd')).toBe(10000000000000002);
    expect(r.get('ad')).toBe(10000000000000002 / 3);
  });

  it('collection_sum and collection_avg aggregate the elements the same way', async () => {
    const r = await one('SELECT collection_sum(lf) AS s, collection_avg(ld) AS a FROM ks.t WHERE k = 1 AND c = 0');
    expect(r.get('s')).toBe(16777218);
    expect(r.get('a')).toBe(10000000000000002 / 3);
  });
});
