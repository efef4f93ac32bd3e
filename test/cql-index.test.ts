// Secondary indexes through the DataStax Node.js driver against the real server: CREATE/DROP INDEX (legacy and
// SAI, CassIO's DDL) with Cassandra 5.0's messages, system_schema.indexes, queries served by an index (EQ, SAI
// ranges, collections, m[k] = v) without ALLOW FILTERING, stale entries after updates / deletes / TTL, paging,
// building an index over existing rows, a restart, and vector ANN top-k against a brute-force computation.
import { rmSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

const CODE = { invalid: 0x2200 } as const;
const FILTERING =
  'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
  'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';
const SAI = 'org.apache.cassandra.index.sai.StorageAttachedIndex';

let server: ServerProcess;
let client: cassandra.Client;

async function connect(): Promise<cassandra.Client> {
  const c = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
    keyspace: 'ix',
  });
  await c.connect();
  return c;
}

async function q(query: string, params: unknown[] = [], options: cassandra.QueryOptions = {}) {
  return await client.execute(query, params, { prepare: params.length > 0, ...options });
}

async function col<T>(query: string, name: string, params: unknown[] = []): Promise<T[]> {
  return (await q(query, params)).rows.map((r) => r[name] as T);
}

const sorted = <T>(xs: T[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

async function expectInvalid(promise: Promise<unknown>, message: string): Promise<void> {
  const err = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: number; message?: string } | undefined;
  expect(err, `expected failure: ${message}`).toBeInstanceOf(Error);
  expect(err?.code).toBe(CODE.invalid);
  expect(err?.message).toContain(message);
}

beforeAll(async () => {
  server = await startServer({ keepData: true });
  const admin = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
  });
  await admin.connect();
  await admin.execute("CREATE KEYSPACE ix WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await admin.shutdown();
  client = await connect();
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  // keepData let the restart test reopen the pool; nothing needs it now.
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

describe('DDL', () => {
  it('creates and drops indexes with Cassandra names, kinds, options and messages', async () => {
    await q('CREATE TABLE users (id int PRIMARY KEY, email text, age int, tags set<text>, props map<text, text>)');
    await q('CREATE INDEX ON users (email)');
    await q("CREATE INDEX age_sai ON users (age) USING 'sai'");
    await q('CREATE INDEX ON users (keys(props))');
    await q("CREATE CUSTOM INDEX props_entries ON users (entries(props)) USING 'StorageAttachedIndex'");
    await q('CREATE INDEX IF NOT EXISTS age_sai ON users (age)');
    const rows = (await q("SELECT * FROM system_schema.indexes WHERE keyspace_name = 'ix'")).rows;
    const byName = new Map(rows.map((r) => [r.index_name as string, r]));
    expect([...byName.keys()].sort()).toEqual(['age_sai', 'props_entries', 'users_email_idx', 'users_props_idx']);
    expect(byName.get('users_email_idx')!.kind).toBe('COMPOSITES');
    expect(byName.get('users_email_idx')!.options).toEqual({ target: 'email' });
    expect(byName.get('age_sai')!.kind).toBe('CUSTOM');
    expect(byName.get('age_sai')!.options).toEqual({ class_name: SAI, target: 'age' });
    expect(byName.get('users_props_idx')!.options).toEqual({ target: 'keys(props)' });
    expect(byName.get('props_entries')!.options).toEqual({ class_name: SAI, target: 'entries(props)' });

    // The driver's own metadata reads them too.
    const meta = await client.metadata.getTable('ix', 'users');
    expect(meta!.indexes.map((i) => [i.name, i.target, i.isCustomKind() ? 'custom' : 'composites']).sort()).toEqual([
      ['age_sai', 'age', 'custom'],
      ['props_entries', 'entries(props)', 'custom'],
      ['users_email_idx', 'email', 'composites'],
      ['users_props_idx', 'keys(props)', 'composites'],
    ]);
    await expectInvalid(q('CREATE INDEX age_sai ON users (email)'), "Index 'age_sai' already exists");
    await expectInvalid(
      q('CREATE INDEX other ON users (email)'),
      'Index other is a duplicate of existing index users_email_idx',
    );
    await expectInvalid(
      q('CREATE INDEX ON users (id)'),
      'Cannot create secondary index on the only partition key column id',
    );
    await expectInvalid(q('CREATE INDEX ON users (nope)'), "Column 'nope' doesn't exist");
    await expectInvalid(
      q('CREATE INDEX ON users (keys(tags))'),
      'Cannot create index on keys of column tags with non-map type',
    );
    await expectInvalid(
      q('CREATE INDEX ON users (full(tags))'),
      'full() indexes can only be created on frozen collections',
    );
    await expectInvalid(q('CREATE INDEX ON missing (x)'), "Table 'missing' doesn't exist");
    await q('CREATE TABLE frozen_t (k int PRIMARY KEY, f frozen<list<int>>)');
    await expectInvalid(
      q('CREATE INDEX ON frozen_t (f)'),
      "Cannot create values() index on frozen column f. Frozen collections are immutable and must be fully indexed by using the 'full(f)' modifier",
    );
    await q('CREATE INDEX ON frozen_t (full(f))');
    await q('CREATE TABLE counts (k int PRIMARY KEY, c counter)');
    await expectInvalid(q('CREATE INDEX ON counts (c)'), "Secondary indexes on counter tables aren't supported");
    await expectInvalid(
      q("CREATE INDEX ON users (age) USING 'nosuch'"),
      "Unable to find custom indexer class 'nosuch'",
    );

    await q('DROP INDEX users_props_idx');
    await q('DROP INDEX IF EXISTS users_props_idx');
    await expectInvalid(q('DROP INDEX ix.users_props_idx'), "Index 'ix.users_props_idx' doesn't exist");
    const names = await col<string>(
      "SELECT index_name FROM system_schema.indexes WHERE keyspace_name = 'ix'",
      'index_name',
    );
    expect(names).not.toContain('users_props_idx');
  });

  it('accepts the DDL CassIO / LangChain send', async () => {
    await q(`CREATE TABLE IF NOT EXISTS vs (row_id text PRIMARY KEY, attributes_blob text, body_blob text,
      metadata_s map<text, text>, vector vector<float, 3>)`);
    await q(
      `CREATE CUSTOM INDEX IF NOT EXISTS idx_vector_vs ON ix.vs (vector) USING '${SAI}' WITH OPTIONS = {'similarity_function': 'cosine'}`,
    );
    await q(`CREATE CUSTOM INDEX IF NOT EXISTS eidx_metadata_s_vs ON ix.vs (ENTRIES(metadata_s)) USING '${SAI}'`);
    const rows = (await q("SELECT * FROM system_schema.indexes WHERE keyspace_name = 'ix' AND table_name = 'vs'")).rows;
    const opts = new Map(rows.map((r) => [r.index_name as string, r.options]));
    expect(opts.get('idx_vector_vs')).toEqual({ class_name: SAI, target: 'vector', similarity_function: 'cosine' });
    expect(opts.get('eidx_metadata_s_vs')).toEqual({ class_name: SAI, target: 'entries(metadata_s)' });
    await q("INSERT INTO vs (row_id, body_blob, metadata_s, vector) VALUES ('a', 'x', {'src': 'web'}, [1, 0, 0])");
    await q("INSERT INTO vs (row_id, body_blob, metadata_s, vector) VALUES ('b', 'y', {'src': 'pdf'}, [0, 1, 0])");
    const ids = await col<string>(
      "SELECT row_id FROM vs WHERE metadata_s['src'] = 'web' ORDER BY vector ANN OF [1, 0.1, 0] LIMIT 2",
      'row_id',
    );
    expect(ids).toEqual(['a']);
    await q("INSERT INTO vs (row_id, metadata_s, vector) VALUES ('c', {'src': 'web', 'lang': 'en'}, [0, 0, 1])");
    const both = await col<string>(
      "SELECT row_id FROM vs WHERE metadata_s['src'] = ? AND metadata_s['lang'] = ? ORDER BY vector ANN OF [0, 0, 1] LIMIT ?",
      'row_id',
      ['web', 'en', 5],
    );
    expect(both).toEqual(['c']);
  });
});

describe('queries', () => {
  it('serves EQ, SAI ranges and collections without ALLOW FILTERING and drops stale entries', async () => {
    await q(
      'CREATE TABLE people (id int, seq int, name text, age int, tags set<text>, props map<text, text>, PRIMARY KEY (id, seq))',
    );
    await q('CREATE INDEX ON people (name)');
    await q("CREATE INDEX ON people (age) USING 'sai'");
    await q('CREATE INDEX ON people (tags)');
    await q('CREATE INDEX ON people (keys(props))');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        q('INSERT INTO people (id, seq, name, age, tags, props) VALUES (?, ?, ?, ?, ?, ?)', [
          i % 5,
          i,
          `n${i % 4}`,
          20 + i,
          [`t${i % 3}`],
          { [`k${i % 2}`]: 'v' },
        ]),
      ),
    );
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq'))).toEqual([1, 5, 9, 13, 17]);
    expect(sorted(await col<number>('SELECT seq FROM people WHERE age >= 35', 'seq'))).toEqual([15, 16, 17, 18, 19]);
    expect(sorted(await col<number>('SELECT seq FROM people WHERE age > 30 AND age < 33', 'seq'))).toEqual([11, 12]);
    expect(sorted(await col<number>("SELECT seq FROM people WHERE tags CONTAINS 't2'", 'seq'))).toEqual([
      2, 5, 8, 11, 14, 17,
    ]);
    expect((await col<number>("SELECT seq FROM people WHERE props CONTAINS KEY 'k1'", 'seq')).length).toBe(10);
    // Index + partition key, index + clustering restriction.
    expect(sorted(await col<number>("SELECT seq FROM people WHERE id = 1 AND name = 'n1'", 'seq'))).toEqual([1]);
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1' AND seq > 10", 'seq'))).toEqual([13, 17]);
    // Two SAI-served relations need no filtering; a legacy index plus another column does.
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1' AND age > 30", 'seq'))).toEqual([13, 17]);
    await expectInvalid(q("SELECT seq FROM people WHERE name = 'n1' AND tags CONTAINS 't1'"), FILTERING);
    expect(
      sorted(
        await col<number>("SELECT seq FROM people WHERE name = 'n1' AND tags CONTAINS 't1' ALLOW FILTERING", 'seq'),
      ),
    ).toEqual([1, 13]);
    await expectInvalid(q('SELECT seq FROM people WHERE seq = 3'), FILTERING);
    // Ranges on a legacy index need filtering.
    await q('CREATE TABLE legacy (k int PRIMARY KEY, v int)');
    await q('CREATE INDEX ON legacy (v)');
    await expectInvalid(q('SELECT * FROM legacy WHERE v > 1'), FILTERING);

    // Stale entries: overwritten values, deleted rows and columns, expired TTLs.
    await q("UPDATE people SET name = 'moved' WHERE id = 1 AND seq = 1");
    await q('DELETE FROM people WHERE id = 0 AND seq = 5');
    await q('DELETE name FROM people WHERE id = 4 AND seq = 9');
    // TTL 2: at least a second to live (TTL 1 may expire within a millisecond, at a second boundary).
    await q("UPDATE people USING TTL 2 SET name = 'n1' WHERE id = 3 AND seq = 3");
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq'))).toEqual([3, 13, 17]);
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'moved'", 'seq'))).toEqual([1]);
    await q('UPDATE people SET age = 100 WHERE id = 0 AND seq = 15');
    expect(sorted(await col<number>('SELECT seq FROM people WHERE age >= 35', 'seq'))).toEqual(
      [16, 17, 18, 19, 15].sort((a, b) => a - b),
    );
    expect(sorted(await col<number>('SELECT seq FROM people WHERE age >= 35 AND age < 40', 'seq'))).toEqual([
      16, 17, 18, 19,
    ]);
    await q("UPDATE people SET tags = tags - {'t2'} WHERE id = 2 AND seq = 17");
    expect(sorted(await col<number>("SELECT seq FROM people WHERE tags CONTAINS 't2'", 'seq'))).toEqual([2, 8, 11, 14]);
    await q('DELETE FROM people WHERE id = 2');
    expect(sorted(await col<number>("SELECT seq FROM people WHERE tags CONTAINS 't2'", 'seq'))).toEqual([8, 11, 14]);
    await new Promise((r) => setTimeout(r, 3100));
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq'))).toEqual([13]);
    // A value changed away and back: the stale entry a query deleted must not hide the new one.
    await q("UPDATE people SET name = 'x1' WHERE id = 3 AND seq = 13");
    expect(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq')).toEqual([]);
    expect(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq')).toEqual([]);
    await q("UPDATE people SET name = 'n1' WHERE id = 3 AND seq = 13");
    expect(await col<number>("SELECT seq FROM people WHERE name = 'x1'", 'seq')).toEqual([]);
    expect(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq')).toEqual([13]);
  });

  it('pages through an index, honours LIMIT and builds over existing rows', async () => {
    await q('CREATE TABLE events (k int, c int, kind text, PRIMARY KEY (k, c))');
    const inserts = [];
    for (let i = 0; i < 300; i++)
      inserts.push(q('INSERT INTO events (k, c, kind) VALUES (?, ?, ?)', [i % 37, i, i % 3 === 0 ? 'a' : 'b']));
    await Promise.all(inserts);
    await q('CREATE INDEX ON events (kind)');
    const seen: number[] = [];
    let pages = 0;
    let pageState: string | undefined;
    do {
      const r = await client.execute('SELECT c FROM events WHERE kind = ?', ['a'], {
        prepare: true,
        fetchSize: 17,
        pageState,
      });
      seen.push(...r.rows.map((x) => x.c as number));
      pageState = r.pageState ?? undefined;
      pages++;
    } while (pageState);
    expect(pages).toBeGreaterThan(5);
    expect(sorted(seen)).toEqual(Array.from({ length: 100 }, (_, i) => i * 3));
    expect((await q("SELECT c FROM events WHERE kind = 'a' LIMIT 7")).rows.length).toBe(7);
    const limited: number[] = [];
    await new Promise<void>((ok, fail) =>
      client.eachRow(
        'SELECT c FROM events WHERE kind = ? LIMIT 30',
        ['b'],
        { prepare: true, fetchSize: 8, autoPage: true },
        (_n, row) => limited.push(row.c as number),
        (err) => (err ? fail(err) : ok()),
      ),
    );
    expect(limited.length).toBe(30);
    expect(new Set(limited).size).toBe(30);
  });

  it('indexes clustering and partition key components', async () => {
    await q('CREATE TABLE comp (a int, b int, c int, v int, PRIMARY KEY ((a, b), c))');
    await q('CREATE INDEX ON comp (b)');
    await q('CREATE INDEX ON comp (c)');
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        q('INSERT INTO comp (a, b, c, v) VALUES (?, ?, ?, ?)', [i, i % 3, i % 4, i]),
      ),
    );
    expect(sorted(await col<number>('SELECT v FROM comp WHERE b = 1', 'v'))).toEqual([1, 4, 7, 10]);
    expect(sorted(await col<number>('SELECT v FROM comp WHERE c = 2', 'v'))).toEqual([2, 6, 10]);
    // A static column index matches every row of the partition.
    await q('CREATE TABLE st (k int, c int, s text static, v int, PRIMARY KEY (k, c))');
    await q('CREATE INDEX ON st (s)');
    await q("INSERT INTO st (k, c, s, v) VALUES (1, 1, 'a', 1)");
    await q('INSERT INTO st (k, c, v) VALUES (1, 2, 2)');
    await q("INSERT INTO st (k, c, s, v) VALUES (2, 1, 'b', 3)");
    expect(sorted(await col<number>("SELECT v FROM st WHERE s = 'a'", 'v'))).toEqual([1, 2]);
    await q("UPDATE st SET s = 'b' WHERE k = 1");
    expect(await col<number>("SELECT v FROM st WHERE s = 'a'", 'v')).toEqual([]);
    expect(sorted(await col<number>("SELECT v FROM st WHERE s = 'b'", 'v'))).toEqual([1, 2, 3]);
  });
});

describe('differential', () => {
  it('answers like a filtering scan after random writes, deletes and overwrites', async () => {
    for (const t of ['rnd_idx', 'rnd_plain'])
      await q(`CREATE TABLE ${t} (k int, c int, v text, n int, PRIMARY KEY (k, c))`);
    await q('CREATE INDEX ON rnd_idx (v)');
    await q("CREATE INDEX ON rnd_idx (n) USING 'sai'");
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const letters = ['a', 'b', 'c', 'd'];
    for (let round = 0; round < 6; round++) {
      const ops: [string, unknown[]][] = [];
      for (let i = 0; i < 40; i++) {
        const k = rnd(6);
        const c = rnd(4);
        switch (rnd(7)) {
          case 0:
          case 1:
            ops.push(['INSERT INTO %t (k, c, v, n) VALUES (?, ?, ?, ?)', [k, c, letters[rnd(4)], rnd(20)]]);
            break;
          case 2:
            ops.push(['UPDATE %t SET v = ? WHERE k = ? AND c = ?', [letters[rnd(4)], k, c]]);
            break;
          case 3:
            ops.push(['UPDATE %t SET n = ? WHERE k = ? AND c = ?', [rnd(20), k, c]]);
            break;
          case 4:
            ops.push(['DELETE FROM %t WHERE k = ? AND c = ?', [k, c]]);
            break;
          case 5:
            ops.push(['DELETE v FROM %t WHERE k = ? AND c = ?', [k, c]]);
            break;
          default:
            ops.push(['DELETE FROM %t WHERE k = ?', [k]]);
        }
      }
      // Same statements, same order, to both tables: the driver's increasing timestamps resolve them alike.
      await Promise.all(
        ops.flatMap(([cql, params]) => ['rnd_idx', 'rnd_plain'].map((t) => q(cql.replace('%t', t), params))),
      );
      const rowsOf = async (cql: string, params: unknown[]) => {
        const out: string[] = [];
        let pageState: string | undefined;
        do {
          const r = await client.execute(cql, params, { prepare: true, fetchSize: 3, pageState });
          out.push(...r.rows.map((x) => `${x.k}/${x.c}`));
          pageState = r.pageState ?? undefined;
        } while (pageState);
        return out.sort();
      };
      for (const l of letters) {
        expect(await rowsOf('SELECT k, c FROM rnd_idx WHERE v = ?', [l])).toEqual(
          await rowsOf('SELECT k, c FROM rnd_plain WHERE v = ? ALLOW FILTERING', [l]),
        );
      }
      const lo = rnd(15);
      expect(await rowsOf('SELECT k, c FROM rnd_idx WHERE n >= ? AND n < ?', [lo, lo + 6])).toEqual(
        await rowsOf('SELECT k, c FROM rnd_plain WHERE n >= ? AND n < ? ALLOW FILTERING', [lo, lo + 6]),
      );
      expect(await rowsOf("SELECT k, c FROM rnd_idx WHERE v = 'a' AND n > ?", [lo])).toEqual(
        await rowsOf("SELECT k, c FROM rnd_plain WHERE v = 'a' AND n > ? ALLOW FILTERING", [lo]),
      );
    }
  });
});

describe('vectors', () => {
  it('returns the exact top-k by similarity and gives Cassandra errors', async () => {
    await q('CREATE TABLE emb (id int PRIMARY KEY, v vector<float, 4>, plain vector<float, 4>)');
    await q("CREATE INDEX emb_v ON emb (v) USING 'sai' WITH OPTIONS = {'similarity_function': 'DOT_PRODUCT'}");
    const vectors: number[][] = [];
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    for (let i = 0; i < 200; i++) vectors.push([rnd(), rnd(), rnd(), rnd()].map((x) => Math.fround(x)));
    await Promise.all(
      vectors.map((v, i) =>
        q('INSERT INTO emb (id, v, plain) VALUES (?, ?, ?)', [i, new Float32Array(v), new Float32Array(v)]),
      ),
    );
    const query = [0.3, -0.2, 0.5, 0.1].map((x) => Math.fround(x));
    const dot = (a: number[]) => a.reduce((s, x, i) => s + x * query[i]!, 0);
    const expected = vectors
      .map((v, id) => ({ id, score: dot(v) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, 10)
      .map((x) => x.id);
    const ids = await col<number>('SELECT id FROM emb ORDER BY v ANN OF ? LIMIT 10', 'id', [new Float32Array(query)]);
    expect(ids).toEqual(expected);
    // Scores as CassIO asks for them: similarity_<function>(column, ?).
    const scored = (
      await q('SELECT id, similarity_dot_product(v, ?) AS score FROM emb ORDER BY v ANN OF ? LIMIT 3', [
        new Float32Array(query),
        new Float32Array(query),
      ])
    ).rows;
    expect(scored.map((r) => r.id)).toEqual(expected.slice(0, 3));
    for (const r of scored) expect(r.score).toBeCloseTo((1 + dot(vectors[r.id as number]!)) / 2, 5);
    const cos = (await q('SELECT similarity_cosine(v, [1, 0, 0, 0]) AS c FROM emb WHERE id = 0')).rows[0]!.c as number;
    const v0 = vectors[0]!;
    expect(cos).toBeCloseTo((1 + v0[0]! / Math.hypot(...v0)) / 2, 5);
    await expectInvalid(
      q('SELECT id FROM emb ORDER BY plain ANN OF [1, 1, 1, 1] LIMIT 3'),
      'ANN ordering by vector requires the column to be indexed',
    );
    await expectInvalid(
      q('SELECT id FROM emb ORDER BY v ANN OF [1, 1, 1, 1]'),
      'Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than 1000. LIMIT was NO LIMIT',
    );
  });
});

describe('restart', () => {
  it('keeps indexes and their entries', async () => {
    await client.shutdown();
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, keepData: true });
    client = await connect();
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq'))).toEqual([13]);
    await q("INSERT INTO people (id, seq, name) VALUES (9, 99, 'n1')");
    expect(sorted(await col<number>("SELECT seq FROM people WHERE name = 'n1'", 'seq'))).toEqual([13, 99]);
    const names = await col<string>(
      "SELECT index_name FROM system_schema.indexes WHERE keyspace_name = 'ix'",
      'index_name',
    );
    expect(names).toContain('people_name_idx');
  });
});
