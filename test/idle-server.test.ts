// An idle server leaves the CPU alone: with no client and no metrics endpoint, its event loop sleeps instead of
// waking on a timer (prom-client's event-loop lag monitor woke it every 10 ms; server/metrics.ts).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;

/** Times the server's event-loop thread (the process's first thread) has gone to sleep so far. */
function sleepsSoFar(pid: number): number {
  const line = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('voluntary_ctxt_switches:'));
  return Number(line!.split(/\s+/)[1]);
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  reportIfDied(server);
  await server?.stop();
});

describe('an idle server', () => {
  it('wakes its event loop at most a few times a second', async () => {
    const pid = server.child.pid!;
    await sleep(1000); // start-up work settles
    const before = sleepsSoFar(pid);
    await sleep(2000);
    // The storage GC's 1 s interval and little else: ~2. With the 10 ms lag monitor it was ~200.
    expect(sleepsSoFar(pid) - before).toBeLessThan(40);
  });
});
