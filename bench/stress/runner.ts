// Runs a workload: `threads` concurrent request loops sharing one operation counter, bounded by a
// count and/or a deadline, optionally paced by a rate limit. Every `interval` seconds it closes an
// interval (periodic line, report series); failed operations are retried, then counted as errors
// and — unless errors are ignored — stop the run.

import { GcStats } from './gc-stats.js';
import { ProgressBar } from './progress.js';
import { RateLimiter } from './rate-limiter.js';
import { Reporter } from './reporter.js';
import { StatsCollector } from './stats.js';
import type { Operation, OpResult, Workload } from './workload.js';

export interface RunOptions {
  /** Operations to run (undefined: until the deadline). */
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
      ? new ProgressBar(this.workload.name, o.count, o.durationMs !== undefined ? o.durationMs / 1000 : undefined)
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

    const worker = async (): Promise<void> => {
      while (!this.stopped) {
        if (o.count !== undefined && issued >= o.count) return;
        if (performance.now() >= deadline) return;
        issued++;
        let start = limiter ? await limiter.acquire() : performance.now();
        if (this.stopped || performance.now() >= deadline) return;
        if (!o.fixedRate) start = performance.now();
        const op = this.workload.next();
        const result = await execute(op);
        op.done?.();
        if (result) collector.record(op.type, (performance.now() - start) * 1000, result.partitions, result.rows);
        else collector.error(op.type);
      }
    };

    const closeInterval = () => {
      const snap = collector.snapshot(performance.now());
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
            { done: collector.finished, opRate: lastRate, p99: lastP99, errors: collector.errors },
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
    bar?.update({ done: collector.finished, opRate: lastRate, p99: lastP99, errors: collector.errors }, seconds);
    bar?.stop();
    gc.stop();
    return { collector, reporter, gc, startedAt, seconds, failure, interrupted: this.interrupted };
  }
}
