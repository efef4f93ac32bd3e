// Bad values against the real server, through raw frames and the npm cassandra-driver: wrong-length
// fixed-size values, invalid UTF-8/ASCII, out-of-range dates and times, huge varints, bad and
// deeply nested collections, malformed tuples/durations. Each is an InvalidRequest (or a
// SyntaxError for an unparsable literal) answered before storage is touched: the row is
// byte-for-byte unchanged afterwards, batches are all-or-nothing, and the server logs no error.
import cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalToBytes } from '../cql/types/decimal-text.js';
import { mutate, queryParams } from './support/fuzz-harness.js';
import { int, longStr, Op, parseError, parseRows, RawClient, short } from './support/fuzz-wire.js';
import { type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let raw: RawClient;
let driver: cassandra.Client;
let stream = 1;

const TABLE = 'rb.t';
const COLUMNS = 'k, c, i, b, s, txt, a, d, tm, ts, u, tu, vi, de, bl, l, st, tup, dur, m';

beforeAll(async () => {
  server = await startServer();
  raw = await RawClient.ready(server.host, server.port);
  await ok("CREATE KEYSPACE rb WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await ok(
    `CREATE TABLE ${TABLE} (k int, c decimal, i int, b bigint, s smallint, txt text, a ascii, d date, tm time,
      ts timestamp, u uuid, tu timeuuid, vi varint, de decimal, bl blob,
      l frozen<list<frozen<list<frozen<map<int, text>>>>>>, st set<text>, tup frozen<tuple<int, text>>,
      dur duration, m map<text, frozen<list<int>>>, PRIMARY KEY (k, c))`,
  );
  await ok(
    `INSERT INTO ${TABLE} (${COLUMNS}) VALUES (1, 1.5, 7, 8, 9, 'héllo', 'ascii', '2024-02-29', '12:34:56.789',
      '2024-01-01 00:00:00+0000', 123e4567-e89b-12d3-a456-426614174000, 50554d6e-29bb-11e5-b345-feff819cdc9f,
      123456789012345678901234567890, -0.000123, 0xcafe, [[{1: 'a', 2: 'b'}], []], {'x', 'y'}, (1, 'one'),
      1h2m3s, {'k': [1, 2, 3]})`,
  );
  driver = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
  });
  await driver.connect();
}, 60_000);

afterAll(async () => {
  await driver?.shutdown();
  raw?.close();
  await server?.stop();
});

async function query(cql: string, values: Buffer[] = []): Promise<{ opcode: number; body: Buffer }> {
  return await raw.query(stream++, cql, values);
}

async function ok(cql: string, values: Buffer[] = []): Promise<Buffer> {
  const f = await query(cql, values);
  if (f.opcode === Op.ERROR) throw new Error(`${cql}: ${JSON.stringify(parseError(f.body))}`);
  return f.body;
}

async function rejected(cql: string, values: Buffer[] = [], codes = [0x2200]): Promise<string> {
  const f = await query(cql, values);
  expect(f.opcode, cql).toBe(Op.ERROR);
  const e = parseError(f.body);
  expect(codes, `${cql} -> ${e.code.toString(16)} ${e.message}`).toContain(e.code);
  return e.message;
}

async function row(k: number): Promise<(Buffer | null)[][]> {
  // Only the row under test (mutated requests may write others).
  return parseRows(await ok(`SELECT ${COLUMNS} FROM ${TABLE} WHERE k = ${k} AND c = 1.5`)).rows;
}

const b = (...bytes: number[]) => Buffer.from(bytes);
const i32 = (n: number) => int(n);
/** A collection value: count then [int length][bytes] parts. */
const coll = (count: number, ...parts: Buffer[]) =>
  Buffer.concat([i32(count), ...parts.flatMap((p) => [i32(p.length), p])]);

/** [column, bad value, expected message (substring)]. */
const BAD: [string, Buffer, string][] = [
  ['i', b(1, 2, 3), 'Expected 4 or 0 byte int (3)'],
  ['i', Buffer.alloc(5), 'Expected 4 or 0 byte int (5)'],
  ['i', Buffer.alloc(1 << 20), 'Expected 4 or 0 byte int (1048576)'],
  ['b', b(1, 2, 3, 4), 'Expected 8 or 0 byte long (4)'],
  ['s', b(1), 'Expected 2 bytes for a smallint (1)'],
  ['txt', b(0x68, 0xff, 0x69), "String didn't validate."],
  ['txt', b(0x80), "String didn't validate."],
  ['txt', b(0xed, 0xa0), "String didn't validate."],
  ['a', b(0x61, 0xc3, 0xa9), 'Invalid byte for ascii: -61'],
  ['d', b(0, 0, 1), 'Expected 4 byte long for date (3)'],
  ['d', Buffer.alloc(8), 'Expected 4 byte long for date (8)'],
  ['tm', b(1, 2, 3, 4), 'Expected 8 byte long for time (4)'],
  ['ts', Buffer.alloc(7), 'Expected 8 or 0 byte long for date (7)'],
  ['u', Buffer.alloc(15), 'UUID should be 16 or 0 bytes (15)'],
  ['tu', Buffer.from('123e4567e89b42d3a456426614174000', 'hex'), 'Invalid version for TimeUUID type.'],
  ['de', b(0, 0), 'Expected 0 or at least 4 bytes (2)'],
  ['dur', b(2), 'Expected at least 3 bytes for a duration (1)'],
  ['dur', b(2, 1, 2), 'must be all of the same sign'],
  // Collections: truncated, negative (null) element, trailing bytes, bad bytes three levels deep.
  ['l', b(0, 0, 0, 1, 0, 0), 'Not enough bytes to read a list'],
  ['l', coll(1, coll(1, Buffer.concat([i32(1), i32(4), i32(1), i32(-1)]))), 'null is not supported inside collections'],
  ['l', Buffer.concat([coll(0), b(0)]), 'Unexpected extraneous bytes after list value'],
  ['l', coll(1, coll(1, coll(1, i32(1), b(0xc3, 0x28)))), "String didn't validate."],
  ['l', coll(0x7fffffff), 'Not enough bytes to read a list'],
  ['st', coll(1, b(0xfe)), "String didn't validate."],
  ['m', coll(1, Buffer.from('k'), coll(1, b(1, 2))), 'Expected 4 or 0 byte int (2)'],
  ['tup', Buffer.concat([i32(4), i32(1), i32(1), b(0x61), b(9)]), 'Invalid remaining data after end of tuple value'],
  ['tup', Buffer.concat([i32(3), b(1, 2, 3)]), 'Expected 4 or 0 byte int (3)'],
];

describe('bad values are InvalidRequest and never reach storage', () => {
  it('bound through raw QUERY, PREPARE/EXECUTE and BATCH frames', async () => {
    const before = await row(1);
    expect(before).toHaveLength(1);
    for (const [col, value, message] of BAD) {
      // Plain QUERY with a bound value.
      expect(await rejected(`UPDATE ${TABLE} SET ${col} = ? WHERE k = 1 AND c = 1.5`, [value])).toContain(message);
      // INSERT of a whole row where only that column is bad.
      expect(
        await rejected(`INSERT INTO ${TABLE} (k, c, i, ${col === 'i' ? 'b' : col}) VALUES (1, 1.5, 99, ?)`, [
          col === 'i' ? b(1, 2, 3) : value,
        ]),
      ).toBeTruthy();
    }
    // Prepared: EXECUTE with a bad value.
    const prepared = await raw.request(
      4,
      stream++,
      Op.PREPARE,
      longStr(`UPDATE ${TABLE} SET i = ?, txt = ? WHERE k = 1 AND c = 1.5`),
    );
    expect(prepared.opcode).toBe(Op.RESULT);
    const id = prepared.body.subarray(6, 6 + prepared.body.readUInt16BE(4));
    const execBody = (vals: Buffer[]) =>
      Buffer.concat([
        short(id.length),
        id,
        short(1),
        b(0x01),
        short(vals.length),
        ...vals.flatMap((v) => [i32(v.length), v]),
      ]);
    let f = await raw.request(4, stream++, Op.EXECUTE, execBody([i32(100), b(0xff)]));
    expect(parseError(f.body)).toMatchObject({
      code: 0x2200,
      message: expect.stringContaining("String didn't validate."),
    });
    // BATCH: the first statement is fine, the second has a bad value: nothing is applied.
    const batch = Buffer.concat([
      b(0),
      short(2),
      b(0),
      longStr(`UPDATE ${TABLE} SET i = ? WHERE k = 1 AND c = 1.5`),
      short(1),
      i32(4),
      i32(12345),
      b(0),
      longStr(`UPDATE ${TABLE} SET d = ? WHERE k = 1 AND c = 1.5`),
      short(1),
      i32(3),
      b(1, 2, 3),
      short(1),
      b(0),
    ]);
    f = await raw.request(4, stream++, Op.BATCH, batch);
    expect(parseError(f.body)).toMatchObject({
      code: 0x2200,
      message: expect.stringContaining('Expected 4 byte long for date (3)'),
    });
    expect(await row(1)).toEqual(before);
  });

  it('as literals: out-of-range numbers, dates, times, timestamps; deep nesting; bad JSON', async () => {
    const before = await row(1);
    const deep = 5000;
    const cases: [string, number[]][] = [
      [`UPDATE ${TABLE} SET i = 12345678901234567890 WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET s = 40000 WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET d = '10000000-01-01' WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET d = '-5877642-01-01' WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET d = 4294967296 WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET d = '2023-02-29' WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET tm = '24:00:00' WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET ts = 9223372036854775808 WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET dur = 9223372036854775807y WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET a = 'é' WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET tu = 123e4567-e89b-42d3-a456-426614174000 WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET l = [[{1: 'a', 'x': 'b'}]] WHERE k = 1 AND c = 1.5`, [0x2200]],
      [`UPDATE ${TABLE} SET l = ${'['.repeat(deep)}${']'.repeat(deep)} WHERE k = 1 AND c = 1.5`, [0x2000, 0x2200]],
      [`UPDATE ${TABLE} SET i = ${'('.repeat(deep)}1${')'.repeat(deep)} WHERE k = 1 AND c = 1.5`, [0x2000, 0x2200]],
      [`INSERT INTO ${TABLE} JSON '{"k": 1, "c": 1.5, "l": ${'['.repeat(deep)}${']'.repeat(deep)}}'`, [0x2200]],
      [`INSERT INTO ${TABLE} JSON '{"k": 1, "c": 1.5, "i": 1e10}'`, [0x2200]],
      [`INSERT INTO ${TABLE} JSON '{"k": 1, "c": 1.5, "txt": "\\ud800"'`, [0x2200]],
      [`UPDATE ${TABLE} SET vi = 1${'0'.repeat(10)}, i = 1${'0'.repeat(100_000)} WHERE k = 1 AND c = 1.5`, [0x2200]],
    ];
    for (const [cql, codes] of cases) await rejected(cql, [], codes);
    expect(await row(1)).toEqual(before);
  });

  it('through the cassandra-driver (unprepared, a Buffer where the column wants another type)', async () => {
    const before = await row(1);
    for (const [col, value] of [
      ['i', b(1, 2, 3)],
      ['txt', b(0xff, 0xfe)],
      ['d', b(1)],
      ['st', coll(1, b(0xc0, 0x41))],
    ] as const) {
      const err = await driver
        .execute(`UPDATE ${TABLE} SET ${col} = ? WHERE k = 1 AND c = 1.5`, [value], { prepare: false })
        .then(
          () => undefined,
          (e: { code?: number }) => e,
        );
      expect(err?.code, col).toBe(0x2200);
    }
    // A prepared statement: the driver refuses what it can type-check, the server the rest.
    const err = await driver
      .execute(`UPDATE ${TABLE} SET txt = ? WHERE k = 1 AND c = 1.5`, [b(0xff)], { prepare: true })
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(err).toBeInstanceOf(Error);
    expect(await row(1)).toEqual(before);
  });

  it('a key component over 65,535 bytes is an InvalidRequest, as in Cassandra', async () => {
    await driver.execute('CREATE TABLE rb.keys (k blob, c varint, v int, PRIMARY KEY (k, c))');
    const big = Buffer.alloc(70_000, 1);
    const cases: [string, unknown[]][] = [
      ['INSERT INTO rb.keys (k, c, v) VALUES (?, 1, 1)', [big]],
      ['INSERT INTO rb.keys (k, c, v) VALUES (0x01, ?, 1)', [big]],
      ['UPDATE rb.keys SET v = 2 WHERE k = 0x01 AND c = ?', [big]],
      ['DELETE FROM rb.keys WHERE k = ? AND c = 1', [big]],
    ];
    for (const [q, params] of cases) {
      const err = await driver.execute(q, params, { prepare: true }).then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
      expect([q, err?.code, err?.message]).toEqual([q, 0x2200, 'Key length of 70000 is longer than maximum of 65535']);
    }
    expect((await driver.execute('SELECT * FROM rb.keys')).rows).toHaveLength(0);
  });

  it('huge but valid values are stored quickly; a decimal key with scale -2^31 reads back', async () => {
    // A 1 MiB varint bound value and a 100,000-digit literal (F1: this used to block for minutes).
    const huge = Buffer.alloc(1 << 20, 0x5a);
    let t0 = performance.now();
    await ok(`INSERT INTO ${TABLE} (k, c, vi) VALUES (2, 0, ?)`, [huge]);
    await ok(`INSERT INTO ${TABLE} (k, c, vi) VALUES (2, 1, 9${'0'.repeat(100_000)})`);
    expect(performance.now() - t0).toBeLessThan(10_000);
    t0 = performance.now();
    const rows = parseRows(await ok(`SELECT vi FROM ${TABLE} WHERE k = 2`)).rows;
    expect(rows[0]![0]!.equals(huge)).toBe(true);
    expect(rows[1]![0]!.length).toBeGreaterThan(41_000);
    // F3: the clustering key decimal 12300E+2147483648 (scale -2^31, trailing zeros).
    const key = decimalToBytes({ unscaled: 12_300n, scale: -0x80000000 });
    await ok(`INSERT INTO ${TABLE} (k, c, i) VALUES (3, ?, 1)`, [key]);
    const back = parseRows(await ok(`SELECT c, i FROM ${TABLE} WHERE k = 3`)).rows;
    expect(back).toHaveLength(1);
    expect(back[0]![1]).toEqual(i32(1));
    // Nothing reached a catch-all.
    expect(server.output()).not.toMatch(/"level":50/);
  });

  it('mutated QUERY, PREPARE, EXECUTE and BATCH bodies against the real handler: no SERVER_ERROR', async () => {
    const before = await row(1);
    const prepared = await raw.request(
      4,
      stream++,
      Op.PREPARE,
      longStr(`SELECT * FROM ${TABLE} WHERE k = ? AND c = ?`),
    );
    const id = prepared.body.subarray(6, 6 + prepared.body.readUInt16BE(4));
    const bodies: [number, Buffer][] = [
      [Op.QUERY, Buffer.concat([longStr(`SELECT * FROM ${TABLE} WHERE k = ? AND c > ?`), queryParams(4, true)])],
      [Op.QUERY, Buffer.concat([longStr(`UPDATE ${TABLE} SET i = ? WHERE k = 5 AND c = 5`), queryParams(4, true)])],
      [Op.QUERY, Buffer.concat([longStr(`SELECT * FROM ${TABLE} WHERE k = :a`), queryParams(4, true, true)])],
      [Op.EXECUTE, Buffer.concat([short(id.length), id, queryParams(4, true)])],
      [Op.PREPARE, longStr(`INSERT INTO ${TABLE} (k, c, txt) VALUES (?, ?, ?) IF NOT EXISTS`)],
      [
        Op.BATCH,
        Buffer.concat([
          b(1),
          short(1),
          b(0),
          longStr(`INSERT INTO ${TABLE} (k, c, i) VALUES (5, 5, ?)`),
          short(1),
          i32(4),
          i32(5),
          short(1),
          b(0x10 | 0x20),
          short(9),
          Buffer.alloc(8, 1),
        ]),
      ],
    ];
    const inputs = fc.sample(
      fc.nat(bodies.length - 1).chain((i) => fc.tuple(fc.constant(bodies[i]![0]), mutate(bodies[i]![1], 4))),
      { numRuns: 600, seed: 6 },
    );
    const codes = new Map<number, number>();
    for (const [opcode, body] of inputs) {
      const f = await raw.request(4, stream++ % 30000, opcode, body);
      const code = f.opcode === Op.ERROR ? parseError(f.body).code : -f.opcode;
      codes.set(code, (codes.get(code) ?? 0) + 1);
      if (code === 0) throw new Error(`SERVER_ERROR for ${body.toString('hex')}: ${parseError(f.body).message}`);
    }
    console.log(`[robustness] mutated bodies, answers by error code (negative: opcode): ${JSON.stringify([...codes])}`);
    expect(codes.get(0)).toBeUndefined();
    expect(await row(1)).toEqual(before);
    expect(server.output()).not.toMatch(/unexpected error/);
  });
});
