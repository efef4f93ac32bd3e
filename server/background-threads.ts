// The process's background threads under SCHED_IDLE: at start-up the only threads besides the event loop are Node's
// platform threads — V8's workers (parallel and concurrent GC, optimizing compiles), its delayed-task scheduler and
// libuv's thread pool.
// At the server's priority they took a CPU from the event loop or the clients during the twin's flushes (perf sched
// showed them holding a whole CPU for 10-25 ms while the event loop shared the other); under SCHED_IDLE they run
// only on CPU time nothing else wants, V8 doing the GC work on the event loop when they do not run, and a CPU
// running only them counts as idle when the kernel places a woken event loop. PMEMCQL_IDLE_THREADS=off keeps them
// at the server's priority. Measurements: docs/benchmarks.md.

import { readdirSync, stat } from 'node:fs';
import { threadScheduling } from '../storage/native-binding.js';

export interface IdledThreads {
  /** Threads besides the event loop. */
  readonly threads: number;
  /** Of them, put under SCHED_IDLE. */
  readonly idled: number;
}

/** Puts every thread but the event loop under SCHED_IDLE; call before anything starts threads of its own. */
export function idleBackgroundThreads(): IdledThreads {
  // libuv creates its thread pool on the first request queued to it, synchronously, and Node 24 queues none before
  // start-up ends: queue one now so that the pool's threads are there to be listed.
  stat(process.execPath, () => {});
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return { threads: 0, idled: 0 }; // not Linux
  }
  let idled = 0;
  for (const t of tasks) {
    const tid = Number(t);
    if (tid !== process.pid && threadScheduling(tid, true)) idled++;
  }
  return { threads: tasks.length - 1, idled };
}
