// Runs a workload: `threads` concurrent request loops sharing one counter of permits (operations,
// or a profile insert's partitions), bounded by a count and/or a deadline, optionally paced by a
// rate limit. Every `interval` seconds it closes an interval (periodic line, report series, HDR log);
// failed operations are retried, then counted as errors and — unless errors are ignored — stop the
// run. A loop ends early when the workload runs out of operations.

import { GcStats } from './gc-stats.js';
import type { HdrLatencyLog } from './hdr-log.js';
import { ProgressBar } from './progress.js';
import { RateLimiter } from './rate-limiter.js';
import { Reporter } from './reporter.js';
import { StatsCollector } from './stats.js';
import { type Operation, type OpResult, ValidationError, type Workload } from './workload.js';

export interface RunOptions {
  /** Permits to use (operations; a profile insert's partitions), undefined: until the deadline. */
  count?: number;
  /** Milliseconds (undefined: until count). */
  durationMs?: number;
  threads: number;
  rateLimit?: number;
  fixedRate: boolean;
  retries: number;
  ignoreErrors: boolean;
  intervalSeconds: number;
  progress: boolean;
  print: (line: string) => void;
  /** What count= counts, for the progress bar (default ops). */
  countUnit?: string;
  /** -log hdrfile=: every interval's latencies as HdrHistograms. */
  hdrLog?: HdrLatencyLog;
}

export interface RunOutcome {
  collector: StatsCollector;
  reporter: Reporter;
  gc: GcStats;
  startedAt: Date;
  seconds: number;
  /** The error that stopped the run, when one did. */
  failure?: unknown;
  interrupted: boolean;
}

export class Runner {
  private stopped = false;
  private interrupted = false;

  constructor(
    private readonly workload: Workload,
    private readonly options: RunOptions,
  ) {}

  /** Stops issuing operations (Ctrl-C); the ones in flight finish and the run reports as usual. */
  interrupt(): void {
    this.stopped = true;
    this.interrupted = true;
  }

  async run(): Promise<RunOutcome> {
    const o = this.options;
    const startedAt = new Date();
    const t0 = performance.now();
    const deadline = o.durationMs !== undefined ? t0 + o.durationMs : Number.POSITIVE_INFINITY;
    const collector = new StatsCollector(this.workload.opTypes, t0);
    const gc = new GcStats();
    const bar = ProgressBar.enabled(o.progress)
      ? new ProgressBar(
          this.workload.name,
          o.count,
          o.durationMs !== undefined ? o.durationMs / 1000 : undefined,
          o.countUnit,
        )
      : undefined;
    const print = bar
      ? (line: string) => {
          bar.clear();
          o.print(line);
        }
      : o.print;
    const reporter = new Reporter(this.workload.opTypes, print);
    const limiter = o.rateLimit ? new RateLimiter(o.rateLimit, t0) : undefined;
    let issued = 0;
    let failure: unknown;
    let lastRate = 0;
    let lastP99 = 0;

    const execute = async (op: Operation): Promise<OpResult | undefined> => {
      let lastError: unknown;
      for (let attempt = 0; attempt <= o.retries; attempt++) {
        try {
          return await op.execute();
        } catch (e) {
          lastError = e;
          // As cassandra-stress: a result that does not validate is not retried.
          if (e instanceof ValidationError) break;
          if (this.stopped && !this.interrupted) break;
          if (attempt < o.retries) await new Promise((ok) => setTimeout(ok, Math.min(100, 2 ** attempt)));
        }
      }
      if (!o.ignoreErrors && failure === undefined) {
        failure = lastError;
        this.stopped = true;
      }
      return undefined;
    };

    let permitsDone = 0;
    const worker = async (): Promise<void> => {
      while (!this.stopped) {
        const budget = o.count !== undefined ? o.count - issued : Number.POSITIVE_INFINITY;
        if (budget <= 0) return;
        if (performance.now() >= deadline) return;
        const op = this.workload.next(budget);
        if (!op) return;
        const permits = op.permits ?? 1;
        issued += permits;
        const intended = limiter ? await limiter.acquire() : undefined;
        if (this.stopped || performance.now() >= deadline) {
          op.done?.();
          return;
        }
        const started = performance.now();
        const result = await execute(op);
        const ended = performance.now();
        op.done?.();
        permitsDone += permits;
        if (result) {
          const from = o.fixedRate && intended !== undefined ? intended : started;
          collector.record(op.type, (ended - from) * 1000, result.partitions, result.rows);
          o.hdrLog?.record(op.type, started, ended, intended);
        } else collector.error(op.type);
      }
    };

    let intervalStart = t0;
    const closeInterval = () => {
      const now = performance.now();
      o.hdrLog?.interval(intervalStart, now);
      intervalStart = now;
      const snap = collector.snapshot(now);
      if (snap.total.ops === 0 && snap.total.errors === 0 && snap.seconds < o.intervalSeconds / 2) return;
      const totalOps = collector.cumulativeTotal().ops;
      reporter.interval(snap, collector.cumulative, totalOps, gc.interval());
      lastRate = snap.total.ops / snap.seconds;
      lastP99 = snap.total.latency.quantile(0.99) / 1000;
    };

    reporter.header();
    gc.start();
    bar?.start();
    const ticker = setInterval(closeInterval, o.intervalSeconds * 1000);
    const barTicker = bar
      ? setInterval(() => {
          bar.update(
            { done: permitsDone, opRate: lastRate, p99: lastP99, errors: collector.errors },
            (performance.now() - t0) / 1000,
          );
        }, 250)
      : undefined;
    try {
      await Promise.all(
        Array.from({ length: o.threads }, () =>
          worker().catch((e: unknown) => {
            failure ??= e;
            this.stopped = true;
          }),
        ),
      );
    } finally {
      clearInterval(ticker);
      if (barTicker) clearInterval(barTicker);
    }
    const seconds = (performance.now() - t0) / 1000;
    closeInterval();
    bar?.update({ done: permitsDone, opRate: lastRate, p99: lastP99, errors: collector.errors }, seconds);
    bar?.stop();
    gc.stop();
    return { collector, reporter, gc, startedAt, seconds, failure, interrupted: this.interrupted };
  }
}
