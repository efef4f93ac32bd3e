// Prometheus metrics: requests by opcode, latency histograms, errors by code, connections, in-flight
// requests, pool usage, partitions per table, group-commit sizes. Requests are measured by wrapping
// the QueryHandler, so the protocol code stays untouched.

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { CqlError } from '../cql/errors.js';
import type {
  BatchRequest,
  ClientState,
  QueryHandler,
  QueryOptions,
  ResultMessage,
  ServerEvent,
} from '../cql/query-handler.js';

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'pmemcql_requests_total',
    help: 'CQL requests by opcode',
    labelNames: ['opcode'],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'pmemcql_request_errors_total',
    help: 'Error responses by protocol error code',
    labelNames: ['code'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'pmemcql_request_duration_seconds',
    help: 'Request latency in the server (decode to response)',
    labelNames: ['opcode'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'pmemcql_requests_in_flight',
    help: 'Requests awaiting a result',
    registers: [this.registry],
  });
  readonly commitOps = new Histogram({
    name: 'pmemcql_group_commit_ops',
    help: 'Writes per group-commit transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096],
    registers: [this.registry],
  });
  readonly commitSeconds = new Histogram({
    name: 'pmemcql_group_commit_seconds',
    help: 'Time to apply one group-commit transaction',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  ready = false;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'pmemcql_' });
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
    const observe = <T extends ResultMessage>(opcode: string, run: () => T | Promise<T>): T | Promise<T> => {
      const t0 = performance.now();
      this.requests.inc({ opcode });
      const done = (err: unknown) => {
        this.latency.observe({ opcode }, (performance.now() - t0) / 1000);
        if (err !== undefined)
          this.errors.inc({ code: err instanceof CqlError ? `0x${err.code.toString(16).padStart(4, '0')}` : 'server' });
      };
      let result: T | Promise<T>;
      try {
        result = run();
      } catch (e) {
        done(e);
        throw e;
      }
      if (!(result instanceof Promise)) {
        done(undefined);
        return result;
      }
      this.inFlight.inc();
      return result.then(
        (r) => {
          this.inFlight.dec();
          done(undefined);
          return r;
        },
        (e: unknown) => {
          this.inFlight.dec();
          done(e);
          throw e;
        },
      );
    };
    return {
      query: (s: ClientState, q: string, o: QueryOptions) => observe('QUERY', () => inner.query(s, q, o)),
      prepare: (s: ClientState, q: string, k: string | undefined) => observe('PREPARE', () => inner.prepare(s, q, k)),
      execute: (s: ClientState, id: Buffer, md: Buffer | undefined, o: QueryOptions) =>
        observe('EXECUTE', () => inner.execute(s, id, md, o)),
      batch: (s: ClientState, b: BatchRequest) => observe('BATCH', () => inner.batch(s, b)),
      onEvent: (l: (e: ServerEvent) => void) => inner.onEvent(l),
    };
  }
}
