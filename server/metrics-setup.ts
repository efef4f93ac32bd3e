// Everything metrics: the registry with the server's gauges and hooks, and the HTTP endpoint.
// Loaded after the native transport listens (prom-client takes a while to load), so restarts answer
// their first query sooner.

import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { QueryHandler } from '../cql/query-handler.js';
import type { SchemaCatalog } from '../cql/schema/schema-catalog.js';
import { sizeEstimateRows } from '../cql/system/size-estimates.js';
import type { StorageEngine } from '../storage/storage-engine.js';
import { ServerMetrics } from './metrics.js';
import { startMetricsEndpoint } from './metrics-endpoint.js';

export interface MetricsSetup {
  metrics: ServerMetrics;
  endpoint: Server | undefined;
  /** The handler that records every request. */
  handler: QueryHandler;
}

export async function setupMetrics(o: {
  handler: QueryHandler;
  storage: StorageEngine;
  catalog: SchemaCatalog;
  tokens: readonly string[];
  connections: () => number;
  host: string;
  port: number;
  logger: Logger;
}): Promise<MetricsSetup> {
  // Without an endpoint nothing reads the process gauges (see ServerMetrics).
  const metrics = new ServerMetrics(o.port >= 0);
  o.storage.commit.onCommit = (ops, ms) => {
    metrics.commitOps.observe(ops);
    metrics.commitSeconds.observe(ms / 1000);
  };
  metrics.gauge('pmemcql_pool_bytes', 'Pool size and bytes in use', ['kind'], (g) => {
    const i = o.storage.info;
    g.set({ kind: 'size' }, i.size);
    g.set({ kind: 'used' }, i.used);
  });
  metrics.gauge('pmemcql_connections', 'Open client connections', [], (g) => g.set(o.connections()));
  metrics.gauge('pmemcql_table_partitions', 'Partitions per user table', ['keyspace', 'table'], (g) => {
    for (const r of sizeEstimateRows(o.catalog, o.storage, o.tokens.slice(0, 1))) {
      g.set({ keyspace: String(r.keyspace_name), table: String(r.table_name) }, Number(r.partitions_count));
    }
  });
  metrics.statements.register(metrics.registry, (id) => {
    for (const ks of o.catalog.keyspaces()) for (const t of ks.tables.values()) if (t.id === id) return true;
    return false;
  });
  // Timing every statement is only worth it when something scrapes the numbers.
  if (o.port >= 0) o.handler.observeStatements?.(metrics.statements.observe);
  const endpoint = o.port >= 0 ? await startMetricsEndpoint(metrics, o.host, o.port, o.logger) : undefined;
  return { metrics, endpoint, handler: metrics.wrap(o.handler) };
}
