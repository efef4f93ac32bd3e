// test/server-crash.test.ts with commitlog_sync: batch — SIGKILLs and power cuts under client load; every
// acknowledged write survives both.
process.env.CRASH_SYNC = 'batch';
process.env.CRASH_KILLS ??= '8';
await import('./server-crash.test.js');
