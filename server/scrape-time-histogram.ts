// A histogram kept as plain bucket counts, printed in Prometheus' form only when /metrics is scraped. Why:
// prom-client's observe() validates and hashes a label object and allocates a closure per call, too much for
// something recorded per request or per group commit (docs/benchmarks.md).

/** One sample line as prom-client's Registry prints it. */
export interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

export class ScrapeTimeHistogram {
  /** Per bucket, not cumulative; the last one is +Inf. */
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(v: number): void {
    const bounds = this.bounds;
    let b = 0;
    while (b < bounds.length && v > bounds[b]!) b++;
    this.counts[b]!++;
    this.sum += v;
    this.count++;
  }

  /** The _bucket (cumulative, `le`), _sum and _count lines of metric `name`; none before the first observation. */
  values(name: string, labels: Record<string, string> = {}): MetricValue[] {
    if (this.count === 0) return [];
    const out: MetricValue[] = [];
    let cumulative = 0;
    for (let b = 0; b < this.counts.length; b++) {
      cumulative += this.counts[b]!;
      const le = b < this.bounds.length ? this.bounds[b]! : '+Inf';
      out.push({ value: cumulative, labels: { le, ...labels }, metricName: `${name}_bucket` });
    }
    out.push({ value: this.sum, labels, metricName: `${name}_sum` });
    out.push({ value: this.count, labels, metricName: `${name}_count` });
    return out;
  }
}
