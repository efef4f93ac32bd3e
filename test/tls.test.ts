// Client encryption: client_encryption_options with PEM files made by openssl at test time (never
// committed). TLS required, optional (plain and TLS on one port, told apart by the first byte), and
// require_client_auth with a CA; the Node.js driver's sslOptions and the Python driver's ssl_context.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON, pythonDriverAvailable } from './support/python-driver.js';
import { type ServerProcess, startServer } from './support/server-process.js';

function haveOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const opensslOk = haveOpenssl();
const pythonOk = await pythonDriverAvailable();
let dir: string;
const clients: cassandra.Client[] = [];

/** A CA, a server certificate for 127.0.0.1/localhost and a client certificate, all EC P-256. */
function makeCertificates(d: string): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: d, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pmemcql-test-ca');
  writeFileSync(join(d, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const name of ['server', 'client']) {
    ssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    const ext = name === 'server' ? ['-extfile', 'san.ext'] : [];
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      ...ext,
    );
  }
  // The keystore as one PEM holding the certificate and its key, as Cassandra's PEM keystores do.
  writeFileSync(
    join(d, 'server-keystore.pem'),
    readFileSync(join(d, 'server.pem'), 'utf8') + readFileSync(join(d, 'server.key'), 'utf8'),
  );
}

async function startTls(options: Record<string, unknown>, env: Record<string, string> = {}): Promise<ServerProcess> {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  const lines = ['client_encryption_options:'];
  for (const [k, v] of Object.entries({ enabled: true, ...options })) lines.push(`  ${k}: ${JSON.stringify(v)}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return await startServer({ args: ['--config', file], env });
}

function nodeClient(port: number, sslOptions?: object, extra: Partial<cassandra.ClientOptions> = {}): cassandra.Client {
  const c = new cassandra.Client({
    contactPoints: [`127.0.0.1:${port}`],
    localDataCenter: 'datacenter1',
    ...(sslOptions ? { sslOptions } : {}),
    ...extra,
  });
  clients.push(c);
  return c;
}

async function releaseVersion(c: cassandra.Client): Promise<string> {
  await c.connect();
  const rs = await c.execute("SELECT release_version FROM system.local WHERE key = 'local'");
  return rs.rows[0]?.get('release_version') as string;
}

function caOnly(): object {
  return { ca: [readFileSync(join(dir, 'ca.pem'))], rejectUnauthorized: true, host: '127.0.0.1' };
}

function withClientCert(): object {
  return { ...caOnly(), cert: readFileSync(join(dir, 'client.pem')), key: readFileSync(join(dir, 'client.key')) };
}

const PY_TLS = `
import json, ssl, sys
from cassandra.cluster import Cluster, NoHostAvailable
from cassandra.auth import PlainTextAuthProvider
host, port, mode, certdir = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
kwargs = {}
if mode != 'plain':
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(certdir + '/ca.pem')
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    if mode == 'cert':
        ctx.load_cert_chain(certdir + '/client.pem', certdir + '/client.key')
    kwargs['ssl_context'] = ctx
if len(sys.argv) > 5:
    kwargs['auth_provider'] = PlainTextAuthProvider(sys.argv[5], sys.argv[6])
try:
    cluster = Cluster([host], port=port, connect_timeout=5, **kwargs)
    session = cluster.connect()
    row = session.execute("SELECT release_version FROM system.local").one()
    print(json.dumps({"ok": True, "release_version": row.release_version}))
    cluster.shutdown()
except NoHostAvailable as e:
    print(json.dumps({"ok": False, "error": "; ".join(str(v) for v in e.errors.values())}))
`;

function python(
  port: number,
  mode: 'plain' | 'tls' | 'cert',
  auth?: [string, string],
): Promise<{ ok: boolean; error?: string }> {
  const file = join(dir, 'tls_check.py');
  writeFileSync(file, PY_TLS);
  return new Promise((ok, fail) => {
    execFile(
      PYTHON,
      [file, '127.0.0.1', String(port), mode, dir, ...(auth ?? [])],
      { timeout: 60_000 },
      (err, stdout, stderr) => {
        const last = stdout
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .at(-1);
        if (last === undefined) fail(new Error(`python printed nothing: ${err?.message}\n${stderr}`));
        else ok(JSON.parse(last));
      },
    );
  });
}

/** Whether a raw plain CQL OPTIONS request gets an answer (false: the server closed the connection). */
function plainOptionsAnswered(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const s = netConnect(port, '127.0.0.1');
    const frame = Buffer.from([0x04, 0, 0, 1, 0x05, 0, 0, 0, 0]);
    let answered = false;
    s.on('connect', () => s.write(frame));
    s.on('data', () => {
      answered = true;
      s.destroy();
    });
    s.on('error', () => {});
    s.on('close', () => ok(answered));
    setTimeout(() => s.destroy(), 5000).unref();
  });
}

beforeAll(() => {
  if (!opensslOk) return;
  dir = mkdtempSync(join(tmpdir(), 'pmemcql-tls-'));
  makeCertificates(dir);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.shutdown().catch(() => {})));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(opensslOk)('client encryption', () => {
  describe('required', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startTls({ keystore: join(dir, 'server-keystore.pem') });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('serves the Node.js driver over TLS (server certificate checked against the CA)', async () => {
      expect(await releaseVersion(nodeClient(server.port, caOnly()))).toMatch(/^5\.0\./);
    });

    it('closes plain connections', async () => {
      expect(await plainOptionsAnswered(server.port)).toBe(false);
      const c = nodeClient(server.port, undefined, { socketOptions: { connectTimeout: 3000, readTimeout: 3000 } });
      await expect(c.connect()).rejects.toThrow();
    });

    it.runIf(pythonOk)('serves the Python driver with an ssl_context', async () => {
      const r = await python(server.port, 'tls');
      expect(r.ok, r.error).toBe(true);
    });
  });

  describe('optional', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startTls({
        optional: true,
        keystore: join(dir, 'server.pem'),
        private_key: join(dir, 'server.key'),
      });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('accepts plain and TLS clients on the same port', async () => {
      expect(await plainOptionsAnswered(server.port)).toBe(true);
      const plainClient = nodeClient(server.port);
      const [plain, secure] = await Promise.all([
        releaseVersion(plainClient),
        releaseVersion(nodeClient(server.port, caOnly())),
      ]);
      expect(plain).toBe(secure);
      // system_views.clients tells the two kinds of connection apart, and shows each client's STARTUP options.
      const rows = (
        await plainClient.execute(
          'SELECT ssl_enabled, ssl_protocol, ssl_cipher_suite, client_options FROM system_views.clients',
        )
      ).rows;
      const tlsRows = rows.filter((r) => r.ssl_enabled === true);
      expect(tlsRows.length).toBeGreaterThan(0);
      expect(rows.some((r) => r.ssl_enabled === false && r.ssl_protocol === null)).toBe(true);
      expect(tlsRows[0]!.ssl_protocol).toMatch(/^TLSv1\.[23]$/);
      expect(tlsRows[0]!.ssl_cipher_suite).toMatch(/^TLS_/);
      expect(rows[0]!.client_options.CQL_VERSION).toBe('3.0.0');
    });

    it.runIf(pythonOk)('accepts the Python driver with and without TLS', async () => {
      const [plain, secure] = await Promise.all([python(server.port, 'plain'), python(server.port, 'tls')]);
      expect(plain.ok, plain.error).toBe(true);
      expect(secure.ok, secure.error).toBe(true);
    });
  });

  describe('require_client_auth', () => {
    let server: ServerProcess;
    beforeAll(async () => {
      server = await startTls(
        {
          keystore: join(dir, 'server.pem'),
          private_key: join(dir, 'server.key'),
          require_client_auth: true,
          truststore: join(dir, 'ca.pem'),
        },
        { PMEMCQL_AUTHENTICATOR: 'PasswordAuthenticator' },
      );
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('refuses a client without a certificate', async () => {
      const c = nodeClient(server.port, caOnly(), {
        authProvider: new cassandra.auth.PlainTextAuthProvider('cassandra', 'cassandra'),
        socketOptions: { connectTimeout: 3000, readTimeout: 3000 },
      });
      await expect(c.connect()).rejects.toThrow();
    });

    it('serves a client with a certificate signed by the CA, and password login over TLS', async () => {
      const c = nodeClient(server.port, withClientCert(), {
        authProvider: new cassandra.auth.PlainTextAuthProvider('cassandra', 'cassandra'),
      });
      expect(await releaseVersion(c)).toMatch(/^5\.0\./);
    });

    it.runIf(pythonOk)('serves the Python driver with a client certificate', async () => {
      const r = await python(server.port, 'cert', ['cassandra', 'cassandra']);
      expect(r.ok, r.error).toBe(true);
      const refused = await python(server.port, 'tls', ['cassandra', 'cassandra']);
      expect(refused.ok).toBe(false);
    });
  });

  it('fails fast on an unreadable keystore, naming the key', async () => {
    await expect(startTls({ keystore: join(dir, 'missing.pem') })).rejects.toThrow(
      /client_encryption_options\.keystore/,
    );
  });
});
