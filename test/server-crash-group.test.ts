// test/server-crash.test.ts with commitlog_sync: group — SIGKILLs and power cuts under client load; every
// acknowledged write survives both.
process.env.CRASH_SYNC = 'group';
process.env.CRASH_KILLS ??= '8';
await import('./server-crash.test.js');
