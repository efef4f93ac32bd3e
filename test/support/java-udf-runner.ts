// Compiles a Java UDF body with compileJavaUdf and runs it in the UDF sandbox (a QuickJS isolate of its own, with
// the host's preludes), on CQL-serialized arguments, for the java-udf tests.
import { afterAll } from 'vitest';
import { compileJavaUdf, type JavaUdfDefinition } from '../../cql/functions/java/java-udf-compiler.js';
import { QuickJsInstances } from '../../cql/functions/sandbox/quickjs-instances.js';
import { SandboxFailure } from '../../cql/functions/sandbox/sandbox-failure.js';
import { SandboxIsolate } from '../../cql/functions/sandbox/sandbox-isolate.js';
import type { CqlType } from '../../cql/types/cql-type.js';
import { parseTypeString } from '../../cql/types/type-parser.js';

export interface JavaFunction {
  /** Arguments as (name, CQL type text). */
  readonly args?: readonly (readonly [string, string])[];
  readonly returns: string;
  readonly body: string;
  readonly calledOnNullInput?: boolean;
  readonly userTypes?: Readonly<Record<string, CqlType>>;
}

export function definition(f: JavaFunction): JavaUdfDefinition {
  const types = f.userTypes ?? {};
  const resolve = (_ks: string | undefined, name: string) => {
    const t = types[name];
    return t?.kind === 'udt' ? t : undefined;
  };
  return {
    keyspace: 'ks',
    name: 'f',
    argNames: (f.args ?? []).map((a) => a[0]),
    argTypes: (f.args ?? []).map((a) => parseTypeString(a[1], resolve)),
    returnType: parseTypeString(f.returns, resolve),
    calledOnNullInput: f.calledOnNullInput ?? false,
    body: f.body,
    userType: (name) => types[name],
  };
}

const LIMITS = { timeoutMs: 2000, memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024 };
let instances: Promise<QuickJsInstances> | undefined;
const isolates: SandboxIsolate[] = [];
afterAll(() => {
  for (const i of isolates.splice(0)) i.dispose();
});

export type Outcome = Buffer | null | { throws: string };

/** A sandbox isolate running the compiled function; call() gives its result or what it threw. */
export async function load(f: JavaFunction): Promise<(...args: (Uint8Array | null)[]) => Outcome> {
  instances ??= QuickJsInstances.start(LIMITS.memoryBytes);
  const isolate = new SandboxIsolate(await instances, compileJavaUdf(definition(f)), LIMITS);
  isolates.push(isolate);
  await isolate.prepare();
  return (...args) => {
    try {
      return isolate.call(args.map((a) => (a === null ? null : Buffer.from(a))));
    } catch (e) {
      if (e instanceof SandboxFailure && e.reason === 'thrown') return { throws: e.detail };
      throw e;
    }
  };
}

/** Compiles, runs once and gives the result bytes, or `{ throws }` with what the host would report. */
export async function call(f: JavaFunction, ...args: (Uint8Array | null)[]): Promise<Outcome> {
  return (await load(f))(...args);
}

/** The InvalidRequest message compiling the function gives, or undefined if it compiles. */
export function refusal(f: JavaFunction): string | undefined {
  try {
    compileJavaUdf(definition(f));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

// ---- CQL serialization of test values ----

export const int = (n: number): Uint8Array => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
export const bigint = (n: bigint | number): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
export const double = (n: number): Uint8Array => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n);
  return b;
};
export const text = (s: string): Uint8Array => Buffer.from(s, 'utf8');
/** A list/set's serialized elements ([n][len][bytes]...), or with `fields` a tuple/UDT's ([len][bytes]...). */
export const elements = (items: readonly (Uint8Array | null)[], fields = false): Uint8Array => {
  const parts: Buffer[] = fields ? [] : [Buffer.from(int(items.length))];
  for (const x of items) {
    parts.push(Buffer.from(int(x === null ? -1 : x.length)));
    if (x !== null) parts.push(Buffer.from(x));
  }
  return Buffer.concat(parts);
};
export const entries = (pairs: readonly (readonly [Uint8Array, Uint8Array])[]): Uint8Array => {
  const parts: Buffer[] = [Buffer.from(int(pairs.length))];
  for (const [k, v] of pairs)
    parts.push(Buffer.from(int(k.length)), Buffer.from(k), Buffer.from(int(v.length)), Buffer.from(v));
  return Buffer.concat(parts);
};

export const asInt = (b: Outcome): number | null | { throws: string } => (b instanceof Buffer ? b.readInt32BE(0) : b);
export const asBigint = (b: Outcome): bigint | null | { throws: string } =>
  b instanceof Buffer ? b.readBigInt64BE(0) : b;
export const asDouble = (b: Outcome): number | null | { throws: string } =>
  b instanceof Buffer ? b.readDoubleBE(0) : b;
export const asText = (b: Outcome): string | null | { throws: string } =>
  b instanceof Buffer ? b.toString('utf8') : b;
