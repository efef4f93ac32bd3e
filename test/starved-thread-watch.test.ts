// The server's background threads (V8's helpers) run under SCHED_IDLE; when other processes keep every core busy
// they starve, and the event loop with them (it waits for their GC work and never gets optimized code). The
// starved-thread watch (server/starved-thread-watch.ts) puts a thread that waited too long for a CPU back under
// SCHED_OTHER for a while. Here processes spin on every core while a client writes. Lifting needs CAP_SYS_NICE.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type cassandra from 'cassandra-driver';
import { afterEach, describe, expect, it } from 'vitest';
import { BusyHost } from './support/busy-host.js';

const SCHED_OTHER = 0;

/** The policy of each of the process's threads but the event loop (field 41 of /proc/PID/task/TID/stat). */
function threadPolicies(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    if (Number(t) === pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      out.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const host = new BusyHost();
afterEach(() => host.end());

/** Writes one row at a time until `done()` or `ms` pass; returns how many were written. */
async function writeWhile(c: cassandra.Client, ms: number, done: () => boolean): Promise<number> {
  const until = Date.now() + ms;
  let n = 0;
  while (Date.now() < until && !done()) {
    await c.execute('INSERT INTO ks.t (k, v) VALUES (?, ?)', [n++, 'x'.repeat(100)], { prepare: true });
  }
  return n;
}

describe.skipIf(!existsSync('/proc/self/task') || !root)('starved background threads', () => {
  it('with every core busy, starved SCHED_IDLE threads are lifted to SCHED_OTHER (and logged)', async () => {
    const client = await host.start({ PMEMCQL_TWINS: 'off' });
    const server = host.server!;
    expect(server.readyLine().idle_lift).toBe('on');
    const pid = server.child.pid!;
    host.spin();
    const lifted = () => server.output().includes('lifted out of SCHED_IDLE');
    await writeWhile(client, 30_000, lifted);
    expect(lifted()).toBe(true);
    // Held for 10 s: the lifted threads are at the server's policy now, the event loop stays there too.
    expect(threadPolicies(pid)).toContain(SCHED_OTHER);
  });

  it('PMEMCQL_IDLE_LIFT=off leaves them under SCHED_IDLE', async () => {
    const client = await host.start({ PMEMCQL_TWINS: 'off', PMEMCQL_IDLE_LIFT: 'off' });
    const server = host.server!;
    expect(server.readyLine().idle_lift).toBe('off');
    const pid = server.child.pid!;
    host.spin();
    await writeWhile(client, 2_000, () => false);
    expect(server.output()).not.toContain('lifted out of SCHED_IDLE');
    expect(threadPolicies(pid)).not.toContain(SCHED_OTHER);
  });
});
