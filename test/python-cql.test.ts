// CQL through the Python driver (python3-cassandra 3.25): prepared statements with many types and their
// routing keys, paging with fetch_size (within a partition, across partitions, reversed) at v5, v4 and v3,
// a batch, and the server error codes the driver maps to its exceptions. Scenarios: test/python/cql_checks.py.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonDriverAvailable, runPython, scenarioResult } from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

interface ScenarioResult {
  ok: boolean;
  error?: ErrorInfo;
  trace?: string;
  [key: string]: unknown;
}

interface ErrorInfo {
  type: string;
  code: number | null;
  message: string;
  keyspace?: string;
  table?: string;
}

type Pages = [number, number][][];

interface PagingRun {
  protocol_version: number;
  within: Pages;
  within_prepared: Pages;
  across: Pages;
  unpaged: [number, number][];
  reversed: Pages;
  desc_table: Pages;
  iterated: number[];
}

const available = await pythonDriverAvailable();
let server: ServerProcess;
let results: Record<string, ScenarioResult> = {};

function ok(name: string): ScenarioResult {
  return scenarioResult(results, name);
}

const range = (n: number, from = 0) => [...Array(n).keys()].map((i) => i + from);

describe.runIf(available)('CQL through the Python driver', () => {
  beforeAll(async () => {
    server = await startServer();
    results = await runPython('cql_checks.py', server.host, server.port);
  });

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  it('a prepared INSERT / SELECT round-trips every type it binds (v5)', () => {
    const r = ok('prepared_types');
    expect(r.protocol_version).toBe(5);
    expect(r.mismatches).toEqual({});
  });

  it('PREPARE returns the bind and result column metadata and the partition-key index', () => {
    const r = ok('prepared_types');
    expect((r.insert_bind_columns as string[])[0]).toBe('k');
    expect(r.insert_bind_columns as string[]).toHaveLength(23);
    expect(r.select_result_columns as string[]).toHaveLength(22);
    expect(r.routing_key_indexes).toEqual([0]);
    expect(r.routing_key).toBe('00000002');
  });

  it('decimals keep their scale (exponents, trailing zeros), bound and as literals', () => {
    const r = ok('decimal_forms');
    expect(r.values).toEqual({
      '1E+10': ['1E+10', '1E+10'],
      '1E-20': ['1E-20', '1E-20'],
      '123.4500': ['123.4500', '123.4500'],
      '-99999999999999999999.99': ['-99999999999999999999.99', '-99999999999999999999.99'],
      '0': ['0', '0'],
    });
  });

  it('a composite partition key gives pk indices in key order and the server token matches the driver token', () => {
    const r = ok('composite_routing_key');
    // INSERT (v, c, a, b): key (b, a) -> bind indices [3, 2]
    expect(r.routing_key_indexes).toEqual([3, 2]);
    expect(r.routing_key).toBe('00036265650000040000000700');
    expect(r.server_token).toBe(r.driver_token);
  });

  for (const version of [5, 4, 3]) {
    describe(`paging with fetch_size at protocol v${version}`, () => {
      const run = () => (ok('paging')[`v${version}`] as PagingRun) ?? expect.fail(`no v${version} result`);

      it('negotiated the requested version', () => {
        expect(run().protocol_version).toBe(version);
      });

      it('resumes exactly within one partition (simple and prepared statements)', () => {
        for (const pages of [run().within, run().within_prepared]) {
          expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 4]);
          expect(pages.flat().map(([, c]) => c)).toEqual(range(25));
        }
      });

      it('resumes exactly across partitions', () => {
        const { across, unpaged } = run();
        expect(unpaged).toHaveLength(25 + 7 * 6);
        expect(across.slice(0, -1).every((p) => p.length === 4)).toBe(true);
        expect(across.flat()).toEqual(unpaged);
      });

      it('resumes exactly in a reversed query and on a DESC table', () => {
        expect(
          run()
            .reversed.flat()
            .map(([, c]) => c),
        ).toEqual(range(25).reverse());
        expect(run().reversed.map((p) => p.length)).toEqual([6, 6, 6, 6, 1]);
        expect(
          run()
            .desc_table.flat()
            .map(([, c]) => c),
        ).toEqual(range(25).reverse());
      });

      it('iterating a ResultSet fetches the following pages', () => {
        expect(run().iterated).toEqual(range(25));
      });
    });
  }

  for (const version of [5, 4]) {
    it(`2000 concurrent prepared inserts (300 in flight) then concurrent reads (v${version})`, () => {
      const run = (ok('concurrent')[`v${version}`] ?? expect.fail('no result')) as Record<string, unknown>;
      expect(run.protocol_version).toBe(version);
      expect(run.failures).toEqual([]);
      expect(run.wrong_reads).toEqual([]);
      expect(run.count).toBe(2000);
    });
  }

  it('a traced request (cqlsh TRACING ON) returns a session whose trace can be read', () => {
    const r = ok('tracing');
    expect(r.trace_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-/);
    expect(r.request_type).toBe('Execute CQL3 query');
    expect(r.coordinator).toBe('127.0.0.1');
    expect(r.has_duration).toBe(true);
    expect(r.events as number).toBeGreaterThan(0);
  });

  it('a logged batch of prepared and simple statements applies all of them', () => {
    const r = ok('batch');
    expect(r.rows).toEqual([
      [0, 'upd'],
      [1, 'b1'],
      [2, 'b2'],
      [3, 'b3'],
      [4, 'b4'],
    ]);
  });

  it('user-defined types: registered classes bind and read back, metadata and export_as_string() show the type', () => {
    const r = ok('udt');
    expect(r.row1).toEqual({
      p: { x: 1, y: 2, label: 'a' },
      ps: [
        { x: 3, y: 4, label: 'b' },
        { x: 5, y: 6, label: null },
      ],
    });
    expect(r.row2).toEqual({ p: { x: 7, y: 8, label: 'lit' }, ps: null });
    expect(r.user_types).toEqual(['point']);
    expect(r.field_names).toEqual(['x', 'y', 'label']);
    expect(r.field_types).toEqual(['int', 'int', 'text']);
    expect(r.export as string).toContain('CREATE TYPE pyu.point (\n    x int,\n    y int,\n    label text\n);');
    expect(r.export as string).toContain('    ps list<frozen<point>>\n');
  });

  for (const version of [5, 4]) {
    it(`a prepared SELECT * returns a column added after PREPARE (v${version})`, () => {
      const run = (ok('prepared_after_alter')[`v${version}`] ?? expect.fail('no result')) as Record<string, unknown>;
      expect(run.protocol_version).toBe(version);
      expect(run.before).toEqual({ k: 1, a: 1 });
      expect(run.after).toEqual({ k: 1, a: 1, b: 2 });
    });
  }

  describe('errors', () => {
    const err = (name: string) => (ok('errors')[name] as ErrorInfo | null) ?? expect.fail(`${name} did not fail`);

    it('unknown table: InvalidRequest 0x2200', () => {
      expect(err('unknown_table')).toMatchObject({ type: 'InvalidRequest', code: 0x2200 });
      expect(err('unknown_table').message).toContain('nope');
    });

    it('garbage: SyntaxException 0x2000', () => {
      expect(err('syntax')).toMatchObject({ type: 'SyntaxException', code: 0x2000 });
    });

    it('filtering without ALLOW FILTERING: InvalidRequest with the Cassandra message', () => {
      expect(err('filtering')).toMatchObject({ type: 'InvalidRequest', code: 0x2200 });
      expect(err('filtering').message).toContain(
        'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
          'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING',
      );
    });

    it('PREPARE of an unknown column: InvalidRequest', () => {
      expect(err('prepare_unknown_column')).toMatchObject({ type: 'InvalidRequest', code: 0x2200 });
      expect(err('prepare_unknown_column').message).toContain('Undefined column name nope');
    });

    it('USE of an unknown keyspace and an INSERT missing a clustering column: InvalidRequest', () => {
      expect(err('use_unknown_keyspace')).toMatchObject({ type: 'InvalidRequest', code: 0x2200 });
      expect(err('use_unknown_keyspace').message).toContain(`message="Keyspace 'pyc_nope' does not exist"`);
      expect(err('missing_clustering_key')).toMatchObject({ type: 'InvalidRequest', code: 0x2200 });
      expect(err('missing_clustering_key').message).toContain('Some clustering keys are missing: c');
    });

    it('an existing table: AlreadyExists carrying keyspace and table', () => {
      expect(err('already_exists')).toMatchObject({ type: 'AlreadyExists', keyspace: 'pyc', table: 'e' });
    });
  });
});
