// Materialized views through the DataStax Node.js driver against the real server: CREATE/DROP MATERIALIZED
// VIEW with Cassandra 5.0's restrictions and messages, system_schema.views / columns, the view built from
// existing rows, maintained in the base write's transaction under inserts, updates (view rows move when the
// view key column changes), deletions (row, partition, range), TTLs and batches, and a restart.
import { rmSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;

async function connect(): Promise<cassandra.Client> {
  const c = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
    keyspace: 'mv',
  });
  await c.connect();
  return c;
}

async function q(query: string, params: unknown[] = []) {
  return await client.execute(query, params, { prepare: params.length > 0 });
}

/** Rows as plain tuples of the named columns, sorted, for order-independent comparisons. */
async function tuples(query: string, names: string[]): Promise<unknown[][]> {
  const rows = (await q(query)).rows.map((r) => names.map((n) => r[n]));
  return rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

async function expectInvalid(promise: Promise<unknown>, message: string): Promise<void> {
  const err = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code?: number; message?: string } | undefined;
  expect(err, `expected failure: ${message}`).toBeInstanceOf(Error);
  expect(err?.code).toBe(0x2200);
  expect(err?.message).toContain(message);
}

/** The view must always equal what its definition computes from the base table. */
async function expectViewMatchesBase(): Promise<void> {
  const base = await tuples('SELECT k, c, v, w FROM base', ['k', 'c', 'v', 'w']);
  const expected = base.filter((r) => r[2] !== null).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  expect(await tuples('SELECT k, c, v, w FROM by_v', ['k', 'c', 'v', 'w'])).toEqual(expected);
}

async function expectHighCMatchesBase(): Promise<void> {
  const base = await tuples('SELECT k, c, w FROM base', ['k', 'c', 'w']);
  const expected = base.filter((r) => (r[1] as number) >= 5 && [0, 1, 3].includes(r[0] as number));
  expect(await tuples('SELECT k, c, w FROM high_c', ['k', 'c', 'w'])).toEqual(expected);
}

beforeAll(async () => {
  server = await startServer({ keepData: true });
  const admin = new cassandra.Client({
    contactPoints: [`${server.host}:${server.port}`],
    localDataCenter: 'datacenter1',
  });
  await admin.connect();
  await admin.execute("CREATE KEYSPACE mv WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await admin.shutdown();
  client = await connect();
  await q('CREATE TABLE base (k int, c int, v text, w int, s int static, PRIMARY KEY (k, c))');
  for (let i = 0; i < 10; i++) await q('INSERT INTO base (k, c, v, w) VALUES (?, ?, ?, ?)', [i % 3, i, `v${i % 4}`, i]);
  await q('INSERT INTO base (k, c, w) VALUES (5, 50, 1)');
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
  // keepData let the restart test reopen the pool; nothing needs it now.
  if (server) rmSync(server.dataDir, { recursive: true, force: true });
});

describe('DDL', () => {
  it('creates a view over existing rows, lists it and rejects what Cassandra rejects', async () => {
    await q(`CREATE MATERIALIZED VIEW by_v AS SELECT k, c, v, w FROM base
      WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c) WITH CLUSTERING ORDER BY (k DESC, c ASC)`);
    await expectViewMatchesBase();
    const v = (await q("SELECT * FROM system_schema.views WHERE keyspace_name = 'mv'")).rows;
    expect(v.map((r) => [r.view_name, r.base_table_name, r.include_all_columns, r.where_clause])).toEqual([
      ['by_v', 'base', false, 'v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL'],
    ]);
    const cols = await tuples(
      "SELECT column_name, kind, position, clustering_order FROM system_schema.columns WHERE keyspace_name = 'mv' AND table_name = 'by_v'",
      ['column_name', 'kind', 'position', 'clustering_order'],
    );
    expect(cols).toEqual(
      [
        ['c', 'clustering', 1, 'asc'],
        ['k', 'clustering', 0, 'desc'],
        ['v', 'partition_key', 0, 'none'],
        ['w', 'regular', -1, 'none'],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    const meta = await client.metadata.getMaterializedView('mv', 'by_v');
    expect([meta!.tableName, meta!.whereClause, meta!.includeAllColumns]).toEqual([
      'base',
      'v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL',
      false,
    ]);
    // Rows of one view partition come out in the view's clustering order.
    expect((await q("SELECT k, c FROM by_v WHERE v = 'v1'")).rows.map((r) => [r.k, r.c])).toEqual([
      [2, 5],
      [1, 1],
      [0, 9],
    ]);

    await q(
      'CREATE MATERIALIZED VIEW IF NOT EXISTS by_v AS SELECT * FROM base WHERE v IS NOT NULL PRIMARY KEY (v, k, c)',
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT * FROM base WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)',
      ),
      "Cannot include static column 's' in materialized view 'bad'",
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c, v FROM base WHERE v IS NOT NULL AND k IS NOT NULL PRIMARY KEY (v, k)',
      ),
      "Cannot create materialized view 'bad' without primary key columns c from base table 'base'",
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c, v, w FROM base WHERE v IS NOT NULL AND w IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL PRIMARY KEY ((v, w), k, c)',
      ),
      'Cannot include more than one non-primary key column in materialized view primary key (got v, w)',
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c, v FROM base WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (v, k, c)',
      ),
      "Primary key columns v must be restricted with 'IS NOT NULL' or otherwise",
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c, v, w FROM base WHERE v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL AND w = 1 PRIMARY KEY (v, k, c)',
      ),
      "Non-primary key columns can only be restricted with 'IS NOT NULL' (got: w restricted illegally)",
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c FROM nope WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (k, c)',
      ),
      "Base table 'nope' doesn't exist",
    );
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW base AS SELECT k, c FROM base WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)',
      ),
      "Cannot create materialized view 'base' - a table with the same name already exists",
    );
    await expectInvalid(
      q("INSERT INTO by_v (v, k, c) VALUES ('x', 1, 1)"),
      'Cannot directly modify a materialized view',
    );
    await expectInvalid(q("DELETE FROM by_v WHERE v = 'x'"), 'Cannot directly modify a materialized view');
  });
});

describe('maintenance', () => {
  it('moves view rows when the view key changes, and follows deletions, TTLs and batches', async () => {
    await q("UPDATE base SET v = 'moved' WHERE k = 0 AND c = 0");
    await expectViewMatchesBase();
    expect((await q("SELECT c FROM by_v WHERE v = 'v0'")).rows.map((r) => r.c)).not.toContain(0);
    await q('UPDATE base SET w = 42 WHERE k = 0 AND c = 0');
    await q('UPDATE base SET v = null WHERE k = 1 AND c = 1');
    await q("INSERT INTO base (k, c, v, w) VALUES (7, 70, 'new', 70)");
    await q("UPDATE base SET v = 'upd' WHERE k = 8 AND c = 80");
    await expectViewMatchesBase();
    await q('DELETE FROM base WHERE k = 2 AND c = 2');
    await q('DELETE FROM base WHERE k = 0 AND c > 5');
    await q('DELETE FROM base WHERE k = 7');
    await expectViewMatchesBase();
    // Older timestamps lose against the base row, and the view follows the base's winner.
    await q("UPDATE base USING TIMESTAMP 1 SET v = 'old' WHERE k = 0 AND c = 3");
    await expectViewMatchesBase();
    await q(`BEGIN BATCH
      INSERT INTO base (k, c, v, w) VALUES (9, 1, 'b1', 1);
      UPDATE base SET v = 'b2' WHERE k = 9 AND c = 1;
      INSERT INTO base (k, c, v, w) VALUES (9, 2, 'b1', 2);
      DELETE FROM base WHERE k = 9 AND c = 2;
    APPLY BATCH`);
    await expectViewMatchesBase();
    expect(await tuples("SELECT k, c FROM by_v WHERE v = 'b2'", ['k', 'c'])).toEqual([[9, 1]]);
    // Conditional updates maintain the view too.
    await q("INSERT INTO base (k, c, v, w) VALUES (20, 1, 'lwt', 1) IF NOT EXISTS");
    await q("UPDATE base SET v = 'lwt2' WHERE k = 20 AND c = 1 IF v = 'lwt'");
    expect(await tuples("SELECT k, c FROM by_v WHERE v = 'lwt2'", ['k', 'c'])).toEqual([[20, 1]]);
    await expectViewMatchesBase();
    // Many writes to the same rows in one event-loop turn (one group commit).
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        q('UPDATE base SET v = ?, w = ? WHERE k = ? AND c = ?', [`r${i % 5}`, i, 3, i % 4]),
      ),
    );
    await expectViewMatchesBase();
    // TTL 2: at least a second to live (TTL 1 may expire within a millisecond, at a second boundary).
    await q("UPDATE base USING TTL 2 SET v = 'brief' WHERE k = 1 AND c = 4");
    expect((await q("SELECT c FROM by_v WHERE v = 'brief'")).rows.map((r) => r.c)).toEqual([4]);
    await new Promise((r) => setTimeout(r, 3100));
    expect((await q("SELECT c FROM by_v WHERE v = 'brief'")).rows).toEqual([]);
    await expectViewMatchesBase();
  });

  it('stays equal to its definition under random concurrent writes', async () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 5; round++) {
      const ops: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        const k = 30 + rnd(5);
        const c = rnd(4);
        const v = `z${rnd(3)}`;
        switch (rnd(6)) {
          case 0:
          case 1:
            ops.push(q('INSERT INTO base (k, c, v, w) VALUES (?, ?, ?, ?)', [k, c, v, rnd(100)]));
            break;
          case 2:
            ops.push(q('UPDATE base SET v = ? WHERE k = ? AND c = ?', [v, k, c]));
            break;
          case 3:
            ops.push(q('DELETE v FROM base WHERE k = ? AND c = ?', [k, c]));
            break;
          case 4:
            ops.push(q('DELETE FROM base WHERE k = ? AND c >= ?', [k, c]));
            break;
          default:
            ops.push(q('UPDATE base SET w = ? WHERE k = ? AND c = ?', [rnd(100), k, c]));
        }
      }
      await Promise.all(ops);
      await expectViewMatchesBase();
    }
  });

  it('maintains a view of a table without clustering columns', async () => {
    await q('CREATE TABLE users (id int PRIMARY KEY, email text, age int, tags set<text>)');
    await q("INSERT INTO users (id, email, age, tags) VALUES (1, 'a@x', 30, {'p'})");
    await q(
      'CREATE MATERIALIZED VIEW users_by_email AS SELECT * FROM users WHERE email IS NOT NULL AND id IS NOT NULL PRIMARY KEY (email, id)',
    );
    await q("INSERT INTO users (id, email, age) VALUES (2, 'b@x', 40)");
    await q("UPDATE users SET email = 'c@x', tags = tags + {'q'} WHERE id = 1");
    await q('UPDATE users SET age = 41 WHERE id = 2');
    await q('INSERT INTO users (id, age) VALUES (3, 50)');
    const view = async () =>
      (await q('SELECT email, id, age, tags FROM users_by_email')).rows
        .map((r) => [r.email, r.id, r.age, r.tags ? [...r.tags].sort() : null])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(await view()).toEqual([
      ['b@x', 2, 41, null],
      ['c@x', 1, 30, ['p', 'q']],
    ]);
    await q('DELETE FROM users WHERE id = 2');
    await q('DELETE email FROM users WHERE id = 1');
    expect(await view()).toEqual([]);
    const include = (
      await q(
        "SELECT include_all_columns FROM system_schema.views WHERE keyspace_name = 'mv' AND view_name = 'users_by_email'",
      )
    ).rows[0]!;
    expect(include.include_all_columns).toBe(true);
  });

  it('ALTER TABLE ADD reaches views selecting *, not views naming their columns', async () => {
    await q(
      'CREATE MATERIALIZED VIEW users_by_age AS SELECT id, age FROM users WHERE age IS NOT NULL AND id IS NOT NULL PRIMARY KEY (age, id)',
    );
    await q('ALTER TABLE users ADD (city text, zip int)');
    await q("INSERT INTO users (id, email, age, city, zip) VALUES (7, 'g@x', 70, 'Oslo', 150)");
    const row = (await q("SELECT * FROM users_by_email WHERE email = 'g@x'")).rows[0]!;
    expect([row.id, row.age, row.city, row.zip]).toEqual([7, 70, 'Oslo', 150]);
    const viewColumns = async (view: string) =>
      (
        await q('SELECT column_name FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?', [
          'mv',
          view,
        ])
      ).rows
        .map((r) => r.column_name as string)
        .sort();
    expect(await viewColumns('users_by_email')).toEqual(['age', 'city', 'email', 'id', 'tags', 'zip']);
    expect(await viewColumns('users_by_age')).toEqual(['age', 'id']);
    await expectInvalid(q('SELECT city FROM users_by_age'), 'Undefined column name city');
    await q('DROP MATERIALIZED VIEW users_by_age');
  });

  it('applies WHERE restrictions on base key columns', async () => {
    await q(
      'CREATE MATERIALIZED VIEW high_c AS SELECT k, c, w FROM base WHERE k IS NOT NULL AND c >= 5 AND k IN (0, 1, 3) PRIMARY KEY (c, k)',
    );
    const where = (
      await q("SELECT where_clause FROM system_schema.views WHERE keyspace_name = 'mv' AND view_name = 'high_c'")
    ).rows[0]!.where_clause;
    expect(where).toBe('k IS NOT NULL AND c >= 5 AND k IN (0, 1, 3)');
    await q('INSERT INTO base (k, c, w) VALUES (1, 60, 60)');
    await q('INSERT INTO base (k, c, w) VALUES (2, 61, 61)');
    await q('INSERT INTO base (k, c, w) VALUES (3, 4, 4)');
    await expectHighCMatchesBase();
    await expectInvalid(
      q(
        'CREATE MATERIALIZED VIEW bad AS SELECT k, c FROM base WHERE k IS NOT NULL AND c IS NOT NULL AND c > now() PRIMARY KEY (c, k)',
      ),
      'Only IS NOT NULL, =, IN and comparisons with literals are supported',
    );
  });

  it('keeps the view after a restart and drops it', async () => {
    await client.shutdown();
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, keepData: true });
    client = await connect();
    await expectViewMatchesBase();
    await q("INSERT INTO base (k, c, v, w) VALUES (11, 1, 'after', 1)");
    await q('UPDATE base SET w = 7 WHERE k = 1 AND c = 60');
    await expectViewMatchesBase();
    await expectHighCMatchesBase();
    await q('DROP MATERIALIZED VIEW by_v');
    await expectInvalid(q('SELECT * FROM by_v'), 'by_v');
    await q('DROP MATERIALIZED VIEW IF EXISTS by_v');
    await expectInvalid(q('DROP MATERIALIZED VIEW by_v'), "Materialized view 'mv.by_v' doesn't exist");
    expect(
      (await q("SELECT view_name FROM system_schema.views WHERE keyspace_name = 'mv'")).rows
        .map((r) => r.view_name)
        .sort(),
    ).toEqual(['high_c', 'users_by_email']);
    await q("INSERT INTO base (k, c, v, w) VALUES (12, 1, 'x', 1)");
  });
});
