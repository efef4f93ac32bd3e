// Throughput of the native pool through the addon: group-committed puts, point gets, scans.
// Emulated pmem (pool on /dev/shm, PMEM_IS_PMEM_FORCE=1), which libpmemobj reads at load time,
// so without it set the script re-runs itself with it.
//   npx tsc -p tsconfig.json && node dist/bench/pool-bench.js [--rows 1000000] [--batch 1000]
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openPool } from '../storage/native-binding.js';
import type { NativePool } from '../storage/native-pool.js';

if (process.env.PMEM_IS_PMEM_FORCE !== '1') {
  const r = spawnSync(process.execPath, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, PMEM_IS_PMEM_FORCE: '1' },
  });
  process.exit(r.status ?? 1);
}

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '1000' },
    dir: { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : tmpdir() },
  },
});
const ROWS = Number(args.rows);
const BATCH = Number(args.batch);
const path = join(args.dir, `pmemcql-bench-${process.pid}.pool`);

// ~20-byte keys in a scattered order (like token-prefixed partition keys), 100-byte values.
function key(i: number): Buffer {
  const k = Buffer.alloc(20);
  k.writeUInt32BE(Math.imul(i, 2654435761) >>> 0, 0);
  k.write(`row:${String(i).padStart(12, '0')}`, 4, 'latin1');
  return k;
}
const value = Buffer.alloc(100, 0x61);

const results: { op: string; count: number; seconds: number }[] = [];
function timed(op: string, count: number, fn: () => void): void {
  const t0 = process.hrtime.bigint();
  fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  results.push({ op, count, seconds });
}

function load(pool: NativePool, map: number, from: number, to: number): void {
  for (let i = from; i < to; i += BATCH) {
    const batch = pool.batch();
    const end = Math.min(to, i + BATCH);
    for (let j = i; j < end; j++) batch.put(map, key(j), value);
    pool.apply(batch);
  }
}

rmSync(path, { force: true });
let pool = openPool({ path, size: Math.max(1 << 30, ROWS * 600) });
const heapBefore = process.memoryUsage().heapUsed;
const mode = pool.info.mode;

timed(`put (batches of ${BATCH})`, ROWS, () => load(pool, pool.root, 0, ROWS));

const probe = Array.from({ length: 100_000 }, (_, i) => key((i * 7919) % ROWS));
const GETS = 1_000_000;
timed('get (hit)', GETS, () => {
  let bytes = 0;
  for (let i = 0; i < GETS; i++) bytes += pool.get(pool.root, probe[i % probe.length]!)!.length;
  if (bytes !== GETS * value.length) throw new Error('bad get');
});
const missing = Array.from({ length: 100_000 }, (_, i) => key(ROWS + i));
timed('get (miss)', GETS, () => {
  for (let i = 0; i < GETS; i++) if (pool.get(pool.root, missing[i % missing.length]!)) throw new Error('bad miss');
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
timed('scan forward (pages of 1000)', ROWS, () => {
  if (scanAll(false) !== ROWS) throw new Error('bad scan');
});
timed('scan reverse (pages of 1000)', ROWS, () => {
  if (scanAll(true) !== ROWS) throw new Error('bad scan');
});
const SHORT = 200_000;
timed('scan 10 from a random key', SHORT, () => {
  for (let i = 0; i < SHORT; i++) pool.scan(pool.root, { start: probe[i % probe.length], limit: 10 });
});

timed(`update (batches of ${BATCH})`, ROWS, () => load(pool, pool.root, 0, ROWS));
timed(`delete (batches of ${BATCH})`, ROWS / 2, () => {
  for (let i = 0; i < ROWS / 2; i += BATCH) {
    const batch = pool.batch();
    for (let j = i; j < i + BATCH; j++) batch.del(pool.root, key(j));
    pool.apply(batch);
  }
});
timed('put, 1 row per batch', 20_000, () => {
  for (let i = 0; i < 20_000; i++) pool.apply(pool.batch().put(pool.root, key(i), value));
});

const heapAfter = process.memoryUsage().heapUsed;
const rows = pool.count(pool.root);
pool.close();
timed(`reopen (${rows} rows)`, 1, () => {
  pool = openPool({ path });
});
const used = pool.info.used;
pool.close();
rmSync(path, { force: true });

console.log(`pool ${path}, mode ${mode}, ${ROWS} rows, 20-byte keys, 100-byte values, node ${process.version}`);
console.log('| operation | count | seconds | ops/s |');
console.log('| --- | ---: | ---: | ---: |');
for (const r of results) {
  const rate = r.count / r.seconds;
  console.log(
    `| ${r.op} | ${r.count} | ${r.seconds.toFixed(3)} | ${r.count === 1 ? '-' : Math.round(rate).toLocaleString('en-US')} |`,
  );
}
console.log(
  `pool used ${(used / 2 ** 20).toFixed(1)} MiB; JS heap ${((heapAfter - heapBefore) / 2 ** 20).toFixed(1)} MiB growth over the run (probe key arrays included)`,
);
