// test/server-crash-mixed.test.ts with CRASH_SYNC=batch: the same mixed workload and checks, fewer kills.
process.env.CRASH_SYNC = 'batch';
process.env.CRASH_KILLS ??= '8';
await import('./server-crash-mixed.test.js');
