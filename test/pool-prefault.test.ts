// The pool's prefault thread (native/src/pool-prefault.cc): it maps the pool's pages ahead of the allocator, so that
// the event loop takes fewer page faults; for writing where the pages stay in memory (emulated, pmem), for reading on
// a journaled disk pool (whose dirty pages the kernel writes back). The server says whether it runs in its ready line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPool } from '../storage/native-binding.js';
import { startServer } from './support/server-process.js';

const MiB = 1024 * 1024;
const shm = existsSync('/dev/shm');
const dir = mkdtempSync(join(shm ? '/dev/shm' : tmpdir(), 'pmemcql-prefault-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const binding = resolve(import.meta.dirname, '../dist/storage/native-binding.js');

/**
 * In a process of its own (libpmem reads PMEM_IS_PMEM_FORCE once per process): an emulated pool of 256 MiB,
 * prefaulted, then 48 MiB written into it; prints what the thread had mapped before and after.
 */
const child = `
import { openPool } from ${JSON.stringify(binding)};
const MiB = 1024 * 1024;
const pool = openPool({ path: process.argv[1], size: 256 * MiB });
const started = pool.startPrefault(false);
const waitFor = async (ok) => { for (const until = Date.now() + 10000; !ok() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20)); };
await waitFor(() => pool.prefaulted() >= 64 * MiB);
const before = pool.prefaulted();
const value = Buffer.alloc(256 * 1024, 7);
for (let i = 0; i < 192; i += 16) {
  const b = pool.batch();
  for (let j = i; j < i + 16; j++) b.put(pool.root, Buffer.from('k' + j), value);
  pool.apply(b);
}
const used = pool.info.used;
await waitFor(() => pool.prefaulted() >= Math.min(256 * MiB, used * 1.25));
const after = pool.prefaulted();
pool.close();
console.log(JSON.stringify({ started, before, used, after }));
`;

/** Resident and dirty KiB of this process's mapping of `file` (/proc/self/smaps). */
function mappingOf(file: string): { rssKiB: number; dirtyKiB: number } {
  const smaps = readFileSync('/proc/self/smaps', 'utf8').split('\n');
  const at = smaps.findIndex((l) => l.endsWith(` ${file}`));
  expect(at, `${file} is mapped`).toBeGreaterThanOrEqual(0);
  const field = (name: string) => {
    const line = smaps.slice(at + 1).find((l) => l.startsWith(`${name}:`))!;
    return Number(line.split(/\s+/)[1]);
  };
  return { rssKiB: field('Rss'), dirtyKiB: field('Shared_Dirty') + field('Private_Dirty') };
}

describe('pool prefault', () => {
  it.skipIf(!shm)('maps an emulated pool ahead of what its allocator uses, and stops at close', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child, join(dir, 'emulated.pool')], {
      env: { ...process.env, PMEM_IS_PMEM_FORCE: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number | boolean>;
    expect(out.started).toBe(true);
    // A fresh pool: its first 64 MiB, the margin.
    expect(out.before).toBeGreaterThanOrEqual(64 * MiB);
    expect(out.used).toBeGreaterThan(48 * MiB);
    // After the writes: what is in use, a quarter more (and the margin), within the pool.
    expect(out.after).toBeGreaterThanOrEqual(Math.min(256 * MiB, (out.used as number) * 1.25));
    expect(out.after).toBeLessThanOrEqual(256 * MiB);
  });

  it('maps a journaled disk pool for reading only: no page of the working pool is dirtied by it', async () => {
    const env = process.env.PMEM_IS_PMEM_FORCE;
    // This process's pools are journaled unless the environment forces pmem (libpmem reads it once).
    if (env === '1') return;
    const diskDir = mkdtempSync(join(tmpdir(), 'pmemcql-prefault-disk-'));
    const path = join(diskDir, 'pmemcql.pool');
    try {
      openPool({ path, size: 128 * MiB }).close();
      const pool = openPool({ path });
      try {
        expect(pool.info.mode).toBe('disk');
        const before = mappingOf(path);
        expect(pool.startPrefault(false)).toBe(true);
        for (const until = Date.now() + 20_000; pool.prefaulted() < 64 * MiB && Date.now() < until; ) {
          await new Promise((ok) => setTimeout(ok, 20));
        }
        expect(pool.prefaulted()).toBeGreaterThanOrEqual(64 * MiB);
        const after = mappingOf(path);
        expect(after.rssKiB - before.rssKiB, 'the pages are mapped').toBeGreaterThanOrEqual(60 * 1024);
        expect(after.dirtyKiB - before.dirtyKiB, 'and not dirtied').toBeLessThan(1024);
      } finally {
        pool.close();
      }
    } finally {
      rmSync(diskDir, { recursive: true, force: true });
    }
  });

  it('is in the server ready line: on for emulated and disk pools, off with PMEMCQL_PREFAULT=off', async () => {
    const cases: [Record<string, string>, string, string][] = [
      ...(shm ? ([[{ PMEM_IS_PMEM_FORCE: '1' }, 'emulated', 'on']] as [Record<string, string>, string, string][]) : []),
      [{ PMEM_IS_PMEM_FORCE: '1', PMEMCQL_PREFAULT: 'off' }, 'emulated', 'off'],
      [{ PMEM_IS_PMEM_FORCE: '0' }, 'disk', 'on'],
    ];
    for (const [env, mode, prefault] of cases) {
      const server = await startServer({ env });
      try {
        expect([server.readyLine().mode, server.readyLine().prefault]).toEqual([mode, prefault]);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    }
  });
});
