// The CQL feature set through the Python driver (python3-cassandra 3.25), one scenario per feature:
// values read back through the driver's own types, and error paths with the server's code and Cassandra's
// message. Scenarios: test/python/cql_complete.py (one process, one connection, run in order).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ExpectedError,
  expectScenarioErrors,
  pythonDriverAvailable,
  runPython,
  scenarioResult,
} from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

interface ErrorInfo {
  type: string;
  code: number | null;
  message: string;
}

interface ScenarioResult {
  ok: boolean;
  error?: ErrorInfo;
  trace?: string;
  errors?: Record<string, ErrorInfo | null>;
  [key: string]: unknown;
}

const INVALID = 0x2200;
const FILTERING =
  'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
  'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';

const available = await pythonDriverAvailable();
let server: ServerProcess;
let results: Record<string, ScenarioResult> = {};

function ok(name: string): ScenarioResult {
  return scenarioResult(results, name);
}

type Expected = ExpectedError;

/** Every named error of a scenario (and, when `exhaustive`, no other). */
function expectErrors(
  name: string,
  expected: Record<string, Expected>,
  errors = ok(name).errors ?? {},
  exhaustive = true,
) {
  expectScenarioErrors(name, expected, errors, exhaustive);
}

const invalid = (message: string | RegExp): Expected => ['InvalidRequest', INVALID, message];

describe.runIf(available)('the CQL feature set through the Python driver', () => {
  beforeAll(async () => {
    server = await startServer({ env: UDF_ENV });
    results = await runPython('cql_complete.py', server.host, server.port, [], { timeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  it('collections: append, prepend, remove, element set and delete, nested frozen values, selections', () => {
    const r = ok('collections');
    // [1, 2] +[3] -> [0, 1, 2, 3] -[2] -> l[0] = 10 -> DELETE l[1] -> + [4]
    expect(r.row).toEqual({
      l: [10, 3, 4],
      st: ['b', 'c', 'd', 'e'],
      m: { w: 23, y: 2, z: 26 },
      fl: [9, 8],
      fs: [1, 3],
      nested: { n: [[1, 2], [3]] },
    });
    // m['z'], st['b'..'d'], st['c'], l[0], fl[1]
    expect(r.elements).toEqual([26, ['b', 'c', 'd'], 'c', 10, 8]);
    expect(r.element_columns).toEqual(["m['z']", 'expr']);
    expect([r.contains, r.contains_key, r.contains_missing]).toEqual([[[1]], [[1]], []]);
    expectErrors('collections', {
      contains_without_filtering: invalid(FILTERING),
      index_out_of_bound: invalid('List index 10 out of bound, list has size 3'),
      null_in_list: invalid('null is not supported inside collections'),
      list_of_wrong_type: invalid("Invalid list literal for l: value 'a' is not of type int"),
      set_literal_for_list: invalid('Invalid set literal for l of type list<int>'),
    });
  });

  it('writetime() and ttl() of simple and frozen columns; refused on key columns', () => {
    const r = ok('writetime_ttl');
    expect(r.writetimes).toEqual([2000, 1000, 1000]);
    // v was overwritten without a TTL; w and fl keep the INSERT's (nothing elapsed at second precision).
    expect((r.ttls as (number | null)[])[0]).toBeNull();
    for (const t of (r.ttls as number[]).slice(1)) expect(t).toBeGreaterThan(4990);
    expect(r.aliased).toEqual([[1000]]);
    expectErrors('writetime_ttl', {
      ttl_of_key: invalid('Cannot use selection function ttl on PRIMARY KEY part k'),
    });
  });

  it('UDTs: ALTER ADD / RENAME, field update and delete, namedtuples and registered classes', () => {
    const r = ok('udts');
    // n.postcode, n.street, n.city (deleted), p.home, p.name
    expect(r.fields).toEqual([5, 't', null, { street: 'h', postcode: 2, city: 'x' }, 'ann']);
    expect(r.namedtuples).toEqual({
      f: { street: 's', postcode: 1, city: null },
      n: { street: 't', postcode: 5, city: null },
      p: { name: 'ann', home: { street: 'h', postcode: 2, city: 'x' } },
      hist: [{ street: 'old', postcode: null, city: null }],
    });
    expect(r.namedtuple_type).toBe('addr');
    expect(r.registered).toEqual([
      'Address',
      { street: 'bound', postcode: 7, city: null },
      { street: 'nf', postcode: null, city: 'town' },
    ]);
    expect(r.field_names).toEqual(['street', 'postcode', 'city']);
    expectErrors('udts', {
      alter_unknown_type: invalid("Type pyx.nope doesn't exist"),
      alter_field_type: invalid('Altering field types is no longer supported'),
      drop_unknown_type: invalid("Type 'pyx.gone' doesn't exist"),
      frozen_field_update: invalid('Invalid operation (f.postcode = ?) for frozen UDT column f'),
      unknown_field_update: invalid('UDT column n does not have a field named nope'),
      unknown_field_literal: invalid("Unknown field 'nope' in value of user defined type addr"),
    });
  });

  it('nested tuples, vector<float, 3> (bytes in driver 3.25) and durations (the driver Duration)', () => {
    const r = ok('tuples_vectors_durations');
    expect(r.rows).toEqual({
      '1': {
        t: [1, ['a', 2], [3, 4]],
        v: [1.5, -2, 0.25],
        // 1y2mo = 14 months, 3 days, 4h5m6s7ms in nanoseconds
        d: [14, 3, ((4 * 60 + 5) * 60 + 6) * 1e9 + 7e6],
      },
      '2': { t: [5, ['b', null], []], v: [0.5, 1, 2], d: [1, 2, 3e9] },
    });
    expectErrors('tuples_vectors_durations', {
      vector_size: invalid('Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2'),
      tuple_size: invalid(
        'Invalid tuple literal for t: too many elements. Type frozen<tuple<int, frozen<tuple<text, int>>, ' +
          'frozen<list<int>>>> expects 3 but got 4',
      ),
      tuple_component: invalid('Invalid tuple literal for t: component 0 is not of type int'),
      duration_key: invalid("duration type is not supported for PRIMARY KEY column 'd'"),
      duration_order: invalid('Invalid duration. The minutes should be after hours'),
    });
  });

  it('static columns: shared by the partition, set by partition key alone, DISTINCT, LWT, delete', () => {
    const r = ok('static_columns');
    expect(r.rows).toEqual([
      [1, 1, 20, 1],
      [1, 2, 20, 2],
    ]);
    expect(r.distinct).toEqual([[1, 20]]);
    expect(r.lwt).toEqual({ '[applied]': true });
    expect(r.after_delete).toEqual([
      [1, null, 1],
      [2, null, 2],
    ]);
    expectErrors('static_columns', {
      no_clustering: invalid(
        'Static columns are only useful (and thus allowed) if the table has at least one clustering column',
      ),
      regular_without_clustering: invalid('Some clustering keys are missing: c'),
      distinct_regular: invalid(
        'SELECT DISTINCT queries must only request partition key columns and/or static columns (not v)',
      ),
      range_delete_column: invalid('Range deletions are not supported for specific columns'),
    });
  });

  it('counters: increments, a COUNTER batch, delete, and the counter rules', () => {
    const r = ok('counters');
    // k=1: 5 * 3 - 4 + 1 (batch) = 12, b = -2; k=2 from the batch: a = 10, b = 7
    expect(r.rows).toEqual([
      [1, 12, -2],
      [2, 10, 7],
    ]);
    expect(r.after_delete).toEqual([[1, 12, -2]]);
    expect(r.type).toBe('int');
    expectErrors('counters', {
      counter_in_logged_batch: invalid('Cannot include a counter statement in a logged batch'),
      non_counter_in_counter_batch: invalid('Cannot include non-counter statement in a counter batch'),
      insert: invalid('INSERT statements are not allowed on counter tables, use UPDATE instead'),
      set: invalid('Cannot set the value of counter column a (counters can only be incremented/decremented, not set)'),
      mixed_table: invalid('Cannot mix counter and non counter columns in the same table'),
      counter_key: invalid("counter type is not supported for PRIMARY KEY column 'k'"),
      add_regular: [
        'ConfigurationException',
        0x2300,
        'pyx.cnt: Cannot have a non counter column ("v") in a counter table',
      ],
      null_delta: invalid('Invalid null value for counter increment/decrement'),
    });
  });

  it('LWT: IF NOT EXISTS / IF EXISTS / conditions and their [applied] rows, batches, SERIAL reads', () => {
    const r = ok('lwt');
    expect(r.insert).toEqual({ '[applied]': true });
    // Not applied: the whole existing row, key columns first, then regular columns in name order.
    expect(r.insert_again).toEqual({
      '[applied]': false,
      k: 1,
      c: 1,
      l: ['x', 'y'],
      m: { p: 1 },
      n: 5,
      u: null,
      v: 'a',
    });
    expect(r.eq_false).toEqual({ '[applied]': false, v: 'a' });
    expect(r.in_and_cmp).toEqual({ '[applied]': true });
    expect(r.element).toEqual({ '[applied]': true });
    expect(r.element_false).toEqual({ '[applied]': false, l: ['x', 'y'] });
    expect(r.field).toEqual({ '[applied]': true });
    expect(r.if_exists_missing).toEqual({ '[applied]': false });
    expect(r.delete_if).toEqual({ '[applied]': false, n: 8 });
    expect(r.batch).toEqual({ '[applied]': true });
    expect(r.batch_not_applied).toEqual({ '[applied]': false, n: 9 });
    expect(r.prepared).toEqual({ '[applied]': true });
    expect(r.was_applied).toBe(false);
    expect(r.serial_read).toEqual([
      [1, 'c', 9],
      [2, 'p', null],
    ]);
    expect(r.local_serial_read).toEqual([['p']]);
    expect(r.local_serial_cas).toEqual({ '[applied]': true });
    expectErrors('lwt', {
      custom_timestamp: invalid('Cannot provide custom timestamp for conditional updates'),
      in_partition_key: invalid('IN on the partition key is not supported with conditional updates'),
      key_condition: invalid("PRIMARY KEY column 'k' cannot have IF conditions"),
      batch_two_partitions: invalid('Batch with conditions cannot span multiple partitions'),
      negative_index: invalid('Invalid negative list index -1'),
      serial_write: invalid('You must use conditional updates for serializable writes'),
    });
  });

  it('TTL, USING TIMESTAMP and default_time_to_live: ttl()/writetime(), older writes lose, expiry', () => {
    const r = ok('ttl_timestamp');
    const ttls = r.ttls as Record<string, [number | null, number]>;
    // ttl() counts down in whole seconds: a second boundary may pass between the write and the read.
    const near = (ttl: number | null, value: number) => expect([value - 1, value]).toContain(ttl);
    near(ttls['1']![0], 100); // the table default
    near(ttls['2']![0], 100); // rewritten at 3000 without TTL: the default again
    expect(ttls['2']![1]).toBe(3000);
    expect(ttls['3']![0]).toBeNull(); // USING TTL 0: never expires
    near(ttls['4']![0], 2);
    expect(ttls['4']![1]).toBe(5000);
    // A server timestamp is microseconds since the epoch, about now.
    expect(Math.abs(ttls['1']![1] / 1000 - (r.now_ms as number))).toBeLessThan(60_000);
    expect(r.after_expiry).toEqual([
      [1, 1],
      [2, 30],
      [3, 1],
    ]);
    expect(r.default_ttl).toEqual([[100]]);
    expectErrors('ttl_timestamp', {
      negative_ttl: invalid('A TTL must be greater or equal to 0, but was -1'),
      huge_ttl: invalid('ttl is too large. requested (630720001) maximum (630720000)'),
      negative_default: [
        'ConfigurationException',
        0x2300,
        'default_time_to_live must be greater than or equal to 0 (got -1)',
      ],
      delete_ttl: [
        'SyntaxException',
        0x2000,
        "line 1:21 mismatched input 'TTL' expecting K_TIMESTAMP (DELETE FROM tt USING [TTL]...)",
      ],
    });
  });

  it('aggregates: values and Cassandra result types, GROUP BY, with ALLOW FILTERING, empty input', () => {
    const r = ok('aggregates');
    expect(r.names).toEqual([
      'count',
      'system.count(v)',
      'system.sum(v)',
      'system.avg(v)',
      'system.min(v)',
      'system.max(v)',
      'system.sum(b)',
      'system.avg(b)',
      'system.sum(d)',
      'system.avg(d)',
      'system.sum(f)',
      'system.avg(f)',
      'system.sum(de)',
      'system.avg(de)',
      'system.sum(vi)',
      'system.avg(vi)',
      'system.min(t)',
      'system.max(t)',
    ]);
    // sum/avg keep the argument type (avg(int) truncates), count is a bigint.
    expect(r.types).toEqual([
      'bigint',
      'bigint',
      'int',
      'int',
      'int',
      'int',
      'bigint',
      'bigint',
      'double',
      'double',
      'float',
      'float',
      'decimal',
      'decimal',
      'varint',
      'varint',
      'varchar',
      'varchar',
    ]);
    const v = r.values as unknown[];
    expect(v.slice(0, 9)).toEqual([3, 3, 7, 2, 1, 4, 60, 20, 7]);
    expect(v[9]).toBeCloseTo(7 / 3, 12);
    expect(v[10]).toBe(7);
    expect(v[11]).toBeCloseTo(7 / 3, 6); // a float: single precision
    expect(v.slice(12)).toEqual(['6.6', '2.2', 600, 200, 'a', 'c']);
    expect(r.group_by_k).toEqual([
      [1, 2, 3, 'b'],
      [2, 1, 4, 'c'],
    ]);
    expect(r.group_by_kc).toEqual([
      [1, 1, 1],
      [1, 2, 2],
      [2, 1, 4],
    ]);
    expect(r.filtered).toEqual([[2, 6]]);
    expect(r.grouped_filtered).toEqual([
      [1, 2],
      [2, 4],
    ]);
    expect(r.empty).toEqual([[0, 0, null]]);
    expectErrors('aggregates', {
      group_by_clustering_only: invalid(
        'Group by currently only support groups of columns following their declared order in the PRIMARY KEY',
      ),
      group_by_regular: invalid('Group by is currently only supported on the columns of the PRIMARY KEY, got v'),
      filtering: invalid(FILTERING),
    });
  });

  it('JSON: SELECT JSON, INSERT JSON with DEFAULT NULL / UNSET, bound JSON, toJson(), fromJson()', () => {
    const r = ok('json');
    const full = JSON.parse((r.full as string[][])[0]![0]!);
    expect(full).toEqual({
      k: 1,
      l: [1, 2],
      m: { a: 1 },
      t: 'x',
      ts: '2024-01-02 03:04:05.000Z',
      tu: [1, 'a'],
      u: { street: 's', postcode: 7, city: null },
      v: 5,
    });
    // Columns in Cassandra's order: partition key, then regular columns by name.
    expect(Object.keys(full)).toEqual(['k', 'l', 'm', 't', 'ts', 'tu', 'u', 'v']);
    expect(r.aliased).toEqual([['{"k": 1, "vee": 5}']]);
    expect(r.tojson).toEqual([
      ['{"a": 1}', '[1, "a"]', '"2024-01-02 03:04:05.000Z"', '{"street": "s", "postcode": 7, "city": null}'],
    ]);
    expect(r.unset).toEqual([[5, 'y']]);
    expect(r.nulled).toEqual([[null, 'z', null]]);
    expect(r.implicit).toEqual([[8, null]]); // DEFAULT NULL is the default
    expect(r.bound).toEqual([[[7], { q: 3 }]]);
    expect(r.fromjson).toEqual([[7, { r: 4 }]]);
    expectErrors('json', {
      unknown_column: invalid('JSON values map contains unrecognized column: nope'),
      bad_value: invalid("Error decoding JSON value for v: Unable to make int from 'x'"),
      missing_key: invalid('Invalid null value in condition for column k'),
    });
  });

  it('secondary indexes: regular, SAI, collection KEYS / VALUES / ENTRIES / FULL, no ALLOW FILTERING', () => {
    const r = ok('secondary_indexes');
    expect(r.eq).toEqual([[1, 1]]); // (2, 1) moved away from 'a'
    expect(r.eq_prepared).toEqual([[2, 1]]);
    expect(r.sai_range).toEqual([
      [1, 2],
      [2, 1],
    ]);
    expect(r.sai_and_eq).toEqual([[1, 2]]);
    expect(r.values).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(r.keys).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(r.map_values).toEqual([[1, 2]]);
    expect(r.entries).toEqual([[2, 1]]);
    expect(r.full).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(r.with_partition).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(r.indexes).toEqual([
      ['ix_fl_idx', 'COMPOSITES', { target: 'full(fl)' }],
      ['ix_m_idx', 'COMPOSITES', { target: 'keys(m)' }],
      ['ix_st_idx', 'COMPOSITES', { target: 'values(st)' }],
      ['ix_v_idx', 'COMPOSITES', { target: 'v' }],
      ['me_idx', 'COMPOSITES', { target: 'entries(m)' }],
      ['mv_idx', 'COMPOSITES', { target: 'values(m)' }],
      ['n_sai', 'CUSTOM', { class_name: 'org.apache.cassandra.index.sai.StorageAttachedIndex', target: 'n' }],
    ]);
    expect(r.driver_indexes).toEqual(
      (r.indexes as [string, string, { target: string }][]).map((i) => [i[0], i[2].target]),
    );
    expectErrors('secondary_indexes', {
      filtering: invalid(FILTERING),
      partition_key: invalid('Cannot create secondary index on the only partition key column k'),
      keys_of_set: invalid('Cannot create index on keys of column st with non-map type'),
      values_of_frozen: invalid(
        "Cannot create values() index on frozen column fl. Frozen collections are immutable and must be fully indexed by using the 'full(fl)' modifier",
      ),
      duplicate: invalid('Index other is a duplicate of existing index ix_v_idx'),
      existing_name: invalid("Index 'n_sai' already exists"),
      unknown_class: invalid("Unable to find custom indexer class 'nosuch'"),
      drop_unknown: invalid("Index 'pyx.nope_idx' doesn't exist"),
    });
  });

  it('vector ANN: ORDER BY v ANN OF [...] LIMIT k over an SAI index, literal and bound, with scores', () => {
    const r = ok('vector_ann');
    expect(r.top2).toEqual([[1], [3]]);
    // nearest to (0, 0.2, 1) by euclidean distance: 4, then 5, then 2
    expect(r.top3_bound).toEqual([[4], [5], [2]]);
    const scores = r.scores as [number, number][];
    expect(scores.map((s) => s[0])).toEqual([1, 3]);
    // similarity_euclidean = 1 / (1 + d^2); (0.9, 0.1, 0) is at d^2 = 0.02 from (1, 0, 0)
    expect(scores[0]![1]).toBe(1);
    expect(scores[1]![1]).toBeCloseTo(1 / 1.02, 6);
    expectErrors('vector_ann', {
      no_limit: invalid(
        'Use of ANN OF in an ORDER BY clause requires a LIMIT that is not greater than 1000. LIMIT was NO LIMIT',
      ),
      not_indexed: invalid('ANN ordering by vector requires the column to be indexed'),
      dimension: invalid('Invalid vector literal for v of type vector<float, 3>; expected 3 elements, but given 2'),
    });
  });

  it('materialized views: built over existing rows, maintained on write, listed, and refused DDL', () => {
    const r = ok('materialized_views');
    expect(r.built).toEqual([['a', 1, 1, 10]]);
    expect(r.moved).toEqual([
      ['b', 1, 1, 10],
      ['b', 1, 2, 20],
    ]);
    expect(r.after_delete).toEqual([[1, 1]]);
    expect(r.views).toEqual([['mvv', 'mvb', 'v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL']]);
    expect(r.driver_view).toEqual(['mvb', 'v IS NOT NULL AND k IS NOT NULL AND c IS NOT NULL']);
    expectErrors('materialized_views', {
      static: invalid("Cannot include static column 's' in materialized view 'bad'"),
      missing_key: invalid("Cannot create materialized view 'bad' without primary key columns c from base table 'mvb'"),
      not_null: invalid("Primary key columns v must be restricted with 'IS NOT NULL' or otherwise"),
      two_regular: invalid(
        'Cannot include more than one non-primary key column in materialized view primary key (got v, w)',
      ),
      write_view: invalid('Cannot directly modify a materialized view'),
      drop_unknown: invalid("Materialized view 'pyx.nope' doesn't exist"),
    });
  });

  it('JavaScript UDF / UDA: results, system_schema.functions / aggregates, driver metadata, errors', () => {
    const r = ok('functions');
    expect(r.scalar).toEqual([[22]]);
    expect(r.aggregate).toEqual([[50]]); // (0 + 10 + 20 + 30 + 40) / 2 as a double
    expect(r.functions).toEqual([
      ['fin', ['int'], 'double', 'javascript', true],
      ['plus', ['int', 'int'], 'int', 'javascript', false],
      ['st', ['int', 'int'], 'int', 'javascript', true],
      ['thrower', ['int'], 'int', 'javascript', false],
    ]);
    expect(r.aggregates).toEqual([['half_sum', ['int'], 'st', 'int', 'fin', '0', 'double']]);
    expect(r.driver_functions).toEqual(['fin(int)', 'plus(int,int)', 'st(int,int)', 'thrower(int)']);
    expect(r.driver_aggregates).toEqual(['half_sum(int)']);
    expectErrors('functions', {
      // Cassandra appends the script engine's exception text, which differs by engine.
      failure: ['FunctionFailure', 0x1400, /^execution of 'pyx\.thrower\[int\]' failed: .*boom/],
      language: invalid("Invalid language 'python' for function 'pyx.bad'"),
      state_function: invalid('State function pyx.nope(int, int) does not exist'),
      drop_unknown: invalid("Function 'pyx.nope' doesn't exist"),
    });
  });

  it('server-side DESCRIBE: keyspace_name / type / name / create_statement rows in Cassandra order', () => {
    const r = ok('describe');
    const columns = ['keyspace_name', 'type', 'name', 'create_statement'];
    const keyspace = r.keyspace as { columns: string[]; rows: string[][] };
    expect(keyspace.columns).toEqual(columns);
    // The keyspace, types, functions, aggregates, then tables sorted ignoring case, each with its indexes
    // and views.
    const rows = keyspace.rows.map((x) => `${x[1]}:${x[2]}`);
    expect(rows.slice(0, 8)).toEqual([
      'keyspace:pyx',
      'type:addr',
      'type:person',
      'function:fin(int)',
      'function:plus(int, int)',
      'function:st(int, int)',
      'function:thrower(int)',
      'aggregate:half_sum(int)',
    ]);
    expect(rows.slice(rows.indexOf('table:lw'), rows.indexOf('table:lw') + 5)).toEqual([
      'table:lw',
      'table:"Mixed"',
      'index:mixed_val',
      'table:mvb',
      'materialized_view:mvv',
    ]);
    expect(rows.filter((x) => x.startsWith('index:') && x.includes('ix_'))).toHaveLength(4);
    expect(keyspace.rows.every((x) => x[0] === 'pyx')).toBe(true);
    const create =
      "CREATE KEYSPACE pyx WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'}  AND durable_writes = true;";
    expect(r.keyspace_first).toBe(create);
    expect(r.only_keyspace).toEqual({ columns, rows: [['pyx', 'keyspace', 'pyx', create]] });
    const table = r.table as { columns: string[]; rows: string[][] };
    expect(table.rows.map((x) => x.slice(0, 3))).toEqual([
      ['pyx', 'table', '"Mixed"'],
      ['pyx', 'index', 'mixed_val'],
    ]);
    expect(table.rows[0]![3]).toMatch(
      /^CREATE TABLE pyx\."Mixed" \(\n {4}id int,\n {4}c int,\n {4}"Val" text,\n {4}PRIMARY KEY \(id, c\)\n\) WITH CLUSTERING ORDER BY \(c DESC\)\n {4}AND additional_write_policy = '99p'\n/,
    );
    expect(table.rows[0]![3]).toMatch(/\n {4}AND speculative_retry = '99p';$/);
    expect(table.rows[1]![3]).toBe('CREATE INDEX mixed_val ON pyx."Mixed" ("Val");');
    expect(r.type).toEqual({
      columns,
      rows: [['pyx', 'type', 'addr', 'CREATE TYPE pyx.addr (\n    street text,\n    postcode int,\n    city text\n);']],
    });
    expect(r.index).toEqual({
      columns,
      rows: [['pyx', 'index', 'mixed_val', 'CREATE INDEX mixed_val ON pyx."Mixed" ("Val");']],
    });
    expect(r.function).toEqual({
      columns,
      rows: [
        [
          'pyx',
          'function',
          'plus(int, int)',
          'CREATE FUNCTION pyx.plus(a int, b int)\n    RETURNS NULL ON NULL INPUT\n    RETURNS int\n    LANGUAGE javascript\n    AS $$a + b + 0$$;',
        ],
      ],
    });
    expect(r.aggregate).toEqual({
      columns,
      rows: [
        [
          'pyx',
          'aggregate',
          'half_sum(int)',
          'CREATE AGGREGATE pyx.half_sum(int)\n    SFUNC st\n    STYPE int\n    FINALFUNC fin\n    INITCOND 0;',
        ],
      ],
    });
    expect(r.view).toEqual([['pyx', 'materialized_view', 'mvv']]);
    const tables = (r.tables as string[][]).map((x) => x[2]);
    expect(tables).toEqual(rows.filter((x) => x.startsWith('table:')).map((x) => x.slice('table:'.length)));
    expectErrors('describe', {
      keyspace: invalid("'nope_ks' not found in keyspaces"),
      table: invalid("Table 'nope' not found in keyspace 'pyx'"),
      type: invalid("User defined type 'nope' not found in 'pyx'"),
    });
  });

  it('tracing (trace=True, get_query_trace()) and the virtual tables clients and settings', () => {
    const r = ok('tracing_and_virtual_tables');
    const trace = r.trace as unknown as Record<string, unknown>; // the scenario returns its trace under `trace`
    expect(trace).toMatchObject({
      request_type: 'Execute CQL3 query',
      coordinator: '127.0.0.1',
      query: 'INSERT INTO tr (k, v) VALUES (1, 1)',
      event_sources: ['127.0.0.1'],
      has_duration: true,
    });
    expect(trace.events as number).toBeGreaterThan(0);
    const prepared = r.prepared_trace as Record<string, unknown>;
    expect(prepared.request_type).toBe('Execute CQL3 prepared query');
    expect(prepared.events as number).toBeGreaterThan(0);
    expect(prepared.rows).toEqual([[1]]);
    // The driver's control connection and its session connection (in keyspace pyx).
    const clients = r.clients as unknown[][];
    expect(clients.length).toBeGreaterThanOrEqual(2);
    for (const c of clients)
      expect(c.slice(0, 6)).toEqual(['127.0.0.1', 'DataStax Python Driver', '3.25.0', 5, 'ready', 'anonymous']);
    expect(clients.map((c) => c[6])).toContain('pyx');
    expect(r.settings).toEqual([['cluster_name', 'Test Cluster']]);
    expect(r.virtual_keyspaces as string[]).toEqual(expect.arrayContaining(['system_views', 'system_virtual_schema']));
    expectErrors('tracing_and_virtual_tables', {
      write_virtual: invalid('Modification is not supported by table system_views.clients'),
    });
  });

  it('the deviations scenario ran (its statements are checked by the test below)', () => {
    expect(Object.keys(ok('deviations').results as object)).toHaveLength(25);
  });

  // Where the server used to answer differently from Cassandra 5.0 (sources in docs/clients.md): Cassandra's answers.
  it("Cassandra 5.0's answers where the server used to differ", () => {
    const r = ok('deviations').results as Record<string, unknown>;
    expectErrors(
      'deviations',
      {
        frozen_list_append: invalid('Invalid operation (fl = fl + ?) for frozen collection column fl'),
        frozen_list_set_element: invalid('Invalid operation (fl[?] = ?) for frozen collection column fl'),
        set_element: invalid('Invalid operation (st[?] = ?) for set column st'),
        frozen_list_delete_element: invalid('Invalid deletion operation for frozen collection column fl'),
        nested_non_frozen: invalid('Non-frozen collections are not allowed inside collections: list<list<int>>'),
        set_of_durations: invalid('Durations are not allowed inside sets: set<duration>'),
        duration_slice: invalid('Slice restrictions are not supported on duration columns'),
        writetime_of_key: invalid('Cannot use selection function writetime on PRIMARY KEY part k'),
        create_existing_type: invalid("A user type with name 'addr' already exists"),
        add_existing_field: invalid('Cannot add field city to type pyx.addr: a field with name city already exists'),
        rename_unknown_field: invalid('Unkown field nope in user type pyx.addr'),
        drop_type_used_by_type: invalid("Cannot drop user type 'pyx.addr' as it is still used by user types person"),
        frozen_udt_field_delete: invalid('Frozen UDT column f does not support field deletions'),
        unknown_field_select: invalid('n of type addr has no field nope'),
        counter_condition: invalid('Conditional updates are not supported on counter tables'),
        counter_ttl: invalid('Cannot provide custom TTL for counter updates'),
        insert_json_not_json: invalid(/^Could not decode JSON string as a map: .*\(String was: not json\)$/),
        fromjson_in_select: invalid('fromJson() cannot be used in the selection clause of a SELECT statement'),
        tojson_in_insert: invalid('toJson() may only be used within the selection clause of SELECT statements'),
        drop_table_with_view: invalid('Cannot drop a table when materialized views still depend on it (pyx)'),
        create_existing_function: invalid("Function 'plus' already exists"),
        drop_referenced_function: invalid("Function 'pyx.st' is still referenced by aggregates pyx.half_sum"),
      },
      r as Record<string, ErrorInfo | null>,
      false,
    );
    expect(r.insert_static_only).toBeNull(); // accepted: only static columns are set
    expect(r.writetime_of_list).toEqual(expect.arrayContaining([expect.any(Number)]));
    expect(r.batch_not_applied_columns).toEqual(['[applied]', 'k', 'c', 'n']);
  });
});
