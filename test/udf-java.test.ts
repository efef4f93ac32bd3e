// Java user-defined functions and aggregates (LANGUAGE java) through the Node.js driver against a real server with
// user-defined functions on: the schema of the driver's own UDF tests and its function/aggregate metadata, Java's
// semantics on values read from tables, UDAs over Java functions (tuple and map states), nulls, overload resolution
// with literals, DESCRIBE exactly as created, FunctionFailure's fields, and what Cassandra refuses at CREATE time.
import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, expectDriverError } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const INVALID = 0x2200;
const FUNCTION_FAILURE = 0x1400;
const KS = 'ks_udf';

let server: ServerProcess;
let client: cassandra.Client;

async function q(query: string, params: unknown[] = []) {
  return await client.execute(query, params, { prepare: params.length > 0 });
}

async function value(query: string, params: unknown[] = []) {
  const row = (await q(query, params)).first();
  return row ? row.values()[0] : undefined;
}

beforeAll(async () => {
  server = await startServer({ env: UDF_ENV });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  for (const cql of [
    `CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor' : 1}`,
    // The schema of the Node.js driver's udf-tests.js.
    `CREATE FUNCTION ${KS}.return_one() RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'`,
    `CREATE FUNCTION ${KS}.plus(s int, v int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return s+v;'`,
    `CREATE FUNCTION ${KS}.plus(s bigint, v bigint) RETURNS NULL ON NULL INPUT RETURNS bigint LANGUAGE java AS 'return s+v;'`,
    `CREATE AGGREGATE ${KS}.sum(int) SFUNC plus STYPE int INITCOND 1`,
    `CREATE AGGREGATE ${KS}.sum(bigint) SFUNC plus STYPE bigint INITCOND 2`,
    `CREATE TABLE ${KS}.t (k int PRIMARY KEY, i int, b bigint, s text, d double, l list<int>, m map<text, int>)`,
  ])
    await q(cql);
  const rows: unknown[][] = [
    [1, 2147483647, 9223372036854775807n, 'Hello', 2.5, [3, 1, 2], { a: 1, b: 2 }],
    [2, -7, -1n, 'world', -0.5, [], {}],
    [3, null, null, null, null, null, null],
  ];
  for (const r of rows)
    await q(`INSERT INTO ${KS}.t (k, i, b, s, d, l, m) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
      r[0],
      r[1],
      r[2] === null ? null : cassandra.types.Long.fromString(String(r[2])),
      ...r.slice(3),
    ]);
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe("the driver's metadata", () => {
  it('getFunctions lists the overloads; getFunction gives their signature, body and language', async () => {
    expect(await client.metadata.getFunctions(KS, 'plus')).toHaveLength(2);
    expect(await client.metadata.getFunctions(KS, 'return_one')).toHaveLength(1);
    expect(await client.metadata.getFunctions(KS, 'func_does_not_exists')).toHaveLength(0);
    expect(await client.metadata.getFunctions('ks_does_not_exists', 'func1')).toHaveLength(0);
    const f = await client.metadata.getFunction(KS, 'plus', ['bigint', 'bigint']);
    expect(f).toMatchObject({
      name: 'plus',
      keyspaceName: KS,
      argumentNames: ['s', 'v'],
      body: 'return s+v;',
      language: 'java',
      calledOnNullInput: false,
    });
    expect(f!.returnType.code).toBe(cassandra.types.dataTypes.bigint);
    expect(f!.argumentTypes.map((t) => t.code)).toEqual([
      cassandra.types.dataTypes.bigint,
      cassandra.types.dataTypes.bigint,
    ]);
  });

  it('getAggregates lists the overloads; getAggregate gives state function, type and INITCOND', async () => {
    expect(await client.metadata.getAggregates(KS, 'sum')).toHaveLength(2);
    const a = await client.metadata.getAggregate(KS, 'sum', ['int']);
    expect(a).toMatchObject({ name: 'sum', keyspaceName: KS, stateFunction: 'plus', initCondition: '1' });
    expect(a!.stateType.code).toBe(cassandra.types.dataTypes.int);
    expect(a!.finalFunction).toBeFalsy();
  });

  it('CREATE OR REPLACE changes the body the driver reports and the result', async () => {
    await q(
      `CREATE FUNCTION ${KS}.stringify(i int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return Integer.toString(i);'`,
    );
    expect(await value(`SELECT ${KS}.stringify(i) FROM ${KS}.t WHERE k = 2`)).toBe('-7');
    await q(
      `CREATE OR REPLACE FUNCTION ${KS}.stringify(i int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return Integer.toString(i) + "hello";'`,
    );
    expect(await value(`SELECT ${KS}.stringify(i) FROM ${KS}.t WHERE k = 2`)).toBe('-7hello');
    await expect
      .poll(async () => (await client.metadata.getFunction(KS, 'stringify', ['int']))?.body)
      .toBe('return Integer.toString(i) + "hello";');
  });
});

describe("Java's semantics on column values", () => {
  it('int overflow, long arithmetic, integer division and remainder', async () => {
    await q(
      `CREATE FUNCTION ${KS}.twice(i int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return i * 2;'`,
    );
    await q(
      `CREATE FUNCTION ${KS}.next(b bigint) RETURNS NULL ON NULL INPUT RETURNS bigint LANGUAGE java AS 'return b + 1;'`,
    );
    await q(
      `CREATE FUNCTION ${KS}.divmod(i int) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS 'return (i / 2) + "," + (i % 2) + "," + (i / 2.0);'`,
    );
    expect(await value(`SELECT ${KS}.twice(i) FROM ${KS}.t WHERE k = 1`)).toBe(-2);
    expect(String(await value(`SELECT ${KS}.next(b) FROM ${KS}.t WHERE k = 1`))).toBe('-9223372036854775808');
    expect(await value(`SELECT ${KS}.divmod(i) FROM ${KS}.t WHERE k = 2`)).toBe('-3,-1,-3.5');
  });

  it('String and Math methods, and doubles printed as Java prints them', async () => {
    await q(
      `CREATE FUNCTION ${KS}.shout(s text, d double) RETURNS NULL ON NULL INPUT RETURNS text LANGUAGE java AS $$return s.toUpperCase() + "-" + s.substring(1, 3) + "-" + s.indexOf('l') + "-" + Math.max(d, 1.0) + "-" + Math.round(d) + "-" + (d * 1e10);$$`,
    );
    expect(await value(`SELECT ${KS}.shout(s, d) FROM ${KS}.t WHERE k = 1`)).toBe('HELLO-el-2-2.5-3-2.5E10');
  });

  it('lists and maps in and out', async () => {
    await q(
      `CREATE FUNCTION ${KS}.sorted(l list<int>) RETURNS NULL ON NULL INPUT RETURNS list<int> LANGUAGE java AS $$List<Integer> out = new ArrayList<>(l); Collections.sort(out); out.add(out.size()); return out;$$`,
    );
    await q(
      `CREATE FUNCTION ${KS}.total(m map<text, int>) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$int t = 0; for (Map.Entry<String, Integer> e : m.entrySet()) t += e.getValue() * e.getKey().length(); return t;$$`,
    );
    expect(await value(`SELECT ${KS}.sorted(l) FROM ${KS}.t WHERE k = 1`)).toEqual([1, 2, 3, 3]);
    // An empty list is stored as null (as in Cassandra): RETURNS NULL ON NULL INPUT.
    expect(await value(`SELECT ${KS}.sorted(l) FROM ${KS}.t WHERE k = 2`)).toBeNull();
    expect(await value(`SELECT ${KS}.total(m) FROM ${KS}.t WHERE k = 1`)).toBe(3);
  });

  it('RETURNS NULL ON NULL INPUT gives null; CALLED ON NULL INPUT sees null as a boxed value', async () => {
    await q(
      `CREATE FUNCTION ${KS}.describe_null(i int) CALLED ON NULL INPUT RETURNS text LANGUAGE java AS 'return i == null ? "null" : "value " + i;'`,
    );
    expect(await value(`SELECT ${KS}.twice(i) FROM ${KS}.t WHERE k = 3`)).toBeNull();
    expect(await value(`SELECT ${KS}.describe_null(i) FROM ${KS}.t WHERE k = 3`)).toBe('null');
    expect(await value(`SELECT ${KS}.describe_null(i) FROM ${KS}.t WHERE k = 2`)).toBe('value -7');
    await q(
      `CREATE FUNCTION ${KS}.unbox(i int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'int x = i; return x;'`,
    );
    const err = await errorOf(q(`SELECT ${KS}.unbox(i) FROM ${KS}.t WHERE k = 3`));
    expect([err.code, err.message]).toEqual([
      FUNCTION_FAILURE,
      `execution of '${KS}.unbox[int]' failed: java.lang.NullPointerException`,
    ]);
  });
});

describe('aggregates over Java functions', () => {
  it("the driver tests' sum(int) and sum(bigint), with their INITCOND", async () => {
    expect(await value(`SELECT ${KS}.sum(i) FROM ${KS}.t WHERE k = 2`)).toBe(-6);
    expect(String(await value(`SELECT ${KS}.sum(b) FROM ${KS}.t WHERE k = 2`))).toBe('1');
    // A null input skips the row (RETURNS NULL ON NULL INPUT state function).
    expect(await value(`SELECT ${KS}.sum(i) FROM ${KS}.t WHERE k IN (2, 3)`)).toBe(-6);
  });

  it('a map state counting values by group, as the classic group_and_count example', async () => {
    await q(
      `CREATE FUNCTION ${KS}.state_group_and_count(state map<text, int>, type text) CALLED ON NULL INPUT RETURNS map<text, int> LANGUAGE java AS $$Integer count = (Integer) state.get(type); if (count == null) count = 1; else count++; state.put(type, count); return state;$$`,
    );
    await q(
      `CREATE AGGREGATE ${KS}.group_and_count(text) SFUNC state_group_and_count STYPE map<text, int> INITCOND {}`,
    );
    await q(`CREATE TABLE ${KS}.pets (k int PRIMARY KEY, kind text)`);
    for (const [k, kind] of [
      [1, 'cat'],
      [2, 'dog'],
      [3, 'cat'],
    ] as const)
      await q(`INSERT INTO ${KS}.pets (k, kind) VALUES (?, ?)`, [k, kind]);
    expect(await value(`SELECT ${KS}.group_and_count(kind) FROM ${KS}.pets`)).toEqual({ cat: 2, dog: 1 });
  });
});

describe('calls', () => {
  it('literal arguments are resolved against the overloads as Cassandra does', async () => {
    expect(await value(`SELECT ${KS}.twice(21) FROM ${KS}.t WHERE k = 1`)).toBe(42);
    expect(await value(`SELECT ${KS}.return_one() FROM ${KS}.t WHERE k = 1`)).toBe(1);
    // 1 prefers int (exact), 3000000000 bigint: each overload then matches only weakly.
    expect(await value(`SELECT ${KS}.plus(1, 2) FROM ${KS}.t WHERE k = 1`)).toBe(3);
    await expectDriverError(
      q(`SELECT ${KS}.plus(3000000000, 1) FROM ${KS}.t WHERE k = 1`),
      INVALID,
      `Ambiguous call to function ${KS}.plus (can be matched by following signatures: ${KS}.plus : (int, int) -> int, ${KS}.plus : (bigint, bigint) -> bigint): use type casts to disambiguate`,
    );
    expect(String(await value(`SELECT ${KS}.plus((bigint) 3000000000, (bigint) 1) FROM ${KS}.t WHERE k = 1`))).toBe(
      '3000000001',
    );
    await expectDriverError(
      q(`SELECT ${KS}.twice('x') FROM ${KS}.t WHERE k = 1`),
      INVALID,
      `Type error: 'x' cannot be passed as argument 0 of function ${KS}.twice of type int`,
    );
  });

  it("a thrown exception is FunctionFailure with the driver's keyspace, function and argument types", async () => {
    await q(
      `CREATE FUNCTION ${KS}.div(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return a / b;'`,
    );
    const err = (await errorOf(q(`SELECT ${KS}.div(i, 0) FROM ${KS}.t WHERE k = 2`))) as Error & {
      code: number;
      keyspace: string;
      functionName: string;
      argTypes: string[];
    };
    expect([err.code, err.keyspace, err.functionName, err.argTypes]).toEqual([
      FUNCTION_FAILURE,
      KS,
      'div',
      ['int', 'int'],
    ]);
    expect(err.message).toBe(`execution of '${KS}.div[int, int]' failed: java.lang.ArithmeticException: / by zero`);
    await q(
      `CREATE FUNCTION ${KS}.refuse(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'if (a < 0) throw new IllegalArgumentException("negative: " + a); return a;'`,
    );
    const thrown = await errorOf(q(`SELECT ${KS}.refuse(i) FROM ${KS}.t WHERE k = 2`));
    expect(thrown.message).toBe(
      `execution of '${KS}.refuse[int]' failed: java.lang.IllegalArgumentException: negative: -7`,
    );
  });

  it('DESCRIBE FUNCTION shows the body exactly as created', async () => {
    const body = '\n    // keeps comments, blank lines and indentation\n\n    return a + 1;\n';
    await q(`CREATE FUNCTION ${KS}.kept(a int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS $$${body}$$`);
    const r = await q(`DESCRIBE FUNCTION ${KS}.kept`);
    expect(r.first().create_statement).toBe(
      `CREATE FUNCTION ${KS}.kept(a int)\n    CALLED ON NULL INPUT\n    RETURNS int\n    LANGUAGE java\n    AS $$${body}$$;`,
    );
  });
});

describe('what Cassandra refuses at CREATE time', () => {
  const create = (name: string, body: string) =>
    q(`CREATE FUNCTION ${KS}.${name}(a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$${body}$$`);

  it('compile errors, with line numbers relative to the body', async () => {
    await expectDriverError(
      create('bad1', 'return b;'),
      INVALID,
      'Java source compilation failed:\nLine 1: b cannot be resolved to a variable\n',
    );
    await expectDriverError(
      create('bad2', 'int x = 1;\nString s = x;\nreturn x;'),
      INVALID,
      'Java source compilation failed:\nLine 2: Type mismatch: cannot convert from int to String\n',
    );
  });

  it('System, threads, reflection and I/O cannot be reached', async () => {
    for (const [name, body] of [
      ['sys', 'System.exit(0); return a;'],
      ['thread', 'new Thread().start(); return a;'],
      ['file', 'new java.io.File("/etc/passwd").delete(); return a;'],
    ]) {
      const err = await errorOf(create(name!, body!));
      expect(err.code, body).toBe(INVALID);
      expect(err.message, body).toMatch(/^Java source compilation failed:\nLine 1: .*cannot be resolved/);
    }
    const reflect = await errorOf(create('reflect', 'Class.forName("java.lang.Runtime"); return a;'));
    expect(reflect.code).toBe(INVALID);
    expect(reflect.message).toMatch(/^Java UDF validation failed: |^Java source compilation failed:/);
  });

  it('synchronized blocks and class declarations', async () => {
    const sync = await errorOf(create('sync', 'synchronized (this) { return a; }'));
    expect(sync.code).toBe(INVALID);
    const cls = await errorOf(create('cls', 'class X {} return a;'));
    expect(cls.code).toBe(INVALID);
    expect(
      (await q(`SELECT * FROM system_schema.functions WHERE keyspace_name = '${KS}' AND function_name = 'sync'`)).rows,
    ).toHaveLength(0);
  });

  it('frozen<> on an argument or the return type, as Cassandra 5.0', async () => {
    await q(`CREATE TYPE ${KS}.pt (x int, y int)`);
    await expectDriverError(
      q(`CREATE FUNCTION ${KS}.fz(p frozen<pt>) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return 1;'`),
      INVALID,
      "Argument 'frozen<pt>' cannot be frozen; remove frozen<> modifier from 'frozen<pt>'",
    );
    await q(
      `CREATE FUNCTION ${KS}.px(p pt) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return p.getInt("x") + p.getInt("y");'`,
    );
    await q(`CREATE TABLE ${KS}.pts (k int PRIMARY KEY, p frozen<pt>)`);
    await q(`INSERT INTO ${KS}.pts (k, p) VALUES (1, {x: 3, y: 4})`);
    expect(await value(`SELECT ${KS}.px(p) FROM ${KS}.pts WHERE k = 1`)).toBe(7);
  });
});
