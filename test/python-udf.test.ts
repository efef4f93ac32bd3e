// User-defined functions through the Python driver (python3-cassandra): the Cassandra documentation's Java examples
// (a UDA with a tuple state, fLog, UDT arguments and udfContext results), the driver's function and aggregate
// metadata, FunctionFailure with its fields, the warn and fail timeouts, sandbox escapes, and the switches off.
// Scenarios: test/python/udf.py.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PythonErrorInfo,
  pythonDriverAvailable,
  runPython,
  type ScenarioResult,
  scenarioResult,
  serverMessage,
} from './support/python-driver.js';
import { reportIfDied, type ServerProcess, startServer, UDF_ENV } from './support/server-process.js';

const INVALID = 0x2200;
const FUNCTION_FAILURE = 0x1400;
const available = await pythonDriverAvailable();

interface FailureInfo extends PythonErrorInfo {
  function?: string;
  arg_types?: string[];
}

let enabled: ServerProcess;
let disabled: ServerProcess;
let results: Record<string, ScenarioResult> = {};
let off: Record<string, ScenarioResult> = {};

const ok = (name: string) => scenarioResult(results, name);

function failure(e: unknown, fn: string, argTypes: string[], detail: string | RegExp) {
  const f = e as FailureInfo;
  expect([f.type, f.code, f.keyspace, f.function, f.arg_types]).toEqual([
    'FunctionFailure',
    FUNCTION_FAILURE,
    'udf',
    fn,
    argTypes,
  ]);
  const prefix = `execution of 'udf.${fn}[${argTypes.join(', ')}]' failed: `;
  const message = serverMessage(f);
  expect(message.startsWith(prefix), message).toBe(true);
  if (typeof detail === 'string') expect(message.slice(prefix.length)).toBe(detail);
  else expect(message.slice(prefix.length)).toMatch(detail);
}

function invalid(e: unknown, message: string | RegExp) {
  const info = e as PythonErrorInfo;
  expect([info.type, info.code]).toEqual(['InvalidRequest', INVALID]);
  if (typeof message === 'string') expect(serverMessage(info)).toBe(message);
  else expect(serverMessage(info)).toMatch(message);
}

describe.runIf(available)('user-defined functions through the Python driver', () => {
  beforeAll(async () => {
    [enabled, disabled] = await Promise.all([
      startServer({
        env: {
          ...UDF_ENV,
          PMEMCQL_USER_DEFINED_FUNCTIONS_WARN_TIMEOUT: '200ms',
          PMEMCQL_USER_DEFINED_FUNCTIONS_FAIL_TIMEOUT: '1000ms',
        },
      }),
      startServer(),
    ]);
    [results, off] = await Promise.all([
      runPython('udf.py', enabled.host, enabled.port, ['docs_examples', 'metadata', 'failures', 'attacks'], {
        timeoutMs: 90_000,
      }),
      runPython('udf.py', disabled.host, disabled.port, ['disabled']),
    ]);
  }, 120_000);

  afterAll(async () => {
    reportIfDied(enabled);
    await enabled?.stop();
    await disabled?.stop();
  });

  it("the documentation's Java examples: the average UDA, fLog, a UDT argument and a udfContext result", () => {
    expect(ok('docs_examples')).toMatchObject({
      average: 2.5,
      average_of_none: null,
      flog: 1,
      identity: 3,
      udt_field: 'hello',
      udt_made: { txt: 'some string', i: 42 },
    });
  });

  it("the driver's metadata of overloaded functions and of an aggregate", () => {
    const r = ok('metadata');
    expect(r.functions).toEqual([
      ['plus', ['bigint', 'bigint'], ['a', 'b'], 'bigint', 'java', 'return a + b;', false],
      ['plus', ['int', 'int'], ['a', 'b'], 'int', 'java', 'return a + b;', false],
    ]);
    expect(r.aggregate).toEqual(['total', ['int'], 'plus', 'int', null, '10', 'int']);
    expect(r.function_cql).toBe(
      'CREATE FUNCTION udf.plus(a int, b int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$return a + b;$$',
    );
    expect(r.total).toBe(20);
  });

  it('failures: a Java exception, the fail timeout, the warn timeout, compile errors and refused classes', () => {
    const r = ok('failures');
    failure(r.division_by_zero, 'div', ['int', 'int'], 'java.lang.ArithmeticException: / by zero');
    failure(
      r.timeout,
      'spin',
      ['int'],
      'java.util.concurrent.TimeoutException: User defined function udf.spin : (int) -> int ran longer than 1000ms',
    );
    expect(r.slow).toEqual([1, ['User defined function udf.slow : (int) -> int ran longer than 200ms']]);
    invalid(r.compile_error, 'Java source compilation failed:\nLine 1: b cannot be resolved to a variable\n');
    invalid(r.system_exit, 'Java source compilation failed:\nLine 1: System cannot be resolved\n');
    expect(r.after).toBe(2);
  });

  it('sandbox escapes fail with FunctionFailure and leave nothing behind', () => {
    const r = ok('attacks');
    const generation = /^EvalError: code generation from strings is disabled in user-defined functions$/;
    failure(r.constructor_chain, 'js_constructor_chain', ['int'], generation);
    failure(r.eval, 'js_eval', ['int'], generation);
    failure(r.pollution, 'js_pollution', ['int'], /^TypeError/);
    failure(r.global, 'js_global', ['int'], /^TypeError/);
    failure(r.infinite_loop, 'js_infinite_loop', ['int'], /^java\.util\.concurrent\.TimeoutException/);
    failure(r.huge_allocation, 'js_huge_allocation', ['int'], /^java\.lang\.OutOfMemoryError/);
    expect(r.clean).toBe('undefined,undefined');
    invalid(r.reflection, /^Java UDF validation failed: |^Java source compilation failed:/);
  });

  it('with the switches off (the default), CREATE FUNCTION is refused with Cassandra message', () => {
    const r = scenarioResult(off, 'disabled');
    const message =
      'User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable';
    invalid(r.java, message);
    invalid(r.javascript, message);
  });
});
