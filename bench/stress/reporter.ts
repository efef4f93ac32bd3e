// cassandra-stress's console output: the periodic table (one line per operation type and a `total`
// line each interval) and the closing "Results:" block; it also keeps the series for the HTML report.

import type { GcInterval, GcStats } from './gc-stats.js';
import { emptySeries, type Series, type Summary } from './run-data.js';
import type { IntervalSnapshot, OpStats } from './stats.js';

const HEADINGS = [
  'op/s',
  'pk/s',
  'row/s',
  'mean',
  'med',
  '.95',
  '.99',
  '.999',
  'max',
  'time',
  'stderr',
  'errors',
  'gc: #',
  'max ms',
  'sum ms',
  'sdv ms',
  'mb',
];
const WIDTHS = [8, 8, 8, 8, 8, 8, 8, 8, 8, 7, 9, 7, 7, 8, 8, 8, 8];

/** Java's %,.Nf: thousands separators. */
export function grouped(value: number, decimals = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

function fixed(value: number, decimals: number, width: number): string {
  return (Number.isFinite(value) ? value.toFixed(decimals) : 'NaN').padStart(width);
}

const ms = (micros: number) => micros / 1000;

export function summarise(s: OpStats, seconds: number): Summary {
  const h = s.latency;
  const secs = Math.max(seconds, 1e-9);
  return {
    opRate: s.ops / secs,
    pkRate: s.partitions / secs,
    rowRate: s.rows / secs,
    mean: ms(h.mean()),
    median: ms(h.quantile(0.5)),
    p95: ms(h.quantile(0.95)),
    p99: ms(h.quantile(0.99)),
    p999: ms(h.quantile(0.999)),
    max: ms(h.max),
    ops: s.ops,
    partitions: s.partitions,
    rows: s.rows,
    errors: s.errors,
  };
}

function hhmmss(seconds: number): string {
  const t = Math.floor(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(t / 3600))}:${pad(Math.floor((t % 3600) / 60))}:${pad(t % 60)}`;
}

function prettyMemory(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(3)} GiB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(3)} MiB`;
  return `${(bytes / 1024).toFixed(3)} KiB`;
}

export class Reporter {
  readonly series: Record<string, Series> = {};
  private readonly typeWidth: number;
  private readonly rates: number[] = [];

  constructor(
    private readonly opTypes: readonly string[],
    private readonly print: (line: string) => void,
  ) {
    this.typeWidth = Math.max(10, ...opTypes.map((t) => t.length + 2));
    for (const t of [...opTypes, 'total']) this.series[t] = emptySeries();
  }

  header(): void {
    const cells = HEADINGS.map((h, i) => h.padStart(WIDTHS[i]!));
    this.print(`${'type'.padEnd(this.typeWidth)}${'total ops'.padStart(10)},${cells.join(',')}`);
  }

  /** cassandra-stress's stderr column: the standard error of the mean op rate, relative to it. */
  private stderr(): number {
    const n = this.rates.length;
    if (n < 2) return 0;
    const mean = this.rates.reduce((a, b) => a + b, 0) / n;
    if (mean === 0) return 0;
    const variance = this.rates.reduce((a, r) => a + (r - mean) ** 2, 0) / (n - 1);
    return Math.sqrt(variance) / Math.sqrt(n) / mean;
  }

  private line(type: string, totalOps: number, s: Summary, snap: IntervalSnapshot, stderr: number, gc: GcInterval) {
    const values = [
      fixed(s.opRate, 0, 8),
      fixed(s.pkRate, 0, 8),
      fixed(s.rowRate, 0, 8),
      fixed(s.mean, 1, 8),
      fixed(s.median, 1, 8),
      fixed(s.p95, 1, 8),
      fixed(s.p99, 1, 8),
      fixed(s.p999, 1, 8),
      fixed(s.max, 1, 8),
      fixed(snap.time, 1, 7),
      fixed(stderr, 5, 9),
      String(s.errors).padStart(7),
      fixed(gc.count, 0, 7),
      fixed(gc.maxMs, 0, 8),
      fixed(gc.sumMs, 0, 8),
      fixed(gc.sdvMs, 0, 8),
      fixed(gc.mb, 0, 8),
    ];
    this.print(`${`${type},`.padEnd(this.typeWidth)}${String(totalOps).padStart(10)},${values.join(',')}`);
  }

  private append(type: string, snap: IntervalSnapshot, s: Summary): void {
    const series = this.series[type] ?? emptySeries();
    this.series[type] = series;
    series.time.push(round(snap.time, 3));
    series.seconds ??= [];
    series.seconds.push(round(snap.seconds, 3));
    series.opRate.push(round(s.opRate, 1));
    series.pkRate.push(round(s.pkRate, 1));
    series.rowRate.push(round(s.rowRate, 1));
    series.mean.push(round(s.mean, 3));
    series.median.push(round(s.median, 3));
    series.p95.push(round(s.p95, 3));
    series.p99.push(round(s.p99, 3));
    series.p999.push(round(s.p999, 3));
    series.max.push(round(s.max, 3));
    series.errors.push(s.errors);
  }

  /** Prints one interval (per type when there are several, then total) and records it for the report. */
  interval(snap: IntervalSnapshot, cumulative: Map<string, OpStats>, totalOps: number, gc: GcInterval): void {
    const total = summarise(snap.total, snap.seconds);
    this.rates.push(total.opRate);
    const stderr = this.stderr();
    if (this.opTypes.length > 1) {
      for (const type of this.opTypes) {
        const stats = snap.perType.get(type);
        if (!stats) continue;
        const s = summarise(stats, snap.seconds);
        this.line(type, cumulative.get(type)?.ops ?? 0, s, snap, stderr, gc);
        this.append(type, snap, s);
      }
    } else {
      this.append(this.opTypes[0]!, snap, total);
    }
    this.line('total', totalOps, total, snap, stderr, gc);
    this.append('total', snap, total);
  }

  /** The closing block; returns the summaries per type and 'total'. */
  results(cumulative: Map<string, OpStats>, total: OpStats, seconds: number, gc: GcStats): Record<string, Summary> {
    const summaries: Record<string, Summary> = {};
    for (const type of this.opTypes) summaries[type] = summarise(cumulative.get(type)!, seconds);
    const all = summarise(total, seconds);
    summaries.total = all;
    const per = (f: (s: Summary) => string) => `[${this.opTypes.map((t) => `${t}: ${f(summaries[t]!)}`).join(', ')}]`;
    const p = this.print;
    p('');
    p('');
    p('Results:');
    p(
      `Op rate                   : ${grouped(all.opRate).padStart(8)} op/s  ${per((s) => `${grouped(s.opRate)} op/s`)}`,
    );
    p(
      `Partition rate            : ${grouped(all.pkRate).padStart(8)} pk/s  ${per((s) => `${grouped(s.pkRate)} pk/s`)}`,
    );
    p(
      `Row rate                  : ${grouped(all.rowRate).padStart(8)} row/s ${per((s) => `${grouped(s.rowRate)} row/s`)}`,
    );
    const latency = (label: string, f: (s: Summary) => number) =>
      p(`${label.padEnd(26)}: ${fixed(f(all), 1, 6)} ms ${per((s) => `${f(s).toFixed(1)} ms`)}`);
    latency('Latency mean', (s) => s.mean);
    latency('Latency median', (s) => s.median);
    latency('Latency 95th percentile', (s) => s.p95);
    latency('Latency 99th percentile', (s) => s.p99);
    latency('Latency 99.9th percentile', (s) => s.p999);
    latency('Latency max', (s) => s.max);
    p(`Total partitions          : ${grouped(all.partitions).padStart(10)} ${per((s) => grouped(s.partitions))}`);
    p(`Total errors              : ${grouped(all.errors).padStart(10)} ${per((s) => grouped(s.errors))}`);
    p(`Total GC count            : ${grouped(gc.totalCount)}`);
    p(`Total GC memory           : ${prettyMemory(gc.totalBytes)}`);
    p(`Total GC time             : ${fixed(gc.totalMs / 1000, 1, 6)} seconds`);
    const avg = gc.totalCount ? gc.totalMs / gc.totalCount : Number.NaN;
    p(`Avg GC time               : ${fixed(avg, 1, 6)} ms`);
    const sdv = gc.totalCount ? Math.sqrt(Math.max(0, gc.totalSquares / gc.totalCount - avg * avg)) : 0;
    p(`StdDev GC time            : ${fixed(sdv, 1, 6)} ms`);
    p(`Total operation time      : ${hhmmss(seconds)}`);
    p('');
    return summaries;
  }

  /** YCSB's closing measurements ([OVERALL], [READ], ...), for those who compare with YCSB's own client. */
  ycsbMeasurements(cumulative: Map<string, OpStats>, total: OpStats, seconds: number): void {
    const p = this.print;
    p(`[OVERALL], RunTime(ms), ${Math.round(seconds * 1000)}`);
    p(`[OVERALL], Throughput(ops/sec), ${(total.ops / Math.max(seconds, 1e-9)).toFixed(2)}`);
    for (const type of this.opTypes) {
      const s = cumulative.get(type)!;
      const h = s.latency;
      p(`[${type}], Operations, ${s.ops}`);
      p(`[${type}], AverageLatency(us), ${h.mean().toFixed(2)}`);
      p(`[${type}], MinLatency(us), ${h.count ? h.min : 0}`);
      p(`[${type}], MaxLatency(us), ${h.max}`);
      p(`[${type}], 95thPercentileLatency(us), ${Math.round(h.quantile(0.95))}`);
      p(`[${type}], 99thPercentileLatency(us), ${Math.round(h.quantile(0.99))}`);
      p(`[${type}], Return=OK, ${s.ops}`);
      if (s.errors > 0) p(`[${type}], Return=ERROR, ${s.errors}`);
    }
  }
}

function round(v: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}
