// Prometheus metrics: requests by opcode, latency histograms, errors by code, connections, in-flight
// requests, pool usage, partitions per table, group-commit sizes. Requests are measured by wrapping
// the QueryHandler, so the protocol code stays untouched.

// Imported, not the global: globalThis.performance is an accessor Node resolves on every use.
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { CqlError, ErrorCode } from '../cql/errors.js';
import type {
  BatchRequest,
  ClientState,
  QueryHandler,
  QueryOptions,
  ResultMessage,
  ServerEvent,
} from '../cql/query-handler.js';
import { REQUEST_OPCODES, type RequestOpcode, RequestStats, registerScrapeTimeMetric } from './request-stats.js';
import { ScrapeTimeHistogram } from './scrape-time-histogram.js';
import { StatementStats } from './statement-stats.js';

const ERROR_NAMES = new Map<number, string>(
  Object.entries(ErrorCode).map(([name, code]) => [code, name.toLowerCase()]),
);

/** `invalid`, `unavailable`, `syntax_error`: the protocol's error names, as labels. */
function errorName(code: number): string {
  return ERROR_NAMES.get(code) ?? `0x${code.toString(16).padStart(4, '0')}`;
}

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class ServerMetrics {
  readonly registry = new Registry();
  /** Requests by opcode, errors by code, latency and in-flight requests: plain numbers until scraped. */
  readonly requests = new RequestStats(LATENCY_BUCKETS);
  /** Latency by read / write / other, and per table. */
  readonly statements = new StatementStats(LATENCY_BUCKETS);
  /** Writes per group-commit transaction, and the time apply() took (seconds): recorded per commit. */
  readonly commitOps = new ScrapeTimeHistogram([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]);
  readonly commitSeconds = new ScrapeTimeHistogram(LATENCY_BUCKETS);
  ready = false;

  /**
   * `processMetrics`: prom-client's process and Node.js gauges, only worth having when something scrapes them —
   * their event-loop lag monitor wakes the event loop every 10 ms, also when the server is idle.
   */
  constructor(processMetrics = true) {
    this.requests.register(this.registry, {
      requests: 'pmemcql_requests_total',
      errors: 'pmemcql_request_errors_total',
      latency: 'pmemcql_request_duration_seconds',
      inFlight: 'pmemcql_requests_in_flight',
    });
    registerScrapeTimeMetric(
      this.registry,
      'pmemcql_group_commit_ops',
      'Writes per group-commit transaction',
      'histogram',
      () => this.commitOps.values('pmemcql_group_commit_ops'),
    );
    registerScrapeTimeMetric(
      this.registry,
      'pmemcql_group_commit_seconds',
      'Time to apply one group-commit transaction',
      'histogram',
      () => this.commitSeconds.values('pmemcql_group_commit_seconds'),
    );
    // prom-client's standard names (process_*, nodejs_*), as dashboards and alerts expect them; its three gauges
    // named *_total (what Prometheus keeps for counters) go, their unsuffixed twins stay.
    if (processMetrics) {
      collectDefaultMetrics({ register: this.registry });
      for (const name of [
        'nodejs_active_handles_total',
        'nodejs_active_requests_total',
        'nodejs_active_resources_total',
      ])
        this.registry.removeSingleMetric(name);
    }
    this.gauge('pmemcql_ready', '1 once the server accepts CQL connections', [], (g) => g.set(this.ready ? 1 : 0));
  }

  /** Gauges computed when scraped. */
  gauge(name: string, help: string, labelNames: string[], collect: (g: Gauge) => void): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        collect(this);
      },
    });
  }

  /** A QueryHandler that records every request, delegating to `inner`. */
  wrap(inner: QueryHandler): QueryHandler {
    const stats = this.requests;
    const failed = (err: unknown) => stats.error(err instanceof CqlError ? errorName(err.code) : 'server_error');
    const observe = <T extends ResultMessage>(opcode: number, result: T | Promise<T>, t0: number): T | Promise<T> => {
      if (!(result instanceof Promise)) {
        stats.latency[opcode]!.observe((performance.now() - t0) / 1000);
        return result;
      }
      stats.inFlight++;
      return result.then(
        (r) => {
          stats.inFlight--;
          stats.latency[opcode]!.observe((performance.now() - t0) / 1000);
          return r;
        },
        (e: unknown) => {
          stats.inFlight--;
          stats.latency[opcode]!.observe((performance.now() - t0) / 1000);
          failed(e);
          throw e;
        },
      );
    };
    const run = <T extends ResultMessage>(opcode: number, call: () => T | Promise<T>): T | Promise<T> => {
      const t0 = performance.now();
      stats.started[opcode]!++;
      let result: T | Promise<T>;
      try {
        result = call();
      } catch (e) {
        stats.latency[opcode]!.observe((performance.now() - t0) / 1000);
        failed(e);
        throw e;
      }
      return observe(opcode, result, t0);
    };
    const index = (opcode: RequestOpcode) => REQUEST_OPCODES.indexOf(opcode);
    const [QUERY, PREPARE, EXECUTE, BATCH] = [index('QUERY'), index('PREPARE'), index('EXECUTE'), index('BATCH')];
    return {
      query: (s: ClientState, q: string, o: QueryOptions) => run(QUERY, () => inner.query(s, q, o)),
      prepare: (s: ClientState, q: string, k: string | undefined) => run(PREPARE, () => inner.prepare(s, q, k)),
      execute: (s: ClientState, id: Buffer, md: Buffer | undefined, o: QueryOptions) =>
        run(EXECUTE, () => inner.execute(s, id, md, o)),
      batch: (s: ClientState, b: BatchRequest) => run(BATCH, () => inner.batch(s, b)),
      onEvent: (l: (e: ServerEvent) => void) => inner.onEvent(l),
    };
  }
}
