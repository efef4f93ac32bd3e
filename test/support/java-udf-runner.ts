// Compiles a Java UDF body with compileJavaUdf and runs it on CQL-serialized arguments, for the java-udf tests:
// the program's preludes and entry are evaluated after the host's `__cql` codec, as the sandbox does.
import vm from 'node:vm';
import { compileJavaUdf, type JavaUdfDefinition } from '../../cql/functions/java/java-udf-compiler.js';
import { CQL_CODEC_PRELUDE } from '../../cql/functions/sandbox/cql-codec-prelude.js';
import type { CqlType } from '../../cql/types/cql-type.js';
import { native } from '../../cql/types/cql-type.js';
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

export type Entry = (args: (Uint8Array | null)[]) => Uint8Array | null;

/** The compiled function's entry, in a context of its own with the runtime evaluated. */
export function load(f: JavaFunction): Entry {
  const program = compileJavaUdf(definition(f));
  const context = vm.createContext({});
  vm.runInContext(CQL_CODEC_PRELUDE.source, context);
  for (const p of program.preludes) vm.runInContext(p.source, context, { filename: `${p.name}.js` });
  return vm.runInContext(program.entry, context, { filename: 'udf.js' }) as Entry;
}

/** Runs once; returns the result bytes (as a Buffer), or `throws: String(thrown)` as the host would report. */
export function call(f: JavaFunction, ...args: (Uint8Array | null)[]): Buffer | null | { throws: string } {
  const entry = load(f);
  try {
    const r = entry(args);
    return r === null ? null : Buffer.from(r);
  } catch (e) {
    return { throws: String(e) };
  }
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
export const float = (n: number): Uint8Array => {
  const b = Buffer.alloc(4);
  b.writeFloatBE(n);
  return b;
};
export const text = (s: string): Uint8Array => Buffer.from(s, 'utf8');
/** A list/set of serialized elements, or a tuple/UDT's fields when `fields` is set. */
export const elements = (items: readonly (Uint8Array | null)[], fields = false): Uint8Array => {
  const parts: Buffer[] = fields ? [] : [Buffer.from(int(items.length))];
  for (const x of items) {
    parts.push(Buffer.from(int(x === null ? -1 : x.length)));
    if (x !== null) parts.push(Buffer.from(x));
  }
  return Buffer.concat(parts);
};
export const entries = (pairs: readonly [Uint8Array, Uint8Array][]): Uint8Array => elements(pairs.flat());

/** Decoders of result bytes. */
export const asInt = (b: Buffer | null | { throws: string }): number | null | { throws: string } =>
  b instanceof Buffer ? b.readInt32BE(0) : b;
export const asBigint = (b: Buffer | null | { throws: string }): bigint | null | { throws: string } =>
  b instanceof Buffer ? b.readBigInt64BE(0) : b;
export const asDouble = (b: Buffer | null | { throws: string }): number | null | { throws: string } =>
  b instanceof Buffer ? b.readDoubleBE(0) : b;
export const asText = (b: Buffer | null | { throws: string }): string | null | { throws: string } =>
  b instanceof Buffer ? b.toString('utf8') : b;

export { native };
