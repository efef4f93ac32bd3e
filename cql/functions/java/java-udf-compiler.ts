// Compiles a Java UDF body (LANGUAGE java) to a sandbox program: parse, type-check against the Java types Cassandra
// declares for the arguments and result (UDHelper.typeTokens), refuse what Cassandra's compiler or byte-code verifier
// refuses (and what this compiler does not support) with Cassandra's messages, and emit the entry that decodes
// the arguments, runs the body and encodes the result.
import { InvalidRequest } from '../../errors.js';
import type { CqlType } from '../../types/cql-type.js';
import { parseTypeString } from '../../types/type-parser.js';
import type { SandboxPrelude, SandboxProgram } from '../sandbox/sandbox-program.js';
import type { ClassMember } from './java-ast.js';
import { javaCollectionsPrelude } from './java-collections-prelude.js';
import { javaCqlValuesPrelude } from './java-cql-values-prelude.js';
import { JAVA_THROWABLES, javaExceptionsPrelude } from './java-exceptions-prelude.js';
import { javaLangPrelude } from './java-lang-prelude.js';
import type { EmitContext } from './java-library.js';
import './java-library-values.js';
import { JAVA_KEYWORDS } from './java-lexer.js';
import { parseMethodBody } from './java-parser.js';
import { compilationFailed, JavaSyntaxError, ProblemList, validationFailed } from './java-problems.js';
import { checkBody, mangle } from './java-type-checker.js';
import { cls, type JType, prim, T_STRING, typeName } from './java-types.js';
import { javaUdtValuesPrelude } from './java-udt-values-prelude.js';
import { javaValueCodecPrelude } from './java-value-codec-prelude.js';

export interface JavaUdfDefinition {
  readonly keyspace: string;
  readonly name: string;
  readonly argNames: readonly string[];
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  readonly calledOnNullInput: boolean;
  readonly body: string;
  /** UDTs of the function's keyspace by name, for udfContext.newUDTValue("name"). */
  userType(name: string): CqlType | undefined;
}

/** The Java runtime every Java UDF's isolate evaluates (after the host's `__cql` codec). */
export const JAVA_RUNTIME_PRELUDES: readonly SandboxPrelude[] = [
  { name: 'java-exceptions', source: `(${javaExceptionsPrelude})(globalThis, ${JSON.stringify(JAVA_THROWABLES)});` },
  { name: 'java-lang', source: `(${javaLangPrelude})(globalThis);` },
  { name: 'java-collections', source: `(${javaCollectionsPrelude})(globalThis);` },
  { name: 'java-cql-values', source: `(${javaCqlValuesPrelude})(globalThis);` },
  { name: 'java-value-codec', source: `(${javaValueCodecPrelude})(globalThis);` },
  { name: 'java-udt-values', source: `(${javaUdtValuesPrelude})(globalThis);` },
];

/** The Java type Cassandra's codec uses for a CQL type (TypeCodec.getJavaType). */
export function javaTypeOf(t: CqlType): JType {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'ascii':
        case 'text':
          return T_STRING;
        case 'bigint':
        case 'counter':
        case 'time':
          return cls('Long');
        case 'int':
          return cls('Integer');
        case 'smallint':
          return cls('Short');
        case 'tinyint':
          return cls('Byte');
        case 'float':
          return cls('Float');
        case 'double':
          return cls('Double');
        case 'boolean':
          return cls('Boolean');
        case 'varint':
          return cls('BigInteger');
        case 'decimal':
          return cls('BigDecimal');
        case 'blob':
          return cls('ByteBuffer');
        case 'timestamp':
          return cls('Date');
        case 'date':
          return cls('LocalDate');
        case 'uuid':
        case 'timeuuid':
          return cls('UUID');
        case 'inet':
          return cls('InetAddress');
        case 'duration':
          return cls('Duration');
      }
      break;
    case 'list':
    case 'vector':
      return cls('List', javaTypeOf(t.element));
    case 'set':
      return cls('Set', javaTypeOf(t.element));
    case 'map':
      return cls('Map', javaTypeOf(t.key), javaTypeOf(t.value));
    case 'tuple':
      return cls('TupleValue');
    case 'udt':
      return cls('UDTValue');
    case 'custom':
      return cls('ByteBuffer');
  }
  return cls('Object');
}

const PRIMITIVE_PARAMS: Readonly<Record<string, string>> = {
  Integer: 'int',
  Long: 'long',
  Byte: 'byte',
  Short: 'short',
  Float: 'float',
  Double: 'double',
  Boolean: 'boolean',
};

/** UDHelper.typeTokens: primitives for RETURNS NULL ON NULL INPUT, the boxed class otherwise. */
export function javaParamType(t: CqlType, calledOnNullInput: boolean): JType {
  const j = javaTypeOf(t);
  if (!calledOnNullInput && j.k === 'class' && PRIMITIVE_PARAMS[j.name]) return prim(PRIMITIVE_PARAMS[j.name] as never);
  return j;
}

/** JS decoding a serialized argument into the parameter's Java value. */
function decodeArg(t: CqlType, param: JType, js: string, typeRef: (t: CqlType) => string): string {
  if (param.k === 'prim' && t.kind === 'native') {
    switch (param.name) {
      case 'int':
        return `__cql.int32(${js})`;
      case 'long':
        return `__cql.int64(${js})`;
      case 'short':
        return `__cql.int16(${js})`;
      case 'byte':
        return `__cql.int8(${js})`;
      case 'float':
        return `__cql.float32(${js})`;
      case 'double':
        return `__cql.float64(${js})`;
      case 'boolean':
        return `__cql.bool(${js})`;
    }
  }
  if (t.kind === 'native' && (t.name === 'int' || t.name === 'text'))
    return t.name === 'int'
      ? `(${js} === null ? null : __cql.int32(${js}))`
      : `(${js} === null ? null : __cql.utf8(${js}))`;
  return `$jc.dec(${typeRef(t)}, ${js})`;
}

/** JS encoding the body's result (of the return type's Java class) for the CQL return type. */
function encodeResult(t: CqlType, js: string, typeRef: (t: CqlType) => string): string {
  if (t.kind === 'native' && t.name === 'int') return `(($r = ${js}) === null ? null : __cql.fromInt32($r))`;
  if (t.kind === 'native' && (t.name === 'bigint' || t.name === 'counter'))
    return `(($r = ${js}) === null ? null : __cql.fromInt64($r))`;
  if (t.kind === 'native' && t.name === 'double') return `(($r = ${js}) === null ? null : __cql.fromFloat64($r.v))`;
  if (t.kind === 'native' && t.name === 'text') return `(($r = ${js}) === null ? null : __cql.fromUtf8($r))`;
  return `$jc.enc(${typeRef(t)}, ${js})`;
}

/** What ECJ names the generated class in problems ("undefined for the type ..."). */
function generatedClassName(def: JavaUdfDefinition): string {
  const q = `${def.keyspace}.${def.name}`;
  let s = 'C';
  for (const ch of q) s += /[A-Za-z0-9_$]/.test(ch) ? ch : (ch.charCodeAt(0) & 0xffff).toString(16);
  return s;
}

export function compileJavaUdf(def: JavaUdfDefinition): SandboxProgram {
  const params = def.argTypes.map((t, i) => ({
    name: def.argNames[i]!,
    type: javaParamType(t, def.calledOnNullInput),
  }));
  const returnType = javaTypeOf(def.returnType);
  for (const p of params)
    if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(p.name) || JAVA_KEYWORDS.has(p.name))
      throw compilationFailed([
        { line: 0, message: `Syntax error on token "${p.name}", invalid VariableDeclaratorId` },
      ]);

  let parsed: ReturnType<typeof parseMethodBody>;
  try {
    parsed = parseMethodBody(def.body);
  } catch (e) {
    if (e instanceof JavaSyntaxError) throw compilationFailed([{ line: e.line, message: e.message }, ...e.more]);
    throw e;
  }

  // Types referenced at run time (UDTs, tuples, collections) are built once per isolate and shared by calls.
  const typeRefs: CqlType[] = [];
  const typeKeys = new Map<string, number>();
  const typeRef = (t: CqlType): string => {
    const key = JSON.stringify(t);
    let i = typeKeys.get(key);
    if (i === undefined) {
      i = typeRefs.length;
      typeRefs.push(t);
      typeKeys.set(key, i);
    }
    return `$T[${i}]`;
  };

  const problems = new ProblemList();
  let line = 0;
  const emit: EmitContext & { setLine(line: number): void } = {
    typeRef,
    problem: (message) => {
      problems.report(line, message);
      throw new InvalidRequest(message);
    },
    literal: () => undefined,
    argNames: def.argNames,
    argTypes: def.argTypes,
    returnType: def.returnType,
    keyspace: def.keyspace,
    userType: (name) => def.userType(name),
    parseTupleType: (text) => {
      try {
        const t = parseTypeString(text, (ks, n) => {
          const u = ks === undefined || ks === def.keyspace ? def.userType(n) : undefined;
          return u?.kind === 'udt' ? u : undefined;
        });
        return t;
      } catch (e) {
        if (e instanceof InvalidRequest) return undefined;
        throw e;
      }
    },
    setLine: (l) => {
      line = l;
    },
  };

  const checked = checkBody(
    { params, returnType, statements: parsed.statements, emit, className: generatedClassName(def) },
    problems,
  );
  if (checked.completesNormally && problems.size === 0) {
    // ECJ reports this at the method's declaration, which is in the generated source around the body.
    throw new InvalidRequest(
      `Java source compilation failed:\nGENERATED SOURCE ERROR: line ${generatedMethodLine(def)} (in generated source): This method must return a result of type ${typeName(returnType)}\n`,
    );
  }
  problems.throwIfAny();

  const findings = new Set(checked.verifierFindings);
  for (const f of memberFindings(parsed.members)) findings.add(f);
  if (findings.size > 0) throw validationFailed(findings);

  const decoded = params.map((p, i) => decodeArg(def.argTypes[i]!, p.type, `a[${i}]`, typeRef));
  const result = encodeResult(def.returnType, `body(${decoded.join(', ')})`, typeRef);
  const entry = [
    '(() => {',
    '"use strict";',
    `const $T = ${JSON.stringify(typeRefs)};`,
    'const $ctx = null;',
    `const body = function (${params.map((p) => mangle(p.name)).join(', ')}) {`,
    checked.js,
    '};',
    'let $r;',
    `return function (a) { return ${result}; };`,
    '})()',
  ].join('\n');
  // A body that needs no collection, CQL value or codec keeps its isolate to java.lang (faster to build).
  const needsAll = /\$j[uvct]\b/.test(entry);
  return { preludes: needsAll ? JAVA_RUNTIME_PRELUDES : JAVA_RUNTIME_PRELUDES.slice(0, 2), entry };
}

/** The generated class's line of the method declaration, where ECJ reports a missing return. */
function generatedMethodLine(def: JavaUdfDefinition): number {
  // JavaSourceUDF.txt: executeImpl's call lists the arguments one per line (an empty line when there are none)
  // from line 24, executeAggregateImpl's again, and the private method is declared 35 + 2 * (those lines).
  return 35 + 2 * Math.max(1, def.argTypes.length);
}

/** What the byte-code verifier finds in members declared after the body closed the method early. */
function memberFindings(members: readonly ClassMember[]): string[] {
  const out: string[] = [];
  for (const m of members) {
    switch (m.kind) {
      case 'field':
        out.push(`field declared: ${m.name}`);
        if (m.init) out.push(m.static ? 'static initializer declared' : 'initializer declared');
        break;
      case 'initializer':
        if (!m.empty) out.push(m.static ? 'static initializer declared' : 'initializer declared');
        break;
      case 'method':
        out.push(`not allowed method declared: ${m.name}${m.descriptor}`);
        break;
      case 'class':
        out.push('class declared as inner class');
        break;
    }
  }
  return out;
}
