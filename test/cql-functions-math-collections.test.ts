// Cassandra 5.0's math functions (MathFcts: abs, exp, log, log10, round per numeric type), collection functions
// (CollectionFcts: map_keys, map_values, collection_count/min/max/sum/avg), the floor functions on timestamp,
// timeuuid, date and time (TimeFcts), and scalar functions applied to aggregates (`intAsBlob(max(v))`), through the
// DataStax Node.js driver against the real server: exact values with Java's narrowing and overflow, nulls, empty
// collections, and Cassandra's messages for wrong arguments; and the masking functions (mask_null, mask_default,
// mask_replace, mask_inner, mask_outer, mask_hash).
import { createHash } from 'node:crypto';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDriverError } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const { types } = cassandra;
const CODE = { invalid: 0x2200 } as const;
const KS = 'fnmath';

let server: ServerProcess;
let client: cassandra.Client;

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, options);
}

/** The one row a query returns, as a plain object. */
async function one(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  const r = (await q(query, params, options)).rows;
  expect(r, query).toHaveLength(1);
  return { ...r[0]! } as Record<string, unknown>;
}

/** Column `c` of the one row. */
async function value(query: string) {
  return (await one(query)).c;
}

async function invalid(query: string, message: string | RegExp) {
  await expectDriverError(q(query), CODE.invalid, message, query);
}

const str = (v: unknown) => (v === null || v === undefined ? v : String(v));

beforeAll(async () => {
  server = await startServer({ env: UDF_ENV });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await q(
    `CREATE TABLE ${KS}.n (k int PRIMARY KEY, ti tinyint, si smallint, i int, bi bigint, f float, d double,
       vi varint, de decimal)`,
  );
  await q(
    `CREATE TABLE ${KS}.c (k int PRIMARY KEY, m map<int, text>, fm frozen<map<text, int>>, s set<int>,
       l list<int>, lt list<text>, sd set<double>, lti list<tinyint>, lde list<decimal>, fl frozen<list<int>>,
       i int)`,
  );
  await q(`CREATE TABLE ${KS}.ts (k int, c int, ts timestamp, tu timeuuid, dt date, tm time, v int,
       PRIMARY KEY (k, c))`);
  await q(`CREATE TABLE ${KS}.cnt (k int PRIMARY KEY, n counter)`);
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------
describe('math functions', () => {
  it('abs keeps the type; the minimum value of a fixed-width integer stays itself as in Java', async () => {
    await q(
      `INSERT INTO ${KS}.n (k, ti, si, i, bi, f, d, vi, de) VALUES (1, -5, -300, -70000, -5000000000, -1.5, -2.25,
         -123456789012345678901234567890, -12.340)`,
    );
    const r = await one(
      `SELECT abs(ti) AS ti, abs(si) AS si, abs(i) AS i, abs(bi) AS bi, abs(f) AS f, abs(d) AS d, abs(vi) AS vi,
         abs(de) AS de FROM ${KS}.n WHERE k = 1`,
    );
    expect(r.ti).toBe(5);
    expect(r.si).toBe(300);
    expect(r.i).toBe(70000);
    expect(str(r.bi)).toBe('5000000000');
    expect(r.f).toBe(1.5);
    expect(r.d).toBe(2.25);
    expect(str(r.vi)).toBe('123456789012345678901234567890');
    expect(str(r.de)).toBe('12.340');
    await q(`INSERT INTO ${KS}.n (k, ti, si, i, bi) VALUES (2, -128, -32768, -2147483648, -9223372036854775808)`);
    const min = await one(`SELECT abs(ti) AS ti, abs(si) AS si, abs(i) AS i, abs(bi) AS bi FROM ${KS}.n WHERE k = 2`);
    expect(min).toEqual({ ti: -128, si: -32768, i: -2147483648, bi: types.Long.fromString('-9223372036854775808') });
  });

  it('result column types are the argument types', async () => {
    const r = await q(`SELECT abs(ti), exp(si), log(f), log10(d), round(de), abs(vi) FROM ${KS}.n WHERE k = 1`);
    expect(r.columns.map((c) => c.name)).toEqual([
      'system.abs(ti)',
      'system.exp(si)',
      'system.log(f)',
      'system.log10(d)',
      'system.round(de)',
      'system.abs(vi)',
    ]);
    const { dataTypes } = types;
    expect(r.columns.map((c) => c.type.code)).toEqual([
      dataTypes.tinyint,
      dataTypes.smallint,
      dataTypes.float,
      dataTypes.double,
      dataTypes.decimal,
      dataTypes.varint,
    ]);
  });

  it('exp, log and log10 of integers truncate and narrow like Java casts of a double', async () => {
    await q(`INSERT INTO ${KS}.n (k, ti, si, i, bi, vi) VALUES (3, 10, 20, 1000, 100, 1000)`);
    // (byte) Math.exp(10) = (byte) 22026 = 10 (the int's low byte); (short) 485165195 = 2187; (int) saturates.
    const r = await one(
      `SELECT exp(ti) AS a, exp(si) AS b, exp(i) AS c, exp(bi) AS d, log(i) AS e, log10(i) AS f, log10(bi) AS g,
         log(ti) AS h, log10(vi) AS j, log(vi) AS l FROM ${KS}.n WHERE k = 3`,
    );
    expect(r.a).toBe(10);
    expect(r.b).toBe(2187);
    expect(r.c).toBe(2147483647);
    expect(str(r.d)).toBe('9223372036854775807');
    expect(r.e).toBe(6);
    expect(r.f).toBe(3);
    expect(str(r.g)).toBe('2');
    expect(r.h).toBe(2);
    // varint goes through DecimalType (32 significant digits), so log10(1000) is exactly 3.
    expect(str(r.j)).toBe('3');
    expect(str(r.l)).toBe('6');
    // log(0) = -Infinity: (int) gives Integer.MIN_VALUE, (byte) of that 0; log of a negative is NaN, 0.
    await q(`INSERT INTO ${KS}.n (k, ti, i, bi) VALUES (4, 0, 0, -5)`);
    expect(await one(`SELECT log(ti) AS a, log(i) AS b, log(bi) AS c FROM ${KS}.n WHERE k = 4`)).toEqual({
      a: 0,
      b: -2147483648,
      c: types.Long.fromNumber(0),
    });
  });

  it('floating functions follow Java Math (float computed in double then narrowed)', async () => {
    await q(`INSERT INTO ${KS}.n (k, f, d) VALUES (5, 2.5, -2.5)`);
    const r = await one(
      `SELECT round(f) AS a, round(d) AS b, exp(f) AS c, log(d) AS e, log10(f) AS g FROM ${KS}.n WHERE k = 5`,
    );
    expect(r.a).toBe(3);
    // Math.round(-2.5) is -2: halves go up.
    expect(r.b).toBe(-2);
    expect(r.c).toBe(Math.fround(Math.exp(2.5)));
    expect(r.e).toBeNaN();
    expect(r.g).toBe(Math.fround(Math.log10(2.5)));
    // Math.round(float) is an int: it saturates; Math.round(double) is a long.
    await q(`INSERT INTO ${KS}.n (k, f, d) VALUES (6, 1e10, 1e300)`);
    expect(await one(`SELECT round(f) AS a, round(d) AS b FROM ${KS}.n WHERE k = 6`)).toEqual({
      a: 2147483648,
      b: 2 ** 63,
    });
  });

  it('round of decimal rounds half up to scale 0; of integers it is the value', async () => {
    await q(`INSERT INTO ${KS}.n (k, de, vi, i) VALUES (7, 2.5, 12, 7)`);
    expect(str(await value(`SELECT round(de) AS c FROM ${KS}.n WHERE k = 7`))).toBe('3');
    await q(`INSERT INTO ${KS}.n (k, de) VALUES (8, -2.5)`);
    expect(str(await value(`SELECT round(de) AS c FROM ${KS}.n WHERE k = 8`))).toBe('-3');
    await q(`INSERT INTO ${KS}.n (k, de) VALUES (9, 1.2E+3)`);
    expect(str(await value(`SELECT round(de) AS c FROM ${KS}.n WHERE k = 9`))).toBe('1200');
    expect(await one(`SELECT round(i) AS a, round(vi) AS b FROM ${KS}.n WHERE k = 7`)).toEqual({
      a: 7,
      b: types.Integer.fromNumber(12),
    });
  });

  it('decimal and varint exp / log / log10 use 32 significant digits at least (DecimalType, BigDecimalMath)', async () => {
    await q(`INSERT INTO ${KS}.n (k, de, vi) VALUES (11, 1, 100)`);
    const r = await one(`SELECT exp(de) AS a, exp(vi) AS b, log(vi) AS c, log10(vi) AS d FROM ${KS}.n WHERE k = 11`);
    expect(str(r.a)).toBe('2.7182818284590452353602874713527');
    // e^100 to 32 significant digits, then toBigInteger().
    expect(str(r.b)).toBe('26881171418161354484126255515800000000000000');
    expect(str(r.c)).toBe('4');
    expect(str(r.d)).toBe('2');
    await q(`INSERT INTO ${KS}.n (k, de, vi) VALUES (12, 2, 9999999999999999999999999999999999999999)`);
    const r2 = await one(`SELECT log(de) AS a, log10(vi) AS b, exp(de) AS c FROM ${KS}.n WHERE k = 12`);
    expect(str(r2.a)).toBe('0.69314718055994530941723212145818');
    // log10(10^40 - 1) rounds to 40 at the argument's 40 digits of precision.
    expect(str(r2.b)).toBe('40');
    expect(str(r2.c)).toBe('7.3890560989306502272304274605750');
    // The log of zero or less is an ArithmeticException in DecimalType / IntegerType.
    await q(`INSERT INTO ${KS}.n (k, de, vi) VALUES (13, 0, -1)`);
    for (const call of ['log(de)', 'log10(vi)']) {
      const err = await q(`SELECT ${call} FROM ${KS}.n WHERE k = 13`).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/(Natural log|Log10) of number zero or less/);
    }
  });

  it('null in, null out; literal arguments pick the literal type', async () => {
    await q(`INSERT INTO ${KS}.n (k) VALUES (10)`);
    const r = await one(`SELECT abs(i) AS a, exp(d) AS b, round(de) AS c, log(vi) AS e FROM ${KS}.n WHERE k = 10`);
    expect(r).toEqual({ a: null, b: null, c: null, e: null });
    expect(await value(`SELECT abs(-3) AS c FROM ${KS}.n WHERE k = 10`)).toBe(3);
    expect(await value(`SELECT round(2.5) AS c FROM ${KS}.n WHERE k = 10`)).toBe(3);
    expect(await value(`SELECT abs((tinyint)-7) AS c FROM ${KS}.n WHERE k = 10`)).toBe(7);
  });

  it('math functions work in terms too (INSERT values, WHERE)', async () => {
    await q(`INSERT INTO ${KS}.n (k, i, d) VALUES (abs(-20), abs(-5), round(2.5))`);
    expect(await one(`SELECT i, d FROM ${KS}.n WHERE k = abs(-20)`)).toEqual({ i: 5, d: 3 });
  });

  it('counters have their own overloads', async () => {
    await q(`UPDATE ${KS}.cnt SET n = n - 42 WHERE k = 1`);
    const r = await q(`SELECT abs(n) AS c FROM ${KS}.cnt WHERE k = 1`);
    expect(str(r.rows[0]!.c)).toBe('42');
    expect(r.columns[0]!.type.code).toBe(types.dataTypes.counter);
  });

  it("wrong arguments get Cassandra's resolution errors", async () => {
    await invalid(
      `SELECT abs(k, k) FROM ${KS}.n WHERE k = 1`,
      /^Invalid call to function abs, none of its type signatures match \(known type signatures: system\.abs : \(/,
    );
    await invalid(
      `SELECT round('x') FROM ${KS}.n WHERE k = 1`,
      /^Invalid call to function round, none of its type signatures match \(known type signatures: .*system\.round : \(decimal\) -> decimal/,
    );
    await invalid(
      `SELECT log(m) FROM ${KS}.c WHERE k = 1`,
      /^Invalid call to function log, none of its type signatures match/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('collection functions', () => {
  beforeAll(async () => {
    await q(
      `INSERT INTO ${KS}.c (k, m, fm, s, l, lt, sd, lti, lde, fl, i) VALUES (1, {3: 'c', 1: 'a', 2: 'b'},
         {'x': 10, 'y': 20}, {5, 1, 9}, [4, 4, 2, 10], ['b', 'a', 'c'], {1.5, 2.25}, [100, 100, 7], [1.5, 2.25, 0.25],
         [], 8)`,
    );
    await q(`INSERT INTO ${KS}.c (k, fm, fl) VALUES (2, {}, [])`);
  });

  it('map_keys is a set of the keys, map_values a list of the values, in key order', async () => {
    const r = await q(`SELECT map_keys(m), map_values(m), map_keys(fm), map_values(fm) FROM ${KS}.c WHERE k = 1`);
    const row = r.rows[0]!;
    expect(row['system.map_keys(m)']).toEqual([1, 2, 3]);
    expect(row['system.map_values(m)']).toEqual(['a', 'b', 'c']);
    expect(row['system.map_keys(fm)']).toEqual(['x', 'y']);
    expect(row['system.map_values(fm)']).toEqual([10, 20]);
    const { dataTypes } = types;
    expect(r.columns.map((c) => c.type.code)).toEqual([dataTypes.set, dataTypes.list, dataTypes.set, dataTypes.list]);
    expect(r.columns.map((c) => (c.type.info as { code: number }).code)).toEqual([
      dataTypes.int,
      dataTypes.varchar,
      dataTypes.varchar,
      dataTypes.int,
    ]);
  });

  it('collection_count counts elements or entries as an int', async () => {
    const r = await one(
      `SELECT collection_count(m) AS a, collection_count(s) AS b, collection_count(l) AS c, collection_count(fm) AS d
         FROM ${KS}.c WHERE k = 1`,
    );
    expect(r).toEqual({ a: 3, b: 3, c: 4, d: 2 });
  });

  it('collection_min / _max use the element order and type', async () => {
    const r = await one(
      `SELECT collection_min(s) AS a, collection_max(s) AS b, collection_min(l) AS c, collection_max(l) AS d,
         collection_min(lt) AS e, collection_max(lt) AS f FROM ${KS}.c WHERE k = 1`,
    );
    expect(r).toEqual({ a: 1, b: 9, c: 2, d: 10, e: 'a', f: 'c' });
  });

  it('collection_sum / _avg keep the element type: tinyint sums overflow, integer averages truncate', async () => {
    const r = await one(
      `SELECT collection_sum(s) AS a, collection_avg(s) AS b, collection_sum(l) AS c, collection_avg(l) AS d,
         collection_sum(sd) AS e, collection_avg(sd) AS f, collection_sum(lti) AS g, collection_avg(lti) AS h,
         collection_sum(lde) AS i FROM ${KS}.c WHERE k = 1`,
    );
    expect(r.a).toBe(15);
    expect(r.b).toBe(5);
    expect(r.c).toBe(20);
    expect(r.d).toBe(5);
    expect(r.e).toBe(3.75);
    expect(r.f).toBe(1.875);
    // 100 + 100 + 7 = 207 wraps to -49 in a byte; the average is computed wide: 69.
    expect(r.g).toBe(-49);
    expect(r.h).toBe(69);
    expect(str(r.i)).toBe('4.00');
  });

  it('empty and null collections: null in, null out; an empty frozen collection counts 0 and averages 0', async () => {
    const r = await one(
      `SELECT map_keys(m) AS a, collection_count(s) AS b, collection_max(l) AS c, collection_sum(l) AS d,
         map_keys(fm) AS e, map_values(fm) AS f, collection_count(fl) AS g, collection_min(fl) AS h,
         collection_sum(fl) AS i, collection_avg(fl) AS j FROM ${KS}.c WHERE k = 2`,
    );
    expect(r).toEqual({ a: null, b: null, c: null, d: null, e: [], f: [], g: 0, h: null, i: 0, j: 0 });
  });

  it("wrong arguments get Cassandra's FunctionParameter messages", async () => {
    await invalid(
      `SELECT map_keys(s) FROM ${KS}.c WHERE k = 1`,
      'Function system.map_keys requires a map argument, but found argument s of type set<int>',
    );
    await invalid(
      `SELECT map_values(i) FROM ${KS}.c WHERE k = 1`,
      'Function system.map_values requires a map argument, but found argument i of type int',
    );
    await invalid(
      `SELECT collection_count(i) FROM ${KS}.c WHERE k = 1`,
      'Function system.collection_count requires a collection argument, but found argument i of type int',
    );
    await invalid(
      `SELECT collection_min(m) FROM ${KS}.c WHERE k = 1`,
      'Function system.collection_min requires a set or list argument, but found argument m of type map<int, text>',
    );
    await invalid(
      `SELECT collection_sum(lt) FROM ${KS}.c WHERE k = 1`,
      'Function system.collection_sum requires a numeric set/list argument, but found argument lt of type list<text>',
    );
    await invalid(
      `SELECT collection_avg(fm) FROM ${KS}.c WHERE k = 1`,
      'Function system.collection_avg requires a numeric set/list argument, but found argument fm of type frozen<map<text, int>>',
    );
    await invalid(
      `SELECT map_keys(m, m) FROM ${KS}.c WHERE k = 1`,
      'Invalid number of arguments for function system.map_keys(map)',
    );
    await invalid(
      `SELECT collection_max() FROM ${KS}.c WHERE k = 1`,
      'Invalid number of arguments for function system.collection_max(numeric_set_or_list)',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('floor', () => {
  const ts = (s: string) => new Date(s);

  beforeAll(async () => {
    await q(
      `INSERT INTO ${KS}.ts (k, c, ts, tu, dt, tm, v) VALUES (1, 1, '2024-03-15 10:47:31.250+0000',
         maxTimeuuid('2024-03-15 10:47:31.250+0000'), '2024-03-15', '10:47:31.123456789', 5)`,
    );
    await q(`INSERT INTO ${KS}.ts (k, c, ts, v) VALUES (1, 2, '2024-01-31 12:00:00+0000', 9)`);
    await q(`INSERT INTO ${KS}.ts (k, c) VALUES (1, 3)`);
  });

  it('floor(timestamp, duration) rounds down from the epoch', async () => {
    const r = await one(
      `SELECT floor(ts, 1h) AS a, floor(ts, 15m) AS b, floor(ts, 1d) AS c, floor(ts, 1s) AS d, floor(ts, 100ms) AS e
         FROM ${KS}.ts WHERE k = 1 AND c = 1`,
    );
    expect(r).toEqual({
      a: ts('2024-03-15T10:00:00Z'),
      b: ts('2024-03-15T10:45:00Z'),
      c: ts('2024-03-15T00:00:00Z'),
      d: ts('2024-03-15T10:47:31Z'),
      e: ts('2024-03-15T10:47:31.200Z'),
    });
  });

  it('durations with months count calendar months from the start time', async () => {
    const r = await one(
      `SELECT floor(ts, 1mo) AS a, floor(ts, 2mo) AS b, floor(ts, 1y) AS c,
         floor(ts, 1mo, '2023-12-31 00:00:00+0000') AS d, floor(ts, 1mo1d) AS e
         FROM ${KS}.ts WHERE k = 1 AND c = 1`,
    );
    expect(r.a).toEqual(ts('2024-03-01T00:00:00Z'));
    expect(r.b).toEqual(ts('2024-03-01T00:00:00Z'));
    expect(r.c).toEqual(ts('2024-01-01T00:00:00Z'));
    // Duration.floorTimestamp counts whole months between the dates' (year, month) and returns start + that many
    // months when the duration has only months: 2023-12 to 2024-03 is 3, so 2023-12-31 + 3 months, 2024-03-31, even
    // though that is after the time (as Cassandra does).
    expect(r.d).toEqual(ts('2024-03-31T00:00:00Z'));
    // 1mo1d from the epoch: 629 months and 629 days is the last step not after the time.
    expect(r.e).toEqual(ts('2024-02-20T00:00:00Z'));
  });

  it('the 3-argument form starts counting at the given time', async () => {
    const r = await one(
      `SELECT floor(ts, 1h, '2024-03-15 00:30:00+0000') AS a, floor(ts, 10m, '2024-03-15 10:41:00+0000') AS b,
         floor(tu, 1h, '2024-03-15 00:30:00+0000') AS c, floor(dt, 7d, '2024-03-01') AS e
         FROM ${KS}.ts WHERE k = 1 AND c = 1`,
    );
    expect(r.a).toEqual(ts('2024-03-15T10:30:00Z'));
    expect(r.b).toEqual(ts('2024-03-15T10:41:00Z'));
    expect(r.c).toEqual(ts('2024-03-15T10:30:00Z'));
    expect(str(r.e)).toBe('2024-03-15');
  });

  it('timeuuid floors to a timestamp, date to a date, time to a time', async () => {
    const r = await q(
      `SELECT floor(tu, 1m) AS a, floor(dt, 1mo) AS b, floor(dt, 10d) AS c, floor(tm, 1h) AS d, floor(tm, 1ms) AS e
         FROM ${KS}.ts WHERE k = 1 AND c = 1`,
    );
    const row = r.rows[0]!;
    expect(row.a).toEqual(ts('2024-03-15T10:47:00Z'));
    expect(str(row.b)).toBe('2024-03-01');
    // 2024-03-15 is day 19797 since the epoch: 19790 is 2024-03-08.
    expect(str(row.c)).toBe('2024-03-08');
    expect(str(row.d)).toBe(types.LocalTime.fromString('10:00:00').toString());
    expect(str(row.e)).toBe(types.LocalTime.fromString('10:47:31.123').toString());
    const { dataTypes } = types;
    expect(r.columns.map((c) => c.type.code)).toEqual([
      dataTypes.timestamp,
      dataTypes.date,
      dataTypes.date,
      dataTypes.time,
      dataTypes.time,
    ]);
  });

  it('floor works in terms: INSERT values and WHERE', async () => {
    await q(`INSERT INTO ${KS}.ts (k, c, ts) VALUES (2, 1, floor((timestamp)'2024-03-15 10:47:31.250+0000', 1h))`);
    expect(await value(`SELECT ts AS c FROM ${KS}.ts WHERE k = 2 AND c = 1`)).toEqual(ts('2024-03-15T10:00:00Z'));
    const r = await q(
      `SELECT c FROM ${KS}.ts WHERE k = 1 AND ts >= floor((timestamp)'2024-03-15 10:47:31.250+0000', 1d) ALLOW FILTERING`,
    );
    expect(r.rows.map((x) => x.c)).toEqual([1]);
  });

  it('null arguments give null', async () => {
    expect(
      await one(
        `SELECT floor(ts, 1h) AS a, floor(dt, 1d) AS b, floor(tm, 1h) AS c FROM ${KS}.ts WHERE k = 1 AND c = 3`,
      ),
    ).toEqual({ a: null, b: null, c: null });
  });

  it("Cassandra's messages for durations the floor cannot use", async () => {
    const at = `FROM ${KS}.ts WHERE k = 1 AND c = 1`;
    await invalid(
      `SELECT floor(ts, 1us) ${at}`,
      'The floor cannot be computed for the 1us duration as precision is below 1 millisecond',
    );
    await invalid(
      `SELECT floor(dt, 1h) ${at}`,
      'The floor on date values cannot be computed for the 1h duration as precision is below 1 day',
    );
    await invalid(`SELECT floor(ts, -1h) ${at}`, 'Negative durations are not supported by the floor function');
    await invalid(
      `SELECT floor(ts, 1h, '2025-01-01 00:00:00+0000') ${at}`,
      'The floor function starting time is greater than the provided time',
    );
    await invalid(
      `SELECT floor(tm, 1d) ${at}`,
      'For time values, the floor can only be computed for durations smaller that a day',
    );
    await invalid(
      `SELECT floor(v, 1h) ${at}`,
      /^Invalid call to function floor, none of its type signatures match \(known type signatures: system\.floor : \(timestamp, duration\) -> timestamp/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('masking functions', () => {
  beforeAll(async () => {
    await q(
      `CREATE TABLE ${KS}.ms (k int PRIMARY KEY, s text, a ascii, i int, b blob, ts timestamp, l list<int>, u uuid,
         d decimal, dt date, bo boolean, ip inet, vi varint)`,
    );
    await q(
      `INSERT INTO ${KS}.ms (k, s, a, i, b, ts, l, u, d, dt, bo, ip, vi) VALUES (1, 'abcdefgh', 'xyz', 7, 0x0102,
         '2024-01-01', [1, 2], 5132b130-ae79-11e4-ab27-0800200c9a66, 1.5, '2024-01-01', true, '10.0.0.1', 9)`,
    );
    await q(`INSERT INTO ${KS}.ms (k) VALUES (2)`);
  });

  it('mask_null is always null, with the argument type', async () => {
    const r = await q(`SELECT mask_null(s), mask_null(i) FROM ${KS}.ms WHERE k = 1`);
    expect(r.rows[0]!['system.mask_null(s)']).toBeNull();
    expect(r.rows[0]!['system.mask_null(i)']).toBeNull();
    expect(r.columns.map((c) => c.type.code)).toEqual([types.dataTypes.varchar, types.dataTypes.int]);
  });

  it("mask_default gives each type's masked value", async () => {
    const r = await one(
      `SELECT mask_default(s) AS s, mask_default(a) AS a, mask_default(i) AS i, mask_default(b) AS b,
         mask_default(ts) AS ts, mask_default(l) AS l, mask_default(u) AS u, mask_default(d) AS d,
         mask_default(dt) AS dt, mask_default(bo) AS bo, mask_default(ip) AS ip, mask_default(vi) AS vi
         FROM ${KS}.ms WHERE k = 2`,
    );
    expect(r.s).toBe('****');
    expect(r.a).toBe('****');
    expect(r.i).toBe(0);
    expect((r.b as Buffer).length).toBe(0);
    expect(r.ts).toEqual(new Date(0));
    expect(r.l).toEqual([]);
    expect(str(r.u)).toBe('00000000-0000-0000-0000-000000000000');
    expect(str(r.d)).toBe('0');
    expect(str(r.dt)).toBe('1970-01-01');
    expect(r.bo).toBe(false);
    expect(str(r.ip)).toBe('0.0.0.0');
    expect(str(r.vi)).toBe('0');
  });

  it('mask_replace returns the replacement, typed as the column', async () => {
    const r = await one(
      `SELECT mask_replace(s, 'redacted') AS s, mask_replace(i, 42) AS i, mask_replace(l, [0]) AS l
         FROM ${KS}.ms WHERE k = 1`,
    );
    expect(r).toEqual({ s: 'redacted', i: 42, l: [0] });
    expect(await value(`SELECT mask_replace(s, 'x') AS c FROM ${KS}.ms WHERE k = 2`)).toBe('x');
  });

  it('mask_inner / mask_outer pad all but / only the first and last characters', async () => {
    const r = await one(
      `SELECT mask_inner(s, 1, 2) AS a, mask_outer(s, 1, 2) AS b, mask_inner(s, 1, 2, '#') AS c,
         mask_inner(s, null, null) AS d, mask_inner(s, 10, 10) AS e, mask_outer(s, 0, 0) AS f,
         mask_outer(a, 5, 0) AS g FROM ${KS}.ms WHERE k = 1`,
    );
    expect(r).toEqual({
      a: 'a*****gh',
      b: '*bcdef**',
      c: 'a#####gh',
      d: '********',
      e: 'abcdefgh',
      f: 'abcdefgh',
      g: '***',
    });
    expect(await value(`SELECT mask_inner(s, 1, 1) AS c FROM ${KS}.ms WHERE k = 2`)).toBeNull();
  });

  it('mask_hash hashes the serialized value, SHA-256 unless another algorithm is named', async () => {
    const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const r = await q(
      `SELECT mask_hash(s) AS a, mask_hash(i) AS b, mask_hash(s, 'MD5') AS c, mask_hash(s, 'sha-512') AS d,
         mask_hash(s, null) AS e FROM ${KS}.ms WHERE k = 1`,
    );
    const row = r.rows[0]!;
    const hex = (v: unknown) => (v as Buffer).toString('hex');
    expect(hex(row.a)).toBe(sha256(Buffer.from('abcdefgh')));
    expect(hex(row.b)).toBe(sha256(Buffer.from([0, 0, 0, 7])));
    expect(hex(row.c)).toBe(createHash('md5').update('abcdefgh').digest('hex'));
    expect(hex(row.d)).toBe(createHash('sha512').update('abcdefgh').digest('hex'));
    expect(hex(row.e)).toBe(sha256(Buffer.from('abcdefgh')));
    expect(r.columns[0]!.type.code).toBe(types.dataTypes.blob);
    expect(await value(`SELECT mask_hash(s) AS c FROM ${KS}.ms WHERE k = 2`)).toBeNull();
  });

  it('masking functions in terms: literal arguments take the parameter types (mask_replace: the receiver type)', async () => {
    await q(`INSERT INTO ${KS}.ms (k, s, i) VALUES (3, mask_replace('secret', 'x'), mask_replace(1, 2))`);
    expect(await one(`SELECT s, i FROM ${KS}.ms WHERE k = 3`)).toEqual({ s: 'x', i: 2 });
    await q(`INSERT INTO ${KS}.ms (k, s) VALUES (5, mask_inner('abcdef', 1, 1))`);
    expect(await value(`SELECT s AS c FROM ${KS}.ms WHERE k = 5`)).toBe('a****f');
    await invalid(
      `INSERT INTO ${KS}.ms (k, l) VALUES (4, mask_null([1]))`,
      /^Cannot infer type of argument \[1\] in call to function system\.mask_null\(any\): use type casts to disambiguate$/,
    );
  });

  it("Cassandra's messages for wrong masking arguments", async () => {
    const at = `FROM ${KS}.ms WHERE k = 1`;
    await invalid(
      `SELECT mask_inner(s, 1, 2, '##') ${at}`,
      "The padding argument for function system.mask_inner should be single-character, but '##' has 2 characters.",
    );
    await invalid(
      `SELECT mask_inner(i, 1, 2) ${at}`,
      'Function system.mask_inner requires an argument of type [text|varchar|ascii], but found argument i of type int',
    );
    await invalid(
      `SELECT mask_outer(s, 1, s) ${at}`,
      'Function system.mask_outer requires an argument of type int, but found argument s of type text',
    );
    await invalid(
      `SELECT mask_inner(s, 1) ${at}`,
      'Invalid number of arguments for function system.mask_inner([text|varchar|ascii], int, int, [text])',
    );
    await invalid(`SELECT mask_null(s, s) ${at}`, 'Invalid number of arguments for function system.mask_null(any)');
    await invalid(
      `SELECT mask_replace(s) ${at}`,
      'Invalid number of arguments for function system.mask_replace(any, same)',
    );
    await invalid(`SELECT mask_hash(s, 'foo') ${at}`, 'Hash algorithm not found: foo');
    await invalid(
      `SELECT mask_hash(s, i) ${at}`,
      'Function system.mask_hash requires an argument of type text, but found argument i of type int',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('scalar functions over aggregates', () => {
  it('a native function applied to an aggregate computes on the group result', async () => {
    const r = await one(
      `SELECT intAsBlob(max(v)) AS a, abs(min(v)) AS b, blob_as_int(int_as_blob(sum(v))) AS c,
         toUnixTimestamp(max(ts)) AS d FROM ${KS}.ts WHERE k = 1`,
    );
    expect((r.a as Buffer).toString('hex')).toBe('00000009');
    expect(r.b).toBe(5);
    expect(r.c).toBe(14);
    expect(str(r.d)).toBe(String(Date.parse('2024-03-15T10:47:31.250Z')));
  });

  it('collection functions and the floor over aggregates; with no rows the aggregates are still computed', async () => {
    await q(`INSERT INTO ${KS}.c (k, l) VALUES (10, [1, 2, 3])`);
    expect(await value(`SELECT collection_sum(max(l)) AS c FROM ${KS}.c WHERE k = 10`)).toBe(6);
    expect(await value(`SELECT floor(max(ts), 1d) AS c FROM ${KS}.ts WHERE k = 1`)).toEqual(
      ts2('2024-03-15T00:00:00Z'),
    );
    const r = await one(`SELECT bigintAsBlob(count(*)) AS a, abs(max(v)) AS b FROM ${KS}.ts WHERE k = 42`);
    expect((r.a as Buffer).toString('hex')).toBe('0000000000000000');
    expect(r.b).toBeNull();
  });

  it('a user-defined function applies to an aggregate too', async () => {
    await q(`CREATE FUNCTION ${KS}.twice(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'a * 2'`);
    expect(await value(`SELECT ${KS}.twice(max(v)) AS c FROM ${KS}.ts WHERE k = 1`)).toBe(18);
  });

  it('operators, CAST and toJson over aggregates; a plain column in them takes the first row, as Cassandra', async () => {
    const r = await one(
      `SELECT max(v) + 1 AS a, sum(v) / count(*) AS b, -max(v) AS c, CAST(max(v) AS text) AS d, toJson(min(v)) AS e,
         max(v) + c AS f FROM ${KS}.ts WHERE k = 1`,
    );
    expect({ ...r, b: str(r.b) }).toEqual({ a: 10, b: '4', c: -9, d: '9', e: '5', f: 10 });
    const named = await q(`SELECT max(v) + 1, -min(v) FROM ${KS}.ts WHERE k = 1`);
    expect(named.columns.map((c) => c.name)).toEqual(['system.max(v) + 1', '-system.min(v)']);
    expect(await value(`SELECT max(v) * 2 AS c FROM ${KS}.ts WHERE k = 42`)).toBeNull();
    for (const nested of ['max(max(v))', 'count(min(v))', 'sum(max(v) + 1)']) {
      await invalid(
        `SELECT ${nested} FROM ${KS}.ts WHERE k = 1`,
        'aggregate functions cannot be used as arguments of aggregate functions',
      );
    }
  });

  it('the result column is named after the nested call', async () => {
    const r = await q(`SELECT intasblob(max(v)) FROM ${KS}.ts WHERE k = 1`);
    expect(r.columns[0]!.name).toBe('system.intasblob(system.max(v))');
  });
});

function ts2(s: string) {
  return new Date(s);
}
