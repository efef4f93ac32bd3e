// Journaled disk pools on real files (docs/storage-native.md, "Durability of disk pools"): the working pool in the
// data directory, the image and two journal files next to it. A reopen in the same boot uses the working pool as
// it is; another boot id (a reboot) rebuilds it from image + journal; torn and damaged records are reported and
// never applied, nor anything after them; rotation and background checkpoints keep the journal short; group and
// batch hand out tickets that the sync thread redeems, periodic acknowledges at once unless syncs lag; pool files
// of builds without a journal are adopted and the /dev/shm journal of earlier builds is converted. Writer children
// SIGKILLed under every policy, most kills followed by a simulated power cut (test/support/power-cut.ts), lose
// nothing the policy promised and never leave half a batch.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openPool } from '../storage/native-binding.js';
import type { CommitLogSync, NativePool, PoolError } from '../storage/native-pool.js';
import { runUntilKilled, writeBindingModules } from './support/killed-child.js';
import { powerCut } from './support/power-cut.js';
import { seededRandom } from './support/seeded-random.js';

delete process.env.PMEM_IS_PMEM_FORCE;
delete process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES;
delete process.env.PMEMCQL_BOOT_ID;

const MiB = 1024 * 1024;
const SEED = Number(process.env.JOURNAL_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = Number(process.env.JOURNAL_CRASH_ROUNDS ?? 9);
const work = mkdtempSync(join(tmpdir(), 'pmemcql-journal-'));
const ADDON = resolve('native/build/Release/pmemcql_native.node');
let seq = 0;

afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.PMEMCQL_BOOT_ID;
  delete process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES;
});

function fresh(): { path: string; dir: string } {
  const dir = join(work, `d${seq++}`);
  mkdirSync(dir);
  return { path: join(dir, 'pmemcql.pool'), dir };
}

/** A reboot, as far as the next open can tell: another boot id. */
function reboot(): void {
  process.env.PMEMCQL_BOOT_ID = randomUUID();
}

const b = (s: string) => Buffer.from(s);

/** Every entry of the pool, child maps flattened as path/key, in order. */
function dump(pool: NativePool, map = pool.root, prefix = ''): string[] {
  const out: string[] = [];
  const s = pool.scan(map);
  for (let i = 0; i < s.keys.length; i++) {
    const k = prefix + s.keys[i]!.toString('hex');
    if (s.children[i]) out.push(`${k}/`, ...dump(pool, s.children[i]!, `${k}/`));
    else out.push(`${k}=${s.values[i]!.toString('hex')}`);
  }
  return out;
}

/** Random batches: puts into the root and a child map, deletes of earlier keys. */
function writeBatches(pool: NativePool, batches: number, salt: string, random = Math.random): void {
  for (let n = 0; n < batches; n++) {
    const batch = pool.batch();
    const child = batch.ensureChild(pool.root, b('child'));
    for (let i = 0; i < 40; i++) {
      const k = Math.floor(random() * 2000);
      batch.put(i % 2 ? pool.root : child, b(`k${k}`), Buffer.alloc(20 + (k % 300), `${salt}${n}`));
      if (i % 7 === 0) batch.del(pool.root, b(`k${Math.floor(random() * 2000)}`));
    }
    pool.apply(batch);
  }
}

function hasPmempool(): boolean {
  return spawnSync('pmempool', ['--version']).status === 0;
}

function expectPmempoolCheck(file: string): void {
  if (!hasPmempool()) return;
  const check = spawnSync('pmempool', ['check', file], { encoding: 'utf8' });
  expect(check.status, check.stdout + check.stderr).toBe(0);
}

/** Waits (polling the pool's own counters) until `done` holds; fails after `ms`. */
async function waitFor(what: string, done: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 5));
  }
}

function durable(pool: NativePool, ticket: number): Promise<void> {
  return new Promise((ok, fail) => pool.whenDurable(ticket, (err) => (err ? fail(err) : ok())));
}

/** legacyJournalHash of native/src/journal-format.cc (the journal of earlier builds), for crafting records. */
function legacyJournalHash(buf: Buffer): bigint {
  const M = (1n << 64n) - 1n;
  const k1 = 0x87c37b91114253d5n;
  const k2 = 0x4cf5ad432745937fn;
  let h = 0x9e3779b97f4a7c15n ^ ((BigInt(buf.length) * k1) & M);
  let i = 0;
  for (; i + 8 <= buf.length; i += 8) {
    h ^= (buf.readBigUInt64LE(i) * k1) & M;
    h = ((((h << 31n) | (h >> 33n)) & M) * k2) & M;
  }
  let tail = 0n;
  for (let j = buf.length - 1; j >= i; j--) tail = (tail << 8n) | BigInt(buf[j]!);
  h ^= (tail * k2) & M;
  h ^= h >> 33n;
  h = (h * 0xff51afd7ed558ccdn) & M;
  h ^= h >> 33n;
  h = (h * 0xc4ceb9fe1a85ec53n) & M;
  h ^= h >> 33n;
  return h;
}

/** Offsets and lengths of the records of a journal file (header skipped), as the format says. */
function records(file: string): { at: number; bytes: number }[] {
  const buf = readFileSync(file);
  const out: { at: number; bytes: number }[] = [];
  for (let at = 64; at + 48 <= buf.length; ) {
    const bytes = Number(buf.readBigUInt64LE(at + 32));
    if (bytes < 48 || at + bytes > buf.length) break;
    out.push({ at, bytes });
    at += bytes;
  }
  return out;
}

/** Runs a script with the real binding in a child process; returns its stdout. */
function runChild(dir: string, script: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  writeBindingModules(dir);
  const file = join(dir, `script-${seq++}.js`);
  writeFileSync(file, script);
  const r = spawnSync(process.execPath, [file, ...args], {
    env: { ...process.env, PMEMCQL_NATIVE_ADDON: ADDON, ...env },
    encoding: 'utf8',
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r.stdout;
}

describe('journaled disk pools', () => {
  it('creates image and journal; reopens the working pool as is; another boot rebuilds the same contents', () => {
    const { path, dir } = fresh();
    let pool = openPool({ path, size: 16 * MiB });
    expect(pool.info).toMatchObject({ path, mode: 'disk', sync: 'periodic', image: join(dir, 'pmemcql.image') });
    expect(pool.info.recovery!.action).toBe('created');
    expect(pool.info.commitLog).toMatchObject({ periodMs: 10_000, lagBlockMs: 15_000 });
    expect(existsSync(join(dir, 'pmemcql.journal-0'))).toBe(true);
    writeBatches(pool, 30, 'a');
    const before = dump(pool);
    expect(before.length).toBeGreaterThan(100);
    expect(statSync(join(dir, 'pmemcql.journal-0')).size).toBeGreaterThan(30 * 40 * 20);
    let busy: unknown;
    try {
      openPool({ path });
    } catch (e) {
      busy = e;
    }
    expect((busy as PoolError).code).toBe('POOL_BUSY');
    pool.close();

    const ino = statSync(path).ino;
    pool = openPool({ path });
    expect(pool.info.recovery).toMatchObject({ action: 'opened', problems: [] });
    expect(statSync(path).ino, 'the working pool is used as it is').toBe(ino);
    expect(dump(pool)).toEqual(before);
    pool.close();

    reboot();
    pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('rebuilt');
    expect(pool.info.recovery!.reason).toMatch(/another boot/);
    expect(pool.info.recovery!.replayedRecords).toBeGreaterThanOrEqual(30);
    expect(dump(pool)).toEqual(before);
    writeBatches(pool, 10, 'b');
    const after = dump(pool);
    pool.close();
    reboot();
    pool = openPool({ path });
    expect(dump(pool)).toEqual(after);
    pool.close();
    expectPmempoolCheck(path);
  });

  it('keeps a reserved value filled in slices across a reboot (each fill is a journal record)', () => {
    const { path, dir } = fresh();
    let pool = openPool({ path, size: 16 * MiB });
    const big = Buffer.alloc(MiB + 99);
    for (let i = 0; i < big.length; i++) big[i] = (i * 13) & 255;
    pool.apply(pool.batch().reserve(pool.root, b('seg'), big.length));
    for (let at = 0; at < big.length; at += 100_000) pool.fill(pool.root, b('seg'), at, big.subarray(at, at + 100_000));
    expect(statSync(join(dir, 'pmemcql.journal-0')).size).toBeGreaterThan(big.length);
    pool.close();
    reboot();
    pool = openPool({ path });
    expect(pool.get(pool.root, b('seg'))!.equals(big)).toBe(true);
    pool.close();
  });

  it('reports a torn last record and reopens at the commit before it', () => {
    const { path, dir } = fresh();
    const journal = join(dir, 'pmemcql.journal-0');
    let pool = openPool({ path, size: 16 * MiB });
    writeBatches(pool, 5, 'a');
    pool.apply(pool.batch().put(pool.root, b('first'), b('1')));
    const atFirst = dump(pool);
    pool.apply(pool.batch().put(pool.root, b('second'), b('2')));
    pool.close();
    truncateSync(journal, statSync(journal).size - 3);
    // Same boot, but the working pool holds "second" and the journal's tail is torn: rebuilt without it.
    pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('rebuilt');
    expect(pool.info.recovery!.problems.join('\n')).toMatch(/pmemcql\.journal-0: record at byte \d+ is cut short/);
    expect(dump(pool)).toEqual(atFirst);
    pool.apply(pool.batch().put(pool.root, b('third'), b('3')));
    const atThird = dump(pool);
    pool.close();
    reboot();
    pool = openPool({ path });
    expect(pool.info.recovery!.problems, 'the torn tail was cut off before "third" was appended').toEqual([]);
    expect(dump(pool)).toEqual(atThird);
    pool.close();
  });

  it('detects a damaged record by its checksum: neither it nor any later record is applied', () => {
    const { path, dir } = fresh();
    const journal = join(dir, 'pmemcql.journal-0');
    let pool = openPool({ path, size: 16 * MiB });
    writeBatches(pool, 5, 'a');
    const atGood = dump(pool);
    pool.apply(pool.batch().put(pool.root, b('damaged'), b('x')));
    pool.apply(pool.batch().put(pool.root, b('after'), b('y')));
    pool.close();
    const recs = records(journal);
    const victim = recs[recs.length - 2]!;
    const bytes = readFileSync(journal);
    bytes[victim.at + 48] = bytes[victim.at + 48]! ^ 0x40;
    writeFileSync(journal, bytes);
    reboot();
    pool = openPool({ path });
    expect(pool.info.recovery!.problems.join('\n')).toContain(`record at byte ${victim.at} fails its checksum`);
    expect(pool.get(pool.root, b('damaged'))).toBeUndefined();
    expect(pool.get(pool.root, b('after')), 'a whole record after a damaged one is not applied').toBeUndefined();
    expect(dump(pool)).toEqual(atGood);
    pool.close();
  });

  it('does not apply a record that breaks the commit sequence (a stale copy after the end)', () => {
    const { path, dir } = fresh();
    const journal = join(dir, 'pmemcql.journal-0');
    let pool = openPool({ path, size: 16 * MiB });
    pool.apply(pool.batch().put(pool.root, b('k'), b('old')));
    pool.apply(pool.batch().put(pool.root, b('k'), b('new')));
    pool.close();
    // The first data record again, whole and checksummed, after the last one: an earlier commit's bytes.
    const recs = records(journal);
    const first = recs.find((r) =>
      readFileSync(journal)
        .subarray(r.at, r.at + r.bytes)
        .includes(b('old')),
    )!;
    const bytes = readFileSync(journal);
    writeFileSync(journal, Buffer.concat([bytes, bytes.subarray(first.at, first.at + first.bytes)]));
    reboot();
    pool = openPool({ path });
    expect(pool.info.recovery!.problems.join('\n')).toMatch(/breaks the commit sequence/);
    expect(pool.get(pool.root, b('k'))).toEqual(b('new'));
    pool.close();
  });

  it('rebuilds when the working pool is one commit ahead of the journal (a crash before its record was written)', () => {
    const { path, dir } = fresh();
    const journal = join(dir, 'pmemcql.journal-0');
    let pool = openPool({ path, size: 16 * MiB });
    writeBatches(pool, 5, 'a');
    const atFirst = dump(pool);
    const size = statSync(journal).size;
    pool.apply(pool.batch().put(pool.root, b('unacknowledged'), b('x')));
    pool.close();
    truncateSync(journal, size); // exactly the last record gone: only the commit sequence tells
    pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('rebuilt');
    expect(pool.info.recovery!.reason).toMatch(/working pool is at commit \d+, the journal at \d+/);
    expect(pool.get(pool.root, b('unacknowledged'))).toBeUndefined();
    expect(dump(pool)).toEqual(atFirst);
    pool.close();
  });

  it('rotates the journal files and checkpoints them into the image in the background', async () => {
    const { path, dir } = fresh();
    process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES = String(64 * 1024);
    const pool = openPool({ path, size: 16 * MiB });
    expect(pool.info.commitLog!.checkpointBytes).toBe(64 * 1024);
    const random = seededRandom(SEED);
    const image = readFileSync(join(dir, 'pmemcql.image'));
    let sawSecondFile = false;
    // Writes go on while the checkpoints run (a rotation waits for the previous checkpoint to end).
    for (let i = 0; pool.info.journal!.checkpoints < 3; i++) {
      expect(i, 'three checkpoints within 5000 batches').toBeLessThan(5000);
      writeBatches(pool, 1, `c${i}`, random);
      if (statSync(join(dir, 'pmemcql.journal-1')).size > 0) sawSecondFile = true;
      await new Promise((ok) => setImmediate(ok));
    }
    expect(sawSecondFile, 'records went to the second file after a rotation').toBe(true);
    await waitFor('the last checkpoint to end', () => !pool.info.journal!.checkpointRunning);
    expect(pool.info.journal!.checkpointError).toBeUndefined();
    expect(readFileSync(join(dir, 'pmemcql.image')).equals(image), 'the image moved on').toBe(false);
    expect(pool.info.journal!.bytes, 'the journal stays near the checkpoint size').toBeLessThan(3 * 64 * 1024);
    const before = dump(pool);
    pool.close();
    reboot();
    const again = openPool({ path });
    expect(again.info.recovery!.action).toBe('rebuilt');
    expect(again.info.recovery!.problems).toEqual([]);
    expect(dump(again)).toEqual(before);
    again.close();
    expectPmempoolCheck(path);
  });

  it('group and batch acknowledge through sync tickets; periodic at once, and syncs every period', async () => {
    for (const sync of ['group', 'batch'] as const) {
      const { path } = fresh();
      const pool = openPool({ path, size: 16 * MiB, commitLog: { sync, groupWindowMs: 5 } });
      expect(pool.info.sync).toBe(sync);
      const tickets: number[] = [];
      for (let i = 0; i < 20; i++) {
        pool.apply(pool.batch().put(pool.root, b(`k${i}`), b('v')));
        const t = pool.commitTicket();
        expect(t, `${sync}: a write waits for its sync`).toBeGreaterThan(0);
        tickets.push(t);
      }
      expect(tickets).toEqual([...tickets].sort((x, y) => x - y));
      await durable(pool, tickets[tickets.length - 1]!);
      const j = pool.info.journal!;
      expect(j.syncedLsn).toBeGreaterThanOrEqual(tickets[tickets.length - 1]!);
      expect(j.syncs).toBeGreaterThan(0);
      // Writes that arrive while a sync runs share the next one.
      expect(j.syncs, `${sync}: ${j.syncs} syncs for 20 writes`).toBeLessThanOrEqual(21);
      pool.close();
    }
    const { path } = fresh();
    const pool = openPool({ path, size: 16 * MiB, commitLog: { sync: 'periodic', periodMs: 50 } });
    pool.apply(pool.batch().put(pool.root, b('k'), b('v')));
    expect(pool.commitTicket(), 'periodic: acknowledged at once').toBe(0);
    const written = pool.info.journal!.writtenLsn;
    await waitFor('a periodic sync', () => pool.info.journal!.syncedLsn >= written);
    pool.close();
  });

  it('makes periodic writes wait once syncs lag past periodic_commitlog_sync_lag_block', async () => {
    const { path } = fresh();
    const pool = openPool({ path, size: 16 * MiB, commitLog: { sync: 'periodic', periodMs: 400, lagBlockMs: 100 } });
    // Right after open: the last sync "started" at open, so no lag yet.
    pool.apply(pool.batch().put(pool.root, b('early'), b('v')));
    expect(pool.commitTicket()).toBe(0);
    await new Promise((ok) => setTimeout(ok, 150)); // the lag itself, not an event to wait for
    pool.apply(pool.batch().put(pool.root, b('late'), b('v')));
    const t = pool.commitTicket();
    expect(t, 'past the lag block a periodic write waits for the next sync').toBeGreaterThan(0);
    await durable(pool, t);
    expect(pool.info.journal!.syncedLsn).toBeGreaterThanOrEqual(t);
    pool.close();
  });

  it('adopts a pool file written without a journal (its image is made first)', () => {
    const { path, dir } = fresh();
    runChild(
      join(work, 'adopt-child'),
      `import { openPool } from './native-binding.js';
const pool = openPool({ path: process.argv[2], size: 16 * 1024 * 1024 });
const b = pool.batch();
for (let i = 0; i < 500; i++) b.put(pool.root, Buffer.from('old' + i), Buffer.alloc(50, i & 255));
pool.apply(b);
console.log(pool.info.mode);
pool.close();
`,
      [path],
      { PMEM_IS_PMEM_FORCE: '1' },
    );
    expect(existsSync(join(dir, 'pmemcql.image'))).toBe(false);
    let pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('adopted');
    expect(existsSync(join(dir, 'pmemcql.image'))).toBe(true);
    expect(pool.count(pool.root)).toBe(500);
    pool.apply(pool.batch().put(pool.root, b('new'), b('v')));
    const before = dump(pool);
    pool.close();
    reboot();
    pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('rebuilt');
    expect(dump(pool)).toEqual(before);
    pool.close();
    // And the other way round: emulated mode refuses a journaled pool instead of writing past its journal.
    const out = runChild(
      join(work, 'adopt-child'),
      `import { openPool } from './native-binding.js';
try { openPool({ path: process.argv[2] }); console.log('opened'); } catch (e) { console.log(e.code + ' ' + e.message); }
`,
      [path],
      { PMEM_IS_PMEM_FORCE: '1' },
    );
    expect(out).toMatch(/^POOL_OPEN .*journaled/);
  });

  it('converts the /dev/shm journal of an earlier build: its valid records go into the image, a torn one does not', () => {
    const { path, dir } = fresh();
    runChild(
      join(work, 'legacy-child'),
      `import { openPool } from './native-binding.js';
const pool = openPool({ path: process.argv[2], size: 16 * 1024 * 1024 });
pool.apply(pool.batch().put(pool.root, Buffer.from('legacy'), Buffer.from('marker-AAAAAAAAAAAA')));
pool.close();
`,
      [path],
      { PMEM_IS_PMEM_FORCE: '1' },
    );
    // That build's layout: the image, a journal of "PCQLJRN1" records, no pool file in the data directory.
    renameSync(path, join(dir, 'pmemcql.image'));
    const image = readFileSync(join(dir, 'pmemcql.image'));
    const at = image.indexOf(b('marker-AAAAAAAAAAAA'));
    expect(at).toBeGreaterThan(0);
    const legacyRecord = (offset: number, bytes: Buffer): Buffer => {
      const r = Buffer.alloc(32 + 12 + bytes.length + 8);
      r.writeBigUInt64LE(0x314e524a4c514350n, 0);
      r.writeBigUInt64LE(7n, 8);
      r.writeUInt32LE(1, 16);
      r.writeBigUInt64LE(BigInt(r.length), 24);
      r.writeBigUInt64LE(BigInt(offset), 32);
      r.writeUInt32LE(bytes.length, 40);
      bytes.copy(r, 44);
      r.writeBigUInt64LE(legacyJournalHash(r.subarray(0, r.length - 8)), r.length - 8);
      return r;
    };
    const good = legacyRecord(at, b('marker-BBBBBBBBBBBB'));
    const torn = legacyRecord(at, b('marker-CCCCCCCCCCCC')).subarray(0, 40);
    writeFileSync(join(dir, 'pmemcql.journal'), Buffer.concat([good, torn]));
    let pool = openPool({ path });
    expect(pool.info.recovery!.action).toBe('converted');
    expect(pool.info.recovery!.problems.join('\n')).toMatch(/pmemcql\.journal: record at byte \d+ is torn/);
    expect(pool.get(pool.root, b('legacy'))).toEqual(b('marker-BBBBBBBBBBBB'));
    expect(existsSync(join(dir, 'pmemcql.journal'))).toBe(false);
    pool.close();
    reboot();
    pool = openPool({ path });
    expect(pool.get(pool.root, b('legacy'))).toEqual(b('marker-BBBBBBBBBBBB'));
    pool.close();
  });

  describe('SIGKILL and power cuts under every policy', () => {
    const childDir = join(work, 'writer');
    // Continues from the last batch found; batch n puts 50 keys and deletes batch n-20's; prints "ack n <ms>" once
    // the batch may be acknowledged under the policy (after its sync for group and batch).
    const prepareChild = () => {
      writeBindingModules(childDir);
      writeFileSync(
        join(childDir, 'writer.js'),
        `import { openPool } from './native-binding.js';
const [path, sync, periodMs] = process.argv.slice(2);
const pool = openPool({ path, size: 32 * 1024 * 1024, commitLog: { sync, periodMs: Number(periodMs), groupWindowMs: 2 } });
process.stdout.write('open ' + pool.info.recovery.action + ' sync ' + pool.info.sync + '\\n');
const key = (n, i) => Buffer.from('b' + String(n).padStart(8, '0') + ':' + String(i).padStart(2, '0'));
const lastBuf = pool.get(pool.root, Buffer.from('last'));
const start = lastBuf ? lastBuf.readDoubleLE(0) + 1 : 0;
for (let n = start; ; n++) {
  const batch = pool.batch();
  const data = batch.ensureChild(pool.root, Buffer.from('data'));
  for (let i = 0; i < 50; i++) batch.put(data, key(n, i), Buffer.alloc(100 + i, n & 255));
  if (n >= 20) for (let i = 0; i < 50; i++) batch.del(data, key(n - 20, i));
  const last = Buffer.alloc(8);
  last.writeDoubleLE(n);
  batch.put(pool.root, Buffer.from('last'), last);
  pool.apply(batch);
  const ticket = pool.commitTicket();
  if (ticket) await new Promise((ok, fail) => pool.whenDurable(ticket, (e) => (e ? fail(e) : ok())));
  process.stdout.write('ack ' + n + ' ' + Date.now() + '\\n');
  if (n === start + 10) process.stdout.write('ready\\n');
}
`,
      );
    };

    it.each(['periodic', 'group', 'batch'] as CommitLogSync[])(
      '%s: nothing the policy promised is lost, batches stay whole, the pool always opens',
      async (sync) => {
        prepareChild();
        const { path, dir } = fresh();
        const syncLog = join(dir, 'sync.log');
        const random = seededRandom(SEED + sync.length);
        let bootId = randomUUID();
        let cuts = 0;
        let lostBytes = 0;
        let acksAfterLastSync = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const checkpointBytes = round % 2 ? 128 * 1024 : 64 * MiB;
          const periodMs = 20 + Math.floor(random() * 150);
          const env: NodeJS.ProcessEnv = {
            ...process.env,
            PMEMCQL_NATIVE_ADDON: ADDON,
            PMEMCQL_JOURNAL_CHECKPOINT_BYTES: String(checkpointBytes),
            PMEMCQL_JOURNAL_SYNC_LOG: syncLog,
            PMEMCQL_BOOT_ID: bootId,
          };
          const out = await runUntilKilled(join(childDir, 'writer.js'), [path, sync, String(periodMs)], env, {
            startTimeoutMs: 20_000,
            minMs: 50,
            jitterMs: 300,
          });
          expect(out).toContain(`sync ${sync}`);
          const acks = [...out.matchAll(/ack (\d+) (\d+)\n/g)].map((m) => ({ n: Number(m[1]), ms: Number(m[2]) }));
          const acked = acks[acks.length - 1]!.n;
          // What must survive: every ack (group, batch); for periodic those acknowledged before the last completed
          // sync began. Without a power cut (a process crash only), every ack.
          let mustHave = acked;
          let what = 'SIGKILL';
          if (round % 3 !== 0) {
            const cut = powerCut(dir, 'pmemcql', syncLog, random);
            bootId = cut.bootId;
            cuts++;
            lostBytes += cut.lostBytes;
            what = `power cut: ${cut.done.join('; ') || 'nothing unsynced'}`;
            if (sync === 'periodic') {
              const before = acks.filter((a) => cut.lastSyncStartMs !== undefined && a.ms < cut.lastSyncStartMs);
              mustHave = before.length > 0 ? before[before.length - 1]!.n : -1;
              acksAfterLastSync += acked - mustHave;
            }
          }
          process.env.PMEMCQL_BOOT_ID = bootId;
          const pool = openPool({ path });
          try {
            const where = `${sync}, seed ${SEED}, round ${round} (${what})`;
            expect(pool.info.recovery!.action, where).toMatch(/opened|rebuilt/);
            const last = pool.get(pool.root, b('last'))!.readDoubleLE(0);
            expect(last, `${where}: batch ${mustHave} was promised`).toBeGreaterThanOrEqual(mustHave);
            expect(last, `${where}: at most the batch in flight beyond the last ack`).toBeLessThanOrEqual(acked + 1);
            const data = pool.getChild(pool.root, b('data'));
            const live = Math.min(last + 1, 20);
            expect(pool.count(data), where).toBe(live * 50);
            const s = pool.scan(data);
            const first = last + 1 - live;
            for (let j = 0; j < s.keys.length; j++) {
              const n = first + Math.floor(j / 50);
              const i = j % 50;
              expect(s.keys[j]!.toString(), where).toBe(`b${String(n).padStart(8, '0')}:${String(i).padStart(2, '0')}`);
              expect(s.values[j]!.equals(Buffer.alloc(100 + i, n & 255)), where).toBe(true);
            }
          } finally {
            pool.close();
          }
          expectPmempoolCheck(path);
        }
        expect(cuts).toBeGreaterThan(1);
        console.log(
          `${sync}: ${ROUNDS} SIGKILLs, ${cuts} followed by a power cut losing ${lostBytes} unsynced journal bytes` +
            (sync === 'periodic'
              ? `; ${acksAfterLastSync} batches acknowledged after the last sync were at risk`
              : '') +
            ` (seed ${SEED})`,
        );
      },
      120_000,
    );
  });
});
