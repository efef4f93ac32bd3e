// test/server-crash.test.ts with disk_sync journal: SIGKILLs under client load, every other one followed by
// deleting the /dev/shm working pool (a reboot), frequent checkpoints; every acknowledged write survives.
import { existsSync } from 'node:fs';

process.env.CRASH_MODE = 'journal';
process.env.CRASH_KILLS ??= '8';
if (existsSync('/dev/shm')) await import('./server-crash.test.js');
else (await import('vitest')).it.skip('needs /dev/shm', () => {});
