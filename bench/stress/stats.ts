// Counters for one kind of operation over some span (an interval or the whole run): ops, partitions,
// rows, errors and a latency histogram; and the collector that keeps one per operation type for the
// current interval and for the whole run.

import { LatencyHistogram } from './histogram.js';

export class OpStats {
  readonly latency = new LatencyHistogram();
  ops = 0;
  partitions = 0;
  rows = 0;
  errors = 0;

  add(other: OpStats): void {
    this.latency.add(other.latency);
    this.ops += other.ops;
    this.partitions += other.partitions;
    this.rows += other.rows;
    this.errors += other.errors;
  }
}

export interface IntervalSnapshot {
  /** Seconds since the run started, at the end of this interval. */
  time: number;
  /** Seconds this interval lasted. */
  seconds: number;
  perType: Map<string, OpStats>;
  total: OpStats;
}

export class StatsCollector {
  private interval = new Map<string, OpStats>();
  readonly cumulative = new Map<string, OpStats>();
  private lastSnapshot: number;
  /** Operations finished so far (successes and failures), for the progress bar. */
  finished = 0;
  errors = 0;

  constructor(
    readonly opTypes: readonly string[],
    private readonly startedAt: number,
  ) {
    this.lastSnapshot = startedAt;
    for (const t of opTypes) {
      this.interval.set(t, new OpStats());
      this.cumulative.set(t, new OpStats());
    }
  }

  private statsFor(type: string): OpStats {
    let s = this.interval.get(type);
    if (!s) {
      s = new OpStats();
      this.interval.set(type, s);
      this.cumulative.set(type, new OpStats());
    }
    return s;
  }

  record(type: string, micros: number, partitions: number, rows: number): void {
    const s = this.statsFor(type);
    s.ops += 1;
    s.partitions += partitions;
    s.rows += rows;
    s.latency.record(micros);
    this.finished += 1;
  }

  error(type: string): void {
    this.statsFor(type).errors += 1;
    this.finished += 1;
    this.errors += 1;
  }

  /** Closes the current interval: returns its counters and folds them into the run's. */
  snapshot(now: number): IntervalSnapshot {
    const perType = this.interval;
    this.interval = new Map([...perType.keys()].map((t) => [t, new OpStats()]));
    const total = new OpStats();
    for (const [type, s] of perType) {
      total.add(s);
      this.cumulative.get(type)!.add(s);
    }
    const seconds = Math.max(1e-6, (now - this.lastSnapshot) / 1000);
    this.lastSnapshot = now;
    return { time: (now - this.startedAt) / 1000, seconds, perType, total };
  }

  cumulativeTotal(): OpStats {
    const total = new OpStats();
    for (const s of this.cumulative.values()) total.add(s);
    return total;
  }
}
