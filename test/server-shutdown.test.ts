// Graceful shutdown on SIGTERM: in-flight writes are answered, the pool is closed, the process
// exits 0, and a restart on the same data sees every acknowledged write.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from './support/server-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'pmemcql-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function connect(port: number): cassandra.Client {
  return new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
}

describe('graceful shutdown', () => {
  it('answers in-flight writes, exits 0, and keeps acknowledged data', async () => {
    const server = await startServer({ dataDir });
    const client = connect(server.port);
    await client.connect();
    await client.execute("CREATE KEYSPACE s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    await client.execute('CREATE TABLE s.t (k int PRIMARY KEY, v int)');
    const acknowledged: number[] = [];
    const writes = Array.from({ length: 200 }, (_, i) =>
      client.execute('INSERT INTO s.t (k, v) VALUES (?, ?)', [i, i], { prepare: true }).then(
        () => acknowledged.push(i),
        () => undefined,
      ),
    );
    const code = await server.stop('SIGTERM');
    await Promise.all(writes);
    await client.shutdown();
    expect(code).toBe(0);
    expect(server.output()).toContain('"msg":"shutting down"');
    expect(server.output()).toContain('"msg":"stopped"');

    const again = await startServer({ dataDir });
    const c2 = connect(again.port);
    try {
      await c2.connect();
      const rows = (await c2.execute('SELECT k FROM s.t')).rows.map((r) => r.k as number);
      for (const k of acknowledged) expect(rows).toContain(k);
    } finally {
      await c2.shutdown();
      await again.stop();
    }
  });
});
