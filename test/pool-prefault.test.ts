// The pool's prefault thread (native/src/pool-prefault.cc): where the pool's pages stay in memory it maps them
// ahead of the allocator, so that writes on the event loop take no page faults; on disk it does not run. The
// server says which in its ready line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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

  it('does not run on a disk pool', () => {
    const env = process.env.PMEM_IS_PMEM_FORCE;
    // This process's pools are in disk mode unless the environment forces pmem (libpmem reads it once).
    if (env === '1') return;
    const pool = openPool({ path: join(dir, 'disk.pool'), size: 64 * MiB });
    try {
      expect(pool.info.mode).toBe('disk');
      expect(pool.startPrefault(false)).toBe(false);
      expect(pool.prefaulted()).toBe(-1);
    } finally {
      pool.close();
    }
  });

  it('is in the server ready line: on for an emulated pool, off with PMEMCQL_PREFAULT=off and on disk', async () => {
    const cases: [Record<string, string>, string, string][] = [
      ...(shm ? ([[{ PMEM_IS_PMEM_FORCE: '1' }, 'emulated', 'on']] as [Record<string, string>, string, string][]) : []),
      [{ PMEM_IS_PMEM_FORCE: '1', PMEMCQL_PREFAULT: 'off' }, 'emulated', 'off'],
      [{ PMEM_IS_PMEM_FORCE: '0' }, 'disk', 'off'],
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
