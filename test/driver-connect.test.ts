// The DataStax Node.js driver (4.x) against the real server: connecting at each protocol version
// it speaks, the metadata it builds (keyspaces, token map, replicas), token-aware routing of a
// prepared insert, the system.local / peers rows it reads, schema versions and SCHEMA_CHANGE events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
const clients: cassandra.Client[] = [];

function newClient(options: Partial<cassandra.ClientOptions> = {}, port = server.port): cassandra.Client {
  const client = new cassandra.Client({
    contactPoints: [`127.0.0.1:${port}`],
    localDataCenter: 'datacenter1',
    ...options,
  });
  clients.push(client);
  return client;
}

function protocolVersionOf(client: cassandra.Client): number {
  return (client as unknown as { controlConnection: { protocolVersion: number } }).controlConnection.protocolVersion;
}

async function localRow(client: cassandra.Client): Promise<cassandra.types.Row> {
  const rs = await client.execute("SELECT * FROM system.local WHERE key = 'local'");
  expect(rs.rows).toHaveLength(1);
  return rs.rows[0];
}

async function waitFor(check: () => boolean, timeoutMs = 8000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return check();
}

const REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

/** A load balancing policy that remembers the routing key of every query plan it is asked for. */
class RecordingPolicy extends cassandra.policies.loadBalancing.DefaultLoadBalancingPolicy {
  readonly routingKeys: (Buffer | Buffer[] | undefined)[] = [];
  override newQueryPlan(
    keyspace: string,
    executionOptions: cassandra.ExecutionOptions,
    callback: (error: Error, iterator: Iterator<cassandra.Host>) => void,
  ): void {
    this.routingKeys.push(executionOptions?.getRoutingKey?.());
    super.newQueryPlan(keyspace, executionOptions, callback);
  }
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  reportIfDied(server);
  await Promise.all(clients.map((c) => c.shutdown().catch(() => undefined)));
  await server?.stop();
});

describe('connecting', () => {
  it('connects with default options and negotiates v4 (the highest the Node driver speaks)', async () => {
    const client = newClient();
    await client.connect();
    expect(protocolVersionOf(client)).toBe(4);
    expect(
      client
        .getState()
        .getConnectedHosts()
        .map((h) => h.address),
    ).toEqual([`127.0.0.1:${server.port}`]);
    const row = await localRow(client);
    expect(row.key).toBe('local');
  });

  for (const maxVersion of [3, 4]) {
    it(`connects with protocolOptions.maxVersion = ${maxVersion} and runs simple and prepared queries`, async () => {
      const client = newClient({ protocolOptions: { maxVersion } });
      await client.connect();
      expect(protocolVersionOf(client)).toBe(maxVersion);
      const simple = await client.execute("SELECT release_version FROM system.local WHERE key = 'local'");
      expect(String(simple.rows[0].release_version)).toMatch(/^5\.0/);
      const prepared = await client.execute('SELECT cluster_name FROM system.local WHERE key = ?', ['local'], {
        prepare: true,
      });
      expect(prepared.rows).toHaveLength(1);
      expect(typeof prepared.rows[0].cluster_name).toBe('string');
    });
  }
});

describe('metadata', () => {
  let client: cassandra.Client;
  beforeAll(async () => {
    client = newClient();
    await client.connect();
  });

  it('lists the system keyspaces', () => {
    const names = Object.keys(client.metadata.keyspaces);
    for (const ks of ['system', 'system_schema', 'system_auth', 'system_distributed', 'system_traces']) {
      expect(names).toContain(ks);
    }
  });

  it('lists the virtual keyspaces when they are exposed', async () => {
    const rs = await client.execute('SELECT keyspace_name FROM system_virtual_schema.keyspaces');
    const virtual = rs.rows.map((r) => r.keyspace_name as string);
    expect(virtual).toContain('system_views');
    expect(virtual).toContain('system_virtual_schema');
  });

  it('has a Murmur3 token map covering the ring with one range per token', async () => {
    const { tokenizer } = client.metadata as unknown as { tokenizer?: object };
    expect(tokenizer).toBeTruthy();
    expect(tokenizer?.constructor.name).toBe('Murmur3Tokenizer');
    const local = await localRow(client);
    const tokens = local.tokens as string[];
    const ranges = client.metadata.getTokenRanges();
    expect(ranges.size).toBe(tokens.length);
    const host = client.getState().getConnectedHosts()[0];
    expect(host.tokens.slice().sort()).toEqual(tokens.slice().sort());
    expect(host.datacenter).toBe('datacenter1');
    expect(host.rack).toBe('rack1');
  });

  it('gives the one local host as replica of any key of a SimpleStrategy keyspace', async () => {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_replicas WITH replication = ${REPLICATION}`);
    const replicas = client.metadata.getReplicas('dc_replicas', Buffer.from([0, 0, 0, 1]));
    expect(replicas.map((h) => h.address)).toEqual([`127.0.0.1:${server.port}`]);
  });

  it('getTable() parses a table with options, DESC clustering, static and collection columns', async () => {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_meta WITH replication = ${REPLICATION}`);
    await client.execute(
      'CREATE TABLE IF NOT EXISTS dc_meta.t (k text, c1 int, c2 timestamp, v map<text, int>, s int static, ' +
        "PRIMARY KEY ((k), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC) AND comment = 'hi' " +
        'AND default_time_to_live = 42 AND gc_grace_seconds = 100',
    );
    const t = await client.metadata.getTable('dc_meta', 't');
    expect(t).toBeTruthy();
    expect(t?.partitionKeys.map((c) => c.name)).toEqual(['k']);
    expect(t?.clusteringKeys.map((c) => c.name)).toEqual(['c1', 'c2']);
    expect(t?.clusteringOrder).toEqual(['DESC', 'ASC']);
    expect(t?.columns.map((c) => c.name)).toEqual(['c1', 'c2', 'k', 's', 'v']);
    expect((t?.columns.find((c) => c.name === 's') as { isStatic?: boolean } | undefined)?.isStatic).toBe(true);
    expect(t?.columns.find((c) => c.name === 'v')?.type.code).toBe(cassandra.types.dataTypes.map);
    expect(t?.comment).toBe('hi');
    expect(t?.defaultTtl).toBe(42);
    expect(t?.gcGraceSeconds).toBe(100);
    expect(t?.compactionClass).toBe('org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy');
    expect(t?.isCompact).toBe(false);
    const ks = client.metadata.keyspaces.dc_meta as unknown as {
      strategy: string;
      strategyOptions: Record<string, string>;
      durableWrites: boolean;
    };
    expect(ks.strategy).toBe('org.apache.cassandra.locator.SimpleStrategy');
    expect(ks.strategyOptions).toEqual({ replication_factor: '1' });
    expect(ks.durableWrites).toBe(true);
    const local = await client.metadata.getTable('system', 'local');
    expect(local?.columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['key', 'tokens', 'host_id', 'schema_version', 'release_version']),
    );
  });

  it('computes the same Murmur3 token as the server (token(k) = <driver token> finds the row)', async () => {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_token WITH replication = ${REPLICATION}`);
    await client.execute('CREATE TABLE IF NOT EXISTS dc_token.w (k text PRIMARY KEY, v int)');
    const keys = ['a', 'hello', 'ünïcödé', 'x'.repeat(100)];
    for (const k of keys) await client.execute('INSERT INTO dc_token.w (k, v) VALUES (?, 1)', [k], { prepare: true });
    for (const k of keys) {
      const token = client.metadata.newToken(Buffer.from(k, 'utf8')) as unknown as { getValue(): unknown };
      const rs = await client.execute(`SELECT k FROM dc_token.w WHERE token(k) = ${String(token.getValue())}`);
      expect(rs.rows.map((r) => r.k)).toEqual([k]);
    }
  });

  it('computes the same Murmur3 token as the server token() function', async () => {
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_token WITH replication = ${REPLICATION}`);
    await client.execute('CREATE TABLE IF NOT EXISTS dc_token.t (k text PRIMARY KEY, v int)');
    await expect(client.execute("INSERT INTO dc_token.t (k, v) VALUES ('', 1)")).rejects.toThrow(
      'Key may not be empty',
    );
    const keys = ['a', 'hello', 'ünïcödé', 'x'.repeat(100)];
    for (const k of keys) {
      await client.execute('INSERT INTO dc_token.t (k, v) VALUES (?, 1)', [k], { prepare: true });
      const rs = await client.execute('SELECT token(k) AS t FROM dc_token.t WHERE k = ?', [k], { prepare: true });
      expect(rs.rows).toHaveLength(1);
      const expected = client.metadata.newToken(Buffer.from(k, 'utf8'));
      expect(String(rs.rows[0].t)).toBe(String((expected as unknown as { getValue(): unknown }).getValue()));
    }
  });
});

describe('token-aware routing of a prepared insert', () => {
  let client: cassandra.Client;
  let policy: RecordingPolicy;
  beforeAll(async () => {
    policy = new RecordingPolicy();
    client = newClient({ policies: { loadBalancing: policy } });
    await client.connect();
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_routing WITH replication = ${REPLICATION}`);
    await client.execute('CREATE TABLE IF NOT EXISTS dc_routing.single (k int PRIMARY KEY, v text)');
    await client.execute(
      'CREATE TABLE IF NOT EXISTS dc_routing.composite (a int, b text, c int, v text, PRIMARY KEY ((b, a), c))',
    );
  });

  it('routes by the single partition key from the PREPARE bind indices', async () => {
    policy.routingKeys.length = 0;
    // the bind marker of the key is not the first one: the driver must use the pk index from PREPARE
    await client.execute('INSERT INTO dc_routing.single (v, k) VALUES (?, ?)', ['x', 42], { prepare: true });
    const key = policy.routingKeys.at(-1);
    expect(Buffer.isBuffer(key)).toBe(true);
    expect((key as Buffer).equals(Buffer.from([0, 0, 0, 42]))).toBe(true);
    const replicas = client.metadata.getReplicas('dc_routing', key as Buffer);
    expect(replicas.map((h) => h.address)).toEqual([`127.0.0.1:${server.port}`]);
    const rs = await client.execute('SELECT v FROM dc_routing.single WHERE k = ?', [42], { prepare: true });
    expect(rs.rows[0].v).toBe('x');
    expect(rs.info.queriedHost).toBe(`127.0.0.1:${server.port}`);
  });

  it('routes by a composite partition key in declared order, whatever the bind order', async () => {
    policy.routingKeys.length = 0;
    await client.execute('INSERT INTO dc_routing.composite (c, a, v, b) VALUES (?, ?, ?, ?)', [1, 7, 'v', 'bee'], {
      prepare: true,
    });
    const key = policy.routingKeys.at(-1);
    expect(key).toBeDefined();
    // composite routing key: for each component (b, then a) <u16 length><bytes><0>
    const b = Buffer.from('bee');
    const expected = Buffer.concat([
      Buffer.from([0, b.length]),
      b,
      Buffer.from([0]),
      Buffer.from([0, 4]),
      Buffer.from([0, 0, 0, 7]),
      Buffer.from([0]),
    ]);
    const flat = Array.isArray(key) ? Buffer.concat(key) : (key as Buffer);
    expect(flat.equals(expected)).toBe(true);
  });

  it('token(b, a) over a composite partition key equals the driver token of the composite routing key', async () => {
    await client.execute("INSERT INTO dc_routing.composite (a, b, c, v) VALUES (7, 'bee', 1, 'v')");
    const b = Buffer.from('bee');
    const expected = Buffer.concat([
      Buffer.from([0, b.length]),
      b,
      Buffer.from([0]),
      Buffer.from([0, 4]),
      Buffer.from([0, 0, 0, 7]),
      Buffer.from([0]),
    ]);
    const rs = await client.execute(
      'SELECT token(b, a) AS t FROM dc_routing.composite WHERE b = ? AND a = ?',
      ['bee', 7],
      { prepare: true },
    );
    const token = client.metadata.newToken(expected);
    expect(String(rs.rows[0].t)).toBe(String((token as unknown as { getValue(): unknown }).getValue()));
  });
});

describe('system tables', () => {
  let client: cassandra.Client;
  beforeAll(async () => {
    client = newClient();
    await client.connect();
  });

  it('system.local has Cassandra 5.0 values', async () => {
    const row = await localRow(client);
    expect(String(row.release_version)).toMatch(/^5\.0\.\d+/);
    expect(row.cql_version).toBe('3.4.7');
    expect(row.partitioner).toBe('org.apache.cassandra.dht.Murmur3Partitioner');
    expect(row.data_center).toBe('datacenter1');
    expect(row.rack).toBe('rack1');
    expect(row.cluster_name).toBeTruthy();
    expect(Array.isArray(row.tokens)).toBe(true);
    expect((row.tokens as string[]).length).toBeGreaterThan(0);
    for (const t of row.tokens as string[]) expect(t).toMatch(/^-?\d+$/);
    expect(row.host_id).toBeInstanceOf(cassandra.types.Uuid);
    expect(row.schema_version).toBeInstanceOf(cassandra.types.Uuid);
    expect(String(row.rpc_address)).toBe('127.0.0.1');
    expect(row.rpc_port).toBe(server.port);
    expect(row.bootstrapped).toBe('COMPLETED');
  });

  it('the driver host carries the server host_id and release version', async () => {
    const row = await localRow(client);
    const host = client.getState().getConnectedHosts()[0];
    expect(String(host.hostId)).toBe(String(row.host_id));
    expect(host.cassandraVersion).toBe(String(row.release_version));
  });

  it('system.peers and system.peers_v2 are empty', async () => {
    const peers = await client.execute('SELECT * FROM system.peers');
    expect(peers.rows).toHaveLength(0);
    const peersV2 = await client.execute('SELECT * FROM system.peers_v2');
    expect(peersV2.rows).toHaveLength(0);
    const named = await client.execute('SELECT peer, host_id, rpc_address, schema_version FROM system.peers');
    expect(named.columns?.map((c) => c.name)).toEqual(['peer', 'host_id', 'rpc_address', 'schema_version']);
  });

  it('schema_version changes after every DDL statement', async () => {
    const version = async () => String((await localRow(client)).schema_version);
    const v0 = await version();
    await client.execute(`CREATE KEYSPACE dc_schema_version WITH replication = ${REPLICATION}`);
    const v1 = await version();
    expect(v1).not.toBe(v0);
    await client.execute('CREATE TABLE dc_schema_version.t (k int PRIMARY KEY)');
    const v2 = await version();
    expect(v2).not.toBe(v1);
    await client.execute('ALTER TABLE dc_schema_version.t ADD v text');
    const v3 = await version();
    expect(v3).not.toBe(v2);
    await client.execute('DROP KEYSPACE dc_schema_version');
    const v4 = await version();
    expect(new Set([v0, v1, v2, v3, v4]).size).toBe(5);
  });

  it('a failed DDL statement leaves schema_version unchanged', async () => {
    const before = String((await localRow(client)).schema_version);
    await expect(client.execute('CREATE TABLE no_such_keyspace_x.t (k int PRIMARY KEY)')).rejects.toThrow();
    const after = String((await localRow(client)).schema_version);
    expect(after).toBe(before);
  });
});

describe('schema change events', () => {
  it('a keyspace created and dropped by another client shows up in and leaves the metadata', async () => {
    const watcher = newClient({ refreshSchemaDelay: 50 });
    const writer = newClient({ isMetadataSyncEnabled: false });
    await Promise.all([watcher.connect(), writer.connect()]);
    expect(watcher.metadata.keyspaces.dc_event_ks).toBeUndefined();
    await writer.execute(`CREATE KEYSPACE dc_event_ks WITH replication = ${REPLICATION}`);
    expect(await waitFor(() => watcher.metadata.keyspaces.dc_event_ks !== undefined)).toBe(true);
    const ks = watcher.metadata.keyspaces.dc_event_ks as unknown as { strategy: string };
    expect(ks.strategy).toBe('org.apache.cassandra.locator.SimpleStrategy');
    await writer.execute('DROP KEYSPACE dc_event_ks');
    expect(await waitFor(() => watcher.metadata.keyspaces.dc_event_ks === undefined)).toBe(true);
  });

  it('the driver waits for schema agreement after its own DDL', async () => {
    const client = newClient();
    await client.connect();
    const rs = await client.execute(`CREATE KEYSPACE dc_agreement WITH replication = ${REPLICATION}`);
    expect((rs.info as { isSchemaInAgreement?: boolean }).isSchemaInAgreement).toBe(true);
    const metadata = client.metadata as unknown as { checkSchemaAgreement(): Promise<boolean> };
    expect(await metadata.checkSchemaAgreement()).toBe(true);
    await client.execute('CREATE TABLE dc_agreement.t (k int PRIMARY KEY, v text)');
    const table = await client.metadata.getTable('dc_agreement', 't');
    expect(table?.columns.map((c) => c.name).sort()).toEqual(['k', 'v']);
    expect(table?.partitionKeys.map((c) => c.name)).toEqual(['k']);
  });
});

describe('many requests in flight', () => {
  it('executeConcurrent of 2000 prepared inserts on one connection, then every row reads back', async () => {
    const client = newClient({ pooling: { coreConnectionsPerHost: { [cassandra.types.distance.local]: 1 } } });
    await client.connect();
    await client.execute(`CREATE KEYSPACE IF NOT EXISTS dc_flight WITH replication = ${REPLICATION}`);
    await client.execute('CREATE TABLE IF NOT EXISTS dc_flight.t (k int, c int, v text, PRIMARY KEY (k, c))');
    const params = Array.from({ length: 2000 }, (_, i) => [i % 20, i, `v${i}`]);
    const result = await cassandra.concurrent.executeConcurrent(
      client,
      'INSERT INTO dc_flight.t (k, c, v) VALUES (?, ?, ?)',
      params,
      { concurrencyLevel: 500, raiseOnFirstError: true },
    );
    expect(result.errors).toHaveLength(0);
    expect(result.totalExecuted).toBe(2000);
    const counted = await client.execute('SELECT count(*) FROM dc_flight.t');
    expect(String(counted.rows[0].count)).toBe('2000');
    // concurrent reads answer each stream with its own rows
    const reads = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        client.execute('SELECT v FROM dc_flight.t WHERE k = ? AND c = ?', [i % 20, i], { prepare: true }),
      ),
    );
    reads.forEach((rs, i) => {
      expect(rs.rows.map((r) => r.v)).toEqual([`v${i}`]);
    });
  });
});

describe('tracing', () => {
  it('a traced query returns a trace id whose session and events can be read', async () => {
    const client = newClient();
    await client.connect();
    const rs = await client.execute("SELECT release_version FROM system.local WHERE key = 'local'", [], {
      traceQuery: true,
    });
    const traceId = rs.info.traceId;
    expect(traceId).toBeInstanceOf(cassandra.types.Uuid);
    const trace = (await client.metadata.getTrace(traceId)) as unknown as {
      requestType: string;
      coordinator: unknown;
      events: unknown[];
    };
    expect(trace.requestType).toBeTruthy();
    expect(trace.events.length).toBeGreaterThan(0);
  });
});

describe('restart', () => {
  it('keeps host_id across a restart with the same data directory, and the schema and data', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pmemcql-driver-restart-'));
    try {
      let s = await startServer({ dataDir });
      let client = new cassandra.Client({ contactPoints: [`127.0.0.1:${s.port}`], localDataCenter: 'datacenter1' });
      let hostId: string;
      try {
        await client.connect();
        hostId = String((await localRow(client)).host_id);
        await client.execute(`CREATE KEYSPACE r WITH replication = ${REPLICATION}`);
        await client.execute('CREATE TABLE r.t (k int PRIMARY KEY, v text)');
        await client.execute("INSERT INTO r.t (k, v) VALUES (1, 'kept')");
      } finally {
        await client.shutdown();
        await s.stop();
      }
      s = await startServer({ dataDir });
      client = new cassandra.Client({ contactPoints: [`127.0.0.1:${s.port}`], localDataCenter: 'datacenter1' });
      try {
        await client.connect();
        expect(String((await localRow(client)).host_id)).toBe(hostId);
        expect(Object.keys(client.metadata.keyspaces)).toContain('r');
        const rs = await client.execute('SELECT v FROM r.t WHERE k = 1');
        expect(rs.rows.map((row) => row.v)).toEqual(['kept']);
      } finally {
        await client.shutdown();
        await s.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
