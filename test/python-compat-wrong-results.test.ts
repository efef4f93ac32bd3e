// Results Apache Cassandra 5.0 gives where pmemcql used to answer differently, through the Python driver
// (python3-cassandra 3.25), unpaged or with fetch_size: GROUP BY paging and PER PARTITION LIMIT, partition-key IN
// order, list prepend, a failed condition on a static column, USING TIMESTAMP -2^63+1, a view row under the empty
// key and the view build status, an index query's last full page. Expected values are Cassandra's answers.
// Scenarios: test/python/compat_wrong_results.py (one process, one connection); the Node.js driver's side is
// test/compat-wrong-results.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonDriverAvailable, runPython, type ScenarioResult, scenarioResult } from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

const available = await pythonDriverAvailable();
let server: ServerProcess;
let results: Record<string, ScenarioResult> = {};

const ok = (name: string) => scenarioResult(results, name);

describe.runIf(available)('wrong results of the compatibility suites, through the Python driver', () => {
  beforeAll(async () => {
    server = await startServer();
    results = await runPython('compat_wrong_results.py', server.host, server.port, [], { timeoutMs: 90_000 });
  }, 120_000);

  afterAll(async () => {
    reportIfDied(server);
    await server?.stop();
  });

  it('GROUP BY: PER PARTITION LIMIT and the page size count groups; IN + ORDER BY sorts the groups', () => {
    const r = ok('group_by');
    expect(r.per_partition).toEqual([[1, 1, 2, 20]]);
    expect(r.per_partition_rows).toEqual([
      [1, 1, 1],
      [1, 2, 1],
    ]);
    expect(r.paged).toEqual([[[0, 0, 0, 1]], [[0, 1, 0, 3]], []]);
    expect(r.paged_limit).toEqual([[[0, 0, 0, 1]], [[0, 1, 0, 3]]]);
    expect(r.in_order_by).toEqual([
      [1, 3, 1],
      [2, 2, 1],
      [1, 1, 1],
    ]);
  });

  it('a partition-key IN reads partitions in key order; a repeated clustering value selects its row once', () => {
    const r = ok('in_key_order');
    expect(r.scan).toEqual([[5], [1], [2], [4], [3]]);
    expect(r.in).toEqual([[1], [2], [3], [4]]);
    expect(r.in_static).toEqual([
      [1, 1, null],
      [2, 1, null],
      [3, 1, null],
      [4, 1, null],
      [5, null, 5],
    ]);
    expect(r.duplicates).toEqual([[1, 1, 1]]);
  });

  it('a prepended literal keeps its order; a failed condition on a static column shows the static value', () => {
    const r = ok('prepend_and_static_condition');
    expect(r.list).toEqual([[['m', 'n', 'a']]]);
    expect(r.delete_if).toEqual([[false, 's']]);
    expect(r.update_if).toEqual([[false, 's']]);
  });

  it('USING TIMESTAMP -9223372036854775807 reads back exactly', () => {
    expect(ok('timestamp_min').writetime).toEqual([['-9223372036854775807']]);
  });

  it('a view keeps the row under the empty key; its build is recorded', () => {
    const r = ok('views');
    expect(r.view).toEqual([
      ['', 123],
      ['dog', 1],
    ]);
    expect(r.status).toEqual([['pyr', 'vmv', 'SUCCESS']]);
    expect(r.built).toEqual([['pyr', 'vmv']]);
  });

  it("an index query's full last page carries a paging state, then an empty page comes", () => {
    const r = ok('index_paging');
    expect(r.page_sizes).toEqual([1, 1, 0]);
    expect(r.keys).toEqual([1, 2]);
  });
});
