// How the entry point loads the server (docs/startup.md): from the single-file build (dist/server-bundle/) while
// it was made from the tsc output now in dist/, module by module otherwise, or when PMEMCQL_BUNDLE=off. Runs on a
// copy of dist/, so that the stale case can be made without touching the build the other tests use.
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from './support/server-process.js';

const root = resolve(import.meta.dirname, '..');
const addon = join(root, 'native/build/Release/pmemcql_native.node');
const bundleIsCurrent = (dist: string): boolean =>
  existsSync(join(dist, 'server-bundle/built-from.txt')) &&
  readFileSync(join(dist, 'server-bundle/built-from.txt'), 'utf8').trim() ===
    createHash('sha1')
      .update(readFileSync(join(dist, '.tsbuildinfo')))
      .digest('hex');
const ready = existsSync(addon) && bundleIsCurrent(join(root, 'dist'));
if (!ready) console.warn('server-startup.test: needs the addon and a current bundle (npm run build:bundle); skipped');

describe.skipIf(!ready)('server start-up', () => {
  // The copy: dist/ and package.json (the version) beside the repository's node_modules; the addon by path.
  const copy = mkdtempSync(join(tmpdir(), 'pmemcql-startup-'));
  const main = join(copy, 'dist/server/main.js');
  const env = { PMEMCQL_NATIVE_ADDON: addon };
  if (ready) {
    cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  }
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('starts from the bundle while it matches the tsc output, and serves CQL from it', async () => {
    const server = await startServer({ main, env });
    const client = new cassandra.Client({
      contactPoints: [`127.0.0.1:${server.port}`],
      localDataCenter: 'datacenter1',
    });
    try {
      expect(server.readyLine().build).toBe('bundle');
      await client.connect();
      await client.execute(
        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
      );
      await client.execute('CREATE TABLE ks.t (k int PRIMARY KEY, v text)');
      await client.execute('INSERT INTO ks.t (k, v) VALUES (1, ?)', ['one'], { prepare: true });
      expect((await client.execute('SELECT v FROM ks.t WHERE k = 1')).first().v).toBe('one');
    } finally {
      await client.shutdown();
      expect(await server.stop()).toBe(0);
    }
  });

  it('loads module by module when asked to (PMEMCQL_BUNDLE=off)', async () => {
    const server = await startServer({ main, env: { ...env, PMEMCQL_BUNDLE: 'off' } });
    expect(server.readyLine().build).toBe('modules');
    expect(await server.stop()).toBe(0);
  });

  it('loads module by module once tsc has written a newer build than the bundle was made from', async () => {
    // tsc rewrites .tsbuildinfo whenever it emits; the bundle then holds older code.
    appendFileSync(join(copy, 'dist/.tsbuildinfo'), ' ');
    const server = await startServer({ main, env });
    expect(server.readyLine().build).toBe('modules');
    expect(await server.stop()).toBe(0);
  });
});
