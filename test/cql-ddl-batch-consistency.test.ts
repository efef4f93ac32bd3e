// CQL gaps through the DataStax Node.js driver against the real server, each checked against what Cassandra 5.0
// answers (codes and exact messages): ALTER TABLE RENAME / ADD / DROP / WITH and their IF [NOT] EXISTS forms,
// TRUNCATE, CREATE TABLE ... WITH ID, BATCH timestamps and batch-type rules, single-partition batch isolation under
// concurrent readers, consistency levels on one node (Unavailable where Cassandra gives it, SERIAL / LOCAL_SERIAL for
// conditional statements), and the SCHEMA_CHANGE events a driver sees for tables and types.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, expectDriverError as expectError } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';
import { longStr, Op, Reader, short, startupBody, WireClient } from './support/wire-client.js';

const { types } = cassandra;
const CL = types.consistencies;
const CODE = { server: 0x0000, unavailable: 0x1000, syntax: 0x2000, invalid: 0x2200, config: 0x2300 } as const;
const SIMPLE1 = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
const SIMPLE3 = "{'class': 'SimpleStrategy', 'replication_factor': 3}";
const CAS_COMMIT_SERIAL =
  'is not supported as conditional update commit consistency. Use ANY if you mean "make sure it is accepted but ' +
  'I don\'t care how many replicas commit it for non-SERIAL reads"';

let server: ServerProcess;
let client: cassandra.Client;
/** Unavailable answers reach the caller as they are (the default policy retries on the next host, wrapping them). */
let direct: cassandra.Client;
const extraClients: cassandra.Client[] = [];

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, { prepare: params.length > 0, ...options });
}

async function rows(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return (await q(query, params, options)).rows.map((r) => ({ ...r }));
}

function expectConfigError(promise: Promise<unknown>, message: string) {
  return expectError(promise, CODE.config, message);
}

async function expectUnavailable(promise: Promise<unknown>, consistency: number, required: number, alive: number) {
  const err = await errorOf(promise);
  expect({ code: err.code, consistency: err.consistencies, required: err.required, alive: err.alive }).toEqual({
    code: CODE.unavailable,
    consistency,
    required,
    alive,
  });
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

/** `system_schema.columns` of a table as name -> kind/position. */
async function columnsOf(ks: string, table: string): Promise<Record<string, { kind: string; position: number }>> {
  const cols = await rows(
    'SELECT column_name, kind, position FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?',
    [ks, table],
  );
  return Object.fromEntries(cols.map((c) => [c.column_name, { kind: c.kind, position: c.position }]));
}

beforeAll(async () => {
  server = await startServer();
  client = newClient();
  await client.connect();
  direct = newClient({ policies: { retry: new cassandra.policies.retry.FallthroughRetryPolicy() } });
  await direct.connect();
  for (const ks of ['ren', 'alt', 'trn', 'bat', 'cl1']) {
    await q(`CREATE KEYSPACE ${ks} WITH replication = ${SIMPLE1}`);
  }
  await q(`CREATE KEYSPACE cl3 WITH replication = ${SIMPLE3}`);
}, 60_000);

afterAll(async () => {
  reportIfDied(server);
  await Promise.all(extraClients.map((c) => c.shutdown().catch(() => undefined)));
  await server?.stop();
});

// ---------------------------------------------------------------------------------------------------------------
describe('ALTER TABLE RENAME', () => {
  beforeAll(async () => {
    await q('CREATE TABLE ren.t (k int, c1 int, c2 text, v int, s int STATIC, PRIMARY KEY (k, c1, c2))');
    for (let i = 0; i < 3; i++)
      await q('INSERT INTO ren.t (k, c1, c2, v) VALUES (?, ?, ?, ?)', [1, i, `x${i}`, i * 10]);
    await q('INSERT INTO ren.t (k, s) VALUES (1, 7)');
  });

  it('renames partition key and clustering columns in one statement, data readable under the new names', async () => {
    await q('ALTER TABLE ren.t RENAME k TO id AND c1 TO seq');
    expect(await rows('SELECT id, seq, c2, v, s FROM ren.t WHERE id = 1 AND seq >= 1')).toEqual([
      { id: 1, seq: 1, c2: 'x1', v: 10, s: 7 },
      { id: 1, seq: 2, c2: 'x2', v: 20, s: 7 },
    ]);
    expect(await columnsOf('ren', 't')).toEqual({
      id: { kind: 'partition_key', position: 0 },
      seq: { kind: 'clustering', position: 0 },
      c2: { kind: 'clustering', position: 1 },
      v: { kind: 'regular', position: -1 },
      s: { kind: 'static', position: -1 },
    });
    // The old names are gone; writes and prepared statements use the new ones.
    const old = await errorOf(q('SELECT k FROM ren.t'));
    expect(old.code).toBe(CODE.invalid);
    expect(old.message).toContain('Undefined column name k');
    await q('INSERT INTO ren.t (id, seq, c2, v) VALUES (?, ?, ?, ?)', [2, 0, 'y', 99]);
    expect(await rows('SELECT * FROM ren.t WHERE id = ?', [2])).toEqual([{ id: 2, seq: 0, c2: 'y', s: null, v: 99 }]);
    const table = await client.metadata.getTable('ren', 't');
    expect(table?.partitionKeys.map((c) => c.name)).toEqual(['id']);
    expect(table?.clusteringKeys.map((c) => c.name)).toEqual(['seq', 'c2']);
  });

  it('renames back, and a quoted new name keeps its case', async () => {
    await q('ALTER TABLE ren.t RENAME c2 TO "Tag"');
    expect(await rows('SELECT "Tag" FROM ren.t WHERE id = 2')).toEqual([{ Tag: 'y' }]);
    await q('ALTER TABLE ren.t RENAME "Tag" TO c2 AND id TO k AND seq TO c1');
    expect(Object.keys(await columnsOf('ren', 't')).sort()).toEqual(['c1', 'c2', 'k', 's', 'v']);
    expect(await rows('SELECT k, c1, c2, v FROM ren.t WHERE k = 1 AND c1 = 0')).toEqual([
      { k: 1, c1: 0, c2: 'x0', v: 0 },
    ]);
  });

  it("refuses regular and static columns, existing names and unknown columns with Cassandra's messages", async () => {
    await expectError(q('ALTER TABLE ren.t RENAME v TO w'), CODE.invalid, 'Cannot rename non PRIMARY KEY column v');
    await expectError(q('ALTER TABLE ren.t RENAME s TO w'), CODE.invalid, 'Cannot rename non PRIMARY KEY column s');
    await expectError(
      q('ALTER TABLE ren.t RENAME c1 TO v'),
      CODE.invalid,
      "Cannot rename column c1 to v in table 'ren.t'; another column with that name already exists",
    );
    await expectError(
      q('ALTER TABLE ren.t RENAME k TO c2'),
      CODE.invalid,
      "Cannot rename column k to c2 in table 'ren.t'; another column with that name already exists",
    );
    // Cassandra looks the column up with getExistingColumn: unknown columns fail even with RENAME IF EXISTS.
    await expectError(
      q('ALTER TABLE ren.t RENAME nope TO x'),
      CODE.invalid,
      'Undefined column name nope in table ren.t',
    );
    await expectError(
      q('ALTER TABLE ren.t RENAME IF EXISTS nope TO x'),
      CODE.invalid,
      'Undefined column name nope in table ren.t',
    );
    await expectError(
      q('ALTER TABLE ren.t RENAME "Nope" TO x'),
      CODE.invalid,
      'Undefined column name "Nope" in table ren.t',
    );
    // A failed multi-rename changes nothing.
    await expectError(
      q('ALTER TABLE ren.t RENAME k TO kk AND v TO vv'),
      CODE.invalid,
      'Cannot rename non PRIMARY KEY column v',
    );
    expect(Object.keys(await columnsOf('ren', 't')).sort()).toEqual(['c1', 'c2', 'k', 's', 'v']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('ALTER TABLE ADD / DROP / WITH and IF [NOT] EXISTS', () => {
  beforeAll(async () => {
    await q('CREATE TABLE alt.t (k int, c int, v int, PRIMARY KEY (k, c))');
    await q('CREATE TABLE alt.single (k int PRIMARY KEY, v int)');
    await q('CREATE TABLE alt.cnt (k int PRIMARY KEY, n counter)');
  });

  it('IF EXISTS on a missing table is a no-op; without it the table is unknown', async () => {
    await q('ALTER TABLE IF EXISTS alt.missing ADD x int');
    await q('ALTER TABLE IF EXISTS alt.missing DROP x');
    await q('ALTER TABLE IF EXISTS alt.missing RENAME a TO b');
    await q("ALTER TABLE IF EXISTS alt.missing WITH comment = 'x'");
    await q('ALTER TABLE IF EXISTS no_such_ks.missing ADD x int');
    await expectError(q('ALTER TABLE alt.missing ADD x int'), CODE.invalid, "Table 'alt.missing' doesn't exist");
    await expectError(q('ALTER TABLE no_such_ks.t ADD x int'), CODE.invalid, "Table 'no_such_ks.t' doesn't exist");
    await expectError(q('DROP TABLE no_such_ks.t'), CODE.invalid, "Table 'no_such_ks.t' doesn't exist");
  });

  it('ADD IF NOT EXISTS skips an existing column and adds the others', async () => {
    await q('ALTER TABLE alt.t ADD IF NOT EXISTS v int');
    await q('ALTER TABLE alt.t ADD IF NOT EXISTS (v text, w text)');
    expect(await columnsOf('alt', 't')).toEqual({
      k: { kind: 'partition_key', position: 0 },
      c: { kind: 'clustering', position: 0 },
      v: { kind: 'regular', position: -1 },
      w: { kind: 'regular', position: -1 },
    });
    const colTypes = await rows(
      "SELECT column_name, type FROM system_schema.columns WHERE keyspace_name = 'alt' AND table_name = 't'",
    );
    expect(Object.fromEntries(colTypes.map((r) => [r.column_name, r.type]))).toMatchObject({ v: 'int', w: 'text' });
  });

  it('DROP IF EXISTS of a missing column is a no-op and still drops the named ones that exist', async () => {
    await q('ALTER TABLE alt.t DROP IF EXISTS nope');
    await q('ALTER TABLE alt.t DROP IF EXISTS (nope, w)');
    expect(Object.keys(await columnsOf('alt', 't')).sort()).toEqual(['c', 'k', 'v']);
    const dropped = await rows(
      "SELECT column_name, type FROM system_schema.dropped_columns WHERE keyspace_name = 'alt' AND table_name = 't'",
    );
    expect(dropped).toEqual([{ column_name: 'w', type: 'text' }]);
  });

  it("ADD / DROP / WITH errors with Cassandra's messages", async () => {
    await expectError(q('ALTER TABLE alt.t ADD v int'), CODE.invalid, "Column with name 'v' already exists");
    await expectError(q('ALTER TABLE alt.t ADD (x int, c int)'), CODE.invalid, "Column with name 'c' already exists");
    await expectError(q('ALTER TABLE alt.t DROP nope'), CODE.invalid, "Column nope was not found in table 'alt.t'");
    await expectError(q('ALTER TABLE alt.t DROP k'), CODE.invalid, 'Cannot drop PRIMARY KEY column k');
    await expectError(q('ALTER TABLE alt.t DROP c'), CODE.invalid, 'Cannot drop PRIMARY KEY column c');
    await expectError(q('ALTER TABLE alt.t DROP IF EXISTS c'), CODE.invalid, 'Cannot drop PRIMARY KEY column c');
    await expectError(
      q('ALTER TABLE alt.single ADD s int STATIC'),
      CODE.invalid,
      'Static columns are only useful (and thus allowed) if the table has at least one clustering column',
    );
    await expectError(
      q('ALTER TABLE alt.cnt ADD v int'),
      CODE.config,
      'alt.cnt: Cannot have a non counter column ("v") in a counter table',
    );
    await expectError(
      q('ALTER TABLE alt.t ADD n counter'),
      CODE.config,
      'alt.t: Cannot have a counter column ("n") in a non counter table',
    );
    await expectError(q('ALTER TABLE alt.t WITH nope = 1'), CODE.syntax, "Unknown property 'nope'");
    await expectError(q("ALTER TABLE alt.t WITH comment = 'x' AND nope = 2"), CODE.syntax, "Unknown property 'nope'");
    await expectError(
      q('ALTER TABLE alt.cnt WITH default_time_to_live = 10'),
      CODE.invalid,
      'Cannot set default_time_to_live on a table with counters',
    );
    await expectError(
      q('ALTER TABLE alt.t WITH ID = 5f2fbdad-9b2d-4b3c-a2f3-0d1c8e1a0b13'),
      CODE.config,
      'Cannot alter table id.',
    );
    await expectError(
      q('ALTER TABLE alt.t ALTER v TYPE text'),
      CODE.invalid,
      'Altering column types is no longer supported',
    );
    await expectError(
      q('ALTER TABLE alt.t DROP COMPACT STORAGE'),
      CODE.invalid,
      'DROP COMPACT STORAGE is disabled. Enable in cassandra.yaml to use.',
    );
    // A failed statement changes nothing.
    expect(Object.keys(await columnsOf('alt', 't')).sort()).toEqual(['c', 'k', 'v']);
    expect(
      (await rows("SELECT comment FROM system_schema.tables WHERE keyspace_name = 'alt' AND table_name = 't'"))[0],
    ).toEqual({ comment: '' });
  });

  it('ALTER TABLE WITH changes the options shown in system_schema.tables', async () => {
    await q("ALTER TABLE alt.t WITH comment = 'altered' AND gc_grace_seconds = 3600 AND default_time_to_live = 60");
    expect(
      await rows(
        "SELECT comment, gc_grace_seconds, default_time_to_live FROM system_schema.tables WHERE keyspace_name = 'alt' AND table_name = 't'",
      ),
    ).toEqual([{ comment: 'altered', gc_grace_seconds: 3600, default_time_to_live: 60 }]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('TRUNCATE and CREATE TABLE WITH ID', () => {
  it('TRUNCATE TABLE ks.t and TRUNCATE ks.t empty the table; unknown ones fail', async () => {
    await q('CREATE TABLE trn.t (k int, c int, v int, PRIMARY KEY (k, c))');
    for (let i = 0; i < 5; i++) await q('INSERT INTO trn.t (k, c, v) VALUES (?, ?, ?)', [i % 2, i, i]);
    await q('TRUNCATE TABLE trn.t');
    expect(await rows('SELECT * FROM trn.t')).toEqual([]);
    await q('INSERT INTO trn.t (k, c, v) VALUES (1, 1, 1)');
    await q('TRUNCATE trn.t');
    expect(await rows('SELECT * FROM trn.t')).toEqual([]);
    // The table still works after truncation.
    await q('INSERT INTO trn.t (k, c, v) VALUES (3, 3, 3)');
    expect(await rows('SELECT * FROM trn.t')).toEqual([{ k: 3, c: 3, v: 3 }]);
    await expectError(q('TRUNCATE trn.nope'), CODE.invalid, 'table nope does not exist');
    await expectError(q('TRUNCATE TABLE trn.nope'), CODE.invalid, 'table nope does not exist');
    await expectError(q('TRUNCATE no_such_ks.t'), CODE.invalid, 'keyspace no_such_ks does not exist');
  });

  it('TRUNCATE of a materialized view is refused', async () => {
    await q('CREATE TABLE trn.base (k int PRIMARY KEY, v int)');
    await q(
      'CREATE MATERIALIZED VIEW trn.by_v AS SELECT * FROM trn.base WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)',
    );
    await expectError(
      q('TRUNCATE trn.by_v'),
      CODE.invalid,
      'Cannot TRUNCATE materialized view directly; must truncate base table instead',
    );
    await expectError(
      q('ALTER TABLE trn.by_v ADD x int'),
      CODE.invalid,
      'Cannot use ALTER TABLE on a materialized view; use ALTER MATERIALIZED VIEW instead',
    );
    await expectError(
      q('DROP TABLE trn.by_v'),
      CODE.invalid,
      'Cannot use DROP TABLE on a materialized view; use DROP MATERIALIZED VIEW instead',
    );
  });

  it('WITH ID sets the id shown in system_schema.tables', async () => {
    const id = '5f2fbdad-9b2d-4b3c-a2f3-0d1c8e1a0b11';
    await q(`CREATE TABLE trn.wid (k int PRIMARY KEY, v int) WITH ID = ${id}`);
    await q("CREATE TABLE trn.wid_quoted (k int PRIMARY KEY) WITH ID = '5F2FBDAD-9B2D-4B3C-A2F3-0D1C8E1A0B12'");
    const tables = await rows("SELECT table_name, id FROM system_schema.tables WHERE keyspace_name = 'trn'");
    const byName = Object.fromEntries(tables.map((t) => [t.table_name, t.id.toString()]));
    expect(byName.wid).toBe(id);
    expect(byName.wid_quoted).toBe('5f2fbdad-9b2d-4b3c-a2f3-0d1c8e1a0b12');
    await q('INSERT INTO trn.wid (k, v) VALUES (1, 1)');
    expect(await rows('SELECT * FROM trn.wid')).toEqual([{ k: 1, v: 1 }]);
  });

  it('a bad id is a ConfigurationException; an id already in use fails as in Cassandra (Guava map builder)', async () => {
    await expectError(q("CREATE TABLE trn.bad (k int PRIMARY KEY) WITH ID = 'nope'"), CODE.config, 'Invalid table id');
    await expectError(q('CREATE TABLE trn.bad (k int PRIMARY KEY) WITH ID = 12'), CODE.config, 'Invalid table id');
    const id = '5f2fbdad-9b2d-4b3c-a2f3-0d1c8e1a0b11';
    await expectError(
      q(`CREATE TABLE trn.dup (k int PRIMARY KEY) WITH ID = ${id}`),
      CODE.server,
      `java.lang.IllegalArgumentException: Multiple entries with same key: ${id}=trn.wid and ${id}=trn.dup`,
    );
    await expectError(
      q(`CREATE TABLE ren.dup (k int PRIMARY KEY) WITH ID = ${id}`),
      CODE.server,
      `java.lang.IllegalArgumentException: Multiple entries with same key: ${id}=trn.wid and ${id}=ren.dup`,
    );
    expect(
      await rows("SELECT table_name FROM system_schema.tables WHERE keyspace_name = 'trn' AND table_name = 'dup'"),
    ).toEqual([]);
    // The table that owns the id is untouched.
    expect(await rows('SELECT * FROM trn.wid')).toEqual([{ k: 1, v: 1 }]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('BATCH', () => {
  beforeAll(async () => {
    await q('CREATE TABLE bat.t (k int, c int, v int, w int, PRIMARY KEY (k, c))');
    await q('CREATE TABLE bat.cnt (k int PRIMARY KEY, n counter)');
    await q('CREATE TABLE bat.iso (k int, c int, v int, PRIMARY KEY (k, c))');
  });

  const writetimes = async (k: number) =>
    (await rows('SELECT c, writetime(v) AS wv, writetime(w) AS ww FROM bat.t WHERE k = ?', [k])).map((r) => [
      r.c,
      r.wv?.toString() ?? null,
      r.ww?.toString() ?? null,
    ]);

  it('a batch-level USING TIMESTAMP applies to every statement', async () => {
    await q(
      'BEGIN BATCH USING TIMESTAMP 1000 INSERT INTO bat.t (k, c, v, w) VALUES (1, 1, 1, 1); ' +
        'UPDATE bat.t SET v = 2 WHERE k = 1 AND c = 2; INSERT INTO bat.t (k, c, w) VALUES (1, 3, 3) APPLY BATCH',
    );
    expect(await writetimes(1)).toEqual([
      [1, '1000', '1000'],
      [2, '1000', null],
      [3, null, '1000'],
    ]);
    // With a bind marker, prepared.
    await q(
      'BEGIN UNLOGGED BATCH USING TIMESTAMP ? INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?); INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?); APPLY BATCH',
      [types.Long.fromNumber(2000), 2, 1, 1, 3, 1, 1],
    );
    expect((await writetimes(2))[0]).toEqual([1, '2000', null]);
    expect((await writetimes(3))[0]).toEqual([1, '2000', null]);
    // A later batch with an older timestamp loses to the newer cells.
    await q('BEGIN BATCH USING TIMESTAMP 500 UPDATE bat.t SET v = 50 WHERE k = 1 AND c = 1; APPLY BATCH');
    expect(await rows('SELECT v FROM bat.t WHERE k = 1 AND c = 1')).toEqual([{ v: 1 }]);
  });

  it('per-statement USING TIMESTAMP inside a batch; the others get the batch time', async () => {
    const before = BigInt(Date.now()) * 1000n;
    await q(
      'BEGIN BATCH INSERT INTO bat.t (k, c, v) VALUES (4, 1, 1) USING TIMESTAMP 7; ' +
        'UPDATE bat.t USING TIMESTAMP 8 SET w = 2 WHERE k = 4 AND c = 1; INSERT INTO bat.t (k, c, v) VALUES (4, 2, 2); APPLY BATCH',
    );
    const wt = await writetimes(4);
    expect(wt[0]).toEqual([1, '7', '8']);
    expect(BigInt(wt[1]![1]!)).toBeGreaterThanOrEqual(before);
    // Through a BATCH message: the client's default timestamp for statements without their own.
    await client.batch(
      [
        { query: 'INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP 11', params: [5, 1, 1] },
        { query: 'INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?)', params: [5, 2, 2] },
      ],
      { prepare: true, timestamp: types.Long.fromNumber(22) },
    );
    expect(await writetimes(5)).toEqual([
      [1, '11', null],
      [2, '22', null],
    ]);
  });

  it("refuses a timestamp on both the BATCH and a statement, and other timestamp misuse, with Cassandra's messages", async () => {
    await expectError(
      q(
        'BEGIN BATCH USING TIMESTAMP 1000 INSERT INTO bat.t (k, c, v) VALUES (6, 1, 1) USING TIMESTAMP 5; ' +
          'INSERT INTO bat.t (k, c, v) VALUES (6, 2, 1); APPLY BATCH',
      ),
      CODE.invalid,
      'Timestamp must be set either on BATCH or individual statements',
    );
    expect(await rows('SELECT * FROM bat.t WHERE k = 6')).toEqual([]);
    await expectError(
      q('BEGIN BATCH USING TIMESTAMP ? INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?; APPLY BATCH', [
        types.Long.fromNumber(1),
        6,
        1,
        1,
        types.Long.fromNumber(2),
      ]),
      CODE.invalid,
      'Timestamp must be set either on BATCH or individual statements',
    );
    await expectError(
      q('BEGIN BATCH USING TTL 5 INSERT INTO bat.t (k, c, v) VALUES (6, 1, 1); APPLY BATCH'),
      CODE.invalid,
      'Global TTL on the BATCH statement is not supported.',
    );
    await expectError(
      q('BEGIN BATCH USING TIMESTAMP 5 INSERT INTO bat.t (k, c, v) VALUES (6, 1, 1) IF NOT EXISTS; APPLY BATCH'),
      CODE.invalid,
      'Cannot provide custom timestamp for conditional BATCH',
    );
    await expectError(
      q('BEGIN COUNTER BATCH USING TIMESTAMP 5 UPDATE bat.cnt SET n = n + 1 WHERE k = 1; APPLY BATCH'),
      CODE.invalid,
      'Cannot provide custom timestamp for counter BATCH',
    );
    await expectError(
      q('BEGIN UNLOGGED BATCH USING TIMESTAMP 5 UPDATE bat.cnt SET n = n + 1 WHERE k = 1; APPLY BATCH'),
      CODE.invalid,
      'Cannot provide custom timestamp for a BATCH containing counters',
    );
    expect(await rows('SELECT * FROM bat.cnt')).toEqual([]);
  });

  it('counter statements: COUNTER and UNLOGGED batches take them, LOGGED ones refuse them, mixes are refused', async () => {
    await q(
      'BEGIN COUNTER BATCH UPDATE bat.cnt SET n = n + 1 WHERE k = 1; UPDATE bat.cnt SET n = n + 2 WHERE k = 2; APPLY BATCH',
    );
    await q('BEGIN UNLOGGED BATCH UPDATE bat.cnt SET n = n + 10 WHERE k = 1; APPLY BATCH');
    await client.batch([{ query: 'UPDATE bat.cnt SET n = n + 100 WHERE k = ?', params: [2] }], {
      prepare: true,
      counter: true,
    });
    await client.batch([{ query: 'UPDATE bat.cnt SET n = n + 1000 WHERE k = ?', params: [2] }], {
      prepare: true,
      logged: false,
    });
    const counts = await rows('SELECT k, n FROM bat.cnt');
    expect(Object.fromEntries(counts.map((r) => [r.k, r.n.toString()]))).toEqual({ 1: '11', 2: '1102' });

    await expectError(
      q('BEGIN BATCH UPDATE bat.cnt SET n = n + 1 WHERE k = 1; APPLY BATCH'),
      CODE.invalid,
      'Cannot include a counter statement in a logged batch',
    );
    await expectError(
      client.batch([{ query: 'UPDATE bat.cnt SET n = n + 1 WHERE k = ?', params: [1] }], { prepare: true }),
      CODE.invalid,
      'Cannot include a counter statement in a logged batch',
    );
    await expectError(
      q('BEGIN COUNTER BATCH INSERT INTO bat.t (k, c, v) VALUES (7, 1, 1); APPLY BATCH'),
      CODE.invalid,
      'Cannot include non-counter statement in a counter batch',
    );
    await expectError(
      q(
        'BEGIN UNLOGGED BATCH UPDATE bat.cnt SET n = n + 1 WHERE k = 1; INSERT INTO bat.t (k, c, v) VALUES (7, 1, 1); APPLY BATCH',
      ),
      CODE.invalid,
      'Counter and non-counter mutations cannot exist in the same batch',
    );
    // In a logged batch the mix is reported before the counter statement (BatchStatement.validate's order).
    await expectError(
      q(
        'BEGIN BATCH INSERT INTO bat.t (k, c, v) VALUES (7, 1, 1); UPDATE bat.cnt SET n = n + 1 WHERE k = 1; APPLY BATCH',
      ),
      CODE.invalid,
      'Counter and non-counter mutations cannot exist in the same batch',
    );
    expect(await rows('SELECT * FROM bat.t WHERE k = 7')).toEqual([]);
    const after = await rows('SELECT k, n FROM bat.cnt');
    expect(Object.fromEntries(after.map((r) => [r.k, r.n.toString()]))).toEqual({ 1: '11', 2: '1102' });
  });

  it('only INSERT / UPDATE / DELETE in a batch: a syntax error in BEGIN BATCH, InvalidRequest in a BATCH message', async () => {
    await expectError(
      q('BEGIN BATCH SELECT * FROM bat.t; APPLY BATCH'),
      CODE.syntax,
      "line 1:12 mismatched input 'SELECT' expecting K_APPLY (BEGIN BATCH [SELECT]...)",
    );
    await expectError(
      q('BEGIN BATCH TRUNCATE bat.t; APPLY BATCH'),
      CODE.syntax,
      "line 1:12 mismatched input 'TRUNCATE' expecting K_APPLY (BEGIN BATCH [TRUNCATE]...)",
    );
    await expectError(
      client.batch([{ query: 'SELECT * FROM bat.t WHERE k = 1' }]),
      CODE.invalid,
      'Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.',
    );
  });

  it('UNLOGGED batches apply every statement across partitions and tables; conditional batches stay in one partition', async () => {
    const r = await client.batch(
      [
        { query: 'INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?)', params: [8, 1, 1] },
        { query: 'INSERT INTO bat.t (k, c, v) VALUES (?, ?, ?)', params: [9, 1, 2] },
        { query: 'DELETE FROM bat.t WHERE k = ? AND c = ?', params: [1, 3] },
        { query: 'INSERT INTO bat.iso (k, c, v) VALUES (?, ?, ?)', params: [99, 1, 1] },
      ],
      { prepare: true, logged: false },
    );
    // Cassandra warns only above unlogged_batch_across_partitions_warn_threshold (10 partitions).
    expect(r.info.warnings).toBeUndefined();
    expect(await rows('SELECT k, c, v FROM bat.t WHERE k IN (8, 9)')).toEqual([
      { k: 8, c: 1, v: 1 },
      { k: 9, c: 1, v: 2 },
    ]);
    expect(await rows('SELECT * FROM bat.t WHERE k = 1 AND c = 3')).toEqual([]);
    expect(await rows('SELECT * FROM bat.iso WHERE k = 99')).toEqual([{ k: 99, c: 1, v: 1 }]);
    await expectError(
      q(
        'BEGIN UNLOGGED BATCH INSERT INTO bat.t (k, c, v) VALUES (10, 1, 1) IF NOT EXISTS; INSERT INTO bat.t (k, c, v) VALUES (11, 1, 1); APPLY BATCH',
      ),
      CODE.invalid,
      'Batch with conditions cannot span multiple partitions',
    );
    await expectError(
      q(
        'BEGIN BATCH INSERT INTO bat.t (k, c, v) VALUES (10, 1, 1) IF NOT EXISTS; INSERT INTO bat.iso (k, c, v) VALUES (10, 1, 1); APPLY BATCH',
      ),
      CODE.invalid,
      'Batch with conditions cannot span multiple tables',
    );
  });

  it('a single-partition batch is isolated: concurrent readers never see old and new values mixed', async () => {
    const ROWS = 200;
    const ROUNDS = 40;
    const insert = 'INSERT INTO bat.iso (k, c, v) VALUES (?, ?, ?)';
    const batchOf = (value: number) =>
      Array.from({ length: ROWS }, (_, c) => ({ query: insert, params: [1, c, value] }));
    await client.batch(batchOf(0), { prepare: true });
    let done = false;
    const writer = (async () => {
      try {
        for (let i = 1; i <= ROUNDS; i++) {
          // Logged and unlogged alike: both are applied atomically within a partition.
          await client.batch(batchOf(i), { prepare: true, logged: i % 2 === 0 });
        }
      } finally {
        done = true;
      }
    })();
    const seen = new Set<number>();
    const mixed: string[] = [];
    let reads = 0;
    const reader = async () => {
      while (!done) {
        const r = await client.execute('SELECT c, v FROM bat.iso WHERE k = 1', [], { prepare: true, fetchSize: 1000 });
        reads++;
        const values = new Set(r.rows.map((row) => row.v as number));
        if (r.rows.length !== ROWS || values.size !== 1) {
          mixed.push(`${r.rows.length} rows, values ${[...values].sort((a, b) => a - b).join(',')}`);
        }
        for (const v of values) seen.add(v);
      }
    };
    await Promise.all([writer, reader(), reader(), reader()]);
    expect(mixed).toEqual([]);
    expect(reads).toBeGreaterThan(ROUNDS / 2);
    expect(seen.size).toBeGreaterThan(1);
    const final = await rows('SELECT v FROM bat.iso WHERE k = 1');
    expect(new Set(final.map((r) => r.v))).toEqual(new Set([ROUNDS]));
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------------------------
describe('consistency levels on a single node', () => {
  let wire: WireClient;
  let stream = 1;

  /** QUERY over protocol v4 at any level (the Node.js driver sends ANY as ONE for QUERY/EXECUTE). */
  async function wireQuery(
    cql: string,
    consistency: number,
  ): Promise<{ opcode: number; error?: Record<string, unknown> }> {
    const body = Buffer.concat([longStr(cql), short(consistency), Buffer.from([0])]);
    const f = await wire.request(4, stream++, Op.QUERY, body);
    if (f.opcode !== Op.ERROR) return { opcode: f.opcode };
    const r = new Reader(f.body);
    const code = r.int();
    const message = r.string();
    const error: Record<string, unknown> = { code, message };
    if (code === CODE.unavailable) Object.assign(error, { consistency: r.short(), required: r.int(), alive: r.int() });
    return { opcode: f.opcode, error };
  }

  beforeAll(async () => {
    await q('CREATE TABLE cl1.t (k int PRIMARY KEY, v int)');
    await q('CREATE TABLE cl1.cnt (k int PRIMARY KEY, n counter)');
    await q('CREATE TABLE cl3.t (k int PRIMARY KEY, v int)');
    wire = await WireClient.connect(server.host, server.port);
    expect((await wire.request(4, 0, Op.STARTUP, startupBody())).opcode).toBe(Op.READY);
  });

  afterAll(() => {
    wire?.close();
  });

  it('RF=1 SimpleStrategy: writes and reads succeed at ONE, QUORUM, ALL, LOCAL_ONE, LOCAL_QUORUM, EACH_QUORUM', async () => {
    const levels = {
      one: CL.one,
      quorum: CL.quorum,
      all: CL.all,
      localOne: CL.localOne,
      localQuorum: CL.localQuorum,
      eachQuorum: CL.eachQuorum,
    };
    let k = 0;
    for (const [name, cl] of Object.entries(levels)) {
      k++;
      await direct.execute('INSERT INTO cl1.t (k, v) VALUES (?, ?)', [k, k], { prepare: true, consistency: cl });
      const r = await direct.execute('SELECT v FROM cl1.t WHERE k = ?', [k], { prepare: true, consistency: cl });
      expect({ name, rows: r.rows.map((x) => x.v) }).toEqual({ name, rows: [k] });
    }
    // A BATCH at ALL and a SELECT of a whole table at QUORUM too.
    await direct.batch([{ query: 'INSERT INTO cl1.t (k, v) VALUES (?, ?)', params: [50, 50] }], {
      prepare: true,
      consistency: CL.all,
    });
    expect((await direct.execute('SELECT * FROM cl1.t', [], { consistency: CL.quorum })).rowLength).toBe(7);
  });

  it('RF=1: TWO and THREE need more replicas than exist: Unavailable', async () => {
    await expectUnavailable(
      direct.execute('INSERT INTO cl1.t (k, v) VALUES (1, 1)', [], { consistency: CL.two }),
      CL.two,
      2,
      1,
    );
    await expectUnavailable(
      direct.execute('SELECT * FROM cl1.t WHERE k = 1', [], { consistency: CL.three }),
      CL.three,
      3,
      1,
    );
  });

  it('ANY: writes succeed (also for a keyspace with RF=3), reads are refused; counters refuse it', async () => {
    expect((await wireQuery('INSERT INTO cl1.t (k, v) VALUES (60, 60)', CL.any)).opcode).toBe(Op.RESULT);
    expect((await wireQuery('INSERT INTO cl3.t (k, v) VALUES (60, 60)', CL.any)).opcode).toBe(Op.RESULT);
    await direct.batch([{ query: 'INSERT INTO cl1.t (k, v) VALUES (?, ?)', params: [61, 61] }], {
      prepare: true,
      consistency: CL.any,
    });
    expect(await rows('SELECT k, v FROM cl1.t WHERE k IN (60, 61)')).toEqual([
      { k: 60, v: 60 },
      { k: 61, v: 61 },
    ]);
    expect((await wireQuery('SELECT * FROM cl1.t WHERE k = 60', CL.any)).error).toEqual({
      code: CODE.invalid,
      message: 'ANY ConsistencyLevel is only supported for writes',
    });
    expect((await wireQuery('UPDATE cl1.cnt SET n = n + 1 WHERE k = 1', CL.any)).error).toEqual({
      code: CODE.invalid,
      message: 'Consistency level ANY is not yet supported for counter table cnt',
    });
  });

  it('RF=3 SimpleStrategy: ONE succeeds; TWO, QUORUM, ALL and the local/each quorums are Unavailable', async () => {
    await direct.execute('INSERT INTO cl3.t (k, v) VALUES (1, 1)', [], { consistency: CL.one });
    expect((await direct.execute('SELECT v FROM cl3.t WHERE k = 1', [], { consistency: CL.localOne })).rows[0]?.v).toBe(
      1,
    );
    const cases: [number, number][] = [
      [CL.two, 2],
      [CL.quorum, 2],
      [CL.all, 3],
      [CL.localQuorum, 2],
      [CL.eachQuorum, 2],
    ];
    for (const [cl, required] of cases) {
      await expectUnavailable(
        direct.execute('INSERT INTO cl3.t (k, v) VALUES (2, 2)', [], { consistency: cl }),
        cl,
        required,
        1,
      );
      await expectUnavailable(
        direct.execute('SELECT * FROM cl3.t WHERE k = 1', [], { consistency: cl }),
        cl,
        required,
        1,
      );
    }
    await expectUnavailable(
      direct.batch([{ query: 'INSERT INTO cl3.t (k, v) VALUES (?, ?)', params: [2, 2] }], {
        prepare: true,
        consistency: CL.quorum,
      }),
      CL.quorum,
      2,
      1,
    );
    // A BEGIN BATCH string is checked too.
    await expectUnavailable(
      direct.execute('BEGIN BATCH INSERT INTO cl3.t (k, v) VALUES (2, 2); APPLY BATCH', [], { consistency: CL.all }),
      CL.all,
      3,
      1,
    );
    expect(await rows('SELECT * FROM cl3.t WHERE k = 2')).toEqual([]);
    // The server's own message, as Cassandra's UnavailableException (the driver rewrites it).
    expect((await wireQuery('SELECT * FROM cl3.t WHERE k = 1', CL.quorum)).error).toEqual({
      code: CODE.unavailable,
      message: 'Cannot achieve consistency level QUORUM',
      consistency: CL.quorum,
      required: 2,
      alive: 1,
    });
  });

  it('NetworkTopologyStrategy: the local datacenter counts; a datacenter without this node has no live replica', async () => {
    const dc = (await rows('SELECT data_center FROM system.local'))[0]?.data_center as string;
    expect(dc).toBe('datacenter1');
    await q(`CREATE KEYSPACE nts1 WITH replication = {'class': 'NetworkTopologyStrategy', '${dc}': 1}`);
    await q(`CREATE KEYSPACE nts3 WITH replication = {'class': 'NetworkTopologyStrategy', '${dc}': 3}`);
    // Datacenters this cluster does not know are refused (NetworkTopologyStrategy.validateExpectedOptions), so a
    // keyspace with no replica here is one whose local factor is 0.
    await expectConfigError(
      q(`CREATE KEYSPACE ntsmix WITH replication = {'class': 'NetworkTopologyStrategy', '${dc}': 1, 'dc2': 2}`),
      'Unrecognized strategy option {dc2} passed to NetworkTopologyStrategy for keyspace ntsmix',
    );
    await expectConfigError(
      q(`ALTER KEYSPACE nts1 WITH replication = {'class': 'NetworkTopologyStrategy', 'east': 1}`),
      'Unrecognized strategy option {east} passed to NetworkTopologyStrategy for keyspace nts1',
    );
    await q(`CREATE KEYSPACE ntsother WITH replication = {'class': 'NetworkTopologyStrategy', '${dc}': 0}`);
    for (const ks of ['nts1', 'nts3', 'ntsother']) await q(`CREATE TABLE ${ks}.t (k int PRIMARY KEY, v int)`);
    const insert = (ks: string, cl: number) =>
      direct.execute(`INSERT INTO ${ks}.t (k, v) VALUES (1, 1)`, [], { consistency: cl });
    const select = (ks: string, cl: number) =>
      direct.execute(`SELECT * FROM ${ks}.t WHERE k = 1`, [], { consistency: cl });

    for (const cl of [CL.localQuorum, CL.eachQuorum, CL.quorum, CL.all]) {
      await insert('nts1', cl);
      expect((await select('nts1', cl)).rowLength).toBe(1);
    }
    await expectUnavailable(insert('nts3', CL.localQuorum), CL.localQuorum, 2, 1);
    await expectUnavailable(insert('nts3', CL.eachQuorum), CL.eachQuorum, 2, 1);
    await expectUnavailable(select('nts3', CL.eachQuorum), CL.eachQuorum, 2, 1);
    await insert('nts3', CL.localOne);

    // No replica here at all.
    await expectUnavailable(insert('ntsother', CL.one), CL.one, 1, 0);
    await expectUnavailable(insert('ntsother', CL.localQuorum), CL.localQuorum, 1, 0);
    await expectUnavailable(insert('ntsother', CL.eachQuorum), CL.eachQuorum, 1, 0);
    await expectUnavailable(select('ntsother', CL.localOne), CL.localOne, 1, 0);
    // ANY is satisfied by a hint.
    expect((await wireQuery('INSERT INTO ntsother.t (k, v) VALUES (1, 1)', CL.any)).opcode).toBe(Op.RESULT);
  });

  it('SERIAL / LOCAL_SERIAL: conditional writes with serialConsistency, SELECT at SERIAL', async () => {
    const opts = (serial: number, consistency: number = CL.localQuorum) => ({
      prepare: true,
      consistency,
      serialConsistency: serial,
    });
    let r = await direct.execute('INSERT INTO cl1.t (k, v) VALUES (?, ?) IF NOT EXISTS', [100, 1], opts(CL.serial));
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': true }]);
    r = await direct.execute('INSERT INTO cl1.t (k, v) VALUES (?, ?) IF NOT EXISTS', [100, 2], opts(CL.localSerial));
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': false, k: 100, v: 1 }]);
    r = await direct.execute('UPDATE cl1.t SET v = ? WHERE k = ? IF v = ?', [3, 100, 1], opts(CL.localSerial, CL.any));
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': true }]);
    r = await direct.execute('UPDATE cl1.t SET v = ? WHERE k = ? IF v = ?', [4, 100, 1], opts(CL.serial, CL.one));
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': false, v: 3 }]);
    r = await direct.execute('DELETE FROM cl1.t WHERE k = ? IF EXISTS', [100], opts(CL.serial, CL.all));
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': true }]);
    // A conditional batch with a serial level.
    r = await direct.batch(
      [
        { query: 'INSERT INTO cl1.t (k, v) VALUES (?, ?) IF NOT EXISTS', params: [101, 1] },
        { query: 'UPDATE cl1.t SET v = ? WHERE k = ?', params: [5, 101] },
      ],
      { prepare: true, serialConsistency: CL.localSerial },
    );
    expect(r.rows.map((x) => ({ ...x }))).toEqual([{ '[applied]': true }]);

    for (const cl of [CL.serial, CL.localSerial]) {
      const read = await direct.execute('SELECT k, v FROM cl1.t WHERE k = ?', [101], {
        prepare: true,
        consistency: cl,
      });
      expect(read.rows.map((x) => ({ ...x }))).toEqual([{ k: 101, v: 5 }]);
      // Several partitions: one page at a time is one partition at a time; unpaged is refused (StorageProxy.read).
      const paged = await direct.execute('SELECT k, v FROM cl1.t WHERE k IN (100, 101)', [], { consistency: cl });
      expect(paged.rows.map((x) => ({ ...x }))).toEqual([{ k: 101, v: 5 }]);
      await expectError(
        direct.execute('SELECT k, v FROM cl1.t WHERE k IN (100, 101)', [], { consistency: cl, fetchSize: 0 }),
        0x2200,
        'SERIAL/LOCAL_SERIAL consistency may only be requested for one partition at a time',
      );
    }
  });

  it('SERIAL misuse: non-conditional writes, a non-serial serial level, SERIAL as commit level, counters', async () => {
    for (const cl of [CL.serial, CL.localSerial]) {
      await expectError(
        direct.execute('INSERT INTO cl1.t (k, v) VALUES (1, 1)', [], { consistency: cl }),
        CODE.invalid,
        'You must use conditional updates for serializable writes',
      );
      // Also on RF=3, where the level could not be met anyway: the request is refused before.
      await expectError(
        direct.execute('UPDATE cl3.t SET v = 1 WHERE k = 1', [], { consistency: cl }),
        CODE.invalid,
        'You must use conditional updates for serializable writes',
      );
    }
    await expectError(
      direct.batch([{ query: 'INSERT INTO cl1.t (k, v) VALUES (?, ?)', params: [1, 1] }], {
        prepare: true,
        consistency: CL.serial,
      }),
      CODE.invalid,
      'You must use conditional updates for serializable writes',
    );
    await expectError(
      direct.execute('INSERT INTO cl1.t (k, v) VALUES (1, 1) IF NOT EXISTS', [], { serialConsistency: CL.quorum }),
      CODE.invalid,
      'Invalid consistency for conditional update. Must be one of SERIAL or LOCAL_SERIAL',
    );
    await expectError(
      direct.execute('INSERT INTO cl1.t (k, v) VALUES (1, 1) IF NOT EXISTS', [], { consistency: CL.serial }),
      CODE.invalid,
      `SERIAL ${CAS_COMMIT_SERIAL}`,
    );
    await expectError(
      direct.execute('UPDATE cl1.t SET v = 2 WHERE k = 1 IF v = 1', [], { consistency: CL.localSerial }),
      CODE.invalid,
      `LOCAL_SERIAL ${CAS_COMMIT_SERIAL}`,
    );
    await expectError(
      direct.execute('INSERT INTO cl1.t (k, v) VALUES (1, 1) IF NOT EXISTS', [], { consistency: CL.eachQuorum }),
      CODE.invalid,
      'consistency level EACH_QUORUM not compatible with replication strategy (org.apache.cassandra.locator.SimpleStrategy)',
    );
    await expectError(
      direct.execute('UPDATE cl1.cnt SET n = n + 1 WHERE k = 1', [], { consistency: CL.serial }),
      CODE.invalid,
      'Counter operations are inherently non-serializable',
    );
    expect(await rows('SELECT * FROM cl1.t WHERE k = 1')).toEqual([{ k: 1, v: 1 }]);
  });

  it('RF=1: a conditional write, alone or in a batch, still needs its commit level', async () => {
    await expectUnavailable(
      direct.execute('INSERT INTO cl1.t (k, v) VALUES (300, 1) IF NOT EXISTS', [], { consistency: CL.two }),
      CL.two,
      2,
      1,
    );
    await expectUnavailable(
      direct.batch([{ query: 'INSERT INTO cl1.t (k, v) VALUES (?, ?) IF NOT EXISTS', params: [300, 1] }], {
        prepare: true,
        consistency: CL.two,
      }),
      CL.two,
      2,
      1,
    );
    await expectUnavailable(
      direct.execute('BEGIN BATCH INSERT INTO cl1.t (k, v) VALUES (300, 1) IF NOT EXISTS APPLY BATCH', [], {
        consistency: CL.two,
      }),
      CL.two,
      2,
      1,
    );
  });

  it('RF=3: Paxos needs a quorum of participants: conditional writes and SERIAL reads are Unavailable', async () => {
    await expectUnavailable(
      direct.execute('INSERT INTO cl3.t (k, v) VALUES (5, 5) IF NOT EXISTS', [], {
        consistency: CL.one,
        serialConsistency: CL.serial,
      }),
      CL.serial,
      2,
      1,
    );
    // Paxos fails before the commit level (QUORUM, also short of replicas) is looked at.
    await expectUnavailable(
      direct.execute('INSERT INTO cl3.t (k, v) VALUES (5, 5) IF NOT EXISTS', [], {
        consistency: CL.quorum,
        serialConsistency: CL.serial,
      }),
      CL.serial,
      2,
      1,
    );
    await expectUnavailable(
      direct.execute('UPDATE cl3.t SET v = 6 WHERE k = 5 IF v = 5', [], {
        consistency: CL.one,
        serialConsistency: CL.localSerial,
      }),
      CL.localSerial,
      2,
      1,
    );
    await expectUnavailable(
      direct.batch([{ query: 'INSERT INTO cl3.t (k, v) VALUES (?, ?) IF NOT EXISTS', params: [5, 5] }], {
        prepare: true,
        consistency: CL.one,
      }),
      CL.serial,
      2,
      1,
    );
    await expectUnavailable(
      direct.execute('SELECT * FROM cl3.t WHERE k = 5', [], { consistency: CL.serial }),
      CL.serial,
      2,
      1,
    );
    expect(await rows('SELECT * FROM cl3.t WHERE k = 5')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('SCHEMA_CHANGE events', () => {
  it('reach a driver for table and type create / alter / drop, and its metadata follows', async () => {
    const events: { change: string; target: string; keyspace: string; name: string | null }[] = [];
    const listener = newClient();
    listener.on('log', (_level, className, message, info) => {
      if (className === 'ControlConnection' && message === 'Schema change' && info && typeof info === 'object') {
        const e = info as {
          schemaChangeType: string;
          target: string;
          keyspace: string;
          table: string | null;
          udt: string | null;
        };
        events.push({
          change: e.schemaChangeType,
          target: e.target,
          keyspace: e.keyspace,
          name: e.table ?? e.udt ?? null,
        });
      }
    });
    await listener.connect();
    const waitFor = async (n: number) => {
      for (let i = 0; i < 100 && events.length < n; i++) await new Promise((ok) => setTimeout(ok, 50));
    };

    await q(`CREATE KEYSPACE evt WITH replication = ${SIMPLE1}`);
    await q('CREATE TYPE evt.addr (street text)');
    await q('CREATE TABLE evt.t (k int PRIMARY KEY, a frozen<addr>)');
    await q('ALTER TYPE evt.addr ADD zip int');
    await q('ALTER TABLE evt.t ADD v int');
    await q('ALTER TABLE evt.t RENAME k TO id');
    await q("ALTER TABLE evt.t WITH comment = 'c'");
    await q('DROP TABLE evt.t');
    await q('DROP TYPE evt.addr');
    await q('DROP KEYSPACE evt');
    await waitFor(10);
    expect(events).toEqual([
      { change: 'CREATED', target: 'KEYSPACE', keyspace: 'evt', name: null },
      { change: 'CREATED', target: 'TYPE', keyspace: 'evt', name: 'addr' },
      { change: 'CREATED', target: 'TABLE', keyspace: 'evt', name: 't' },
      { change: 'UPDATED', target: 'TYPE', keyspace: 'evt', name: 'addr' },
      { change: 'UPDATED', target: 'TABLE', keyspace: 'evt', name: 't' },
      { change: 'UPDATED', target: 'TABLE', keyspace: 'evt', name: 't' },
      { change: 'UPDATED', target: 'TABLE', keyspace: 'evt', name: 't' },
      { change: 'DROPPED', target: 'TABLE', keyspace: 'evt', name: 't' },
      { change: 'DROPPED', target: 'TYPE', keyspace: 'evt', name: 'addr' },
      { change: 'DROPPED', target: 'KEYSPACE', keyspace: 'evt', name: null },
    ]);
    // No event for statements that change nothing.
    await q('ALTER TABLE IF EXISTS alt.missing ADD x int');
    await q('ALTER TABLE alt.t ADD IF NOT EXISTS v int');
    await q('ALTER TABLE alt.t DROP IF EXISTS nope');
    await new Promise((ok) => setTimeout(ok, 300));
    expect(events).toHaveLength(10);
  });

  it("a driver's refreshed metadata shows types and tables after each change", async () => {
    await q(`CREATE KEYSPACE meta WITH replication = ${SIMPLE1}`);
    await q('CREATE TYPE meta.point (x int)');
    await q('CREATE TABLE meta.t (k int PRIMARY KEY, p frozen<point>)');
    const watcher = newClient();
    await watcher.connect();
    expect((await watcher.metadata.getUdt('meta', 'point'))?.fields.map((f) => f.name)).toEqual(['x']);
    expect((await watcher.metadata.getTable('meta', 't'))?.columns.map((c) => c.name)).toEqual(['k', 'p']);
    await q('ALTER TYPE meta.point ADD y int');
    await q('ALTER TABLE meta.t ADD v text');
    await q('ALTER TABLE meta.t RENAME k TO id');
    // The SCHEMA_CHANGE events make the driver drop its cached objects; the next lookup reads the new schema.
    let fields: string[] | undefined;
    let columns: string[] | undefined;
    for (let i = 0; i < 60; i++) {
      fields = (await watcher.metadata.getUdt('meta', 'point'))?.fields.map((f) => f.name);
      columns = (await watcher.metadata.getTable('meta', 't'))?.columns.map((c) => c.name);
      if (fields?.length === 2 && columns?.includes('id') && columns.includes('v')) break;
      await new Promise((ok) => setTimeout(ok, 50));
    }
    expect(fields).toEqual(['x', 'y']);
    expect(columns?.sort()).toEqual(['id', 'p', 'v']);
    await q('DROP TABLE meta.t');
    await q('DROP TYPE meta.point');
    let gone = false;
    for (let i = 0; i < 60 && !gone; i++) {
      gone =
        (await watcher.metadata.getTable('meta', 't')) === null &&
        (await watcher.metadata.getUdt('meta', 'point')) === null;
      if (!gone) await new Promise((ok) => setTimeout(ok, 50));
    }
    expect(gone).toBe(true);
  });
});
