// Killing the server at any moment loses no acknowledged write and never leaves the pool unopenable
// (DESIGN §7, issue 3): a real server process (disk mode, the default) under continuous write load from the
// DataStax driver — concurrent prepared INSERTs and UPDATEs and logged BATCHes over two tables — is killed
// with SIGKILL at random moments, CRASH_KILLS times (default 20), on the same data directory. After each
// restart every acknowledged write reads back exactly, a write that was never sent is never there, each
// batch is all or nothing, and the pool opens cleanly; at the end `pmempool check` (when on PATH) passes.
//
// Model: every key is written by one worker, one statement at a time: version 0 by an INSERT, versions 1, 2,
// ... by UPDATEs. So after a kill a key holds its last acknowledged version or the one in flight (sent but
// not acknowledged), and a key whose INSERT was never acknowledged is absent or at version 0. A batch writes
// kv (k) and ev (p, c) with its own keys: both rows or neither, and both when acknowledged.
//
// CRASH_KILLS=200 runs the long mode; CRASH_MODE=emulated puts the pool on /dev/shm with PMEM_IS_PMEM_FORCE=1;
// CRASH_MODE=journal runs disk_sync journal (working pool in /dev/shm, journal + image in the data directory),
// deletes the /dev/shm pool after every other kill (a reboot: rebuilt from image + journal) and checkpoints
// often (test/server-crash-journal.test.ts runs it that way).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { readAllPages } from './support/read-all-pages.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const root = resolve(import.meta.dirname, '..');
const ready =
  existsSync(join(root, 'dist/server/main.js')) && existsSync(join(root, 'native/build/Release/pmemcql_native.node'));
const KILLS = Number(process.env.CRASH_KILLS ?? 20);
const EMULATED = process.env.CRASH_MODE === 'emulated';
const JOURNAL = process.env.CRASH_MODE === 'journal';
const WORKERS = 8;
const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

interface KeyState {
  /** Highest version whose write was acknowledged (-1: none). */
  acked: number;
  /** Highest version sent (its write may or may not have happened). */
  sent: number;
}

interface BatchState {
  acked: boolean;
}

const payload = (k: number, version: number) => `p-${k}-${version}`;
const batchPayload = (b: number) => `b-${b}`;
const BATCH_BASE = 1_000_000_000;

function hasPmempool(): boolean {
  return spawnSync('pmempool', ['--version']).status === 0;
}

describe.skipIf(!ready)('server crash safety under client load', () => {
  const dataDir = mkdtempSync(join(EMULATED && existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-srvcrash-'));
  // Journal mode: the working pool's directory (instead of /dev/shm itself, so it is easy to remove).
  const shmDir = JOURNAL ? mkdtempSync('/dev/shm/pmemcql-srvcrash-shm-') : '';
  const shmPool = () => join(shmDir, readdirSync(shmDir).find((f) => f.endsWith('.pool'))!);
  let reboots = 0;
  const keys = new Map<number, KeyState>();
  const batches = new Map<number, BatchState>();
  let nextKey = 0;
  let nextBatch = BATCH_BASE;
  /** The keys each worker owns (one writer per key, across rounds). */
  const owned: number[][] = Array.from({ length: WORKERS }, () => []);
  /** Writes in flight at a kill (sent, not acknowledged), and how many of them had committed. */
  const inFlight = { writes: 0, committed: 0 };

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    if (shmDir) rmSync(shmDir, { recursive: true, force: true });
  });

  const start = () =>
    startServer({
      dataDir,
      args: ['--pool-size', '64MiB'],
      env: {
        PMEM_IS_PMEM_FORCE: EMULATED ? '1' : '0',
        ...(JOURNAL
          ? {
              PMEMCQL_DISK_SYNC: 'journal',
              PMEMCQL_JOURNAL_SHM_DIR: shmDir,
              PMEMCQL_JOURNAL_CHECKPOINT_BYTES: String(512 * 1024),
            }
          : {}),
      },
    });

  const connect = async (server: ServerProcess): Promise<cassandra.Client> => {
    const client = new cassandra.Client({
      contactPoints: [`${server.host}:${server.port}`],
      localDataCenter: 'datacenter1',
      pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 } },
      // One attempt per write: a retried write would blur what was acknowledged.
      policies: { retry: new cassandra.policies.retry.FallthroughRetryPolicy() },
      socketOptions: { readTimeout: 30_000 },
    });
    await client.connect();
    return client;
  };

  /** Reads both tables and checks them against the model; then the model adopts what is there. */
  const verify = async (client: cassandra.Client, round: number): Promise<number> => {
    const kv = new Map<number, { v: number; payload: string }>();
    for (const row of await readAllPages(client, 'SELECT k, v, payload FROM crash.kv')) {
      kv.set(row.k as number, { v: row.v as number, payload: row.payload as string });
    }
    const ev = new Map<number, string>();
    for (const row of await readAllPages(client, 'SELECT p, c, v FROM crash.ev')) {
      expect(row.p, `round ${round}: ev row in the wrong partition`).toBe((row.c as number) % 8);
      ev.set(row.c as number, row.v as string);
    }
    const where = (k: number) => `round ${round}, key ${k}`;
    for (const [k, s] of keys) {
      const row = kv.get(k);
      if (s.sent > s.acked) {
        inFlight.writes++;
        if (row && row.v === s.sent) inFlight.committed++;
      }
      if (!row) {
        expect(s.acked, `${where(k)}: acknowledged version ${s.acked} lost`).toBe(-1);
        keys.delete(k); // never acknowledged, not there: as if never sent
        continue;
      }
      expect(row.v, `${where(k)}: version ${row.v}, acknowledged ${s.acked}, sent ${s.sent}`).toBeGreaterThanOrEqual(
        Math.max(s.acked, 0),
      );
      expect(row.v, `${where(k)}: version ${row.v} was never sent (sent ${s.sent})`).toBeLessThanOrEqual(s.sent);
      expect(row.payload, `${where(k)}: payload`).toBe(payload(k, row.v));
      s.acked = s.sent = row.v;
    }
    for (const [b, s] of batches) {
      const a = kv.get(b);
      const e = ev.get(b);
      expect(
        a !== undefined,
        `round ${round}, batch ${b}: half a batch (kv ${a !== undefined}, ev ${e !== undefined})`,
      ).toBe(e !== undefined);
      if (s.acked) expect(a, `round ${round}, batch ${b}: acknowledged batch lost`).toBeDefined();
      else {
        inFlight.writes++;
        if (a) inFlight.committed++;
      }
      if (a) {
        expect(a.payload).toBe(batchPayload(b));
        expect(e).toBe(batchPayload(b));
        s.acked = true;
      } else batches.delete(b);
    }
    // Nothing that was never sent.
    for (const k of kv.keys()) {
      expect(keys.has(k) || batches.has(k), `round ${round}: key ${k} was never written`).toBe(true);
    }
    for (const c of ev.keys()) expect(batches.has(c), `round ${round}: ev row ${c} was never written`).toBe(true);
    return kv.size;
  };

  /** Writes until `stop` is set; returns how many writes were acknowledged and any error seen before the kill. */
  const worker = async (
    w: number,
    client: cassandra.Client,
    stmts: { insert: string; update: string; batchKv: string; batchEv: string },
    stop: { killed: boolean },
    errors: string[],
  ): Promise<number> => {
    let acked = 0;
    const mine = owned[w]!;
    while (!stop.killed) {
      const r = Math.random();
      try {
        if (r < 0.1) {
          const b = nextBatch++;
          const state: BatchState = { acked: false };
          batches.set(b, state);
          await client.batch(
            [
              { query: stmts.batchKv, params: [b, 0, batchPayload(b)] },
              { query: stmts.batchEv, params: [b % 8, b, batchPayload(b)] },
            ],
            { prepare: true, logged: true },
          );
          state.acked = true;
        } else if (r < 0.55 || mine.length === 0) {
          const k = nextKey++;
          const state: KeyState = { acked: -1, sent: 0 };
          keys.set(k, state);
          mine.push(k);
          await client.execute(stmts.insert, [k, 0, payload(k, 0)], { prepare: true });
          state.acked = 0;
        } else {
          const at = Math.floor(Math.random() * mine.length);
          const k = mine[at]!;
          const state = keys.get(k);
          if (!state) {
            // Its INSERT was never acknowledged and it is not there: forgotten by verify().
            mine.splice(at, 1);
            continue;
          }
          const version = state.sent + 1;
          state.sent = version;
          await client.execute(stmts.update, [version, payload(k, version), k], { prepare: true });
          state.acked = version;
        }
        acked++;
      } catch (e) {
        if (!stop.killed) errors.push(String(e));
        return acked;
      }
    }
    return acked;
  };

  it(
    `every acknowledged write survives ${KILLS} SIGKILLs; batches are whole; the pool stays consistent`,
    async () => {
      const stmts = {
        insert: 'INSERT INTO crash.kv (k, v, payload) VALUES (?, ?, ?)',
        update: 'UPDATE crash.kv SET v = ?, payload = ? WHERE k = ?',
        batchKv: 'INSERT INTO crash.kv (k, v, payload) VALUES (?, ?, ?)',
        batchEv: 'INSERT INTO crash.ev (p, c, v) VALUES (?, ?, ?)',
      };
      let totalAcked = 0;
      let rows = 0;
      for (let round = 0; round <= KILLS; round++) {
        // The pool opened: the server said "ready", with the mode it runs in.
        const server = await start();
        expect(server.output()).toContain(`"mode":"${EMULATED ? 'emulated' : 'disk'}"`);
        if (JOURNAL) expect(server.output()).toContain('"sync":"journal"');
        const client = await connect(server);
        try {
          if (round === 0) {
            await client.execute(`CREATE KEYSPACE IF NOT EXISTS crash WITH replication = ${REPLICATION}`);
            await client.execute('CREATE TABLE IF NOT EXISTS crash.kv (k int PRIMARY KEY, v int, payload text)');
            await client.execute('CREATE TABLE IF NOT EXISTS crash.ev (p int, c int, v text, PRIMARY KEY (p, c))');
          } else {
            rows = await verify(client, round);
          }
          if (round === KILLS) {
            await client.shutdown();
            // Clean stop: the pool is closed before pmempool looks at it.
            expect(await server.stop('SIGTERM')).toBe(0);
            break;
          }
          const stop = { killed: false };
          const errors: string[] = [];
          const work = Array.from({ length: WORKERS }, (_, w) => worker(w, client, stmts, stop, errors));
          await new Promise((ok) => setTimeout(ok, 300 + Math.random() * 500));
          server.child.kill('SIGKILL');
          stop.killed = true;
          const acked = (await Promise.all(work)).reduce((a, b) => a + b, 0);
          await server.stop();
          if (JOURNAL && round % 2 === 1) {
            for (const f of readdirSync(shmDir)) rmSync(join(shmDir, f));
            reboots++;
          }
          expect(errors, `round ${round}: writes failed before the kill`).toEqual([]);
          totalAcked += acked;
        } finally {
          await client.shutdown().catch(() => {});
          if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
        }
      }
      console.log(
        `${KILLS} kills (${EMULATED ? 'emulated' : JOURNAL ? `disk journal, ${reboots} reboots` : 'disk'} mode): ` +
          `${totalAcked} writes acknowledged, ` +
          `${keys.size} keys and ${batches.size} batches in the end, ${rows} kv rows; ${inFlight.writes} writes ` +
          `were in flight at a kill, ${inFlight.committed} of them had committed`,
      );
      expect(totalAcked, 'the load acknowledged writes').toBeGreaterThan(KILLS);
      expect(rows).toBeGreaterThan(0);
      if (hasPmempool()) {
        const pool = JOURNAL ? shmPool() : join(dataDir, 'pmemcql.pool');
        const check = spawnSync('pmempool', ['check', '-v', pool], { encoding: 'utf8' });
        expect(check.status, check.stdout + check.stderr).toBe(0);
        expect(check.stdout + check.stderr).toMatch(/consistent/);
        expect(check.stdout + check.stderr).not.toMatch(/not consistent/);
      }
    },
    Math.max(180_000, KILLS * 10_000),
  );
});
