// The values JavaScript UDF bodies see and return (docs/user-defined-functions.md, "JavaScript values"), through
// cassandra-driver: each CQL type read from a table into a body and returned unchanged, or changed, and back.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;
const { types } = cassandra;

async function q(query: string, params: unknown[] = []) {
  return await client.execute(query, params, { prepare: params.length > 0 });
}

/** A JavaScript function of one argument of `type` returning `returns`; its value on the table's row. */
async function apply(type: string, column: string, body: string, returns = type) {
  const name = `f_${column}_${Math.random().toString(36).slice(2, 8)}`;
  await q(
    `CREATE FUNCTION js.${name}(x ${type}) CALLED ON NULL INPUT RETURNS ${returns} LANGUAGE javascript AS $$${body}$$`,
  );
  return (await q(`SELECT js.${name}(${column}) AS r FROM js.t WHERE k = 1`)).first().r;
}

beforeAll(async () => {
  server = await startServer({ env: UDF_ENV });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q("CREATE KEYSPACE js WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await q('CREATE TYPE js.pt (x int, label text)');
  await q(
    'CREATE TABLE js.t (k int PRIMARY KEY, b bigint, d date, dec decimal, u uuid, ip inet, dur duration, bl blob, ts timestamp, tm time, l list<int>, s set<text>, m map<text, int>, tup frozen<tuple<int, text>>, p frozen<pt>)',
  );
  await q(
    "INSERT INTO js.t (k, b, d, dec, u, ip, dur, bl, ts, tm, l, s, m, tup, p) VALUES (1, 9007199254740993, '2024-02-29', 12.3400, 5b6962dd-3f90-4c93-8f61-eabfa4a803e2, '10.0.0.1', 1mo2d3ns, 0x0102ff, '2024-01-02 03:04:05.678+0000', '01:02:03.000000004', [3, 1], {'b', 'a'}, {'x': 1}, (7, 'seven'), {x: 4, label: 'four'})",
  );
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe('JavaScript values', () => {
  it('bigint and time are BigInt', async () => {
    expect(String(await apply('bigint', 'b', 'typeof x === "bigint" ? x + 1n : 0n'))).toBe('9007199254740994');
    expect(String(await apply('time', 'tm', 'x + 1n'))).toBe('01:02:03.000000005');
  });

  it('date is YYYY-MM-DD text, and a text or a day count comes back as a date', async () => {
    expect(await apply('date', 'd', 'x', 'text')).toBe('2024-02-29');
    expect(String(await apply('date', 'd', "'1970-01-02'"))).toBe('1970-01-02');
    expect(String(await apply('date', 'd', '-1'))).toBe('1969-12-31');
  });

  it('decimal is BigDecimal text; uuid and inet are text', async () => {
    expect(await apply('decimal', 'dec', 'x', 'text')).toBe('12.3400');
    expect(String(await apply('decimal', 'dec', "x + '5'"))).toBe('12.34005');
    expect(await apply('uuid', 'u', 'x.toUpperCase()', 'text')).toBe('5B6962DD-3F90-4C93-8F61-EABFA4A803E2');
    expect(String(await apply('inet', 'ip', "x.replace('.1', '.2')"))).toBe('10.0.0.2');
  });

  it('duration is { months, days, nanoseconds }', async () => {
    expect(await apply('duration', 'dur', 'x.months + " " + x.days + " " + x.nanoseconds', 'text')).toBe('1 2 3');
    const d = (await apply('duration', 'dur', '({ months: x.months + 1, days: 0, nanoseconds: 0n })')) as {
      months: number;
    };
    expect(d.months).toBe(2);
  });

  it('blob is a Uint8Array; timestamp a Date', async () => {
    expect(await apply('blob', 'bl', 'Array.from(x).join(",")', 'text')).toBe('1,2,255');
    expect((await apply('blob', 'bl', 'x.slice(1)')) as Buffer).toEqual(Buffer.from([2, 255]));
    expect(await apply('timestamp', 'ts', 'x.toISOString()', 'text')).toBe('2024-01-02T03:04:05.678Z');
    expect(((await apply('timestamp', 'ts', 'x.getTime() + 1')) as Date).toISOString()).toBe(
      '2024-01-02T03:04:05.679Z',
    );
  });

  it('collections, tuples and UDTs', async () => {
    expect(await apply('list<int>', 'l', 'x.map((v) => v * 10)')).toEqual([30, 10]);
    expect(await apply('set<text>', 's', '[...x].join("")', 'text')).toBe('ab');
    expect(await apply('map<text, int>', 'm', 'new Map([...x].map(([k, v]) => [k + k, v + 1]))')).toEqual({ xx: 2 });
    const tuple = (await apply('tuple<int, text>', 'tup', '[x[0] + 1, x[1].toUpperCase()]')) as InstanceType<
      typeof types.Tuple
    >;
    expect([tuple.get(0), tuple.get(1)]).toEqual([8, 'SEVEN']);
    expect(await apply('pt', 'p', '({ x: x.x * 2, label: x.label })')).toEqual({ x: 8, label: 'four' });
  });
});
