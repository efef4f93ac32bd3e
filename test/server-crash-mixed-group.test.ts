// test/server-crash-mixed.test.ts with CRASH_SYNC=group: the same mixed workload and checks, fewer kills.
process.env.CRASH_SYNC = 'group';
process.env.CRASH_KILLS ??= '8';
await import('./server-crash-mixed.test.js');
