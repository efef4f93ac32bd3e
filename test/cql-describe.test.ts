// Server-side DESCRIBE through the DataStax Node.js driver against the real server, compared with the
// exact texts Cassandra 5.0 prints (DescribeStatementTest): listings, CREATE KEYSPACE / TYPE / TABLE,
// virtual tables, WITH INTERNALS, DESCRIBE CLUSTER, errors, paging, and a replay of DESCRIBE SCHEMA on a
// second, empty server that must give identical system_schema rows.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

const INVALID = 0x2200;
const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

/** TableParams as Cassandra 5.0 prints the defaults (DescribeStatementTest.tableParametersCql, 5.0 options). */
const DEFAULT_PARAMS =
  "additional_write_policy = '99p'\n" +
  '    AND allow_auto_snapshot = true\n' +
  '    AND bloom_filter_fp_chance = 0.01\n' +
  "    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n" +
  '    AND cdc = false\n' +
  "    AND comment = ''\n" +
  "    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '4'}\n" +
  "    AND compression = {'chunk_length_in_kb': '16', 'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}\n" +
  "    AND memtable = 'default'\n" +
  '    AND crc_check_chance = 1.0\n' +
  '    AND default_time_to_live = 0\n' +
  '    AND extensions = {}\n' +
  '    AND gc_grace_seconds = 864000\n' +
  '    AND incremental_backups = true\n' +
  '    AND max_index_interval = 2048\n' +
  '    AND memtable_flush_period_in_ms = 0\n' +
  '    AND min_index_interval = 128\n' +
  "    AND read_repair = 'BLOCKING'\n" +
  "    AND speculative_retry = '99p';";

/** Cassandra 5.0 names its own replication strategies by their simple class name. */
const KEYSPACE_OUTPUT =
  "CREATE KEYSPACE test WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}  AND durable_writes = true;";

const ALL_TYPES_CREATE =
  'CREATE TABLE test.has_all_types (num int PRIMARY KEY, asciicol ascii, bigintcol bigint, blobcol blob, ' +
  'booleancol boolean, decimalcol decimal, doublecol double, durationcol duration, floatcol float, ' +
  'frozenlistcol frozen<list<text>>, frozenmapcol frozen<map<timestamp, timeuuid>>, frozensetcol frozen<set<bigint>>, ' +
  'intcol int, smallintcol smallint, textcol text, timestampcol timestamp, tinyintcol tinyint, ' +
  'tuplecol frozen<tuple<text, int, frozen<tuple<timestamp>>>>, uuidcol uuid, varcharcol varchar, varintcol varint, ' +
  'listcol list<decimal>, mapcol map<timestamp, timeuuid>, setcol set<tinyint>)';

const ALL_TYPES_OUTPUT =
  'CREATE TABLE test.has_all_types (\n' +
  '    num int PRIMARY KEY,\n' +
  '    asciicol ascii,\n' +
  '    bigintcol bigint,\n' +
  '    blobcol blob,\n' +
  '    booleancol boolean,\n' +
  '    decimalcol decimal,\n' +
  '    doublecol double,\n' +
  '    durationcol duration,\n' +
  '    floatcol float,\n' +
  '    frozenlistcol frozen<list<text>>,\n' +
  '    frozenmapcol frozen<map<timestamp, timeuuid>>,\n' +
  '    frozensetcol frozen<set<bigint>>,\n' +
  '    intcol int,\n' +
  '    smallintcol smallint,\n' +
  '    textcol text,\n' +
  '    timestampcol timestamp,\n' +
  '    tinyintcol tinyint,\n' +
  '    tuplecol frozen<tuple<text, int, frozen<tuple<timestamp>>>>,\n' +
  '    uuidcol uuid,\n' +
  '    varcharcol text,\n' +
  '    varintcol varint,\n' +
  '    listcol list<decimal>,\n' +
  '    mapcol map<timestamp, timeuuid>,\n' +
  '    setcol set<tinyint>\n' +
  ') WITH ' +
  DEFAULT_PARAMS;

const TEST_TABLE_OUTPUT =
  'CREATE TABLE test."Test" (\n' +
  '    id int,\n' +
  '    col int,\n' +
  '    val text,\n' +
  '    PRIMARY KEY (id, col)\n' +
  ') WITH CLUSTERING ORDER BY (col ASC)\n' +
  '    AND ' +
  DEFAULT_PARAMS;

const USERS_OUTPUT =
  'CREATE TABLE test.users (\n' +
  '    userid text PRIMARY KEY,\n' +
  '    age int,\n' +
  '    firstname text,\n' +
  '    lastname text\n' +
  ') WITH ' +
  DEFAULT_PARAMS;

const ADDRESS_OUTPUT = 'CREATE TYPE test.address (\n    street text,\n    city text,\n    zip int\n);';
const PERSON_OUTPUT =
  'CREATE TYPE test.person (\n    name text,\n    home frozen<address>,\n    tags frozen<set<text>>\n);';
const ACCOUNT_OUTPUT = 'CREATE TYPE test.account (\n    owner frozen<person>,\n    balance decimal\n);';
const RESERVED_OUTPUT = 'CREATE TYPE test.reserved (\n    "token" text,\n    "desc" text,\n    "Mixed" int\n);';

const EVENTS_OUTPUT =
  'CREATE TABLE test.events (\n' +
  '    tenant text,\n' +
  '    day date,\n' +
  '    ts timeuuid,\n' +
  '    seq int,\n' +
  '    owner text static,\n' +
  '    rank int static,\n' +
  '    "Payload" text,\n' +
  '    loc frozen<address>,\n' +
  '    "order" int,\n' +
  '    attrs map<text, int>,\n' +
  '    hist list<frozen<person>>,\n' +
  '    tags set<text>,\n' +
  '    PRIMARY KEY ((tenant, day), ts, seq)\n' +
  ') WITH CLUSTERING ORDER BY (ts DESC, seq ASC)\n' +
  "    AND additional_write_policy = '99p'\n" +
  '    AND allow_auto_snapshot = true\n' +
  '    AND bloom_filter_fp_chance = 0.1\n' +
  "    AND caching = {'keys': 'NONE', 'rows_per_partition': '10'}\n" +
  '    AND cdc = false\n' +
  "    AND comment = 'it''s the events'\n" +
  "    AND compaction = {'bucket_high': '2.0', 'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '2'}\n" +
  "    AND compression = {'chunk_length_in_kb': '64', 'class': 'org.apache.cassandra.io.compress.ZstdCompressor'}\n" +
  "    AND memtable = 'default'\n" +
  '    AND crc_check_chance = 0.5\n' +
  '    AND default_time_to_live = 3600\n' +
  '    AND extensions = {}\n' +
  '    AND gc_grace_seconds = 100\n' +
  '    AND incremental_backups = true\n' +
  '    AND max_index_interval = 2048\n' +
  '    AND memtable_flush_period_in_ms = 0\n' +
  '    AND min_index_interval = 128\n' +
  "    AND read_repair = 'BLOCKING'\n" +
  "    AND speculative_retry = '95p';";

const COUNTERS_OUTPUT =
  'CREATE TABLE test.counters (\n' +
  '    k text,\n' +
  '    c int,\n' +
  '    hits counter,\n' +
  '    PRIMARY KEY (k, c)\n' +
  ') WITH CLUSTERING ORDER BY (c DESC)\n' +
  '    AND ' +
  DEFAULT_PARAMS;

const POINT_OUTPUT = 'CREATE TYPE "Other"."Point" (\n    x int,\n    "Y" int\n);';

const SHAPES_OUTPUT =
  'CREATE TABLE "Other"."Shapes" (\n' +
  '    "Id" int,\n' +
  '    "Seq" int,\n' +
  '    p frozen<"Point">,\n' +
  '    t frozen<tuple<int, text>>,\n' +
  '    v vector<float, 3>,\n' +
  '    m map<int, frozen<list<int>>>,\n' +
  '    pts list<frozen<"Point">>,\n' +
  '    PRIMARY KEY ("Id", "Seq")\n' +
  ') WITH CLUSTERING ORDER BY ("Seq" ASC)\n' +
  "    AND additional_write_policy = '50ms'\n" +
  '    AND allow_auto_snapshot = false\n' +
  '    AND bloom_filter_fp_chance = 0.01\n' +
  "    AND caching = {'keys': 'ALL', 'rows_per_partition': 'NONE'}\n" +
  '    AND cdc = true\n' +
  "    AND comment = ''\n" +
  "    AND compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', 'max_threshold': '32', 'min_threshold': '4'}\n" +
  "    AND compression = {'enabled': 'false'}\n" +
  "    AND memtable = 'default'\n" +
  '    AND crc_check_chance = 1.0\n' +
  '    AND default_time_to_live = 0\n' +
  "    AND extensions = {'a': 0xff, 'b': 0x0102}\n" +
  '    AND gc_grace_seconds = 864000\n' +
  '    AND incremental_backups = false\n' +
  '    AND max_index_interval = 4096\n' +
  '    AND memtable_flush_period_in_ms = 5\n' +
  '    AND min_index_interval = 64\n' +
  "    AND read_repair = 'NONE'\n" +
  "    AND speculative_retry = 'ALWAYS';";

/** Every keyspace Cassandra 5.0 (and we) have besides the user ones, in DESCRIBE order. */
const SYSTEM_KEYSPACES = [
  'system',
  'system_arrow',
  'system_auth',
  'system_distributed',
  'system_schema',
  'system_traces',
  'system_views',
  'system_virtual_schema',
];

let server: ServerProcess;
let client: cassandra.Client;
const clients: cassandra.Client[] = [];

function newClient(port: number, keyspace?: string): cassandra.Client {
  const c = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1', keyspace });
  clients.push(c);
  return c;
}

type Row = Record<string, unknown>;

async function desc(query: string, c: cassandra.Client = client): Promise<Row[]> {
  return (await c.execute(query)).rows.map((r) => ({ ...r }));
}

/** keyspace_name, type, name (and create_statement) of each row, as arrays for compact assertions. */
async function descRows(query: string, c: cassandra.Client = client): Promise<string[][]> {
  return (await desc(query, c)).map((r) => Object.values(r) as string[]);
}

async function expectInvalid(query: string, message: string, c: cassandra.Client = client): Promise<void> {
  const err = (await c.execute(query).then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: number; message?: string } | undefined;
  expect(err, `expected ${query} to fail`).toBeDefined();
  expect(err?.code).toBe(INVALID);
  expect(err?.message).toBe(message);
}

let inTest: cassandra.Client;

beforeAll(async () => {
  server = await startServer();
  client = newClient(server.port);
  await client.connect();
  const ddl = [
    `CREATE KEYSPACE test WITH REPLICATION = ${REPLICATION}`,
    'CREATE TYPE test.address (street text, city text, zip int)',
    'CREATE TABLE test.users (userid text PRIMARY KEY, firstname text, lastname text, age int)',
    'CREATE TABLE test."Test" (id int, col int, val text, PRIMARY KEY(id, col))',
    ALL_TYPES_CREATE,
    'CREATE TYPE test.person (name text, home frozen<address>, tags frozen<set<text>>)',
    'CREATE TYPE test.reserved ("token" text, "desc" text, "Mixed" int)',
    'CREATE TYPE test.account (owner frozen<person>, "balance" decimal)',
    `CREATE TABLE test.events (tenant text, day date, ts timeuuid, seq int, "Payload" text, tags set<text>,
       attrs map<text, int>, loc frozen<address>, hist list<frozen<person>>, owner text static, rank int static,
       "order" int, PRIMARY KEY ((tenant, day), ts, seq))
     WITH CLUSTERING ORDER BY (ts DESC, seq ASC) AND comment = 'it''s the events' AND default_time_to_live = 3600
       AND gc_grace_seconds = 100 AND bloom_filter_fp_chance = 0.1
       AND caching = {'keys': 'NONE', 'rows_per_partition': '10'}
       AND compaction = {'class': 'SizeTieredCompactionStrategy', 'min_threshold': '2', 'bucket_high': '2.0'}
       AND compression = {'class': 'ZstdCompressor', 'chunk_length_in_kb': '64'}
       AND speculative_retry = '95p' AND crc_check_chance = 0.5`,
    'CREATE TABLE test.counters (k text, c int, hits counter, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)',
    `CREATE KEYSPACE "Other" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': 1} AND durable_writes = false`,
    'CREATE TABLE "Other".kv (k int PRIMARY KEY, v blob)',
    'CREATE TYPE "Other"."Point" (x int, "Y" int)',
    `CREATE TABLE "Other"."Shapes" ("Id" int, "Seq" int, p frozen<"Point">, pts list<frozen<"Point">>,
       v vector<float, 3>, t tuple<int, text>, m map<int, frozen<list<int>>>, PRIMARY KEY ("Id", "Seq"))
     WITH extensions = {'b': 0x0102, 'a': 0xff} AND compression = {'enabled': 'false'} AND speculative_retry = 'ALWAYS'
       AND read_repair = 'NONE' AND cdc = true AND memtable_flush_period_in_ms = 5 AND min_index_interval = 64
       AND max_index_interval = 4096 AND allow_auto_snapshot = false AND incremental_backups = false
       AND additional_write_policy = '50ms'`,
  ];
  for (const q of ddl) await client.execute(q);
  inTest = newClient(server.port, 'test');
  await inTest.connect();
}, 60_000);

afterAll(async () => {
  if (server && (server.child.exitCode !== null || server.child.signalCode !== null)) {
    console.error(`server exited:\n${server.output().slice(-6000)}`);
  }
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  await server?.stop();
});

describe('DESCRIBE listings', () => {
  it('DESCRIBE KEYSPACES lists every keyspace, system ones included, sorted ignoring case', async () => {
    const expected = [...SYSTEM_KEYSPACES, 'test'].map((k) => [k, 'keyspace', k]);
    expected.unshift(['"Other"', 'keyspace', '"Other"']);
    for (const kw of ['DESCRIBE', 'DESC', 'describe']) {
      expect(await descRows(`${kw} KEYSPACES`)).toEqual(expected);
      expect(await descRows(`${kw} KEYSPACES`, inTest)).toEqual(expected);
    }
    const result = await client.execute('DESCRIBE KEYSPACES');
    expect(result.columns.map((c) => c.name)).toEqual(['keyspace_name', 'type', 'name']);
  });

  it('DESCRIBE TABLES: the keyspace in use, or every keyspace', async () => {
    const inTestExpected = [
      ['test', 'table', 'counters'],
      ['test', 'table', 'events'],
      ['test', 'table', 'has_all_types'],
      ['test', 'table', '"Test"'],
      ['test', 'table', 'users'],
    ];
    expect(await descRows('DESCRIBE TABLES', inTest)).toEqual(inTestExpected);
    expect(await descRows('desc tables', inTest)).toEqual(inTestExpected);
    const all = await descRows('DESCRIBE TABLES');
    expect(all.slice(0, 2)).toEqual([
      ['"Other"', 'table', 'kv'],
      ['"Other"', 'table', '"Shapes"'],
    ]);
    expect(all).toContainEqual(['system', 'table', 'local']);
    expect(all).toContainEqual(['system_virtual_schema', 'table', 'columns']);
    expect(all.slice(-5)).toEqual(inTestExpected);
  });

  it('DESCRIBE TYPES lists types by name; FUNCTIONS and AGGREGATES are empty', async () => {
    expect(await descRows('DESCRIBE TYPES', inTest)).toEqual([
      ['test', 'type', 'account'],
      ['test', 'type', 'address'],
      ['test', 'type', 'person'],
      ['test', 'type', 'reserved'],
    ]);
    expect(await descRows('DESCRIBE FUNCTIONS', inTest)).toEqual([]);
    expect(await descRows('DESCRIBE AGGREGATES')).toEqual([]);
  });
});

describe('DESCRIBE elements', () => {
  it('DESCRIBE ONLY KEYSPACE gives CREATE KEYSPACE as Cassandra prints it', async () => {
    for (const kw of ['DESCRIBE', 'DESC']) {
      expect(await descRows(`${kw} ONLY KEYSPACE test`)).toEqual([['test', 'keyspace', 'test', KEYSPACE_OUTPUT]]);
    }
    expect(await descRows('DESCRIBE ONLY KEYSPACE', inTest)).toEqual([['test', 'keyspace', 'test', KEYSPACE_OUTPUT]]);
    expect(await descRows('DESCRIBE ONLY KEYSPACE "Other"')).toEqual([
      [
        '"Other"',
        'keyspace',
        '"Other"',
        `CREATE KEYSPACE "Other" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': '1'}  AND durable_writes = false;`,
      ],
    ]);
  });

  it('NetworkTopologyStrategy takes only datacenters the cluster knows, so DESCRIBE prints this one', async () => {
    await expect(
      client.execute(
        "CREATE KEYSPACE multi_dc WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3, 'datacenter1': 1}",
      ),
    ).rejects.toThrow('Unrecognized strategy option {dc1} passed to NetworkTopologyStrategy for keyspace multi_dc');
    await client.execute(
      "CREATE KEYSPACE multi_dc WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 2}",
    );
    expect((await descRows('DESCRIBE ONLY KEYSPACE multi_dc'))[0]![3]).toBe(
      "CREATE KEYSPACE multi_dc WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': '2'}  AND durable_writes = true;",
    );
    await client.execute('DROP KEYSPACE multi_dc');
  });

  it('DESCRIBE KEYSPACE: keyspace, types in dependency order, then tables sorted ignoring case', async () => {
    const rows = await descRows('DESCRIBE KEYSPACE test');
    expect(rows.map((r) => r.slice(0, 3))).toEqual([
      ['test', 'keyspace', 'test'],
      ['test', 'type', 'address'],
      ['test', 'type', 'person'],
      ['test', 'type', 'account'],
      ['test', 'type', 'reserved'],
      ['test', 'table', 'counters'],
      ['test', 'table', 'events'],
      ['test', 'table', 'has_all_types'],
      ['test', 'table', '"Test"'],
      ['test', 'table', 'users'],
    ]);
    expect(rows.map((r) => r[3])).toEqual([
      KEYSPACE_OUTPUT,
      ADDRESS_OUTPUT,
      PERSON_OUTPUT,
      ACCOUNT_OUTPUT,
      RESERVED_OUTPUT,
      COUNTERS_OUTPUT,
      EVENTS_OUTPUT,
      ALL_TYPES_OUTPUT,
      TEST_TABLE_OUTPUT,
      USERS_OUTPUT,
    ]);
    // The generic form and the current keyspace give the same.
    expect(await descRows('DESCRIBE test')).toEqual(rows);
    expect(await descRows('DESC KEYSPACE', inTest)).toEqual(rows);
  });

  it('DESCRIBE TABLE in all its spellings', async () => {
    const cases: [string, string][] = [
      ['has_all_types', ALL_TYPES_OUTPUT],
      ['"Test"', TEST_TABLE_OUTPUT],
      ['users', USERS_OUTPUT],
      ['events', EVENTS_OUTPUT],
      ['counters', COUNTERS_OUTPUT],
    ];
    for (const [table, output] of cases) {
      const expected = [['test', 'table', table, output]];
      for (const kw of ['describe', 'desc']) {
        for (const cmd of [`${kw} table test.${table}`, `${kw} columnfamily test.${table}`, `${kw} test.${table}`]) {
          expect(await descRows(cmd)).toEqual(expected);
        }
        for (const cmd of [`${kw} table ${table}`, `${kw} columnfamily ${table}`, `${kw} ${table}`]) {
          expect(await descRows(cmd, inTest)).toEqual(expected);
        }
      }
    }
    const result = await client.execute('DESCRIBE TABLE test.users');
    expect(result.columns.map((c) => c.name)).toEqual(['keyspace_name', 'type', 'name', 'create_statement']);
  });

  it('quotes mixed-case keyspace, table, type and column names', async () => {
    expect(await descRows('DESCRIBE KEYSPACE "Other"')).toEqual([
      [
        '"Other"',
        'keyspace',
        '"Other"',
        `CREATE KEYSPACE "Other" WITH replication = {'class': 'NetworkTopologyStrategy', 'datacenter1': '1'}  AND durable_writes = false;`,
      ],
      ['"Other"', 'type', '"Point"', POINT_OUTPUT],
      [
        '"Other"',
        'table',
        'kv',
        `CREATE TABLE "Other".kv (\n    k int PRIMARY KEY,\n    v blob\n) WITH ${DEFAULT_PARAMS}`,
      ],
      ['"Other"', 'table', '"Shapes"', SHAPES_OUTPUT],
    ]);
  });

  it('DESCRIBE TYPE quotes reserved and mixed-case field names', async () => {
    expect(await descRows('DESCRIBE TYPE test.reserved')).toEqual([['test', 'type', 'reserved', RESERVED_OUTPUT]]);
    expect(await descRows('DESCRIBE TYPE person', inTest)).toEqual([['test', 'type', 'person', PERSON_OUTPUT]]);
  });

  it('virtual keyspaces and tables are described as comments', async () => {
    expect(await descRows('DESCRIBE ONLY KEYSPACE system_virtual_schema;')).toEqual([
      [
        'system_virtual_schema',
        'keyspace',
        'system_virtual_schema',
        '/*\n' +
          'Warning: Keyspace system_virtual_schema is a virtual keyspace and cannot be recreated with CQL.\n' +
          'Structure, for reference:\n' +
          'VIRTUAL KEYSPACE system_virtual_schema;\n' +
          '*/',
      ],
    ]);
    expect(await descRows('DESCRIBE TABLE system_virtual_schema.columns;')).toEqual([
      [
        'system_virtual_schema',
        'table',
        'columns',
        '/*\n' +
          'Warning: Table system_virtual_schema.columns is a virtual table and cannot be recreated with CQL.\n' +
          'Structure, for reference:\n' +
          'VIRTUAL TABLE system_virtual_schema.columns (\n' +
          '    keyspace_name text,\n' +
          '    table_name text,\n' +
          '    column_name text,\n' +
          '    clustering_order text,\n' +
          '    column_name_bytes blob,\n' +
          '    kind text,\n' +
          '    position int,\n' +
          '    type text,\n' +
          '    PRIMARY KEY (keyspace_name, table_name, column_name)\n' +
          ') WITH CLUSTERING ORDER BY (table_name ASC, column_name ASC)\n' +
          "    AND comment = 'virtual column definitions';\n" +
          '*/',
      ],
    ]);
  });

  it('DESCRIBE SCHEMA leaves out system keyspaces; FULL SCHEMA has them', async () => {
    const schema = await descRows('DESCRIBE SCHEMA');
    expect([...new Set(schema.map((r) => r[0]))]).toEqual(['"Other"', 'test']);
    expect(schema).toEqual([
      ...(await descRows('DESCRIBE KEYSPACE "Other"')),
      ...(await descRows('DESC KEYSPACE test')),
    ]);
    const full = await descRows('DESC FULL SCHEMA');
    expect([...new Set(full.map((r) => r[0]))]).toEqual(['"Other"', ...SYSTEM_KEYSPACES, 'test']);
    const local = full.find((r) => r[0] === 'system' && r[2] === 'local')!;
    expect(local[3]).toMatch(/^CREATE TABLE system\.local \(\n {4}key text PRIMARY KEY,\n/);
    const clients = full.find((r) => r[0] === 'system_views' && r[2] === 'clients')!;
    expect(clients[3]).toMatch(/^\/\*\nWarning: Table system_views\.clients is a virtual table/);
  });
});

describe('DESCRIBE WITH INTERNALS', () => {
  it('adds the table id, and dropped columns with their ALTER TABLE statements', async () => {
    await client.execute(
      'CREATE TABLE test.internals (pk1 text, pk2 int, c int, s decimal static, v1 text, v2 int, v3 int, PRIMARY KEY ((pk1, pk2), c))',
    );
    const id = (
      await client.execute(
        "SELECT id FROM system_schema.tables WHERE keyspace_name = 'test' AND table_name = 'internals'",
      )
    ).rows[0]!.id.toString();
    const create =
      'CREATE TABLE test.internals (\n' +
      '    pk1 text,\n' +
      '    pk2 int,\n' +
      '    c int,\n' +
      '    s decimal static,\n' +
      '    v1 text,\n' +
      '    v2 int,\n' +
      '    v3 int,\n' +
      '    PRIMARY KEY ((pk1, pk2), c)\n' +
      `) WITH ID = ${id}\n` +
      '    AND CLUSTERING ORDER BY (c ASC)\n' +
      '    AND ' +
      DEFAULT_PARAMS;
    const stmt = 'DESCRIBE TABLE test.internals WITH INTERNALS';
    expect(await descRows(stmt)).toEqual([['test', 'table', 'internals', create]]);

    const drop = 'ALTER TABLE test.internals DROP v3 USING TIMESTAMP 1589286942065000;';
    await client.execute(drop);
    expect(await descRows(stmt)).toEqual([['test', 'table', 'internals', `${create}\n${drop}`]]);

    const add = 'ALTER TABLE test.internals ADD v3 int;';
    await client.execute(add);
    expect(await descRows(stmt)).toEqual([['test', 'table', 'internals', `${create}\n${drop}\n${add}`]]);
    // Without internals: the table as it is now.
    expect((await descRows('DESCRIBE TABLE test.internals'))[0]![3]).toBe(
      create.replace(`WITH ID = ${id}\n    AND `, 'WITH '),
    );
    await client.execute('DROP TABLE test.internals');
  });

  it('a single-column primary key stays inline, with a comma after the last column when columns were dropped', async () => {
    await client.execute('CREATE TABLE test.pkonly (pk text, v1 text, v2 int, v3 int, PRIMARY KEY (pk))');
    const id = (
      await client.execute("SELECT id FROM system_schema.tables WHERE keyspace_name = 'test' AND table_name = 'pkonly'")
    ).rows[0]!.id.toString();
    const drop = 'ALTER TABLE test.pkonly DROP v3 USING TIMESTAMP 1589286942065000;';
    await client.execute(drop);
    expect((await descRows('DESCRIBE TABLE test.pkonly WITH INTERNALS'))[0]![3]).toBe(
      'CREATE TABLE test.pkonly (\n' +
        '    pk text PRIMARY KEY,\n' +
        '    v1 text,\n' +
        '    v2 int,\n' +
        '    v3 int\n' +
        `) WITH ID = ${id}\n` +
        '    AND ' +
        DEFAULT_PARAMS +
        `\n${drop}`,
    );
    expect((await descRows('DESCRIBE TABLE test.pkonly'))[0]![3]).toBe(
      'CREATE TABLE test.pkonly (\n    pk text PRIMARY KEY,\n    v1 text,\n    v2 int\n) WITH ' + DEFAULT_PARAMS,
    );
    await client.execute('DROP TABLE test.pkonly');
  });
});

describe('DESCRIBE WITH INTERNALS, dropped column order', () => {
  it('lists dropped columns in the order Cassandra holds them (a HashMap keyed by name bytes)', async () => {
    await client.execute(
      'CREATE TABLE test.many (k int PRIMARY KEY, a int, b int, c int, v1 int, v2 int, v3 int, zeta int)',
    );
    const order = ['v3', 'b', 'a', 'zeta', 'v1', 'v2', 'c'];
    for (const [i, name] of order.entries()) {
      await client.execute(`ALTER TABLE test.many DROP ${name} USING TIMESTAMP ${1000 + i}`);
    }
    const text = (await descRows('DESCRIBE TABLE test.many WITH INTERNALS'))[0]![3]!;
    // The order java.util.HashMap<ByteBuffer, _> iterates these names in (checked with a JVM).
    const expected = ['a', 'b', 'c', 'zeta', 'v3', 'v2', 'v1'];
    expect(text).toContain(
      `CREATE TABLE test.many (\n    k int PRIMARY KEY,\n${expected.map((n) => `    ${n} int`).join(',\n')}\n) WITH ID = `,
    );
    expect(text.split('\n').filter((l) => l.startsWith('ALTER TABLE'))).toEqual(
      expected.map((n) => `ALTER TABLE test.many DROP ${n} USING TIMESTAMP ${1000 + order.indexOf(n)};`),
    );
    await client.execute('DROP TABLE test.many');
  });
});

describe('DESCRIBE CLUSTER', () => {
  it('cluster, partitioner and snitch; range ownership only with a user keyspace in use', async () => {
    const plain = await client.execute('DESCRIBE CLUSTER');
    expect(plain.columns.map((c) => c.name)).toEqual(['cluster', 'partitioner', 'snitch']);
    expect({ ...plain.rows[0] }).toEqual({
      cluster: 'Test Cluster',
      partitioner: 'Murmur3Partitioner',
      snitch: 'DynamicEndpointSnitch',
    });
    const withKs = await inTest.execute('DESC CLUSTER');
    expect(withKs.columns.map((c) => c.name)).toEqual(['cluster', 'partitioner', 'snitch', 'range_ownership']);
    const local = (await client.execute("SELECT tokens FROM system.local WHERE key = 'local'")).rows[0]!;
    const ownership = withKs.rows[0]!.range_ownership as Record<string, string[]>;
    expect(Object.keys(ownership).sort()).toEqual([...(local.tokens as string[])].sort());
    for (const owners of Object.values(ownership)) expect(owners).toEqual(['/127.0.0.1:7000']);

    const sys = newClient(server.port, 'system_schema');
    expect((await sys.execute('DESCRIBE CLUSTER')).columns).toHaveLength(3);
  });
});

describe('DESCRIBE errors', () => {
  it("uses Cassandra's messages", async () => {
    await expectInvalid('DESCRIBE test2', "'test2' not found in keyspaces");
    await expectInvalid('DESC KEYSPACE test2', "'test2' not found in keyspaces");
    await expectInvalid('DESCRIBE users2', "'users2' not found in keyspace 'test'", inTest);
    await expectInvalid('DESCRIBE test.users2', "'users2' not found in keyspace 'test'");
    await expectInvalid('DESCRIBE TABLE test.users2', "Table 'users2' not found in keyspace 'test'");
    await expectInvalid('DESCRIBE TYPE test.nope', "User defined type 'nope' not found in 'test'");
    await expectInvalid('DESCRIBE FUNCTION test.func_foo', "User defined function 'func_foo' not found in 'test'");
    await expectInvalid('DESCRIBE AGGREGATE test.aggr_foo', "User defined aggregate 'aggr_foo' not found in 'test'");
    await expectInvalid('DESCRIBE INDEX test.myindex2', "Table for existing index 'myindex2' not found in 'test'");
    await expectInvalid('DESCRIBE MATERIALIZED VIEW test.mv', "Materialized view 'mv' not found in 'test'");
    for (const what of ['TABLE', 'MATERIALIZED VIEW', 'INDEX', 'TYPE', 'FUNCTION', 'AGGREGATE']) {
      await expectInvalid(`DESCRIBE ${what} foop`, 'No keyspace specified and no current keyspace');
    }
    await expectInvalid('DESCRIBE KEYSPACE', 'No keyspace specified and no current keyspace');
  });
});

describe('DESCRIBE paging', () => {
  it('pages by rows when a fetch size is set', async () => {
    const all = await descRows('DESCRIBE KEYSPACES');
    const paged: string[][] = [];
    let pageState: string | undefined;
    let pages = 0;
    do {
      const r = await client.execute('DESCRIBE KEYSPACES', [], { fetchSize: 3, pageState });
      paged.push(...r.rows.map((row) => Object.values({ ...row }) as string[]));
      pageState = r.pageState ?? undefined;
      pages++;
    } while (pageState);
    expect(paged).toEqual(all);
    expect(pages).toBe(Math.floor(all.length / 3) + 1);
  });

  it('a schema change between pages is an error', async () => {
    const first = await client.execute('DESCRIBE KEYSPACES', [], { fetchSize: 2 });
    await client.execute(`CREATE KEYSPACE paging_ks WITH replication = ${REPLICATION}`);
    await expect(
      client.execute('DESCRIBE KEYSPACES', [], { fetchSize: 2, pageState: first.pageState }),
    ).rejects.toThrow(
      'The schema has changed since the previous page of the DESCRIBE statement result. Please retry the DESCRIBE statement.',
    );
    await client.execute('DROP KEYSPACE paging_ks');
  });
});

describe('DESCRIBE SCHEMA replays', () => {
  /** Statements of a create_statement cell (WITH INTERNALS may add ALTER TABLE lines). */
  function statements(createStatement: string): string[] {
    return createStatement
      .split(/;\n(?=ALTER TABLE )/)
      .map((s) => (s.endsWith(';') ? s : `${s};`))
      .filter((s) => s.trim() !== ';');
  }

  async function schemaRows(c: cassandra.Client, withIds: boolean): Promise<Record<string, Row[]>> {
    const out: Record<string, Row[]> = {};
    for (const table of ['keyspaces', 'tables', 'columns', 'types', 'dropped_columns']) {
      const rows = (await c.execute(`SELECT * FROM system_schema.${table}`)).rows
        .map((r) => ({ ...r }) as Row)
        .filter((r) => !SYSTEM_KEYSPACES.includes(r.keyspace_name as string));
      for (const r of rows) {
        if (!withIds) delete r.id;
        for (const [k, v] of Object.entries(r)) if (v && typeof v === 'object' && 'toString' in v) r[k] = String(v);
      }
      out[table] = rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    }
    return out;
  }

  for (const internals of [false, true]) {
    it(`DESCRIBE SCHEMA${internals ? ' WITH INTERNALS' : ''} on an empty server recreates identical system_schema rows`, async () => {
      await client.execute('CREATE TABLE test.dropped (k int PRIMARY KEY, a int, b text, c int)');
      await client.execute('ALTER TABLE test.dropped DROP b USING TIMESTAMP 1600000000000000');
      await client.execute('ALTER TABLE test.dropped DROP a');
      await client.execute('ALTER TABLE test.dropped ADD a int');
      const schema = await desc(`DESCRIBE SCHEMA${internals ? ' WITH INTERNALS' : ''}`);
      const fresh = await startServer();
      try {
        const other = newClient(fresh.port);
        await other.connect();
        for (const row of schema) {
          for (const s of statements(row.create_statement as string)) await other.execute(s);
        }
        const expected = await schemaRows(client, internals);
        expect(expected.tables!.length).toBeGreaterThan(5);
        expect(expected.types!.length).toBeGreaterThan(3);
        expect(expected.dropped_columns!.length).toBeGreaterThan(1);
        if (!internals) expected.dropped_columns = [];
        expect(await schemaRows(other, internals)).toEqual(expected);
        // And the replayed schema describes itself identically.
        expect(await desc(`DESCRIBE SCHEMA${internals ? ' WITH INTERNALS' : ''}`, other)).toEqual(schema);
        await other.shutdown();
      } finally {
        await fresh.stop();
        await client.execute('DROP TABLE test.dropped');
      }
    }, 60_000);
  }
});
