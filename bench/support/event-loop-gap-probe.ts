// Preloaded into a server under test (`node --import dist/bench/support/event-loop-gap-probe.js`, with
// PMEMCQL_GAP_PROBE=FILE): records each time the event loop went more than GAP_MS without running a 1 ms timer,
// with how much of that gap its thread spent running and how much waiting for a CPU (the kernel's schedstat for
// the thread), and V8's GC pauses over 1 ms. That tells a stall the server caused (running: requests, flush steps,
// GC) from one the machine caused (waiting: other processes on the CPUs). Written as JSON when the process exits
// (see event-loop-gaps.ts). Linux only; costs a timer a millisecond, so it is for diagnosis, not for figures.

import { readFileSync, writeFileSync } from 'node:fs';
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** A gap: start (ms since the epoch), length, and the thread's running and run-queue time in it (ms). */
export type Gap = [at: number, ms: number, runningMs: number, waitingMs: number];
/** A GC pause over 1 ms: start (ms since the epoch), length (ms), kind (perf_hooks: 1 minor, 4 major, 8 incremental). */
export type GcPause = [at: number, ms: number, kind: number];

const GAP_MS = 4;

/** Running and run-queue time of the calling thread so far (ms). */
function threadSchedMs(): [number, number] {
  const f = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
  return [Number(f[0]) / 1e6, Number(f[1]) / 1e6];
}

function start(file: string): void {
  const gaps: Gap[] = [];
  const gcs: GcPause[] = [];
  let last = performance.now();
  let [lastRun, lastWait] = threadSchedMs();
  const sample = (): void => {
    const now = performance.now();
    const [run, wait] = threadSchedMs();
    if (now - last > GAP_MS) gaps.push([performance.timeOrigin + last, now - last, run - lastRun, wait - lastWait]);
    last = now;
    lastRun = run;
    lastWait = wait;
  };
  setInterval(sample, 1).unref();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0;
      if (e.duration > 1) gcs.push([performance.timeOrigin + e.startTime, e.duration, kind]);
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    // A gap that ends the process (nothing ref'd is left after it, so the interval never fires again) counts too.
    sample();
    writeFileSync(file, JSON.stringify({ gaps, gcs }));
  });
}

const file = process.env.PMEMCQL_GAP_PROBE;
if (file) start(file);
