// The twin's flush thread runs under SCHED_IDLE; on cores kept busy by other processes it gets almost no CPU. The
// server lifts it back to SCHED_OTHER while the event loop blocks on it (an admin flush) and when a background
// flush's answer is overdue, then puts it back (storage/twin/flush-thread-client.ts). Here two busy processes hold
// every core while the server flushes. Lifting needs CAP_SYS_NICE: skipped for other users.
import { existsSync, readFileSync } from 'node:fs';
import type cassandra from 'cassandra-driver';
import { afterEach, describe, expect, it } from 'vitest';
import { BusyHost } from './support/busy-host.js';

const SCHED_IDLE = 5;

/** Thread `tid`'s scheduling policy (field 41 of /proc/PID/task/TID/stat). */
function threadPolicy(pid: number, tid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const host = new BusyHost();
afterEach(() => host.end());

async function serverWithRows(env: Record<string, string>, rows: number): Promise<cassandra.Client> {
  const client = await host.start(env);
  const insert = 'INSERT INTO ks.t (k, v) VALUES (?, ?)';
  for (let i = 0; i < rows; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, j) => client.execute(insert, [i + j, 'x'.repeat(200)], { prepare: true })),
    );
  }
  return client;
}

async function lifts(c: cassandra.Client): Promise<number> {
  return (await c.execute('SELECT lifts FROM system_arrow.flush_thread')).first().lifts as number;
}

describe.skipIf(!existsSync('/proc/self/task') || !root)('flush thread on busy cores', () => {
  it('an admin flush lifts it while the event loop waits, and puts it back after', async () => {
    const c = await serverWithRows({ PMEMCQL_TWIN_AUTO_FLUSH: '0' }, 20_000);
    const pid = host.server!.child.pid!;
    const lifts0 = await lifts(c);
    host.spin();
    await new Promise((ok) => setTimeout(ok, 200));
    const t0 = performance.now();
    const flushed = (await c.execute('SELECT * FROM system_arrow.flush_now')).rows;
    const ms = performance.now() - t0;
    console.log(`admin flush of 20 000 rows with both cores busy: ${ms.toFixed(0)} ms`);
    expect(flushed.map((r) => [r.table_name, r.rows])).toEqual([['t', 20_000]]);
    // Without the lift the thread gets ~0.3 % of a core: this flush blocked the event loop for 33 s here.
    expect(ms).toBeLessThan(15_000);
    expect(await lifts(c)).toBeGreaterThan(lifts0);
    const status = (await c.execute('SELECT lifted, thread_id FROM system_arrow.flush_thread')).first();
    expect(status.lifted).toBe(false);
    expect(threadPolicy(pid, status.thread_id as number)).toBe(SCHED_IDLE);
  });

  it('a background flush that falls behind lifts it once its answer is overdue', async () => {
    const c = await serverWithRows({ PMEMCQL_TWIN_FLUSH_ROWS: '5000' }, 4_000);
    const lifts0 = await lifts(c);
    host.spin();
    await new Promise((ok) => setTimeout(ok, 200));
    const segments = async () => (await c.execute('SELECT * FROM system_arrow.segments')).rows.length;
    const before = await segments();
    for (let i = 4_000; i < 12_000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, j) =>
          c.execute('INSERT INTO ks.t (k, v) VALUES (?, ?)', [i + j, 'y'.repeat(200)], { prepare: true }),
        ),
      );
    }
    const until = Date.now() + 20_000;
    while ((await segments()) === before && Date.now() < until) await new Promise((ok) => setTimeout(ok, 100));
    expect(await segments()).toBeGreaterThan(before);
    expect(await lifts(c)).toBeGreaterThan(lifts0);
  });
});
