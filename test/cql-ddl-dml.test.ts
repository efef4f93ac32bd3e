// CQL core through the DataStax Node.js driver against the real server: keyspace and table DDL (with the
// errors Cassandra 5.0 gives), system_schema reflecting it, writes with TTL / timestamps / tombstones /
// deletions of columns, rows, partitions and clustering ranges, SELECT in its common forms, prepared
// statements with every native type and collections, paging, and token() range queries.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const { types } = cassandra;
const CODE = { syntax: 0x2000, invalid: 0x2200, alreadyExists: 0x2400 } as const;
const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
const FILTERING_MESSAGE =
  'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
  'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';

let server: ServerProcess;
let client: cassandra.Client;
const extraClients: cassandra.Client[] = [];

type Params = unknown[] | Record<string, unknown>;

async function q(query: string, params?: Params, options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params as unknown[], options);
}

async function rows(query: string, params?: Params, options: cassandra.QueryOptions = {}) {
  return (await q(query, params, options)).rows;
}

/** Plain objects of the rows (driver values kept), for toEqual. */
async function plain(query: string, params?: Params, options: cassandra.QueryOptions = {}) {
  return (await rows(query, params, options)).map((r) => ({ ...r }));
}

interface DriverError extends Error {
  code?: number;
  keyspace?: string;
  table?: string;
}

async function expectError(promise: Promise<unknown>, code: number, message?: string | RegExp): Promise<DriverError> {
  const err = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as DriverError | undefined;
  expect(err, 'expected the statement to fail').toBeInstanceOf(Error);
  expect(err?.code, `error code of: ${err?.message}`).toBe(code);
  if (typeof message === 'string') expect(err?.message).toContain(message);
  else if (message) expect(err?.message).toMatch(message);
  return err as DriverError;
}

function newClient(options: Partial<cassandra.ClientOptions> = {}): cassandra.Client {
  const c = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    ...options,
  });
  extraClients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

beforeAll(async () => {
  server = await startServer();
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
});

afterAll(async () => {
  reportIfDied(server);
  await Promise.all(extraClients.map((c) => c.shutdown().catch(() => undefined)));
  await client?.shutdown();
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------
describe('keyspace DDL', () => {
  it('CREATE KEYSPACE, IF NOT EXISTS, and AlreadyExists (0x2400) for an existing one', async () => {
    await q(`CREATE KEYSPACE ddl_ks WITH replication = ${REPLICATION}`);
    await q(`CREATE KEYSPACE IF NOT EXISTS ddl_ks WITH replication = ${REPLICATION}`);
    const err = await expectError(
      q(`CREATE KEYSPACE ddl_ks WITH replication = ${REPLICATION}`),
      CODE.alreadyExists,
      'Cannot add existing keyspace "ddl_ks"',
    );
    expect(err.keyspace).toBe('ddl_ks');
    const ks = await rows("SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ddl_ks'");
    expect(ks).toHaveLength(1);
    expect(ks[0].durable_writes).toBe(true);
    expect(ks[0].replication).toEqual({
      class: 'org.apache.cassandra.locator.SimpleStrategy',
      replication_factor: '1',
    });
  });

  it('keyspace names are case-insensitive unless quoted', async () => {
    await q(`CREATE KEYSPACE DDL_Upper WITH replication = ${REPLICATION}`);
    expect(
      await rows("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = 'ddl_upper'"),
    ).toHaveLength(1);
    await q(`CREATE KEYSPACE "DDL_Quoted" WITH replication = ${REPLICATION}`);
    expect(
      await rows("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = 'DDL_Quoted'"),
    ).toHaveLength(1);
    await q('DROP KEYSPACE ddl_upper');
    await q('DROP KEYSPACE "DDL_Quoted"');
  });

  it('ALTER KEYSPACE changes replication and durable_writes', async () => {
    await q(`CREATE KEYSPACE ddl_alter WITH replication = ${REPLICATION}`);
    await q(
      "ALTER KEYSPACE ddl_alter WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = false",
    );
    const ks = await rows("SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ddl_alter'");
    expect(ks[0].durable_writes).toBe(false);
    expect(ks[0].replication).toEqual({
      class: 'org.apache.cassandra.locator.NetworkTopologyStrategy',
      datacenter1: '1',
    });
    await expectError(q(`ALTER KEYSPACE ddl_no_such WITH replication = ${REPLICATION}`), CODE.invalid);
  });

  it('DROP KEYSPACE, IF EXISTS, and InvalidRequest (0x2200) for an unknown one', async () => {
    await q(`CREATE KEYSPACE ddl_drop WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE ddl_drop.t (k int PRIMARY KEY, v int)');
    await q('INSERT INTO ddl_drop.t (k, v) VALUES (1, 1)');
    await q('DROP KEYSPACE ddl_drop');
    expect(await rows("SELECT * FROM system_schema.keyspaces WHERE keyspace_name = 'ddl_drop'")).toHaveLength(0);
    expect(await rows("SELECT * FROM system_schema.tables WHERE keyspace_name = 'ddl_drop'")).toHaveLength(0);
    expect(await rows("SELECT * FROM system_schema.columns WHERE keyspace_name = 'ddl_drop'")).toHaveLength(0);
    await q('DROP KEYSPACE IF EXISTS ddl_drop');
    await expectError(q('DROP KEYSPACE ddl_drop'), CODE.invalid, "Keyspace 'ddl_drop' doesn't exist");
    await expectError(q('SELECT * FROM ddl_drop.t'), CODE.invalid);
    // re-created keyspace and table start empty
    await q(`CREATE KEYSPACE ddl_drop WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE ddl_drop.t (k int PRIMARY KEY, v int)');
    expect(await rows('SELECT * FROM ddl_drop.t')).toHaveLength(0);
  });

  it('cannot create or drop system keyspaces', async () => {
    await expectError(q(`CREATE KEYSPACE system WITH replication = ${REPLICATION}`), CODE.alreadyExists);
    const err = await q('DROP KEYSPACE system_schema').then(
      () => undefined,
      (e: DriverError) => e,
    );
    expect(err?.code).toBeDefined();
    expect([CODE.invalid, 0x2100]).toContain(err?.code);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('table DDL and system_schema', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS ddl WITH replication = ${REPLICATION}`);
  });

  it('a compound key with CLUSTERING ORDER BY DESC, a static column, shows in system_schema.columns', async () => {
    await q(
      'CREATE TABLE ddl.events (k text, c1 int, c2 timestamp, s text STATIC, v blob, n bigint, ' +
        "PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC) AND comment = 'hello'",
    );
    const cols = await rows(
      "SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns WHERE keyspace_name = 'ddl' AND table_name = 'events'",
    );
    const byName = Object.fromEntries(cols.map((r) => [r.column_name, { ...r }]));
    expect(Object.keys(byName).sort()).toEqual(['c1', 'c2', 'k', 'n', 's', 'v']);
    expect(byName.k).toMatchObject({ kind: 'partition_key', position: 0, clustering_order: 'none', type: 'text' });
    expect(byName.c1).toMatchObject({ kind: 'clustering', position: 0, clustering_order: 'desc', type: 'int' });
    expect(byName.c2).toMatchObject({ kind: 'clustering', position: 1, clustering_order: 'asc', type: 'timestamp' });
    expect(byName.s).toMatchObject({ kind: 'static', position: -1, clustering_order: 'none', type: 'text' });
    expect(byName.v).toMatchObject({ kind: 'regular', position: -1, clustering_order: 'none', type: 'blob' });
    expect(byName.n).toMatchObject({ kind: 'regular', position: -1, type: 'bigint' });
    const tables = await rows(
      "SELECT * FROM system_schema.tables WHERE keyspace_name = 'ddl' AND table_name = 'events'",
    );
    expect(tables).toHaveLength(1);
    expect(tables[0].comment).toBe('hello');
    expect(tables[0].id).toBeInstanceOf(types.Uuid);
    expect(tables[0].flags).toEqual(['compound']);
  });

  it('a composite partition key and collection / frozen column types', async () => {
    await q(
      'CREATE TABLE ddl.comp (a int, b text, c uuid, l list<int>, m map<text, frozen<list<int>>>, fs frozen<set<text>>, ' +
        'PRIMARY KEY ((a, b), c))',
    );
    const cols = await rows(
      "SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = 'ddl' AND table_name = 'comp'",
    );
    const byName = Object.fromEntries(cols.map((r) => [r.column_name, { ...r }]));
    expect(byName.a).toMatchObject({ kind: 'partition_key', position: 0, type: 'int' });
    expect(byName.b).toMatchObject({ kind: 'partition_key', position: 1, type: 'text' });
    expect(byName.c).toMatchObject({ kind: 'clustering', position: 0, type: 'uuid' });
    expect(byName.l.type).toBe('list<int>');
    expect(byName.m.type).toBe('map<text, frozen<list<int>>>');
    expect(byName.fs.type).toBe('frozen<set<text>>');
    const table = await client.metadata.getTable('ddl', 'comp');
    expect(table?.partitionKeys.map((c) => c.name)).toEqual(['a', 'b']);
    expect(table?.clusteringKeys.map((c) => c.name)).toEqual(['c']);
  });

  it('CREATE TABLE IF NOT EXISTS, AlreadyExists (0x2400) for an existing table', async () => {
    await q('CREATE TABLE ddl.dup (k int PRIMARY KEY)');
    await q('CREATE TABLE IF NOT EXISTS ddl.dup (k int PRIMARY KEY, other text)');
    const err = await expectError(
      q('CREATE TABLE ddl.dup (k int PRIMARY KEY)'),
      CODE.alreadyExists,
      'Cannot add already existing table "dup" to keyspace "ddl"',
    );
    expect(err.keyspace).toBe('ddl');
    expect(err.table).toBe('dup');
    // IF NOT EXISTS did not change the existing table
    const cols = await rows(
      "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ddl' AND table_name = 'dup'",
    );
    expect(cols.map((r) => r.column_name)).toEqual(['k']);
  });

  it('InvalidRequest (0x2200) for an unknown keyspace or table', async () => {
    await expectError(
      q('CREATE TABLE ddl_nope.t (k int PRIMARY KEY)'),
      CODE.invalid,
      "Keyspace 'ddl_nope' doesn't exist",
    );
    await expectError(q('SELECT * FROM ddl.nope'), CODE.invalid, 'nope');
    await expectError(q('SELECT * FROM ddl_nope.t'), CODE.invalid, 'ddl_nope');
    await expectError(q('INSERT INTO ddl.nope (k) VALUES (1)'), CODE.invalid);
    await expectError(q('DROP TABLE ddl.nope'), CODE.invalid, "Table 'ddl.nope' doesn't exist");
    await expectError(q('ALTER TABLE ddl.nope ADD x int'), CODE.invalid);
    await expectError(q('SELECT * FROM no_keyspace_table'), CODE.invalid, 'No keyspace has been specified');
  });

  it('InvalidRequest (0x2200) for bad table definitions and unknown columns', async () => {
    await expectError(q('CREATE TABLE ddl.bad1 (k int, v int)'), CODE.invalid);
    await expectError(q('CREATE TABLE ddl.bad2 (k int PRIMARY KEY, k text)'), CODE.invalid);
    await expectError(
      q('CREATE TABLE ddl.bad3 (k int PRIMARY KEY, v int) WITH CLUSTERING ORDER BY (v DESC)'),
      CODE.invalid,
    );
    await expectError(q('CREATE TABLE ddl.bad4 (k list<int> PRIMARY KEY)'), CODE.invalid);
    await expectError(q('SELECT nope FROM ddl.dup'), CODE.invalid, 'nope');
    await expectError(q('INSERT INTO ddl.dup (k, nope) VALUES (1, 2)'), CODE.invalid);
  });

  it('SyntaxError (0x2000) for garbage', async () => {
    await expectError(q('SELEC * FROM ddl.dup'), CODE.syntax);
    await expectError(q('CREATE TABLE ddl.x ('), CODE.syntax);
    await expectError(q('SELECT * FROM ddl.dup WHERE'), CODE.syntax);
    await expectError(q('INSERT INTO ddl.dup (k) VALUES'), CODE.syntax);
    await expectError(q('this is not cql'), CODE.syntax);
    await expectError(q("SELECT * FROM ddl.dup WHERE k = 'unterminated"), CODE.syntax);
  });

  it('ALTER TABLE ADD / DROP / WITH, reflected in system_schema', async () => {
    await q('CREATE TABLE ddl.alt (k int PRIMARY KEY, a text)');
    await q("INSERT INTO ddl.alt (k, a) VALUES (1, 'x')");
    await q('ALTER TABLE ddl.alt ADD b int');
    await q('ALTER TABLE ddl.alt ADD (c set<text>, d double)');
    expect(await plain('SELECT * FROM ddl.alt')).toEqual([{ k: 1, a: 'x', b: null, c: null, d: null }]);
    await q("INSERT INTO ddl.alt (k, b, c) VALUES (1, 2, {'p'})");
    await q('ALTER TABLE ddl.alt DROP a');
    expect(await plain('SELECT * FROM ddl.alt')).toEqual([{ k: 1, b: 2, c: ['p'], d: null }]);
    await q("ALTER TABLE ddl.alt WITH comment = 'altered' AND default_time_to_live = 100");
    const t = await rows(
      "SELECT comment, default_time_to_live FROM system_schema.tables WHERE keyspace_name = 'ddl' AND table_name = 'alt'",
    );
    expect(t[0].comment).toBe('altered');
    expect(t[0].default_time_to_live).toBe(100);
    const cols = await rows(
      "SELECT column_name FROM system_schema.columns WHERE keyspace_name = 'ddl' AND table_name = 'alt'",
    );
    expect(cols.map((r) => r.column_name).sort()).toEqual(['b', 'c', 'd', 'k']);
    await expectError(q('ALTER TABLE ddl.alt ADD b text'), CODE.invalid);
    await expectError(q('ALTER TABLE ddl.alt DROP k'), CODE.invalid);
    await expectError(q('ALTER TABLE ddl.alt DROP nope'), CODE.invalid);
  });

  it('a dropped and re-added column does not resurrect old values', async () => {
    await q('CREATE TABLE ddl.readd (k int PRIMARY KEY, v text)');
    await q("INSERT INTO ddl.readd (k, v) VALUES (1, 'old')");
    await q('ALTER TABLE ddl.readd DROP v');
    await q('ALTER TABLE ddl.readd ADD v text');
    expect(await plain('SELECT * FROM ddl.readd')).toEqual([{ k: 1, v: null }]);
  });

  it('DROP TABLE, IF EXISTS', async () => {
    await q('CREATE TABLE ddl.gone (k int PRIMARY KEY)');
    await q('INSERT INTO ddl.gone (k) VALUES (1)');
    await q('DROP TABLE ddl.gone');
    await q('DROP TABLE IF EXISTS ddl.gone');
    expect(
      await rows("SELECT * FROM system_schema.tables WHERE keyspace_name = 'ddl' AND table_name = 'gone'"),
    ).toHaveLength(0);
    await q('CREATE TABLE ddl.gone (k int PRIMARY KEY)');
    expect(await rows('SELECT * FROM ddl.gone')).toHaveLength(0);
  });

  it('USE ks makes unqualified names resolve in ks (driver keyspace option and USE statement)', async () => {
    await q('CREATE TABLE IF NOT EXISTS ddl.used (k int PRIMARY KEY, v text)');
    await q("INSERT INTO ddl.used (k, v) VALUES (1, 'one')");
    const scoped = newClient({ keyspace: 'ddl' });
    await scoped.connect();
    expect((await scoped.execute('SELECT v FROM used WHERE k = 1')).rows[0].v).toBe('one');
    expect((await scoped.execute('SELECT v FROM used WHERE k = ?', [1], { prepare: true })).rows[0].v).toBe('one');
    await scoped.execute("INSERT INTO used (k, v) VALUES (2, 'two')");
    expect((await q('SELECT v FROM ddl.used WHERE k = 2')).rows[0].v).toBe('two');
    const other = newClient();
    await other.connect();
    await other.execute('USE ddl');
    expect(other.keyspace).toBe('ddl');
    expect((await other.execute('SELECT v FROM used WHERE k = 2')).rows[0].v).toBe('two');
    await expectError(other.execute('USE ddl_no_such_ks'), CODE.invalid, "Keyspace 'ddl_no_such_ks' does not exist");
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('writes', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS dml WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE dml.kv (k int PRIMARY KEY, a text, b int)');
    await q('CREATE TABLE dml.ck (k int, c int, v text, s int STATIC, PRIMARY KEY (k, c))');
  });

  it('INSERT, then UPDATE (upsert) of a new and an existing row', async () => {
    await q("INSERT INTO dml.kv (k, a, b) VALUES (1, 'x', 10)");
    await q("UPDATE dml.kv SET a = 'y' WHERE k = 1");
    await q('UPDATE dml.kv SET b = 20 WHERE k = 2');
    expect(await plain('SELECT * FROM dml.kv WHERE k IN (1, 2)')).toEqual([
      { k: 1, a: 'y', b: 10 },
      { k: 2, a: null, b: 20 },
    ]);
  });

  it('USING TIMESTAMP sets writetime() and older writes lose', async () => {
    await q("INSERT INTO dml.kv (k, a, b) VALUES (10, 'new', 1) USING TIMESTAMP 2000");
    await q("INSERT INTO dml.kv (k, a, b) VALUES (10, 'old', 2) USING TIMESTAMP 1000");
    await q('UPDATE dml.kv USING TIMESTAMP 3000 SET b = 3 WHERE k = 10');
    const rs = await q('SELECT a, b, writetime(a), writetime(b) FROM dml.kv WHERE k = 10');
    expect(rs.columns.map((c) => c.name)).toEqual(['a', 'b', 'writetime(a)', 'writetime(b)']);
    expect(rs.columns[2].type.code).toBe(types.dataTypes.bigint);
    const row = rs.rows[0];
    expect(row.a).toBe('new');
    expect(row.b).toBe(3);
    expect(String(row['writetime(a)'])).toBe('2000');
    expect(String(row['writetime(b)'])).toBe('3000');
    // a delete older than the data does not remove it; a newer one does
    await q('DELETE FROM dml.kv USING TIMESTAMP 1500 WHERE k = 10');
    expect(await rows('SELECT a FROM dml.kv WHERE k = 10')).toHaveLength(1);
    await q('DELETE a FROM dml.kv USING TIMESTAMP 2500 WHERE k = 10');
    expect(await plain('SELECT a, b FROM dml.kv WHERE k = 10')).toEqual([{ a: null, b: 3 }]);
  });

  it('a same-timestamp tie is broken as Cassandra does (the greater value wins)', async () => {
    await q("INSERT INTO dml.kv (k, a) VALUES (11, 'aaa') USING TIMESTAMP 5000");
    await q("INSERT INTO dml.kv (k, a) VALUES (11, 'bbb') USING TIMESTAMP 5000");
    await q("INSERT INTO dml.kv (k, a) VALUES (11, 'abc') USING TIMESTAMP 5000");
    expect((await rows('SELECT a FROM dml.kv WHERE k = 11'))[0].a).toBe('bbb');
  });

  it('writetime() of a server-timestamped write is about now, in microseconds', async () => {
    const before = Date.now() * 1000;
    await q("INSERT INTO dml.kv (k, a) VALUES (12, 'now')");
    const after = Date.now() * 1000;
    const [row] = await rows('SELECT writetime(a) FROM dml.kv WHERE k = 12');
    const w = Number(String(row['writetime(a)']));
    expect(w).toBeGreaterThanOrEqual(before - 5_000_000);
    expect(w).toBeLessThanOrEqual(after + 5_000_000);
  });

  it('USING TTL sets ttl() and the value expires', async () => {
    await q("INSERT INTO dml.kv (k, a, b) VALUES (20, 'ttl', 1) USING TTL 1000");
    const [row] = await rows('SELECT ttl(a), ttl(b) FROM dml.kv WHERE k = 20');
    expect(row['ttl(a)']).toBeGreaterThan(990);
    expect(row['ttl(a)']).toBeLessThanOrEqual(1000);
    await q('UPDATE dml.kv USING TTL 500 SET b = 2 WHERE k = 20');
    const [row2] = await rows('SELECT ttl(a), ttl(b) FROM dml.kv WHERE k = 20');
    expect(row2['ttl(b)']).toBeGreaterThan(490);
    expect(row2['ttl(b)']).toBeLessThanOrEqual(500);
    expect(row2['ttl(a)']).toBeGreaterThan(990);
    // no TTL: ttl() is null
    await q("INSERT INTO dml.kv (k, a) VALUES (24, 'forever')");
    expect((await rows('SELECT ttl(a) FROM dml.kv WHERE k = 24'))[0]['ttl(a)']).toBeNull();
    // TTL 2: at least one whole second left for the first read, gone 2.1 s later
    await q("INSERT INTO dml.kv (k, a) VALUES (21, 'short') USING TTL 2");
    await q('UPDATE dml.kv SET b = 7 WHERE k = 22');
    await q("UPDATE dml.kv USING TTL 2 SET a = 'short' WHERE k = 22");
    expect(await rows('SELECT * FROM dml.kv WHERE k = 21')).toHaveLength(1);
    await sleep(2100);
    expect(await rows('SELECT * FROM dml.kv WHERE k = 21')).toHaveLength(0);
    expect(await plain('SELECT a, b FROM dml.kv WHERE k = 22')).toEqual([{ a: null, b: 7 }]);
    await expectError(q("INSERT INTO dml.kv (k, a) VALUES (23, 'x') USING TTL -1"), CODE.invalid);
  });

  it('a table default_time_to_live applies to writes without USING TTL', async () => {
    await q('CREATE TABLE dml.dttl (k int PRIMARY KEY, v int) WITH default_time_to_live = 300');
    await q('INSERT INTO dml.dttl (k, v) VALUES (1, 1)');
    const [row] = await rows('SELECT ttl(v) FROM dml.dttl WHERE k = 1');
    expect(row['ttl(v)']).toBeGreaterThan(290);
    expect(row['ttl(v)']).toBeLessThanOrEqual(300);
  });

  it('writetime() and ttl() keep their values under an alias', async () => {
    await q("INSERT INTO dml.kv (k, a) VALUES (25, 'aliased') USING TIMESTAMP 2000 AND TTL 1000");
    const rs = await q('SELECT writetime(a) AS wa, ttl(a) AS ta FROM dml.kv WHERE k = 25');
    expect(rs.columns.map((c) => c.name)).toEqual(['wa', 'ta']);
    expect(String(rs.rows[0].wa)).toBe('2000');
    expect(rs.rows[0].ta).toBeGreaterThan(990);
  });

  it('null is a tombstone: INSERT of null removes the cell but keeps the row', async () => {
    await q("INSERT INTO dml.kv (k, a, b) VALUES (30, 'v', 1)");
    await q('INSERT INTO dml.kv (k, a) VALUES (30, null)');
    expect(await plain('SELECT * FROM dml.kv WHERE k = 30')).toEqual([{ k: 30, a: null, b: 1 }]);
    await q('UPDATE dml.kv SET b = null WHERE k = 30');
    expect(await plain('SELECT * FROM dml.kv WHERE k = 30')).toEqual([{ k: 30, a: null, b: null }]);
    // prepared null is a tombstone too
    await q('INSERT INTO dml.kv (k, a, b) VALUES (?, ?, ?)', [31, 'p', 5], { prepare: true });
    await q('INSERT INTO dml.kv (k, a, b) VALUES (?, ?, ?)', [31, null, 6], { prepare: true });
    expect(await plain('SELECT * FROM dml.kv WHERE k = 31')).toEqual([{ k: 31, a: null, b: 6 }]);
  });

  it('DELETE of a column; a row made only by UPDATE disappears when its last column goes', async () => {
    await q("INSERT INTO dml.kv (k, a, b) VALUES (40, 'a', 1)");
    await q('DELETE a, b FROM dml.kv WHERE k = 40');
    expect(await plain('SELECT * FROM dml.kv WHERE k = 40')).toEqual([{ k: 40, a: null, b: null }]);
    await q("UPDATE dml.kv SET a = 'u' WHERE k = 41");
    await q('DELETE a FROM dml.kv WHERE k = 41');
    expect(await rows('SELECT * FROM dml.kv WHERE k = 41')).toHaveLength(0);
  });

  it('DELETE of a row, of a partition, and of a clustering range', async () => {
    for (let c = 0; c < 8; c++)
      await q('INSERT INTO dml.ck (k, c, v) VALUES (?, ?, ?)', [1, c, `v${c}`], { prepare: true });
    for (let c = 0; c < 3; c++)
      await q('INSERT INTO dml.ck (k, c, v) VALUES (?, ?, ?)', [2, c, `w${c}`], { prepare: true });
    await q('UPDATE dml.ck SET s = 9 WHERE k = 1');
    await q('DELETE FROM dml.ck WHERE k = 1 AND c = 0');
    expect((await rows('SELECT c FROM dml.ck WHERE k = 1')).map((r) => r.c)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await q('DELETE FROM dml.ck WHERE k = 1 AND c > 5');
    expect((await rows('SELECT c FROM dml.ck WHERE k = 1')).map((r) => r.c)).toEqual([1, 2, 3, 4, 5]);
    await q('DELETE FROM dml.ck WHERE k = 1 AND c >= 2 AND c < 4');
    expect((await rows('SELECT c FROM dml.ck WHERE k = 1')).map((r) => r.c)).toEqual([1, 4, 5]);
    // the static column survives row and range deletions
    expect((await rows('SELECT DISTINCT k, s FROM dml.ck WHERE k = 1'))[0].s).toBe(9);
    // a write older than the range tombstone stays deleted, a newer one comes back
    await q("INSERT INTO dml.ck (k, c, v) VALUES (1, 7, 'old') USING TIMESTAMP 1");
    expect((await rows('SELECT c FROM dml.ck WHERE k = 1')).map((r) => r.c)).toEqual([1, 4, 5]);
    await q("INSERT INTO dml.ck (k, c, v) VALUES (1, 7, 'new')");
    expect((await rows('SELECT c FROM dml.ck WHERE k = 1')).map((r) => r.c)).toEqual([1, 4, 5, 7]);
    await q('DELETE FROM dml.ck WHERE k = 1');
    expect(await rows('SELECT * FROM dml.ck WHERE k = 1')).toHaveLength(0);
    expect((await rows('SELECT c FROM dml.ck WHERE k = 2')).map((r) => r.c)).toEqual([0, 1, 2]);
  });

  it('DELETE of a static column and of a row leaves the other partition data', async () => {
    await q("INSERT INTO dml.ck (k, c, v, s) VALUES (3, 1, 'a', 5)");
    await q('DELETE s FROM dml.ck WHERE k = 3');
    expect(await plain('SELECT k, c, v, s FROM dml.ck WHERE k = 3')).toEqual([{ k: 3, c: 1, v: 'a', s: null }]);
  });

  it('rejects writes without the full primary key', async () => {
    await expectError(q("INSERT INTO dml.ck (k, v) VALUES (1, 'x')"), CODE.invalid);
    await expectError(q("UPDATE dml.ck SET v = 'x' WHERE k = 1"), CODE.invalid);
    await expectError(q("INSERT INTO dml.kv (a) VALUES ('x')"), CODE.invalid);
    await expectError(q('DELETE FROM dml.kv WHERE a = 1'), CODE.invalid);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('SELECT', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS sel WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE sel.t (k int, c int, v int, name text, PRIMARY KEY (k, c))');
    await q('CREATE TABLE sel.d (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)');
    const insert = 'INSERT INTO sel.t (k, c, v, name) VALUES (?, ?, ?, ?)';
    const insertD = 'INSERT INTO sel.d (k, c, v) VALUES (?, ?, ?)';
    for (let k = 0; k < 5; k++) {
      for (let c = 0; c < 10; c++) {
        await q(insert, [k, c, k * 100 + c, `n${k}-${c}`], { prepare: true });
        await q(insertD, [k, c, k * 100 + c], { prepare: true });
      }
    }
  });

  it('SELECT * returns partition key, clustering, then regular columns in alphabetical order', async () => {
    const rs = await q('SELECT * FROM sel.t WHERE k = 1 AND c = 2');
    expect(rs.columns.map((c) => c.name)).toEqual(['k', 'c', 'name', 'v']);
    expect({ ...rs.rows[0] }).toEqual({ k: 1, c: 2, name: 'n1-2', v: 102 });
  });

  it('column lists and aliases', async () => {
    const rs = await q('SELECT v AS value, k, name AS "Label" FROM sel.t WHERE k = 2 AND c = 3');
    expect(rs.columns.map((c) => c.name)).toEqual(['value', 'k', 'Label']);
    expect({ ...rs.rows[0] }).toEqual({ value: 203, k: 2, Label: 'n2-3' });
  });

  it('partition key = and IN', async () => {
    expect(await rows('SELECT * FROM sel.t WHERE k = 3')).toHaveLength(10);
    const inRows = await rows('SELECT k, c FROM sel.t WHERE k IN (4, 1) AND c = 0');
    expect(inRows.map((r) => r.k).sort()).toEqual([1, 4]);
    expect(await rows('SELECT * FROM sel.t WHERE k = 99')).toHaveLength(0);
  });

  it('clustering =, IN and slices', async () => {
    const cs = async (where: string) => (await rows(`SELECT c FROM sel.t WHERE k = 1 AND ${where}`)).map((r) => r.c);
    expect(await cs('c = 4')).toEqual([4]);
    expect(await cs('c IN (7, 2, 5)')).toEqual([2, 5, 7]);
    expect(await cs('c > 6')).toEqual([7, 8, 9]);
    expect(await cs('c >= 6 AND c < 8')).toEqual([6, 7]);
    expect(await cs('c <= 1')).toEqual([0, 1]);
    expect(await cs('c > 3 AND c <= 3')).toEqual([]);
    expect(await cs('c IN (100)')).toEqual([]);
  });

  it('ORDER BY DESC / ASC and a DESC clustering order table', async () => {
    expect((await rows('SELECT c FROM sel.t WHERE k = 1 ORDER BY c DESC')).map((r) => r.c)).toEqual([
      9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    ]);
    expect((await rows('SELECT c FROM sel.t WHERE k = 1 AND c < 3 ORDER BY c DESC')).map((r) => r.c)).toEqual([
      2, 1, 0,
    ]);
    expect((await rows('SELECT c FROM sel.d WHERE k = 1')).map((r) => r.c)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect((await rows('SELECT c FROM sel.d WHERE k = 1 ORDER BY c ASC')).map((r) => r.c)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect((await rows('SELECT c FROM sel.d WHERE k = 1 AND c >= 7')).map((r) => r.c)).toEqual([9, 8, 7]);
    await expectError(q('SELECT c FROM sel.t ORDER BY c DESC'), CODE.invalid);
    await expectError(q('SELECT c FROM sel.t WHERE k = 1 ORDER BY v DESC'), CODE.invalid);
  });

  it('ORDER BY with IN on the partition key is refused when paging', async () => {
    await expectError(
      q('SELECT k, c FROM sel.t WHERE k IN (1, 2) AND c < 2 ORDER BY c DESC', [], { fetchSize: 100 }),
      CODE.invalid,
      'Cannot page queries with both ORDER BY and a IN restriction on the partition key; you must either remove the ' +
        'ORDER BY or the IN and sort client side, or disable paging for this query',
    );
  });

  it('ORDER BY with IN on the partition key sorts across partitions (paging off)', async () => {
    const r = await rows('SELECT k, c FROM sel.t WHERE k IN (1, 2) AND c < 2 ORDER BY c DESC', [], {
      autoPage: false,
      fetchSize: 0,
    } as cassandra.QueryOptions);
    expect(r.map((x) => x.c)).toEqual([1, 1, 0, 0]);
  });

  it('LIMIT and PER PARTITION LIMIT', async () => {
    expect(await rows('SELECT * FROM sel.t WHERE k = 1 LIMIT 3')).toHaveLength(3);
    expect(await rows('SELECT * FROM sel.t LIMIT 7')).toHaveLength(7);
    const ppl = await rows('SELECT k, c FROM sel.t PER PARTITION LIMIT 2');
    expect(ppl).toHaveLength(10);
    const perK = new Map<number, number[]>();
    for (const r of ppl) perK.set(r.k, [...(perK.get(r.k) ?? []), r.c]);
    for (const cs of perK.values()) expect(cs).toEqual([0, 1]);
    expect(await rows('SELECT k, c FROM sel.t PER PARTITION LIMIT 2 LIMIT 3')).toHaveLength(3);
    await expectError(q('SELECT * FROM sel.t LIMIT 0'), CODE.invalid);
  });

  it('DISTINCT partition keys', async () => {
    const r = await rows('SELECT DISTINCT k FROM sel.t');
    expect(r.map((x) => x.k).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await rows('SELECT DISTINCT k FROM sel.t WHERE k = 2')).toHaveLength(1);
    await expectError(q('SELECT DISTINCT c FROM sel.t'), CODE.invalid);
  });

  it('count(*), count(column), min/max', async () => {
    const all = await rows('SELECT count(*) FROM sel.t');
    expect(String(all[0].count)).toBe('50');
    expect(String((await rows('SELECT count(*) AS n FROM sel.t WHERE k = 1 AND c > 4'))[0].n)).toBe('5');
    const [mm] = await rows('SELECT min(v) AS lo, max(v) AS hi, count(name) AS n FROM sel.t WHERE k = 3');
    expect(mm.lo).toBe(300);
    expect(mm.hi).toBe(309);
    expect(String(mm.n)).toBe('10');
    expect(String((await rows('SELECT count(*) FROM sel.t WHERE k = 42'))[0].count)).toBe('0');
  });

  it('COUNT(1) is count(*) with the column name count', async () => {
    const rs = await q('SELECT COUNT(1) FROM sel.t WHERE k = 2');
    expect(rs.columns.map((c) => c.name)).toEqual(['count']);
    expect(String(rs.rows[0].count)).toBe('10');
  });

  it('ALLOW FILTERING on regular and clustering columns; the exact error without it', async () => {
    await expectError(q('SELECT * FROM sel.t WHERE v = 203'), CODE.invalid, FILTERING_MESSAGE);
    await expectError(q('SELECT * FROM sel.t WHERE k = 2 AND v = 203'), CODE.invalid, FILTERING_MESSAGE);
    await expectError(q('SELECT * FROM sel.t WHERE c = 3'), CODE.invalid, FILTERING_MESSAGE);
    expect(await plain('SELECT k, c FROM sel.t WHERE v = 203 ALLOW FILTERING')).toEqual([{ k: 2, c: 3 }]);
    expect(await plain('SELECT k, c FROM sel.t WHERE k = 2 AND v > 207 ALLOW FILTERING')).toEqual([
      { k: 2, c: 8 },
      { k: 2, c: 9 },
    ]);
    expect(await rows("SELECT k FROM sel.t WHERE name = 'n4-9' ALLOW FILTERING")).toHaveLength(1);
    const counted = await rows('SELECT count(*) FROM sel.t WHERE v >= 400 ALLOW FILTERING');
    expect(String(counted[0].count)).toBe('10');
  });

  it('ALLOW FILTERING on a clustering column without the partition key', async () => {
    const byC = await rows('SELECT k, c FROM sel.t WHERE c = 3 ALLOW FILTERING');
    expect(byC.map((r) => r.k).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(byC.every((r) => r.c === 3)).toBe(true);
    expect(await rows('SELECT k, c FROM sel.t WHERE c > 7 ALLOW FILTERING')).toHaveLength(10);
    expect(await rows('SELECT k, c FROM sel.t WHERE c > 7 AND v < 200 ALLOW FILTERING')).toHaveLength(4);
  });

  it('rejects restricting only part of a composite key or skipping a clustering column', async () => {
    await q('CREATE TABLE IF NOT EXISTS sel.pk2 (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d))');
    await q('INSERT INTO sel.pk2 (a, b, c, d, v) VALUES (1, 2, 3, 4, 5)');
    expect(await rows('SELECT v FROM sel.pk2 WHERE a = 1 AND b = 2')).toHaveLength(1);
    expect(await rows('SELECT v FROM sel.pk2 WHERE a = 1 AND b = 2 AND c = 3 AND d = 4')).toHaveLength(1);
    await expectError(q('SELECT v FROM sel.pk2 WHERE a = 1'), CODE.invalid);
    await expectError(q('SELECT v FROM sel.pk2 WHERE a = 1 AND b = 2 AND d = 4'), CODE.invalid);
    expect(await rows('SELECT v FROM sel.pk2 WHERE a = 1 AND b = 2 AND d = 4 ALLOW FILTERING')).toHaveLength(1);
    expect(await rows('SELECT v FROM sel.pk2 WHERE a = 1 AND b = 2 AND (c, d) >= (3, 4)')).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('mixed clustering orders', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS mixed WITH replication = ${REPLICATION}`);
    await q(
      'CREATE TABLE mixed.m (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)',
    );
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++)
        await q('INSERT INTO mixed.m (k, c1, c2, v) VALUES (1, ?, ?, 0)', [a, b], { prepare: true });
    }
  });

  const pairs = async (query: string) => (await rows(query)).map((r) => [r.c1, r.c2]);

  it('reads in declared order; prefix and slice restrictions', async () => {
    expect(await pairs('SELECT c1, c2 FROM mixed.m WHERE k = 1')).toEqual([
      [2, 0],
      [2, 1],
      [2, 2],
      [1, 0],
      [1, 1],
      [1, 2],
      [0, 0],
      [0, 1],
      [0, 2],
    ]);
    expect(await pairs('SELECT c1, c2 FROM mixed.m WHERE k = 1 AND c1 = 1 AND c2 > 0')).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(await pairs('SELECT c1, c2 FROM mixed.m WHERE k = 1 AND c1 < 1')).toEqual([
      [0, 0],
      [0, 1],
      [0, 2],
    ]);
    expect(await pairs('SELECT c1, c2 FROM mixed.m WHERE k = 1 ORDER BY c1 ASC, c2 DESC LIMIT 2')).toEqual([
      [0, 2],
      [0, 1],
    ]);
  });

  it('a multi-column slice over mixed-order clustering columns', async () => {
    // (c1, c2) > (1, 1) in tuple order: c1 > 1, or c1 = 1 and c2 > 1; returned in clustering order
    expect(await pairs('SELECT c1, c2 FROM mixed.m WHERE k = 1 AND (c1, c2) > (1, 1)')).toEqual([
      [2, 0],
      [2, 1],
      [2, 2],
      [1, 2],
    ]);
  });

  it('range deletions on a prefix and on a DESC column', async () => {
    await q(
      'CREATE TABLE mixed.del (k int, c1 int, c2 int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)',
    );
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 3; b++)
        await q('INSERT INTO mixed.del (k, c1, c2) VALUES (1, ?, ?)', [a, b], { prepare: true });
    }
    await q('DELETE FROM mixed.del WHERE k = 1 AND c1 = 3');
    await q('DELETE FROM mixed.del WHERE k = 1 AND c1 = 2 AND c2 >= 1');
    await q('DELETE FROM mixed.del WHERE k = 1 AND c1 < 1');
    await q('DELETE FROM mixed.del WHERE k = 1 AND c1 = 1 AND c2 IN (0, 2)');
    expect((await rows('SELECT c1, c2 FROM mixed.del WHERE k = 1')).map((r) => [r.c1, r.c2])).toEqual([
      [2, 0],
      [1, 1],
    ]);
  });

  it('an aggregate is one row whatever the page size', async () => {
    const rs = await q('SELECT count(*), max(c2) FROM mixed.m', [], { fetchSize: 2 });
    expect(rs.rows).toHaveLength(1);
    expect(String(rs.rows[0].count)).toBe('9');
    expect(rs.rows[0]['system.max(c2)']).toBe(2);
    expect(rs.pageState ?? null).toBeNull();
  });

  it('UPDATE and SELECT with IN on the partition key', async () => {
    await q('UPDATE mixed.m SET v = 5 WHERE k IN (1, 2) AND c1 = 0 AND c2 = 0');
    const r = await rows('SELECT k, v FROM mixed.m WHERE k IN (1, 2) AND c1 = 0 AND c2 = 0');
    expect(r.map((x) => [x.k, x.v]).sort()).toEqual([
      [1, 5],
      [2, 5],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('prepared statements and types', () => {
  const ALL_TYPES =
    'k int PRIMARY KEY, a ascii, bi bigint, bl blob, bo boolean, da date, de decimal, do double, du duration, ' +
    'fl float, ine inet, i int, si smallint, te text, ti time, ts timestamp, tu timeuuid, tiny tinyint, u uuid, vi varint, ' +
    'st set<int>, li list<text>, ma map<text, int>, fst frozen<set<text>>, fli frozen<list<int>>, fma frozen<map<int, text>>, ' +
    'tup tuple<int, text>, nested map<text, frozen<list<int>>>';
  const COLUMNS = [
    'a',
    'bi',
    'bl',
    'bo',
    'da',
    'de',
    'do',
    'du',
    'fl',
    'ine',
    'i',
    'si',
    'te',
    'ti',
    'ts',
    'tu',
    'tiny',
    'u',
    'vi',
  ];

  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS typ WITH replication = ${REPLICATION}`);
    await q(`CREATE TABLE typ.all_types (${ALL_TYPES})`);
  });

  function sample() {
    return {
      a: 'ascii only',
      bi: types.Long.fromString('-9223372036854775808'),
      bl: Buffer.from([0, 1, 2, 255]),
      bo: true,
      da: types.LocalDate.fromString('2024-02-29'),
      de: types.BigDecimal.fromString('-12345678901234567890.0123456789'),
      do: -1.2345678901234e300,
      du: new types.Duration(1, 2, types.Long.fromString('3000000004')),
      fl: 1.5,
      ine: types.InetAddress.fromString('2001:db8::1'),
      i: -2147483648,
      si: -32768,
      te: 'unicode ✓ text 日本',
      ti: types.LocalTime.fromString('13:45:10.123456789'),
      ts: new Date('2024-01-02T03:04:05.678Z'),
      tu: types.TimeUuid.fromString('e7e1a200-4b1f-11ee-8000-000000000001'),
      tiny: -128,
      u: types.Uuid.fromString('123e4567-e89b-42d3-a456-426614174000'),
      vi: types.Integer.fromString('123456789012345678901234567890'),
    };
  }

  function normalise(value: unknown): unknown {
    if (value === null || value === undefined) return null;
    if (Buffer.isBuffer(value)) return `0x${value.toString('hex')}`;
    if (value instanceof Date) return value.toISOString();
    if (Array.isArray(value)) return value.map(normalise);
    if (value instanceof Map) return [...value.entries()].map(([k, v]) => [normalise(k), normalise(v)]);
    if (typeof value === 'object' && value.constructor === Object) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, normalise(v)]));
    }
    if (typeof value === 'object') return String(value);
    return value;
  }

  it('every native type round-trips through a prepared INSERT and SELECT', async () => {
    const values = sample();
    await q(
      `INSERT INTO typ.all_types (k, ${COLUMNS.join(', ')}) VALUES (1, ${COLUMNS.map(() => '?').join(', ')})`,
      Object.values(values),
      {
        prepare: true,
      },
    );
    const [row] = await rows(`SELECT ${COLUMNS.join(', ')} FROM typ.all_types WHERE k = ?`, [1], { prepare: true });
    for (const col of COLUMNS) {
      expect(normalise(row[col]), col).toEqual(normalise(values[col as keyof typeof values]));
    }
  });

  it('the same values written as CQL literals read back equal', async () => {
    const literals =
      "'ascii only', -9223372036854775808, 0x000102ff, true, '2024-02-29', -12345678901234567890.0123456789, " +
      "-1.2345678901234e300, 1mo2d3s4ns, 1.5, '2001:db8::1', -2147483648, -32768, 'unicode ✓ text 日本', " +
      "'13:45:10.123456789', '2024-01-02T03:04:05.678Z', e7e1a200-4b1f-11ee-8000-000000000001, -128, " +
      '123e4567-e89b-42d3-a456-426614174000, 123456789012345678901234567890';
    await q(`INSERT INTO typ.all_types (k, ${COLUMNS.join(', ')}) VALUES (2, ${literals})`);
    const [fromLiterals] = await rows(`SELECT ${COLUMNS.join(', ')} FROM typ.all_types WHERE k = 2`);
    const values = sample();
    for (const col of COLUMNS) {
      expect(normalise(fromLiterals[col]), col).toEqual(normalise(values[col as keyof typeof values]));
    }
  });

  it('extreme values of the numeric types', async () => {
    const cols = ['bi', 'i', 'si', 'tiny', 'do', 'fl', 'vi', 'de'];
    const maxes = [
      types.Long.fromString('9223372036854775807'),
      2147483647,
      32767,
      127,
      Number.MAX_VALUE,
      3.4028234663852886e38,
      types.Integer.fromString('-1'),
      types.BigDecimal.fromString('0.000000000000000000001'),
    ];
    await q(`INSERT INTO typ.all_types (k, ${cols.join(', ')}) VALUES (3, ${cols.map(() => '?').join(', ')})`, maxes, {
      prepare: true,
    });
    const [row] = await rows(`SELECT ${cols.join(', ')} FROM typ.all_types WHERE k = 3`, [], {});
    cols.forEach((c, i) => {
      expect(normalise(row[c]), c).toEqual(normalise(maxes[i]));
    });
    await q('INSERT INTO typ.all_types (k, do, fl) VALUES (4, ?, ?)', [Number.NaN, Number.NEGATIVE_INFINITY], {
      prepare: true,
    });
    const [special] = await rows('SELECT do, fl FROM typ.all_types WHERE k = 4');
    expect(Number.isNaN(special.do)).toBe(true);
    expect(special.fl).toBe(Number.NEGATIVE_INFINITY);
  });

  it('varint byte boundaries round-trip as bound values and as literals', async () => {
    const values = [
      '0',
      '-1',
      '127',
      '128',
      '-128',
      '-129',
      '255',
      '256',
      '-256',
      '18446744073709551616',
      '-18446744073709551616',
    ];
    for (const v of values) {
      await q('INSERT INTO typ.all_types (k, vi) VALUES (5, ?)', [types.Integer.fromString(v)], { prepare: true });
      expect(String((await rows('SELECT vi FROM typ.all_types WHERE k = 5'))[0].vi), v).toBe(v);
      await q(`INSERT INTO typ.all_types (k, vi) VALUES (6, ${v})`);
      expect(String((await rows('SELECT vi FROM typ.all_types WHERE k = 6'))[0].vi), v).toBe(v);
    }
  });

  it('temporal and inet literals at their edges', async () => {
    const read = async (col: string, literal: string) => {
      await q(`INSERT INTO typ.all_types (k, ${col}) VALUES (7, ${literal})`);
      return (await rows(`SELECT ${col} FROM typ.all_types WHERE k = 7`))[0][col];
    };
    expect((await read('ts', "'1969-12-31T23:59:59.999Z'")).toISOString()).toBe('1969-12-31T23:59:59.999Z');
    expect((await read('ts', "'1900-01-01 00:00:00+0000'")).toISOString()).toBe('1900-01-01T00:00:00.000Z');
    expect((await read('ts', '-1')).toISOString()).toBe('1969-12-31T23:59:59.999Z');
    expect(String(await read('da', "'0001-01-01'"))).toBe('0001-01-01');
    expect(String(await read('da', "'-0001-01-01'"))).toBe('-0001-01-01');
    expect(String(await read('da', '2147483648'))).toBe('1970-01-01');
    expect(String(await read('ti', "'23:59:59.999999999'"))).toBe('23:59:59.999999999');
    expect(String(await read('ti', '0'))).toBe('00:00:00');
    expect(String(await read('ine', "'::ffff:1.2.3.4'"))).toBe('1.2.3.4');
    expect(String(await read('ine', "'::'"))).toBe('::');
    await q("INSERT INTO typ.all_types (k, bl, te) VALUES (8, 0x, 'a\u0000b')");
    const [row] = await rows('SELECT bl, te FROM typ.all_types WHERE k = 8');
    expect(Buffer.isBuffer(row.bl) && row.bl.length === 0).toBe(true);
    expect(row.te).toBe('a\u0000b');
  });

  it('invalid values are refused with Cassandra messages', async () => {
    await expectError(q("INSERT INTO typ.all_types (k, a) VALUES (9, 'é')"), CODE.invalid, 'Invalid ASCII character');
    // The driver sends é to an ascii column as latin1 0xe9; Cassandra's message is the type's own.
    await expectError(
      q('INSERT INTO typ.all_types (k, a) VALUES (9, ?)', ['é'], { prepare: true }),
      CODE.invalid,
      'Invalid byte for ascii: -23',
    );
    await expectError(
      q('INSERT INTO typ.all_types (k, te) VALUES (?, ?)', [9, Buffer.from([0xff, 0xfe])], { hints: ['int', 'blob'] }),
      CODE.invalid,
      "String didn't validate",
    );
    await expectError(
      q('INSERT INTO typ.all_types (k, vi) VALUES (9, 1.5)'),
      CODE.invalid,
      'Invalid FLOAT constant (1.5)',
    );
    await expectError(
      q('INSERT INTO typ.all_types (k) VALUES (2147483648)'),
      CODE.invalid,
      "Unable to make int from '2147483648'",
    );
    await expectError(q("INSERT INTO typ.all_types (k, ti) VALUES (9, '12:00')"), CODE.invalid);
    await expectError(
      q('CREATE TABLE typ.bad (k duration PRIMARY KEY)'),
      CODE.invalid,
      'duration type is not supported for PRIMARY KEY column',
    );
  });

  it('collections, frozen collections, tuples and nested frozen values round-trip', async () => {
    const values = {
      st: [3, 1, 2],
      li: ['b', 'a', 'b'],
      ma: { z: 1, a: 2 },
      fst: ['y', 'x'],
      fli: [5, 5, 4],
      fma: { 2: 'two', 1: 'one' },
      tup: new types.Tuple(7, 'seven'),
      nested: { k: [1, 2] },
    };
    await q(
      'INSERT INTO typ.all_types (k, st, li, ma, fst, fli, fma, tup, nested) VALUES (10, ?, ?, ?, ?, ?, ?, ?, ?)',
      Object.values(values),
      { prepare: true },
    );
    const [row] = await rows('SELECT st, li, ma, fst, fli, fma, tup, nested FROM typ.all_types WHERE k = 10', [], {
      prepare: true,
    });
    expect(row.st).toEqual([1, 2, 3]);
    expect(row.li).toEqual(['b', 'a', 'b']);
    expect(row.ma).toEqual({ a: 2, z: 1 });
    expect(Object.keys(row.ma)).toEqual(['a', 'z']);
    expect([...row.fst].sort()).toEqual(['x', 'y']);
    expect(row.fli).toEqual([5, 5, 4]);
    expect(row.fma).toEqual({ 1: 'one', 2: 'two' });
    expect(row.tup.get(0)).toBe(7);
    expect(row.tup.get(1)).toBe('seven');
    expect(row.nested).toEqual({ k: [1, 2] });
  });

  it('a bound frozen set / map is normalised (sorted, deduplicated)', async () => {
    await q(
      'INSERT INTO typ.all_types (k, fst, fma) VALUES (12, ?, ?)',
      [
        ['y', 'x', 'y'],
        // The driver encodes maps from plain objects (a JS Map would be sent empty).
        { 2: 'b', 1: 'a' },
      ],
      {
        prepare: true,
      },
    );
    const [row] = await rows('SELECT fst, fma FROM typ.all_types WHERE k = 12');
    expect(row.fst).toEqual(['x', 'y']);
    expect(Object.keys(row.fma)).toEqual(['1', '2']);
    // and so equal frozen values compare equal (row 10 was bound as ['y', 'x'] earlier)
    const equal = await rows("SELECT k FROM typ.all_types WHERE fst = {'x', 'y'} ALLOW FILTERING");
    expect(equal.map((r) => r.k).sort()).toEqual([10, 12]);
  });

  it('collection updates: append, prepend, add, remove, put, element delete, replace', async () => {
    await q("INSERT INTO typ.all_types (k, st, li, ma) VALUES (11, {1, 2}, ['a'], {'x': 1})");
    await q("UPDATE typ.all_types SET st = st + {3}, li = li + ['b'], ma = ma + {'y': 2} WHERE k = 11");
    await q("UPDATE typ.all_types SET li = ['z'] + li, st = st - {1} WHERE k = 11");
    await q("UPDATE typ.all_types SET ma['w'] = 0 WHERE k = 11");
    await q("DELETE ma['x'] FROM typ.all_types WHERE k = 11");
    let [row] = await rows('SELECT st, li, ma FROM typ.all_types WHERE k = 11');
    expect(row.st).toEqual([2, 3]);
    expect(row.li).toEqual(['z', 'a', 'b']);
    expect(row.ma).toEqual({ w: 0, y: 2 });
    await q('UPDATE typ.all_types SET st = {9}, ma = {} WHERE k = 11');
    [row] = await rows('SELECT st, li, ma FROM typ.all_types WHERE k = 11');
    expect(row.st).toEqual([9]);
    expect(row.ma).toBeNull();
    await q('UPDATE typ.all_types SET st = st + ? WHERE k = ?', [[10], 11], { prepare: true });
    [row] = await rows('SELECT st, li FROM typ.all_types WHERE k = 11');
    expect(row.st).toEqual([9, 10]);
  });

  it('list element removal by value', async () => {
    await q("INSERT INTO typ.all_types (k, li) VALUES (14, ['z', 'a', 'b', 'a'])");
    await q('UPDATE typ.all_types SET li = li - ? WHERE k = ?', [['a'], 14], { prepare: true });
    expect((await rows('SELECT li FROM typ.all_types WHERE k = 14'))[0].li).toEqual(['z', 'b']);
    await q("UPDATE typ.all_types SET li = li - ['z', 'b'] WHERE k = 14");
    expect((await rows('SELECT li FROM typ.all_types WHERE k = 14'))[0].li).toBeNull();
  });

  it('list element by index: set and delete', async () => {
    await q("INSERT INTO typ.all_types (k, li) VALUES (13, ['a', 'b', 'c'])");
    await q("UPDATE typ.all_types SET li[1] = 'B' WHERE k = 13");
    expect((await rows('SELECT li FROM typ.all_types WHERE k = 13'))[0].li).toEqual(['a', 'B', 'c']);
    await q('DELETE li[0] FROM typ.all_types WHERE k = 13');
    expect((await rows('SELECT li FROM typ.all_types WHERE k = 13'))[0].li).toEqual(['B', 'c']);
    await expectError(q("UPDATE typ.all_types SET li[5] = 'x' WHERE k = 13"), CODE.invalid);
  });

  it('a frozen collection and a timeuuid as clustering keys sort as Cassandra does', async () => {
    await q('CREATE TABLE typ.fk (k int, f frozen<list<int>>, v int, PRIMARY KEY (k, f))');
    for (const f of [[2], [1, 5], [1], [1, 2, 3]]) {
      await q('INSERT INTO typ.fk (k, f, v) VALUES (1, ?, 0)', [f], { prepare: true });
    }
    // the driver sends an empty list as null, which a key refuses; an empty literal is fine
    await expectError(
      q('INSERT INTO typ.fk (k, f, v) VALUES (1, ?, 0)', [[]], { prepare: true }),
      CODE.invalid,
      'Invalid null value in condition for column f',
    );
    await q('INSERT INTO typ.fk (k, f, v) VALUES (1, [], 0)');
    expect((await rows('SELECT f FROM typ.fk WHERE k = 1')).map((r) => r.f)).toEqual([[], [1], [1, 2, 3], [1, 5], [2]]);
    expect(
      (await rows('SELECT f FROM typ.fk WHERE k = 1 AND f = ?', [[1, 5]], { prepare: true })).map((r) => r.f),
    ).toEqual([[1, 5]]);
  });

  it('bind markers by name and a prepared statement with the wrong value type', async () => {
    await q('INSERT INTO typ.all_types (k, te) VALUES (:k, :te)', { k: 20, te: 'named' }, { prepare: true });
    expect((await rows('SELECT te FROM typ.all_types WHERE k = :key', { key: 20 }, { prepare: true }))[0].te).toBe(
      'named',
    );
    // a hint of the wrong type makes the driver send 8 bytes for an int: the server must refuse it
    await expectError(
      q('INSERT INTO typ.all_types (k, i) VALUES (?, ?)', [21, types.Long.fromNumber(5)], {
        prepare: false,
        hints: ['int', 'bigint'],
      }),
      CODE.invalid,
    );
  });

  it('unset values (protocol v4) leave columns untouched', async () => {
    await q("INSERT INTO typ.all_types (k, te, i) VALUES (30, 'keep', 1)");
    await q('INSERT INTO typ.all_types (k, te, i) VALUES (?, ?, ?)', [30, types.unset, 2], { prepare: true });
    expect(await plain('SELECT te, i FROM typ.all_types WHERE k = 30')).toEqual([{ te: 'keep', i: 2 }]);
  });

  it('UNPREPARED after the table is dropped and re-created is handled by the driver transparently', async () => {
    await q('CREATE TABLE typ.reprep (k int PRIMARY KEY, v text)');
    await q('INSERT INTO typ.reprep (k, v) VALUES (?, ?)', [1, 'a'], { prepare: true });
    await q('DROP TABLE typ.reprep');
    await q('CREATE TABLE typ.reprep (k int PRIMARY KEY, v text)');
    await q('INSERT INTO typ.reprep (k, v) VALUES (?, ?)', [2, 'b'], { prepare: true });
    expect(await plain('SELECT * FROM typ.reprep')).toEqual([{ k: 2, v: 'b' }]);
  });

  it('a prepared SELECT * sees a column added after PREPARE', async () => {
    await q('CREATE TABLE typ.grow (k int PRIMARY KEY, a int)');
    await q('INSERT INTO typ.grow (k, a) VALUES (1, 1)');
    expect(Object.keys((await rows('SELECT * FROM typ.grow WHERE k = ?', [1], { prepare: true }))[0])).toEqual([
      'k',
      'a',
    ]);
    await q('ALTER TABLE typ.grow ADD b int');
    await q('UPDATE typ.grow SET b = 2 WHERE k = 1');
    const [row] = await rows('SELECT * FROM typ.grow WHERE k = ?', [1], { prepare: true });
    expect({ ...row }).toEqual({ k: 1, a: 1, b: 2 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('paging', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS pag WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE pag.t (k int, c int, v text, PRIMARY KEY (k, c))');
    await q('CREATE TABLE pag.r (k int, c int, v text, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)');
    const inserts: Promise<unknown>[] = [];
    for (let c = 0; c < 25; c++) {
      inserts.push(q('INSERT INTO pag.t (k, c, v) VALUES (?, ?, ?)', [1, c, `v${c}`], { prepare: true }));
      inserts.push(q('INSERT INTO pag.r (k, c, v) VALUES (?, ?, ?)', [1, c, `v${c}`], { prepare: true }));
    }
    for (let k = 10; k < 17; k++) {
      for (let c = 0; c < 6; c++)
        inserts.push(q('INSERT INTO pag.t (k, c, v) VALUES (?, ?, ?)', [k, c, 'x'], { prepare: true }));
    }
    await Promise.all(inserts);
  });

  async function manualPages(query: string, params: unknown[], fetchSize: number, prepare = true) {
    const pages: { k: number; c: number }[][] = [];
    let pageState: string | undefined;
    for (let i = 0; i < 100; i++) {
      const rs = await q(query, params, { prepare, fetchSize, pageState });
      pages.push(rs.rows.map((r) => ({ k: r.k, c: r.c })));
      pageState = rs.pageState ?? undefined;
      if (!pageState) break;
    }
    return pages;
  }

  it('resumes exactly within one partition (manual pageState)', async () => {
    const pages = await manualPages('SELECT k, c FROM pag.t WHERE k = ?', [1], 7);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 4]);
    expect(pages.flat().map((r) => r.c)).toEqual([...Array(25).keys()]);
  });

  it('a page size equal to the row count ends with an empty or no extra page', async () => {
    const pages = await manualPages('SELECT k, c FROM pag.t WHERE k = ?', [1], 25);
    expect(pages.flat()).toHaveLength(25);
    expect(pages.length).toBeLessThanOrEqual(2);
  });

  it('resumes exactly across partitions (full scan, unprepared and prepared)', async () => {
    const unpaged = (await rows('SELECT k, c FROM pag.t', [], { fetchSize: 10_000 })).map((r) => ({ k: r.k, c: r.c }));
    expect(unpaged).toHaveLength(25 + 7 * 6);
    for (const prepare of [false, true]) {
      const pages = await manualPages('SELECT k, c FROM pag.t', [], 4, prepare);
      expect(pages.slice(0, -1).every((p) => p.length === 4)).toBe(true);
      expect(pages.flat()).toEqual(unpaged);
    }
  });

  it('resumes exactly in a reversed query (ORDER BY DESC) and on a DESC table', async () => {
    const pages = await manualPages('SELECT k, c FROM pag.t WHERE k = ? ORDER BY c DESC', [1], 6);
    expect(pages.flat().map((r) => r.c)).toEqual([...Array(25).keys()].reverse());
    const pagesR = await manualPages('SELECT k, c FROM pag.r WHERE k = ?', [1], 6);
    expect(pagesR.flat().map((r) => r.c)).toEqual([...Array(25).keys()].reverse());
    const pagesRA = await manualPages('SELECT k, c FROM pag.r WHERE k = ? ORDER BY c ASC', [1], 6);
    expect(pagesRA.flat().map((r) => r.c)).toEqual([...Array(25).keys()]);
  });

  it('pages a clustering slice and honours LIMIT across pages', async () => {
    const slice = await manualPages('SELECT k, c FROM pag.t WHERE k = ? AND c >= ? AND c < ?', [1, 5, 20], 4);
    expect(slice.flat().map((r) => r.c)).toEqual([...Array(15).keys()].map((i) => i + 5));
    const limited = await manualPages('SELECT k, c FROM pag.t LIMIT 10', [], 3);
    expect(limited.flat()).toHaveLength(10);
    const ppl = await manualPages('SELECT k, c FROM pag.t PER PARTITION LIMIT 2', [], 3);
    expect(ppl.flat()).toHaveLength(16);
  });

  it('eachRow with autoPage and client.stream see every row once', async () => {
    const seen: number[] = [];
    await new Promise<void>((ok, fail) => {
      client.eachRow(
        'SELECT c FROM pag.t WHERE k = ?',
        [1],
        { prepare: true, fetchSize: 5, autoPage: true },
        (_n, row) => {
          seen.push(row.c);
        },
        (err) => (err ? fail(err) : ok()),
      );
    });
    expect(seen).toEqual([...Array(25).keys()]);
    const streamed: number[] = [];
    const stream = client.stream('SELECT c FROM pag.t WHERE k = ?', [1], { prepare: true, fetchSize: 3 });
    for await (const row of stream as unknown as AsyncIterable<cassandra.types.Row>) streamed.push(row.c);
    expect(streamed).toEqual([...Array(25).keys()]);
  });

  it('pages with the protocol v3 paging state too', async () => {
    const v3 = newClient({ protocolOptions: { maxVersion: 3 } });
    await v3.connect();
    const got: number[] = [];
    let pageState: string | undefined;
    do {
      const rs = await v3.execute('SELECT c FROM pag.t WHERE k = ?', [1], { prepare: true, fetchSize: 10, pageState });
      got.push(...rs.rows.map((r) => r.c as number));
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    expect(got).toEqual([...Array(25).keys()]);
  });

  it('ALLOW FILTERING queries page correctly', async () => {
    const pages = await manualPages("SELECT k, c FROM pag.t WHERE v = 'x' ALLOW FILTERING", [], 5);
    expect(pages.flat()).toHaveLength(42);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('more statement forms', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS more WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE more.st (k int, c int, s int STATIC, v text, PRIMARY KEY (k, c))');
  });

  it('a partition with only a static row reads as one row with null clustering columns', async () => {
    await q('UPDATE more.st SET s = 1 WHERE k = 1');
    expect(await plain('SELECT * FROM more.st WHERE k = 1')).toEqual([{ k: 1, c: null, s: 1, v: null }]);
    await q("INSERT INTO more.st (k, c, v) VALUES (1, 5, 'x')");
    expect(await plain('SELECT * FROM more.st WHERE k = 1')).toEqual([{ k: 1, c: 5, s: 1, v: 'x' }]);
    // a clustering restriction that matches nothing hides the static row too
    expect(await rows('SELECT * FROM more.st WHERE k = 1 AND c = 99')).toHaveLength(0);
  });

  it('an empty string is a value, not null', async () => {
    await q("INSERT INTO more.st (k, c, v) VALUES (2, 1, '')");
    await q('INSERT INTO more.st (k, c, v) VALUES (?, ?, ?)', [2, 2, ''], { prepare: true });
    expect((await rows('SELECT v FROM more.st WHERE k = 2')).map((r) => r.v)).toEqual(['', '']);
  });

  it('bound IN lists, LIMIT ?, USING TTL ? AND TIMESTAMP ?', async () => {
    for (let c = 0; c < 5; c++)
      await q('INSERT INTO more.st (k, c, v) VALUES (3, ?, ?)', [c, `v${c}`], { prepare: true });
    const inRows = await rows('SELECT c FROM more.st WHERE k = ? AND c IN ?', [3, [4, 1, 9]], { prepare: true });
    expect(inRows.map((r) => r.c)).toEqual([1, 4]);
    const pkIn = await rows('SELECT k, c FROM more.st WHERE k IN ? AND c = ?', [[3, 2], 1], { prepare: true });
    expect(pkIn.map((r) => r.k).sort()).toEqual([2, 3]);
    expect(await rows('SELECT c FROM more.st WHERE k = ? LIMIT ?', [3, 2], { prepare: true })).toHaveLength(2);
    await q(
      'INSERT INTO more.st (k, c, v) VALUES (?, ?, ?) USING TTL ? AND TIMESTAMP ?',
      [4, 1, 'x', 100, types.Long.fromNumber(12345)],
      {
        prepare: true,
      },
    );
    const [row] = await rows('SELECT writetime(v), ttl(v) FROM more.st WHERE k = 4');
    expect(String(row['writetime(v)'])).toBe('12345');
    expect(row['ttl(v)']).toBeGreaterThan(90);
  });

  it('TRUNCATE empties the table and keeps the schema', async () => {
    await q('CREATE TABLE more.tr (k int PRIMARY KEY, v int)');
    for (let k = 0; k < 5; k++) await q('INSERT INTO more.tr (k, v) VALUES (?, ?)', [k, k], { prepare: true });
    await q('TRUNCATE more.tr');
    expect(await rows('SELECT * FROM more.tr')).toHaveLength(0);
    await q('INSERT INTO more.tr (k, v) VALUES (1, 1)');
    expect(await rows('SELECT * FROM more.tr')).toHaveLength(1);
    await q('TRUNCATE TABLE more.tr');
    expect(await rows('SELECT * FROM more.tr')).toHaveLength(0);
  });

  it('logged and unlogged batches of simple and prepared statements', async () => {
    await q('CREATE TABLE more.b (k int, c int, v text, PRIMARY KEY (k, c))');
    await client.batch(
      [
        { query: "INSERT INTO more.b (k, c, v) VALUES (1, 1, 'a')" },
        { query: 'INSERT INTO more.b (k, c, v) VALUES (?, ?, ?)', params: [1, 2, 'b'] },
        { query: 'UPDATE more.b SET v = ? WHERE k = ? AND c = ?', params: ['c', 2, 1] },
      ],
      { prepare: true },
    );
    await client.batch([{ query: 'DELETE FROM more.b WHERE k = 1 AND c = 1' }], { logged: false });
    expect(await plain('SELECT k, c, v FROM more.b')).toEqual(
      expect.arrayContaining([
        { k: 1, c: 2, v: 'b' },
        { k: 2, c: 1, v: 'c' },
      ]),
    );
    expect(await rows('SELECT * FROM more.b')).toHaveLength(2);
  });

  it('quoted, case-sensitive table and column names', async () => {
    await q('CREATE TABLE more."CaseT" ("Key" int PRIMARY KEY, "Val" text, val int)');
    await q('INSERT INTO more."CaseT" ("Key", "Val", val) VALUES (1, \'x\', 2)');
    const rs = await q('SELECT * FROM more."CaseT"');
    expect(rs.columns.map((c) => c.name)).toEqual(['Key', 'Val', 'val']);
    expect({ ...rs.rows[0] }).toEqual({ Key: 1, Val: 'x', val: 2 });
    await expectError(q('SELECT * FROM more.caset'), CODE.invalid);
  });

  it('INSERT IF NOT EXISTS reports [applied] and the existing row', async () => {
    const first = await q("INSERT INTO more.st (k, c, v) VALUES (6, 1, 'a') IF NOT EXISTS");
    expect(first.rows[0]['[applied]']).toBe(true);
    const second = await q("INSERT INTO more.st (k, c, v) VALUES (6, 1, 'b') IF NOT EXISTS");
    expect(second.rows[0]['[applied]']).toBe(false);
    expect(second.rows[0].v).toBe('a');
    expect((await rows('SELECT v FROM more.st WHERE k = 6 AND c = 1'))[0].v).toBe('a');
  });

  it('counter columns add and subtract', async () => {
    await q('CREATE TABLE more.cnt (k int PRIMARY KEY, n counter)');
    await q('UPDATE more.cnt SET n = n + 3 WHERE k = 1');
    await q('UPDATE more.cnt SET n = n - 1 WHERE k = 1');
    await q('UPDATE more.cnt SET n = n + ? WHERE k = ?', [types.Long.fromNumber(10), 1], { prepare: true });
    expect(String((await rows('SELECT n FROM more.cnt WHERE k = 1'))[0].n)).toBe('12');
  });
});

describe('paging edge cases', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS pag2 WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE pag2.t (k int, c int, s int STATIC, v int, PRIMARY KEY (k, c))');
    const inserts: Promise<unknown>[] = [];
    for (let k = 0; k < 6; k++) {
      inserts.push(q('UPDATE pag2.t SET s = ? WHERE k = ?', [k, k], { prepare: true }));
      for (let c = 0; c < 5; c++)
        inserts.push(q('INSERT INTO pag2.t (k, c, v) VALUES (?, ?, ?)', [k, c, c], { prepare: true }));
    }
    await Promise.all(inserts);
  });

  async function collect(query: string, params: unknown[], fetchSize: number) {
    const out: Record<string, unknown>[] = [];
    let pageState: string | undefined;
    let pages = 0;
    do {
      const rs = await q(query, params, { prepare: true, fetchSize, pageState });
      out.push(...rs.rows.map((r) => ({ ...r })));
      pageState = rs.pageState ?? undefined;
      pages++;
    } while (pageState && pages < 200);
    return { rows: out, pages };
  }

  it('pages a multi-partition IN query', async () => {
    const { rows: got, pages } = await collect('SELECT k, c FROM pag2.t WHERE k IN (1, 4, 2)', [], 4);
    expect(got).toHaveLength(15);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(new Set(got.map((r) => `${r.k}:${r.c}`)).size).toBe(15);
  });

  it('pages SELECT DISTINCT and static columns', async () => {
    const distinct = await collect('SELECT DISTINCT k, s FROM pag2.t', [], 2);
    expect(distinct.rows.map((r) => r.k).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(distinct.rows.every((r) => r.s === r.k)).toBe(true);
    const withStatic = await collect('SELECT k, c, s FROM pag2.t', [], 7);
    expect(withStatic.rows).toHaveLength(30);
    expect(withStatic.rows.every((r) => r.s === r.k)).toBe(true);
  });

  it('skips deleted rows and partitions without losing live ones', async () => {
    await q('CREATE TABLE pag2.del (k int, c int, v int, PRIMARY KEY (k, c))');
    for (let k = 0; k < 4; k++) {
      for (let c = 0; c < 10; c++)
        await q('INSERT INTO pag2.del (k, c, v) VALUES (?, ?, 0)', [k, c], { prepare: true });
    }
    await q('DELETE FROM pag2.del WHERE k = 1');
    await q('DELETE FROM pag2.del WHERE k = 2 AND c >= 1 AND c < 9');
    const { rows: got } = await collect('SELECT k, c FROM pag2.del', [], 3);
    const expected = (await rows('SELECT k, c FROM pag2.del', [], { fetchSize: 1000 })).map((r) => ({
      k: r.k,
      c: r.c,
    }));
    expect(expected).toHaveLength(10 + 10 + 2);
    expect(got).toEqual(expected);
  });

  it('rows written after the paging position show up on later pages, earlier ones do not', async () => {
    await q('CREATE TABLE pag2.live (k int, c int, PRIMARY KEY (k, c))');
    for (let c = 0; c < 10; c += 2) await q('INSERT INTO pag2.live (k, c) VALUES (1, ?)', [c], { prepare: true });
    const first = await q('SELECT c FROM pag2.live WHERE k = 1', [], { prepare: true, fetchSize: 2 });
    expect(first.rows.map((r) => r.c)).toEqual([0, 2]);
    await q('INSERT INTO pag2.live (k, c) VALUES (1, 1)');
    await q('INSERT INTO pag2.live (k, c) VALUES (1, 5)');
    const rest: number[] = [];
    let pageState = first.pageState ?? undefined;
    while (pageState) {
      const rs = await q('SELECT c FROM pag2.live WHERE k = 1', [], { prepare: true, fetchSize: 2, pageState });
      rest.push(...rs.rows.map((r) => r.c as number));
      pageState = rs.pageState ?? undefined;
    }
    expect(rest).toEqual([4, 5, 6, 8]);
  });

  it('a paging state from another query is refused or ignored, never a crash', async () => {
    const a = await q('SELECT c FROM pag2.t WHERE k = 1', [], { prepare: true, fetchSize: 2 });
    const err = await q('SELECT k FROM pag2.del', [], { prepare: true, fetchSize: 2, pageState: a.pageState }).then(
      () => undefined,
      (e: DriverError) => e,
    );
    if (err) expect([CODE.invalid, 0x000a]).toContain(err.code);
    // the server still answers
    expect(await rows('SELECT k FROM pag2.t WHERE k = 1 AND c = 1')).toHaveLength(1);
    const garbage = Buffer.from('not a paging state').toString('hex');
    const err2 = await q('SELECT c FROM pag2.t WHERE k = 1', [], {
      prepare: true,
      fetchSize: 2,
      pageState: garbage,
    }).then(
      () => undefined,
      (e: DriverError) => e,
    );
    if (err2) expect([CODE.invalid, 0x000a]).toContain(err2.code);
    expect(await rows('SELECT k FROM pag2.t WHERE k = 1 AND c = 1')).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('user-defined types', () => {
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS udt WITH replication = ${REPLICATION}`);
    await q('CREATE TYPE udt.addr (street text, zip int, tags set<text>)');
    await q('CREATE TABLE udt.people (k int PRIMARY KEY, home frozen<addr>, others list<frozen<addr>>, cur addr)');
  });

  it('system_schema.types and the driver metadata describe the type', async () => {
    const [row] = await rows("SELECT * FROM system_schema.types WHERE keyspace_name = 'udt' AND type_name = 'addr'");
    expect(row.field_names).toEqual(['street', 'zip', 'tags']);
    expect(row.field_types).toEqual(['text', 'int', 'set<text>']);
    const meta = (await client.metadata.getUdt('udt', 'addr')) as unknown as { fields: { name: string }[] } | null;
    expect(meta?.fields.map((f) => f.name)).toEqual(['street', 'zip', 'tags']);
    const cols = await rows(
      "SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = 'udt' AND table_name = 'people'",
    );
    expect(Object.fromEntries(cols.map((r) => [r.column_name, r.type]))).toEqual({
      k: 'int',
      home: 'frozen<addr>',
      others: 'list<frozen<addr>>',
      cur: 'addr',
    });
    await expectError(q('CREATE TYPE udt.addr (x int)'), CODE.invalid);
  });

  it('frozen, nested and non-frozen UDT values round-trip from literals and bound values', async () => {
    await q(
      "INSERT INTO udt.people (k, home, others, cur) VALUES (1, {street: 'Main', zip: 123, tags: {'b', 'a'}}, " +
        "[{street: 'x', zip: 1}], {street: 'c', zip: 5, tags: {'t'}})",
    );
    const [row] = await rows('SELECT home, others, cur FROM udt.people WHERE k = 1');
    expect(row.home).toEqual({ street: 'Main', zip: 123, tags: ['a', 'b'] });
    expect(row.others).toEqual([{ street: 'x', zip: 1, tags: null }]);
    expect(row.cur).toEqual({ street: 'c', zip: 5, tags: ['t'] });
    await q(
      'INSERT INTO udt.people (k, home, cur) VALUES (?, ?, ?)',
      [2, { street: 'P', zip: 9, tags: ['q'] }, { street: 'Q', zip: 1, tags: ['r'] }],
      { prepare: true },
    );
    const [bound] = await rows('SELECT home, cur FROM udt.people WHERE k = ?', [2], { prepare: true });
    expect(bound.home).toEqual({ street: 'P', zip: 9, tags: ['q'] });
    expect(bound.cur).toEqual({ street: 'Q', zip: 1, tags: ['r'] });
  });

  it('a field of a non-frozen UDT can be updated alone', async () => {
    await q("INSERT INTO udt.people (k, cur) VALUES (3, {street: 's', zip: 1, tags: {'x'}})");
    await q('UPDATE udt.people SET cur.zip = 77 WHERE k = 3');
    expect((await rows('SELECT cur FROM udt.people WHERE k = 3'))[0].cur).toEqual({
      street: 's',
      zip: 77,
      tags: ['x'],
    });
  });

  it('a non-frozen UDT with unset fields reads back with every field, nulls included', async () => {
    await q("INSERT INTO udt.people (k, cur) VALUES (4, {street: 'Q'})");
    expect((await rows('SELECT cur FROM udt.people WHERE k = 4'))[0].cur).toEqual({
      street: 'Q',
      zip: null,
      tags: null,
    });
  });

  it('SELECT of a UDT field', async () => {
    await q("INSERT INTO udt.people (k, home, cur) VALUES (5, {street: 'h', zip: 2}, {street: 'c', zip: 3})");
    const rs = await q('SELECT cur.zip, home.street FROM udt.people WHERE k = 5');
    expect(rs.columns.map((c) => c.name)).toEqual(['cur.zip', 'home.street']);
    expect({ ...rs.rows[0] }).toEqual({ 'cur.zip': 3, 'home.street': 'h' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('token() range queries', () => {
  let tokens: Map<number, bigint>;
  beforeAll(async () => {
    await q(`CREATE KEYSPACE IF NOT EXISTS tok WITH replication = ${REPLICATION}`);
    await q('CREATE TABLE tok.t (k int PRIMARY KEY, v int)');
    tokens = new Map();
    for (let k = 0; k < 40; k++) {
      await q('INSERT INTO tok.t (k, v) VALUES (?, ?)', [k, k], { prepare: true });
      const buf = Buffer.alloc(4);
      buf.writeInt32BE(k);
      const token = client.metadata.newToken(buf) as unknown as { getValue(): unknown };
      tokens.set(k, BigInt(String(token.getValue())));
    }
  });

  const byToken = () => [...tokens.entries()].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)).map((e) => e[0]);

  it('a full scan returns partitions in token order', async () => {
    expect((await rows('SELECT k FROM tok.t')).map((r) => r.k)).toEqual(byToken());
  });

  it('token(k) > and <= select the right keys, unprepared and prepared', async () => {
    const ordered = byToken();
    const lo = tokens.get(ordered[9])!;
    const hi = tokens.get(ordered[29])!;
    const expected = ordered.slice(10, 30);
    const unprep = await rows(`SELECT k FROM tok.t WHERE token(k) > ${lo} AND token(k) <= ${hi}`);
    expect(unprep.map((r) => r.k)).toEqual(expected);
    const prep = await rows(
      'SELECT k FROM tok.t WHERE token(k) > ? AND token(k) <= ?',
      [lo.toString(), hi.toString()],
      {
        prepare: true,
        hints: ['bigint', 'bigint'],
      },
    );
    expect(prep.map((r) => r.k)).toEqual(expected);
    expect((await rows(`SELECT k FROM tok.t WHERE token(k) >= ${lo}`)).map((r) => r.k)).toEqual(ordered.slice(9));
    expect((await rows(`SELECT k FROM tok.t WHERE token(k) < ${lo}`)).map((r) => r.k)).toEqual(ordered.slice(0, 9));
    expect(await rows('SELECT k FROM tok.t WHERE token(k) > -9223372036854775808')).toHaveLength(40);
  });

  it('a Spark-connector style token scan (token(k) > last LIMIT n) visits every key once', async () => {
    const seen: number[] = [];
    let last = '-9223372036854775808';
    for (let i = 0; i < 50; i++) {
      const rs = await rows(`SELECT k FROM tok.t WHERE token(k) > ${last} LIMIT 7`);
      if (rs.length === 0) break;
      seen.push(...rs.map((r) => r.k as number));
      last = tokens.get(rs.at(-1)!.k as number)!.toString();
    }
    expect(seen).toEqual(byToken());
  });

  it('token(k) = and token combined with ALLOW FILTERING', async () => {
    const k = 17;
    expect((await rows(`SELECT k FROM tok.t WHERE token(k) = ${tokens.get(k)}`)).map((r) => r.k)).toEqual([k]);
    const filtered = await rows(`SELECT k FROM tok.t WHERE token(k) > ${-(2n ** 63n)} AND v < 5 ALLOW FILTERING`);
    expect(filtered.map((r) => r.k).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
  });
});
