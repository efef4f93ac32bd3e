// Prepared statements end to end: ids as Cassandra 5.0 computes them (QueryProcessor.computeId), one
// cache for every connection, UNPREPARED after eviction, v5 result_metadata_id and METADATA_CHANGED, skip_metadata
// in v4, and what drivers see when the schema changes under a prepared statement. cassandra-driver where it shows
// the behaviour, a raw native-protocol client where the driver hides it (ids, flags, error bodies).
import { createHash } from 'node:crypto';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, reportIfDied, type ServerProcess, startServer } from './support/server-process.js';
import {
  type Frame,
  frameBytes,
  int,
  longStr,
  Op,
  queryBody,
  Reader,
  short,
  startupBody,
  str,
  WireClient,
} from './support/wire-client.js';

const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
/** The bound of the server's prepared statement cache (cql/cql-query-handler.ts). */
const MAX_PREPARED = 10_000;
const MARSHAL = 'org.apache.cassandra.db.marshal.';

let server: ServerProcess;
let metricsPort: number;
let driver: cassandra.Client;

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({ args: ['--metrics-port', String(metricsPort)] });
  driver = newDriver();
  await driver.connect();
  for (const ks of ['pc', 'pc2']) {
    await driver.execute(`CREATE KEYSPACE ${ks} WITH replication = ${REPLICATION}`);
    await driver.execute(`CREATE TABLE ${ks}.t (k int PRIMARY KEY, v text)`);
    await driver.execute(`INSERT INTO ${ks}.t (k, v) VALUES (1, 'in ${ks}')`);
  }
}, 60_000);

afterAll(async () => {
  reportIfDied(server);
  await driver?.shutdown();
  await server?.stop();
});

function newDriver(keyspace?: string): cassandra.Client {
  return new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    ...(keyspace ? { keyspace } : {}),
  });
}

const md5 = (s: string | Buffer) => createHash('md5').update(s).digest();

/** ResultMetadata.computeResultMetadataId over (name, marshal class) pairs, as Cassandra 5.0 computes it. */
function metadataId(columns: [string, string][]): Buffer {
  const parts = columns.flatMap(([name, cls]) => [
    Buffer.from(name),
    Buffer.from([0]),
    Buffer.from(MARSHAL + cls),
    Buffer.from([0, 0]),
  ]);
  return md5(Buffer.concat(parts));
}

const NOT_FOUND = (id: Buffer) =>
  `Prepared query with ID ${id.toString('hex')} not found (either the query was not prepared on this host (maybe the ` +
  'host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)';

const Rows = { GLOBAL_TABLES_SPEC: 0x0001, NO_METADATA: 0x0004, METADATA_CHANGED: 0x0008 } as const;

// ---- the raw connection

const intBytes = (n: number) => int(n);
const shortBytes = (b: Buffer) => Buffer.concat([short(b.length), b]);

function readShortBytes(r: Reader): Buffer {
  const n = r.short();
  const v = r.b.subarray(r.at, r.at + n);
  r.at += n;
  return Buffer.from(v);
}

const OPTION_NAMES: Record<number, string> = { 9: 'int', 13: 'text' };
function readOption(r: Reader): string {
  const id = r.short();
  if (id === 0x0020) return `list<${readOption(r)}>`;
  return OPTION_NAMES[id] ?? `0x${id.toString(16)}`;
}

interface Column {
  keyspace: string;
  table: string;
  name: string;
  type: string;
}

/** Rows metadata (also a Prepared result's): flags, counts, new_metadata_id, and the column specs when sent. */
function readRowsMetadata(r: Reader) {
  const flags = r.int();
  const count = r.int();
  if (flags & 0x0002) r.bytes();
  const newMetadataId = flags & Rows.METADATA_CHANGED ? readShortBytes(r) : undefined;
  const columns: Column[] = [];
  if (!(flags & Rows.NO_METADATA)) {
    const global = flags & Rows.GLOBAL_TABLES_SPEC ? [r.string(), r.string()] : undefined;
    for (let i = 0; i < count; i++) {
      const [keyspace, table] = global ?? [r.string(), r.string()];
      columns.push({ keyspace: keyspace!, table: table!, name: r.string(), type: readOption(r) });
    }
  }
  return { flags, count, newMetadataId, columns };
}

interface Prepared {
  id: Buffer;
  /** v5 only. */
  resultMetadataId: Buffer | undefined;
  bindColumns: Column[];
  pkIndices: number[];
  result: ReturnType<typeof readRowsMetadata>;
}

function readPrepared(f: Frame): Prepared {
  expect(f.opcode, errorText(f)).toBe(Op.RESULT);
  const r = new Reader(f.body);
  expect(r.int()).toBe(4);
  const id = readShortBytes(r);
  const resultMetadataId = f.version >= 5 ? readShortBytes(r) : undefined;
  const flags = r.int();
  const count = r.int();
  const pkIndices = Array.from({ length: r.int() }, () => r.short());
  const global = flags & Rows.GLOBAL_TABLES_SPEC ? [r.string(), r.string()] : undefined;
  const bindColumns: Column[] = [];
  for (let i = 0; i < count; i++) {
    const [keyspace, table] = global ?? [r.string(), r.string()];
    bindColumns.push({ keyspace: keyspace!, table: table!, name: r.string(), type: readOption(r) });
  }
  return { id, resultMetadataId, bindColumns, pkIndices, result: readRowsMetadata(r) };
}

function readRows(f: Frame) {
  expect(f.opcode, errorText(f)).toBe(Op.RESULT);
  const r = new Reader(f.body);
  expect(r.int()).toBe(2);
  const metadata = readRowsMetadata(r);
  const n = r.int();
  const rows = Array.from({ length: n }, () => Array.from({ length: metadata.count }, () => r.bytes()));
  return { ...metadata, rows };
}

function readError(f: Frame): { code: number; message: string; id: Buffer | undefined } {
  expect(f.opcode).toBe(Op.ERROR);
  const r = new Reader(f.body);
  const code = r.int();
  const message = r.string();
  return { code, message, id: code === 0x2500 ? readShortBytes(r) : undefined };
}

function errorText(f: Frame): string {
  if (f.opcode !== Op.ERROR) return '';
  const r = new Reader(f.body);
  return `server error 0x${r.int().toString(16)}: ${r.string()}`;
}

/** One native-protocol connection past STARTUP (v5: segments). */
class Conn {
  private stream = 0;
  private constructor(
    readonly wire: WireClient,
    readonly version: 4 | 5,
  ) {}

  static async open(version: 4 | 5, keyspace?: string): Promise<Conn> {
    const wire = await WireClient.connect(server.host, server.port);
    const ready = await wire.request(version, 0, Op.STARTUP, startupBody());
    expect(ready.opcode).toBe(Op.READY);
    if (version === 5) wire.useSegments(false);
    const c = new Conn(wire, version);
    if (keyspace) expect((await c.query(`USE ${keyspace}`)).opcode).toBe(Op.RESULT);
    return c;
  }

  send(opcode: number, body: Buffer): number {
    this.stream = (this.stream % 30_000) + 1;
    const frame = frameBytes(this.version, this.stream, opcode, body);
    if (this.version === 5) this.wire.sendSegment([frame]);
    else this.wire.write(frame);
    return this.stream;
  }

  async request(opcode: number, body: Buffer): Promise<Frame> {
    return await this.wire.response(this.send(opcode, body));
  }

  query(cql: string): Promise<Frame> {
    return this.request(Op.QUERY, queryBody(this.version, cql));
  }

  /** PREPARE; `keyspace` is v5's keyspace flag. */
  prepareFrame(cql: string, keyspace?: string): Promise<Frame> {
    const parts = [longStr(cql)];
    if (this.version >= 5) parts.push(int(keyspace ? 0x01 : 0), ...(keyspace ? [str(keyspace)] : []));
    return this.request(Op.PREPARE, Buffer.concat(parts));
  }

  async prepare(cql: string, keyspace?: string): Promise<Prepared> {
    return readPrepared(await this.prepareFrame(cql, keyspace));
  }

  executeBody(id: Buffer, resultMetadataId: Buffer | undefined, values: Buffer[], skipMetadata: boolean): Buffer {
    const flags = (values.length > 0 ? 0x01 : 0) | (skipMetadata ? 0x02 : 0);
    const parts = [shortBytes(id)];
    if (this.version >= 5) parts.push(shortBytes(resultMetadataId ?? Buffer.alloc(0)));
    parts.push(short(1), this.version >= 5 ? int(flags) : Buffer.from([flags]));
    if (values.length > 0) parts.push(short(values.length), ...values.flatMap((v) => [int(v.length), v]));
    return Buffer.concat(parts);
  }

  execute(
    id: Buffer,
    values: Buffer[],
    { resultMetadataId, skipMetadata = false }: { resultMetadataId?: Buffer | undefined; skipMetadata?: boolean } = {},
  ): Promise<Frame> {
    return this.request(Op.EXECUTE, this.executeBody(id, resultMetadataId, values, skipMetadata));
  }

  close(): void {
    this.wire.close();
  }
}

async function withConn<T>(version: 4 | 5, keyspace: string | undefined, f: (c: Conn) => Promise<T>): Promise<T> {
  const c = await Conn.open(version, keyspace);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

/** PREPAREs `count` distinct statements, pipelined, each must succeed. */
async function flood(c: Conn, count: number, tag: string): Promise<void> {
  const window = 500;
  for (let at = 0; at < count; at += window) {
    const streams: number[] = [];
    for (let i = at; i < Math.min(count, at + window); i++) {
      streams.push(c.send(Op.PREPARE, longStr(`SELECT v FROM pc.t WHERE k = ${i} /* ${tag} */`)));
    }
    for (const s of streams) {
      const f = await c.wire.response(s, 30_000);
      expect(f.opcode, errorText(f)).toBe(Op.RESULT);
    }
  }
}

async function metric(line: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.split(' ').pop()) : 0;
}
const unpreparedCount = () => metric('pmemcql_request_errors_total{error="unprepared"}');
const prepareCount = () => metric('pmemcql_requests_total{opcode="PREPARE"}');

const text = (b: Buffer | null | undefined) => b?.toString('utf8');
const intOf = (b: Buffer | null | undefined) => b?.readInt32BE(0);

// ---------------------------------------------------------------------------------------------------------------
describe('statement ids (QueryProcessor.computeId)', () => {
  const qualified = 'SELECT k, v FROM pc.t WHERE k = ?';
  const unqualified = 'SELECT k, v FROM t WHERE k = ?';

  it('a statement naming its keyspace gets the MD5 of the query string, with or without a keyspace in use', async () => {
    const expected = md5(qualified);
    expect(expected.toString('hex')).toBe(createHash('md5').update(qualified, 'utf8').digest('hex'));
    for (const version of [4, 5] as const) {
      await withConn(version, undefined, async (c) => expect((await c.prepare(qualified)).id).toEqual(expected));
      // Cassandra >= 4.0.2 leaves the session keyspace out of a fully qualified statement's id (CASSANDRA-15252)
      await withConn(version, 'pc2', async (c) => expect((await c.prepare(qualified)).id).toEqual(expected));
    }
    await withConn(5, undefined, async (c) => expect((await c.prepare(qualified, 'pc2')).id).toEqual(expected));
  });

  it('an unqualified statement gets the MD5 of keyspace + query: one text in two keyspaces, two ids', async () => {
    const inPc = await withConn(4, 'pc', (c) => c.prepare(unqualified));
    const inPc2 = await withConn(4, 'pc2', (c) => c.prepare(unqualified));
    expect(inPc.id).toEqual(md5(`pc${unqualified}`));
    expect(inPc2.id).toEqual(md5(`pc2${unqualified}`));
    expect(inPc.id).not.toEqual(inPc2.id);
    expect(inPc.bindColumns).toEqual([{ keyspace: 'pc', table: 't', name: 'k', type: 'int' }]);
    expect(inPc2.bindColumns).toEqual([{ keyspace: 'pc2', table: 't', name: 'k', type: 'int' }]);
    // v5's keyspace flag on PREPARE stands for USE
    await withConn(5, undefined, async (c) => expect((await c.prepare(unqualified, 'pc2')).id).toEqual(inPc2.id));
    // each id keeps its own keyspace, whatever the executing connection uses
    await withConn(4, 'pc', async (c) => {
      expect(readRows(await c.execute(inPc.id, [intBytes(1)])).rows.map((r) => text(r[1]))).toEqual(['in pc']);
      expect(readRows(await c.execute(inPc2.id, [intBytes(1)])).rows.map((r) => text(r[1]))).toEqual(['in pc2']);
    });
  });

  it('statements Cassandra does not parse as qualified (BATCH, DDL) take the session keyspace into their id', async () => {
    const batch = 'BEGIN BATCH INSERT INTO pc.t (k, v) VALUES (?, ?) APPLY BATCH';
    const ddl = 'CREATE TABLE IF NOT EXISTS pc.t (k int PRIMARY KEY, v text)';
    await withConn(4, undefined, async (c) => {
      expect((await c.prepare(batch)).id).toEqual(md5(batch));
      expect((await c.prepare(ddl)).id).toEqual(md5(ddl));
    });
    await withConn(4, 'pc2', async (c) => {
      expect((await c.prepare(batch)).id).toEqual(md5(`pc2${batch}`));
      expect((await c.prepare(ddl)).id).toEqual(md5(`pc2${ddl}`));
    });
  });

  it('re-preparing gives the same id; cassandra-driver holds the same ids', async () => {
    const a = await withConn(4, 'pc', (c) => c.prepare(unqualified));
    const b = await withConn(4, 'pc', (c) => c.prepare(unqualified));
    expect(b.id).toEqual(a.id);
    const client = newDriver('pc');
    try {
      await client.execute(unqualified, [1], { prepare: true });
      await client.execute(qualified, [1], { prepare: true });
      const ids = new Map(
        (client.metadata.getAllPrepared() as { query: string; queryId: Buffer }[]).map((p) => [p.query, p.queryId]),
      );
      expect(ids.get(unqualified)).toEqual(md5(`pc${unqualified}`));
      expect(ids.get(qualified)).toEqual(md5(qualified));
    } finally {
      await client.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('one prepared cache for every connection', () => {
  const query = 'SELECT k, v FROM pc.t WHERE k = ?';

  it('an id prepared on one connection executes on a fresh one that never prepared it (v4 and v5)', async () => {
    const v4 = await withConn(4, undefined, (c) => c.prepare(query));
    const v5 = await withConn(5, undefined, (c) => c.prepare(query));
    expect(v5.id).toEqual(v4.id);
    await withConn(4, undefined, async (c) => {
      const rows = readRows(await c.execute(v4.id, [intBytes(1)]));
      expect(rows.rows.map((r) => [intOf(r[0]), text(r[1])])).toEqual([[1, 'in pc']]);
    });
    await withConn(5, undefined, async (c) => {
      const rows = readRows(await c.execute(v5.id, [intBytes(1)], { resultMetadataId: v5.resultMetadataId }));
      expect(rows.rows.map((r) => [intOf(r[0]), text(r[1])])).toEqual([[1, 'in pc']]);
    });
  });

  it('cassandra-driver: a statement the first Client prepared executes by id from another connection and Client', async () => {
    const first = newDriver();
    const second = newDriver();
    try {
      const sql = 'SELECT v FROM pc.t WHERE k = ? /* shared */';
      expect((await first.execute(sql, [1], { prepare: true })).rows.map((r) => r.v)).toEqual(['in pc']);
      const [info] = (first.metadata.getAllPrepared() as { query: string; queryId: Buffer }[]).filter(
        (p) => p.query === sql,
      );
      // the id the first Client holds runs on a connection that never saw the PREPARE
      await withConn(4, undefined, async (c) =>
        expect(readRows(await c.execute(info!.queryId, [intBytes(1)])).rows.map((r) => text(r[0]))).toEqual(['in pc']),
      );
      const unprepared = await unpreparedCount();
      expect((await second.execute(sql, [1], { prepare: true })).rows.map((r) => r.v)).toEqual(['in pc']);
      const [info2] = (second.metadata.getAllPrepared() as { query: string; queryId: Buffer }[]).filter(
        (p) => p.query === sql,
      );
      expect(info2!.queryId).toEqual(info!.queryId);
      expect((await first.execute(sql, [1], { prepare: true })).rows.map((r) => r.v)).toEqual(['in pc']);
      expect(await unpreparedCount()).toBe(unprepared);
    } finally {
      await first.shutdown();
      await second.shutdown();
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('UNPREPARED', () => {
  it('EXECUTE (and BATCH) of an id never prepared: ERROR 0x2500 carrying the id and Cassandra`s message', async () => {
    const id = md5('never prepared');
    for (const version of [4, 5] as const) {
      await withConn(version, undefined, async (c) => {
        expect(readError(await c.execute(id, [], { resultMetadataId: md5('') }))).toEqual({
          code: 0x2500,
          message: NOT_FOUND(id),
          id,
        });
        // BATCH of one prepared statement: <type><n><kind 1><id><values><consistency><flags>
        const batch = Buffer.concat([
          Buffer.from([1]),
          short(1),
          Buffer.from([1]),
          shortBytes(id),
          short(0),
          short(1),
          version >= 5 ? int(0) : Buffer.from([0]),
        ]);
        expect(readError(await c.request(Op.BATCH, batch))).toEqual({ code: 0x2500, message: NOT_FOUND(id), id });
      });
    }
  });

  it('page size 0 is a PROTOCOL_ERROR for QUERY and EXECUTE (after UNPREPARED); a negative one means unpaged', async () => {
    await withConn(4, undefined, async (c) => {
      await c.query(`CREATE KEYSPACE IF NOT EXISTS pz WITH replication = ${REPLICATION}`);
      await c.query('CREATE TABLE IF NOT EXISTS pz.t (k int, c int, PRIMARY KEY (k, c))');
      for (let i = 0; i < 3; i++) await c.query(`INSERT INTO pz.t (k, c) VALUES (1, ${i})`);
      // <consistency ONE><flags: page size><page size>
      const withPageSize = (n: number) => Buffer.concat([short(1), Buffer.from([0x04]), int(n)]);
      const query = (cql: string, n: number) => c.request(Op.QUERY, Buffer.concat([longStr(cql), withPageSize(n)]));
      expect(readError(await query('SELECT * FROM pz.t', 0))).toEqual({
        code: 0x000a,
        message: 'The page size cannot be 0',
        id: undefined,
      });
      // Checked before parsing, as Cassandra's QueryMessage.
      expect(readError(await query('SELEKT nothing', 0)).code).toBe(0x000a);
      expect(readRows(await query('SELECT * FROM pz.t', -1)).rows).toHaveLength(3);
      const { id } = await c.prepare('SELECT * FROM pz.t');
      const execute = (statement: Buffer, n: number) =>
        c.request(Op.EXECUTE, Buffer.concat([shortBytes(statement), withPageSize(n)]));
      expect(readError(await execute(id, 0))).toEqual({
        code: 0x000a,
        message: 'The page size cannot be 0',
        id: undefined,
      });
      expect(readRows(await execute(id, -5)).rows).toHaveLength(3);
      expect(readError(await execute(md5('never prepared either'), 0)).code).toBe(0x2500);
      // The connection is still usable.
      expect(readRows(await execute(id, 2)).rows).toHaveLength(2);
    });
  });

  it('beyond MAX_PREPARED statements the least recently used is evicted: its EXECUTE is 0x2500', async () => {
    await withConn(4, undefined, async (c) => {
      const cold = await c.prepare('SELECT v FROM pc.t WHERE k = ? /* cold */');
      const hot = await c.prepare('SELECT v FROM pc.t WHERE k = ? /* hot */');
      expect(readRows(await c.execute(hot.id, [intBytes(1)])).rows).toHaveLength(1);
      await flood(c, MAX_PREPARED, 'evict');
      expect(readError(await c.execute(cold.id, [intBytes(1)]))).toEqual({
        code: 0x2500,
        message: NOT_FOUND(cold.id),
        id: cold.id,
      });
      // executed since its PREPARE, `hot` had a second chance; the newest statements are all there
      expect(readRows(await c.execute(hot.id, [intBytes(1)])).rows.map((r) => text(r[0]))).toEqual(['in pc']);
      const newest = md5(`SELECT v FROM pc.t WHERE k = ${MAX_PREPARED - 1} /* evict */`);
      expect(readRows(await c.execute(newest, [])).rows.map((r) => text(r[0]))).toEqual([]);
    });
  });

  it('cassandra-driver re-prepares an evicted statement transparently (the server answered UNPREPARED)', async () => {
    const sql = 'SELECT k, v FROM pc.t WHERE k = ? /* driver */';
    expect((await driver.execute(sql, [1], { prepare: true })).rows.map((r) => r.v)).toEqual(['in pc']);
    const [unprepared, prepares] = [await unpreparedCount(), await prepareCount()];
    // executed once, the statement survives one sweep of the cache: flood it twice
    await withConn(4, undefined, (c) => flood(c, 2 * MAX_PREPARED, 'driver'));
    await withConn(4, undefined, async (c) =>
      expect(readError(await c.execute(md5(sql), [intBytes(1)])).code).toBe(0x2500),
    );
    const rs = await driver.execute(sql, [1], { prepare: true });
    expect(rs.rows.map((r) => ({ ...r }))).toEqual([{ k: 1, v: 'in pc' }]);
    // ours, then the driver's: UNPREPARED twice; one PREPARE from the driver beside the flood
    expect(await unpreparedCount()).toBe(unprepared + 2);
    expect(await prepareCount()).toBe(prepares + 2 * MAX_PREPARED + 1);
    await withConn(4, undefined, async (c) =>
      expect(readRows(await c.execute(md5(sql), [intBytes(1)])).rows).toHaveLength(1),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('v5 result_metadata_id', () => {
  beforeAll(async () => {
    await driver.execute('CREATE TABLE pc.m (k int PRIMARY KEY, a text)');
    await driver.execute("INSERT INTO pc.m (k, a) VALUES (1, 'x')");
  });

  const select = 'SELECT * FROM pc.m WHERE k = ?';
  const idKA = metadataId([
    ['k', 'Int32Type'],
    ['a', 'UTF8Type'],
  ]);

  it('PREPARE returns Cassandra`s result_metadata_id; EXECUTE with it: no METADATA_CHANGED, NO_METADATA on skip', async () => {
    await withConn(5, undefined, async (c) => {
      const p = await c.prepare(select);
      expect(p.id).toEqual(md5(select));
      expect(p.resultMetadataId).toEqual(idKA);
      expect(p.pkIndices).toEqual([0]);
      expect(p.result.flags).toBe(Rows.GLOBAL_TABLES_SPEC);
      expect(p.result.columns.map((col) => `${col.name} ${col.type}`)).toEqual(['k int', 'a text']);
      const full = readRows(await c.execute(p.id, [intBytes(1)], { resultMetadataId: p.resultMetadataId }));
      expect([full.flags, full.count, full.newMetadataId]).toEqual([Rows.GLOBAL_TABLES_SPEC, 2, undefined]);
      expect(full.columns.map((col) => col.name)).toEqual(['k', 'a']);
      expect(full.rows.map((r) => [intOf(r[0]), text(r[1])])).toEqual([[1, 'x']]);
      const bare = readRows(
        await c.execute(p.id, [intBytes(1)], { resultMetadataId: p.resultMetadataId, skipMetadata: true }),
      );
      expect([bare.flags, bare.count, bare.columns]).toEqual([Rows.NO_METADATA, 2, []]);
      expect(bare.rows.map((r) => [intOf(r[0]), text(r[1])])).toEqual([[1, 'x']]);
      // a statement without result rows: ResultMetadata.EMPTY, whose id is the MD5 of nothing
      const insert = await c.prepare('INSERT INTO pc.m (k, a) VALUES (?, ?)');
      expect(insert.resultMetadataId!.toString('hex')).toBe('d41d8cd98f00b204e9800998ecf8427e');
      expect([insert.result.flags, insert.result.count]).toEqual([Rows.NO_METADATA, 0]);
    });
  });

  it('result_metadata_id hashes Cassandra`s type class names: ReversedType for DESC clustering, collections', async () => {
    await driver.execute(
      'CREATE TABLE pc.rev (k int, c int, l list<text>, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)',
    );
    await withConn(5, undefined, async (c) => {
      const p = await c.prepare('SELECT * FROM pc.rev WHERE k = ?');
      expect(p.result.columns.map((col) => `${col.name} ${col.type}`)).toEqual(['k int', 'c int', 'l list<text>']);
      expect(p.resultMetadataId).toEqual(
        metadataId([
          ['k', 'Int32Type'],
          ['c', `ReversedType(${MARSHAL}Int32Type)`],
          ['l', `ListType(${MARSHAL}UTF8Type)`],
        ]),
      );
      const count = await c.prepare('SELECT count(*) FROM pc.rev WHERE k = ?');
      expect(count.resultMetadataId).toEqual(metadataId([['count', 'LongType']]));
    });
  });

  it('after ALTER TABLE ADD: UNPREPARED, then the old result_metadata_id gets METADATA_CHANGED with the new id and metadata', async () => {
    const a = await Conn.open(5);
    try {
      const p = await a.prepare(select);
      expect(p.resultMetadataId).toEqual(idKA);
      await driver.execute('ALTER TABLE pc.m ADD b int');
      await driver.execute('UPDATE pc.m SET b = 7 WHERE k = 1');
      // Cassandra evicts the table's statements on ALTER (QueryProcessor.StatementInvalidatingListener)
      expect(readError(await a.execute(p.id, [intBytes(1)], { resultMetadataId: p.resultMetadataId }))).toEqual({
        code: 0x2500,
        message: NOT_FOUND(p.id),
        id: p.id,
      });
      // re-prepared (here on another connection): same statement id, new result metadata id
      const again = await withConn(5, undefined, (c) => c.prepare(select));
      const idKAB = metadataId([
        ['k', 'Int32Type'],
        ['a', 'UTF8Type'],
        ['b', 'Int32Type'],
      ]);
      expect(again.id).toEqual(p.id);
      expect(again.resultMetadataId).toEqual(idKAB);
      const changed = readRows(
        await a.execute(p.id, [intBytes(1)], { resultMetadataId: p.resultMetadataId, skipMetadata: true }),
      );
      expect(changed.flags).toBe(Rows.METADATA_CHANGED | Rows.GLOBAL_TABLES_SPEC);
      expect(changed.newMetadataId).toEqual(idKAB);
      expect(changed.columns).toEqual([
        { keyspace: 'pc', table: 'm', name: 'k', type: 'int' },
        { keyspace: 'pc', table: 'm', name: 'a', type: 'text' },
        { keyspace: 'pc', table: 'm', name: 'b', type: 'int' },
      ]);
      expect(changed.rows.map((r) => [intOf(r[0]), text(r[1]), intOf(r[2])])).toEqual([[1, 'x', 7]]);
      const current = readRows(await a.execute(p.id, [intBytes(1)], { resultMetadataId: idKAB, skipMetadata: true }));
      expect([current.flags, current.count, current.newMetadataId]).toEqual([Rows.NO_METADATA, 3, undefined]);
      const full = readRows(await a.execute(p.id, [intBytes(1)], { resultMetadataId: idKAB }));
      expect([full.flags, full.columns.length]).toEqual([Rows.GLOBAL_TABLES_SPEC, 3]);
      expect(full.rows.map((r) => [intOf(r[0]), text(r[1]), intOf(r[2])])).toEqual([[1, 'x', 7]]);
    } finally {
      a.close();
    }
  });

  it('an LWT result always carries its metadata and never METADATA_CHANGED (CASSANDRA-13992)', async () => {
    await withConn(5, undefined, async (c) => {
      const p = await c.prepare('INSERT INTO pc.m (k, a) VALUES (?, ?) IF NOT EXISTS');
      expect(p.resultMetadataId).toEqual(md5(''));
      const opts = { resultMetadataId: p.resultMetadataId, skipMetadata: true };
      const applied = readRows(await c.execute(p.id, [intBytes(2), Buffer.from('y')], opts));
      expect([applied.flags, applied.columns.map((col) => col.name)]).toEqual([Rows.GLOBAL_TABLES_SPEC, ['[applied]']]);
      const refused = readRows(await c.execute(p.id, [intBytes(2), Buffer.from('z')], opts));
      expect(refused.flags).toBe(Rows.GLOBAL_TABLES_SPEC);
      expect(refused.columns.map((col) => col.name)).toEqual(['[applied]', 'k', 'a', 'b']);
      expect(text(refused.rows[0]![2])).toBe('y');
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('skip_metadata in v4', () => {
  it('Rows carry NO_METADATA only when asked; ALTER TABLE ADD makes the id UNPREPARED, ALTER WITH comment does not', async () => {
    await driver.execute('CREATE TABLE pc.s (k int PRIMARY KEY, a text)');
    await driver.execute("INSERT INTO pc.s (k, a) VALUES (1, 'x')");
    await withConn(4, undefined, async (c) => {
      const p = await c.prepare('SELECT * FROM pc.s WHERE k = ?');
      expect(p.resultMetadataId).toBeUndefined();
      const bare = readRows(await c.execute(p.id, [intBytes(1)], { skipMetadata: true }));
      expect([bare.flags, bare.count, bare.columns]).toEqual([Rows.NO_METADATA, 2, []]);
      const full = readRows(await c.execute(p.id, [intBytes(1)]));
      expect([full.flags, full.columns.map((col) => col.name)]).toEqual([Rows.GLOBAL_TABLES_SPEC, ['k', 'a']]);
      // table options that do not change what statements read or write leave them prepared
      await driver.execute("ALTER TABLE pc.s WITH comment = 'still prepared'");
      expect(readRows(await c.execute(p.id, [intBytes(1)], { skipMetadata: true })).count).toBe(2);
      await driver.execute('ALTER TABLE pc.s ADD b int');
      expect(readError(await c.execute(p.id, [intBytes(1)], { skipMetadata: true }))).toEqual({
        code: 0x2500,
        message: NOT_FOUND(p.id),
        id: p.id,
      });
      const again = await c.prepare('SELECT * FROM pc.s WHERE k = ?');
      expect(again.id).toEqual(p.id);
      expect(again.result.columns.map((col) => col.name)).toEqual(['k', 'a', 'b']);
      const after = readRows(await c.execute(p.id, [intBytes(1)], { skipMetadata: true }));
      expect([after.flags, after.count]).toEqual([Rows.NO_METADATA, 3]);
      expect(after.rows.map((r) => [intOf(r[0]), text(r[1]), r[2]])).toEqual([[1, 'x', null]]);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('re-prepare after schema changes', () => {
  it('cassandra-driver: a prepared SELECT * after DROP TABLE + CREATE TABLE with other columns returns the new ones', async () => {
    await driver.execute('CREATE TABLE pc.r (k int PRIMARY KEY, a text)');
    await driver.execute("INSERT INTO pc.r (k, a) VALUES (1, 'old')");
    const sql = 'SELECT * FROM pc.r WHERE k = ?';
    const before = await driver.execute(sql, [1], { prepare: true });
    expect(before.columns.map((col) => col.name)).toEqual(['k', 'a']);
    expect(before.rows.map((r) => ({ ...r }))).toEqual([{ k: 1, a: 'old' }]);
    await driver.execute('DROP TABLE pc.r');
    await driver.execute('CREATE TABLE pc.r (k int PRIMARY KEY, b int, c text)');
    await driver.execute("INSERT INTO pc.r (k, b, c) VALUES (1, 2, 'new')");
    const unprepared = await unpreparedCount();
    const after = await driver.execute(sql, [1], { prepare: true });
    expect(after.columns.map((col) => col.name)).toEqual(['k', 'b', 'c']);
    expect(after.rows.map((r) => ({ ...r }))).toEqual([{ k: 1, b: 2, c: 'new' }]);
    expect(await unpreparedCount()).toBe(unprepared + 1);
  });

  it('ALTER TABLE DROP of a bound column: the old INSERT is UNPREPARED and re-preparing it fails as in Cassandra', async () => {
    await driver.execute('CREATE TABLE pc.d (k int PRIMARY KEY, v text, w text)');
    const insert = 'INSERT INTO pc.d (k, v) VALUES (?, ?)';
    await driver.execute(insert, [1, 'a'], { prepare: true });
    const p = await withConn(4, undefined, (c) => c.prepare(insert));
    await driver.execute('ALTER TABLE pc.d DROP v');
    await withConn(4, undefined, async (c) => {
      expect(readError(await c.execute(p.id, [intBytes(2), Buffer.from('b')]))).toEqual({
        code: 0x2500,
        message: NOT_FOUND(p.id),
        id: p.id,
      });
      expect(readError(await c.prepareFrame(insert))).toEqual({
        code: 0x2200,
        message: 'Undefined column name v in table pc.d',
        id: undefined,
      });
    });
    // cassandra-driver re-prepares on UNPREPARED; that PREPARE fails, so it gives up on the host and reports the
    // UNPREPARED answer (the same exchange as with Cassandra)
    const err = await driver.execute(insert, [3, 'c'], { prepare: true }).then(
      () => expect.fail('the INSERT of a dropped column succeeded'),
      (e: unknown) => e as cassandra.errors.NoHostAvailableError,
    );
    expect(err).toBeInstanceOf(cassandra.errors.NoHostAvailableError);
    const inner = Object.values(err.innerErrors) as cassandra.errors.ResponseError[];
    expect(inner.map((e) => [e.code, e.message])).toEqual([[0x2500, NOT_FOUND(p.id)]]);
    // a statement that still fits the table is prepared afresh and works
    await driver.execute('INSERT INTO pc.d (k, w) VALUES (?, ?)', [4, 'w'], { prepare: true });
    const rows = (await driver.execute('SELECT * FROM pc.d')).rows.map((r) => ({ ...r }));
    expect(rows.sort((x, y) => x.k - y.k)).toEqual([
      { k: 1, w: null },
      { k: 4, w: 'w' },
    ]);
  });
});
