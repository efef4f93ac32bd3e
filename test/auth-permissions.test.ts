// CassandraAuthorizer against the real server: GRANT / REVOKE / LIST PERMISSIONS on every resource
// kind, enforced per statement kind (SELECT, INSERT/UPDATE/DELETE, TRUNCATE, LWT, DDL, role management), in
// batches and at EXECUTE of prepared statements, inherited through granted roles, bypassed by superusers,
// system tables readable as in Cassandra, creators owning what they create, and grants surviving a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const AUTH_ENV = {
  PMEMCQL_AUTHENTICATOR: 'PasswordAuthenticator',
  PMEMCQL_AUTHORIZER: 'CassandraAuthorizer',
  ...UDF_ENV,
};
const SYNTAX = 0x2000;
const UNAUTHORIZED = 0x2100;
const INVALID = 0x2200;

let server: ServerProcess;
let dataDir: string;
const clients: cassandra.Client[] = [];
let su: cassandra.Client;
let bob: cassandra.Client;

async function login(user: string, password: string): Promise<cassandra.Client> {
  const c = new cassandra.Client({
    contactPoints: [`127.0.0.1:${server.port}`],
    localDataCenter: 'datacenter1',
    authProvider: new cassandra.auth.PlainTextAuthProvider(user, password),
  });
  clients.push(c);
  await c.connect();
  return c;
}

async function expectCqlError(p: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: number; message: string };
    if (typeof message === 'string') expect(err.message).toBe(message);
    else expect(err.message).toMatch(message);
    expect(err.code, err.message).toBe(code);
    return;
  }
  throw new Error(`expected error ${code.toString(16)}: ${message}`);
}

function noPermission(user: string, perm: string, resource: string): string {
  return `User ${user} has no ${perm} permission on ${resource} or any of its parents`;
}

type Row = { role: string; username: string; resource: string; permission: string };
async function listed(client: cassandra.Client, cql: string): Promise<[string, string, string][]> {
  const rs = await client.execute(cql);
  return rs.rows.map((r) => {
    const o = r as unknown as Row;
    expect(o.username).toBe(o.role);
    return [o.role, o.resource, o.permission];
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pmemcql-perms-'));
  server = await startServer({ dataDir, env: AUTH_ENV });
  su = await login('cassandra', 'cassandra');
  await su.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await su.execute("CREATE KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await su.execute('CREATE TABLE ks.t (k int PRIMARY KEY, v text)');
  await su.execute('CREATE TABLE ks.u (k int PRIMARY KEY, v text)');
  await su.execute('CREATE TABLE other.o (k int PRIMARY KEY, v text)');
  await su.execute("INSERT INTO ks.t (k, v) VALUES (1, 'one')");
  await su.execute("CREATE ROLE bob WITH PASSWORD = 'b' AND LOGIN = true");
  await su.execute('CREATE ROLE readers');
  bob = await login('bob', 'b');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => {})));
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('data permissions', () => {
  it('SELECT needs SELECT on the table, its keyspace or all keyspaces', async () => {
    await expectCqlError(
      bob.execute('SELECT * FROM ks.t'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table ks.t>'),
    );
    await su.execute('GRANT SELECT ON TABLE ks.t TO bob');
    expect((await bob.execute('SELECT v FROM ks.t WHERE k = 1')).rows[0]?.get('v')).toBe('one');
    await expectCqlError(
      bob.execute('SELECT * FROM ks.u'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table ks.u>'),
    );
    await su.execute('GRANT SELECT ON KEYSPACE ks TO bob');
    await bob.execute('SELECT * FROM ks.u');
    await expectCqlError(
      bob.execute('SELECT * FROM other.o'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table other.o>'),
    );
    await su.execute('GRANT SELECT ON ALL KEYSPACES TO bob');
    await bob.execute('SELECT * FROM other.o');
    await su.execute('REVOKE SELECT ON ALL KEYSPACES FROM bob');
    await su.execute('REVOKE SELECT ON KEYSPACE ks FROM bob');
    await expectCqlError(
      bob.execute('SELECT * FROM ks.u'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table ks.u>'),
    );
  });

  it('INSERT, UPDATE, DELETE and TRUNCATE need MODIFY; conditional updates need SELECT too', async () => {
    const modify = noPermission('bob', 'MODIFY', '<table ks.t>');
    await expectCqlError(bob.execute("INSERT INTO ks.t (k, v) VALUES (2, 'two')"), UNAUTHORIZED, modify);
    await expectCqlError(bob.execute("UPDATE ks.t SET v = 'x' WHERE k = 1"), UNAUTHORIZED, modify);
    await expectCqlError(bob.execute('DELETE FROM ks.t WHERE k = 1'), UNAUTHORIZED, modify);
    await expectCqlError(bob.execute('TRUNCATE ks.t'), UNAUTHORIZED, modify);
    await su.execute('GRANT MODIFY ON ks.u TO bob');
    await bob.execute("INSERT INTO ks.u (k, v) VALUES (2, 'two')");
    await bob.execute("UPDATE ks.u SET v = 'deux' WHERE k = 2");
    await bob.execute('DELETE FROM ks.u WHERE k = 2');
    await bob.execute('TRUNCATE ks.u');
    await expectCqlError(
      bob.execute("INSERT INTO ks.u (k, v) VALUES (3, 'x') IF NOT EXISTS"),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table ks.u>'),
    );
    await su.execute('GRANT SELECT ON ks.u TO bob');
    const rs = await bob.execute("INSERT INTO ks.u (k, v) VALUES (3, 'x') IF NOT EXISTS");
    expect(rs.rows[0]?.get('[applied]')).toBe(true);
  });

  it('checks every statement of a batch, and applies none when one is refused', async () => {
    const batch = [
      { query: "INSERT INTO ks.u (k, v) VALUES (10, 'ok')" },
      { query: "INSERT INTO ks.t (k, v) VALUES (10, 'no')" },
    ];
    await expectCqlError(bob.batch(batch), UNAUTHORIZED, noPermission('bob', 'MODIFY', '<table ks.t>'));
    await expectCqlError(
      bob.batch(
        batch.map((b) => ({ query: b.query.replace(/\(10, '\w+'\)/, '(?, ?)'), params: [11, 'p'] })),
        { prepare: true },
      ),
      UNAUTHORIZED,
      noPermission('bob', 'MODIFY', '<table ks.t>'),
    );
    // A BATCH sent as one QUERY string is checked statement by statement too.
    await expectCqlError(
      bob.execute(
        "BEGIN BATCH INSERT INTO ks.u (k, v) VALUES (12, 'a'); INSERT INTO ks.t (k, v) VALUES (12, 'b'); APPLY BATCH",
      ),
      UNAUTHORIZED,
      noPermission('bob', 'MODIFY', '<table ks.t>'),
    );
    const rs = await su.execute('SELECT k FROM ks.u WHERE k IN (10, 11, 12)');
    expect(rs.rows).toHaveLength(0);
    await su.execute('GRANT MODIFY ON ks.t TO bob');
    await bob.batch(batch);
    expect((await su.execute('SELECT k FROM ks.t WHERE k = 10')).rows).toHaveLength(1);
    await su.execute('REVOKE MODIFY ON ks.t FROM bob');
  });

  it('checks prepared statements at EXECUTE, with the grants of that moment', async () => {
    const q = 'SELECT v FROM other.o WHERE k = ?';
    await expectCqlError(
      bob.execute(q, [1], { prepare: true }),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table other.o>'),
    );
    await su.execute('GRANT SELECT ON other.o TO bob');
    await bob.execute(q, [1], { prepare: true });
    await su.execute('REVOKE SELECT ON other.o FROM bob');
    await expectCqlError(
      bob.execute(q, [1], { prepare: true }),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table other.o>'),
    );
  });

  it('applies permissions granted to roles granted to the user', async () => {
    await su.execute('GRANT SELECT ON KEYSPACE other TO readers');
    await expectCqlError(
      bob.execute('SELECT * FROM other.o'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table other.o>'),
    );
    await su.execute('GRANT readers TO bob');
    await bob.execute('SELECT * FROM other.o');
    await su.execute('REVOKE readers FROM bob');
    await expectCqlError(
      bob.execute('SELECT * FROM other.o'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table other.o>'),
    );
  });

  it('lets anyone logged in read system.local, peers and system_schema, not system_auth', async () => {
    await bob.execute('SELECT * FROM system.local');
    await bob.execute('SELECT * FROM system.peers');
    await bob.execute('SELECT * FROM system_schema.tables');
    await bob.execute('SELECT * FROM system_virtual_schema.tables');
    await expectCqlError(
      bob.execute('SELECT * FROM system_auth.roles'),
      UNAUTHORIZED,
      noPermission('bob', 'SELECT', '<table system_auth.roles>'),
    );
    await su.execute('SELECT * FROM system_auth.roles');
  });
});

describe('schema permissions', () => {
  it('CREATE TABLE needs CREATE on the keyspace; the creator gets all permissions on the new table', async () => {
    await expectCqlError(
      bob.execute('CREATE TABLE ks.mine (k int PRIMARY KEY)'),
      UNAUTHORIZED,
      noPermission('bob', 'CREATE', '<keyspace ks>'),
    );
    await su.execute('GRANT CREATE ON KEYSPACE ks TO bob');
    await bob.execute('CREATE TABLE ks.mine (k int PRIMARY KEY, v int)');
    await bob.execute('INSERT INTO ks.mine (k, v) VALUES (1, 1)');
    await bob.execute('ALTER TABLE ks.mine ADD w int');
    const perms = await listed(su, 'LIST ALL PERMISSIONS ON ks.mine NORECURSIVE');
    expect(perms).toEqual(
      ['ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'].map((p) => [
        'bob',
        '<table ks.mine>',
        p,
      ]),
    );
    await bob.execute('DROP TABLE ks.mine');
    // Dropping a table revokes every permission on it.
    expect((await su.execute('LIST ALL PERMISSIONS OF bob')).rows.map((r) => r.get('resource'))).not.toContain(
      '<table ks.mine>',
    );
  });

  it('ALTER and DROP TABLE need ALTER / DROP; keyspaces need permissions on ALL KEYSPACES or the keyspace', async () => {
    await expectCqlError(
      bob.execute('ALTER TABLE ks.t ADD x int'),
      UNAUTHORIZED,
      noPermission('bob', 'ALTER', '<table ks.t>'),
    );
    await expectCqlError(bob.execute('DROP TABLE ks.t'), UNAUTHORIZED, noPermission('bob', 'DROP', '<table ks.t>'));
    await expectCqlError(
      bob.execute("CREATE KEYSPACE bobks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"),
      UNAUTHORIZED,
      noPermission('bob', 'CREATE', '<all keyspaces>'),
    );
    await expectCqlError(
      bob.execute("ALTER KEYSPACE other WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}"),
      UNAUTHORIZED,
      noPermission('bob', 'ALTER', '<keyspace other>'),
    );
    await expectCqlError(
      bob.execute('DROP KEYSPACE other'),
      UNAUTHORIZED,
      noPermission('bob', 'DROP', '<keyspace other>'),
    );
    await su.execute('GRANT CREATE ON ALL KEYSPACES TO bob');
    await bob.execute("CREATE KEYSPACE bobks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await bob.execute('CREATE TABLE bobks.x (k int PRIMARY KEY)');
    await bob.execute('DROP KEYSPACE bobks');
  });

  it('protects system keyspaces even from superusers', async () => {
    await expectCqlError(
      su.execute('DROP TABLE system_auth.roles'),
      UNAUTHORIZED,
      /Cannot DROP <table system_auth.roles>|schema is protected/,
    );
  });
});

describe('permission management', () => {
  it('GRANT ALL grants what the resource supports; LIST shows it as Cassandra does', async () => {
    await su.execute("CREATE ROLE mike WITH PASSWORD = 'm' AND LOGIN = true");
    await su.execute('GRANT ALL ON ks.t TO mike');
    expect(await listed(su, 'LIST ALL PERMISSIONS OF mike')).toEqual(
      ['ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'].map((p) => [
        'mike',
        '<table ks.t>',
        p,
      ]),
    );
    await su.execute('REVOKE ALL ON ks.t FROM mike');
    await expectCqlError(
      su.execute('GRANT CREATE ON ks.t TO mike'),
      SYNTAX,
      'Resource type DataResource does not support any of the requested permissions',
    );
    await su.execute('GRANT ALL ON ALL ROLES TO mike');
    expect(await listed(su, 'LIST ALL PERMISSIONS OF mike')).toEqual(
      ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'DESCRIBE'].map((p) => ['mike', '<all roles>', p]),
    );
    await su.execute('REVOKE ALL ON ALL ROLES FROM mike');
    await expectCqlError(
      su.execute('GRANT SELECT ON ALL ROLES TO mike'),
      SYNTAX,
      'Resource type RoleResource does not support any of the requested permissions',
    );
    await su.execute('GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ks TO mike');
    expect(await listed(su, 'LIST EXECUTE OF mike')).toEqual([['mike', '<all functions in ks>', 'EXECUTE']]);
    expect(await su.execute('LIST ALL PERMISSIONS OF readers')).toBeDefined();
  });

  it('guards user-defined functions: CREATE on the keyspace functions, grants on a function', async () => {
    const create =
      "CREATE FUNCTION ks.plus1(x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'x + 1'";
    await expectCqlError(bob.execute(create), UNAUTHORIZED, noPermission('bob', 'CREATE', '<all functions in ks>'));
    await su.execute(create);
    await su.execute('GRANT EXECUTE ON FUNCTION ks.plus1(int) TO mike');
    expect(await listed(su, 'LIST EXECUTE ON FUNCTION ks.plus1(int) OF mike NORECURSIVE')).toEqual([
      ['mike', '<function ks.plus1(int)>', 'EXECUTE'],
    ]);
    await expectCqlError(
      su.execute('GRANT EXECUTE ON FUNCTION ks.nope(int) TO mike'),
      INVALID,
      "Resource <function ks.nope(int)> doesn't exist",
    );
    await expectCqlError(
      bob.execute('DROP FUNCTION ks.plus1'),
      UNAUTHORIZED,
      noPermission('bob', 'DROP', '<all functions in ks>'),
    );
    await su.execute('DROP FUNCTION ks.plus1');
    await su.execute(create);
    expect((await su.execute('LIST EXECUTE OF mike NORECURSIVE')).rows.map((r) => r.get('resource'))).not.toContain(
      '<function ks.plus1(int)>',
    );
  });

  it('refuses unknown roles and resources with Cassandra messages', async () => {
    await expectCqlError(su.execute('GRANT SELECT ON ks.t TO nobody'), INVALID, "Role nobody doesn't exist");
    await expectCqlError(
      su.execute('GRANT SELECT ON ks.nope TO bob'),
      INVALID,
      "Resource <table ks.nope> doesn't exist",
    );
    await expectCqlError(
      su.execute('GRANT SELECT ON KEYSPACE nope TO bob'),
      INVALID,
      "Resource <keyspace nope> doesn't exist",
    );
    await expectCqlError(su.execute('LIST ALL PERMISSIONS OF nobody'), INVALID, "<role nobody> doesn't exist");
  });

  it('needs AUTHORIZE (and the permission itself) to grant; users see only their own permissions', async () => {
    await expectCqlError(
      bob.execute('GRANT SELECT ON ks.t TO readers'),
      UNAUTHORIZED,
      noPermission('bob', 'AUTHORIZE', '<table ks.t>'),
    );
    await expectCqlError(
      bob.execute('LIST ALL PERMISSIONS'),
      UNAUTHORIZED,
      "You are not authorized to view everyone's permissions",
    );
    await expectCqlError(
      bob.execute('LIST ALL PERMISSIONS OF mike'),
      UNAUTHORIZED,
      "You are not authorized to view mike's permissions",
    );
    const own = await listed(bob, 'LIST ALL PERMISSIONS OF bob');
    expect(own).toContainEqual(['bob', '<table ks.t>', 'SELECT']);
    await su.execute('GRANT AUTHORIZE ON KEYSPACE ks TO bob');
    await bob.execute('GRANT SELECT ON ks.t TO readers');
    await expectCqlError(
      bob.execute('GRANT MODIFY ON ks.t TO readers'),
      UNAUTHORIZED,
      noPermission('bob', 'MODIFY', '<table ks.t>'),
    );
    await bob.execute('REVOKE SELECT ON ks.t FROM readers');
  });

  it('role management needs CREATE / ALTER / DROP / AUTHORIZE on roles; creators own their roles', async () => {
    await expectCqlError(bob.execute('CREATE ROLE bobs'), UNAUTHORIZED, noPermission('bob', 'CREATE', '<all roles>'));
    await su.execute('GRANT CREATE ON ALL ROLES TO bob');
    await bob.execute('CREATE ROLE bobs');
    await expectCqlError(
      bob.execute('CREATE ROLE boss WITH SUPERUSER = true'),
      UNAUTHORIZED,
      'Only superusers can create a role with superuser status',
    );
    expect(await listed(bob, 'LIST ALL PERMISSIONS ON ROLE bobs OF bob NORECURSIVE')).toEqual(
      ['ALTER', 'DROP', 'AUTHORIZE'].map((p) => ['bob', '<role bobs>', p]),
    );
    await bob.execute('GRANT bobs TO mike');
    await bob.execute('REVOKE bobs FROM mike');
    await expectCqlError(
      bob.execute('GRANT readers TO mike'),
      UNAUTHORIZED,
      noPermission('bob', 'AUTHORIZE', '<role readers>'),
    );
    await bob.execute('ALTER ROLE bobs WITH LOGIN = true');
    await bob.execute('DROP ROLE bobs');
    await expectCqlError(
      bob.execute('DROP ROLE cassandra'),
      UNAUTHORIZED,
      noPermission('bob', 'DROP', '<role cassandra>'),
    );
  });

  it('superusers bypass every check', async () => {
    await su.execute('SELECT * FROM other.o');
    await su.execute("INSERT INTO other.o (k, v) VALUES (5, 'five')");
  });

  it('keeps grants across a restart', async () => {
    await su.execute('GRANT SELECT ON other.o TO bob');
    await Promise.all(clients.splice(0).map((c) => c.shutdown().catch(() => {})));
    expect(await server.stop()).toBe(0);
    server = await startServer({ dataDir, env: AUTH_ENV });
    bob = await login('bob', 'b');
    su = await login('cassandra', 'cassandra');
    expect((await bob.execute('SELECT v FROM other.o WHERE k = 5')).rows[0]?.get('v')).toBe('five');
    await expectCqlError(
      bob.execute("INSERT INTO other.o (k, v) VALUES (6, 'six')"),
      UNAUTHORIZED,
      /has no MODIFY permission/,
    );
    const perms = await listed(su, 'LIST ALL PERMISSIONS OF bob');
    expect(perms).toContainEqual(['bob', '<table other.o>', 'SELECT']);
    expect(perms).toContainEqual(['bob', '<all roles>', 'CREATE']);
    const rp = await su.execute("SELECT * FROM system_auth.role_permissions WHERE role = 'bob'");
    expect(rp.rows.map((r) => r.get('resource'))).toContain('data/other/o');
    const idx = await su.execute(
      "SELECT role FROM system_auth.resource_role_permissons_index WHERE resource = 'data/other/o'",
    );
    expect(idx.rows.map((r) => r.get('role'))).toContain('bob');
  });
});
