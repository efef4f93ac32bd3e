// What a cqlsh 6.2 session (Cassandra 5.0's bin/cqlsh.py and its bundled Python driver 3.29) sends,
// replayed through the Node.js driver so that no cqlsh is needed: server-side DESCRIBE of functions,
// aggregates, indexes and materialized views (texts from Cassandra's DescribeStatementTest), a replay of
// DESCRIBE SCHEMA, COPY TO's token-range SELECTs and COPY FROM's batches, tracing, and queries after a
// restart. docs/cqlsh.md records the real cqlsh session these come from.
import { rmSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const INVALID = 0x2200;

/** TableParams of a view (no default_time_to_live), as DescribeStatementTest.mvParametersCql. */
const MV_PARAMS =
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
  '    AND extensions = {}\n' +
  '    AND gc_grace_seconds = 864000\n' +
  '    AND incremental_backups = true\n' +
  '    AND max_index_interval = 2048\n' +
  '    AND memtable_flush_period_in_ms = 0\n' +
  '    AND min_index_interval = 128\n' +
  "    AND read_repair = 'BLOCKING'\n" +
  "    AND speculative_retry = '99p';";

const SCHEMA = [
  "CREATE KEYSPACE cq WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
  'CREATE TYPE cq.point (x double, y double)',
  `CREATE FUNCTION cq.twice (input int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'input * 2'`,
  `CREATE FUNCTION cq.acc (state int, add_to int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'state + add_to'`,
  `CREATE FUNCTION cq.fin (state int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'state'`,
  `CREATE FUNCTION cq.tup (t tuple<int>, l list<frozen<tuple<int, text>>>) CALLED ON NULL INPUT RETURNS tuple<int, text> LANGUAGE javascript AS 'null'`,
  'CREATE AGGREGATE cq.total (int) SFUNC acc STYPE int INITCOND 42',
  'CREATE AGGREGATE cq.final_total (int) SFUNC acc STYPE int FINALFUNC fin',
  'CREATE TABLE cq.users (userid text PRIMARY KEY, firstname text, lastname text, age int)',
  'CREATE INDEX myindex ON cq.users (age)',
  'CREATE TABLE cq."Test" (id int, col int, val text, PRIMARY KEY (id, col))',
  'CREATE INDEX ON cq."Test" (col)',
  'CREATE INDEX ON cq."Test" (val)',
  'CREATE TABLE cq.users_mv (username varchar, password varchar, gender varchar, session_token varchar, state varchar, birth_year bigint, PRIMARY KEY (username))',
  'CREATE MATERIALIZED VIEW cq.users_by_state AS SELECT * FROM cq.users_mv WHERE STATE IS NOT NULL AND username IS NOT NULL PRIMARY KEY (state, username)',
  'CREATE TABLE cq.t (pk1 int, pk2 int, ck1 int, ck2 int, reg1 int, reg2 list<int>, reg3 int, PRIMARY KEY ((pk1, pk2), ck1, ck2)) WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)',
  'CREATE MATERIALIZED VIEW cq.mv AS SELECT * FROM cq.t WHERE pk2 IS NOT NULL AND pk1 IS NOT NULL AND ck2 IS NOT NULL AND ck1 IS NOT NULL PRIMARY KEY ((pk2, pk1), ck2, ck1)',
  'CREATE TABLE cq.vecs (id int PRIMARY KEY, e vector<float, 3>)',
  "CREATE CUSTOM INDEX vecs_ann ON cq.vecs (e) USING 'StorageAttachedIndex' WITH OPTIONS = {'similarity_function': 'cosine'}",
  'CREATE TABLE cq.many (pk int, ck int, v text, PRIMARY KEY (pk, ck))',
  'CREATE TABLE cq.hits (k text PRIMARY KEY, c counter)',
];

const TWICE =
  'CREATE FUNCTION cq.twice(input int)\n' +
  '    RETURNS NULL ON NULL INPUT\n' +
  '    RETURNS int\n' +
  '    LANGUAGE javascript\n' +
  '    AS $$input * 2$$;';
const TUP =
  'CREATE FUNCTION cq.tup(t tuple<int>, l list<frozen<tuple<int, text>>>)\n' +
  '    CALLED ON NULL INPUT\n' +
  '    RETURNS tuple<int, text>\n' +
  '    LANGUAGE javascript\n' +
  '    AS $$null$$;';
const TOTAL = 'CREATE AGGREGATE cq.total(int)\n    SFUNC acc\n    STYPE int\n    INITCOND 42;';
const FINAL_TOTAL = 'CREATE AGGREGATE cq.final_total(int)\n    SFUNC acc\n    STYPE int\n    FINALFUNC fin;';
const USERS_BY_STATE =
  'CREATE MATERIALIZED VIEW cq.users_by_state AS\n' +
  '    SELECT *\n' +
  '    FROM cq.users_mv\n' +
  '    WHERE state IS NOT NULL AND username IS NOT NULL\n' +
  '    PRIMARY KEY (state, username)\n' +
  ' WITH CLUSTERING ORDER BY (username ASC)\n' +
  `    AND ${MV_PARAMS}`;
const MV =
  'CREATE MATERIALIZED VIEW cq.mv AS\n' +
  '    SELECT *\n' +
  '    FROM cq.t\n' +
  '    WHERE pk2 IS NOT NULL AND pk1 IS NOT NULL AND ck2 IS NOT NULL AND ck1 IS NOT NULL\n' +
  '    PRIMARY KEY ((pk2, pk1), ck2, ck1)\n' +
  ' WITH CLUSTERING ORDER BY (ck2 DESC, ck1 ASC)\n' +
  `    AND ${MV_PARAMS}`;
const SAI = 'org.apache.cassandra.index.sai.StorageAttachedIndex';

type Row = Record<string, unknown>;

let server: ServerProcess;
let client: cassandra.Client;
const clients: cassandra.Client[] = [];

function newClient(port: number, keyspace?: string): cassandra.Client {
  const c = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1', keyspace });
  clients.push(c);
  return c;
}

/** As cqlsh sends DESCRIBE: a simple statement, rows as they come. */
async function desc(cql: string, c = client): Promise<Row[]> {
  return (await c.execute(cql)).rows.map((r) => ({ ...r }));
}

function elements(rows: Row[]): string[][] {
  return rows.map((r) => [r.keyspace_name as string, r.type as string, r.name as string]);
}

async function expectInvalid(cql: string, message: string, c = client): Promise<void> {
  await expect(c.execute(cql)).rejects.toMatchObject({ code: INVALID, message });
}

beforeAll(async () => {
  server = await startServer({ env: UDF_ENV });
  client = newClient(server.port);
  await client.connect();
  for (const s of SCHEMA) await client.execute(s);
});

afterAll(async () => {
  for (const c of clients) await c.shutdown().catch(() => {});
  await server?.stop();
});

describe('DESCRIBE of functions, aggregates, indexes and views (cqlsh DESCRIBE ...)', () => {
  it('lists functions and aggregates with their signatures (DESCRIBE FUNCTIONS / AGGREGATES)', async () => {
    const use = newClient(server.port, 'cq');
    expect(elements(await desc('DESCRIBE FUNCTIONS', use))).toEqual([
      ['cq', 'function', 'acc(int, int)'],
      ['cq', 'function', 'fin(int)'],
      ['cq', 'function', 'tup(tuple<int>, list<frozen<tuple<int, text>>>)'],
      ['cq', 'function', 'twice(int)'],
    ]);
    expect(elements(await desc('DESCRIBE AGGREGATES', use))).toEqual([
      ['cq', 'aggregate', 'final_total(int)'],
      ['cq', 'aggregate', 'total(int)'],
    ]);
  });

  it('prints CREATE FUNCTION and CREATE AGGREGATE as Cassandra does', async () => {
    expect(await desc('DESCRIBE FUNCTION cq.twice')).toEqual([
      { keyspace_name: 'cq', type: 'function', name: 'twice(int)', create_statement: TWICE },
    ]);
    expect((await desc('DESC FUNCTION cq.tup'))[0]!.create_statement).toBe(TUP);
    expect(await desc('DESCRIBE AGGREGATE cq.total')).toEqual([
      { keyspace_name: 'cq', type: 'aggregate', name: 'total(int)', create_statement: TOTAL },
    ]);
    expect((await desc('DESCRIBE AGGREGATE cq.final_total'))[0]!.create_statement).toBe(FINAL_TOTAL);
    await expectInvalid('DESCRIBE FUNCTION cq.nope', "User defined function 'nope' not found in 'cq'");
    await expectInvalid('DESCRIBE AGGREGATE cq.nope', "User defined aggregate 'nope' not found in 'cq'");
  });

  it('prints CREATE INDEX and CREATE CUSTOM INDEX (DESCRIBE INDEX, and DESCRIBE name)', async () => {
    expect(await desc('DESCRIBE INDEX cq.myindex')).toEqual([
      {
        keyspace_name: 'cq',
        type: 'index',
        name: 'myindex',
        create_statement: 'CREATE INDEX myindex ON cq.users (age);',
      },
    ]);
    expect(await desc('DESCRIBE cq."Test_val_idx"')).toEqual([
      {
        keyspace_name: 'cq',
        type: 'index',
        name: '"Test_val_idx"',
        create_statement: 'CREATE INDEX "Test_val_idx" ON cq."Test" (val);',
      },
    ]);
    expect((await desc('DESCRIBE INDEX cq.vecs_ann'))[0]!.create_statement).toBe(
      `CREATE CUSTOM INDEX vecs_ann ON cq.vecs (e) USING '${SAI}' WITH OPTIONS = {'similarity_function': 'cosine'};`,
    );
    await expectInvalid('DESCRIBE INDEX cq.nope', "Table for existing index 'nope' not found in 'cq'");
  });

  it('prints CREATE MATERIALIZED VIEW (DESCRIBE MATERIALIZED VIEW, and DESCRIBE name)', async () => {
    expect(await desc('DESCRIBE MATERIALIZED VIEW cq.users_by_state')).toEqual([
      { keyspace_name: 'cq', type: 'materialized_view', name: 'users_by_state', create_statement: USERS_BY_STATE },
    ]);
    expect((await desc('DESCRIBE cq.mv'))[0]!.create_statement).toBe(MV);
    await expectInvalid('DESCRIBE MATERIALIZED VIEW cq.nope', "Materialized view 'nope' not found in 'cq'");
    await expectInvalid('DESCRIBE cq.nope', "'nope' not found in keyspace 'cq'");
  });

  it('DESCRIBE TABLE adds the table indexes (not its views)', async () => {
    expect(elements(await desc('DESCRIBE TABLE cq."Test"'))).toEqual([
      ['cq', 'table', '"Test"'],
      ['cq', 'index', '"Test_col_idx"'],
      ['cq', 'index', '"Test_val_idx"'],
    ]);
    expect(elements(await desc('DESCRIBE TABLE cq.users_mv'))).toEqual([['cq', 'table', 'users_mv']]);
  });

  it('DESCRIBE KEYSPACE: keyspace, types, functions, aggregates, then each table with its indexes and views', async () => {
    expect(elements(await desc('DESCRIBE KEYSPACE cq'))).toEqual([
      ['cq', 'keyspace', 'cq'],
      ['cq', 'type', 'point'],
      ['cq', 'function', 'acc(int, int)'],
      ['cq', 'function', 'fin(int)'],
      ['cq', 'function', 'tup(tuple<int>, list<frozen<tuple<int, text>>>)'],
      ['cq', 'function', 'twice(int)'],
      ['cq', 'aggregate', 'final_total(int)'],
      ['cq', 'aggregate', 'total(int)'],
      ['cq', 'table', 'hits'],
      ['cq', 'table', 'many'],
      ['cq', 'table', 't'],
      ['cq', 'materialized_view', 'mv'],
      ['cq', 'table', '"Test"'],
      ['cq', 'index', '"Test_col_idx"'],
      ['cq', 'index', '"Test_val_idx"'],
      ['cq', 'table', 'users'],
      ['cq', 'index', 'myindex'],
      ['cq', 'table', 'users_mv'],
      ['cq', 'materialized_view', 'users_by_state'],
      ['cq', 'table', 'vecs'],
      ['cq', 'index', 'vecs_ann'],
    ]);
  });

  it('DESCRIBE SCHEMA replayed on an empty server gives the same schema (cqlsh -f of its output)', async () => {
    const schema = await desc('DESCRIBE SCHEMA');
    const fresh = await startServer({ env: UDF_ENV });
    try {
      const other = newClient(fresh.port);
      await other.connect();
      for (const row of schema) await other.execute(row.create_statement as string);
      expect(await desc('DESCRIBE SCHEMA', other)).toEqual(schema);
      for (const table of ['indexes', 'views', 'functions', 'aggregates', 'columns', 'types']) {
        const rows = async (c: cassandra.Client) =>
          (await c.execute(`SELECT * FROM system_schema.${table} WHERE keyspace_name = 'cq'`)).rows
            .map((r) => {
              const o: Row = { ...r };
              delete o.id;
              delete o.base_table_id;
              return JSON.stringify(o);
            })
            .sort();
        expect(await rows(other), table).toEqual(await rows(client));
      }
    } finally {
      await fresh.stop();
    }
  });
});

describe('COPY TO / COPY FROM (the statements cqlsh copyutil sends)', () => {
  it('COPY TO: prepared token-range SELECTs over the ring from system.local cover every row once', async () => {
    const inserts = [];
    for (let pk = 0; pk < 20; pk++) {
      for (let ck = 0; ck < 5; ck++) {
        inserts.push({ query: 'INSERT INTO cq.many (pk, ck, v) VALUES (?, ?, ?)', params: [pk, ck, `v${pk}-${ck}`] });
      }
    }
    await client.batch(inserts, { prepare: true, logged: false });
    const local = (await client.execute("SELECT tokens FROM system.local WHERE key = 'local'")).first();
    const ring = [...(local.tokens as string[])].map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // copyutil: (None, t0], (t0, t1], ..., (tn, None); each range one prepared query with literal tokens.
    const ranges: [bigint | undefined, bigint | undefined][] = [[undefined, ring[0]]];
    for (let i = 1; i < ring.length; i++) ranges.push([ring[i - 1], ring[i]]);
    ranges.push([ring[ring.length - 1], undefined]);
    const seen: string[] = [];
    for (const [start, end] of ranges) {
      const where = [
        ...(start !== undefined ? [`token(pk) > ${start}`] : []),
        ...(end !== undefined ? [`token(pk) <= ${end}`] : []),
      ].join(' AND ');
      const query = `SELECT pk, ck, v FROM cq.many WHERE ${where}`;
      let pageState: string | undefined;
      do {
        const r = await client.execute(query, [], { prepare: true, fetchSize: 7, pageState });
        for (const row of r.rows) seen.push(`${row.pk}/${row.ck}/${row.v}`);
        pageState = r.pageState ?? undefined;
      } while (pageState);
    }
    expect(seen.length).toBe(100);
    expect(new Set(seen).size).toBe(100);
  });

  it('COPY FROM: unlogged batches of a prepared INSERT (USING TTL without a space), counter batches of UPDATEs', async () => {
    const insert = 'INSERT INTO cq.many (pk, ck, v) VALUES (?, ?, ?)USING TTL 3600';
    await client.batch(
      [
        { query: insert, params: [100, 1, 'a'] },
        { query: insert, params: [100, 2, 'b'] },
      ],
      { prepare: true, logged: false },
    );
    const r = await client.execute('SELECT ttl(v) FROM cq.many WHERE pk = 100');
    expect(r.rows.length).toBe(2);
    expect(r.rows[0]!['ttl(v)']).toBeGreaterThan(3500);
    await client.batch(["UPDATE cq.hits SET c = c + 5 WHERE k = 'a'", "UPDATE cq.hits SET c = c + 7 WHERE k = 'b'"], {
      counter: true,
    });
    const hits = (await client.execute('SELECT k, c FROM cq.hits')).rows.map((x) => [x.k, String(x.c)]).sort();
    expect(hits).toEqual([
      ['a', '5'],
      ['b', '7'],
    ]);
  });
});

describe('TRACING ON', () => {
  it('fills system_traces.sessions and events for the session id in the response', async () => {
    const r = await client.execute('SELECT * FROM cq.many WHERE pk = 1', [], { traceQuery: true });
    const id = r.info.traceId;
    expect(id).toBeDefined();
    // cqlsh (driver get_query_trace): sessions by id until duration is set, then events by id.
    const session = (await client.execute('SELECT * FROM system_traces.sessions WHERE session_id = ?', [id])).first();
    expect(session.duration).not.toBeNull();
    expect(session.request).toBeDefined();
    const events = await client.execute('SELECT * FROM system_traces.events WHERE session_id = ?', [id]);
    expect(events.rows.length).toBeGreaterThan(0);
    expect(events.rows[0]!.activity).toBeTypeOf('string');
  });
});

describe('after a restart (schema read back from the pool)', () => {
  it('GROUP BY on the partition key and SELECT DISTINCT still work', async () => {
    const srv = await startServer({ keepData: true, env: UDF_ENV });
    try {
      let c = newClient(srv.port);
      await c.connect();
      await c.execute("CREATE KEYSPACE r WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      await c.execute('CREATE TABLE r.g (pk int, ck int, v int, PRIMARY KEY (pk, ck))');
      for (const [pk, ck] of [
        [1, 1],
        [1, 2],
        [2, 1],
      ]) {
        await c.execute('INSERT INTO r.g (pk, ck, v) VALUES (?, ?, 0)', [pk, ck], { prepare: true });
      }
      const groups = async () =>
        (await c.execute('SELECT pk, count(*) FROM r.g GROUP BY pk')).rows
          .map((x) => [x.pk, String(x.count)])
          .sort((a, b) => Number(a[0]) - Number(b[0]));
      const distinct = async () => (await c.execute('SELECT DISTINCT pk FROM r.g')).rows.map((x) => x.pk).sort();
      expect(await groups()).toEqual([
        [1, '2'],
        [2, '1'],
      ]);
      await c.shutdown();
      await srv.stop();
      const again = await startServer({ dataDir: srv.dataDir, env: UDF_ENV });
      try {
        c = newClient(again.port);
        await c.connect();
        expect(await distinct()).toEqual([1, 2]);
        expect(await groups()).toEqual([
          [1, '2'],
          [2, '1'],
        ]);
      } finally {
        await again.stop();
      }
    } finally {
      await srv.stop();
      rmSync(srv.dataDir, { recursive: true, force: true });
    }
  });
});
