// The server's background threads (server/background-threads.ts): V8's and libuv's threads, the pool's prefault
// thread, and the twin's flush thread once a flush starts it, run under SCHED_IDLE and the event loop does not; the
// journal's sync thread stays at the server's policy (group and batch acknowledgements wait on it) and its checkpoint
// thread runs at nice 10 (bulk work that has to keep up with the writes); PMEMCQL_IDLE_THREADS=off leaves them all
// at the server's policy. Read from /proc (Linux only).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import { startServer } from './support/server-process.js';

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** Each thread's scheduling policy (field 41 of /proc/PID/task/TID/stat), by thread id. */
function policies(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    // After "(comm)" the fields start at 3 (state): policy is the 39th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(t), Number(fields[41 - 3]));
  }
  return out;
}

/** The addon's pool threads (named by the addon), which start after the others were put under SCHED_IDLE. */
const POOL_THREADS = new Set(['journal-sync', 'journal-ckpt', 'pool-prefault']);

/** Thread `tid`'s name (/proc/PID/task/TID/comm). */
function threadName(pid: number, tid: number): string {
  return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
}

/** Whether thread `tid` belongs under SCHED_IDLE: all but the event loop and the journal's two threads. */
function idleExpected(pid: number, tid: number): boolean {
  const name = threadName(pid, tid);
  return tid !== pid && name !== 'journal-sync' && name !== 'journal-ckpt';
}

/** Thread `tid`'s nice value (field 19 of its stat). */
function niceOf(pid: number, tid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]);
}

/** Writes enough rows that the table's twin flushes (every 200 rows here), which starts the flush thread. */
async function writeUntilFlushed(port: number, pid: number, threadsBefore: number, idle: boolean): Promise<void> {
  const client = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
  try {
    await client.connect();
    await client.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await client.execute('CREATE TABLE ks.t (k int PRIMARY KEY, v text)');
    for (let i = 0; i < 600; i++) {
      await client.execute('INSERT INTO ks.t (k, v) VALUES (?, ?)', [i, `v${i}`], { prepare: true });
    }
    // The flush thread starts under the server's policy and puts itself under SCHED_IDLE once running.
    const settled = () => {
      const p = policies(pid);
      if (p.size <= threadsBefore) return false;
      return !idle || [...p].every(([tid, policy]) => policy === SCHED_IDLE || tid === pid || !idleExpected(pid, tid));
    };
    const until = Date.now() + 10_000;
    while (!settled() && Date.now() < until) await new Promise((ok) => setTimeout(ok, 50));
  } finally {
    await client.shutdown();
  }
}

describe.skipIf(!existsSync('/proc/self/task'))('background threads', () => {
  it('run under SCHED_IDLE, the flush thread too; the event loop does not', async () => {
    // Without the starved-thread watch, which on a loaded machine (the suite on two cores) lifts starved helpers.
    const server = await startServer({ env: { PMEMCQL_TWIN_FLUSH_ROWS: '200', PMEMCQL_IDLE_LIFT: 'off' } });
    try {
      const pid = server.child.pid!;
      const before = policies(pid);
      expect(before.get(pid)).toBe(SCHED_OTHER);
      const poolThreads = [...before.keys()].filter((tid) => POOL_THREADS.has(threadName(pid, tid)));
      expect(poolThreads.map((tid) => threadName(pid, tid)).sort()).toEqual([...POOL_THREADS].sort());
      const others = before.size - 1 - poolThreads.length;
      expect(server.readyLine().idle_threads).toBe(`${others} of ${others}`);
      await writeUntilFlushed(server.port, pid, before.size, true);
      const after = policies(pid);
      expect(after.size).toBeGreaterThan(before.size); // the flush thread
      for (const [tid, policy] of after) {
        const name = threadName(pid, tid);
        const want = idleExpected(pid, tid) ? SCHED_IDLE : SCHED_OTHER;
        expect([tid, name, policy]).toEqual([tid, name, want]);
        if (name === 'journal-ckpt') expect(niceOf(pid, tid), 'the checkpoint thread runs at nice 10').toBe(10);
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('stay at the server policy with PMEMCQL_IDLE_THREADS=off', async () => {
    const server = await startServer({ env: { PMEMCQL_TWIN_FLUSH_ROWS: '200', PMEMCQL_IDLE_THREADS: 'off' } });
    try {
      const pid = server.child.pid!;
      const before = policies(pid);
      expect(server.readyLine().idle_threads).toBe('off');
      await writeUntilFlushed(server.port, pid, before.size, false);
      const after = policies(pid);
      expect(after.size).toBeGreaterThan(before.size);
      for (const [tid, policy] of after) expect([tid, policy]).toEqual([tid, SCHED_OTHER]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
