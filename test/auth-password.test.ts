// PasswordAuthenticator + CassandraRoleManager against the real server: SASL PLAIN logins from the
// Node.js and Python drivers, the default superuser, Cassandra's messages for bad credentials and roles that
// cannot log in, CREATE/ALTER/DROP ROLE and USER, GRANT/REVOKE of roles, LIST ROLES/USERS, the system_auth
// tables, and roles surviving a restart.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON, pythonDriverAvailable } from './support/python-driver.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const AUTH_ENV = { PMEMCQL_AUTHENTICATOR: 'PasswordAuthenticator', PMEMCQL_AUTHORIZER: 'CassandraAuthorizer' };
const UNAUTHORIZED = 0x2100;
const INVALID = 0x2200;

let server: ServerProcess;
let dataDir: string;
const clients: cassandra.Client[] = [];

function client(user?: string, password?: string, port = server.port): cassandra.Client {
  const c = new cassandra.Client({
    contactPoints: [`127.0.0.1:${port}`],
    localDataCenter: 'datacenter1',
    ...(user !== undefined ? { authProvider: new cassandra.auth.PlainTextAuthProvider(user, password ?? '') } : {}),
  });
  clients.push(c);
  return c;
}

async function login(user: string, password: string, port = server.port): Promise<cassandra.Client> {
  const c = client(user, password, port);
  await c.connect();
  return c;
}

/** The server's message for a failed login (the driver wraps it in NoHostAvailableError). */
async function loginError(user: string | undefined, password?: string): Promise<Error> {
  const c = client(user, password);
  try {
    await c.connect();
  } catch (e) {
    const inner = Object.values((e as { innerErrors?: Record<string, Error> }).innerErrors ?? {});
    return inner[0] ?? (e as Error);
  }
  throw new Error('login unexpectedly succeeded');
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

function rows(rs: cassandra.types.ResultSet): Record<string, unknown>[] {
  return rs.rows.map((r) => {
    const o: Record<string, unknown> = {};
    for (const k of r.keys()) o[k] = r.get(k);
    return o;
  });
}

let su: cassandra.Client;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pmemcql-auth-'));
  server = await startServer({ dataDir, env: AUTH_ENV });
  su = await login('cassandra', 'cassandra');
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => {})));
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('PasswordAuthenticator', () => {
  it('creates the default superuser on first start and logs it', () => {
    expect(server.output()).toContain("Created default superuser role 'cassandra'");
  });

  it('logs in the default superuser cassandra/cassandra', async () => {
    const rs = await su.execute("SELECT role, is_superuser, can_login FROM system_auth.roles WHERE role = 'cassandra'");
    expect(rows(rs)).toEqual([{ role: 'cassandra', is_superuser: true, can_login: true }]);
  });

  it('refuses a wrong password or an unknown user with Cassandra message', async () => {
    const wrong = await loginError('cassandra', 'nope');
    expect(wrong.message).toBe('Provided username cassandra and/or password are incorrect');
    expect(wrong.name).toBe('AuthenticationError');
    const unknown = await loginError('ghost', 'x');
    expect(unknown.message).toBe('Provided username ghost and/or password are incorrect');
  });

  it('refuses a client without credentials', async () => {
    const e = await loginError(undefined);
    expect(e.message).toMatch(/requires authentication|PasswordAuthenticator|AuthenticationError/i);
  });

  it("refuses a role that can't log in", async () => {
    await su.execute("CREATE ROLE nologin WITH PASSWORD = 'pw'");
    const e = await loginError('nologin', 'pw');
    expect(e.message).toBe('nologin is not permitted to log in');
  });

  it('survives a burst of bad logins and keeps serving', async () => {
    const attempts = await Promise.all(Array.from({ length: 5 }, (_, i) => loginError('cassandra', `bad${i}`)));
    for (const a of attempts) expect(a.message).toContain('are incorrect');
    const rs = await su.execute('SELECT release_version FROM system.local');
    expect(rs.rows).toHaveLength(1);
  });
});

describe('roles', () => {
  it('CREATE ROLE / USER with LOGIN, SUPERUSER, PASSWORD and OPTIONS', async () => {
    await su.execute("CREATE ROLE alice WITH PASSWORD = 'a1' AND LOGIN = true AND OPTIONS = {'team': 'db'}");
    await su.execute("CREATE USER legacy WITH PASSWORD 'l1' NOSUPERUSER");
    await su.execute('CREATE ROLE admin WITH SUPERUSER = true AND LOGIN = false');
    await su.execute('CREATE ROLE IF NOT EXISTS admin');
    await expectCqlError(su.execute('CREATE ROLE admin'), INVALID, 'admin already exists');
    await expectCqlError(su.execute("CREATE ROLE ''"), INVALID, "Role name can't be an empty string");
    const alice = await login('alice', 'a1');
    const legacy = await login('legacy', 'l1');
    expect((await alice.execute('SELECT key FROM system.local')).rows).toHaveLength(1);
    expect((await legacy.execute('SELECT key FROM system.local')).rows).toHaveLength(1);
  });

  it('LIST ROLES has Cassandra 5.0 columns and rows', async () => {
    const rs = await su.execute('LIST ROLES');
    expect(rs.columns.map((c) => c.name)).toEqual(['role', 'super', 'login', 'options', 'datacenters']);
    const byName = new Map(rows(rs).map((r) => [r.role, r]));
    expect(byName.get('cassandra')).toMatchObject({ super: true, login: true, datacenters: 'ALL' });
    expect(byName.get('admin')).toMatchObject({ super: true, login: false });
    expect(byName.get('alice')).toMatchObject({ super: false, login: true, options: { team: 'db' } });
    expect(byName.get('legacy')).toMatchObject({ super: false, login: true });
    const names = rows(rs).map((r) => r.role as string);
    expect(names).toEqual([...names].sort());
  });

  it('LIST USERS lists the roles that can log in', async () => {
    const rs = await su.execute('LIST USERS');
    expect(rs.columns.map((c) => c.name)).toEqual(['name', 'super', 'datacenters']);
    const names = rows(rs).map((r) => r.name);
    expect(names).toContain('cassandra');
    expect(names).toContain('alice');
    expect(names).not.toContain('admin');
    expect(names).not.toContain('nologin');
  });

  it('ALTER ROLE changes the password; a role may change its own password only', async () => {
    await su.execute("CREATE ROLE carol WITH PASSWORD = 'old' AND LOGIN = true");
    const carol = await login('carol', 'old');
    await carol.execute("ALTER ROLE carol WITH PASSWORD = 'new'");
    expect((await loginError('carol', 'old')).message).toBe('Provided username carol and/or password are incorrect');
    await login('carol', 'new');
    await expectCqlError(
      carol.execute('ALTER ROLE carol WITH SUPERUSER = true'),
      UNAUTHORIZED,
      "You aren't allowed to alter your own superuser status or that of a role granted to you",
    );
    await expectCqlError(
      carol.execute('ALTER ROLE carol WITH LOGIN = false'),
      UNAUTHORIZED,
      "You aren't allowed to alter LOGIN",
    );
    await expectCqlError(
      carol.execute("ALTER ROLE alice WITH PASSWORD = 'x'"),
      UNAUTHORIZED,
      'User carol has no ALTER permission on <role alice> or any of its parents',
    );
    await expectCqlError(
      carol.execute('CREATE ROLE boss WITH SUPERUSER = true'),
      UNAUTHORIZED,
      'User carol has no CREATE permission on <all roles> or any of its parents',
    );
    await expectCqlError(su.execute('ALTER ROLE nobody WITH LOGIN = true'), INVALID, "nobody doesn't exist");
    await su.execute('ALTER USER legacy SUPERUSER');
    const rs = await su.execute("SELECT is_superuser FROM system_auth.roles WHERE role = 'legacy'");
    expect(rs.rows[0]?.get('is_superuser')).toBe(true);
  });

  it('GRANT / REVOKE roles, with inheritance, cycles refused and system_auth rows', async () => {
    await su.execute('CREATE ROLE r1');
    await su.execute('CREATE ROLE r2');
    await su.execute('GRANT r2 TO r1');
    await su.execute('GRANT r1 TO alice');
    await expectCqlError(su.execute('GRANT alice TO r2'), INVALID, 'alice is a member of r2');
    await expectCqlError(su.execute('GRANT r1 TO alice'), INVALID, 'alice is a member of r1');
    await expectCqlError(su.execute('GRANT nobody TO alice'), INVALID, "nobody doesn't exist");
    const of = rows(await su.execute('LIST ROLES OF alice')).map((r) => r.role);
    expect(of).toEqual(['alice', 'r1', 'r2']);
    const direct = rows(await su.execute('LIST ROLES OF alice NORECURSIVE')).map((r) => r.role);
    expect(direct).toEqual(['alice', 'r1']);
    const members = rows(await su.execute("SELECT * FROM system_auth.role_members WHERE role = 'r1'"));
    expect(members).toEqual([{ role: 'r1', member: 'alice' }]);
    const aliceRow = await su.execute("SELECT member_of FROM system_auth.roles WHERE role = 'alice'");
    expect(aliceRow.rows[0]?.get('member_of')).toEqual(['r1']);
    // A non-superuser sees its own roles only.
    const alice = await login('alice', 'a1');
    expect(rows(await alice.execute('LIST ROLES')).map((r) => r.role)).toEqual(['alice', 'r1', 'r2']);
    await expectCqlError(
      alice.execute('LIST ROLES OF carol'),
      UNAUTHORIZED,
      'You are not authorized to view roles granted to carol ',
    );
    await su.execute('REVOKE r1 FROM alice');
    await expectCqlError(su.execute('REVOKE r1 FROM alice'), INVALID, 'alice is not a member of r1');
    expect(rows(await su.execute('LIST ROLES OF alice')).map((r) => r.role)).toEqual(['alice']);
  });

  it('DROP ROLE / USER with Cassandra rules', async () => {
    await su.execute('CREATE ROLE temp');
    await su.execute('GRANT temp TO alice');
    await su.execute('DROP ROLE temp');
    await su.execute('DROP ROLE IF EXISTS temp');
    await expectCqlError(su.execute('DROP ROLE temp'), INVALID, "temp doesn't exist");
    expect(rows(await su.execute('LIST ROLES OF alice')).map((r) => r.role)).toEqual(['alice']);
    await expectCqlError(su.execute('DROP ROLE cassandra'), INVALID, 'Cannot DROP primary role for current login');
    const alice = await login('alice', 'a1');
    await expectCqlError(
      alice.execute('DROP ROLE admin'),
      UNAUTHORIZED,
      'User alice has no DROP permission on <role admin> or any of its parents',
    );
    await su.execute("CREATE USER gone WITH PASSWORD 'g'");
    await su.execute('DROP USER gone');
    expect((await loginError('gone', 'g')).message).toBe('Provided username gone and/or password are incorrect');
  });

  it('LIST SUPERUSERS', async () => {
    const names = rows(await su.execute('LIST SUPERUSERS')).map((r) => r.role);
    expect(names).toEqual(expect.arrayContaining(['admin', 'cassandra', 'legacy']));
    expect(names).not.toContain('alice');
  });

  it('keeps roles, passwords and memberships across a restart', async () => {
    await su.execute('CREATE ROLE keep');
    await su.execute('GRANT keep TO carol');
    await Promise.all(clients.splice(0).map((c) => c.shutdown().catch(() => {})));
    expect(await server.stop()).toBe(0);
    server = await startServer({ dataDir, env: AUTH_ENV });
    expect(server.output()).not.toContain('Created default superuser role');
    su = await login('cassandra', 'cassandra');
    const carol = await login('carol', 'new');
    expect(rows(await carol.execute('LIST ROLES')).map((r) => r.role)).toEqual(['carol', 'keep']);
    const rs = rows(await su.execute('LIST ROLES'));
    expect(rs.find((r) => r.role === 'alice')).toMatchObject({ login: true, options: { team: 'db' } });
  });
});

describe('without authentication', () => {
  it('refuses role statements from anonymous sessions, as Cassandra', async () => {
    const plain = await startServer();
    try {
      const c = client(undefined, undefined, plain.port);
      await c.connect();
      await expectCqlError(
        c.execute('CREATE ROLE x'),
        UNAUTHORIZED,
        'You have to be logged in and not anonymous to perform this request',
      );
      await expectCqlError(
        c.execute('LIST ROLES'),
        UNAUTHORIZED,
        'You have to be logged in and not anonymous to perform this request',
      );
      await c.shutdown();
    } finally {
      await plain.stop();
    }
  });

  it('refuses AllowAllAuthenticator with CassandraAuthorizer at start-up', async () => {
    await expect(startServer({ env: { PMEMCQL_AUTHORIZER: 'CassandraAuthorizer' } })).rejects.toThrow(
      /AllowAllAuthenticator can't be used with CassandraAuthorizer/,
    );
  });
});

const pythonOk = await pythonDriverAvailable();

const PY_LOGIN = `
import json, sys
from cassandra.cluster import Cluster, NoHostAvailable
from cassandra.auth import PlainTextAuthProvider
host, port, user, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
try:
    cluster = Cluster([host], port=port, auth_provider=PlainTextAuthProvider(user, password))
    session = cluster.connect()
    row = session.execute("SELECT release_version FROM system.local").one()
    roles = [r.role for r in session.execute("LIST ROLES")]
    print(json.dumps({"ok": True, "release_version": row.release_version, "roles": roles}))
    cluster.shutdown()
except NoHostAvailable as e:
    print(json.dumps({"ok": False, "error": "; ".join(str(v) for v in e.errors.values())}))
`;

function python(args: string[]): Promise<{ ok: boolean; error?: string; roles?: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'pmemcql-py-'));
  const file = join(dir, 'login.py');
  writeFileSync(file, PY_LOGIN);
  return new Promise((ok, fail) => {
    execFile(PYTHON, [file, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      const last = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .at(-1);
      if (last === undefined) fail(new Error(`python printed nothing: ${err?.message}\n${stderr}`));
      else ok(JSON.parse(last));
    });
  });
}

describe.runIf(pythonOk)('Python driver PlainTextAuthProvider', () => {
  it('logs in with the right password', async () => {
    const r = await python([server.host, String(server.port), 'cassandra', 'cassandra']);
    expect(r.ok, r.error).toBe(true);
    expect(r.roles).toContain('cassandra');
  });

  it('gets the AuthenticationFailed message for a wrong password', async () => {
    const r = await python([server.host, String(server.port), 'cassandra', 'wrong']);
    expect(r.ok).toBe(false);
    expect(r.error).toContain('Provided username cassandra and/or password are incorrect');
  });
});
