// Per-request counters and latency histograms kept in plain numbers and typed arrays, turned into Prometheus
// metrics only when /metrics is scraped. Why: prom-client's labelled inc()/observe() validate and hash their
// label objects and allocate a closure on every call, ~1-2 µs per request on the hot path (docs/benchmarks.md).

import type { Registry } from 'prom-client';

/** The opcodes a QueryHandler serves, in the order of the arrays below. */
export const REQUEST_OPCODES = ['QUERY', 'PREPARE', 'EXECUTE', 'BATCH'] as const;
export type RequestOpcode = (typeof REQUEST_OPCODES)[number];

/** One sample of a metric as prom-client's Registry prints it. */
interface MetricValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What Registry.registerMetric accepts: anything with a name and a get() in prom-client's shape. */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram' | 'gauge';
  aggregator: 'sum';
  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' };
}

export class RequestStats {
  /** Requests started, by opcode index. */
  readonly started = new Float64Array(REQUEST_OPCODES.length);
  /** Requests answered later (a promise) and not yet settled. */
  inFlight = 0;
  /** Error responses by protocol error code (`0x2200`) or `server`. */
  readonly errors = new Map<string, number>();
  /** Per opcode: `bounds.length + 1` bucket counts (the last for +Inf), not cumulative. */
  private readonly buckets: Float64Array;
  private readonly sums = new Float64Array(REQUEST_OPCODES.length);

  constructor(readonly bounds: readonly number[]) {
    this.buckets = new Float64Array(REQUEST_OPCODES.length * (bounds.length + 1));
  }

  /** Records one answered request: its opcode index and latency in seconds. */
  observe(opcode: number, seconds: number): void {
    const bounds = this.bounds;
    let b = 0;
    while (b < bounds.length && seconds > bounds[b]!) b++;
    this.buckets[opcode * (bounds.length + 1) + b]!++;
    this.sums[opcode]! += seconds;
  }

  error(code: string): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  /** Registers the Prometheus views of these numbers in `registry`. */
  register(registry: Registry, names: { requests: string; errors: string; latency: string; inFlight: string }): void {
    const metric = (
      name: string,
      help: string,
      type: CollectedMetric['type'],
      values: () => MetricValue[],
    ): CollectedMetric => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => ({ name, help, type, values: values(), aggregator: 'sum' }),
    });
    const register = (m: CollectedMetric) =>
      registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
    register(
      metric(names.requests, 'CQL requests by opcode', 'counter', () =>
        REQUEST_OPCODES.flatMap((opcode, i) =>
          this.started[i]! > 0 ? [{ value: this.started[i]!, labels: { opcode } }] : [],
        ),
      ),
    );
    register(
      metric(names.errors, 'Error responses by protocol error code', 'counter', () =>
        [...this.errors].map(([code, value]) => ({ value, labels: { code } })),
      ),
    );
    register(
      metric(names.latency, 'Request latency in the server (decode to response)', 'histogram', () =>
        this.latencyValues(names.latency),
      ),
    );
    register(
      metric(names.inFlight, 'Requests awaiting a result', 'gauge', () => [{ value: this.inFlight, labels: {} }]),
    );
  }

  private latencyValues(name: string): MetricValue[] {
    const out: MetricValue[] = [];
    const width = this.bounds.length + 1;
    REQUEST_OPCODES.forEach((opcode, i) => {
      let count = 0;
      for (let b = 0; b < width; b++) count += this.buckets[i * width + b]!;
      if (count === 0) return;
      let cumulative = 0;
      for (let b = 0; b < width; b++) {
        cumulative += this.buckets[i * width + b]!;
        const le = b < this.bounds.length ? this.bounds[b]! : '+Inf';
        out.push({ value: cumulative, labels: { le, opcode }, metricName: `${name}_bucket` });
      }
      out.push({ value: this.sums[i]!, labels: { opcode }, metricName: `${name}_sum` });
      out.push({ value: count, labels: { opcode }, metricName: `${name}_count` });
    });
    return out;
  }
}
