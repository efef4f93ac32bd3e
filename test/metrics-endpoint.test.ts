// The Prometheus endpoint of a real server: readiness, request and storage metrics, and every metric
// the Grafana dashboard (docker/grafana-dashboard.json) plots.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let metricsPort: number;
let client: cassandra.Client;

async function scrape(): Promise<string> {
  return await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
}

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({ args: ['--metrics-port', String(metricsPort)] });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await client.execute("CREATE KEYSPACE m WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE m.t (k int PRIMARY KEY, v text)');
  for (let i = 0; i < 10; i++)
    await client.execute('INSERT INTO m.t (k, v) VALUES (?, ?)', [i, 'x'], { prepare: true });
  await client.execute('SELECT * FROM m.nope').catch(() => undefined);
});

afterAll(async () => {
  await client?.shutdown();
  await server?.stop();
});

describe('metrics endpoint', () => {
  it('answers /ready with 200 once CQL is served', async () => {
    const r = await fetch(`http://127.0.0.1:${metricsPort}/ready`);
    expect(r.status).toBe(200);
  });

  it('counts requests by opcode, errors by name, commits and partitions', async () => {
    const text = await scrape();
    const value = (line: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(line))
          ?.split(' ')
          .pop(),
      );
    expect(value('pmemcql_requests_total{opcode="EXECUTE"}')).toBeGreaterThanOrEqual(10);
    expect(value('pmemcql_request_errors_total{error="invalid"}')).toBeGreaterThanOrEqual(1);
    expect(value('pmemcql_group_commit_ops_count')).toBeGreaterThanOrEqual(1);
    expect(value('pmemcql_table_partitions{keyspace="m",table="t"}')).toBe(10);
    expect(value('pmemcql_connections')).toBeGreaterThanOrEqual(1);
    expect(value('pmemcql_pool_bytes{kind="size"}')).toBeGreaterThan(0);
  });

  it('times statements as reads, writes and others, and per table, as Cassandra client request and table metrics', async () => {
    await client.execute('SELECT * FROM m.t WHERE k = 1', [], { prepare: true });
    await client.batch(["INSERT INTO m.t (k, v) VALUES (20, 'b')"], {});
    const text = await scrape();
    const value = (line: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(line))
          ?.split(' ')
          .pop(),
      );
    expect(value('pmemcql_client_request_duration_seconds_count{request="write"}')).toBeGreaterThanOrEqual(11);
    expect(value('pmemcql_client_request_duration_seconds_count{request="read"}')).toBeGreaterThanOrEqual(1);
    expect(value('pmemcql_client_request_duration_seconds_count{request="other"}')).toBeGreaterThanOrEqual(2);
    expect(value('pmemcql_table_write_duration_seconds_count{keyspace="m",table="t"}')).toBe(11);
    expect(value('pmemcql_table_read_duration_seconds_count{keyspace="m",table="t"}')).toBe(1);
  });

  it("uses the standard process_* and nodejs_* names and passes Prometheus' promtool", async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
    expect(text).not.toMatch(/^pmemcql_process_|^pmemcql_nodejs_/m);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (check.error) {
      console.warn(
        'metrics-endpoint.test: promtool not installed (scripts/setup.sh test installs prometheus); check skipped',
      );
      return;
    }
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });

  it('exposes every metric the Grafana dashboard plots', async () => {
    const text = await scrape();
    const dashboard = JSON.parse(
      readFileSync(new URL('../docker/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: { targets: { expr: string }[] }[];
    };
    const names = new Set(
      dashboard.panels.flatMap((p) =>
        p.targets.flatMap((t) => t.expr.match(/\b(pmemcql|process|nodejs)_[a-z0-9_]+/g) ?? []),
      ),
    );
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      expect(text.includes(`\n${name}`) || text.includes(`# TYPE ${base} `), name).toBe(true);
    }
  });
});
