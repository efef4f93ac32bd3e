// Throughput of the native pool through the addon: group-committed puts, point gets, scans.
// Emulated pmem (pool on /dev/shm, PMEM_IS_PMEM_FORCE=1), which libpmemobj reads at load time,
// so without it set the script re-runs itself with it.
//   npx tsc -p tsconfig.json && node dist/bench/pool-bench.js [--rows 1000000] [--batch 1000]
// Rates are per wall second and per CPU second of this process (the machine may be shared).
// With --disk: group commit on a journaled disk pool instead (pool in the temp dir, no PMEM_IS_PMEM_FORCE), one
// table per commitlog_sync policy; under group and batch each apply waits for its sync (blockUntilDurable).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openPool } from '../storage/native-binding.js';
import type { NativePool } from '../storage/native-pool.js';
import { ensureEmulatedPmem } from './support/emulated-pmem.js';

const DISK = process.argv.includes('--disk');
if (DISK) {
  delete process.env.PMEM_IS_PMEM_FORCE;
  diskBench();
  process.exit(0);
}
ensureEmulatedPmem();

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '1000' },
    dir: { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : tmpdir() },
    disk: { type: 'boolean', default: false },
  },
});
const ROWS = Number(args.rows);
const BATCH = Number(args.batch);
const KEY = 20;
const path = join(args.dir, `pmemcql-bench-${process.pid}.pool`);

// 20-byte keys in scattered order (4 hash bytes first, like token-prefixed partition keys),
// built once into one buffer; ops take subarray views of it, as a server slices frames.
const keyBytes = Buffer.alloc(ROWS * KEY);
for (let i = 0; i < ROWS; i++) {
  keyBytes.writeUInt32BE(Math.imul(i, 2654435761) >>> 0, i * KEY);
  keyBytes.write(`row:${String(i).padStart(12, '0')}`, i * KEY + 4, 'latin1');
}
const key = (i: number) => keyBytes.subarray(i * KEY, i * KEY + KEY);
const value = Buffer.alloc(100, 0x61);

const results: { op: string; count: number; wall: number; cpu: number }[] = [];
function timed(op: string, count: number, fn: () => void): void {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  results.push({ op, count, wall, cpu: (c.user + c.system) / 1e6 });
}

function writeAll(pool: NativePool, from: number, to: number, del = false): void {
  for (let i = from; i < to; i += BATCH) {
    const batch = pool.batch();
    const end = Math.min(to, i + BATCH);
    for (let j = i; j < end; j++) {
      if (del) batch.del(pool.root, key(j));
      else batch.put(pool.root, key(j), value);
    }
    pool.apply(batch);
  }
}

rmSync(path, { force: true });
let pool = openPool({ path, size: Math.max(1 << 30, ROWS * 600) });
const mode = pool.info.mode;
const heapBefore = process.memoryUsage().heapUsed;

timed(`put, new keys (batches of ${BATCH})`, ROWS, () => writeAll(pool, 0, ROWS));
timed(`put, existing keys (batches of ${BATCH})`, ROWS, () => writeAll(pool, 0, ROWS));

const GETS = 1_000_000;
const spread = (i: number, n: number) => (i * 7919) % n;
// Reads take prebuilt key Buffers (a server has the key in hand); 100 k of them spread over all
// rows, or the first 10 k rows as a hot set.
const probe = Array.from({ length: Math.min(ROWS, 100_000) }, (_, i) => key(spread(i, ROWS)));
timed(`get, random key of all ${ROWS}`, GETS, () => {
  let bytes = 0;
  for (let i = 0; i < GETS; i++) bytes += pool.get(pool.root, probe[i % probe.length]!)!.length;
  if (bytes !== GETS * value.length) throw new Error('bad get');
});
const hot = Array.from({ length: Math.min(ROWS, 10_000) }, (_, i) => key(i));
timed(`get, random key of the first ${hot.length}`, GETS, () => {
  for (let i = 0; i < GETS; i++) if (!pool.get(pool.root, hot[spread(i, hot.length)]!)) throw new Error('bad get');
});
// A small map (10 k rows) whose nodes and entries stay in the CPU caches.
const [small] = pool.apply(
  (() => {
    const batch = pool.batch();
    const ref = batch.ensureChild(pool.root, Buffer.from('small'));
    for (let i = 0; i < hot.length; i++) batch.put(ref, hot[i]!, value);
    return batch;
  })(),
);
timed(`get, random key of a ${hot.length}-row map`, GETS, () => {
  for (let i = 0; i < GETS; i++) if (!pool.get(small!, hot[spread(i, hot.length)]!)) throw new Error('bad get');
});
const absent = Buffer.alloc(KEY, 0x7a);
timed('get, absent key', GETS, () => {
  for (let i = 0; i < GETS; i++) {
    absent.writeUInt32BE(i, 0);
    if (pool.get(pool.root, absent)) throw new Error('bad miss');
  }
});

function scanAll(reverse: boolean): number {
  let n = 0;
  let bound: Buffer | undefined;
  for (;;) {
    const page = pool.scan(
      pool.root,
      reverse
        ? { end: bound, endInclusive: false, reverse, limit: 1000 }
        : { start: bound, startInclusive: false, limit: 1000 },
    );
    n += page.keys.length;
    if (page.keys.length < 1000) return n;
    bound = page.keys[page.keys.length - 1];
  }
}
const entries = pool.count(pool.root); // the rows and the small map
timed('scan forward, pages of 1000 (rows)', entries, () => {
  if (scanAll(false) !== entries) throw new Error('bad scan');
});
timed('scan reverse, pages of 1000 (rows)', entries, () => {
  if (scanAll(true) !== entries) throw new Error('bad scan');
});
const SHORT = 200_000;
timed('scan 10 rows from a random key (scans)', SHORT, () => {
  for (let i = 0; i < SHORT; i++) pool.scan(pool.root, { start: probe[i % probe.length], limit: 10 });
});

timed(`del (batches of ${BATCH})`, ROWS / 2, () => writeAll(pool, 0, ROWS / 2, true));
const SINGLE = 20_000;
timed('put, 1 row per batch (transactions)', SINGLE, () => {
  for (let i = 0; i < SINGLE; i++) pool.apply(pool.batch().put(pool.root, key(i), value));
});

const heapAfter = process.memoryUsage().heapUsed;
const rows = pool.count(pool.root);
pool.close();
timed(`reopen with ${rows} rows`, 1, () => {
  pool = openPool({ path });
});
const used = pool.info.used;
pool.close();
rmSync(path, { force: true });

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`pool ${path}, mode ${mode}, ${KEY}-byte keys, ${value.length}-byte values, node ${process.version}`);
console.log('| operation | count | wall s | ops/s (wall) | ops/s (CPU) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of results) {
  const single = r.count === 1;
  console.log(
    `| ${r.op} | ${r.count} | ${r.wall.toFixed(3)} | ${single ? '-' : fmt(r.count / r.wall)} | ${single ? '-' : fmt(r.count / r.cpu)} |`,
  );
}
console.log(
  `pool used ${(used / 2 ** 20).toFixed(1)} MiB; JS heap ${((heapAfter - heapBefore) / 2 ** 20).toFixed(1)} MiB higher after the run`,
);

function diskBench(): void {
  console.log('journaled disk pool (temp dir), 20-byte random keys, 100-byte values, each policy on a fresh pool');
  console.log('| commitlog_sync | rows per apply | transactions/s | rows/s | journal syncs per transaction |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const sync of ['periodic', 'group', 'batch'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'pmemcql-bench-disk-'));
    const diskPool = openPool({ path: join(dir, 'bench.pool'), size: 2 * 1024 * 1024 * 1024, commitLog: { sync } });
    const value = Buffer.alloc(100, 0x61);
    const k = Buffer.alloc(20);
    for (const rows of [1, 10, 100, 1000]) {
      let n = 0;
      const syncs0 = diskPool.info.journal!.syncs;
      const t0 = process.hrtime.bigint();
      let seconds = 0;
      while (seconds < 2) {
        const batch = diskPool.batch();
        for (let i = 0; i < rows; i++) {
          k.writeUInt32BE((Math.random() * 2 ** 32) >>> 0, 0);
          batch.put(diskPool.root, Buffer.from(k), value);
        }
        diskPool.apply(batch);
        diskPool.blockUntilDurable(diskPool.commitTicket());
        n++;
        seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      }
      const syncs = diskPool.info.journal!.syncs - syncs0;
      console.log(
        `| ${sync} | ${rows} | ${Math.round(n / seconds)} | ${Math.round((n * rows) / seconds)} | ${(syncs / n).toFixed(2)} |`,
      );
    }
    diskPool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
