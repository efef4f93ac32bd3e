// cassandra-stress's -rate auto: the same run repeated at growing thread counts (4, 8, 16, 24, 36,
// 54, 81, ...) until three steps in a row fail to beat the best op rate by 5 %, or the ceiling is
// passed; then a table of every step.

import { grouped } from './reporter.js';
import type { Summary } from './run-data.js';

export function nextThreadCount(threads: number): number {
  return threads < 16 ? threads * 2 : Math.floor(threads * 1.5);
}

export class AutoThreads {
  private best = 0;
  private misses = 0;
  readonly steps: { threads: number; summary: Summary }[] = [];

  constructor(
    private readonly min: number,
    private readonly max: number,
  ) {}

  first(): number {
    return this.min;
  }

  /** Records a step; returns the next thread count, or undefined when the ramp is over. */
  record(threads: number, summary: Summary): number | undefined {
    this.steps.push({ threads, summary });
    if (summary.opRate > this.best * 1.05) {
      this.best = summary.opRate;
      this.misses = 0;
    } else this.misses += 1;
    const next = nextThreadCount(threads);
    return this.misses >= 3 || next > this.max ? undefined : next;
  }

  /** "Improvement over N threadCount: X%" after each step but the first. */
  improvement(): string | undefined {
    const n = this.steps.length;
    if (n < 2) return undefined;
    const prev = this.steps[n - 2]!;
    const cur = this.steps[n - 1]!;
    const pct = prev.summary.opRate > 0 ? Math.round((cur.summary.opRate / prev.summary.opRate - 1) * 100) : 0;
    return `Improvement over ${prev.threads} threadCount: ${pct}%`;
  }

  table(print: (line: string) => void): void {
    const head = ['total ops', 'op/s', 'pk/s', 'row/s', 'mean', 'med', '.95', '.99', '.999', 'max', 'errors'];
    print(`${'id'.padStart(15)}, ${head.map((h) => h.padStart(9)).join(', ')}`);
    for (const { threads, summary: s } of this.steps) {
      const cells = [
        String(s.ops),
        grouped(s.opRate),
        grouped(s.pkRate),
        grouped(s.rowRate),
        s.mean.toFixed(1),
        s.median.toFixed(1),
        s.p95.toFixed(1),
        s.p99.toFixed(1),
        s.p999.toFixed(1),
        s.max.toFixed(1),
        String(s.errors),
      ];
      print(`${`${threads} threadCount`.padStart(15)}, ${cells.map((c) => c.padStart(9)).join(', ')}`);
    }
  }
}
