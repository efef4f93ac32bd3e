// The process's background threads run under SCHED_IDLE (background-threads.ts). On cores that other processes keep
// busy they get almost no CPU (a SCHED_IDLE task weighs 3 against a normal task's 1024), and the event loop pays:
// V8's compiler threads never deliver optimized code and the GC helpers its main thread joins hold it up (with two
// processes spinning on the two cores, single requests in a row: a 15th of the throughput, stalls up to 1.5 s;
// docs/benchmarks.md). Every `everyMs` the watch reads how long each thread waited for a CPU
// (/proc/self/task/TID/schedstat, run_delay); a SCHED_IDLE thread that waited over `starvedMs` of that window goes
// back to SCHED_OTHER for `holdMs`, then under SCHED_IDLE again. A thread that starves again within a second of going
// back is held twice as long each time (up to MAX_HOLD_MS): under lasting load each return costs a stall of a few
// hundred ms, so they become rare; after a passing burst (a benchmark's warm-up) the threads are idle again soon.
// Leaving SCHED_IDLE needs CAP_SYS_NICE: where it is refused the watch stops. Threads that another part manages
// (the twin's flush thread) are skipped.

import { readdirSync, readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { threadScheduling } from '../storage/native-binding.js';

const SCHED_IDLE = 5;
const MAX_HOLD_MS = 10 * 60_000;
const RESTARVED_MS = 1_000;

export interface StarvedThreadWatchOptions {
  readonly everyMs: number;
  readonly starvedMs: number;
  readonly holdMs: number;
  /** Thread ids to leave alone (managed elsewhere). */
  readonly skip: () => readonly number[];
  readonly logger: Logger;
}

export interface StarvedThreadWatch {
  /** Threads lifted out of SCHED_IDLE so far. */
  readonly lifts: number;
  stop(): void;
}

/** Nanoseconds thread `tid` of this process has waited on a run queue (undefined: gone, or not Linux). */
function runDelay(tid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[1]);
  } catch {
    return undefined;
  }
}

function policy(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
  } catch {
    return undefined;
  }
}

export function watchStarvedThreads(o: StarvedThreadWatchOptions): StarvedThreadWatch {
  /** Per thread: run_delay at the last tick; lifted until (0: not lifted), for how long, and when it went back. */
  const threads = new Map<number, { delay: number; until: number; hold: number; backAt: number }>();
  let lifts = 0;
  const tick = (): void => {
    let tids: number[];
    try {
      tids = readdirSync('/proc/self/task').map(Number);
    } catch {
      stop();
      return;
    }
    const now = performance.now();
    const skip = o.skip();
    const seen = new Set<number>();
    for (const tid of tids) {
      if (tid === process.pid || skip.includes(tid)) continue;
      const delay = runDelay(tid);
      if (delay === undefined) continue;
      seen.add(tid);
      const t = threads.get(tid);
      if (!t) {
        threads.set(tid, { delay, until: 0, hold: o.holdMs, backAt: Number.NEGATIVE_INFINITY });
        continue;
      }
      const waitedMs = (delay - t.delay) / 1e6;
      t.delay = delay;
      if (t.until > 0) {
        if (now >= t.until) {
          threadScheduling(tid, true);
          t.until = 0;
          t.backAt = now;
        }
      } else if (waitedMs > o.starvedMs && policy(tid) === SCHED_IDLE) {
        if (!threadScheduling(tid, false)) {
          o.logger.info({ tid }, 'background thread starved for CPU; leaving SCHED_IDLE is not allowed here');
          stop();
          return;
        }
        if (lifts === 0) {
          o.logger.info(
            { tid, waited_ms: Math.round(waitedMs) },
            'background thread starved for CPU: lifted out of SCHED_IDLE',
          );
        } else o.logger.debug({ tid, waited_ms: Math.round(waitedMs) }, 'background thread lifted out of SCHED_IDLE');
        lifts++;
        t.hold = now - t.backAt < RESTARVED_MS + o.everyMs ? Math.min(t.hold * 2, MAX_HOLD_MS) : o.holdMs;
        t.until = now + t.hold;
      }
    }
    for (const tid of threads.keys()) if (!seen.has(tid)) threads.delete(tid);
  };
  const timer = setInterval(tick, o.everyMs).unref();
  function stop(): void {
    clearInterval(timer);
  }
  return {
    get lifts() {
      return lifts;
    },
    stop,
  };
}
