// The DataStax Python driver (Debian's python3-cassandra 3.25) against the real server: protocol version
// negotiation from its highest version down to v5, lz4 and snappy compression, v3, the metadata it builds,
// a CREATE/INSERT/SELECT round trip and export_as_string() of a created table. The scenarios live in
// test/python/driver_connect.py; each prints its result as JSON, asserted on here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonDriverAvailable, runPython, scenarioResult } from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

interface ScenarioResult {
  ok: boolean;
  error?: { type: string; code: number | null; message: string };
  trace?: string;
  protocol_version?: number;
  compressor?: string | null;
  big_round_trip?: boolean;
  [key: string]: unknown;
}

type Results = Record<string, ScenarioResult>;

const available = await pythonDriverAvailable();
let server: ServerProcess;
let results: Results = {};

const SCENARIOS = [
  'negotiate_default',
  'negotiate_uncompressed',
  'lz4_default_version',
  'lz4_v4',
  'lz4_v3',
  'snappy_v4',
  'snappy_v3',
  'v3',
  'v5_uncompressed_big',
  'metadata_and_round_trip',
  'schema_events',
];

function ok(name: string, from: Results = results): ScenarioResult {
  return scenarioResult(from, name);
}

describe.runIf(available)('Python driver', () => {
  beforeAll(async () => {
    server = await startServer();
    results = await runPython<Results>('driver_connect.py', server.host, server.port, SCENARIOS);
  });

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  it('negotiates down from DSE_V2 to protocol v5 and uses lz4 by default', () => {
    const r = ok('negotiate_default');
    expect(r.protocol_version).toBe(5);
    expect(r.compressor).toBe('lz4_compress');
    expect(String(r.release_version)).toMatch(/^5\.0\./);
  });

  it('negotiates v5 without compression and reads all of system_schema.columns', () => {
    const r = ok('negotiate_uncompressed');
    expect(r.protocol_version).toBe(5);
    expect(r.compressor).toBeNull();
    expect(r.schema_columns as number).toBeGreaterThan(50);
  });

  it("connects with compression='lz4' on v5 and round-trips a 300 kB value (multi-segment)", () => {
    const r = ok('lz4_default_version');
    expect(r.protocol_version).toBe(5);
    expect(r.compressor).toBe('lz4_compress');
    expect(r.big_round_trip).toBe(true);
  });

  it("connects with compression='snappy' on v4 and round-trips a 300 kB value", () => {
    const r = ok('snappy_v4');
    expect(r.protocol_version).toBe(4);
    expect(r.compressor).toBe('compress');
    expect(r.big_round_trip).toBe(true);
  });

  it("connects with compression='snappy' on v3 and round-trips a 300 kB value", () => {
    const r = ok('snappy_v3');
    expect(r.protocol_version).toBe(3);
    expect(r.compressor).toBe('compress');
    expect(r.big_round_trip).toBe(true);
  });

  it("connects with compression='lz4' on v4 and round-trips a 300 kB value", () => {
    const r = ok('lz4_v4');
    expect(r.protocol_version).toBe(4);
    expect(r.compressor).toBe('lz4_compress');
    expect(r.big_round_trip).toBe(true);
  });

  it("connects with compression='lz4' on v3 and round-trips a 300 kB value", () => {
    const r = ok('lz4_v3');
    expect(r.protocol_version).toBe(3);
    expect(r.compressor).toBe('lz4_compress');
    expect(r.big_round_trip).toBe(true);
  });

  it('connects with protocol_version=3 and reads system_schema.keyspaces', () => {
    const r = ok('v3');
    expect(r.protocol_version).toBe(3);
    expect(r.keyspaces).toEqual(expect.arrayContaining(['system', 'system_schema', 'system_auth']));
  });

  it('round-trips a 300 kB value on uncompressed v5 (payload split over several segments)', () => {
    const r = ok('v5_uncompressed_big');
    expect(r.protocol_version).toBe(5);
    expect(r.compressor).toBeNull();
    expect(r.big_round_trip).toBe(true);
  });

  it("another client's DDL reaches the metadata through SCHEMA_CHANGE events on v5", () => {
    const r = ok('schema_events');
    expect(r.protocol_version).toBe(5);
    expect(r).toMatchObject({ keyspace_seen: true, table_seen: true, column_seen: true, keyspace_gone: true });
  });

  describe('metadata and round trip', () => {
    it('cluster.metadata has the system keyspaces and one local host with a 16-token ring', () => {
      const r = ok('metadata_and_round_trip');
      expect(r.keyspaces).toEqual(
        expect.arrayContaining(['system', 'system_schema', 'system_auth', 'system_distributed', 'system_traces']),
      );
      const hosts = r.hosts as { address: string; datacenter: string; rack: string; release_version: string }[];
      expect(hosts).toHaveLength(1);
      expect(hosts[0].address).toBe('127.0.0.1');
      expect(hosts[0].datacenter).toBe('datacenter1');
      expect(hosts[0].rack).toBe('rack1');
      expect(hosts[0].release_version).toMatch(/^5\.0\./);
      expect(r.ring_size as number).toBeGreaterThan(0);
      expect(r.replicas).toEqual(['127.0.0.1']);
    });

    it('sees the created keyspace and table in the metadata after its own DDL', () => {
      const r = ok('metadata_and_round_trip');
      expect(r.keyspace_listed).toBe(true);
      expect(r.table_listed).toBe(true);
      expect(r.partition_key).toEqual(['tenant', 'day']);
      expect(r.clustering_key).toEqual(['at', 'kind']);
    });

    it('INSERT then SELECT round-trips text, date, timeuuid and map values', () => {
      const r = ok('metadata_and_round_trip');
      expect(r.row).toEqual({
        tenant: 'acme',
        day: '2024-02-29',
        at: 'e7e1a200-4b1f-11ee-8000-000000000001',
        kind: 'click',
        payload: { x: 1, y: 2 },
      });
    });

    it('export_as_string() of the table has its columns, primary key and clustering order', () => {
      const r = ok('metadata_and_round_trip');
      const cql = r.export as string;
      expect(cql).toContain('CREATE TABLE py_rt.events (');
      for (const col of ['tenant text', 'day date', 'at timeuuid', 'kind text', 'payload map<text, int>']) {
        expect(cql).toContain(`    ${col},`);
      }
      expect(cql).toContain('PRIMARY KEY ((tenant, day), at, kind)');
      expect(cql).toContain('WITH CLUSTERING ORDER BY (at DESC, kind ASC)');
      expect(cql).toContain('AND default_time_to_live = 0');
      const ks = r.keyspace_export as string;
      expect(ks).toContain(
        "CREATE KEYSPACE py_rt WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}",
      );
      expect(ks).toContain('CREATE TABLE py_rt.events (');
    });
  });
});
