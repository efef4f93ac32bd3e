// test/server-crash-mixed.test.ts with CRASH_SYNC=emulated (pmem emulated on /dev/shm): the same workload and checks, fewer kills.
process.env.CRASH_SYNC = 'emulated';
process.env.CRASH_KILLS ??= '8';
await import('./server-crash-mixed.test.js');
