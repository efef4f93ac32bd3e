// Columnar scans written straight from the Arrow columns into the ROWS body (cql/columnar/encoded-scan.ts) and
// their read-ahead (scan-read-ahead.ts), through the real server: every page must be byte-identical to the row
// path's (rows, cells and paging state) for every CQL type, with nulls, rows in several segments and in the
// buffer, rows deleted or rewritten since their flush (deletion vectors), expired TTLs, token ranges, LIMITs and
// page sizes from 1 to more than the table. Raw pages come from a minimal wire client (protocol v4); the
// npm cassandra-driver sets the data up and pages through the same scans.

import { randomUUID } from 'node:crypto';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from './support/seeded-random.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';
import { int, longStr, Op, Reader, short, startupBody, WireClient } from './support/wire-client.js';

const V4 = 4;
let server: ServerProcess;
let client: cassandra.Client;
let wire: WireClient;
let stream = 1;

const TABLE = `CREATE TABLE ks.every (k bigint PRIMARY KEY, ti tinyint, si smallint, i int, f float, d double,
  bo boolean, dt date, ts timestamp, tm time, u uuid, tu timeuuid, t text, a ascii, b blob, ip inet, vc varchar,
  dec decimal, vi varint, du duration, l list<int>, fl frozen<list<text>>, m map<text, int>,
  tup tuple<int, text>, ve vector<float, 3>)`;

const r = seededRandom(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const intIn = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const hex = (n: number) => Array.from({ length: n }, () => intIn(0, 255).toString(16).padStart(2, '0')).join('');

/** A literal for every non-key column (or undefined: the cell is left out, so it reads as null). */
const LITERALS: Record<string, () => string> = {
  ti: () => String(intIn(-128, 127)),
  si: () => String(intIn(-32768, 32767)),
  i: () => String(intIn(-(2 ** 31), 2 ** 31 - 1)),
  f: () => pick(['1.5', '-0.0', '0.0', 'NaN', 'Infinity', '-3.25e7', String(r() * 1000)]),
  d: () => pick(['-0.0', 'NaN', '-Infinity', '1e308', String(r() * 1e6 - 5e5), '4.9e-324']),
  bo: () => pick(['true', 'false']),
  dt: () => pick(["'1970-01-01'", "'1900-02-28'", "'2024-12-31'", "'9999-01-01'"]),
  ts: () => pick(["'2024-01-15 10:00:00+0000'", '0', '-1000', String(intIn(0, 2 ** 40))]),
  tm: () => pick(["'08:12:54.123456789'", "'00:00:00'", "'23:59:59.999999999'"]),
  u: () => randomUUID(),
  tu: () => 'now()',
  t: () => q(pick(['', 'short', 'é-ü-日本', 'x'.repeat(intIn(40, 300)), `text-${intIn(0, 999)}`])),
  a: () => q(pick(['', 'ascii', 'A'.repeat(intIn(1, 90))])),
  b: () => `0x${hex(pick([0, 1, 8, 47, 48, 49, 200]))}`,
  ip: () => q(pick(['127.0.0.1', '::1', '10.1.2.3', '2001:db8::ff00:42:8329'])),
  vc: () => q(`vc-${intIn(0, 99)}`),
  dec: () => pick(['1.25', '-0.001', '123456789012345678901234567890.5', '0']),
  vi: () => pick(['0', '-1', '123456789012345678901234567890', String(intIn(-1000, 1000))]),
  du: () => pick(['1h30m', '2y3mo4d', '-5s', '1us']),
  l: () => `[${Array.from({ length: intIn(0, 4) }, () => intIn(-9, 9)).join(', ')}]`,
  fl: () => `[${Array.from({ length: intIn(0, 3) }, () => q(`e${intIn(0, 9)}`)).join(', ')}]`,
  m: () => `{${Array.from({ length: intIn(1, 3) }, (_, j) => `'k${j}': ${intIn(0, 99)}`).join(', ')}}`,
  tup: () => pick(["(1, 'x')", '(null, null)', "(-7, '')"]),
  ve: () => `[${r().toFixed(3)}, -2.5, ${intIn(-9, 9)}]`,
};

let nextKey = 0;
const keys: number[] = [];

/** Inserts one row with random cells (some left out), optionally with a TTL. */
async function insertRow(k: number, ttl?: number): Promise<void> {
  const cols = Object.keys(LITERALS).filter(() => r() < 0.8);
  const names = ['k', ...cols].join(', ');
  const vals = [String(k), ...cols.map((c) => LITERALS[c]!())].join(', ');
  await client.execute(`INSERT INTO ks.every (${names}) VALUES (${vals})${ttl ? ` USING TTL ${ttl}` : ''}`);
}

async function insertRows(n: number, ttl?: number): Promise<void> {
  for (let j = 0; j < n; j++) {
    // Keys spread over the long range (negative too); their tokens interleave across segments.
    const k = (nextKey++ * 7919 - 400_000) * (r() < 0.5 ? 1 : 1_000_003);
    if (!ttl) keys.push(k);
    await insertRow(k, ttl);
  }
}

async function updateSome(n: number): Promise<void> {
  for (let j = 0; j < n; j++) {
    const k = pick(keys);
    await client.execute(`UPDATE ks.every SET t = ${LITERALS.t!()}, d = ${LITERALS.d!()}, l = l + [1] WHERE k = ${k}`);
  }
}

async function deleteSome(n: number): Promise<void> {
  for (let j = 0; j < n; j++) {
    const at = Math.floor(r() * keys.length);
    const k = keys[at]!;
    if (r() < 0.5) {
      await client.execute(`DELETE FROM ks.every WHERE k = ${k}`);
      keys.splice(at, 1);
    } else {
      await client.execute(`DELETE t, i FROM ks.every WHERE k = ${k}`); // a rewrite: the row stays
    }
  }
}

async function admin(table: string): Promise<cassandra.types.Row | undefined> {
  return (await client.execute(`SELECT * FROM system_arrow.${table}`)).first();
}

/** One page of a raw QUERY: its row count and cells exactly as sent, and its paging state. */
interface RawPage {
  rows: Buffer;
  pagingState: Buffer | null;
}

async function rawPage(cql: string, values: Buffer[], pageSize: number, state: Buffer | null): Promise<RawPage> {
  let flags = 0x04;
  if (values.length > 0) flags |= 0x01;
  if (state) flags |= 0x08;
  const parts = [longStr(cql), short(1), Buffer.from([flags])];
  if (values.length > 0) {
    parts.push(short(values.length));
    for (const v of values) parts.push(int(v.length), v);
  }
  parts.push(int(pageSize));
  if (state) parts.push(int(state.length), state);
  const s = stream++ & 0x7fff;
  const f = await wire.request(V4, s, Op.QUERY, Buffer.concat(parts));
  if (f.opcode !== Op.RESULT) throw new Error(`not a result: ${f.body.subarray(6).toString()}`);
  const rd = new Reader(f.body);
  expect(rd.int()).toBe(2);
  const rowFlags = rd.int();
  const columns = rd.int();
  const pagingState = rowFlags & 0x02 ? rd.bytes() : null;
  expect(rowFlags & 0x04).toBe(0);
  if (rowFlags & 0x01) {
    rd.string();
    rd.string();
  }
  for (let c = 0; c < columns; c++) {
    rd.string();
    skipType(rd);
  }
  return { rows: Buffer.from(f.body.subarray(rd.at)), pagingState: pagingState ? Buffer.from(pagingState) : null };
}

function skipType(rd: Reader): void {
  const id = rd.short();
  if (id === 0x0000) rd.string();
  else if (id === 0x0020 || id === 0x0022) skipType(rd);
  else if (id === 0x0021) {
    skipType(rd);
    skipType(rd);
  } else if (id === 0x0030) {
    rd.string();
    rd.string();
    const n = rd.short();
    for (let j = 0; j < n; j++) {
      rd.string();
      skipType(rd);
    }
  } else if (id === 0x0031) {
    const n = rd.short();
    for (let j = 0; j < n; j++) skipType(rd);
  }
}

async function rawPages(cql: string, values: Buffer[], pageSize: number): Promise<RawPage[]> {
  const pages: RawPage[] = [];
  let state: Buffer | null = null;
  do {
    const p = await rawPage(cql, values, pageSize, state);
    pages.push(p);
    state = p.pagingState;
  } while (state);
  return pages;
}

const long = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};

async function onPath(path: 'auto' | 'row'): Promise<void> {
  await client.execute(`SELECT * FROM system_arrow.use_${path}_path`);
}

/** Pages of `cql` on the columnar path and on the row path, compared byte for byte. */
async function samePagesOnBothPaths(cql: string, values: Buffer[], pageSize: number): Promise<number> {
  await onPath('auto');
  const encodedBefore = (await admin('use_auto_path'))!.get('encoded') as number;
  const columnar = await rawPages(cql, values, pageSize);
  const encodedAfter = (await admin('use_auto_path'))!.get('encoded') as number;
  await onPath('row');
  const row = await rawPages(cql, values, pageSize);
  await onPath('auto');
  // Every page came from the direct encoder (not the row path, not the row-object columnar scan).
  expect(encodedAfter - encodedBefore).toBe(columnar.length);
  // Byte for byte, paging states included: a full last page carries a paging state and is followed by an empty
  // page on both paths, as in Cassandra.
  const show = (ps: RawPage[]) =>
    ps.map((p) => ({ rows: p.rows.toString('hex'), state: p.pagingState?.toString('hex') }));
  expect({ cql, pageSize, pages: show(columnar) }).toEqual({ cql, pageSize, pages: show(row) });
  return columnar.reduce((n, p) => n + p.rows.readInt32BE(0), 0);
}

beforeAll(async () => {
  server = await startServer({
    env: { PMEMCQL_TWIN_AUTO_FLUSH: '0', PMEM_IS_PMEM_FORCE: '1', PMEMCQL_SCAN_READ_AHEAD: 'on' },
    args: ['--pool-size', '128MiB'],
  });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await client.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute(TABLE);
  await client.execute('CREATE TABLE ks.pk2 (a int, b text, v double, PRIMARY KEY ((a, b)))');
  wire = await WireClient.connect('127.0.0.1', server.port);
  const ready = await wire.request(V4, 0, Op.STARTUP, startupBody());
  expect(ready.opcode).toBe(Op.READY);

  // Composite partition keys: one segment and buffer rows (flush_now flushes every twin).
  for (let a = 0; a < 40; a++) {
    await client.execute(`INSERT INTO ks.pk2 (a, b, v) VALUES (${a % 7}, 'b${a}', ${a / 3})`);
    if (a === 25) await admin('flush_now');
  }
  // Segment 1 (with rows that expire), segment 2 (rewrites and deletions of segment 1's rows: deletion vectors),
  // then buffer rows: new ones, rewrites and deletions of flushed rows.
  await insertRows(150);
  await insertRows(5, 2);
  await admin('flush_now');
  await insertRows(150);
  await updateSome(30);
  await deleteSome(20);
  await admin('flush_now');
  await insertRows(60);
  await updateSome(15);
  await deleteSome(10);
  await insertRows(3, 2);
  const segments = await client.execute(
    "SELECT segment_id FROM system_arrow.segments WHERE keyspace_name = 'ks' AND table_name = 'every' ALLOW FILTERING",
  );
  expect(segments.rowLength).toBe(2);
  const buffers = await client.execute(
    "SELECT buffer_rows FROM system_arrow.buffers WHERE keyspace_name = 'ks' AND table_name = 'every' ALLOW FILTERING",
  );
  expect(Number(buffers.first()?.get('buffer_rows'))).toBeGreaterThan(0);
  // Let the TTL rows expire (both paths then leave them out).
  await new Promise((ok) => setTimeout(ok, 2_200));
}, 120_000);

afterAll(async () => {
  reportIfDied(server);
  wire?.close();
  await client?.shutdown();
  await server?.stop();
});

describe('columnar scans written straight from Arrow columns', () => {
  it('give the row path’s pages byte for byte, for every type, page size and LIMIT', async () => {
    for (const size of [1, 7, 64, 1000, 5000]) {
      expect(await samePagesOnBothPaths('SELECT * FROM ks.every', [], size)).toBe(keys.length);
    }
    await samePagesOnBothPaths('SELECT t, k, ve, d, k, l, du, dec FROM ks.every', [], 33);
    // LIMITs above 1000 stay columnar (shorter ones read fewer rows on the row path).
    await samePagesOnBothPaths('SELECT * FROM ks.every LIMIT 1001', [], 100);
    await samePagesOnBothPaths('SELECT * FROM ks.pk2', [], 6);
  });

  it('filter like the row path (numeric comparisons, NaN and -0 included)', async () => {
    const dbl = (v: number) => {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(v);
      return b;
    };
    const flt = (v: number) => {
      const b = Buffer.alloc(4);
      b.writeFloatBE(v);
      return b;
    };
    const i32 = (v: number) => int(v);
    const i8 = (v: number) => Buffer.from([v & 0xff]);
    const i16 = (v: number) => short(v & 0xffff);
    const cases: [string, Buffer[]][] = [
      ['SELECT * FROM ks.every WHERE d > ? ALLOW FILTERING', [dbl(0)]],
      ['SELECT * FROM ks.every WHERE d = ? ALLOW FILTERING', [dbl(-0)]],
      ['SELECT k, f FROM ks.every WHERE f <= ? ALLOW FILTERING', [flt(1.5)]],
      ['SELECT k, i FROM ks.every WHERE i != ? AND ti >= ? ALLOW FILTERING', [i32(0), i8(-20)]],
      ['SELECT * FROM ks.every WHERE si < ? ALLOW FILTERING', [i16(100)]],
      ['SELECT * FROM ks.every WHERE token(k) > ? AND d >= ? ALLOW FILTERING', [long(0n), dbl(Number.NaN)]],
    ];
    for (const [cql, values] of cases) {
      for (const size of [5, 5000]) await samePagesOnBothPaths(cql, values, size);
    }
  });

  it('page token ranges the same way', async () => {
    const bounds: [bigint, bigint][] = [
      [-(2n ** 62n), 2n ** 62n],
      [0n, 2n ** 63n - 1n],
      [-(2n ** 63n), -(2n ** 60n)],
    ];
    for (const [lo, hi] of bounds) {
      await samePagesOnBothPaths(
        'SELECT * FROM ks.every WHERE token(k) > ? AND token(k) <= ?',
        [long(lo), long(hi)],
        17,
      );
    }
  });

  it('page through the npm driver like the row path', async () => {
    const read = async () => {
      const out: string[] = [];
      for await (const row of client.stream('SELECT * FROM ks.every', [], { prepare: true, fetchSize: 9 })) {
        out.push(
          JSON.stringify((row as cassandra.types.Row).values(), (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
        );
      }
      return out;
    };
    await onPath('auto');
    const columnar = await read();
    await onPath('row');
    const row = await read();
    await onPath('auto');
    expect(columnar.length).toBe(keys.length);
    expect(columnar).toEqual(row);
  });
});

describe('large pages', () => {
  it('go out uncopied, framed like any response, also between pipelined requests', async () => {
    await client.execute('CREATE TABLE ks.big (k bigint PRIMARY KEY, t text, d double)');
    const insert = 'INSERT INTO ks.big (k, t, d) VALUES (?, ?, ?)';
    for (let j = 0; j < 3000; j += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          client.execute(insert, [cassandra.types.Long.fromNumber(j + n), `big-${'t'.repeat((j + n) % 90)}`, n / 7], {
            prepare: true,
          }),
        ),
      );
      if (j === 1500) await admin('flush_now');
    }
    // Pages of 5000 are ~190 KB: over the size from which the cells are written as their own chunk.
    const rows = await samePagesOnBothPaths('SELECT * FROM ks.big', [], 5000);
    expect(rows).toBe(3000);
    await samePagesOnBothPaths('SELECT * FROM ks.big', [], 2000);
    // Three requests in one write: responses on their streams, each whole.
    await onPath('auto');
    const query = (cql: string) => {
      const body = Buffer.concat([longStr(cql), short(1), Buffer.from([0x04]), int(5000)]);
      const h = Buffer.alloc(9);
      h[0] = V4;
      h.writeInt16BE(stream, 2);
      h[4] = Op.QUERY;
      h.writeInt32BE(body.length, 5);
      return { stream: stream++, bytes: Buffer.concat([h, body]) };
    };
    const a = query('SELECT * FROM ks.big');
    const b = query('SELECT a, b FROM ks.pk2');
    const c = query('SELECT t, k FROM ks.big');
    wire.write(Buffer.concat([a.bytes, b.bytes, c.bytes]));
    for (const [req, count] of [
      [a, 3000],
      [b, 40],
      [c, 3000],
    ] as const) {
      const f = await wire.response(req.stream);
      expect({ opcode: f.opcode, error: f.opcode === Op.ERROR ? f.body.subarray(6).toString() : '' }).toEqual({
        opcode: Op.RESULT,
        error: '',
      });
      const rd = new Reader(f.body);
      rd.int();
      const flags = rd.int();
      const columns = rd.int();
      if (flags & 0x01) {
        rd.string();
        rd.string();
      }
      for (let n = 0; n < columns; n++) {
        rd.string();
        skipType(rd);
      }
      expect(rd.int()).toBe(count);
      for (let n = 0; n < count * columns; n++) rd.bytes();
      expect(rd.at).toBe(f.body.length);
    }
  });
});

describe('read-ahead of the next page', () => {
  const cql = 'SELECT k, t, i FROM ks.every';

  /** Waits for the server to prepare one next page after `prepared0` were (it does so after a response is sent). */
  async function preparedSince(prepared0: number): Promise<void> {
    let prepared = prepared0;
    for (let wait = 0; wait < 50 && prepared === prepared0; wait++) {
      await new Promise((ok) => setTimeout(ok, 10));
      prepared = (await admin('use_auto_path'))!.get('read_ahead_prepared') as number;
    }
    expect(prepared).toBe(prepared0 + 1);
  }

  it('answers the next request from the prepared page, identical to the row path', async () => {
    await onPath('auto');
    // A prepared page is for the second it was computed in (TTLs) and the twin version it saw: start early in a
    // second and ask for the next page once it is prepared. On a loaded machine (the whole suite on two cores) the
    // two requests may still straddle two seconds; that attempt proves nothing and is made again.
    let first: Awaited<ReturnType<typeof rawPage>> | undefined;
    let second: Awaited<ReturnType<typeof rawPage>> | undefined;
    for (let attempt = 0; attempt < 5 && !second; attempt++) {
      const stats0 = (await admin('use_auto_path'))!;
      const used0 = stats0.get('read_ahead') as number;
      const prepared0 = stats0.get('read_ahead_prepared') as number;
      while (Date.now() % 1000 > 300) await new Promise((ok) => setTimeout(ok, 20));
      const from = Math.floor(Date.now() / 1000);
      const a = await rawPage(cql, [], 10, null);
      await preparedSince(prepared0);
      const b = await rawPage(cql, [], 10, a.pagingState);
      if (Math.floor(Date.now() / 1000) !== from) continue;
      expect((await admin('use_auto_path'))!.get('read_ahead') as number).toBe(used0 + 1);
      first = a;
      second = b;
    }
    if (!first || !second) throw new Error('no two requests within one second in 5 attempts');
    await onPath('row');
    const rowSecond = await rawPage(cql, [], 10, first.pagingState);
    await onPath('auto');
    expect(second.rows.toString('hex')).toBe(rowSecond.rows.toString('hex'));
    expect(second.pagingState?.toString('hex')).toBe(rowSecond.pagingState?.toString('hex'));
  });

  it('is not used after a write to the table: the page shows the write', async () => {
    await onPath('auto');
    const prepared0 = (await admin('use_auto_path'))!.get('read_ahead_prepared') as number;
    const first = await rawPage(cql, [], 10, null);
    await preparedSince(prepared0);
    const used0 = (await admin('use_auto_path'))!.get('read_ahead') as number;
    // The first key of the next page, from the row path (which leaves prepared pages alone).
    await onPath('row');
    const before = await rawPage(cql, [], 10, first.pagingState);
    const rd = new Reader(before.rows);
    rd.int(); // row count
    const k1 = rd.bytes()!.readBigInt64BE(0);
    rd.bytes(); // t
    rd.bytes(); // i
    const k2 = rd.bytes()!.readBigInt64BE(0);
    await client.execute(`UPDATE ks.every SET t = 'written after read-ahead' WHERE k = ${k1}`);
    await deleteOne(k2);
    const rowAfter = await rawPage(cql, [], 10, first.pagingState);
    await onPath('auto');
    const after = await rawPage(cql, [], 10, first.pagingState);
    expect((await admin('use_auto_path'))!.get('read_ahead') as number).toBe(used0);
    expect(after.rows.includes(Buffer.from('written after read-ahead'))).toBe(true);
    expect(after.rows.toString('hex')).toBe(rowAfter.rows.toString('hex'));
    expect(after.pagingState?.toString('hex')).toBe(rowAfter.pagingState?.toString('hex'));
  });
});

async function deleteOne(k: bigint): Promise<void> {
  await client.execute(`DELETE FROM ks.every WHERE k = ${k}`);
  const at = keys.indexOf(Number(k));
  if (at >= 0) keys.splice(at, 1);
}
