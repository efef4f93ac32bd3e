// The Java classes a UDF can use, with the members this compiler supports: each member's Java signature (for type
// checking and overload resolution) and the JS it becomes (a template over the sandbox runtime's globals: `$r` is the
// receiver, `$0`..`$9` the arguments). A class or member missing here is refused at CREATE time.
import type { CqlType } from '../../types/cql-type.js';
import { JAVA_THROWABLES } from './java-exceptions-prelude.js';
import { regexProblem } from './java-regex.js';
import { cls, type JType, prim, T_VOID } from './java-types.js';

/** What a member's emitter may ask of the compiler. */
export interface EmitContext {
  /** A JS expression for the runtime descriptor of a CQL type (shared by all calls). */
  typeRef(t: CqlType): string;
  /** Reports a compile problem at the call's line. */
  problem(message: string): never;
  /** A string literal argument's value, if the argument is one. */
  literal(argIndex: number): string | undefined;
  /** The function's argument CQL types and names; its return type; the keyspace's UDTs. */
  readonly argNames: readonly string[];
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  userType(name: string): CqlType | undefined;
  readonly keyspace: string;
  parseTupleType(text: string): CqlType | undefined;
}

export type Emit = string | ((recv: string, args: readonly string[], ctx: EmitContext) => string);

export interface LibMethod {
  readonly name: string;
  readonly owner: LibClass;
  readonly tparams: readonly string[];
  readonly params: readonly JType[];
  readonly ret: JType;
  readonly varargs: boolean;
  readonly isStatic: boolean;
  readonly emit: Emit;
}

export interface LibField {
  readonly type: JType;
  readonly js: string;
  /** Compile-time constant value (for narrowing and switch labels). */
  readonly constant?: number | bigint | string | boolean;
}

export interface LibClass {
  readonly name: string;
  readonly qualified: string;
  readonly tparams: readonly string[];
  readonly supers: readonly JType[];
  /** Reachable by simple name: java.lang.*, and the template's imports (java.util.*, ByteBuffer, TupleValue, UDTValue). */
  readonly imported: boolean;
  readonly isInterface: boolean;
  readonly ctors: LibMethod[];
  readonly methods: Map<string, LibMethod[]>;
  readonly statics: Map<string, LibMethod[]>;
  readonly fields: Map<string, LibField>;
  /** JS test that a (non-null) runtime value is an instance; absent: the class cannot be tested or cast to. */
  readonly test?: (js: string) => string;
  /** A checked exception class. */
  readonly checked?: boolean;
}

// ---- signature parsing ----

const PRIMS = new Set(['boolean', 'byte', 'short', 'char', 'int', 'long', 'float', 'double']);

function parseTypeText(text: string, tvars: ReadonlySet<string>): JType {
  let i = 0;
  const s = text.replace(/\s+/g, '');
  const one = (): JType => {
    const m = /^[A-Za-z_][\w.]*/.exec(s.slice(i));
    if (!m) throw new Error(`bad signature type: ${text}`);
    i += m[0].length;
    let name = m[0];
    let t: JType;
    if (name === 'void') t = T_VOID;
    else if (PRIMS.has(name)) t = prim(name as never);
    else if (tvars.has(name)) t = { k: 'tvar', name };
    else if (name === '?') t = cls('Object');
    else {
      const args: JType[] = [];
      if (s[i] === '<') {
        i++;
        for (;;) {
          if (s[i] === '?') {
            i++;
            if (s.startsWith('extends', i)) {
              // `? extends X`: any subtype of X is accepted (read-only use), so the argument is left open.
              i += 'extends'.length;
              one();
              args.push({ k: 'tvar', name: '?' });
            } else if (s.startsWith('super', i)) {
              i += 'super'.length;
              one();
              args.push({ k: 'tvar', name: '?' });
            } else args.push({ k: 'tvar', name: '?' });
          } else args.push(one());
          if (s[i] === ',') {
            i++;
            continue;
          }
          if (s[i] === '>') {
            i++;
            break;
          }
          throw new Error(`bad signature type: ${text}`);
        }
      }
      // Types are named by their simple name (Map.Entry keeps its outer class).
      if (name.includes('.') && name !== 'Map.Entry') name = name.slice(name.lastIndexOf('.') + 1);
      t = { k: 'class', name, args };
    }
    while (s.startsWith('[]', i)) {
      i += 2;
      t = { k: 'array', elem: t };
    }
    return t;
  };
  const t = one();
  if (i !== s.length) throw new Error(`bad signature type: ${text}`);
  return t;
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '<') depth++;
    if (c === '>') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

// ---- the catalogue ----

const classes = new Map<string, LibClass>();
const byQualified = new Map<string, LibClass>();

interface ClassOptions {
  imported?: boolean;
  interface?: boolean;
  supers?: readonly string[];
  test?: (js: string) => string;
  checked?: boolean;
}

function defineClass(decl: string, qualified: string, options: ClassOptions = {}): LibClass {
  const m = /^([\w.]+)(?:<(.+)>)?$/.exec(decl)!;
  const tparams = m[2] ? m[2].split(',').map((x) => x.trim()) : [];
  const tv = new Set(tparams);
  const c: LibClass = {
    name: m[1]!,
    qualified,
    tparams,
    supers: (options.supers ?? (m[1] === 'Object' ? [] : ['Object'])).map((x) => parseTypeText(x, tv)),
    imported: options.imported ?? (qualified.startsWith('java.lang.') || qualified.startsWith('java.util.')),
    isInterface: options.interface ?? false,
    ctors: [],
    methods: new Map(),
    statics: new Map(),
    fields: new Map(),
    test: options.test,
    checked: options.checked,
  };
  classes.set(c.name, c);
  byQualified.set(qualified, c);
  return c;
}

/** Adds members: `sig` is a Java signature ("static <T> List<T> asList(T...)", "new(String)" for a constructor). */
function members(c: LibClass, table: Readonly<Record<string, Emit>>): void {
  for (const [sig, emit] of Object.entries(table)) {
    const m = /^(static\s+)?(?:<([^>]+)>\s+)?(?:(.+?)\s+)?([\w$]+)\((.*)\)$/.exec(sig.trim());
    if (!m) throw new Error(`bad signature: ${sig}`);
    const isStatic = m[1] !== undefined;
    const tparams = m[2] ? m[2].split(',').map((x) => x.trim()) : [];
    const tv = new Set([...c.tparams, ...tparams]);
    const name = m[4]!;
    const isCtor = name === 'new';
    const paramTexts = splitTopLevel(m[5]!);
    const varargs = paramTexts.length > 0 && paramTexts[paramTexts.length - 1]!.endsWith('...');
    const params = paramTexts.map((p) => parseTypeText(p.endsWith('...') ? `${p.slice(0, -3)}[]` : p, tv));
    const ret = isCtor
      ? cls(c.name, ...c.tparams.map((n): JType => ({ k: 'tvar', name: n })))
      : parseTypeText(m[3]!, tv);
    const method: LibMethod = { name, owner: c, tparams, params, ret, varargs, isStatic, emit };
    if (isCtor) c.ctors.push(method);
    else {
      const map = isStatic ? c.statics : c.methods;
      const list = map.get(name) ?? [];
      list.push(method);
      map.set(name, list);
    }
  }
}

function fields(
  c: LibClass,
  table: Readonly<Record<string, [string, string, (number | bigint | string | boolean)?]>>,
): void {
  for (const [name, [type, js, constant]] of Object.entries(table))
    c.fields.set(name, { type: parseTypeText(type, new Set()), js, constant });
}

/** A member taking a regex first: a literal pattern is checked at compile time. */
function regexCall(template: string): Emit {
  return (recv, args, ctx) => {
    const pattern = ctx.literal(0);
    const problem = pattern === undefined ? undefined : regexProblem(pattern);
    if (problem !== undefined) return ctx.problem(problem);
    return template.replace(/\$(r|\d)/g, (_, k: string) => (k === 'r' ? recv : (args[Number(k)] ?? 'undefined')));
  };
}

const instanceOf = (runtime: string) => (js: string) => `(${js} instanceof ${runtime})`;

// java.lang

const OBJECT = defineClass('Object', 'java.lang.Object', { test: (js) => `(${js} !== null)` });
members(OBJECT, {
  'new()': '({ $cls: "java.lang.Object" })',
  'boolean equals(Object)': '$jl.eq($r, $0)',
  'int hashCode()': '$jl.hash($r)',
  'String toString()': '$jl.str($r)',
});
const COMPARABLE = defineClass('Comparable<T>', 'java.lang.Comparable', {
  interface: true,
  test: (js) => `$jl.isComparable(${js})`,
});
members(COMPARABLE, { 'int compareTo(T)': '$jl.cmp($r, $0)' });
const CHARSEQ = defineClass('CharSequence', 'java.lang.CharSequence', {
  interface: true,
  test: (js) => `(typeof ${js} === "string" || ${js} instanceof $jl.StringBuilder)`,
});
members(CHARSEQ, {
  'int length()': 'String($r).length',
  'char charAt(int)': '$jl.charAt(String($r), $0)',
  'String toString()': 'String($r)',
});
defineClass('Iterable<T>', 'java.lang.Iterable', {
  interface: true,
  test: (js) => `(${js} instanceof $ju.JList || ${js} instanceof $ju.JSet || ${js} instanceof $ju.MapView)`,
});
members(classes.get('Iterable')!, { 'Iterator<T> iterator()': '$r.iterator()' });

const NUMBER = defineClass('Number', 'java.lang.Number', { test: (js) => `$jl.isNumber(${js})` });
members(NUMBER, {
  'int intValue()': '$jl.numInt($r)',
  'long longValue()': '$jl.numLong($r)',
  'double doubleValue()': '$jl.numDouble($r)',
  'float floatValue()': 'Math.fround($jl.numDouble($r))',
  'short shortValue()': '(($jl.numInt($r) << 16) >> 16)',
  'byte byteValue()': '(($jl.numInt($r) << 24) >> 24)',
});

const STRING = defineClass('String', 'java.lang.String', {
  supers: ['Object', 'CharSequence', 'Comparable<String>'],
  test: (js) => `(typeof ${js} === "string")`,
});
const cs = (i: number): string => `$jl.str($jl.nn($${i}))`;
members(STRING, {
  'new()': '""',
  'new(String)': '$jl.nn($0)',
  'new(StringBuilder)': '$jl.nn($0).toString()',
  'new(char[])': 'String.fromCharCode(...$jl.nn($0))',
  'new(char[], int, int)': '$jl.charsToString($0, $1, $2)',
  'new(byte[])': '$jl.decodeUtf8($jl.nn($0))',
  'new(byte[], int, int)': '$jl.decodeUtf8($jl.nn($0), $1, $2)',
  'int length()': '$r.length',
  'boolean isEmpty()': '($r.length === 0)',
  'char charAt(int)': '$jl.charAt($r, $0)',
  'int codePointAt(int)': '$jl.codePointAt($r, $0)',
  'String substring(int)': '$jl.substring($r, $0)',
  'String substring(int, int)': '$jl.substring($r, $0, $1)',
  'CharSequence subSequence(int, int)': '$jl.substring($r, $0, $1)',
  'int indexOf(int)': '$jl.indexOfChar($r, $0)',
  'int indexOf(int, int)': '$jl.indexOfChar($r, $0, $1)',
  'int indexOf(String)': '$r.indexOf($jl.nn($0))',
  'int indexOf(String, int)': '$r.indexOf($jl.nn($0), Math.max(0, $1))',
  'int lastIndexOf(int)': '$jl.lastIndexOfChar($r, $0)',
  'int lastIndexOf(int, int)': '$jl.lastIndexOfChar($r, $0, $1)',
  'int lastIndexOf(String)': '$r.lastIndexOf($jl.nn($0))',
  'int lastIndexOf(String, int)': '($1 < 0 ? -1 : $r.lastIndexOf($jl.nn($0), $1))',
  'boolean contains(CharSequence)': `$r.includes(${cs(0)})`,
  'boolean startsWith(String)': '$r.startsWith($jl.nn($0))',
  'boolean startsWith(String, int)': '($1 >= 0 && $r.startsWith($jl.nn($0), $1))',
  'boolean endsWith(String)': '$r.endsWith($jl.nn($0))',
  'String toUpperCase()': '$r.toUpperCase()',
  'String toLowerCase()': '$r.toLowerCase()',
  'String trim()': '$jl.trim($r)',
  'String strip()': '$r.trim()',
  'boolean isBlank()': '($jl.trim($r).length === 0)',
  'String repeat(int)': '$jl.repeat($r, $0)',
  'String replace(char, char)': '$r.split(String.fromCharCode($0)).join(String.fromCharCode($1))',
  'String replace(CharSequence, CharSequence)': `$jl.replaceLiteral($r, ${cs(0)}, ${cs(1)})`,
  'String replaceAll(String, String)': regexCall('$jl.replaceAll($r, $jl.nn($0), $jl.nn($1))'),
  'String replaceFirst(String, String)': regexCall('$jl.replaceFirst($r, $jl.nn($0), $jl.nn($1))'),
  'boolean matches(String)': regexCall('$jl.matches($r, $jl.nn($0))'),
  'String[] split(String)': regexCall('$jl.split($r, $jl.nn($0))'),
  'String[] split(String, int)': regexCall('$jl.split($r, $jl.nn($0), $1)'),
  'boolean equals(Object)': '($r === $0)',
  'boolean equalsIgnoreCase(String)': '$jl.equalsIgnoreCase($r, $0)',
  'boolean contentEquals(CharSequence)': `($r === ${cs(0)})`,
  'int compareTo(String)': '$jl.strCmp($r, $jl.nn($0))',
  'int compareToIgnoreCase(String)': '$jl.compareIgnoreCase($r, $0)',
  'int hashCode()': '$jl.strHash($r)',
  'String toString()': '$r',
  'String concat(String)': '($r + $jl.nn($0))',
  'String intern()': '$r',
  'char[] toCharArray()': '$jl.toCharArray($r)',
  'byte[] getBytes()': '$jl.encodeUtf8($r)',
  'int codePointCount(int, int)': '$jl.codePointCount($r, $0, $1)',
  'static String valueOf(Object)': '$jl.str($0)',
  'static String valueOf(int)': '(""+$0)',
  'static String valueOf(long)': '(""+$0)',
  'static String valueOf(boolean)': '(""+$0)',
  'static String valueOf(char)': 'String.fromCharCode($0)',
  'static String valueOf(double)': '$jl.dstr($0)',
  'static String valueOf(float)': '$jl.fstr($0)',
  'static String valueOf(char[])': 'String.fromCharCode(...$jl.nn($0))',
  'static String copyValueOf(char[])': 'String.fromCharCode(...$jl.nn($0))',
  'static String valueOf(char[], int, int)': '$jl.charsToString($0, $1, $2)',
  'static String copyValueOf(char[], int, int)': '$jl.charsToString($0, $1, $2)',
  'static String format(String, Object...)': '$jl.format($jl.nn($0), $1)',
  'static String join(CharSequence, CharSequence...)': `$jl.join(${cs(0)}, $jl.nn($1))`,
  'static String join(CharSequence, Iterable<? extends CharSequence>)': `$jl.join(${cs(0)}, $jl.nn($1).toArray())`,
});

const SB = defineClass('StringBuilder', 'java.lang.StringBuilder', {
  supers: ['Object', 'CharSequence', 'Comparable<StringBuilder>'],
  test: instanceOf('$jl.StringBuilder'),
});
const sbAppend: Record<string, Emit> = {
  'StringBuilder append(String)': '$r.append($jl.str($0))',
  'StringBuilder append(Object)': '$r.append($jl.str($0))',
  'StringBuilder append(CharSequence)': '$r.append($jl.str($0))',
  'StringBuilder append(int)': '$r.append(""+$0)',
  'StringBuilder append(long)': '$r.append(""+$0)',
  'StringBuilder append(boolean)': '$r.append(""+$0)',
  'StringBuilder append(char)': '$r.append(String.fromCharCode($0))',
  'StringBuilder append(double)': '$r.append($jl.dstr($0))',
  'StringBuilder append(float)': '$r.append($jl.fstr($0))',
  'StringBuilder append(char[])': '$r.append(String.fromCharCode(...$jl.nn($0)))',
  'StringBuilder insert(int, String)': '$r.insert($0, $jl.str($1))',
  'StringBuilder insert(int, Object)': '$r.insert($0, $jl.str($1))',
  'StringBuilder insert(int, int)': '$r.insert($0, ""+$1)',
  'StringBuilder insert(int, long)': '$r.insert($0, ""+$1)',
  'StringBuilder insert(int, char)': '$r.insert($0, String.fromCharCode($1))',
  'StringBuilder insert(int, boolean)': '$r.insert($0, ""+$1)',
  'StringBuilder insert(int, double)': '$r.insert($0, $jl.dstr($1))',
  'StringBuilder reverse()': '$r.reverse()',
  'StringBuilder deleteCharAt(int)': '$r.deleteCharAt($0)',
  'StringBuilder delete(int, int)': '$r.delete($0, $1)',
  'StringBuilder replace(int, int, String)': '$r.replace($0, $1, $jl.nn($2))',
  'void setCharAt(int, char)': '$r.setCharAt($0, $1)',
  'void setLength(int)': '$r.setLength($0)',
  'int length()': '$r.length()',
  'char charAt(int)': '$r.charAt($0)',
  'int indexOf(String)': '$r.indexOf($jl.nn($0))',
  'int indexOf(String, int)': '$r.indexOf($jl.nn($0), $1)',
  'int lastIndexOf(String)': '$r.lastIndexOf($jl.nn($0))',
  'String substring(int)': '$r.substring($0)',
  'String substring(int, int)': '$r.substring($0, $1)',
  'boolean isEmpty()': '$r.isEmpty()',
  'String toString()': '$r.toString()',
  'int compareTo(StringBuilder)': '$r.compareTo($0)',
  'new()': 'new $jl.StringBuilder()',
  'new(int)': '$jl.sbWithCapacity($0)',
  'new(String)': 'new $jl.StringBuilder($jl.nn($0))',
  'new(CharSequence)': 'new $jl.StringBuilder($jl.str($jl.nn($0)))',
};
members(SB, sbAppend);
// StringBuffer: the same, synchronized in Java (no threads here).
const SBUF = defineClass('StringBuffer', 'java.lang.StringBuffer', {
  supers: ['Object', 'CharSequence'],
  test: instanceOf('$jl.StringBuilder'),
});
members(
  SBUF,
  Object.fromEntries(Object.entries(sbAppend).map(([k, v]) => [k.replaceAll('StringBuilder', 'StringBuffer'), v])),
);

/** Boxed number classes: [simple, primitive, JS of value→box, js unbox of a non-null box]. */
const INTEGER = defineClass('Integer', 'java.lang.Integer', {
  supers: ['Number', 'Comparable<Integer>'],
  test: (js) => `(typeof ${js} === "number")`,
});
members(INTEGER, {
  'new(int)': '$0',
  'new(String)': '$jl.parseInt32($0)',
  'int intValue()': '$r',
  'long longValue()': 'BigInt($r)',
  'double doubleValue()': '$r',
  'float floatValue()': 'Math.fround($r)',
  'short shortValue()': '(($r << 16) >> 16)',
  'byte byteValue()': '(($r << 24) >> 24)',
  'boolean equals(Object)': '($r === $0)',
  'int hashCode()': '$r',
  'String toString()': '(""+$r)',
  'int compareTo(Integer)': '$jl.cmp($r, $0)',
  'static Integer valueOf(int)': '$0',
  'static Integer valueOf(String)': '$jl.parseInt32($0)',
  'static Integer valueOf(String, int)': '$jl.parseInt32($0, $1)',
  'static int parseInt(String)': '$jl.parseInt32($0)',
  'static int parseInt(String, int)': '$jl.parseInt32($0, $1)',
  'static String toString(int)': '(""+$0)',
  'static String toString(int, int)': '$jl.intToString($0, $1)',
  'static String toHexString(int)': '$jl.unsignedText($0, 32, 4)',
  'static String toBinaryString(int)': '$jl.unsignedText($0, 32, 1)',
  'static String toOctalString(int)': '$jl.unsignedText($0, 32, 3)',
  'static int compare(int, int)': '($0 < $1 ? -1 : $0 === $1 ? 0 : 1)',
  'static int signum(int)': 'Math.sign($0)',
  'static int max(int, int)': 'Math.max($0, $1)',
  'static int min(int, int)': 'Math.min($0, $1)',
  'static int sum(int, int)': '(($0 + $1) | 0)',
  'static int abs(int)': '(Math.abs($0) | 0)',
  'static int bitCount(int)': '$jl.bitCount($0)',
  'static int reverse(int)': '$jl.reverseBits($0)',
  'static int highestOneBit(int)': '($0 === 0 ? 0 : (0x80000000 >>> Math.clz32($0)) | 0)',
  'static int lowestOneBit(int)': '($0 & -$0)',
  'static int numberOfLeadingZeros(int)': 'Math.clz32($0)',
  'static int numberOfTrailingZeros(int)': '($0 === 0 ? 32 : 31 - Math.clz32($0 & -$0))',
  'static int hashCode(int)': '$0',
  'static int parseUnsignedInt(String)': '$jl.parseUnsignedInt($0)',
  'static String toUnsignedString(int)': '(""+($0 >>> 0))',
  'static int divideUnsigned(int, int)': '$jl.idivu($0, $1)',
});
fields(INTEGER, {
  MAX_VALUE: ['int', '2147483647', 2147483647],
  MIN_VALUE: ['int', '(-2147483648)', -2147483648],
  SIZE: ['int', '32', 32],
  BYTES: ['int', '4', 4],
});

const LONG = defineClass('Long', 'java.lang.Long', {
  supers: ['Number', 'Comparable<Long>'],
  test: (js) => `(typeof ${js} === "bigint")`,
});
members(LONG, {
  'new(long)': '$0',
  'new(String)': '$jl.parseInt64($0)',
  'int intValue()': 'Number(BigInt.asIntN(32, $r))',
  'long longValue()': '$r',
  'double doubleValue()': 'Number($r)',
  'float floatValue()': '$jl.l2f($r)',
  'short shortValue()': 'Number(BigInt.asIntN(16, $r))',
  'byte byteValue()': 'Number(BigInt.asIntN(8, $r))',
  'boolean equals(Object)': '($r === $0)',
  'int hashCode()': '$jl.longHash($r)',
  'String toString()': '(""+$r)',
  'int compareTo(Long)': '$jl.cmp($r, $0)',
  'static Long valueOf(long)': '$0',
  'static Long valueOf(String)': '$jl.parseInt64($0)',
  'static long parseLong(String)': '$jl.parseInt64($0)',
  'static long parseLong(String, int)': '$jl.parseInt64($0, $1)',
  'static String toString(long)': '(""+$0)',
  'static String toString(long, int)': '$jl.intToString($0, $1)',
  'static String toHexString(long)': '$jl.unsignedText($0, 64, 4)',
  'static String toBinaryString(long)': '$jl.unsignedText($0, 64, 1)',
  'static String toOctalString(long)': '$jl.unsignedText($0, 64, 3)',
  'static int compare(long, long)': '($0 < $1 ? -1 : $0 === $1 ? 0 : 1)',
  'static int signum(long)': '($0 > 0n ? 1 : $0 < 0n ? -1 : 0)',
  'static long max(long, long)': '$jl.lmax($0, $1)',
  'static long min(long, long)': '$jl.lmin($0, $1)',
  'static long sum(long, long)': 'BigInt.asIntN(64, $0 + $1)',
  'static long abs(long)': '$jl.labs($0)',
  'static int bitCount(long)': '$jl.lbitCount($0)',
  'static int hashCode(long)': '$jl.longHash($0)',
  'static int numberOfLeadingZeros(long)': '$jl.lclz($0)',
  'static int numberOfTrailingZeros(long)': '$jl.lctz($0)',
});
fields(LONG, {
  MAX_VALUE: ['long', '9223372036854775807n', 9223372036854775807n],
  MIN_VALUE: ['long', '(-9223372036854775808n)', -9223372036854775808n],
  SIZE: ['int', '64', 64],
  BYTES: ['int', '8', 8],
});

for (const [name, p, box, bits] of [
  ['Short', 'short', 'S', 16],
  ['Byte', 'byte', 'B', 8],
] as const) {
  const c = defineClass(name, `java.lang.${name}`, {
    supers: ['Number', `Comparable<${name}>`],
    test: instanceOf(`$jl.J${name}`),
  });
  members(c, {
    [`new(${p})`]: `$jl.${box}($0)`,
    'int intValue()': '$r.v',
    'long longValue()': 'BigInt($r.v)',
    'double doubleValue()': '$r.v',
    'float floatValue()': '$r.v',
    'short shortValue()': '$r.v',
    'byte byteValue()': `((($r.v) << 24) >> 24)`,
    'boolean equals(Object)': '$r.equals($0)',
    'int hashCode()': '$r.v',
    'String toString()': '(""+$r.v)',
    [`int compareTo(${name})`]: '$r.compareTo($0)',
    [`static ${name} valueOf(${p})`]: `$jl.${box}($0)`,
    [`static ${name} valueOf(String)`]: `$jl.${box}($jl.parse${name}($0))`,
    [`static ${p} parse${name}(String)`]: `$jl.parse${name}($0)`,
    [`static ${p} parse${name}(String, int)`]: `$jl.parse${name}($0, $1)`,
    [`static String toString(${p})`]: '(""+$0)',
    [`static int compare(${p}, ${p})`]: '($0 - $1)',
    [`static int hashCode(${p})`]: '$0',
    [`static int toUnsignedInt(${p})`]: `($0 & ${bits === 8 ? '0xff' : '0xffff'})`,
  });
  fields(c, {
    MAX_VALUE: [p, String(2 ** (bits - 1) - 1), 2 ** (bits - 1) - 1],
    MIN_VALUE: [p, `(${-(2 ** (bits - 1))})`, -(2 ** (bits - 1))],
    SIZE: ['int', String(bits), bits],
    BYTES: ['int', String(bits / 8), bits / 8],
  });
}

for (const [name, p, box] of [
  ['Double', 'double', 'D'],
  ['Float', 'float', 'F'],
] as const) {
  const c = defineClass(name, `java.lang.${name}`, {
    supers: ['Number', `Comparable<${name}>`],
    test: instanceOf(`$jl.J${name}`),
  });
  const conv = p === 'float' ? (x: string) => `Math.fround(${x})` : (x: string) => x;
  const text = p === 'float' ? '$jl.fstr' : '$jl.dstr';
  members(c, {
    [`new(${p})`]: `$jl.${box}($0)`,
    'new(String)': `$jl.${box}(${conv('$jl.parseDouble($0)')})`,
    'int intValue()': '$jl.d2i($r.v)',
    'long longValue()': '$jl.d2l($r.v)',
    'double doubleValue()': '$r.v',
    'float floatValue()': 'Math.fround($r.v)',
    'short shortValue()': '(($jl.d2i($r.v) << 16) >> 16)',
    'byte byteValue()': '(($jl.d2i($r.v) << 24) >> 24)',
    'boolean isNaN()': 'Number.isNaN($r.v)',
    'boolean isInfinite()': '($r.v === Infinity || $r.v === -Infinity)',
    'boolean equals(Object)': '$r.equals($0)',
    'int hashCode()': '$r.hashCode()',
    'String toString()': `${text}($r.v)`,
    [`int compareTo(${name})`]: '$r.compareTo($0)',
    [`static ${name} valueOf(${p})`]: `$jl.${box}($0)`,
    [`static ${name} valueOf(String)`]: `$jl.${box}(${conv('$jl.parseDouble($0)')})`,
    [`static ${p} parse${name}(String)`]: conv('$jl.parseDouble($0)'),
    [`static String toString(${p})`]: `${text}($0)`,
    [`static boolean isNaN(${p})`]: 'Number.isNaN($0)',
    [`static boolean isInfinite(${p})`]: '($0 === Infinity || $0 === -Infinity)',
    [`static boolean isFinite(${p})`]: 'Number.isFinite($0)',
    [`static int compare(${p}, ${p})`]: '$jl.dcmp($0, $1)',
    [`static ${p} max(${p}, ${p})`]: 'Math.max($0, $1)',
    [`static ${p} min(${p}, ${p})`]: 'Math.min($0, $1)',
    [`static ${p} sum(${p}, ${p})`]: conv('($0 + $1)'),
    [`static int hashCode(${p})`]: p === 'float' ? '$jl.floatBits($0)' : '$jl.doubleHash($0)',
  });
  if (p === 'double') {
    members(c, {
      'static long doubleToLongBits(double)': '$jl.doubleBits($0)',
      'static double longBitsToDouble(long)': '$jl.bitsDouble($0)',
    });
    fields(c, {
      MAX_VALUE: ['double', '1.7976931348623157e308', 1.7976931348623157e308],
      MIN_VALUE: ['double', '5e-324', 5e-324],
      POSITIVE_INFINITY: ['double', 'Infinity', Number.POSITIVE_INFINITY],
      NEGATIVE_INFINITY: ['double', '(-Infinity)', Number.NEGATIVE_INFINITY],
      NaN: ['double', 'NaN', Number.NaN],
      MIN_NORMAL: ['double', '2.2250738585072014e-308', 2.2250738585072014e-308],
    });
  } else {
    members(c, {
      'static int floatToIntBits(float)': '$jl.floatBits($0)',
      'static float intBitsToFloat(int)': '$jl.bitsFloat($0)',
    });
    fields(c, {
      MAX_VALUE: ['float', String(Math.fround(3.4028235e38)), Math.fround(3.4028235e38)],
      MIN_VALUE: ['float', String(Math.fround(1.4e-45)), Math.fround(1.4e-45)],
      POSITIVE_INFINITY: ['float', 'Infinity', Number.POSITIVE_INFINITY],
      NEGATIVE_INFINITY: ['float', '(-Infinity)', Number.NEGATIVE_INFINITY],
      NaN: ['float', 'NaN', Number.NaN],
    });
  }
}

const BOOLEAN = defineClass('Boolean', 'java.lang.Boolean', {
  supers: ['Object', 'Comparable<Boolean>'],
  test: (js) => `(typeof ${js} === "boolean")`,
});
members(BOOLEAN, {
  'new(boolean)': '$0',
  'boolean booleanValue()': '$r',
  'boolean equals(Object)': '($r === $0)',
  'int hashCode()': '($r ? 1231 : 1237)',
  'String toString()': '(""+$r)',
  'int compareTo(Boolean)': '$jl.cmp($r, $0)',
  'static Boolean valueOf(boolean)': '$0',
  'static Boolean valueOf(String)': '$jl.parseBool($0)',
  'static boolean parseBoolean(String)': '$jl.parseBool($0)',
  'static String toString(boolean)': '(""+$0)',
  'static int compare(boolean, boolean)': '($0 === $1 ? 0 : $0 ? 1 : -1)',
  'static boolean logicalAnd(boolean, boolean)': '($0 && $1)',
  'static boolean logicalOr(boolean, boolean)': '($0 || $1)',
  'static boolean logicalXor(boolean, boolean)': '($0 !== $1)',
  'static int hashCode(boolean)': '($0 ? 1231 : 1237)',
});
fields(BOOLEAN, { TRUE: ['Boolean', 'true', true], FALSE: ['Boolean', 'false', false] });

const CHARACTER = defineClass('Character', 'java.lang.Character', {
  supers: ['Object', 'Comparable<Character>'],
  test: instanceOf('$jl.JChar'),
});
members(CHARACTER, {
  'new(char)': '$jl.C($0)',
  'char charValue()': '$r.v',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.v',
  'String toString()': 'String.fromCharCode($r.v)',
  'int compareTo(Character)': '$r.compareTo($0)',
  'static Character valueOf(char)': '$jl.C($0)',
  'static String toString(char)': 'String.fromCharCode($0)',
  'static boolean isDigit(char)': '$jl.isDigit($0)',
  'static boolean isDigit(int)': '$jl.isDigit($0)',
  'static boolean isLetter(char)': '$jl.isLetter($0)',
  'static boolean isLetter(int)': '$jl.isLetter($0)',
  'static boolean isLetterOrDigit(char)': '($jl.isLetter($0) || $jl.isDigit($0))',
  'static boolean isLetterOrDigit(int)': '($jl.isLetter($0) || $jl.isDigit($0))',
  'static boolean isAlphabetic(int)': '$jl.isLetter($0)',
  'static boolean isWhitespace(char)': '$jl.isWhitespace($0)',
  'static boolean isWhitespace(int)': '$jl.isWhitespace($0)',
  'static boolean isSpaceChar(char)': '$jl.isSpaceChar($0)',
  'static boolean isUpperCase(char)': '$jl.isUpper($0)',
  'static boolean isUpperCase(int)': '$jl.isUpper($0)',
  'static boolean isLowerCase(char)': '$jl.isLower($0)',
  'static boolean isLowerCase(int)': '$jl.isLower($0)',
  'static char toUpperCase(char)': '$jl.toUpperChar($0)',
  'static int toUpperCase(int)': '$jl.toUpperChar($0)',
  'static char toLowerCase(char)': '$jl.toLowerChar($0)',
  'static int toLowerCase(int)': '$jl.toLowerChar($0)',
  'static int getNumericValue(char)': '$jl.digit($0, 36)',
  'static int digit(char, int)': '$jl.digit($0, $1)',
  'static char forDigit(int, int)': '$jl.forDigit($0, $1)',
  'static int compare(char, char)': '($0 - $1)',
  'static int hashCode(char)': '$0',
});
fields(CHARACTER, {
  MAX_VALUE: ['char', '65535', 65535],
  MIN_VALUE: ['char', '0', 0],
});

const MATH = defineClass('Math', 'java.lang.Math');
const mathTable: Record<string, Emit> = {
  'static int abs(int)': '(Math.abs($0) | 0)',
  'static long abs(long)': '$jl.labs($0)',
  'static float abs(float)': 'Math.abs($0)',
  'static double abs(double)': 'Math.abs($0)',
  'static int max(int, int)': 'Math.max($0, $1)',
  'static long max(long, long)': '$jl.lmax($0, $1)',
  'static float max(float, float)': 'Math.max($0, $1)',
  'static double max(double, double)': 'Math.max($0, $1)',
  'static int min(int, int)': 'Math.min($0, $1)',
  'static long min(long, long)': '$jl.lmin($0, $1)',
  'static float min(float, float)': 'Math.min($0, $1)',
  'static double min(double, double)': 'Math.min($0, $1)',
  'static double pow(double, double)': '$jl.pow($0, $1)',
  'static double sqrt(double)': 'Math.sqrt($0)',
  'static double cbrt(double)': 'Math.cbrt($0)',
  'static double floor(double)': 'Math.floor($0)',
  'static double ceil(double)': 'Math.ceil($0)',
  'static double rint(double)': '$jl.rint($0)',
  'static long round(double)': '$jl.roundD($0)',
  'static int round(float)': '$jl.roundF($0)',
  'static double exp(double)': 'Math.exp($0)',
  'static double expm1(double)': 'Math.expm1($0)',
  'static double log(double)': 'Math.log($0)',
  'static double log10(double)': 'Math.log10($0)',
  'static double log1p(double)': 'Math.log1p($0)',
  'static double sin(double)': 'Math.sin($0)',
  'static double cos(double)': 'Math.cos($0)',
  'static double tan(double)': 'Math.tan($0)',
  'static double asin(double)': 'Math.asin($0)',
  'static double acos(double)': 'Math.acos($0)',
  'static double atan(double)': 'Math.atan($0)',
  'static double atan2(double, double)': 'Math.atan2($0, $1)',
  'static double sinh(double)': 'Math.sinh($0)',
  'static double cosh(double)': 'Math.cosh($0)',
  'static double tanh(double)': 'Math.tanh($0)',
  'static double hypot(double, double)': 'Math.hypot($0, $1)',
  'static double toRadians(double)': '($0 / 180 * Math.PI)',
  'static double toDegrees(double)': '($0 * 180 / Math.PI)',
  'static double signum(double)': '($0 > 0 ? 1 : $0 < 0 ? -1 : $0)',
  'static float signum(float)': '($0 > 0 ? 1 : $0 < 0 ? -1 : $0)',
  'static double copySign(double, double)': '$jl.copySign($0, $1)',
  'static double random()': 'Math.random()',
  'static int floorDiv(int, int)': '$jl.floorDivI($0, $1)',
  'static long floorDiv(long, long)': '$jl.floorDivL($0, $1)',
  'static int floorMod(int, int)': '$jl.floorModI($0, $1)',
  'static long floorMod(long, long)': '$jl.floorModL($0, $1)',
  'static int addExact(int, int)': '$jl.iexact($0 + $1)',
  'static long addExact(long, long)': '$jl.lexact($0 + $1)',
  'static int subtractExact(int, int)': '$jl.iexact($0 - $1)',
  'static long subtractExact(long, long)': '$jl.lexact($0 - $1)',
  'static int multiplyExact(int, int)': '$jl.imulExact($0, $1)',
  'static long multiplyExact(long, long)': '$jl.lexact($0 * $1)',
  'static int negateExact(int)': '$jl.iexact(-$0)',
  'static long negateExact(long)': '$jl.lexact(-$0)',
  'static int incrementExact(int)': '$jl.iexact($0 + 1)',
  'static long incrementExact(long)': '$jl.lexact($0 + 1n)',
  'static int decrementExact(int)': '$jl.iexact($0 - 1)',
  'static long decrementExact(long)': '$jl.lexact($0 - 1n)',
  'static int toIntExact(long)': 'Number($jl.toIntExact($0))',
};
members(MATH, mathTable);
fields(MATH, { PI: ['double', 'Math.PI', Math.PI], E: ['double', 'Math.E', Math.E] });
const STRICTMATH = defineClass('StrictMath', 'java.lang.StrictMath');
members(STRICTMATH, mathTable);
fields(STRICTMATH, { PI: ['double', 'Math.PI', Math.PI], E: ['double', 'Math.E', Math.E] });

const CLASS = defineClass('Class<T>', 'java.lang.Class');
members(CLASS, { 'String getName()': '$r', 'String getSimpleName()': '$r.slice($r.lastIndexOf(".") + 1)' });

// Throwables
for (const [name, [qualified, parent, checked]] of Object.entries(JAVA_THROWABLES)) {
  const c = defineClass(name, qualified, {
    supers: [parent ?? 'Object'],
    test: instanceOf(`$jx.${name}`),
    checked,
    imported: qualified.startsWith('java.lang.') || qualified.startsWith('java.util.'),
  });
  members(c, {
    'new()': `new $jx.${name}()`,
    'new(String)': `new $jx.${name}($0)`,
    'new(String, Throwable)': `new $jx.${name}($0, $1)`,
    'new(Throwable)': `$jx.withCause("${name}", $0)`,
  });
  if (name === 'AssertionError') members(c, { 'new(Object)': `new $jx.AssertionError($jl.str($0))` });
  if (name === 'Throwable')
    members(c, {
      'String getMessage()': '$r.getMessage()',
      'String getLocalizedMessage()': '$r.getMessage()',
      'Throwable getCause()': '$r.getCause()',
      'String toString()': '$r.toString()',
    });
}

// java.util

const ITERATOR = defineClass('Iterator<E>', 'java.util.Iterator', { interface: true });
members(ITERATOR, { 'boolean hasNext()': '$r.hasNext()', 'E next()': '$r.next()', 'void remove()': '$r.remove()' });

const COLLECTION = defineClass('Collection<E>', 'java.util.Collection', {
  interface: true,
  supers: ['Object', 'Iterable<E>'],
  test: (js) => `(${js} instanceof $ju.JList || ${js} instanceof $ju.JSet || ${js} instanceof $ju.MapView)`,
});
members(COLLECTION, {
  'int size()': '$r.size()',
  'boolean isEmpty()': '$r.isEmpty()',
  'boolean contains(Object)': '$r.contains($0)',
  'boolean containsAll(Collection<?>)': '$r.containsAll($0)',
  'boolean add(E)': '$r.add($0)',
  'boolean addAll(Collection<? extends E>)': '$r.addAll($0)',
  'boolean remove(Object)': '$r.remove($0)',
  'boolean removeAll(Collection<?>)': '$r.removeAll($0)',
  'boolean retainAll(Collection<?>)': '$r.retainAll($0)',
  'void clear()': '$r.clear()',
  'Iterator<E> iterator()': '$r.iterator()',
  'Object[] toArray()': '$r.toArray()',
  '<T> T[] toArray(T[])': '$jl.intoArray($r.toArray(), $0)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
});

const LIST = defineClass('List<E>', 'java.util.List', {
  interface: true,
  supers: ['Collection<E>'],
  test: instanceOf('$ju.JList'),
});
members(LIST, {
  'E get(int)': '$r.get($0)',
  'E set(int, E)': '$r.set($0, $1)',
  'void add(int, E)': '$r.addAt($0, $1)',
  'boolean addAll(int, Collection<? extends E>)': '$r.addAllAt($0, $1)',
  'E remove(int)': '$r.removeAt($0)',
  'int indexOf(Object)': '$r.indexOf($0)',
  'int lastIndexOf(Object)': '$r.lastIndexOf($0)',
  'List<E> subList(int, int)': '$r.subList($0, $1)',
  'void sort(Comparator<? super E>)': '$r.sort($0)',
  'static <T> List<T> of(T...)': '$ju.listOf($0)',
});
const ARRAYLIST = defineClass('ArrayList<E>', 'java.util.ArrayList', {
  supers: ['List<E>'],
  test: instanceOf('$ju.JList'),
});
members(ARRAYLIST, {
  'new()': '$ju.arrayList()',
  'new(int)': '($0 < 0 ? $jl.fail("IllegalArgumentException", "Illegal Capacity: " + $0) : $ju.arrayList())',
  'new(Collection<? extends E>)': '$ju.arrayList($ju.fromCollection($0))',
  'void ensureCapacity(int)': 'void 0',
  'void trimToSize()': 'void 0',
});
const LINKEDLIST = defineClass('LinkedList<E>', 'java.util.LinkedList', {
  supers: ['List<E>'],
  test: instanceOf('$ju.JList'),
});
members(LINKEDLIST, {
  'new()': '$ju.linkedList()',
  'new(Collection<? extends E>)': '$ju.linkedList($ju.fromCollection($0))',
  'void addFirst(E)': '$r.addFirst($0)',
  'void addLast(E)': '$r.addLast($0)',
  'E getFirst()': '$r.getFirst()',
  'E getLast()': '$r.getLast()',
  'E removeFirst()': '$r.removeFirst()',
  'E removeLast()': '$r.removeLast()',
  'E peek()': '$r.peek()',
  'E peekFirst()': '$r.peek()',
  'E peekLast()': '$r.peekLast()',
  'E poll()': '$r.poll()',
  'E pollFirst()': '$r.poll()',
  'E pollLast()': '$r.pollLast()',
  'E element()': '$r.getFirst()',
  'boolean offer(E)': '$r.add($0)',
  'void push(E)': '$r.addFirst($0)',
  'E pop()': '$r.removeFirst()',
});

const SET = defineClass('Set<E>', 'java.util.Set', {
  interface: true,
  supers: ['Collection<E>'],
  test: (js) => `$ju.isSet(${js})`,
});
members(SET, { 'static <T> Set<T> of(T...)': '$ju.setOf($0)' });
const SORTEDSET = defineClass('SortedSet<E>', 'java.util.SortedSet', {
  interface: true,
  supers: ['Set<E>'],
  test: (js) => `(${js} instanceof $ju.JSet && ${js}.m.kind === 2)`,
});
members(SORTEDSET, {
  'E first()': '$r.first()',
  'E last()': '$r.last()',
  'SortedSet<E> headSet(E)': '$r.range(undefined, true, $0, false)',
  'SortedSet<E> tailSet(E)': '$r.range($0, true, undefined, true)',
  'SortedSet<E> subSet(E, E)': '$r.range($0, true, $1, false)',
});
const NAVSET = defineClass('NavigableSet<E>', 'java.util.NavigableSet', {
  interface: true,
  supers: ['SortedSet<E>'],
  test: (js) => `(${js} instanceof $ju.JSet && ${js}.m.kind === 2)`,
});
members(NAVSET, {
  'E floor(E)': '$r.nearKey($0, "floor")',
  'E ceiling(E)': '$r.nearKey($0, "ceiling")',
  'E lower(E)': '$r.nearKey($0, "lower")',
  'E higher(E)': '$r.nearKey($0, "higher")',
  'E pollFirst()': '$r.pollFirst()',
  'E pollLast()': '$r.pollLast()',
  'NavigableSet<E> descendingSet()': '$r.descendingSet()',
});
const HASHSET = defineClass('HashSet<E>', 'java.util.HashSet', { supers: ['Set<E>'], test: instanceOf('$ju.JSet') });
members(HASHSET, {
  'new()': '$ju.hashSet(0)',
  'new(int)': '$ju.hashSet(0, $0)',
  'new(Collection<? extends E>)': '$ju.hashSet(0, $ju.capacityFor($jl.nn($0).size()), $0.toArray())',
});
const LINKEDHASHSET = defineClass('LinkedHashSet<E>', 'java.util.LinkedHashSet', {
  supers: ['HashSet<E>'],
  test: (js) => `(${js} instanceof $ju.JSet && ${js}.m.kind === 1)`,
});
members(LINKEDHASHSET, {
  'new()': '$ju.hashSet(1)',
  'new(int)': '$ju.hashSet(1, $0)',
  'new(Collection<? extends E>)': '$ju.hashSet(1, 16, $jl.nn($0).toArray())',
});
const TREESET = defineClass('TreeSet<E>', 'java.util.TreeSet', {
  supers: ['NavigableSet<E>'],
  test: (js) => `(${js} instanceof $ju.JSet && ${js}.m.kind === 2)`,
});
members(TREESET, {
  'new()': '$ju.hashSet(2)',
  'new(Comparator<? super E>)': '$ju.hashSet(2, 16, undefined, $jl.nn($0).compare)',
  'new(Collection<? extends E>)': '$ju.hashSet(2, 16, $jl.nn($0).toArray())',
});

const MAP = defineClass('Map<K,V>', 'java.util.Map', { interface: true, test: instanceOf('$ju.JMap') });
members(MAP, {
  'int size()': '$r.size()',
  'boolean isEmpty()': '$r.isEmpty()',
  'V get(Object)': '$r.get($0)',
  'V getOrDefault(Object, V)': '$r.getOrDefault($0, $1)',
  'V put(K, V)': '$r.put($0, $1)',
  'V putIfAbsent(K, V)': '$r.putIfAbsent($0, $1)',
  'void putAll(Map<? extends K,? extends V>)': '$r.putAll($0)',
  'V remove(Object)': '$r.remove($0)',
  'boolean containsKey(Object)': '$r.containsKey($0)',
  'boolean containsValue(Object)': '$r.containsValue($0)',
  'void clear()': '$r.clear()',
  'Set<K> keySet()': '$r.keySet()',
  'Collection<V> values()': '$r.values()',
  'Set<Map.Entry<K,V>> entrySet()': '$r.entrySet()',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'static <A,B> Map<A,B> of()': '$ju.mapOf([])',
  'static <A,B> Map<A,B> of(A, B)': '$ju.mapOf([$0, $1])',
  'static <A,B> Map<A,B> of(A, B, A, B)': '$ju.mapOf([$0, $1, $2, $3])',
  'static <A,B> Map<A,B> of(A, B, A, B, A, B)': '$ju.mapOf([$0, $1, $2, $3, $4, $5])',
  'static <A,B> Map<A,B> of(A, B, A, B, A, B, A, B)': '$ju.mapOf([$0, $1, $2, $3, $4, $5, $6, $7])',
});
const ENTRY = defineClass('Map.Entry<K,V>', 'java.util.Map.Entry', { interface: true, test: instanceOf('$ju.Entry') });
members(ENTRY, {
  'K getKey()': '$r.getKey()',
  'V getValue()': '$r.getValue()',
  'V setValue(V)': '$r.setValue($0)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
});
const SORTEDMAP = defineClass('SortedMap<K,V>', 'java.util.SortedMap', {
  interface: true,
  supers: ['Map<K,V>'],
  test: (js) => `(${js} instanceof $ju.JMap && ${js}.kind === 2)`,
});
members(SORTEDMAP, {
  'K firstKey()': '$r.firstKey()',
  'K lastKey()': '$r.lastKey()',
  'SortedMap<K,V> headMap(K)': '$r.range(undefined, true, $0, false)',
  'SortedMap<K,V> tailMap(K)': '$r.range($0, true, undefined, true)',
  'SortedMap<K,V> subMap(K, K)': '$r.range($0, true, $1, false)',
});
const NAVMAP = defineClass('NavigableMap<K,V>', 'java.util.NavigableMap', {
  interface: true,
  supers: ['SortedMap<K,V>'],
  test: (js) => `(${js} instanceof $ju.JMap && ${js}.kind === 2)`,
});
members(NAVMAP, {
  'Map.Entry<K,V> firstEntry()': '$r.firstEntry()',
  'Map.Entry<K,V> lastEntry()': '$r.lastEntry()',
  'Map.Entry<K,V> pollFirstEntry()': '$r.pollFirstEntry()',
  'Map.Entry<K,V> pollLastEntry()': '$r.pollLastEntry()',
  'K floorKey(K)': '$r.nearKey($0, "floor")',
  'K ceilingKey(K)': '$r.nearKey($0, "ceiling")',
  'K lowerKey(K)': '$r.nearKey($0, "lower")',
  'K higherKey(K)': '$r.nearKey($0, "higher")',
  'Map.Entry<K,V> floorEntry(K)': '$r.near($0, "floor")',
  'Map.Entry<K,V> ceilingEntry(K)': '$r.near($0, "ceiling")',
  'NavigableMap<K,V> descendingMap()': '$r.descendingMap()',
});
const HASHMAP = defineClass('HashMap<K,V>', 'java.util.HashMap', {
  supers: ['Map<K,V>'],
  test: instanceOf('$ju.JMap'),
});
members(HASHMAP, {
  'new()': '$ju.hashMap(0)',
  'new(int)': '$ju.hashMap(0, $0)',
  'new(Map<? extends K,? extends V>)': '$ju.hashMap(0, 16, $0)',
});
const LINKEDHASHMAP = defineClass('LinkedHashMap<K,V>', 'java.util.LinkedHashMap', {
  supers: ['HashMap<K,V>'],
  test: (js) => `(${js} instanceof $ju.JMap && ${js}.kind === 1)`,
});
members(LINKEDHASHMAP, {
  'new()': '$ju.hashMap(1)',
  'new(int)': '$ju.hashMap(1, $0)',
  'new(Map<? extends K,? extends V>)': '$ju.hashMap(1, 16, $0)',
});
const TREEMAP = defineClass('TreeMap<K,V>', 'java.util.TreeMap', {
  supers: ['NavigableMap<K,V>'],
  test: (js) => `(${js} instanceof $ju.JMap && ${js}.kind === 2)`,
});
members(TREEMAP, {
  'new()': '$ju.hashMap(2)',
  'new(Comparator<? super K>)': '$ju.hashMap(2, 16, undefined, $jl.nn($0).compare)',
  'new(Map<? extends K,? extends V>)': '$ju.hashMap(2, 16, $0)',
});

const COMPARATOR = defineClass('Comparator<T>', 'java.util.Comparator', {
  interface: true,
  test: instanceOf('$ju.Comparator'),
});
members(COMPARATOR, {
  'int compare(T, T)': '$r.compare($0, $1)',
  'Comparator<T> reversed()': '$r.reversed()',
  'static <T> Comparator<T> naturalOrder()': '$ju.naturalOrder',
  'static <T> Comparator<T> reverseOrder()': '$ju.reverseOrder',
});

const ARRAYS = defineClass('Arrays', 'java.util.Arrays');
members(ARRAYS, {
  'static <T> List<T> asList(T...)': '$ju.asList($0)',
  'static String toString(int[])': '$jl.arrayText($0, "int")',
  'static String toString(long[])': '$jl.arrayText($0, "long")',
  'static String toString(double[])': '$jl.arrayText($0, "double")',
  'static String toString(float[])': '$jl.arrayText($0, "float")',
  'static String toString(char[])': '$jl.arrayText($0, "char")',
  'static String toString(byte[])': '$jl.arrayText($0, "byte")',
  'static String toString(short[])': '$jl.arrayText($0, "short")',
  'static String toString(boolean[])': '$jl.arrayText($0, "boolean")',
  'static String toString(Object[])': '$jl.arrayText($0, "Object")',
  'static void sort(int[])': '$jl.nn($0).sort()',
  'static void sort(long[])': '$jl.nn($0).sort()',
  'static void sort(double[])': '$jl.sortDoubles($0)',
  'static void sort(float[])': '$jl.sortDoubles($0)',
  'static void sort(char[])': '$jl.nn($0).sort()',
  'static void sort(short[])': '$jl.nn($0).sort()',
  'static void sort(byte[])': '$jl.nn($0).sort()',
  'static void sort(Object[])': '$ju.stableSort($jl.nn($0), $jl.cmp)',
  'static <T> void sort(T[], Comparator<? super T>)': '$ju.stableSort($jl.nn($0), $jl.nn($1).compare)',
  'static void fill(int[], int)': '$jl.nn($0).fill($1)',
  'static void fill(long[], long)': '$jl.nn($0).fill($1)',
  'static void fill(double[], double)': '$jl.nn($0).fill($1)',
  'static void fill(char[], char)': '$jl.nn($0).fill($1)',
  'static void fill(boolean[], boolean)': '$jl.nn($0).fill($1)',
  'static void fill(Object[], Object)': '$jl.nn($0).fill($1)',
  'static boolean equals(int[], int[])': '$jl.arrayEquals($0, $1)',
  'static boolean equals(long[], long[])': '$jl.arrayEquals($0, $1)',
  'static boolean equals(double[], double[])': '$jl.arrayEquals($0, $1)',
  'static boolean equals(byte[], byte[])': '$jl.arrayEquals($0, $1)',
  'static boolean equals(char[], char[])': '$jl.arrayEquals($0, $1)',
  'static boolean equals(Object[], Object[])': '$jl.arrayEquals($0, $1)',
  'static int hashCode(int[])': '$jl.arrayHash($0)',
  'static int hashCode(long[])': '$jl.arrayHash($0)',
  'static int hashCode(Object[])': '$jl.arrayHash($0)',
  'static int[] copyOf(int[], int)': '$jl.copyOf($0, $1)',
  'static long[] copyOf(long[], int)': '$jl.copyOf($0, $1)',
  'static double[] copyOf(double[], int)': '$jl.copyOf($0, $1)',
  'static char[] copyOf(char[], int)': '$jl.copyOf($0, $1)',
  'static byte[] copyOf(byte[], int)': '$jl.copyOf($0, $1)',
  'static <T> T[] copyOf(T[], int)': '$jl.copyOf($0, $1)',
  'static int[] copyOfRange(int[], int, int)': '$jl.copyOfRange($0, $1, $2)',
  'static long[] copyOfRange(long[], int, int)': '$jl.copyOfRange($0, $1, $2)',
  'static double[] copyOfRange(double[], int, int)': '$jl.copyOfRange($0, $1, $2)',
  'static char[] copyOfRange(char[], int, int)': '$jl.copyOfRange($0, $1, $2)',
  'static byte[] copyOfRange(byte[], int, int)': '$jl.copyOfRange($0, $1, $2)',
  'static <T> T[] copyOfRange(T[], int, int)': '$jl.copyOfRange($0, $1, $2)',
});

const COLLECTIONS = defineClass('Collections', 'java.util.Collections');
members(COLLECTIONS, {
  'static <T> void sort(List<T>)': '$ju.Collections.sort($0)',
  'static <T> void sort(List<T>, Comparator<? super T>)': '$ju.Collections.sort($0, $1)',
  'static void reverse(List<?>)': '$ju.Collections.reverse($0)',
  'static void swap(List<?>, int, int)': '$ju.Collections.swap($0, $1, $2)',
  'static <T> T max(Collection<? extends T>)': '$ju.Collections.max($0)',
  'static <T> T max(Collection<? extends T>, Comparator<? super T>)': '$ju.Collections.max($0, $1)',
  'static <T> T min(Collection<? extends T>)': '$ju.Collections.min($0)',
  'static <T> T min(Collection<? extends T>, Comparator<? super T>)': '$ju.Collections.min($0, $1)',
  'static int frequency(Collection<?>, Object)': '$ju.Collections.frequency($0, $1)',
  'static <T> List<T> nCopies(int, T)': '$ju.Collections.nCopies($0, $1)',
  'static <T> List<T> emptyList()': '$ju.Collections.emptyList()',
  'static <T> Set<T> emptySet()': '$ju.Collections.emptySet()',
  'static <A,B> Map<A,B> emptyMap()': '$ju.Collections.emptyMap()',
  'static <T> List<T> singletonList(T)': '$ju.Collections.singletonList($0)',
  'static <T> Set<T> singleton(T)': '$ju.Collections.singleton($0)',
  'static <A,B> Map<A,B> singletonMap(A, B)': '$ju.Collections.singletonMap($0, $1)',
  'static <T> List<T> unmodifiableList(List<? extends T>)': '$ju.Collections.unmodifiable($0)',
  'static <T> Set<T> unmodifiableSet(Set<? extends T>)': '$ju.Collections.unmodifiable($0)',
  'static <A,B> Map<A,B> unmodifiableMap(Map<? extends A,? extends B>)': '$ju.Collections.unmodifiable($0)',
  'static <T> Collection<T> unmodifiableCollection(Collection<? extends T>)': '$ju.Collections.unmodifiable($0)',
  'static <T> boolean addAll(Collection<? super T>, T...)': '$ju.Collections.addAll($0, $1)',
  'static <T> Comparator<T> reverseOrder()': '$ju.reverseOrder',
});

const OBJECTS = defineClass('Objects', 'java.util.Objects');
members(OBJECTS, {
  'static boolean equals(Object, Object)': '$jl.oeq($0, $1)',
  'static int hashCode(Object)': '$jl.ohash($0)',
  'static int hash(Object...)': '$jl.arrayHash($0)',
  'static String toString(Object)': '$jl.str($0)',
  'static String toString(Object, String)': '$jl.strOr($0, $1)',
  'static boolean isNull(Object)': '($0 === null)',
  'static boolean nonNull(Object)': '($0 !== null)',
  'static <T> T requireNonNull(T)': '$jl.nn($0)',
  'static <T> T requireNonNull(T, String)': '$jl.requireNonNull($0, $1)',
  'static <T> T requireNonNullElse(T, T)': '$jl.requireNonNullElse($0, $1)',
  'static <T> int compare(T, T, Comparator<? super T>)': '($0 === $1 ? 0 : $jl.nn($2).compare($0, $1))',
});

/** The class for a Java name as the UDF wrote it (simple if imported, else qualified), or undefined. */
export function lookupClass(name: string): LibClass | undefined {
  const driver = /^com\.datastax\.driver\.core\.(.+)$/.exec(name);
  if (driver) name = `org.apache.cassandra.cql3.functions.types.${driver[1]}`;
  const q = byQualified.get(name);
  if (q) return q;
  const c = classes.get(name);
  return c?.imported ? c : undefined;
}

export function classNamed(simple: string): LibClass {
  const c = classes.get(simple);
  if (!c) throw new Error(`no library class ${simple}`);
  return c;
}

/** Registers further classes (the CQL value classes) defined in their own modules. */
export const libraryBuilder = { defineClass, members, fields, instanceOf };
