// The CQL statements through the Python driver (python3-cassandra 3.25), one scenario per area:
// literal forms, comments and named bind markers; keyspace and table DDL as system_schema shows it; unset and
// null binds and clustering-range deletes; SELECT restrictions, token ranges and limits; native functions and
// CAST; batch timestamps; prepared ids (md5 of keyspace + query) and v5 result metadata ids; consistency levels
// and Unavailable; bound values the server must refuse. Errors are checked by driver exception, code and
// Cassandra 5.0's exact message. Scenarios: test/python/cql_statements.py (one process, one connection).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ExpectedError,
  expectScenarioErrors,
  type PythonErrorInfo,
  pythonDriverAvailable,
  runPython,
  scenarioResult,
  serverMessage,
} from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

interface ErrorInfo extends PythonErrorInfo {
  consistency?: string;
  required_replicas?: number;
  alive_replicas?: number;
}

interface ScenarioResult {
  ok: boolean;
  error?: ErrorInfo;
  trace?: string;
  errors?: Record<string, ErrorInfo | null>;
  [key: string]: unknown;
}

const INVALID = 0x2200;
const UNAVAILABLE = 0x1000;

const available = await pythonDriverAvailable();
let server: ServerProcess;
let results: Record<string, ScenarioResult> = {};

function ok(name: string): ScenarioResult {
  return scenarioResult(results, name);
}

type Expected = ExpectedError;

/** Every named error of a scenario, and no other. */
function expectErrors(name: string, expected: Record<string, Expected>, errors = ok(name).errors ?? {}) {
  expectScenarioErrors(name, expected, errors);
}

const invalid = (message: string): Expected => ['InvalidRequest', INVALID, message];

describe.runIf(available)('the CQL statements through the Python driver', () => {
  beforeAll(async () => {
    server = await startServer();
    results = await runPython('cql_statements.py', server.host, server.port, [], { timeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  it("literals: '' escapes, $$ strings, blobs (empty 0x), NaN/Infinity, comments; named bind markers", () => {
    const r = ok('literals');
    // [t, b, d, f]; NaN and infinities come back as Python's repr
    expect(r.rows).toEqual({
      '1': ["it's 'quoted'", '0xcafebabe', 'nan', 'inf'],
      '2': ['it\'s a $ "dollar"\nstring', '0x', '-inf', 'nan'],
      '3': ['', '0x00ff', 1000, -0.25],
      '4': ['commented', null, null, null],
    });
    expect(r.commented).toEqual([['commented']]);
    // The bind metadata names the markers, so the driver binds a dict by name.
    expect(r.named_insert_params).toEqual(['key', 'txt', 'dbl']);
    expect(r.named_select).toEqual(['named', 2.5]);
    expect(r.named_in_params).toEqual(['keys', 'lim']);
    expect(r.named_in).toEqual([1, 5]);
    expect(r.named_in_limited).toBe(2);
  });

  it('keyspaces: NetworkTopologyStrategy with the local DC, durable_writes, ALTER KEYSPACE, schema_version', () => {
    const r = ok('keyspaces');
    const dc = r.data_center as string;
    expect(dc).toBe('datacenter1');
    const nts = 'org.apache.cassandra.locator.NetworkTopologyStrategy';
    expect(r.created).toEqual({ replication: { class: nts, [dc]: '1' }, durable_writes: false });
    expect(r.read).toBe(1); // written and read at LOCAL_QUORUM
    expect(r.altered_rf).toEqual({ replication: { class: nts, [dc]: '2' }, durable_writes: false });
    expect(r.altered).toEqual({
      replication: { class: 'org.apache.cassandra.locator.SimpleStrategy', replication_factor: '1' },
      durable_writes: true,
    });
    // before, CREATE KEYSPACE, CREATE TABLE, ALTER (rf), ALTER (class, durable_writes), ALTER IF EXISTS of a
    // missing keyspace (no change), DROP KEYSPACE
    const v = r.versions as string[];
    expect(v).toHaveLength(7);
    expect(v[5]).toBe(v[4]);
    expect(new Set([...v.slice(0, 5), v[6]]).size).toBe(6);
    expectErrors('keyspaces', {
      alter_unknown: invalid("Keyspace 'pys_nope' doesn't exist"),
      drop_unknown: invalid("Keyspace 'pys_nope' doesn't exist"),
    });
  });

  it('tables: WITH ID, ALTER TABLE DROP / WITH / RENAME, TRUNCATE, DROP TABLE', () => {
    const r = ok('tables');
    expect(r.id).toBe(r.expected_id);
    expect(r.after_drop).toEqual(['k', 'c', 'v']);
    expect(r.dropped).toEqual([['w', 'text', 'regular']]);
    expect(r.options).toEqual(['altered', 3600, 50]);
    expect(r.renamed_columns).toEqual({
      k: ['partition_key', 0],
      c2: ['clustering', 0],
      v: ['regular', -1],
    });
    expect(r.renamed_rows).toEqual([
      [1, 10],
      [2, 20],
    ]);
    expect(r.truncate).toEqual([9, [], []]);
    expect(r.gone_in_schema).toEqual([]);
    expectErrors('tables', {
      select_dropped_table: invalid('table gone does not exist'),
      drop_unknown_table: invalid("Table 'pys.gone' doesn't exist"),
      drop_pk_column: invalid('Cannot drop PRIMARY KEY column k'),
      drop_unknown_column: invalid("Column nope was not found in table 'pys.alt'"),
      rename_regular_column: invalid('Cannot rename non PRIMARY KEY column v'),
      rename_onto_existing: invalid(
        "Cannot rename column c2 to v in table 'pys.alt'; another column with that name already exists",
      ),
    });
  });

  it('DML: unset binds leave columns alone, null binds write tombstones, clustering-range deletes', () => {
    const r = ok('dml');
    // [a, b, writetime(a), writetime(b)]
    expect(r.unset_update).toEqual([10, 'y', 1000, 2000]);
    const unsetInsert = r.unset_insert as unknown[];
    expect([unsetInsert[0], unsetInsert[1], unsetInsert[3]]).toEqual([20, null, null]);
    expect(unsetInsert[2]).toBeGreaterThan(0);
    expect(r.null_update).toEqual([null, 'z', null, 3000]);
    const nullInsert = r.null_insert as unknown[];
    expect([nullInsert[0], nullInsert[1], nullInsert[2]]).toEqual([null, 'c', null]);
    expect(nullInsert[3]).toBeGreaterThan(0);
    expect(r.after_range).toEqual([0, 1, 5, 6]); // c >= 2 AND c < 5
    expect(r.after_open_range).toEqual([0, 1, 5]); // c > 5
    expect(r.after_column_delete).toEqual([
      [0, null],
      [1, 1],
      [5, 5],
    ]);
    expectErrors('dml', {
      null_key: invalid('Invalid null value in condition for column k'),
      unset_clustering: invalid('Invalid unset value for column c'),
      null_clustering: invalid('Invalid null value in condition for column c'),
    });
  });

  it('SELECT: IN, slices, multi-column tuples, LIMIT and PER PARTITION LIMIT', () => {
    const r = ok('select');
    expect(r.pk_in).toEqual([
      [1, '1-0-0'],
      [3, '3-0-0'],
    ]);
    expect(r.pk_in_prepared).toEqual([
      [2, 2, 2],
      [4, 2, 2],
    ]);
    const ab = (...pairs: string[]) => pairs.map((p) => [Number(p[0]), Number(p[1])]);
    expect(r.ck_in).toEqual(ab('01', '21'));
    expect(r.ck_in_both).toEqual(ab('00', '01', '20', '21'));
    expect(r.ck_slice).toEqual(ab('10', '11', '12'));
    expect(r.ck_prefix_slice).toEqual(ab('11', '12'));
    expect(r.ck_slice_desc).toEqual(ab('22', '21', '20', '12'));
    expect(r.tuple_gt).toEqual(ab('12', '20', '21', '22'));
    expect(r.tuple_range).toEqual(ab('02', '10', '11', '12', '20'));
    expect(r.tuple_mixed).toEqual(ab('11', '12'));
    expect(r.tuple_eq).toEqual(ab('12'));
    expect(r.tuple_in).toEqual(ab('01', '22'));
    expect(r.tuple_prepared).toEqual(ab('00', '01', '02'));
    expect(r.tuple_desc).toEqual(ab('10', '02', '01', '00'));
    expect(r.limit).toEqual(ab('00', '01', '02', '10'));
    expect(r.limit_prepared).toEqual(ab('00', '01'));
    const two = ab('00', '01');
    expect(r.per_partition).toEqual({ '1': two, '2': two, '3': two, '4': two });
    // Partitions in token order (Murmur3): 1, 2, 4, 3
    expect(r.per_partition_and_limit).toEqual([
      [1, 0, 0],
      [2, 0, 0],
      [4, 0, 0],
    ]);
    expect(r.per_partition_prepared).toEqual([
      [1, 0, 0],
      [2, 0, 0],
    ]);
  });

  it('SELECT: token(k) values and ranges follow Murmur3 order', () => {
    const t = ok('select').token as Record<string, unknown[]>;
    expect((t.expected_scan as number[][]).map(([k]) => k)).toEqual([5, 10, 1, 8, 2, 4, 7, 6, 9, 3]);
    expect(t.scan).toEqual(t.expected_scan);
    expect(t.expected_range).toEqual([8, 2, 4, 7, 6]);
    expect(t.range).toEqual(t.expected_range);
    expect(t.range_prepared).toEqual(t.expected_range);
    expect(t.expected_after).toEqual([7, 6, 9, 3]);
    expect(t.after).toEqual(t.expected_after);
  });

  it('functions: now(), uuid(), time conversions, min/maxTimeuuid, blob conversions, CAST, operators over aggregates', () => {
    const r = ok('functions');
    const g = r.generated as Record<string, unknown>;
    expect([g.tu_version, g.u_version, g.now_versions, g.tu_ts_matches]).toEqual([1, 4, [1, 1], true]);
    expect(g.tu_age_ms).toBeLessThan(60_000);
    expect(r.dates).toEqual({
      d1: '2013-02-02',
      ms: 1359799200000,
      dts: '2013-02-02T00:00:00',
      dms: 1359763200000,
      tud: expect.any(String),
      // TimeUUID.minAtUnixMillis / maxAtUnixMillis: lsb 0x8080... / 0x7f7f..., max ends 9999 ticks later
      mn: '4e52d000-6d1f-11e2-8080-808080808080',
      mx: '4e52f70f-6d1f-11e2-7f7f-7f7f7f7f7f7f',
      nested: '2013-02-02T00:00:00',
    });
    expect(r.tud_is_today).toBe(true);
    expect(r.recent).toBe(2);
    expect(r.old).toEqual([['4e52d000-6d1f-11e2-8080-808080808080']]);
    expect(r.blobs).toEqual({
      ib: '0x00000003',
      bb: '0x0000000000000007',
      tb: '0x6869',
      vb: '0x6869',
      db: '0x4006000000000000',
      bt: 'hey',
      round: 7,
      tsb: '0x0000013c9a592900',
    });
    expect(r.second).toEqual([42, '0xfffffffe', -2]);
    expect(r.cast_columns).toEqual([
      'cast(i as text)',
      'cast(i as double)',
      'cast(dbl as int)',
      'cast(dbl as text)',
      'cast(big as varint)',
      'cast(ts as date)',
      'cast(i as bigint)',
    ]);
    expect(r.casts).toEqual(['3', 3, 2, '2.75', 7, '2013-02-02', 3]);
    expect(r.cast_types).toEqual(['str', 'float', 'int', 'str', 'int', 'Date', 'int']);
    // Operators and CAST over aggregates (k 1: i = 3, k 2: i = 42).
    expect(r.over_aggregates).toEqual([43, 22, -3, '42']);
    expectErrors('functions', {
      blob_wrong_size: invalid(
        'In call to function system.blobasbigint, value 0x00000003 is not a valid binary representation for type bigint',
      ),
      nested_aggregate: invalid('aggregate functions cannot be used as arguments of aggregate functions'),
    });
  });

  it('BATCH: unlogged, batch-level and per-statement timestamps, refused when both are set', () => {
    const r = ok('batches');
    expect(r.rows).toEqual({
      '1/1': ['a', 1000], // batch-level timestamp; a later write at 500 lost
      '1/2': ['c', 2000],
      '1/3': ['d', 3000],
      '3/1': ['e', 'client'], // the driver's client-side timestamp
      '3/2': ['f', 4000],
      '4/1': ['g', 5000],
    });
    expect(r.client_timestamp_ok).toBe(true);
    expectErrors('batches', {
      both_timestamps: invalid('Timestamp must be set either on BATCH or individual statements'),
    });
  });

  it('prepared ids are md5(keyspace + query); v5 result_metadata_id changes after ALTER TABLE ADD', () => {
    const r = ok('prepared_ids');
    expect(r.protocol_version).toBe(5);
    const ids = r.ids as Record<string, string>;
    expect(ids.in_keyspace).toBe(ids.md5_keyspace_query);
    expect(ids.keyspace_flag).toBe(ids.md5_keyspace_query);
    expect(ids.qualified).toBe(ids.md5_query);
    expect(r.metadata_id_length).toBe(16);
    expect(r.metadata_id_changed).toBe(true);
    expect(r.same_query_id).toBe(true);
    expect(r.new_id_reached_driver).toBe(true);
    expect(r.before).toEqual({ k: 1, a: 1 });
    expect(r.after).toEqual({ k: 1, a: 1, extra: 'new' });
    expect(r.after_columns).toEqual(['k', 'a', 'extra']);
    expect(r.again).toEqual({ k: 1, a: 1, extra: 'new' });
  });

  it('consistency: RF=1 serves ONE..ALL and LOCAL_*; RF=3 is Unavailable beyond ONE; ANY is for writes', () => {
    const r = ok('consistency');
    const rf1 = r.rf1 as Record<string, { write: ScenarioResult & ErrorInfo; read: ScenarioResult & ErrorInfo }>;
    ['ONE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'LOCAL_ONE'].forEach((cl, i) => {
      expect(rf1[cl]!.write, cl).toEqual({ ok: true });
      expect(rf1[cl]!.read, cl).toEqual({ ok: true, rows: [[i]] });
    });
    const unavailable = (cl: string, required: number) => ({
      type: 'Unavailable',
      code: UNAVAILABLE,
      consistency: cl,
      required_replicas: required,
      alive_replicas: 1,
      message: expect.any(String),
    });
    for (const op of ['write', 'read'] as const) {
      expect(rf1.TWO![op]).toEqual(unavailable('TWO', 2));
      expect(serverMessage(rf1.TWO![op])).toBe('Cannot achieve consistency level TWO');
    }
    expect(rf1.ANY!.write).toEqual({ ok: true });
    expectErrors(
      'consistency',
      { read: invalid('ANY ConsistencyLevel is only supported for writes') },
      {
        read: rf1.ANY!.read,
      },
    );
    const rf3 = r.rf3 as typeof rf1;
    for (const cl of ['ONE', 'LOCAL_ONE']) {
      expect(rf3[cl]!.write, cl).toEqual({ ok: true });
      expect(rf3[cl]!.read, cl).toEqual({ ok: true, rows: [[1]] });
    }
    for (const [cl, required] of [
      ['QUORUM', 2],
      ['ALL', 3],
      ['LOCAL_QUORUM', 2],
    ] as const) {
      for (const op of ['write', 'read'] as const) {
        expect(rf3[cl]![op], `${cl} ${op}`).toEqual(unavailable(cl, required));
        expect(serverMessage(rf3[cl]![op])).toBe(`Cannot achieve consistency level ${cl}`);
      }
    }
    // The default retry policy tries the next host on Unavailable; with one host the driver gives up.
    expect(r.default_policy).toEqual({ type: 'NoHostAvailable', inner: ['Unavailable'] });
  });

  it('bound values the driver lets through are refused with the type’s message', () => {
    const r = ok('bad_values');
    expectErrors('bad_values', {
      int_3_bytes: invalid('Expected 4 or 0 byte int (3)'),
      bigint_4_bytes: invalid('Expected 8 or 0 byte long (4)'),
      uuid_3_bytes: invalid('UUID should be 16 or 0 bytes (3)'),
      text_bad_utf8: invalid("String didn't validate."),
      timestamp_4_bytes: invalid('Expected 8 or 0 byte long for date (4)'),
      key_2_bytes: invalid('Expected 4 or 0 byte int (2)'),
      string_for_int: invalid('Invalid STRING constant (abc) for "i" of type int'),
      float_for_int: invalid('Invalid FLOAT constant (1.5) for "i" of type int'),
      int_overflow: invalid("Unable to make int from '2147483648'"),
      string_for_uuid: invalid('Invalid STRING constant (abc) for "u" of type uuid'),
      int_for_text: invalid('Invalid INTEGER constant (5) for "t" of type text'),
    });
    // An empty int is valid (Cassandra's empty value); the driver reads it as None.
    expect(r.empty_int).toEqual([null, [[null]]]);
    expect(r.nothing_written).toEqual([]);
  });
});
