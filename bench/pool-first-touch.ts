// What the first touch of fresh pool memory costs the thread that copies into it, with and without the pool's
// prefault thread (native/src/pool-prefault.cc; docs/storage-native.md "Prefault"): a twin flush copies a ~10 MB
// segment into a freshly reserved value, in 512 KiB slices, on the event loop. Each round opens an emulated pool
// (/dev/shm, PMEM_IS_PMEM_FORCE=1), lets the prefault thread (when on) catch up, then reserves and fills values.
//   npx tsc -p tsconfig.json && node dist/bench/pool-first-touch.js [--mb 10] [--values 6]
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openPool } from '../storage/native-binding.js';
import { ensureEmulatedPmem } from './support/emulated-pmem.js';

ensureEmulatedPmem();

const { values: args } = parseArgs({
  options: { mb: { type: 'string', default: '10' }, values: { type: 'string', default: '6' } },
});
const BYTES = Number(args.mb) * 1024 * 1024;
const VALUES = Number(args.values);
const SLICE = 512 * 1024;
const PATH = `/dev/shm/pmemcql-first-touch-${process.pid}`;

async function round(prefault: boolean): Promise<number[]> {
  rmSync(PATH, { force: true, recursive: true });
  const pool = openPool({ path: PATH, size: 1024 * 1024 * 1024 });
  try {
    if (prefault && !pool.startPrefault(false)) throw new Error('the prefault thread did not start');
    // The thread maps used + a quarter + 64 MiB ahead; wait until it has (or give up after 5 s).
    const until = Date.now() + 5000;
    while (prefault && pool.prefaulted() < 64 * 1024 * 1024 && Date.now() < until) {
      await new Promise((ok) => setTimeout(ok, 50));
    }
    const src = Buffer.alloc(BYTES, 7);
    const ms: number[] = [];
    for (let v = 0; v < VALUES; v++) {
      const key = Buffer.from(`segment-${v}`);
      pool.apply(pool.batch().reserve(pool.root, key, BYTES));
      const t0 = performance.now();
      for (let at = 0; at < BYTES; at += SLICE) pool.fill(pool.root, key, at, src.subarray(at, at + SLICE));
      ms.push(performance.now() - t0);
      // Each value lands past the last; give the thread time to keep ahead, as a flush's pace would.
      await new Promise((ok) => setTimeout(ok, 200));
    }
    return ms;
  } finally {
    pool.close();
    rmSync(PATH, { force: true, recursive: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const off: number[] = [];
const on: number[] = [];
// Alternating rounds: the machine's noise falls on both.
for (let r = 0; r < 2; r++) {
  off.push(...(await round(false)));
  on.push(...(await round(true)));
}
console.log(`copying ${args.mb} MiB into a fresh pool value in 512 KiB fills, ${off.length} values each way:`);
console.log(`| prefault | median ms | min ms | max ms |`);
console.log(`| --- | ---: | ---: | ---: |`);
for (const [name, xs] of [
  ['off', off],
  ['on', on],
] as const) {
  console.log(`| ${name} | ${median(xs).toFixed(1)} | ${Math.min(...xs).toFixed(1)} | ${Math.max(...xs).toFixed(1)} |`);
}
console.log(`off / on: ${(median(off) / median(on)).toFixed(1)}x`);
