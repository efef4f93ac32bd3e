// Per-request counters and latency histograms kept in plain numbers, turned into Prometheus metrics only when
// /metrics is scraped (see scrape-time-histogram.ts for why), plus the registration of such metrics.

import type { Registry } from 'prom-client';
import { type MetricValue, ScrapeTimeHistogram } from './scrape-time-histogram.js';

/** The opcodes a QueryHandler serves, in the order of the arrays below. */
export const REQUEST_OPCODES = ['QUERY', 'PREPARE', 'EXECUTE', 'BATCH'] as const;
export type RequestOpcode = (typeof REQUEST_OPCODES)[number];

/** Registers a metric whose samples `values` computes at scrape time (what Registry.registerMetric accepts). */
export function registerScrapeTimeMetric(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram' | 'gauge',
  values: () => MetricValue[],
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => ({ name, help, type, values: values(), aggregator: 'sum' }),
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

export class RequestStats {
  /** Requests started, by opcode index. */
  readonly started = new Float64Array(REQUEST_OPCODES.length);
  /** Requests answered later (a promise) and not yet settled. */
  inFlight = 0;
  /** Error responses by the protocol's error name (`invalid`), or `server_error` for anything else. */
  readonly errors = new Map<string, number>();
  /** Latency in seconds, by opcode index. */
  readonly latency: ScrapeTimeHistogram[];

  constructor(bounds: readonly number[]) {
    this.latency = REQUEST_OPCODES.map(() => new ScrapeTimeHistogram(bounds));
  }

  error(name: string): void {
    this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
  }

  /** Registers the Prometheus views of these numbers in `registry`. */
  register(registry: Registry, names: { requests: string; errors: string; latency: string; inFlight: string }): void {
    registerScrapeTimeMetric(registry, names.requests, 'CQL requests by opcode', 'counter', () =>
      REQUEST_OPCODES.flatMap((opcode, i) =>
        this.started[i]! > 0 ? [{ value: this.started[i]!, labels: { opcode } }] : [],
      ),
    );
    registerScrapeTimeMetric(registry, names.errors, 'Error responses by protocol error name', 'counter', () =>
      [...this.errors].map(([error, value]) => ({ value, labels: { error } })),
    );
    registerScrapeTimeMetric(
      registry,
      names.latency,
      'Request latency in the server (decode to response)',
      'histogram',
      () => REQUEST_OPCODES.flatMap((opcode, i) => this.latency[i]!.values(names.latency, { opcode })),
    );
    registerScrapeTimeMetric(registry, names.inFlight, 'Requests awaiting a result', 'gauge', () => [
      { value: this.inFlight, labels: {} },
    ]);
  }
}
