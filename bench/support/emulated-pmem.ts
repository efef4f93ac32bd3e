// libpmemobj reads PMEM_IS_PMEM_FORCE once, when it loads: a bench that wants emulated pmem (a pool on /dev/shm
// flushed with cache-line flushes, not msync) runs itself again with it set, when it is not.
import { spawnSync } from 'node:child_process';

/** Returns when PMEM_IS_PMEM_FORCE=1 is set; otherwise runs this script again with it and exits with its status. */
export function ensureEmulatedPmem(): void {
  if (process.env.PMEM_IS_PMEM_FORCE === '1') return;
  const r = spawnSync(process.execPath, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, PMEM_IS_PMEM_FORCE: '1' },
  });
  process.exit(r.status ?? 1);
}
