// PMEMCQL_DISK_SYNC=journal on real files: the working pool in /dev/shm, image + journal on disk.
// Reopen with the shm pool intact uses it; without it ("reboot") the pool is rebuilt from image +
// journal; a torn last record is dropped; checkpoints keep the journal short; SIGKILLed writers
// (sometimes followed by a "reboot") lose no acknowledged batch and never leave half a batch.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPool } from '../storage/native-binding.js';
import { type NativePool, PoolError } from '../storage/native-pool.js';
import { runUntilKilled, writeBindingModules } from './support/killed-child.js';

// The policy is per process and read when the addon loads (first openPool below).
process.env.PMEMCQL_DISK_SYNC = 'journal';
delete process.env.PMEM_IS_PMEM_FORCE;
delete process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES;

const MiB = 1024 * 1024;
const hasShm = existsSync('/dev/shm');
const work = mkdtempSync(join(tmpdir(), 'pmemcql-journal-'));
// Working pools go to a directory of our own under /dev/shm (removed at the end), not /dev/shm itself.
const shmRoot = hasShm ? mkdtempSync('/dev/shm/pmemcql-jtest-') : '';
let seq = 0;

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (shmRoot) rmSync(shmRoot, { recursive: true, force: true });
});

/** A fresh data directory and shm directory; the shm one is what the addon uses from now on. */
function fresh(): { path: string; dir: string; shmDir: string } {
  const dir = join(work, `d${seq}`);
  const shmDir = join(shmRoot, `s${seq++}`);
  mkdirSync(dir);
  mkdirSync(shmDir);
  process.env.PMEMCQL_JOURNAL_SHM_DIR = shmDir;
  return { path: join(dir, 'pmemcql.pool'), dir, shmDir };
}

/** The working pool file in `shmDir` (exactly one). */
function shmPool(shmDir: string): string {
  const files = readdirSync(shmDir).filter((f) => f.endsWith('.pool'));
  expect(files).toHaveLength(1);
  return join(shmDir, files[0]!);
}

/** A reboot: /dev/shm is gone. */
function reboot(shmDir: string): void {
  for (const f of readdirSync(shmDir)) rmSync(join(shmDir, f));
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
function writeBatches(pool: NativePool, batches: number, salt: string): void {
  for (let n = 0; n < batches; n++) {
    const batch = pool.batch();
    const child = batch.ensureChild(pool.root, b('child'));
    for (let i = 0; i < 40; i++) {
      const k = Math.floor(Math.random() * 2000);
      batch.put(i % 2 ? pool.root : child, b(`k${k}`), Buffer.alloc(20 + (k % 300), `${salt}${n}`));
      if (i % 7 === 0) batch.del(pool.root, b(`k${Math.floor(Math.random() * 2000)}`));
    }
    pool.apply(batch);
  }
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PoolError);
    return (e as PoolError).code;
  }
  return undefined;
}

function hasPmempool(): boolean {
  return spawnSync('pmempool', ['--version']).status === 0;
}

describe.skipIf(!hasShm)('native pool, PMEMCQL_DISK_SYNC=journal', () => {
  it('keeps data across reopen (fast, same shm pool) and across a reboot (rebuilt from image + journal)', () => {
    const { path, dir, shmDir } = fresh();
    let pool = openPool({ path, size: 16 * MiB });
    expect(pool.info).toMatchObject({ path, mode: 'disk', sync: 'journal' });
    expect(pool.info.workingFile).toBe(shmPool(shmDir));
    expect(existsSync(join(dir, 'pmemcql.image'))).toBe(true);
    expect(existsSync(path), 'nothing is mapped at the pool path itself').toBe(false);
    writeBatches(pool, 30, 'a');
    const before = dump(pool);
    expect(before.length).toBeGreaterThan(100);
    expect(statSync(join(dir, 'pmemcql.journal')).size).toBeGreaterThan(30 * 40 * 20);
    expect(codeOf(() => openPool({ path }))).toBe('POOL_BUSY');
    pool.close();

    const ino = statSync(shmPool(shmDir)).ino;
    pool = openPool({ path });
    expect(statSync(shmPool(shmDir)).ino, 'the intact shm pool is opened as is').toBe(ino);
    expect(dump(pool)).toEqual(before);
    pool.close();

    reboot(shmDir);
    pool = openPool({ path });
    expect(statSync(shmPool(shmDir)).ino).not.toBe(ino);
    expect(dump(pool)).toEqual(before);
    writeBatches(pool, 10, 'b');
    const after = dump(pool);
    pool.close();
    reboot(shmDir);
    pool = openPool({ path });
    expect(dump(pool)).toEqual(after);
    pool.close();
  });

  it('keeps a reserved value filled in slices across a reboot (each fill reaches the journal itself)', () => {
    const { path, dir, shmDir } = fresh();
    let pool = openPool({ path, size: 16 * MiB });
    const big = Buffer.alloc(MiB + 99, 0);
    for (let i = 0; i < big.length; i++) big[i] = (i * 13) & 255;
    pool.apply(pool.batch().reserve(pool.root, Buffer.from('seg'), big.length));
    for (let at = 0; at < big.length; at += 100_000)
      pool.fill(pool.root, Buffer.from('seg'), at, big.subarray(at, at + 100_000));
    const journal = statSync(join(dir, 'pmemcql.journal')).size;
    pool.close();
    expect(journal, 'the filled megabyte is in the journal before close').toBeGreaterThan(big.length);
    reboot(shmDir);
    pool = openPool({ path });
    expect(pool.get(pool.root, Buffer.from('seg'))!.equals(big)).toBe(true);
    pool.close();
  });

  it('drops a torn last journal record: reopens at the commit before it', () => {
    const { path, dir, shmDir } = fresh();
    const journal = join(dir, 'pmemcql.journal');
    let pool = openPool({ path, size: 16 * MiB });
    writeBatches(pool, 5, 'a');
    pool.apply(pool.batch().put(pool.root, b('first'), b('1')));
    const atFirst = dump(pool);
    pool.apply(pool.batch().put(pool.root, b('second'), b('2')));
    pool.close();
    truncateSync(journal, statSync(journal).size - 3);
    // The shm pool holds "second" (its sequence is ahead of the journal's): rebuilt without it.
    pool = openPool({ path });
    expect(dump(pool)).toEqual(atFirst);
    expect(pool.get(pool.root, b('second'))).toBeUndefined();
    pool.apply(pool.batch().put(pool.root, b('third'), b('3')));
    const atThird = dump(pool);
    pool.close();
    reboot(shmDir);
    pool = openPool({ path });
    expect(dump(pool)).toEqual(atThird);
    pool.close();
  });

  it('rebuilds when the shm pool is ahead of the journal (a crash between commit and fdatasync)', () => {
    const { path, dir } = fresh();
    const journal = join(dir, 'pmemcql.journal');
    let pool = openPool({ path, size: 16 * MiB });
    writeBatches(pool, 5, 'a');
    const atFirst = dump(pool);
    const size = statSync(journal).size;
    pool.apply(pool.batch().put(pool.root, b('unacknowledged'), b('x')));
    pool.close();
    // Exactly the last record gone: no torn tail, only the sequence tells the shm pool is ahead.
    truncateSync(journal, size);
    pool = openPool({ path });
    expect(pool.get(pool.root, b('unacknowledged'))).toBeUndefined();
    expect(dump(pool)).toEqual(atFirst);
    pool.close();
  });

  it('checkpoints into the image past the threshold; a reboot after checkpoints rebuilds the same pool', () => {
    const { path, dir, shmDir } = fresh();
    const journal = join(dir, 'pmemcql.journal');
    process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES = String(64 * 1024);
    try {
      const pool = openPool({ path, size: 16 * MiB });
      let shrank = 0;
      let last = statSync(journal).size;
      for (let i = 0; i < 40; i++) {
        writeBatches(pool, 1, `c${i}`);
        const size = statSync(journal).size;
        if (size < last) shrank++;
        last = size;
      }
      expect(shrank, 'the journal was emptied by checkpoints').toBeGreaterThan(2);
      const before = dump(pool);
      pool.close();
      reboot(shmDir);
      const again = openPool({ path });
      expect(dump(again)).toEqual(before);
      again.close();
      if (hasPmempool()) {
        const check = spawnSync('pmempool', ['check', shmPool(shmDir)], { encoding: 'utf8' });
        expect(check.status, check.stdout + check.stderr).toBe(0);
      }
    } finally {
      delete process.env.PMEMCQL_JOURNAL_CHECKPOINT_BYTES;
    }
  });

  it('names the setting when /dev/shm has no room for the pool', () => {
    const { path, shmDir } = fresh();
    let err: unknown;
    try {
      openPool({ path, size: 2 ** 50 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PoolError);
    expect((err as PoolError).code).toBe('POOL_OPEN');
    expect((err as PoolError).message).toMatch(/PMEMCQL_DISK_SYNC=journal.*disk_sync: journal.*pool_size/);
    expect(readdirSync(shmDir)).toEqual([]);
  });

  it('refuses a pool path holding a pool of another policy', () => {
    const { path } = fresh();
    writeFileSync(path, 'x');
    expect(codeOf(() => openPool({ path, size: 16 * MiB }))).toBe('POOL_OPEN');
  });

  describe('crash safety', () => {
    const childDir = join(work, 'child');
    // The child runs the real binding, transpiled from TypeScript (no TS loader in plain node).
    const prepareChild = () => {
      writeBindingModules(childDir);
      // Continues from the last batch found; batch n puts 50 keys and deletes batch n-20's; prints
      // "ack n <journal bytes>" once apply() returned.
      writeFileSync(
        join(childDir, 'writer.js'),
        `import { statSync } from 'node:fs';
import { openPool } from './native-binding.js';
const journal = process.argv[2].replace(/\\.pool$/, '.journal');
const pool = openPool({ path: process.argv[2], size: 32 * 1024 * 1024 });
process.stdout.write('mode ' + pool.info.mode + ' sync ' + pool.info.sync + '\\n');
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
  process.stdout.write('ack ' + n + ' ' + statSync(journal).size + '\\n');
  if (n === start + 10) process.stdout.write('ready\\n');
}
`,
      );
    };

    it('a process with the default policy refuses a journal pool instead of creating an empty one', () => {
      prepareChild();
      const { path } = fresh();
      openPool({ path, size: 16 * MiB }).close();
      writeFileSync(
        join(childDir, 'open.js'),
        `import { openPool } from './native-binding.js';
try { openPool({ path: process.argv[2] }); console.log('opened'); } catch (e) { console.log(e.code + ' ' + e.message); }
`,
      );
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PMEMCQL_NATIVE_ADDON: resolve('native/build/Release/pmemcql_native.node'),
      };
      delete env.PMEMCQL_DISK_SYNC;
      const r = spawnSync(process.execPath, [join(childDir, 'open.js'), path], { env, encoding: 'utf8' });
      expect(r.stdout).toMatch(/^POOL_OPEN .*PMEMCQL_DISK_SYNC=journal/);
      expect(existsSync(path)).toBe(false);
    });

    it('loses no acknowledged batch across SIGKILLs, power cuts and checkpoints; pmempool check passes', async () => {
      prepareChild();
      const { path, shmDir } = fresh();
      let rebuilt = 0;
      let cut = 0;
      for (let round = 0; round < 12; round++) {
        const checkpointBytes = round % 2 ? 256 * 1024 : 64 * MiB;
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          PMEMCQL_NATIVE_ADDON: resolve('native/build/Release/pmemcql_native.node'),
          // Every other round checkpoints often, so some kills land inside a checkpoint.
          PMEMCQL_JOURNAL_CHECKPOINT_BYTES: String(checkpointBytes),
        };
        const out = await runUntilKilled(join(childDir, 'writer.js'), [path], env, {
          startTimeoutMs: 20_000,
          minMs: 100,
          jitterMs: 300,
        });
        expect(out).toContain('mode disk sync journal');
        const acks = [...out.matchAll(/ack (\d+) (\d+)\n/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
        const [acked, ackedJournalBytes] = acks[acks.length - 1]!;
        if (round % 3 !== 0) {
          // A power cut: /dev/shm is gone, and so may be any journal bytes past the last fdatasync
          // (the last acknowledged record's end): cut the journal somewhere in that tail. Not when the
          // journal reached the checkpoint threshold: a checkpoint starts only after the record that
          // crossed it was synced, and may already have copied it into the image, so that record
          // cannot be lost (cutting it would model an impossible power cut and tear the image).
          const journal = path.replace(/\.pool$/, '.journal');
          const size = statSync(journal).size;
          if (size > ackedJournalBytes && size < checkpointBytes) {
            truncateSync(journal, ackedJournalBytes + Math.floor(Math.random() * (size - ackedJournalBytes)));
            cut++;
          }
          reboot(shmDir);
          rebuilt++;
        }

        const pool = openPool({ path });
        const last = pool.get(pool.root, b('last'))!.readDoubleLE(0);
        expect(last, `round ${round}: acknowledged batch ${acked} lost`).toBeGreaterThanOrEqual(acked);
        expect(last, `round ${round}: at most the one batch in flight beyond the last ack`).toBeLessThanOrEqual(
          acked + 1,
        );
        const data = pool.getChild(pool.root, b('data'));
        const live = Math.min(last + 1, 20);
        expect(pool.count(data)).toBe(live * 50);
        const s = pool.scan(data);
        const first = last + 1 - live;
        for (let j = 0; j < s.keys.length; j++) {
          const n = first + Math.floor(j / 50);
          const i = j % 50;
          expect(s.keys[j]!.toString()).toBe(`b${String(n).padStart(8, '0')}:${String(i).padStart(2, '0')}`);
          expect(s.values[j]).toEqual(Buffer.alloc(100 + i, n & 255));
        }
        pool.close();
        if (hasPmempool()) {
          const check = spawnSync('pmempool', ['check', shmPool(shmDir)], { encoding: 'utf8' });
          expect(check.status, check.stdout + check.stderr).toBe(0);
        }
      }
      expect(rebuilt).toBeGreaterThan(2);
      console.log(`${rebuilt} reboots, ${cut} of them cut the journal's unsynced tail`);
    }, 60_000);
  });
});
