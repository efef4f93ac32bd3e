// Everything beyond the everyday core, through the npm cassandra-driver against a real server:
// lightweight transactions, counters, user types, JSON, aggregates and GROUP BY, CAST and token(),
// collection element selection, user-defined functions, tracing, batch guardrails, consistency.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;
const { types } = cassandra;

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return client.execute(query, params, { prepare: params.length > 0, ...options });
}

async function errorOf(query: string, params: unknown[] = []): Promise<{ code: number; message: string }> {
  try {
    await q(query, params);
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error(`expected an error from: ${query}`);
}

beforeAll(async () => {
  server = await startServer({ env: UDF_ENV });
  client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    keyspace: undefined,
  });
  await client.connect();
  await q("CREATE KEYSPACE adv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await q("CREATE KEYSPACE rf3 WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
});

describe('lightweight transactions', () => {
  beforeAll(async () => {
    await q('CREATE TABLE adv.lwt (k int, c int, v text, n int, PRIMARY KEY (k, c))');
  });

  it('IF NOT EXISTS applies once and then returns the existing row', async () => {
    const first = await q("INSERT INTO adv.lwt (k, c, v, n) VALUES (1, 1, 'a', 5) IF NOT EXISTS");
    expect(first.first()['[applied]']).toBe(true);
    const second = await q("INSERT INTO adv.lwt (k, c, v, n) VALUES (1, 1, 'b', 6) IF NOT EXISTS");
    const row = second.first();
    expect(row['[applied]']).toBe(false);
    expect(row.v).toBe('a');
    expect(row.n).toBe(5);
  });

  it('IF conditions compare the current values and show them when not applied', async () => {
    const no = (await q("UPDATE adv.lwt SET v = 'c' WHERE k = 1 AND c = 1 IF v = 'zz'")).first();
    expect(no['[applied]']).toBe(false);
    expect(no.v).toBe('a');
    const yes = (await q("UPDATE adv.lwt SET v = 'c' WHERE k = 1 AND c = 1 IF v = 'a' AND n > 4")).first();
    expect(yes['[applied]']).toBe(true);
    expect((await q('SELECT v FROM adv.lwt WHERE k = 1 AND c = 1')).first().v).toBe('c');
    const gone = (await q('UPDATE adv.lwt SET v = ? WHERE k = 1 AND c = 2 IF EXISTS', ['d'])).first();
    expect(gone['[applied]']).toBe(false);
    const del = (await q('DELETE FROM adv.lwt WHERE k = 1 AND c = 1 IF n IN (1, 5)')).first();
    expect(del['[applied]']).toBe(true);
    expect((await q('SELECT * FROM adv.lwt WHERE k = 1')).rowLength).toBe(0);
  });

  it('concurrent IF NOT EXISTS on one row: exactly one applies', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        q('INSERT INTO adv.lwt (k, c, v) VALUES (7, 7, ?) IF NOT EXISTS', [`w${i}`]),
      ),
    );
    expect(results.filter((r) => r.first()['[applied]']).length).toBe(1);
  });

  it('an INSERT of static columns only writes the static row; its IF NOT EXISTS is about that row', async () => {
    await q('CREATE TABLE adv.lwts (k int, c int, s int STATIC, v int, PRIMARY KEY (k, c))');
    await q('INSERT INTO adv.lwts (k, c, v) VALUES (1, 1, 10)');
    expect((await q('INSERT INTO adv.lwts (k, s) VALUES (1, 5) IF NOT EXISTS')).first()['[applied]']).toBe(true);
    const second = (await q('INSERT INTO adv.lwts (k, s) VALUES (1, 6) IF NOT EXISTS')).first();
    expect([second['[applied]'], second.s]).toEqual([false, 5]);
    await q('INSERT INTO adv.lwts (k, s) VALUES (2, 7)');
    const rows = (await q('SELECT k, c, s, v FROM adv.lwts')).rows.map((r) => [r.k, r.c, r.s, r.v]);
    expect(rows).toEqual([
      [1, 1, 5, 10],
      [2, null, 7, null],
    ]);
    expect((await errorOf('INSERT INTO adv.lwts (k, s, v) VALUES (3, 1, 1)')).message).toBe(
      'Some clustering keys are missing: c',
    );
  });

  it('refuses a custom timestamp on a conditional update', async () => {
    const e = await errorOf("UPDATE adv.lwt USING TIMESTAMP 5 SET v = 'x' WHERE k = 1 AND c = 1 IF EXISTS");
    expect(e.code).toBe(0x2200);
    expect(e.message).toBe('Cannot provide custom timestamp for conditional updates');
  });

  it('list and map element conditions: by index, past the end, negative, null and unset elements', async () => {
    await q('CREATE TABLE adv.lwtl (k int PRIMARY KEY, l list<text>, m map<text, int>, v int)');
    await q("INSERT INTO adv.lwtl (k, l, m, v) VALUES (1, ['a', 'b'], {'x': 1}, 0)");
    const applied = async (cql: string, params: unknown[] = []) => (await q(cql, params)).first()['[applied]'];
    expect(await applied("UPDATE adv.lwtl SET v = 1 WHERE k = 1 IF l[1] = 'b'")).toBe(true);
    expect(await applied("UPDATE adv.lwtl SET v = 2 WHERE k = 1 IF l[0] = 'b'")).toBe(false);
    expect(await applied("UPDATE adv.lwtl SET v = 3 WHERE k = 1 IF l[5] = 'a'")).toBe(false);
    expect(await applied('UPDATE adv.lwtl SET v = 4 WHERE k = 1 IF l[5] = null')).toBe(true);
    expect(await applied("UPDATE adv.lwtl SET v = 5 WHERE k = 1 IF l[1] IN ('x', 'b') AND m['x'] > 0")).toBe(true);
    expect((await q('SELECT v FROM adv.lwtl WHERE k = 1')).first().v).toBe(5);
    const negative = await errorOf("UPDATE adv.lwtl SET v = 6 WHERE k = 1 IF l[-1] = 'a'");
    expect([negative.code, negative.message]).toEqual([0x2200, 'Invalid negative list index -1']);
    const nullIndex = await errorOf('UPDATE adv.lwtl SET v = 6 WHERE k = 1 IF l[?] = ?', [null, 'a']);
    expect(nullIndex.message).toBe('Invalid null value for list element access');
    const nullKey = await errorOf('UPDATE adv.lwtl SET v = 6 WHERE k = 1 IF m[?] = 1', [null]);
    expect(nullKey.message).toBe('Invalid null value for map element access');
    const unset = await q('UPDATE adv.lwtl SET v = 6 WHERE k = 1 IF v = ?', [types.unset]).then(
      () => undefined,
      (e: { message: string }) => e.message,
    );
    expect(unset).toBe("Invalid 'unset' value in condition");
  });
});

describe('counters', () => {
  it('increments exactly under concurrency and enforces counter rules', async () => {
    await q('CREATE TABLE adv.cnt (k int PRIMARY KEY, n counter)');
    await Promise.all(
      Array.from({ length: 200 }, () => q('UPDATE adv.cnt SET n = n + ? WHERE k = ?', [types.Long.fromNumber(1), 1])),
    );
    await q('UPDATE adv.cnt SET n = n - 3 WHERE k = 1');
    expect((await q('SELECT n FROM adv.cnt WHERE k = 1')).first().n.toNumber()).toBe(197);
    expect((await errorOf('INSERT INTO adv.cnt (k, n) VALUES (2, 1)')).message).toBe(
      'INSERT statements are not allowed on counter tables, use UPDATE instead',
    );
    expect((await errorOf('UPDATE adv.cnt SET n = 5 WHERE k = 1')).message).toContain(
      'Cannot set the value of counter column n',
    );
  });

  it('a refused COUNTER BATCH leaves no uncommitted total behind for later increments', async () => {
    const inc = 'UPDATE adv.cnt SET n = n + ? WHERE k = ?';
    // The first item computes a total for k = 10; the second is refused (null delta), so nothing applies.
    const refused = await client
      .batch(
        [
          { query: inc, params: [types.Long.fromNumber(5), 10] },
          { query: inc, params: [null, 11] },
        ],
        { prepare: true, counter: true },
      )
      .then(
        () => undefined,
        (e: { message: string }) => e,
      );
    expect(refused?.message).toBe('Invalid null value for counter increment/decrement');
    // Increments in flight together with refused batches on the same counter.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 0
          ? client
              .batch(
                [
                  { query: inc, params: [types.Long.fromNumber(100), 10] },
                  { query: inc, params: [null, 11] },
                ],
                { prepare: true, counter: true },
              )
              .catch(() => undefined)
          : q(inc, [types.Long.fromNumber(1), 10]),
      ),
    );
    expect((await q('SELECT n FROM adv.cnt WHERE k = 10')).first().n.toNumber()).toBe(30);
    expect((await q('SELECT n FROM adv.cnt WHERE k = 11')).rowLength).toBe(0);
  });
});

describe('types, JSON and selections', () => {
  beforeAll(async () => {
    await q('CREATE TYPE adv.addr (street text, zip int)');
    await q(
      'CREATE TABLE adv.p (k int PRIMARY KEY, a frozen<addr>, b addr, m map<text, int>, s set<int>, l list<text>, d double)',
    );
    await q(
      "INSERT INTO adv.p (k, a, b, m, s, l, d) VALUES (1, {street: 'x', zip: 5}, {street: 'y', zip: 6}, {'a': 1, 'b': 2}, {3, 1}, ['p', 'q'], 3.7)",
    );
  });

  it('updates UDT fields and list elements, selects fields and elements', async () => {
    await q('UPDATE adv.p SET b.zip = 7, l[1] = ? WHERE k = 1', ['Q']);
    const r = (await q("SELECT b.zip, m['b'], s[3], l[1], a FROM adv.p WHERE k = 1")).first();
    expect(Object.values(r)).toEqual([7, 2, 3, 'Q', { street: 'x', zip: 5 }]);
  });

  it('SELECT JSON and INSERT JSON round-trip', async () => {
    const json = (await q('SELECT JSON k, m, l FROM adv.p WHERE k = 1')).first()['[json]'];
    expect(JSON.parse(json)).toEqual({ k: 1, m: { a: 1, b: 2 }, l: ['p', 'Q'] });
    // fromJson() failing is the function's failure (FromJsonFct), not an invalid request.
    const bad = await errorOf(`INSERT INTO adv.p (k, d) VALUES (5, fromJson('"x"'))`);
    expect(bad.code).toBe(0x1400);
    expect(bad.message).toMatch(/^execution of 'system\.fromjson\[text\]' failed: /);
    // Keys: a name with upper case is quoted, any other (functions included) is not (Selection.rowToJson).
    const keyed = (await q('SELECT JSON k AS "Key", toJson(s), d AS dd FROM adv.p WHERE k = 1')).first()['[json]'];
    expect(Object.keys(JSON.parse(keyed))).toEqual(['"Key"', 'system.tojson(s)', 'dd']);
    await q('INSERT INTO adv.p JSON ?', ['{"k": 2, "m": {"z": 26}, "d": 1.5}']);
    const r = (await q('SELECT m, d FROM adv.p WHERE k = 2')).first();
    expect(r.m).toEqual({ z: 26 });
    expect(r.d).toBe(1.5);
    expect((await errorOf('INSERT INTO adv.p JSON \'{"k": 3, "nope": 1}\'')).message).toBe(
      'JSON values map contains unrecognized column: nope',
    );
  });

  it('writetime(), maxwritetime() and ttl() of non-frozen collections and UDTs: one value per cell', async () => {
    await q('CREATE TABLE adv.wt (k int PRIMARY KEY, l list<int>, s set<text>, u addr, f frozen<list<int>>)');
    await q("INSERT INTO adv.wt (k, s, u, f) VALUES (1, {'a'}, {street: 'x', zip: 1}, [9]) USING TIMESTAMP 1000");
    await q('UPDATE adv.wt USING TIMESTAMP 1500 AND TTL 400 SET l = l + [1] WHERE k = 1');
    await q("UPDATE adv.wt USING TIMESTAMP 2000 AND TTL 500 SET l = l + [2], s = s + {'b'} WHERE k = 1");
    await q('UPDATE adv.wt USING TIMESTAMP 3000 SET u.zip = 2 WHERE k = 1');
    const r = (
      await q('SELECT writetime(l), maxwritetime(l), ttl(l), writetime(s), writetime(u), writetime(f) FROM adv.wt')
    ).rows[0]!;
    const n = (v: unknown) => Number(v as bigint | number);
    expect((r['writetime(l)'] as unknown[]).map(n)).toEqual([1500, 2000]);
    expect(n(r['maxwritetime(l)'])).toBe(2000);
    const [t1, t2] = r['ttl(l)'] as number[];
    expect(t1).toBeGreaterThan(390);
    expect(t1).toBeLessThanOrEqual(400);
    expect(t2).toBeGreaterThan(490);
    expect((r['writetime(s)'] as unknown[]).map(n)).toEqual([1000, 2000]);
    // A UDT: one entry per field, in field order.
    expect((r['writetime(u)'] as unknown[]).map(n)).toEqual([1000, 3000]);
    expect(n(r['writetime(f)'])).toBe(1000);
    const e = await errorOf('SELECT maxwritetime(k) FROM adv.wt');
    expect(e.message).toBe('Cannot use selection function maxwritetime on PRIMARY KEY part k');
  });

  it('CAST and token()', async () => {
    const r = (await q('SELECT CAST(d AS int), token(k) FROM adv.p WHERE k = 1')).first();
    expect(r['cast(d as int)']).toBe(3);
    expect(r['system.token(k)'].toString()).toBe('-4069959284402364209');
  });
});

describe('aggregates and GROUP BY', () => {
  it('computes count/sum/avg/min/max per partition with Cassandra result types', async () => {
    await q('CREATE TABLE adv.g (k int, c int, v int, PRIMARY KEY (k, c))');
    for (let k = 0; k < 3; k++)
      for (let c = 0; c < 4; c++) await q('INSERT INTO adv.g (k, c, v) VALUES (?, ?, ?)', [k, c, k * 10 + c]);
    const rows = (await q('SELECT k, count(*), sum(v), avg(v), min(v), max(v) FROM adv.g GROUP BY k')).rows;
    const byK = new Map(rows.map((r) => [r.k, Object.values(r).slice(1).map(Number)]));
    expect(byK.get(1)).toEqual([4, 46, 11, 10, 13]);
    expect(byK.get(2)).toEqual([4, 86, 21, 20, 23]);
    await q('INSERT INTO adv.g (k, c, v) VALUES (9, 0, 2147483647)');
    await q('INSERT INTO adv.g (k, c, v) VALUES (9, 1, 1)');
    // sum(int) is an int and wraps like Java arithmetic.
    expect((await q('SELECT sum(v) FROM adv.g WHERE k = 9')).first()['system.sum(v)']).toBe(-2147483648);
  });
});

describe('user-defined functions', () => {
  it('runs JavaScript functions and aggregates, lists them in system_schema, and stops runaway bodies', async () => {
    await q('CREATE TABLE adv.u (k int PRIMARY KEY, v int)');
    for (let i = 0; i < 5; i++) await q('INSERT INTO adv.u (k, v) VALUES (?, ?)', [i, i * 10]);
    await q(
      "CREATE FUNCTION adv.plus(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'a + b'",
    );
    await q(
      "CREATE FUNCTION adv.st(s int, v int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'return s + (v || 0);'",
    );
    await q("CREATE FUNCTION adv.fin(s int) CALLED ON NULL INPUT RETURNS double LANGUAGE javascript AS 's / 2'");
    await q('CREATE AGGREGATE adv.half_sum(int) SFUNC st STYPE int FINALFUNC fin INITCOND 0');
    expect((await q('SELECT adv.plus(k, v) AS p FROM adv.u WHERE k = 2')).first().p).toBe(22);
    expect((await q('SELECT adv.half_sum(v) AS h FROM adv.u')).first().h).toBe(50);
    const fns = (await q("SELECT function_name FROM system_schema.functions WHERE keyspace_name = 'adv'")).rows;
    expect(fns.map((r) => r.function_name).sort()).toEqual(['fin', 'plus', 'st']);
    await q(
      "CREATE FUNCTION adv.spin(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'while (true) {}'",
    );
    const e = await errorOf('SELECT adv.spin(k) FROM adv.u WHERE k = 1');
    expect(e.code).toBe(0x1400);
    expect(e.message).toContain("execution of 'adv.spin[int]' failed");
    // The server is still serving.
    expect((await q('SELECT v FROM adv.u WHERE k = 1')).first().v).toBe(10);
  });
});

describe('tracing, warnings and consistency', () => {
  it('returns a trace session with events for a traced request', async () => {
    await q('CREATE TABLE adv.tr (k int PRIMARY KEY, v int)');
    const r = await client.execute('INSERT INTO adv.tr (k, v) VALUES (1, 1)', [], { traceQuery: true });
    expect(r.info.traceId).toBeDefined();
    const trace = await client.metadata.getTrace(r.info.traceId);
    expect(trace.parameters.query).toBe('INSERT INTO adv.tr (k, v) VALUES (1, 1)');
    expect(trace.events.length).toBeGreaterThan(0);
  });

  it('warns about large and unlogged multi-partition batches, refuses huge ones', async () => {
    await q('CREATE TABLE adv.b (k int PRIMARY KEY, v text)');
    const insert = 'INSERT INTO adv.b (k, v) VALUES (?, ?)';
    const small = Array.from({ length: 12 }, (_, i) => ({ query: insert, params: [i, 'x'.repeat(600)] }));
    const r = await client.batch(small, { prepare: true, logged: false });
    expect(r.info.warnings?.some((w) => w.startsWith('Batch for [adv.b] is of size'))).toBe(true);
    expect(r.info.warnings?.some((w) => w.startsWith('Unlogged batch covering 12 partitions'))).toBe(true);
    const huge = Array.from({ length: 12 }, (_, i) => ({ query: insert, params: [i, 'x'.repeat(6000)] }));
    await expect(client.batch(huge, { prepare: true })).rejects.toMatchObject({
      code: 0x2200,
      message: 'Batch too large',
    });
  });

  it('answers Unavailable when the consistency level cannot be met on one node', async () => {
    await q('CREATE TABLE rf3.t (k int PRIMARY KEY, v int)');
    await q('INSERT INTO rf3.t (k, v) VALUES (1, 1)', [], { consistency: types.consistencies.one });
    // The driver's retry policy tries the next host on Unavailable, so the server's error is inside.
    const e = (await q('INSERT INTO rf3.t (k, v) VALUES (1, 1)', [], { consistency: types.consistencies.quorum }).catch(
      (x: unknown) => x,
    )) as { innerErrors: Record<string, { code: number; required: number; alive: number }> };
    const inner = Object.values(e.innerErrors)[0]!;
    expect(inner).toMatchObject({ code: 0x1000, required: 2, alive: 1 });
    await expect(
      q('INSERT INTO rf3.t (k, v) VALUES (1, 1)', [], { consistency: types.consistencies.serial }),
    ).rejects.toMatchObject({ code: 0x2200, message: 'You must use conditional updates for serializable writes' });
  });
});
