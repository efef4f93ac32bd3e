// The switches and limits of user-defined functions, as Cassandra 5.0 names them (cassandra.yaml), through the
// real server and cassandra-driver: off by default with Cassandra's messages, JavaScript behind its own switch,
// functions kept in the schema while the switch is off, the warn timeout's client warning, the fail timeout and its
// policy, the older setting names, and the settings' validation.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../server/config.js';
import { errorOf, expectDriverError } from './support/driver-error.js';
import { type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const INVALID = 0x2200;
const FUNCTION_FAILURE = 0x1400;
const DISABLED =
  'User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable';
const SCRIPTED_DISABLED =
  'Scripted user-defined functions are disabled in cassandra.yaml - set scripted_user_defined_functions_enabled=true to enable if you are aware of the security risks';
const KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}";
const JS_PLUS =
  "CREATE FUNCTION ks.plus(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'a + b'";
const JAVA_PLUS =
  "CREATE FUNCTION ks.jplus(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return a + b;'";

const dir = mkdtempSync(join(tmpdir(), 'pmemcql-udf-settings-'));
const servers: ServerProcess[] = [];
const clients: cassandra.Client[] = [];

afterAll(async () => {
  for (const c of clients) await c.shutdown();
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string> = {}, dataDir?: string) {
  const server = await startServer({ env, ...(dataDir ? { dataDir } : {}) });
  servers.push(server);
  const client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  clients.push(client);
  await client.connect();
  return { server, client, q: (cql: string) => client.execute(cql) };
}

describe('switches', () => {
  it('are off by default: creating or calling a function is refused with Cassandra message', async () => {
    const { server, q } = await serve();
    expect(server.readyLine().user_defined_functions).toBe('disabled');
    await q(KEYSPACE);
    await expectDriverError(q(JS_PLUS), INVALID, DISABLED);
    await expectDriverError(q(JAVA_PLUS), INVALID, DISABLED);
    await expectDriverError(q('CREATE AGGREGATE ks.total(int) SFUNC plus STYPE int'), INVALID, DISABLED);
    expect((await q("SELECT * FROM system_schema.functions WHERE keyspace_name = 'ks'")).rows).toHaveLength(0);
  });

  it('JavaScript needs its own switch', async () => {
    const { server, q } = await serve({ PMEMCQL_USER_DEFINED_FUNCTIONS_ENABLED: 'true' });
    expect(server.readyLine().user_defined_functions).toBe('java');
    await q(KEYSPACE);
    await expectDriverError(q(JS_PLUS), INVALID, SCRIPTED_DISABLED);
  });

  it('functions stay in the schema while the switch is off; calls are refused, DROP works', async () => {
    const dataDir = join(dir, 'kept');
    const first = await serve(UDF_ENV, dataDir);
    expect(first.server.readyLine().user_defined_functions).toBe('java, javascript');
    await first.q(KEYSPACE);
    await first.q('CREATE TABLE ks.t (k int PRIMARY KEY, v int)');
    await first.q('INSERT INTO ks.t (k, v) VALUES (1, 41)');
    await first.q(JS_PLUS);
    await first.q('CREATE AGGREGATE ks.total(int) SFUNC plus STYPE int INITCOND 0');
    expect((await first.q('SELECT ks.plus(k, v) AS s FROM ks.t WHERE k = 1')).first().s).toBe(42);
    await first.client.shutdown();
    await first.server.stop();

    const off = await serve({}, dataDir);
    const fns = await off.q("SELECT function_name, body FROM system_schema.functions WHERE keyspace_name = 'ks'");
    expect(fns.rows.map((r) => [r.function_name, r.body])).toEqual([['plus', 'a + b']]);
    const aggs = await off.q("SELECT aggregate_name FROM system_schema.aggregates WHERE keyspace_name = 'ks'");
    expect(aggs.rows.map((r) => r.aggregate_name)).toEqual(['total']);
    const meta = await off.client.metadata.getFunction('ks', 'plus', ['int', 'int']);
    expect(meta?.body).toBe('a + b');
    const desc = await off.q('DESCRIBE FUNCTION ks.plus');
    expect(desc.first().create_statement).toContain('LANGUAGE javascript');
    await expectDriverError(off.q('SELECT ks.plus(k, v) FROM ks.t WHERE k = 1'), INVALID, DISABLED);
    await expectDriverError(off.q('SELECT ks.total(v) FROM ks.t'), INVALID, DISABLED);
    await off.q('DROP AGGREGATE ks.total');
    await off.q('DROP FUNCTION ks.plus');
    expect((await off.q("SELECT * FROM system_schema.functions WHERE keyspace_name = 'ks'")).rows).toHaveLength(0);
  });
});

describe('timeouts', () => {
  it('a call past the warn timeout succeeds with a client warning', async () => {
    const { client, q } = await serve({
      ...UDF_ENV,
      PMEMCQL_USER_DEFINED_FUNCTIONS_WARN_TIMEOUT: '50ms',
      PMEMCQL_USER_DEFINED_FUNCTIONS_FAIL_TIMEOUT: '5s',
    });
    await q(KEYSPACE);
    await q('CREATE TABLE ks.t (k int PRIMARY KEY, v int)');
    await q('INSERT INTO ks.t (k, v) VALUES (1, 2)');
    await q(
      "CREATE FUNCTION ks.slow(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'const t = Date.now(); while (Date.now() - t < 120) {} return a;'",
    );
    const r = await client.execute('SELECT ks.slow(v) AS s FROM ks.t WHERE k = 1');
    expect(r.first().s).toBe(2);
    expect(r.info.warnings).toEqual(['User defined function ks.slow : (int) -> int ran longer than 50ms']);
    // A fast call carries no warning.
    const fast = await client.execute('SELECT v FROM ks.t WHERE k = 1');
    expect(fast.info.warnings).toBeUndefined();
  });

  it('user_function_timeout_policy: die answers the failure, then stops the server', async () => {
    const { server, q } = await serve({
      ...UDF_ENV,
      PMEMCQL_USER_DEFINED_FUNCTIONS_WARN_TIMEOUT: '100ms',
      PMEMCQL_USER_DEFINED_FUNCTIONS_FAIL_TIMEOUT: '200ms',
      PMEMCQL_USER_FUNCTION_TIMEOUT_POLICY: 'die',
    });
    await q(KEYSPACE);
    await q('CREATE TABLE ks.t (k int PRIMARY KEY, v int)');
    await q('INSERT INTO ks.t (k, v) VALUES (1, 2)');
    await q(
      "CREATE FUNCTION ks.spin(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS 'for (;;) {}'",
    );
    const exited = new Promise<number | null>((ok) => server.child.once('exit', (code) => ok(code)));
    await expectDriverError(
      q('SELECT ks.spin(v) FROM ks.t WHERE k = 1'),
      FUNCTION_FAILURE,
      "execution of 'ks.spin[int]' failed: java.util.concurrent.TimeoutException: User defined function ks.spin : (int) -> int ran longer than 200ms - will stop Cassandra VM",
    );
    expect(await exited).toBe(100);
    expect(server.output()).toContain('stopping the server: User defined function ks.spin');
  });
});

describe('settings', () => {
  const main = resolve(import.meta.dirname, '../dist/server/main.js');
  const run = (yaml: string) => {
    const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, yaml);
    return spawnSync(process.execPath, [main, '--config', file, '--data', join(dir, 'data-bad')], {
      encoding: 'utf8',
      timeout: 20_000,
    });
  };

  it("Cassandra's older names are accepted (enable_user_defined_functions, user_defined_function_fail_timeout)", async () => {
    const file = join(dir, 'old-names.yaml');
    writeFileSync(
      file,
      'enable_user_defined_functions: true\nenable_scripted_user_defined_functions: true\nuser_defined_function_warn_timeout: 100\nuser_defined_function_fail_timeout: 300\n',
    );
    const c = loadConfig({ file });
    expect(c.user_defined_functions_enabled).toBe(true);
    expect(c.scripted_user_defined_functions_enabled).toBe(true);
    expect(c.user_defined_functions_warn_timeout).toBe(100);
    expect(c.user_defined_functions_fail_timeout).toBe(300);
    const server = await startServer({ args: ['--config', file] });
    servers.push(server);
    expect(server.readyLine().user_defined_functions).toBe('java, javascript');
  });

  it('durations take units; the defaults are Cassandra 5.0 ones', () => {
    const c = loadConfig({ env: { PMEMCQL_USER_DEFINED_FUNCTIONS_FAIL_TIMEOUT: '2s' } });
    expect(c.user_defined_functions_fail_timeout).toBe(2000);
    const d = loadConfig({});
    expect([d.user_defined_functions_enabled, d.scripted_user_defined_functions_enabled]).toEqual([false, false]);
    expect([d.user_defined_functions_warn_timeout, d.user_defined_functions_fail_timeout]).toEqual([500, 1500]);
  });

  it('refuses a warn timeout longer than the fail timeout, a bad policy and a tiny memory limit', () => {
    const warn = run('user_defined_functions_warn_timeout: 2s\nuser_defined_functions_fail_timeout: 1s\n');
    expect(warn.status).toBe(2);
    expect(warn.stderr).toContain(
      "Invalid configuration for 'user_defined_functions_warn_timeout': must not be longer than user_defined_functions_fail_timeout (1000ms)",
    );
    const policy = run('user_function_timeout_policy: explode\n');
    expect(policy.status).toBe(2);
    expect(policy.stderr).toContain("Invalid configuration for 'user_function_timeout_policy'");
    const memory = run('user_defined_functions_memory_limit: 1MiB\n');
    expect(memory.status).toBe(2);
    expect(memory.stderr).toContain('must be at least 20MiB');
    const duration = run('user_defined_functions_fail_timeout: soon\n');
    expect(duration.status).toBe(2);
    expect(duration.stderr).toContain("Invalid configuration for 'user_defined_functions_fail_timeout'");
  });

  it('a small memory limit is the limit of each function', async () => {
    const { q } = await serve({ ...UDF_ENV, PMEMCQL_USER_DEFINED_FUNCTIONS_MEMORY_LIMIT: '24MiB' });
    await q(KEYSPACE);
    await q('CREATE TABLE ks.t (k int PRIMARY KEY, v int)');
    await q('INSERT INTO ks.t (k, v) VALUES (1, 2)');
    // 8 MiB fits in 24 MiB beside the engine's own start-up memory; 24 MiB does not.
    await q(
      'CREATE FUNCTION ks.grab(n int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE javascript AS $$const k = []; for (let i = 0; i < n; i++) k.push(new Uint8Array(4 << 20)); return k.length;$$',
    );
    expect((await q('SELECT ks.grab(v) AS g FROM ks.t WHERE k = 1')).first().g).toBe(2);
    const err = await errorOf(q('SELECT ks.grab(v * 3) FROM ks.t WHERE k = 1'));
    expect(err.code).toBe(FUNCTION_FAILURE);
    expect(err.message).toContain('java.lang.OutOfMemoryError');
  });
});
