// CQL text, literals, native functions, CAST and value ordering through the DataStax Node.js driver against the
// real server: comments, '' and $$ strings, NaN/Infinity, blob literals; now(), uuid(), the time conversions,
// min/maxTimeuuid ranges, the blob conversions and their snake_case names (Cassandra 5.0); CAST; clustering
// order of every orderable native type; and the exact messages of Cassandra 5.0 for syntax errors, function
// resolution errors and the common SELECT restriction errors.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectDriverError as expectError } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const { types } = cassandra;
const CODE = { syntax: 0x2000, invalid: 0x2200 } as const;
const KS = 'fnlit';
const FILTERING_MESSAGE =
  'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
  'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';

let server: ServerProcess;
let client: cassandra.Client;

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, options);
}

async function rows(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return (await q(query, params, options)).rows;
}

/** The one row a query returns, as a plain object. */
async function one(query: string, params: unknown[] = []) {
  const r = await rows(query, params);
  expect(r, query).toHaveLength(1);
  return { ...r[0]! } as Record<string, unknown>;
}

/** The values of column `c` of every row, in order. */
async function column(query: string, c = 'c') {
  return (await rows(query)).map((r) => r[c]);
}

/** Expects the exact error: its code and the whole message (a RegExp for messages with variable parts). */

const invalid = (query: string, message: string | RegExp, params: unknown[] = []) =>
  expectError(q(query, params), CODE.invalid, message);

/** Inserts the clustering values in the given (shuffled) order into partition 1 of `table`. */
async function insertAll(table: string, literals: readonly string[]) {
  for (const l of literals) await q(`INSERT INTO ${KS}.${table} (p, c) VALUES (1, ${l})`);
}

const hex = (b: unknown) => (b as Buffer).toString('hex');
const str = (v: unknown) => (v === null ? null : String(v));

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await q(
    `CREATE TABLE ${KS}.t (k int PRIMARY KEY, s text, a ascii, d double, f float, b blob, u uuid, tu timeuuid,
       ts timestamp, dt date, tm time, i int, bi bigint, si smallint, ti tinyint, vi varint, de decimal, bo boolean,
       ip inet)`,
  );
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------
describe('comments', () => {
  it('-- and // comments run to the end of the line, /* */ comments may span lines', async () => {
    await q(`-- a leading comment\nINSERT INTO ${KS}.t (k, s) VALUES (1, 'one') -- trailing\n`);
    await q(`// another style\nINSERT INTO ${KS}.t (k, s) // after the columns\n VALUES (2, 'two')\n`);
    await q(`INSERT /* inline */ INTO ${KS}.t (k, /* between columns */ s)\n/* several\n lines\n */ VALUES (3, 'x')`);
    expect(await one(`SELECT /* c */ s FROM ${KS}.t WHERE k = 1 /* end */`)).toEqual({ s: 'one' });
    expect(await one(`SELECT s FROM ${KS}.t -- which table\nWHERE k = 2\n// done\n`)).toEqual({ s: 'two' });
    expect(await one(`SELECT s FROM ${KS}.t WHERE k = /* the key */ 3`)).toEqual({ s: 'x' });
    // Comment markers inside strings are text.
    await q(`INSERT INTO ${KS}.t (k, s) VALUES (4, '-- not /* a */ comment //')`);
    expect(await one(`SELECT s FROM ${KS}.t WHERE k = 4`)).toEqual({ s: '-- not /* a */ comment //' });
  });

  it('comments work in prepared statements too', async () => {
    const r = await rows(`SELECT s FROM ${KS}.t /* table */ WHERE k = ? -- bound\n`, [1], { prepare: true });
    expect(r.map((x) => x.s)).toEqual(['one']);
  });

  it("a line comment needs its newline, as Cassandra's lexer requires; an unclosed /* fails too", async () => {
    // COMMENT : ('--' | '//') .* ('\n'|'\r') in Lexer.g: at the end of input there is no newline to match.
    await expectError(
      q(`SELECT s FROM ${KS}.t WHERE k = 1 -- no newline`),
      CODE.syntax,
      "line 1:47 mismatched character '<EOF>' expecting set null",
    );
    await expectError(
      q(`SELECT s FROM ${KS}.t\n// last line`),
      CODE.syntax,
      "line 2:12 mismatched character '<EOF>' expecting set null",
    );
    await expectError(
      q(`SELECT s FROM ${KS}.t /* open`),
      CODE.syntax,
      "line 1:29 mismatched character '<EOF>' expecting '*'",
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('literals', () => {
  it("'' escapes a quote; $$ strings take quotes, $ and newlines as they are", async () => {
    await q(`INSERT INTO ${KS}.t (k, s, a) VALUES (10, 'it''s', 'a''''b')`);
    expect(await one(`SELECT s, a FROM ${KS}.t WHERE k = 10`)).toEqual({ s: "it's", a: "a''b" });
    await q(`INSERT INTO ${KS}.t (k, s) VALUES (11, $$it's $5 'quoted'$$)`);
    expect(await one(`SELECT s FROM ${KS}.t WHERE k = 11`)).toEqual({ s: "it's $5 'quoted'" });
    await q(`INSERT INTO ${KS}.t (k, s) VALUES (12, $$two\nlines -- not a comment$$)`);
    expect(await one(`SELECT s FROM ${KS}.t WHERE k = 12`)).toEqual({ s: 'two\nlines -- not a comment' });
    await q(`INSERT INTO ${KS}.t (k, s, a) VALUES (13, '', $$$$)`);
    expect(await one(`SELECT s, a FROM ${KS}.t WHERE k = 13`)).toEqual({ s: '', a: '' });
    // A string in a WHERE clause: the same escapes.
    expect(await one(`SELECT k FROM ${KS}.t WHERE k = 10 AND s = 'it''s' ALLOW FILTERING`)).toEqual({ k: 10 });
    expect(await one(`SELECT k FROM ${KS}.t WHERE k = 10 AND s = $$it's$$ ALLOW FILTERING`)).toEqual({ k: 10 });
  });

  it('unterminated strings are syntax errors', async () => {
    await expectError(
      q(`INSERT INTO ${KS}.t (k, s) VALUES (1, 'abc)`),
      CODE.syntax,
      "line 1:43 mismatched character '<EOF>' expecting '''",
    );
    // The $$ loop stops one character before the end, where it then wants a '$'.
    await expectError(
      q(`INSERT INTO ${KS}.t (k, s) VALUES (1, $$abc)`),
      CODE.syntax,
      "line 1:43 mismatched character ')' expecting '$'",
    );
  });

  it('NaN, Infinity and -Infinity into double and float, read back', async () => {
    await q(`INSERT INTO ${KS}.t (k, d, f) VALUES (20, NaN, NaN)`);
    await q(`INSERT INTO ${KS}.t (k, d, f) VALUES (21, Infinity, -Infinity)`);
    await q(`INSERT INTO ${KS}.t (k, d, f) VALUES (22, -Infinity, Infinity)`);
    await q(`INSERT INTO ${KS}.t (k, d, f) VALUES (23, nan, -NaN)`);
    await q(`INSERT INTO ${KS}.t (k, d, f) VALUES (24, -0.0, 1e-3)`);
    const read = async (k: number) => {
      const r = await one(`SELECT d, f FROM ${KS}.t WHERE k = ${k}`);
      return [r.d, r.f];
    };
    expect(await read(20)).toEqual([Number.NaN, Number.NaN]);
    expect(await read(21)).toEqual([Infinity, -Infinity]);
    expect(await read(22)).toEqual([-Infinity, Infinity]);
    expect(await read(23)).toEqual([Number.NaN, Number.NaN]);
    const [negZero, small] = await read(24);
    expect(Object.is(negZero, -0)).toBe(true);
    expect(small).toBeCloseTo(0.001, 6);
    // As text, Java's Double.toString / Float.toString.
    expect(await one(`SELECT CAST(d AS text) AS d, CAST(f AS text) AS f FROM ${KS}.t WHERE k = 21`)).toEqual({
      d: 'Infinity',
      f: '-Infinity',
    });
    expect(await one(`SELECT CAST(d AS text) AS d FROM ${KS}.t WHERE k = 20`)).toEqual({ d: 'NaN' });
    // Not an integer.
    await invalid(`INSERT INTO ${KS}.t (k, i) VALUES (25, NaN)`, 'Invalid FLOAT constant (NaN) for "i" of type int');
    await invalid(
      `INSERT INTO ${KS}.t (k, bi) VALUES (25, Infinity)`,
      'Invalid FLOAT constant (Infinity) for "bi" of type bigint',
    );
  });

  it('blob literals: hex digits in any case, empty 0x, and the errors', async () => {
    await q(`INSERT INTO ${KS}.t (k, b) VALUES (30, 0xCAFEbabe)`);
    await q(`INSERT INTO ${KS}.t (k, b) VALUES (31, 0x)`);
    await q(`INSERT INTO ${KS}.t (k, b) VALUES (32, 0X00ff)`);
    expect(hex((await one(`SELECT b FROM ${KS}.t WHERE k = 30`)).b)).toBe('cafebabe');
    const empty = (await one(`SELECT b FROM ${KS}.t WHERE k = 31`)).b as Buffer;
    expect(Buffer.isBuffer(empty)).toBe(true);
    expect(empty).toHaveLength(0);
    expect(hex((await one(`SELECT b FROM ${KS}.t WHERE k = 32`)).b)).toBe('00ff');
    expect(await one(`SELECT k FROM ${KS}.t WHERE k = 30 AND b = 0xcafeBABE ALLOW FILTERING`)).toEqual({ k: 30 });
    await invalid(`INSERT INTO ${KS}.t (k, b) VALUES (33, 0xabc)`, "cannot parse 'abc' as hex bytes");
    await invalid(`INSERT INTO ${KS}.t (k, i) VALUES (33, 0x01)`, 'Invalid HEX constant (0x01) for "i" of type int');
    await invalid(
      `INSERT INTO ${KS}.t (k, b) VALUES (33, 'cafe')`,
      'Invalid STRING constant (cafe) for "b" of type blob',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('native functions', () => {
  const TU = '5f2e9b60-2b3a-11ee-8000-000000000000'; // 2023-07-25 22:27:00.005 UTC
  const TU_MS = 1690324020005;
  const TS_MS = Date.UTC(2023, 6, 26, 10, 20, 30, 456);

  beforeAll(async () => {
    await q(
      `INSERT INTO ${KS}.t (k, tu, ts, dt, i, bi, s) VALUES (40, ${TU}, '2023-07-26 10:20:30.456+0000', '2023-07-26', 42, 9000000000, 'hi')`,
    );
  });

  it('now(), uuid(), toTimestamp(now()) and toDate(now()) in INSERT values', async () => {
    const before = Date.now();
    await q(`INSERT INTO ${KS}.t (k, tu, u, ts, dt) VALUES (41, now(), uuid(), toTimestamp(now()), toDate(now()))`);
    const after = Date.now();
    const r = await one(`SELECT tu, u, ts, dt, toUnixTimestamp(tu) AS ms FROM ${KS}.t WHERE k = 41`);
    const tu = r.tu as cassandra.types.TimeUuid;
    expect(tu.toString()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number(r.ms)).toBeGreaterThanOrEqual(before);
    expect(Number(r.ms)).toBeLessThanOrEqual(after);
    expect(String(r.u)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const ts = (r.ts as Date).getTime();
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(after);
    expect(String(r.dt)).toBe(new Date(ts).toISOString().slice(0, 10));
    // Two calls in one statement are two distinct values.
    const two = await one(`SELECT now() AS a, now() AS b, uuid() AS c, uuid() AS d FROM ${KS}.t WHERE k = 41`);
    expect(String(two.a)).not.toBe(String(two.b));
    expect(String(two.c)).not.toBe(String(two.d));
  });

  it('toTimestamp, toDate and toUnixTimestamp on timeuuid, timestamp and date', async () => {
    const rs = await q(
      `SELECT toTimestamp(tu), toDate(tu), toUnixTimestamp(tu), toUnixTimestamp(ts), toUnixTimestamp(dt),
              toDate(ts), toTimestamp(dt) FROM ${KS}.t WHERE k = 40`,
    );
    expect(rs.columns.map((c) => c.name)).toEqual([
      'system.totimestamp(tu)',
      'system.todate(tu)',
      'system.tounixtimestamp(tu)',
      'system.tounixtimestamp(ts)',
      'system.tounixtimestamp(dt)',
      'system.todate(ts)',
      'system.totimestamp(dt)',
    ]);
    const r = rs.rows[0]!;
    expect((r['system.totimestamp(tu)'] as Date).getTime()).toBe(TU_MS);
    expect(String(r['system.todate(tu)'])).toBe('2023-07-25');
    expect(String(r['system.tounixtimestamp(tu)'])).toBe(String(TU_MS));
    expect(String(r['system.tounixtimestamp(ts)'])).toBe(String(TS_MS));
    expect(String(r['system.tounixtimestamp(dt)'])).toBe(String(Date.UTC(2023, 6, 26)));
    expect(String(r['system.todate(ts)'])).toBe('2023-07-26');
    expect((r['system.totimestamp(dt)'] as Date).getTime()).toBe(Date.UTC(2023, 6, 26));
  });

  it("Cassandra 5.0's snake_case names work beside the old ones", async () => {
    const rs = await q(
      `SELECT to_timestamp(tu), to_date(ts), to_unix_timestamp(dt), min_timeuuid(ts), max_timeuuid(ts),
              int_as_blob(i), blob_as_int(0x0000002a), text_as_blob(s) FROM ${KS}.t WHERE k = 40`,
    );
    expect(rs.columns.map((c) => c.name)).toEqual([
      'system.to_timestamp(tu)',
      'system.to_date(ts)',
      'system.to_unix_timestamp(dt)',
      'system.min_timeuuid(ts)',
      'system.max_timeuuid(ts)',
      'system.int_as_blob(i)',
      'system.blob_as_int(0x0000002a)',
      'system.text_as_blob(s)',
    ]);
    const r = rs.rows[0]!;
    expect((r['system.to_timestamp(tu)'] as Date).getTime()).toBe(TU_MS);
    expect(String(r['system.to_date(ts)'])).toBe('2023-07-26');
    expect(String(r['system.to_unix_timestamp(dt)'])).toBe(String(Date.UTC(2023, 6, 26)));
    // 2023-07-26 10:20:30.456 as the lowest and highest timeuuid of that millisecond.
    expect(String(r['system.min_timeuuid(ts)'])).toBe('0c32ff80-2b9e-11ee-8080-808080808080');
    expect(String(r['system.max_timeuuid(ts)'])).toBe('0c33268f-2b9e-11ee-7f7f-7f7f7f7f7f7f');
    expect(hex(r['system.int_as_blob(i)'])).toBe('0000002a');
    expect(r['system.blob_as_int(0x0000002a)']).toBe(42);
    expect(hex(r['system.text_as_blob(s)'])).toBe('6869');
  });

  it('currentTimestamp(), currentDate(), currentTime(), currentTimeUUID() and their 5.0 names', async () => {
    const before = Date.now();
    const r = await one(
      `SELECT currentTimestamp() AS ts, currentDate() AS d, currentTime() AS t, currentTimeUUID() AS u,
              current_timestamp() AS ts2, current_date() AS d2 FROM ${KS}.t WHERE k = 40`,
    );
    const after = Date.now();
    for (const ts of [r.ts, r.ts2] as Date[]) {
      expect(ts.getTime()).toBeGreaterThanOrEqual(before);
      expect(ts.getTime()).toBeLessThanOrEqual(after);
    }
    expect(String(r.d)).toBe(new Date(after).toISOString().slice(0, 10));
    expect(String(r.d2)).toBe(String(r.d));
    expect(r.t).toBeInstanceOf(types.LocalTime);
    expect(String(r.u)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1/);
  });

  it('the blob conversions, in SELECT and in INSERT values', async () => {
    const rs = await q(
      `SELECT intAsBlob(i), blobAsInt(0x0000002a), textAsBlob(s), blobAsText(0x6869), bigintAsBlob(bi),
              varcharAsBlob('x'), blobAsVarchar(0x6869), bigintAsBlob(3), blobAsBigint(bigintAsBlob(bi))
       FROM ${KS}.t WHERE k = 40`,
    );
    const r = rs.rows[0]!;
    expect(hex(r['system.intasblob(i)'])).toBe('0000002a');
    expect(r['system.blobasint(0x0000002a)']).toBe(42);
    expect(hex(r['system.textasblob(s)'])).toBe('6869');
    expect(r['system.blobastext(0x6869)']).toBe('hi');
    expect(hex(r['system.bigintasblob(bi)'])).toBe('0000000218711a00');
    expect(hex(r["system.varcharasblob('x')"])).toBe('78');
    expect(r['system.blobasvarchar(0x6869)']).toBe('hi');
    // An integer literal fits the bigint parameter.
    expect(hex(r['system.bigintasblob(3)'])).toBe('0000000000000003');
    expect(String(r['system.blobasbigint(system.bigintasblob(bi))'])).toBe('9000000000');
    await q(`INSERT INTO ${KS}.t (k, i, b, s) VALUES (42, blobAsInt(0x00000007), intAsBlob(7), blobAsText(0x6f6b))`);
    const w = await one(`SELECT i, b, s FROM ${KS}.t WHERE k = 42`);
    expect([w.i, hex(w.b), w.s]).toEqual([7, '00000007', 'ok']);
  });

  it('bind markers as function arguments in a selection take the parameter type', async () => {
    const rs = await q(
      `SELECT blobAsInt(?), intAsBlob(?) FROM ${KS}.t WHERE k = 40`,
      [Buffer.from('00000009', 'hex'), 5],
      {
        prepare: true,
      },
    );
    expect(rs.columns.map((c) => c.name)).toEqual(['system.blobasint(?)', 'system.intasblob(?)']);
    expect(rs.rows[0]!['system.blobasint(?)']).toBe(9);
    expect(hex(rs.rows[0]!['system.intasblob(?)'])).toBe('00000005');
    // A marker fits every overload.
    await expectError(
      q(`SELECT toTimestamp(?) FROM ${KS}.t WHERE k = 40`, [null], { prepare: true }),
      CODE.invalid,
      /^Ambiguous call to function totimestamp \(can be matched by following signatures: system\.totimestamp : \((timeuuid|date)\) -> timestamp, system\.totimestamp : \((timeuuid|date)\) -> timestamp\): use type casts to disambiguate$/,
    );
  });

  it('blobAsX of bytes that are not a valid X', async () => {
    await invalid(
      `SELECT blobAsInt(0x01) FROM ${KS}.t WHERE k = 40`,
      'In call to function system.blobasint, value 0x01 is not a valid binary representation for type int',
    );
    await invalid(
      `INSERT INTO ${KS}.t (k, i) VALUES (43, blobAsInt(0x0102))`,
      'In call to function system.blobasint, value 0x0102 is not a valid binary representation for type int',
    );
    await invalid(
      `SELECT blobAsText(0xcafebabe) FROM ${KS}.t WHERE k = 40`,
      'In call to function system.blobastext, value 0xcafebabe is not a valid binary representation for type text',
    );
    await invalid(
      `SELECT blob_as_bigint(int_as_blob(i)) FROM ${KS}.t WHERE k = 40`,
      'In call to function system.blob_as_bigint, value 0x0000002a is not a valid binary representation for type bigint',
    );
  });

  it('minTimeuuid / maxTimeuuid ranges over a timeuuid clustering column', async () => {
    await q(`CREATE TABLE ${KS}.events (p int, c timeuuid, v int, PRIMARY KEY (p, c))`);
    const at = (iso: string, v: number, max = false) =>
      q(`INSERT INTO ${KS}.events (p, c, v) VALUES (1, ${max ? 'max' : 'min'}Timeuuid('${iso}'), ${v})`);
    await q(`INSERT INTO ${KS}.events (p, c, v) VALUES (1, 50554d6e-29bb-11e5-b345-feff819cdc9f, 3)`); // 2015-07-14
    await at('2013-01-01 00:05+0000', 2);
    await q(`INSERT INTO ${KS}.events (p, c, v) VALUES (1, d2177dd0-eaa2-11de-a572-001b779c76e3, 1)`); // 2009-12-17
    await at('2013-01-01 00:05+0000', 4, true);
    await at('2020-02-29 12:00+0000', 5);
    const vs = async (where: string) => column(`SELECT v FROM ${KS}.events WHERE p = 1 ${where}`, 'v');
    expect(await vs('')).toEqual([1, 2, 4, 3, 5]);
    // Strictly after the last possible uuid of 00:05 and before the first of 2016: only 2015's.
    expect(
      await vs("AND c > maxTimeuuid('2013-01-01 00:05+0000') AND c < minTimeuuid('2016-01-01 00:00+0000')"),
    ).toEqual([3]);
    // Every uuid of the 00:05 millisecond lies within [min, max].
    expect(
      await vs("AND c >= minTimeuuid('2013-01-01 00:05+0000') AND c <= maxTimeuuid('2013-01-01 00:05+0000')"),
    ).toEqual([2, 4]);
    // > minTimeuuid keeps the minimum out; < maxTimeuuid keeps the maximum out.
    expect(
      await vs("AND c > minTimeuuid('2013-01-01 00:05+0000') AND c < maxTimeuuid('2013-01-01 00:05+0000')"),
    ).toEqual([]);
    expect(await vs("AND c < minTimeuuid('2013-01-01 00:05+0000')")).toEqual([1]);
    // An integer is a timestamp in milliseconds; toTimestamp(now()) and now() bound the other end.
    expect(await vs(`AND c > maxTimeuuid(${Date.UTC(2013, 0, 1, 0, 5)})`)).toEqual([3, 5]);
    expect(await vs('AND c < now()')).toEqual([1, 2, 4, 3, 5]);
    expect(await vs('AND c > maxTimeuuid(toTimestamp(now()))')).toEqual([]);
    expect(await vs(`AND c >= minTimeuuid('2015-01-01') ORDER BY c DESC`)).toEqual([5, 3]);
    // Bound markers: the parameter is a timestamp.
    const prepared = await rows(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > maxTimeuuid(?) AND c < minTimeuuid(?)`,
      [new Date(Date.UTC(2013, 0, 1, 0, 5)), new Date(Date.UTC(2021, 0, 1))],
      { prepare: true },
    );
    expect(prepared.map((r) => r.v)).toEqual([3, 5]);
  });

  it('function resolution errors: unknown functions, wrong argument types and counts', async () => {
    // In a selection.
    await invalid(`SELECT nosuch(k) FROM ${KS}.t WHERE k = 40`, "Unknown function 'nosuch'");
    await invalid(`SELECT ${KS}.nosuch(k) FROM ${KS}.t WHERE k = 40`, `Unknown function '${KS}.nosuch'`);
    // dateOf and unixTimestampOf were removed in 5.0 (CASSANDRA-18328).
    await invalid(`SELECT dateOf(tu) FROM ${KS}.t WHERE k = 40`, "Unknown function 'dateof'");
    await invalid(
      `SELECT intAsBlob(s) FROM ${KS}.t WHERE k = 40`,
      'Type error: s cannot be passed as argument 0 of function system.intasblob of type int',
    );
    await invalid(
      `SELECT intAsBlob('abc') FROM ${KS}.t WHERE k = 40`,
      "Type error: 'abc' cannot be passed as argument 0 of function system.intasblob of type int",
    );
    await invalid(
      `SELECT intAsBlob(i, i) FROM ${KS}.t WHERE k = 40`,
      'Invalid number of arguments in call to function system.intasblob: 1 required but 2 provided',
    );
    // Several overloads: the candidates are listed (Cassandra lists them in hash order, hence the pattern).
    const toDateSignatures =
      /\(known type signatures: system\.todate : \((timeuuid|timestamp)\) -> date, system\.todate : \((timeuuid|timestamp)\) -> date\)$/;
    await invalid(
      `SELECT toDate(i) FROM ${KS}.t WHERE k = 40`,
      new RegExp(`^Invalid call to function todate, none of its type signatures match ${toDateSignatures.source}`),
    );
    await invalid(
      `SELECT toDate() FROM ${KS}.t WHERE k = 40`,
      new RegExp(`^Invalid call to function todate, none of its type signatures match ${toDateSignatures.source}`),
    );
    // A string fits both timestamp and date.
    await invalid(
      `SELECT toUnixTimestamp('2013-01-01') FROM ${KS}.t WHERE k = 40`,
      /^Ambiguous call to function tounixtimestamp \(can be matched by following signatures: system\.tounixtimestamp : \((timestamp|date)\) -> bigint, system\.tounixtimestamp : \((timestamp|date)\) -> bigint\): use type casts to disambiguate$/,
    );
    // In terms (INSERT values, WHERE).
    await invalid(`INSERT INTO ${KS}.t (k, i) VALUES (44, nosuch())`, 'Unknown function nosuch called');
    await invalid(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > minTimeuuid(1, 2)`,
      'Invalid number of arguments in call to function system.mintimeuuid: 1 required but 2 provided',
    );
    await invalid(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > minTimeuuid(now())`,
      'Type error: now() cannot be passed as argument 0 of function system.mintimeuuid of type timestamp',
    );
    await invalid(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > minTimeuuid(true)`,
      'Type error: true cannot be passed as argument 0 of function system.mintimeuuid of type timestamp',
    );
    // toDate returns a date, which a timeuuid column cannot take.
    await invalid(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > toDate(now())`,
      new RegExp(`^Invalid call to function todate, none of its type signatures match ${toDateSignatures.source}`),
    );
    await invalid(
      `SELECT v FROM ${KS}.events WHERE p = 1 AND c > minTimeuuid('nonsense')`,
      "Unable to coerce 'nonsense' to a formatted date (long)",
    );
  });

  it('a function result that the column cannot take is refused', async () => {
    await invalid(
      `INSERT INTO ${KS}.t (k, s) VALUES (45, now())`,
      'Type error: cannot assign result of function system.now (type timeuuid) to s (type text)',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('CAST', () => {
  beforeAll(async () => {
    await q(
      `INSERT INTO ${KS}.t (k, s, a, d, f, i, bi, si, ti, vi, de, bo, ip, u, tu, ts, dt, tm)
       VALUES (50, '12', 'asc', 3.99, 1.5, 7, 9000000000, -300, -5, 123456789012345678901234567890, 12.345, true,
               '127.0.0.1', 6ab09bec-e68e-48d9-a5f8-97e6fb4c9b47, 5f2e9b60-2b3a-11ee-8000-000000000000,
               '2023-07-26 10:20:30.456+0000', '2023-07-26', '12:30:00.5')`,
    );
    await q(`INSERT INTO ${KS}.t (k, d, f, ip) VALUES (51, -2.5e10, 1e20, '::1')`);
  });

  it('numeric casts follow Java: truncation, narrowing, decimals from the shortest repr', async () => {
    const r = await one(
      `SELECT CAST(d AS int) AS d_int, CAST(i AS double) AS i_double, CAST(d AS bigint) AS d_bigint,
              CAST(si AS tinyint) AS si_tinyint, CAST(bi AS int) AS bi_int, CAST(i AS decimal) AS i_decimal,
              CAST(d AS decimal) AS d_decimal, CAST(f AS decimal) AS f_decimal, CAST(de AS int) AS de_int,
              CAST(de AS double) AS de_double, CAST(vi AS bigint) AS vi_bigint, CAST(bi AS varint) AS bi_varint,
              CAST(ti AS smallint) AS ti_smallint, CAST(f AS double) AS f_double, CAST(d AS float) AS d_float
       FROM ${KS}.t WHERE k = 50`,
    );
    expect(r.d_int).toBe(3);
    expect(r.i_double).toBe(7);
    expect(String(r.d_bigint)).toBe('3');
    expect(r.si_tinyint).toBe(-44); // (byte) -300
    expect(r.bi_int).toBe(410065408); // (int) 9000000000
    expect(str(r.i_decimal)).toBe('7');
    expect(str(r.d_decimal)).toBe('3.99');
    expect(str(r.f_decimal)).toBe('1.5');
    expect(r.de_int).toBe(12);
    expect(r.de_double).toBe(12.345);
    expect(String(r.vi_bigint)).toBe(String(BigInt.asIntN(64, 123456789012345678901234567890n)));
    expect(String(r.bi_varint)).toBe('9000000000');
    expect(r.ti_smallint).toBe(-5);
    expect(r.f_double).toBe(1.5);
    expect(r.d_float).toBeCloseTo(3.99, 5);
    const big = await one(
      `SELECT CAST(d AS int) AS d_int, CAST(f AS int) AS f_int, CAST(f AS tinyint) AS f_tinyint,
              CAST(d AS decimal) AS d_decimal FROM ${KS}.t WHERE k = 51`,
    );
    expect(big.d_int).toBe(-2147483648); // saturates
    expect(big.f_int).toBe(2147483647);
    expect(big.f_tinyint).toBe(-1); // (byte) (int) 1e20f
    // BigDecimal.valueOf(-2.5E10) is -2.5E+10: unscaled -25, scale -9 (the driver cannot print negative scales).
    const expected = new types.BigDecimal(types.Integer.fromInt(-25), -9);
    expect((big.d_decimal as cassandra.types.BigDecimal).equals(expected)).toBe(true);
  });

  it('casts to text and ascii print the CQL form; time conversions; the column names', async () => {
    const rs = await q(
      `SELECT CAST(i AS text), CAST(d AS text), CAST(f AS ascii), CAST(bi AS text), CAST(de AS text),
              CAST(vi AS text), CAST(bo AS text), CAST(ip AS text), CAST(u AS text), CAST(tu AS text),
              CAST(ts AS text), CAST(dt AS text), CAST(tm AS text), CAST(a AS text),
              CAST(ts AS date), CAST(tu AS date), CAST(dt AS timestamp), CAST(tu AS timestamp)
       FROM ${KS}.t WHERE k = 50`,
    );
    const r = rs.rows[0]!;
    expect(rs.columns.map((c) => c.name).slice(0, 3)).toEqual([
      'cast(i as text)',
      'cast(d as text)',
      'cast(f as ascii)',
    ]);
    expect(r['cast(i as text)']).toBe('7');
    expect(r['cast(d as text)']).toBe('3.99');
    expect(r['cast(f as ascii)']).toBe('1.5');
    expect(r['cast(bi as text)']).toBe('9000000000');
    expect(r['cast(de as text)']).toBe('12.345');
    expect(r['cast(vi as text)']).toBe('123456789012345678901234567890');
    expect(r['cast(bo as text)']).toBe('true');
    expect(r['cast(ip as text)']).toBe('127.0.0.1');
    expect(r['cast(u as text)']).toBe('6ab09bec-e68e-48d9-a5f8-97e6fb4c9b47');
    expect(r['cast(tu as text)']).toBe('5f2e9b60-2b3a-11ee-8000-000000000000');
    expect(r['cast(ts as text)']).toBe('2023-07-26T10:20:30.456Z');
    expect(r['cast(dt as text)']).toBe('2023-07-26');
    expect(r['cast(tm as text)']).toBe('12:30:00.500000000');
    expect(r['cast(a as text)']).toBe('asc');
    expect(String(r['cast(ts as date)'])).toBe('2023-07-26');
    expect(String(r['cast(tu as date)'])).toBe('2023-07-25');
    expect((r['cast(dt as timestamp)'] as Date).toISOString()).toBe('2023-07-26T00:00:00.000Z');
    expect((r['cast(tu as timestamp)'] as Date).toISOString()).toBe('2023-07-25T22:27:00.005Z');
    // InetAddress.getHostAddress: IPv6 uncompressed; Double.toString switches to E notation.
    expect(
      await one(`SELECT CAST(ip AS text) AS ip, CAST(d AS text) AS d, CAST(f AS text) AS f FROM ${KS}.t WHERE k = 51`),
    ).toEqual({ ip: '0:0:0:0:0:0:0:1', d: '-2.5E10', f: '1.0E20' });
  });

  it('a cast to the same type is ignored, name included; an alias names any cast', async () => {
    const rs = await q(`SELECT CAST(i AS int), CAST(s AS text), CAST(i AS text) AS t FROM ${KS}.t WHERE k = 50`);
    expect(rs.columns.map((c) => c.name)).toEqual(['i', 's', 't']);
    expect({ ...rs.rows[0] }).toEqual({ i: 7, s: '12', t: '7' });
  });

  it('a null value casts to null', async () => {
    await q(`INSERT INTO ${KS}.t (k) VALUES (52)`);
    expect(
      await one(`SELECT CAST(i AS text) AS a, CAST(d AS int) AS b, CAST(ts AS date) AS c FROM ${KS}.t WHERE k = 52`),
    ).toEqual({
      a: null,
      b: null,
      c: null,
    });
  });

  it('invalid casts', async () => {
    // No cast function to the type at all: Selectable.WithCast names the column.
    await invalid(`SELECT CAST(i AS uuid) FROM ${KS}.t WHERE k = 50`, 'i cannot be cast to uuid');
    await invalid(`SELECT CAST(s AS blob) FROM ${KS}.t WHERE k = 50`, 's cannot be cast to blob');
    await invalid(`SELECT CAST(ts AS boolean) FROM ${KS}.t WHERE k = 50`, 'ts cannot be cast to boolean');
    // cast_as_<type> exists, but not from this type (the candidate list is in hash order in Cassandra).
    await invalid(
      `SELECT CAST(s AS int) FROM ${KS}.t WHERE k = 50`,
      /^Invalid call to function system\.cast_as_int, none of its type signatures match \(known type signatures: (system\.cast_as_int : \((tinyint|smallint|bigint|float|double|decimal|counter|varint)\) -> int(, |\)$)){8}/,
    );
    await invalid(
      `SELECT CAST(dt AS int) FROM ${KS}.t WHERE k = 50`,
      /^Invalid call to function system\.cast_as_int, none of its type signatures match/,
    );
    await invalid(
      `SELECT CAST(i AS date) FROM ${KS}.t WHERE k = 50`,
      /^Invalid call to function system\.cast_as_date, none of its type signatures match \(known type signatures: system\.cast_as_date : \((timeuuid|timestamp)\) -> date, system\.cast_as_date : \((timeuuid|timestamp)\) -> date\)$/,
    );
    // There is no text -> ascii cast (only ascii -> text).
    await invalid(
      `SELECT CAST(s AS ascii) FROM ${KS}.t WHERE k = 50`,
      /^Invalid call to function system\.cast_as_ascii, none of its type signatures match/,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('clustering order of native types', () => {
  /** Creates `table` with clustering column c of `type`, inserts the values shuffled, returns c in read order. */
  async function order(table: string, type: string, literals: readonly string[], desc = false) {
    await q(
      `CREATE TABLE ${KS}.${table} (p int, c ${type}, PRIMARY KEY (p, c))${desc ? ' WITH CLUSTERING ORDER BY (c DESC)' : ''}`,
    );
    const shuffled = literals.map((l, i) => [l, (i * 7919) % 13] as const).sort((x, y) => x[1] - y[1]);
    await insertAll(
      table,
      shuffled.map(([l]) => l),
    );
    return await column(`SELECT c FROM ${KS}.${table} WHERE p = 1`);
  }
  const strings = (vs: unknown[]) => vs.map((v) => (Buffer.isBuffer(v) ? `0x${v.toString('hex')}` : String(v)));

  it('text and ascii: UTF-8 byte order', async () => {
    const text = ["'b'", "'B'", "'é'", "'a'", "''", "'ab'", "'z'", "'Z0'", "'日本'", "'~'"];
    expect(await order('o_text', 'text', text)).toEqual(['', 'B', 'Z0', 'a', 'ab', 'b', 'z', '~', 'é', '日本']);
    expect(await order('o_ascii', 'ascii', ["'b'", "'B'", "'a'", "''", "'~'", "' '", "'0'"])).toEqual([
      '',
      ' ',
      '0',
      'B',
      'a',
      'b',
      '~',
    ]);
  });

  it('integers: bigint, int, smallint, tinyint, varint (signed, numeric)', async () => {
    expect(
      strings(
        await order('o_bigint', 'bigint', ['0', '-1', '9223372036854775807', '-9223372036854775808', '256', '1']),
      ),
    ).toEqual(['-9223372036854775808', '-1', '0', '1', '256', '9223372036854775807']);
    expect(await order('o_int', 'int', ['0', '-1', '2147483647', '-2147483648', '255', '-256'])).toEqual([
      -2147483648, -256, -1, 0, 255, 2147483647,
    ]);
    expect(await order('o_smallint', 'smallint', ['0', '-1', '32767', '-32768', '255', '256'])).toEqual([
      -32768, -1, 0, 255, 256, 32767,
    ]);
    expect(await order('o_tinyint', 'tinyint', ['0', '-1', '127', '-128', '1'])).toEqual([-128, -1, 0, 1, 127]);
    expect(
      strings(
        await order('o_varint', 'varint', [
          '123456789012345678901234567890',
          '-123456789012345678901234567890',
          '0',
          '255',
          '-1',
          '128',
          '-129',
        ]),
      ),
    ).toEqual(['-123456789012345678901234567890', '-129', '-1', '0', '128', '255', '123456789012345678901234567890']);
  });

  it('decimal: numeric order across scales', async () => {
    expect(
      strings(await order('o_decimal', 'decimal', ['10', '9.99', '-0.5', '1000', '-100', '0.001', '1.5'])),
    ).toEqual(['-100', '-0.5', '0.001', '1.5', '9.99', '10', '1000']);
  });

  it('double and float: Double.compare / Float.compare (-0.0 before 0.0, NaN last), DESC reversed', async () => {
    const dbl = await order('o_double', 'double', [
      'NaN',
      '-Infinity',
      'Infinity',
      '-0.0',
      '0.0',
      '-1.5',
      '2.5e10',
      '-1e300',
      '4.9e-324',
    ]);
    expect(dbl.map((v) => (Object.is(v, -0) ? '-0' : String(v)))).toEqual([
      '-Infinity',
      '-1e+300',
      '-1.5',
      '-0',
      '0',
      '5e-324',
      '25000000000',
      'Infinity',
      'NaN',
    ]);
    expect(await order('o_float', 'float', ['NaN', '-Infinity', '1.5', '-2.25', 'Infinity', '0'], true)).toEqual([
      Number.NaN,
      Infinity,
      1.5,
      0,
      -2.25,
      -Infinity,
    ]);
  });

  it('blob: unsigned bytes, a prefix first (DESC too)', async () => {
    const asc = ['0x', '0x00', '0xff', '0x0001', '0x80', '0x7fff', '0x0000'];
    expect(strings(await order('o_blob', 'blob', asc))).toEqual([
      '0x',
      '0x00',
      '0x0000',
      '0x0001',
      '0x7fff',
      '0x80',
      '0xff',
    ]);
    expect(strings(await order('o_blob_desc', 'blob', asc, true))).toEqual([
      '0xff',
      '0x80',
      '0x7fff',
      '0x0001',
      '0x0000',
      '0x00',
      '0x',
    ]);
  });

  it('boolean, date, time and timestamp', async () => {
    expect(await order('o_boolean', 'boolean', ['true', 'false'])).toEqual([false, true]);
    expect(
      strings(
        await order('o_date', 'date', ["'1970-01-01'", "'1969-12-31'", "'2024-02-29'", "'0001-01-01'", "'9999-12-31'"]),
      ),
    ).toEqual(['0001-01-01', '1969-12-31', '1970-01-01', '2024-02-29', '9999-12-31']);
    expect(
      strings(await order('o_time', 'time', ["'23:59:59.999999999'", "'00:00:00'", "'12:30:00.5'", '1', "'12:29:59'"])),
    ).toEqual(['00:00:00', '00:00:00.000000001', '12:29:59', '12:30:00.5', '23:59:59.999999999']);
    const ts = await order(
      'o_timestamp',
      'timestamp',
      [
        "'1969-12-31 23:59:59.999+0000'",
        '0',
        "'2024-01-01T00:00:00Z'",
        '-62135596800000',
        "'2024-01-01 00:00:00.001+0000'",
      ],
      true,
    );
    expect((ts as Date[]).map((d) => d.toISOString())).toEqual([
      '2024-01-01T00:00:00.001Z',
      '2024-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00.000Z',
    ]);
  });

  it('uuid: by version, v1 by time then unsigned bytes; other versions by unsigned bytes', async () => {
    const uuids = await order('o_uuid', 'uuid', [
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
      '00000000-0000-4000-8000-000000000000',
      '00000000-0000-1000-8000-000000000000',
      'ffffffff-0000-1000-8000-000000000000',
      '00000000-0001-1000-8000-000000000000',
      '00000000-0000-1001-8000-000000000000',
      '00000000-0000-1000-0000-000000000000',
      '80000000-0000-3000-8000-000000000000',
      '00000000-0000-0000-0000-000000000000',
    ]);
    expect(strings(uuids)).toEqual([
      '00000000-0000-0000-0000-000000000000', // version 0
      '00000000-0000-1000-0000-000000000000', // version 1, time 0, low bytes unsigned: 00 < 80
      '00000000-0000-1000-8000-000000000000',
      'ffffffff-0000-1000-8000-000000000000', // time_low ffffffff < time_mid 1
      '00000000-0001-1000-8000-000000000000',
      '00000000-0000-1001-8000-000000000000', // time_hi 1: the latest
      '80000000-0000-3000-8000-000000000000', // version 3
      '00000000-0000-4000-8000-000000000000', // version 4
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
    ]);
  });

  it('timeuuid: by time, then the low bytes as signed bytes', async () => {
    const tus = await order('o_timeuuid', 'timeuuid', [
      '00000000-0000-1000-0000-000000000000',
      '00000000-0000-1000-7f00-000000000000',
      '00000000-0000-1000-8000-000000000000',
      '00000000-0000-1000-ff00-000000000000',
      '00000000-0000-1000-0080-000000000000',
      '00000001-0000-1000-8000-000000000000',
      'ffffffff-ffff-1fff-8000-000000000000',
    ]);
    expect(strings(tus)).toEqual([
      '00000000-0000-1000-8000-000000000000', // -128
      '00000000-0000-1000-ff00-000000000000', // -1
      '00000000-0000-1000-0080-000000000000', // 0, -128
      '00000000-0000-1000-0000-000000000000',
      '00000000-0000-1000-7f00-000000000000', // 127
      '00000001-0000-1000-8000-000000000000',
      'ffffffff-ffff-1fff-8000-000000000000',
    ]);
    await invalid(
      `INSERT INTO ${KS}.o_timeuuid (p, c) VALUES (1, 00000000-0000-4000-8000-000000000000)`,
      'TimeUUID supports only version 1 UUIDs',
    );
  });

  it('inet: unsigned bytes, so an IPv4 address sorts among IPv6 ones by its first byte', async () => {
    const inets = await order('o_inet', 'inet', [
      "'::1'",
      "'10.0.0.1'",
      "'255.255.255.255'",
      "'1.2.3.4'",
      "'::'",
      "'fe80::1'",
      "'0.0.0.0'",
    ]);
    expect(strings(inets)).toEqual(['0.0.0.0', '::', '::1', '1.2.3.4', '10.0.0.1', 'fe80::1', '255.255.255.255']);
  });

  it('several clustering columns with mixed orders, read both ways', async () => {
    await q(
      `CREATE TABLE ${KS}.o_mixed (p int, a text, b int, c timeuuid, PRIMARY KEY (p, a, b, c))
       WITH CLUSTERING ORDER BY (a ASC, b DESC, c ASC)`,
    );
    const values = [
      ["'y'", 1, '00000000-0000-1000-8000-000000000000'],
      ["'x'", 2, '00000000-0000-1000-8000-000000000000'],
      ["'x'", 1, '00000001-0000-1000-8000-000000000000'],
      ["'x'", 1, '00000000-0000-1000-8000-000000000000'],
      ["'y'", 3, '00000000-0000-1000-8000-000000000000'],
    ] as const;
    for (const [a, b, c] of values) await q(`INSERT INTO ${KS}.o_mixed (p, a, b, c) VALUES (1, ${a}, ${b}, ${c})`);
    const read = async (order = '') =>
      (await rows(`SELECT a, b, c FROM ${KS}.o_mixed WHERE p = 1 ${order}`)).map(
        (r) => `${r.a}${r.b}${String(r.c).slice(7, 8)}`,
      );
    expect(await read()).toEqual(['x20', 'x10', 'x11', 'y30', 'y10']);
    expect(await read('ORDER BY a DESC, b ASC, c DESC')).toEqual(['y10', 'y30', 'x11', 'x10', 'x20']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('syntax errors through the driver', () => {
  const cases: [string, string][] = [
    ['SELEC * FROM fnlit.t', "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)"],
    ['SELECT * FRM fnlit.t', "line 1:9 mismatched input 'FRM' expecting K_FROM (SELECT * [FRM]...)"],
    ['SELECT * FROM fnlit.t WHERE k = 1 x', "line 1:34 mismatched input 'x' expecting EOF (...t WHERE k = 1 [x])"],
    ['SELECT k, FROM fnlit.t', "line 1:10 no viable alternative at input 'FROM' (SELECT k, [FROM]...)"],
    [
      "INSERT INTO fnlit.t (k, s) VALUE (1, 'a')",
      "line 1:27 mismatched input 'VALUE' expecting K_VALUES (....t (k, s) [VALUE]...)",
    ],
    ['SELECT * FROM fnlit.t WHERE k = 1 AND', "line 0:-1 no viable alternative at input '<EOF>'"],
    [
      'SELECT * FROM fnlit.t WHERE k = 1; SELECT 1',
      "line 1:35 mismatched input 'SELECT' expecting EOF (... WHERE k = 1; [SELECT]...)",
    ],
    ['SELECT * FROM fnlit.t WHERE k # 1', "line 1:30 no viable alternative at character '#'"],
  ];

  it.each(cases)('%s', async (query, message) => {
    await expectError(q(query), CODE.syntax, message);
  });

  it('the same errors when preparing', async () => {
    await expectError(
      q('SELECT * FRM fnlit.t WHERE k = ?', [1], { prepare: true }),
      CODE.syntax,
      "line 1:9 mismatched input 'FRM' expecting K_FROM (SELECT * [FRM]...)",
    );
  });

  it('positions count lines and columns of multi-line statements', async () => {
    await expectError(
      q('SELECT *\n  FROM fnlit.t\n  WHERE k = 1\n  LIMIT x'),
      CODE.syntax,
      // intValue has alternatives (INTEGER, :name, ?); ErrorCollector joins the snippet's lines as they are.
      "line 4:8 no viable alternative at input 'x' (...WHERE k = 1  LIMIT [x])",
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('restriction errors with their messages', () => {
  beforeAll(async () => {
    await q(`CREATE TABLE ${KS}.r (k int, c int, v int, PRIMARY KEY (k, c))`);
    await q(`CREATE TABLE ${KS}.pk2 (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d))`);
    await q(`INSERT INTO ${KS}.pk2 (a, b, c, d, v) VALUES (1, 2, 3, 4, 5)`);
    await q(`INSERT INTO ${KS}.pk2 (a, b, c, d, v) VALUES (1, 2, 3, 5, 6)`);
  });

  it('LIMIT must be strictly positive, literal or bound', async () => {
    await invalid(`SELECT * FROM ${KS}.r LIMIT 0`, 'LIMIT must be strictly positive');
    await invalid(`SELECT * FROM ${KS}.r LIMIT -1`, 'LIMIT must be strictly positive');
    await expectError(
      q(`SELECT * FROM ${KS}.r WHERE k = 1 LIMIT ?`, [0], { prepare: true }),
      CODE.invalid,
      'LIMIT must be strictly positive',
    );
    await invalid(`SELECT * FROM ${KS}.r LIMIT 2147483648`, "Unable to make int from '2147483648'");
  });

  // SelectStatement.getLimit serves both limits with one message.
  it('PER PARTITION LIMIT 0 has the same message as LIMIT 0', async () => {
    await invalid(`SELECT * FROM ${KS}.r PER PARTITION LIMIT 0`, 'LIMIT must be strictly positive');
  });

  it('DISTINCT on other than the partition key, or on part of it', async () => {
    await invalid(
      `SELECT DISTINCT c FROM ${KS}.r`,
      'SELECT DISTINCT queries must only request partition key columns and/or static columns (not c)',
    );
    await invalid(
      `SELECT DISTINCT k, v FROM ${KS}.r`,
      'SELECT DISTINCT queries must only request partition key columns and/or static columns (not v)',
    );
    await invalid(
      `SELECT DISTINCT a FROM ${KS}.pk2`,
      'SELECT DISTINCT queries must request all the partition key columns (missing b)',
    );
  });

  // SelectStatement.validateDistinctSelection asks for the whole partition key only in a key range query.
  it('DISTINCT may select part of the partition key when all of it is restricted', async () => {
    expect(await rows(`SELECT DISTINCT a FROM ${KS}.pk2 WHERE a = 1 AND b = 2`)).toEqual([
      expect.objectContaining({ a: 1 }),
    ]);
    expect(await column(`SELECT DISTINCT b FROM ${KS}.pk2 WHERE a = 1 AND b IN (2, 7)`, 'b')).toEqual([2]);
    // A key range still needs it: a partial partition key (ALLOW FILTERING) or a token range.
    await invalid(
      `SELECT DISTINCT a FROM ${KS}.pk2 WHERE a = 1 ALLOW FILTERING`,
      'SELECT DISTINCT queries must request all the partition key columns (missing b)',
    );
    await invalid(
      `SELECT DISTINCT a FROM ${KS}.pk2 WHERE token(a, b) > 0`,
      'SELECT DISTINCT queries must request all the partition key columns (missing b)',
    );
    await invalid(
      `SELECT DISTINCT a FROM ${KS}.pk2 WHERE a = 1 AND b = 2 AND c = 3`,
      'SELECT DISTINCT with WHERE clause only supports restriction by partition key and/or static columns.',
    );
    await invalid(
      `SELECT DISTINCT a, b FROM ${KS}.pk2 PER PARTITION LIMIT 1`,
      'PER PARTITION LIMIT is not allowed with SELECT DISTINCT queries',
    );
  });

  it('ORDER BY errors', async () => {
    await invalid(
      `SELECT c FROM ${KS}.r ORDER BY c DESC`,
      'ORDER BY is only supported when the partition key is restricted by an EQ or an IN.',
    );
    await invalid(
      `SELECT c FROM ${KS}.r WHERE k = 1 ORDER BY v DESC`,
      'Order by is currently only supported on the clustered columns of the PRIMARY KEY, got v',
    );
    await invalid(
      `SELECT c FROM ${KS}.r WHERE k = 1 ORDER BY k DESC`,
      'Order by is currently only supported on the clustered columns of the PRIMARY KEY, got k',
    );
    await invalid(
      `SELECT c FROM ${KS}.pk2 WHERE a = 1 AND b = 2 ORDER BY d DESC`,
      'Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY',
    );
    await invalid(
      `SELECT c FROM ${KS}.pk2 WHERE a = 1 AND b = 2 ORDER BY c DESC, d ASC`,
      'Unsupported order by relation',
    );
  });

  // SelectStatement.RawStatement.isReversed: ordered columns follow the clustering order, skipping only columns
  // restricted by = (StatementRestrictions.isColumnRestrictedByEq: not IN, not a slice).
  it('ORDER BY may skip a clustering column fixed by =', async () => {
    await q(`CREATE TABLE ${KS}.ob (k int, c1 int, c2 int, c3 int, PRIMARY KEY (k, c1, c2, c3))`);
    for (const k of [0, 1])
      for (const c1 of [0, 1])
        for (const c2 of [0, 1, 2])
          for (const c3 of [0, 1])
            await q(`INSERT INTO ${KS}.ob (k, c1, c2, c3) VALUES (?, ?, ?, ?)`, [k, c1, c2, c3], { prepare: true });
    const pairs = async (query: string, options: cassandra.QueryOptions = {}) =>
      (await rows(query, [], options)).map((r) => [r.c2, r.c3]);
    expect(await column(`SELECT d FROM ${KS}.pk2 WHERE a = 1 AND b = 2 AND c = 3 ORDER BY d DESC`, 'd')).toEqual([
      5, 4,
    ]);
    const desc = [
      [2, 1],
      [2, 0],
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ];
    expect(await pairs(`SELECT c2, c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 DESC`)).toEqual(desc);
    expect(await pairs(`SELECT c2, c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 DESC, c3 DESC`)).toEqual(desc);
    expect(await pairs(`SELECT c2, c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 ASC LIMIT 3`)).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(await column(`SELECT c3 FROM ${KS}.ob WHERE k = 0 AND (c1, c2) = (1, 2) ORDER BY c3 DESC`, 'c3')).toEqual([
      1, 0,
    ]);
    // Paged: every page continues in the reversed order, and LIMIT still ends the query.
    const pages = async (query: string, fetchSize: number) => {
      const out: number[][] = [];
      let pageState: string | undefined;
      let n = 0;
      do {
        const r = await q(query, [], { fetchSize, pageState });
        out.push(...r.rows.map((x) => [x.c2, x.c3]));
        pageState = r.pageState;
        n++;
      } while (pageState && n < 20);
      return { out, n };
    };
    expect(await pages(`SELECT c2, c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 DESC`, 4)).toEqual({
      out: desc,
      n: 2,
    });
    expect((await pages(`SELECT c2, c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 DESC LIMIT 5`, 2)).out).toEqual(
      desc.slice(0, 5),
    );
    // IN on the partition key (paging off): sorted by the ordered column only, ties in partition order.
    const inRows = await rows(
      `SELECT k, c2, c3 FROM ${KS}.ob WHERE k IN (0, 1) AND c1 = 1 ORDER BY c2 DESC LIMIT 6`,
      [],
      {
        autoPage: false,
        fetchSize: 0,
      } as cassandra.QueryOptions,
    );
    const firstK = inRows[0]!.k as number;
    expect(inRows.map((r) => [r.k, r.c2, r.c3])).toEqual([
      [firstK, 2, 1],
      [firstK, 2, 0],
      [1 - firstK, 2, 1],
      [1 - firstK, 2, 0],
      [firstK, 1, 1],
      [firstK, 1, 0],
    ]);
    // Still refused: a skipped column not fixed by =, columns out of order, mixed directions.
    const declared =
      'Order by currently only supports the ordering of columns following their declared order in the PRIMARY KEY';
    await invalid(`SELECT c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c3 DESC`, declared);
    await invalid(`SELECT c3 FROM ${KS}.ob WHERE k = 0 AND c1 IN (1) ORDER BY c2 DESC`, declared);
    await invalid(`SELECT c3 FROM ${KS}.ob WHERE k = 0 AND c1 > 0 ORDER BY c2 DESC`, declared);
    await invalid(`SELECT c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c3 DESC, c2 DESC`, declared);
    await invalid(
      `SELECT c3 FROM ${KS}.ob WHERE k = 0 AND c1 = 1 ORDER BY c2 DESC, c3 ASC`,
      'Unsupported order by relation',
    );
  });

  it('restricting part of a composite partition key, or skipping a clustering column', async () => {
    await invalid(`SELECT v FROM ${KS}.pk2 WHERE a = 1`, FILTERING_MESSAGE);
    await invalid(`SELECT v FROM ${KS}.pk2 WHERE b = 2`, FILTERING_MESSAGE);
    expect(await column(`SELECT v FROM ${KS}.pk2 WHERE a = 1 ALLOW FILTERING`, 'v')).toEqual([5, 6]);
    await invalid(
      `SELECT v FROM ${KS}.pk2 WHERE a = 1 AND b = 2 AND d = 4`,
      'PRIMARY KEY column "d" cannot be restricted as preceding column "c" is not restricted',
    );
  });

  it('TTL out of range', async () => {
    await invalid(
      `INSERT INTO ${KS}.r (k, c, v) VALUES (1, 1, 1) USING TTL -1`,
      'A TTL must be greater or equal to 0, but was -1',
    );
    await invalid(
      `UPDATE ${KS}.r USING TTL -5 SET v = 1 WHERE k = 1 AND c = 1`,
      'A TTL must be greater or equal to 0, but was -5',
    );
    await expectError(
      q(`INSERT INTO ${KS}.r (k, c, v) VALUES (1, 1, 1) USING TTL ?`, [-2], { prepare: true }),
      CODE.invalid,
      'A TTL must be greater or equal to 0, but was -2',
    );
    await invalid(
      `INSERT INTO ${KS}.r (k, c, v) VALUES (1, 1, 1) USING TTL 630720001`,
      'ttl is too large. requested (630720001) maximum (630720000)',
    );
  });
});
