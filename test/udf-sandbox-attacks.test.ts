// Known ways out of a JavaScript sandbox, each tried as a user-defined function through cassandra-driver against a
// real server with user-defined functions (Java and JavaScript) on. Each must end in Cassandra's FunctionFailure or
// InvalidRequest, leave nothing behind for later calls or other functions, and the server must keep serving.
import cassandra from 'cassandra-driver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorOf } from './support/driver-error.js';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const FUNCTION_FAILURE = 0x1400;
const INVALID = 0x2200;
const FAIL_TIMEOUT_MS = 400;
const KS = 'attack';

let server: ServerProcess;
let client: cassandra.Client;
let seq = 0;

async function q(query: string, params: unknown[] = []) {
  return await client.execute(query, params, { prepare: params.length > 0 });
}

/** Creates a JavaScript function of `a` (the argument's CQL type) returning `returns`; its name. */
async function jsFunction(body: string, returns = 'text', argType = 'int'): Promise<string> {
  const name = `f${++seq}`;
  await q(
    `CREATE FUNCTION ${KS}.${name}(a ${argType}) CALLED ON NULL INPUT RETURNS ${returns} LANGUAGE javascript AS $$${body}$$`,
  );
  return name;
}

/** Calls `name` on row k = 1 (a = 7, l = [1, 2], s = 'seven'); `arg` picks the column. */
async function call(name: string, arg = 'a') {
  return (await q(`SELECT ${KS}.${name}(${arg}) AS r FROM ${KS}.t WHERE k = 1`)).first().r;
}

/** The function fails with FunctionFailure naming it; the message's detail is returned. */
async function expectFailure(name: string, arg = 'a', argType = 'int'): Promise<string> {
  const err = await errorOf(call(name, arg), `${name}(${arg})`);
  expect(err.code, err.message).toBe(FUNCTION_FAILURE);
  const prefix = `execution of '${KS}.${name}[${argType}]' failed: `;
  expect(err.message.startsWith(prefix), err.message).toBe(true);
  return err.message.slice(prefix.length);
}

beforeAll(async () => {
  server = await startServer({
    env: {
      ...UDF_ENV,
      PMEMCQL_USER_DEFINED_FUNCTIONS_WARN_TIMEOUT: `${FAIL_TIMEOUT_MS / 2}ms`,
      PMEMCQL_USER_DEFINED_FUNCTIONS_FAIL_TIMEOUT: `${FAIL_TIMEOUT_MS}ms`,
    },
  });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await q(`CREATE KEYSPACE ${KS} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
  await q(`CREATE TABLE ${KS}.t (k int PRIMARY KEY, a int, l list<int>, s text)`);
  await q(`INSERT INTO ${KS}.t (k, a, l, s) VALUES (1, 7, [1, 2], 'seven')`);
});

afterEach(async () => {
  // Whatever the attack did, the server still answers.
  expect((await q(`SELECT a FROM ${KS}.t WHERE k = 1`)).first().a).toBe(7);
});

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe('constructor chains', () => {
  it('from an argument: a.constructor.constructor is a function constructor that refuses', async () => {
    const f = await jsFunction(`return a.constructor.constructor('return typeof process')();`);
    expect(await expectFailure(f)).toBe(
      'EvalError: code generation from strings is disabled in user-defined functions',
    );
  });

  it('from a collection argument', async () => {
    const f = await jsFunction(`return a.map.constructor('return globalThis')().toString();`, 'text', 'list<int>');
    expect(await expectFailure(f, 'l', 'list<int>')).toMatch(/^EvalError: code generation/);
  });

  it('from a result: a toString that climbs to Function', async () => {
    const f = await jsFunction(`return { toString() { return this.constructor.constructor('return 1')() } };`);
    expect(await expectFailure(f)).toMatch(/^EvalError: code generation/);
  });

  it('from an error: the caught error climbs to Function', async () => {
    const f = await jsFunction(`try { null.x } catch (e) { return e.constructor.constructor('return this')() }`);
    expect(await expectFailure(f)).toMatch(/^EvalError: code generation/);
  });

  it('through generator and async function constructors', async () => {
    const g = await jsFunction(`return (function* () {}).constructor('yield 1')().next().value;`);
    expect(await expectFailure(g)).toMatch(/^EvalError: code generation/);
    const h = await jsFunction(`return (async () => {}).constructor('return 1')();`);
    expect(await expectFailure(h)).toMatch(/^EvalError: code generation/);
  });
});

describe('code from strings', () => {
  it('eval', async () => {
    const f = await jsFunction(`return eval('1 + 1');`, 'int');
    expect(await expectFailure(f)).toMatch(/^EvalError: code generation/);
  });

  it('Function and new Function', async () => {
    const f = await jsFunction(`return Function('return this')();`);
    expect(await expectFailure(f)).toMatch(/^EvalError: code generation/);
    const g = await jsFunction(`return new Function('a', 'return a')(1);`, 'int');
    expect(await expectFailure(g)).toMatch(/^EvalError: code generation/);
  });

  it('Reflect.construct of Function', async () => {
    const f = await jsFunction(`return Reflect.construct(Function, ['return 1'])();`, 'int');
    expect(await expectFailure(f)).toMatch(/^EvalError: code generation/);
  });
});

describe('the host is out of reach', () => {
  it('globalThis has no process, require, timers, console or I/O', async () => {
    const f = await jsFunction(
      `return ['process', 'require', 'module', 'setTimeout', 'setImmediate', 'console', 'fetch', 'Buffer',
        'WebAssembly', 'Atomics', 'os', 'std', 'scriptArgs']
        .map((n) => typeof globalThis[n]).join(',');`,
    );
    expect(await call(f)).toBe(Array(13).fill('undefined').join(','));
  });

  it('writing to globalThis fails', async () => {
    const f = await jsFunction(`globalThis.leak = 1; return 'written';`);
    expect(await expectFailure(f)).toMatch(/^TypeError/);
  });

  it('`this` is undefined in a body', async () => {
    const f = await jsFunction(`return this.constructor;`);
    expect(await expectFailure(f)).toMatch(/^TypeError/);
  });

  it('Error.prepareStackTrace and captureStackTrace cannot be installed', async () => {
    const f = await jsFunction(`Error.prepareStackTrace = (e, frames) => frames; return new Error('x').stack;`);
    expect(await expectFailure(f)).toMatch(/^TypeError/);
    const g = await jsFunction(`Error.captureStackTrace = () => 1; return 'x';`);
    expect(await expectFailure(g)).toMatch(/^TypeError/);
  });

  it('import() gives no module, only a promise that is not a value', async () => {
    const f = await jsFunction(`return import('fs');`, 'int');
    expect(await expectFailure(f)).toMatch(/^TypeError: Cannot convert object \[object Promise\]/);
  });
});

describe('Proxy, Reflect and getters', () => {
  it('a Proxy returned as the result is not a value', async () => {
    const f = await jsFunction(
      `return new Proxy([1, 2], { get(t, p) { if (p === 'length') throw new Error('trap'); return Reflect.get(t, p) } });`,
      'list<int>',
    );
    expect(await expectFailure(f)).toBe('Error: trap');
  });

  it('a getter on a returned object runs inside the sandbox, under its time limit', async () => {
    const f = await jsFunction(`return { get months() { for (;;) {} }, days: 1, nanoseconds: 0 };`, 'duration');
    expect(await expectFailure(f)).toMatch(/^java\.util\.concurrent\.TimeoutException: User defined function/);
  });

  it('Reflect cannot redefine frozen intrinsics', async () => {
    const f = await jsFunction(
      `return String(Reflect.defineProperty(Object.prototype, 'x', { value: 1 })) + ',' +
        String(Reflect.set(Array.prototype, 'y', 1)) + ',' + String(({}).x);`,
    );
    expect(await call(f)).toBe('false,false,undefined');
  });
});

describe('promise jobs', () => {
  it('an async body returns a promise, which is not a value', async () => {
    const f = await jsFunction(`return (async () => 'later')();`, 'int');
    expect(await expectFailure(f)).toMatch(/^TypeError: Cannot convert object \[object Promise\]/);
  });

  it('jobs queued by a call never run after it', async () => {
    const f = await jsFunction(`Promise.resolve().then(() => { for (;;) {} }); return 'queued';`);
    // The call itself succeeds; its isolate, with the job still queued, is thrown away rather than left to run it.
    expect(await call(f)).toBe('queued');
    expect(await call(f)).toBe('queued');
  });
});

describe('nothing leaks between calls or functions', () => {
  it('prototype pollution fails', async () => {
    const f = await jsFunction(`Object.prototype.polluted = 'yes'; return 'done';`);
    expect(await expectFailure(f)).toMatch(/^TypeError/);
    const g = await jsFunction(`Array.prototype.push = () => 0; return 'done';`);
    expect(await expectFailure(g)).toMatch(/^TypeError/);
    const h = await jsFunction(`JSON.parse = () => 1; return 'done';`);
    expect(await expectFailure(h)).toMatch(/^TypeError/);
  });

  it('another function and a later call see a clean world', async () => {
    const f = await jsFunction(
      `return [typeof ({}).polluted, typeof globalThis.leak, [1].push(2), JSON.parse('3')].join(',');`,
    );
    expect(await call(f)).toBe('undefined,undefined,2,3');
  });

  it('a function cannot keep state in its own closure between calls', async () => {
    const f = await jsFunction(`var counter = (typeof counter === 'number' ? counter : 0) + 1; return counter;`, 'int');
    expect(await call(f)).toBe(1);
    expect(await call(f)).toBe(1);
  });
});

describe('resource exhaustion', () => {
  it('an infinite loop is stopped at the fail timeout while other requests keep being served', async () => {
    const f = await jsFunction(`for (;;) {}`);
    const started = performance.now();
    const spin = errorOf(call(f));
    // A plain query sent meanwhile waits at most for the time limit.
    const other = q(`SELECT a FROM ${KS}.t WHERE k = 1`).then(() => performance.now() - started);
    const err = await spin;
    expect(err.code).toBe(FUNCTION_FAILURE);
    expect(err.message).toBe(
      `execution of '${KS}.${f}[int]' failed: java.util.concurrent.TimeoutException: User defined function ${KS}.${f} : (int) -> text ran longer than ${FAIL_TIMEOUT_MS}ms`,
    );
    expect(await other).toBeLessThan(FAIL_TIMEOUT_MS + 1500);
  });

  it('a long loop inside an engine built-in is stopped by the watchdog', async () => {
    const f = await jsFunction(`const arr = []; arr.length = 1e9; arr.sort(); return 'sorted';`);
    const started = performance.now();
    expect(await expectFailure(f)).toMatch(/^java\.util\.concurrent\.TimeoutException/);
    expect(performance.now() - started).toBeLessThan(FAIL_TIMEOUT_MS + 1500);
    // Other functions work again once the engine has been replaced.
    const g = await jsFunction(`return 'fine';`);
    await expect.poll(async () => call(g).catch((e: Error) => e.message), { timeout: 5000 }).toBe('fine');
  });

  it('huge allocations fail with an out-of-memory error', async () => {
    const f = await jsFunction(`return 'x'.repeat(1 << 29);`);
    expect(await expectFailure(f)).toMatch(/^java\.lang\.OutOfMemoryError|^InternalError|^RangeError/);
    const g = await jsFunction(`const chunks = []; for (;;) chunks.push(new Float64Array(1 << 20)); return 'never';`);
    expect(await expectFailure(g)).toMatch(/^java\.lang\.OutOfMemoryError|^RangeError/);
  });

  it('deep recursion ends with a stack overflow', async () => {
    const f = await jsFunction(`const r = (n) => r(n + 1) + 1; return String(r(0));`);
    expect(await expectFailure(f)).toMatch(/stack overflow|RangeError/);
  });

  it('recursion inside a built-in (JSON of a deep structure) ends with a stack overflow', async () => {
    const f = await jsFunction(`return JSON.stringify(JSON.parse('['.repeat(100000) + ']'.repeat(100000)));`);
    expect(await expectFailure(f)).toMatch(/stack overflow|OutOfMemoryError/);
    const g = await jsFunction(`return 'fine';`);
    await expect.poll(async () => call(g).catch((e: Error) => e.message), { timeout: 5000 }).toBe('fine');
  });

  it('a body nested too deeply is refused at CREATE', async () => {
    const deep = `${'('.repeat(5000)}1${')'.repeat(5000)}`;
    const err = await errorOf(
      q(`CREATE FUNCTION ${KS}.deep(a int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS '${deep}'`),
    );
    expect(err.code).toBe(INVALID);
    expect(err.message).toMatch(/^Failed to compile function 'attack\.deep' for language javascript: .*nest/);
  });
});
