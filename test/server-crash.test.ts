// Killing the server at any moment, or cutting its power, loses nothing its commitlog_sync promised and never leaves
// the pool unopenable: a real server process — a journaled pool in a directory on disk under
// CRASH_SYNC (periodic, the default, group or batch; `emulated`: pmem emulated on /dev/shm) — under continuous write
// load from the DataStax driver — concurrent prepared INSERTs and UPDATEs and logged BATCHes over two tables — is
// killed with SIGKILL at random moments, CRASH_KILLS times, on the same data directory. Every other kill is
// followed by a simulated power cut (test/support/power-cut.ts; not in emulated mode): the journal files lose a
// random part of what no completed fdatasync covered, the working pool gets garbage pages, and the server restarts
// under another boot id, so it must rebuild the pool from its image and journal. After each restart:
//   - a write acknowledged before the last completed sync began reads back (group, batch: every acknowledged write;
//     after a SIGKILL alone: every acknowledged write, whatever the policy);
//   - a write never sent is never there, each batch is all or nothing;
//   - the pool opens, and at the end `pmempool check` (when on PATH) passes.
//
// Model: every key is written by one worker, one statement at a time: version 0 by an INSERT, versions 1, 2, ... by
// UPDATEs. So after a restart a key holds a version between the last one that was promised and the last one sent.
// A batch writes kv (k) and ev (p, c) with its own keys: both rows or neither, and both when promised.
// CRASH_SEED repeats a run's random choices (the kill timing and the interleaving vary anyway).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { type PowerCut, powerCut } from './support/power-cut.js';
import { readAllPages } from './support/read-all-pages.js';
import { seededRandom } from './support/seeded-random.js';
import { type ServerProcess, startServer } from './support/server-process.js';

const root = resolve(import.meta.dirname, '..');
const ready =
  existsSync(join(root, 'dist/server/main.js')) && existsSync(join(root, 'native/build/Release/pmemcql_native.node'));
const KILLS = Number(process.env.CRASH_KILLS ?? 12);
const SYNC = process.env.CRASH_SYNC ?? 'periodic';
const EMULATED = SYNC === 'emulated';
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 8;
const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

const random = seededRandom(SEED);

interface KeyState {
  /** Highest version whose write was acknowledged (-1: none). */
  acked: number;
  /** Highest version sent (its write may or may not have happened). */
  sent: number;
  /** Acknowledged versions and when (ms since the epoch), for what a power cut may take. */
  acks: { v: number; ms: number }[];
}

interface BatchState {
  /** When it was acknowledged (undefined: not yet). */
  ackedMs: number | undefined;
}

const payload = (k: number, version: number) => `p-${k}-${version}`;
const batchPayload = (b: number) => `b-${b}`;
const BATCH_BASE = 1_000_000_000;

function hasPmempool(): boolean {
  return spawnSync('pmempool', ['--version']).status === 0;
}

describe.skipIf(!ready)(`server crash and power-cut safety under client load (${SYNC})`, () => {
  const dataDir = mkdtempSync(join(EMULATED && existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-srvcrash-'));
  const syncLog = join(dataDir, 'sync.log');
  const keys = new Map<number, KeyState>();
  const batches = new Map<number, BatchState>();
  let nextKey = 0;
  let nextBatch = BATCH_BASE;
  /** The keys each worker owns (one writer per key, across rounds). */
  const owned: number[][] = Array.from({ length: WORKERS }, () => []);
  /** Writes in flight at a kill (sent, not acknowledged), and how many of them had committed. */
  const inFlight = { writes: 0, committed: 0 };
  const totals = { cuts: 0, lostBytes: 0, rebuilt: 0, notPromised: 0, lostNotPromised: 0, tornReported: 0 };
  let bootId: string | undefined;

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const start = (periodMs: number) =>
    startServer({
      dataDir,
      args: ['--pool-size', '64MiB'],
      env: {
        PMEM_IS_PMEM_FORCE: EMULATED ? '1' : '0',
        ...(EMULATED
          ? {}
          : {
              PMEMCQL_COMMITLOG_SYNC: SYNC,
              ...(SYNC === 'periodic' ? { PMEMCQL_COMMITLOG_SYNC_PERIOD: `${periodMs}ms` } : {}),
              PMEMCQL_JOURNAL_SYNC_LOG: syncLog,
              // Checkpoints often, so kills and power cuts land in them too.
              PMEMCQL_JOURNAL_CHECKPOINT_BYTES: String(256 * 1024),
              ...(bootId ? { PMEMCQL_BOOT_ID: bootId } : {}),
            }),
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

  /**
   * Reads both tables and checks them against the model, where a write acknowledged at or after `promisedBefore`
   * (ms since the epoch) may be lost; then the model adopts what is there.
   */
  const verify = async (client: cassandra.Client, round: number, promisedBefore: number): Promise<number> => {
    const kv = new Map<number, { v: number; payload: string }>();
    for (const row of await readAllPages(client, 'SELECT k, v, payload FROM crash.kv')) {
      kv.set(row.k as number, { v: row.v as number, payload: row.payload as string });
    }
    const ev = new Map<number, string>();
    for (const row of await readAllPages(client, 'SELECT p, c, v FROM crash.ev')) {
      expect(row.p, `round ${round}: ev row in the wrong partition`).toBe((row.c as number) % 8);
      ev.set(row.c as number, row.v as string);
    }
    const where = (k: number) => `seed ${SEED}, round ${round}, key ${k}`;
    for (const [k, s] of keys) {
      const row = kv.get(k);
      const promised = s.acks.filter((a) => a.ms < promisedBefore);
      const must = promised.length > 0 ? promised[promised.length - 1]!.v : -1;
      const lastAck = s.acks.length > 0 ? s.acks[s.acks.length - 1]!.v : -1;
      if (lastAck > must) totals.notPromised++;
      if (s.sent > s.acked) {
        inFlight.writes++;
        if (row && row.v === s.sent) inFlight.committed++;
      }
      if (!row) {
        expect(must, `${where(k)}: version ${must} was promised and is lost (acknowledged ${s.acked})`).toBe(-1);
        if (lastAck >= 0) totals.lostNotPromised++;
        keys.delete(k); // not there and nothing promised: as if never sent
        continue;
      }
      expect(row.v, `${where(k)}: version ${row.v}, promised ${must}, acknowledged ${s.acked}`).toBeGreaterThanOrEqual(
        Math.max(must, 0),
      );
      expect(row.v, `${where(k)}: version ${row.v} was never sent (sent ${s.sent})`).toBeLessThanOrEqual(s.sent);
      expect(row.payload, `${where(k)}: payload`).toBe(payload(k, row.v));
      if (row.v < lastAck) totals.lostNotPromised++;
      s.acked = s.sent = row.v;
      s.acks = s.acks.filter((a) => a.v <= row.v);
    }
    for (const [b, s] of batches) {
      const a = kv.get(b);
      const e = ev.get(b);
      expect(
        a !== undefined,
        `seed ${SEED}, round ${round}, batch ${b}: half a batch (kv ${a !== undefined}, ev ${e !== undefined})`,
      ).toBe(e !== undefined);
      if (s.ackedMs !== undefined && s.ackedMs < promisedBefore) {
        expect(a, `seed ${SEED}, round ${round}, batch ${b}: promised batch lost`).toBeDefined();
      } else if (s.ackedMs === undefined) {
        inFlight.writes++;
        if (a) inFlight.committed++;
      }
      if (a) {
        expect(a.payload).toBe(batchPayload(b));
        expect(e).toBe(batchPayload(b));
        s.ackedMs ??= Number.POSITIVE_INFINITY; // there now, but never acknowledged: promised by nobody
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
      const r = random();
      try {
        if (r < 0.1) {
          const b = nextBatch++;
          const state: BatchState = { ackedMs: undefined };
          batches.set(b, state);
          await client.batch(
            [
              { query: stmts.batchKv, params: [b, 0, batchPayload(b)] },
              { query: stmts.batchEv, params: [b % 8, b, batchPayload(b)] },
            ],
            { prepare: true, logged: true },
          );
          state.ackedMs = Date.now();
        } else if (r < 0.55 || mine.length === 0) {
          const k = nextKey++;
          const state: KeyState = { acked: -1, sent: 0, acks: [] };
          keys.set(k, state);
          mine.push(k);
          await client.execute(stmts.insert, [k, 0, payload(k, 0)], { prepare: true });
          state.acked = 0;
          state.acks.push({ v: 0, ms: Date.now() });
        } else {
          const at = Math.floor(random() * mine.length);
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
          state.acks.push({ v: version, ms: Date.now() });
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
    `every promised write survives ${KILLS} SIGKILLs${EMULATED ? '' : ' and power cuts'}; batches are whole; the pool stays consistent`,
    async () => {
      const stmts = {
        insert: 'INSERT INTO crash.kv (k, v, payload) VALUES (?, ?, ?)',
        update: 'UPDATE crash.kv SET v = ?, payload = ? WHERE k = ?',
        batchKv: 'INSERT INTO crash.kv (k, v, payload) VALUES (?, ?, ?)',
        batchEv: 'INSERT INTO crash.ev (p, c, v) VALUES (?, ?, ?)',
      };
      let totalAcked = 0;
      let rows = 0;
      let promisedBefore = Number.POSITIVE_INFINITY;
      let lastCut: PowerCut | undefined;
      for (let round = 0; round <= KILLS; round++) {
        const periodMs = 30 + Math.floor(random() * 200);
        const server = await start(periodMs);
        const ready = server.readyLine();
        expect(ready.mode).toBe(EMULATED ? 'emulated' : 'disk');
        if (!EMULATED) expect(ready.commitlog_sync).toBe(SYNC);
        if (lastCut) {
          expect(ready.pool_open, 'a power cut always means a rebuild').toBe('rebuilt');
          totals.rebuilt++;
          if (server.output().includes('torn or damaged data found on open')) totals.tornReported++;
        }
        const client = await connect(server);
        try {
          if (round === 0) {
            await client.execute(`CREATE KEYSPACE IF NOT EXISTS crash WITH replication = ${REPLICATION}`);
            await client.execute('CREATE TABLE IF NOT EXISTS crash.kv (k int PRIMARY KEY, v int, payload text)');
            await client.execute('CREATE TABLE IF NOT EXISTS crash.ev (p int, c int, v text, PRIMARY KEY (p, c))');
          } else {
            rows = await verify(client, round, promisedBefore);
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
          await new Promise((ok) => setTimeout(ok, 300 + random() * 500)); // the burst the kill interrupts
          server.child.kill('SIGKILL');
          stop.killed = true;
          const acked = (await Promise.all(work)).reduce((a, b) => a + b, 0);
          await server.stop();
          expect(errors, `round ${round}: writes failed before the kill`).toEqual([]);
          totalAcked += acked;
          lastCut = undefined;
          promisedBefore = Number.POSITIVE_INFINITY;
          if (!EMULATED && round % 2 === 1) {
            lastCut = powerCut(dataDir, 'pmemcql', syncLog, random);
            bootId = lastCut.bootId;
            totals.cuts++;
            totals.lostBytes += lastCut.lostBytes;
            // group and batch acknowledge after the sync: everything acknowledged is promised.
            if (SYNC === 'periodic') promisedBefore = lastCut.lastSyncStartMs ?? Number.NEGATIVE_INFINITY;
          }
        } finally {
          await client.shutdown().catch(() => {});
          if (server.child.exitCode === null && server.child.signalCode === null) await server.stop('SIGKILL');
        }
      }
      console.log(
        `${KILLS} kills (${SYNC}, seed ${SEED}): ${totalAcked} writes acknowledged; ${totals.cuts} power cuts lost ` +
          `${totals.lostBytes} unsynced journal bytes, ${totals.rebuilt} rebuilds, ${totals.tornReported} of them ` +
          `reported torn records; ${totals.notPromised} keys had acknowledged writes not yet promised at a power cut, ` +
          `${totals.lostNotPromised} of them lost those; ${keys.size} keys and ${batches.size} batches in the end, ${rows} kv ` +
          `rows; ${inFlight.writes} writes were in flight at a kill, ${inFlight.committed} of them had committed`,
      );
      expect(totalAcked, 'the load acknowledged writes').toBeGreaterThan(KILLS);
      expect(rows).toBeGreaterThan(0);
      if (!EMULATED) expect(totals.cuts).toBeGreaterThan(0);
      if (hasPmempool()) {
        const check = spawnSync('pmempool', ['check', '-v', join(dataDir, 'pmemcql.pool')], { encoding: 'utf8' });
        expect(check.status, check.stdout + check.stderr).toBe(0);
        expect(check.stdout + check.stderr).toMatch(/consistent/);
        expect(check.stdout + check.stderr).not.toMatch(/not consistent/);
      }
    },
    Math.max(180_000, KILLS * 12_000),
  );
});
