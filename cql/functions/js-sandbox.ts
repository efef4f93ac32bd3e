// Runs JavaScript UDF bodies in a V8 context of their own (node:vm): no require, no process, no I/O,
// and a time limit per call, so a runaway body cannot stall the server for long.

import { createContext, Script } from 'node:vm';

/** Cassandra's user_defined_functions_fail_timeout default is 1500 ms; a call here may take at most this. */
export const UDF_TIMEOUT_MS = 500;

export interface CompiledUdf {
  call(args: readonly unknown[]): unknown;
}

/**
 * Compiles the body of a function of `argNames`. As with Cassandra's JavaScript UDFs, the body is a
 * script whose completion value is the result (`a + b`, or statements ending in an expression); a
 * body using `return` is run as a function body instead.
 */
export function compileUdf(argNames: readonly string[], body: string): CompiledUdf {
  const context = createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  const globals = context as Record<string, unknown>;
  const usesReturn = /\breturn\b/.test(body);
  const source = usesReturn ? `(function (${argNames.join(', ')}) {\n${body}\n}).apply(null, __args)` : body;
  const script = new Script(source, { filename: 'udf.js' });
  return {
    call(args) {
      if (usesReturn) globals.__args = args;
      else
        argNames.forEach((n, i) => {
          globals[n] = args[i];
        });
      return script.runInContext(context, { timeout: UDF_TIMEOUT_MS });
    },
  };
}
