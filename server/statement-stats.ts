// Latency by what a statement did (Cassandra's ClientRequest read / write metrics) and per table (its table
// metrics' read and write latencies), kept in plain numbers and printed when /metrics is scraped.

import type { Registry } from 'prom-client';
import type { StatementKind, StatementObserver } from '../cql/query-handler.js';
import { registerScrapeTimeMetric } from './request-stats.js';
import { ScrapeTimeHistogram } from './scrape-time-histogram.js';

const KINDS: readonly StatementKind[] = ['read', 'write', 'other'];

interface TableStats {
  keyspace: string;
  table: string;
  read: ScrapeTimeHistogram;
  write: ScrapeTimeHistogram;
}

export class StatementStats {
  private readonly byKind: ScrapeTimeHistogram[];
  private readonly byTable = new Map<string, TableStats>();

  constructor(private readonly bounds: readonly number[]) {
    this.byKind = KINDS.map(() => new ScrapeTimeHistogram(bounds));
  }

  readonly observe: StatementObserver = (kind, table, seconds) => {
    this.byKind[KINDS.indexOf(kind)]!.observe(seconds);
    if (!table || kind === 'other') return;
    let t = this.byTable.get(table.id);
    if (!t) {
      t = {
        keyspace: table.keyspace,
        table: table.name,
        read: new ScrapeTimeHistogram(this.bounds),
        write: new ScrapeTimeHistogram(this.bounds),
      };
      this.byTable.set(table.id, t);
    }
    t[kind].observe(seconds);
  };

  /** `exists` drops the series of tables dropped since (by table id). */
  register(registry: Registry, exists: (tableId: string) => boolean): void {
    registerScrapeTimeMetric(
      registry,
      'pmemcql_client_request_duration_seconds',
      'Statement latency in the server by what it did: read (SELECT), write (INSERT, UPDATE, DELETE, BATCH) or other',
      'histogram',
      () =>
        KINDS.flatMap((request, i) => this.byKind[i]!.values('pmemcql_client_request_duration_seconds', { request })),
    );
    const perTable = (which: 'read' | 'write') => () => {
      for (const id of this.byTable.keys()) if (!exists(id)) this.byTable.delete(id);
      const name = `pmemcql_table_${which}_duration_seconds`;
      return [...this.byTable.values()].flatMap((t) => t[which].values(name, { keyspace: t.keyspace, table: t.table }));
    };
    registerScrapeTimeMetric(
      registry,
      'pmemcql_table_read_duration_seconds',
      'SELECT latency per table',
      'histogram',
      perTable('read'),
    );
    registerScrapeTimeMetric(
      registry,
      'pmemcql_table_write_duration_seconds',
      'Write latency per table (a batch counts once for each table it writes)',
      'histogram',
      perTable('write'),
    );
  }
}
