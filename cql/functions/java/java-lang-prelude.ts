// Sandbox prelude: java.lang values (global `$jl`). Integer is a JS number, Long a bigint, Boolean a boolean and
// String a JS string; Double, Float, Short, Byte and Character are boxed in small classes so that a value whose static
// type is Object still knows its Java class (for equals, hashCode, toString, instanceof and casts). Also: Java's
// integer arithmetic helpers, number text (Double.toString, parseInt...), String helpers, Character, Math and
// StringBuilder. Self-contained: shipped as `(${javaLangPrelude})(globalThis)`.

export function javaLangPrelude(g: Record<string, unknown>): void {
  // biome-ignore lint/suspicious/noExplicitAny: the exceptions prelude's classes are looked up by name
  const jx = g.$jx as any;
  const fail = (name: string, message?: string | null): never => {
    throw new jx[name](message ?? null);
  };
  const npe = (): never => fail('NullPointerException');
  const nn = <T>(x: T | null | undefined): T => (x === null || x === undefined ? npe() : x);

  // ---- Java number text ----

  /** Shortest decimal digits that read back as `x` (a float when isFloat), and the exponent of the first digit. */
  const shortest = (x: number, isFloat: boolean): { digits: string; exp: number } => {
    let s = '';
    if (isFloat) {
      for (let p = 1; p <= 9; p++) {
        s = x.toExponential(p - 1);
        if (Math.fround(Number(s)) === x) break;
      }
    } else s = x.toExponential();
    const e = s.indexOf('e');
    let digits = s.slice(0, e).replace('.', '').replace('-', '');
    digits = digits.replace(/0+$/, '') || '0';
    return { digits, exp: Number(s.slice(e + 1)) };
  };

  /** Java's Double.toString / Float.toString. */
  const floatingText = (x: number, isFloat: boolean): string => {
    if (Number.isNaN(x)) return 'NaN';
    if (x === Number.POSITIVE_INFINITY) return 'Infinity';
    if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
    if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
    const sign = x < 0 ? '-' : '';
    const ax = Math.abs(x);
    const { digits, exp } = shortest(ax, isFloat);
    if (ax >= 1e-3 && ax < 1e7) {
      if (exp >= 0) {
        const intPart =
          digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits + '0'.repeat(exp + 1 - digits.length);
        const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
        return `${sign}${intPart}.${frac}`;
      }
      return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    }
    if (digits.length === 1) {
      // "d.dE" shows two significant digits: the second is the nearest one, not always 0 (4.9E-324).
      const two = ax.toExponential(1);
      const d2 = two[2] === '0' ? '0' : two[2]!;
      return `${sign}${two[0]}.${d2}E${Number(two.slice(two.indexOf('e') + 1))}`;
    }
    return `${sign}${digits[0]}.${digits.slice(1)}E${exp}`;
  };
  const dstr = (x: number): string => floatingText(x, false);
  const fstr = (x: number): string => floatingText(x, true);

  const f64 = new Float64Array(1);
  const i32of64 = new Int32Array(f64.buffer);
  const f32 = new Float32Array(1);
  const i32of32 = new Int32Array(f32.buffer);
  const doubleHash = (x: number): number => {
    f64[0] = Number.isNaN(x) ? Number.NaN : x;
    return (i32of64[0]! ^ i32of64[1]!) | 0;
  };
  const floatBits = (x: number): number => {
    f32[0] = Number.isNaN(x) ? Number.NaN : x;
    return i32of32[0]!;
  };
  /** BigInt.asUintN, which QuickJS gets wrong for negative values (it returns them unchanged). */
  const uN = (bits: number, x: bigint): bigint => {
    const s = BigInt.asIntN(bits, x);
    return s < 0n ? s + (1n << BigInt(bits)) : s;
  };
  const u64 = (x: bigint): bigint => uN(64, x);
  const longHash = (x: bigint): number => Number(BigInt.asIntN(32, x ^ (u64(x) >> 32n)));

  /** Double.compare: -0.0 < 0.0, NaN greatest and equal to itself. */
  const dcmp = (a: number, b: number): number => {
    if (a < b) return -1;
    if (a > b) return 1;
    if (a === b && a !== 0) return 0;
    const an = Number.isNaN(a);
    const bn = Number.isNaN(b);
    if (an || bn) return an && bn ? 0 : an ? 1 : -1;
    const az = Object.is(a, -0);
    const bz = Object.is(b, -0);
    return az === bz ? 0 : az ? -1 : 1;
  };

  // ---- boxes ----

  let identity = 0x1b6d3586;
  const nextIdentityHash = (): number => {
    identity = (Math.imul(identity, 1103515245) + 12345) | 0;
    return identity & 0x7fffffff;
  };

  class JDouble {
    constructor(readonly v: number) {}
    get $cls(): string {
      return 'java.lang.Double';
    }
    toString(): string {
      return dstr(this.v);
    }
    equals(o: unknown): boolean {
      return o instanceof JDouble && dcmp(this.v, o.v) === 0;
    }
    hashCode(): number {
      return doubleHash(this.v);
    }
    compareTo(o: JDouble): number {
      return dcmp(this.v, nn(o).v);
    }
  }
  class JFloat {
    constructor(readonly v: number) {}
    get $cls(): string {
      return 'java.lang.Float';
    }
    toString(): string {
      return fstr(this.v);
    }
    equals(o: unknown): boolean {
      return o instanceof JFloat && floatBits(this.v) === floatBits(o.v);
    }
    hashCode(): number {
      return floatBits(this.v);
    }
    compareTo(o: JFloat): number {
      return dcmp(this.v, nn(o).v);
    }
  }
  class JShort {
    constructor(readonly v: number) {}
    get $cls(): string {
      return 'java.lang.Short';
    }
    toString(): string {
      return String(this.v);
    }
    equals(o: unknown): boolean {
      return o instanceof JShort && o.v === this.v;
    }
    hashCode(): number {
      return this.v;
    }
    compareTo(o: JShort): number {
      return this.v - nn(o).v;
    }
  }
  class JByte {
    constructor(readonly v: number) {}
    get $cls(): string {
      return 'java.lang.Byte';
    }
    toString(): string {
      return String(this.v);
    }
    equals(o: unknown): boolean {
      return o instanceof JByte && o.v === this.v;
    }
    hashCode(): number {
      return this.v;
    }
    compareTo(o: JByte): number {
      return this.v - nn(o).v;
    }
  }
  class JChar {
    constructor(readonly v: number) {}
    get $cls(): string {
      return 'java.lang.Character';
    }
    toString(): string {
      return String.fromCharCode(this.v);
    }
    equals(o: unknown): boolean {
      return o instanceof JChar && o.v === this.v;
    }
    hashCode(): number {
      return this.v;
    }
    compareTo(o: JChar): number {
      return this.v - nn(o).v;
    }
  }

  // ---- Object protocol over every representation ----

  const JAVA_BASE = new Set(['java.lang', 'java.util', 'java.math', 'java.net', 'java.nio']);
  /** The Java class name of a runtime value. */
  const className = (o: unknown): string => {
    switch (typeof o) {
      case 'number':
        return 'java.lang.Integer';
      case 'bigint':
        return 'java.lang.Long';
      case 'string':
        return 'java.lang.String';
      case 'boolean':
        return 'java.lang.Boolean';
      case 'object': {
        if (o === null) return 'null';
        const c = (o as { $cls?: string }).$cls;
        if (typeof c === 'string') return c;
        if (o instanceof Int32Array) return '[I';
        if (o instanceof Float64Array) return '[D';
        if (o instanceof BigInt64Array) return '[J';
        if (o instanceof Int8Array) return '[B';
        if (o instanceof Int16Array) return '[S';
        if (o instanceof Uint16Array) return '[C';
        if (o instanceof Float32Array) return '[F';
        return '[Ljava.lang.Object;';
      }
      default:
        return 'java.lang.Object';
    }
  };

  const identityHashes = new WeakMap<object, number>();
  const identityHash = (o: object): number => {
    let h = identityHashes.get(o);
    if (h === undefined) {
      h = nextIdentityHash();
      identityHashes.set(o, h);
    }
    return h;
  };

  /** String.valueOf(Object). */
  const str = (o: unknown): string => {
    switch (typeof o) {
      case 'string':
        return o;
      case 'number':
      case 'bigint':
      case 'boolean':
        return String(o);
      case 'object': {
        if (o === null) return 'null';
        if ((o as { $cls?: string }).$cls !== undefined) return String(o);
        return `${className(o)}@${identityHash(o).toString(16)}`;
      }
      default:
        return 'null';
    }
  };

  const strHash = (s: string): number => {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
    return h;
  };

  /** o.hashCode() (o non-null). */
  const hash = (o: unknown): number => {
    switch (typeof o) {
      case 'number':
        return o | 0;
      case 'bigint':
        return longHash(o);
      case 'string':
        return strHash(o);
      case 'boolean':
        return o ? 1231 : 1237;
      case 'object': {
        if (o === null) return npe();
        const h = (o as { hashCode?: () => number }).hashCode;
        return typeof h === 'function' ? h.call(o) : identityHash(o);
      }
      default:
        return 0;
    }
  };
  /** Objects.hashCode. */
  const ohash = (o: unknown): number => (o === null ? 0 : hash(o));

  /** a.equals(b), a non-null. */
  const eq = (a: unknown, b: unknown): boolean => {
    if (a === null || a === undefined) return npe();
    if (typeof a === 'object') {
      const e = (a as { equals?: (o: unknown) => boolean }).equals;
      return typeof e === 'function' ? e.call(a, b) : a === b;
    }
    return a === b;
  };
  /** Objects.equals. */
  const oeq = (a: unknown, b: unknown): boolean => a === b || (a !== null && eq(a, b));

  const castFail = (o: unknown, target: string): never => {
    const from = className(o);
    const where = (c: string): string =>
      JAVA_BASE.has(c.slice(0, c.lastIndexOf('.')))
        ? "module java.base of loader 'bootstrap'"
        : "unnamed module of loader 'app'";
    const sameWhere = where(from) === where(target);
    const detail = sameWhere
      ? `${from} and ${target} are in ${where(from)}`
      : `${from} is in ${where(from)}; ${target} is in ${where(target)}`;
    return fail('ClassCastException', `class ${from} cannot be cast to class ${target} (${detail})`);
  };

  /** a.compareTo(b) for Comparable a (non-null). */
  const cmp = (a: unknown, b: unknown): number => {
    if (a === null || a === undefined) return npe();
    if (b === null || b === undefined) return npe();
    const ta = typeof a;
    if (ta !== typeof b) return castFail(b, className(a));
    switch (ta) {
      case 'number':
      case 'bigint':
        return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
      case 'string':
        return strCmp(a as string, b as string);
      case 'boolean':
        return a === b ? 0 : a ? 1 : -1;
      default: {
        const c = (a as { compareTo?: (o: unknown) => number }).compareTo;
        if (typeof c !== 'function') return castFail(a, 'java.lang.Comparable');
        if (className(a) !== className(b)) return castFail(b, className(a));
        return c.call(a, b);
      }
    }
  };

  const strCmp = (a: string, b: string): number => {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = a.charCodeAt(i) - b.charCodeAt(i);
      if (d !== 0) return d;
    }
    return a.length - b.length;
  };

  // ---- integer arithmetic ----

  const idiv = (a: number, b: number): number => (b === 0 ? fail('ArithmeticException', '/ by zero') : (a / b) | 0);
  const imod = (a: number, b: number): number => (b === 0 ? fail('ArithmeticException', '/ by zero') : (a % b) | 0);
  const ldiv = (a: bigint, b: bigint): bigint =>
    b === 0n ? fail('ArithmeticException', '/ by zero') : BigInt.asIntN(64, a / b);
  const lmod = (a: bigint, b: bigint): bigint => (b === 0n ? fail('ArithmeticException', '/ by zero') : a % b);
  /** (int) of a double/float. */
  const d2i = (v: number): number => {
    if (Number.isNaN(v)) return 0;
    if (v >= 2147483647) return 2147483647;
    if (v <= -2147483648) return -2147483648;
    return Math.trunc(v) | 0;
  };
  /** (long) of a double/float. */
  const d2l = (v: number): bigint => {
    if (Number.isNaN(v)) return 0n;
    if (v >= 2 ** 63) return 9223372036854775807n;
    if (v <= -(2 ** 63)) return -9223372036854775808n;
    return BigInt(Math.trunc(v));
  };
  /** (float) of a long: round once, from the exact integer (Number() alone can round twice). */
  const l2f = (v: bigint): number => {
    const d = Number(v);
    const f = Math.fround(d);
    if (BigInt.asIntN(64, v) === v && Math.abs(d) < 2 ** 53) return f;
    // Correct a double-rounding tie: compare the exact value against the midpoint of the two nearest floats.
    const lower = f > d ? Math.fround(f - ulpOfFloat(f)) : f;
    const upper = f > d ? f : Math.fround(f + ulpOfFloat(f));
    const mid = (BigInt(lower) + BigInt(upper)) / 2n;
    if (v < mid) return lower;
    if (v > mid) return upper;
    return (floatBits(lower) & 1) === 0 ? lower : upper;
  };
  const ulpOfFloat = (f: number): number => {
    const a = Math.abs(f);
    if (a === 0) return 2 ** -149;
    const e = Math.floor(Math.log2(a));
    return 2 ** Math.max(e - 23, -149);
  };

  const overflow = (isLong: boolean): never =>
    fail('ArithmeticException', isLong ? 'long overflow' : 'integer overflow');
  const iexact = (r: number): number => (r > 2147483647 || r < -2147483648 ? overflow(false) : r);
  const lexact = (r: bigint): bigint => (BigInt.asIntN(64, r) !== r ? overflow(true) : r);
  const imulExact = (a: number, b: number): number => {
    const r = BigInt(a) * BigInt(b);
    return BigInt.asIntN(32, r) !== r ? overflow(false) : Number(r);
  };
  const floorDivI = (a: number, b: number): number => {
    const q = idiv(a, b);
    return (a % b !== 0 && a < 0 !== b < 0 ? q - 1 : q) | 0;
  };
  const floorModI = (a: number, b: number): number => {
    const m = imod(a, b);
    return m !== 0 && m < 0 !== b < 0 ? (m + b) | 0 : m;
  };
  const floorDivL = (a: bigint, b: bigint): bigint => {
    const q = ldiv(a, b);
    return a % b !== 0n && a < 0n !== b < 0n ? BigInt.asIntN(64, q - 1n) : q;
  };
  const floorModL = (a: bigint, b: bigint): bigint => {
    const m = lmod(a, b);
    return m !== 0n && m < 0n !== b < 0n ? m + b : m;
  };
  /** Math.round(double) → long: floor(x + 1/2) computed exactly. */
  const roundD = (x: number): bigint => {
    if (Number.isNaN(x)) return 0n;
    const f = Math.floor(x);
    return d2l(x - f >= 0.5 ? f + 1 : f);
  };
  /** Math.round(float) → int. */
  const roundF = (x: number): number => {
    if (Number.isNaN(x)) return 0;
    const f = Math.floor(x);
    return d2i(x - f >= 0.5 ? f + 1 : f);
  };
  /** Math.rint: nearest, ties to even. */
  const rint = (x: number): number => {
    if (!Number.isFinite(x)) return x;
    const f = Math.floor(x);
    const d = x - f;
    if (d < 0.5) return f === 0 && x < 0 ? -0 : f;
    if (d > 0.5) return f + 1;
    return f % 2 === 0 ? f : f + 1;
  };

  // ---- parsing and integer text ----

  const numberFormat = (s: string | null): never =>
    fail('NumberFormatException', s === null ? 'Cannot parse null string' : `For input string: "${s}"`);

  const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
  const parseIntegral = (s: string | null, radix: number, bits: 8 | 16 | 32 | 64): bigint => {
    if (s === null) return numberFormat(null);
    const m = /^([+-]?)([0-9a-zA-Z]+)$/.exec(s);
    if (!m) {
      if (bits < 32 && s === '') return numberFormat(s);
      return numberFormat(s);
    }
    let v = 0n;
    const r = BigInt(radix);
    for (const ch of m[2]!.toLowerCase()) {
      const d = DIGITS.indexOf(ch);
      if (d < 0 || d >= radix) return numberFormat(s);
      v = v * r + BigInt(d);
    }
    if (m[1] === '-') v = -v;
    const min = bits === 8 ? -128n : bits === 16 ? -32768n : bits === 32 ? -2147483648n : -9223372036854775808n;
    const max = -min - 1n;
    if (v < min || v > max) {
      if (bits < 32) return fail('NumberFormatException', `Value out of range. Value:"${s}" Radix:${radix}`);
      return numberFormat(s);
    }
    return v;
  };
  const parseInt32 = (s: string | null, radix = 10): number => Number(parseIntegral(s, radix, 32));
  const parseInt64 = (s: string | null, radix = 10): bigint => parseIntegral(s, radix, 64);
  const parseShort = (s: string | null, radix = 10): number => Number(parseIntegral(s, radix, 16));
  const parseByte = (s: string | null, radix = 10): number => Number(parseIntegral(s, radix, 8));
  const parseDouble = (s: string | null): number => {
    if (s === null) return npe();
    const t = trim(s);
    if (t === '') return fail('NumberFormatException', s === '' ? 'empty String' : `For input string: "${s}"`);
    const m = /^([+-]?)(NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?$/.exec(t);
    if (!m) return numberFormat(s);
    const v = m[2] === 'NaN' ? Number.NaN : Number(m[2]);
    return m[1] === '-' ? -v : v;
  };
  const parseFloat32 = (s: string | null): number => Math.fround(parseDouble(s));
  const parseBool = (s: string | null): boolean => s !== null && s.toLowerCase() === 'true';

  const intToString = (v: number | bigint, radix: number): string => {
    if (radix < 2 || radix > 36) radix = 10;
    return v.toString(radix);
  };
  const unsignedText = (v: number | bigint, bits: 32 | 64, shift: number): string => {
    const u = bits === 32 ? BigInt((v as number) >>> 0) : u64(v as bigint);
    return u.toString(1 << shift);
  };

  // ---- strings ----

  const isJavaWhitespaceTrim = (c: number): boolean => c <= 0x20;
  function trim(s: string): string {
    let a = 0;
    let b = s.length;
    while (a < b && isJavaWhitespaceTrim(s.charCodeAt(a))) a++;
    while (b > a && isJavaWhitespaceTrim(s.charCodeAt(b - 1))) b--;
    return a === 0 && b === s.length ? s : s.slice(a, b);
  }
  const charAt = (s: string, i: number): number =>
    i >= 0 && i < s.length
      ? s.charCodeAt(i)
      : fail('StringIndexOutOfBoundsException', `String index out of range: ${i}`);
  const substring = (s: string, b: number, e: number = s.length): string => {
    if (b < 0 || e > s.length || b > e)
      return fail('StringIndexOutOfBoundsException', `begin ${b}, end ${e}, length ${s.length}`);
    return s.slice(b, e);
  };
  const fromCode = (c: number): string => (c >= 0 && c <= 0xffff ? String.fromCharCode(c) : String.fromCodePoint(c));
  const indexOfChar = (s: string, c: number, from = 0): number => {
    if (c < 0 || c > 0x10ffff) return -1;
    return s.indexOf(fromCode(c), Math.max(0, from));
  };
  const lastIndexOfChar = (s: string, c: number, from: number = s.length - 1): number =>
    from < 0 ? -1 : s.lastIndexOf(fromCode(c), from);
  const repeat = (s: string, n: number): string =>
    n < 0 ? fail('IllegalArgumentException', `count is negative: ${n}`) : s.repeat(n);
  const equalsIgnoreCase = (a: string, b: unknown): boolean =>
    typeof b === 'string' &&
    a.length === b.length &&
    (a === b || a.toUpperCase().toLowerCase() === b.toUpperCase().toLowerCase());
  const compareIgnoreCase = (a: string, b: string): number => {
    nn(b);
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      let x = a.charCodeAt(i);
      let y = b.charCodeAt(i);
      if (x !== y) {
        x = String.fromCharCode(x).toUpperCase().toLowerCase().charCodeAt(0);
        y = String.fromCharCode(y).toUpperCase().toLowerCase().charCodeAt(0);
        if (x !== y) return x - y;
      }
    }
    return a.length - b.length;
  };

  /** Java regex syntax whose meaning JavaScript's engine does not share (kept in step with java-regex.ts). */
  const UNSUPPORTED_REGEX = /\\[pPQEZzAGhHvVR]|\(\?[a-zA-Z]|\(\?<[a-zA-Z]|\[\[|&&|[*+?}]\+/;
  /** A Java regex as a JS RegExp (the common subset: the syntax of both is the same for it). */
  const regexCache = new Map<string, RegExp>();
  const regex = (pattern: string, flags: string): RegExp => {
    const key = `${flags}/${pattern}`;
    let r = regexCache.get(key);
    if (r === undefined) {
      if (UNSUPPORTED_REGEX.test(pattern))
        return fail('UnsupportedOperationException', `Java regex construct not supported in UDFs: ${pattern}`);
      try {
        r = new RegExp(pattern, flags);
      } catch {
        return fail('PatternSyntaxException', `Invalid regular expression: ${pattern}`);
      }
      if (regexCache.size < 64) regexCache.set(key, r);
    }
    r.lastIndex = 0;
    return r;
  };
  /** Pattern.split: no empty leading part for a zero-width match at 0; trailing empty parts dropped for limit 0. */
  const split = (s: string, pattern: string, limit = 0): string[] => {
    const parts: string[] = [];
    const re = regex(pattern, 'g');
    let index = 0;
    let m: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: the usual exec loop
    while ((m = re.exec(s)) !== null) {
      const start = m.index;
      const end = start + m[0].length;
      if (end === start) re.lastIndex = start + 1;
      if (limit > 0 && parts.length >= limit - 1) break;
      if (index === 0 && start === 0 && end === 0) continue;
      parts.push(s.slice(index, start));
      index = end;
      if (re.lastIndex > s.length && end === start) break;
    }
    if (index === 0 && parts.length === 0) return [s];
    parts.push(s.slice(index));
    if (limit === 0) while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    return parts;
  };
  /** Java's replacement syntax ($1, \$) as JS's ($1, $$). */
  const replacement = (r: string): string => {
    let out = '';
    for (let i = 0; i < r.length; i++) {
      const c = r[i]!;
      if (c === '\\') {
        i++;
        if (i >= r.length) return fail('IllegalArgumentException', 'character to be escaped is missing');
        out += r[i] === '$' ? '$$' : r[i];
      } else if (c === '$') {
        const m = /^\$(\d+)/.exec(r.slice(i));
        if (!m) return fail('IllegalArgumentException', 'Illegal group reference');
        out += `$${m[1]}`;
        i += m[1]!.length;
      } else out += c;
    }
    return out;
  };
  const replaceAll = (s: string, pattern: string, repl: string): string =>
    s.replace(regex(pattern, 'g'), replacement(repl));
  const replaceFirst = (s: string, pattern: string, repl: string): string =>
    s.replace(regex(pattern, ''), replacement(repl));
  const matches = (s: string, pattern: string): boolean => regex(`^(?:${pattern})$`, '').test(s);
  const replaceLiteral = (s: string, target: string, repl: string): string => s.split(nn(target)).join(nn(repl));
  const join = (sep: string, items: Iterable<unknown>): string => {
    let out = '';
    let first = true;
    for (const x of items) {
      if (!first) out += sep;
      out += str(x);
      first = false;
    }
    return out;
  };
  const encodeUtf8 = (s: string): Int8Array => {
    const out: number[] = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c < 0xe000) c = 0x3f; // a lone surrogate encodes as '?'
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return Int8Array.from(out, (b) => (b << 24) >> 24);
  };
  const decodeUtf8 = (b: ArrayLike<number>, off = 0, len: number = b.length - off): string => {
    let s = '';
    const end = off + len;
    for (let i = off; i < end; ) {
      const c = b[i++]! & 0xff;
      let cp = 0xfffd;
      if (c < 0x80) cp = c;
      else if (c >= 0xc2 && c < 0xe0 && i < end) cp = ((c & 31) << 6) | (b[i++]! & 63);
      else if (c >= 0xe0 && c < 0xf0 && i + 1 < end) {
        cp = ((c & 15) << 12) | ((b[i]! & 63) << 6) | (b[i + 1]! & 63);
        i += 2;
      } else if (c >= 0xf0 && c < 0xf5 && i + 2 < end) {
        cp = ((c & 7) << 18) | ((b[i]! & 63) << 12) | ((b[i + 1]! & 63) << 6) | (b[i + 2]! & 63);
        i += 3;
      }
      s += String.fromCodePoint(cp);
    }
    return s;
  };

  // ---- Character ----

  const isDigit = (c: number): boolean => /\p{Nd}/u.test(fromCode(c));
  const isLetter = (c: number): boolean => /\p{L}/u.test(fromCode(c));
  const isWhitespace = (c: number): boolean =>
    (c >= 9 && c <= 13) ||
    (c >= 0x1c && c <= 0x20) ||
    (/\p{Z}/u.test(fromCode(c)) && c !== 0xa0 && c !== 0x2007 && c !== 0x202f);
  const isUpper = (c: number): boolean => /\p{Lu}/u.test(fromCode(c));
  const isLower = (c: number): boolean => /\p{Ll}/u.test(fromCode(c));
  const toUpperChar = (c: number): number => {
    const u = fromCode(c).toUpperCase();
    return u.length === 1 || (u.length === 2 && c > 0xffff) ? (u.codePointAt(0) ?? c) : c;
  };
  const toLowerChar = (c: number): number => {
    const u = fromCode(c).toLowerCase();
    return u.length === 1 || (u.length === 2 && c > 0xffff) ? (u.codePointAt(0) ?? c) : c;
  };
  const digit = (c: number, radix: number): number => {
    const d = DIGITS.indexOf(String.fromCharCode(c).toLowerCase());
    return d >= 0 && d < radix ? d : -1;
  };
  const forDigit = (d: number, radix: number): number =>
    d >= 0 && d < radix && radix >= 2 && radix <= 36 ? DIGITS.charCodeAt(d) : 0;

  // ---- arrays ----

  const aioobe = (i: number, n: number): never =>
    fail('ArrayIndexOutOfBoundsException', `Index ${i} out of bounds for length ${n}`);
  /** An array index checked against the array's length. */
  const ai = (a: { length: number } | null, i: number): number =>
    a === null ? npe() : i >= 0 && i < a.length ? i : aioobe(i, a.length);
  /** new T[n] for an element kind: typed arrays wrap on store as Java's narrowing does. */
  const newArray = (kind: string, dims: readonly number[], level = 0): unknown => {
    const n = dims[level]!;
    if (n < 0) return fail('NegativeArraySizeException', String(n));
    if (level < dims.length - 1) {
      const outer = new Array<unknown>(n);
      for (let i = 0; i < n; i++) outer[i] = newArray(kind, dims, level + 1);
      return outer;
    }
    return emptyArray(kind, n);
  };
  const emptyArray = (kind: string, n: number): unknown => {
    switch (kind) {
      case 'int':
        return new Int32Array(n);
      case 'long':
        return new BigInt64Array(n);
      case 'double':
        return new Float64Array(n);
      case 'float':
        return new Float32Array(n);
      case 'short':
        return new Int16Array(n);
      case 'byte':
        return new Int8Array(n);
      case 'char':
        return new Uint16Array(n);
      case 'boolean':
        return new Array<boolean>(n).fill(false);
      default:
        return new Array<unknown>(n).fill(null);
    }
  };
  const arrayOf = (kind: string, items: unknown[]): unknown => {
    const a = emptyArray(kind, items.length) as { [i: number]: unknown };
    for (let i = 0; i < items.length; i++) a[i] = items[i];
    return a;
  };
  /** Arrays.toString for a primitive array (element formatter by kind) or an Object[]. */
  const arrayText = (a: ArrayLike<unknown> | null, kind: string): string => {
    if (a === null) return 'null';
    const parts: string[] = [];
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      parts.push(
        kind === 'double'
          ? dstr(x as number)
          : kind === 'float'
            ? fstr(x as number)
            : kind === 'char'
              ? String.fromCharCode(x as number)
              : str(x),
      );
    }
    return `[${parts.join(', ')}]`;
  };

  // ---- StringBuilder ----

  class StringBuilder {
    s: string;
    constructor(init?: string) {
      this.s = init ?? '';
    }
    get $cls(): string {
      return 'java.lang.StringBuilder';
    }
    append(x: string): this {
      this.s += x;
      return this;
    }
    length(): number {
      return this.s.length;
    }
    charAt(i: number): number {
      return i >= 0 && i < this.s.length
        ? this.s.charCodeAt(i)
        : fail('StringIndexOutOfBoundsException', `index ${i},length ${this.s.length}`);
    }
    insert(i: number, x: string): this {
      if (i < 0 || i > this.s.length) fail('StringIndexOutOfBoundsException', `offset ${i}, length ${this.s.length}`);
      this.s = this.s.slice(0, i) + x + this.s.slice(i);
      return this;
    }
    reverse(): this {
      this.s = Array.from(this.s).reverse().join('');
      return this;
    }
    deleteCharAt(i: number): this {
      if (i < 0 || i >= this.s.length) fail('StringIndexOutOfBoundsException', `index ${i},length ${this.s.length}`);
      this.s = this.s.slice(0, i) + this.s.slice(i + 1);
      return this;
    }
    delete(a: number, b: number): this {
      const n = this.s.length;
      if (b > n) b = n;
      if (a < 0 || a > b) fail('StringIndexOutOfBoundsException', `start ${a}, end ${b}, length ${n}`);
      this.s = this.s.slice(0, a) + this.s.slice(b);
      return this;
    }
    replace(a: number, b: number, x: string): this {
      const n = this.s.length;
      if (a < 0 || a > n || a > b) fail('StringIndexOutOfBoundsException', `start ${a}, end ${b}, length ${n}`);
      this.s = this.s.slice(0, a) + x + this.s.slice(Math.min(b, n));
      return this;
    }
    setCharAt(i: number, c: number): void {
      if (i < 0 || i >= this.s.length) fail('StringIndexOutOfBoundsException', `index ${i},length ${this.s.length}`);
      this.s = this.s.slice(0, i) + String.fromCharCode(c) + this.s.slice(i + 1);
    }
    setLength(n: number): void {
      if (n < 0) fail('StringIndexOutOfBoundsException', `String index out of range: ${n}`);
      this.s = n <= this.s.length ? this.s.slice(0, n) : this.s + '\u0000'.repeat(n - this.s.length);
    }
    indexOf(x: string, from = 0): number {
      return this.s.indexOf(x, from);
    }
    lastIndexOf(x: string): number {
      return this.s.lastIndexOf(x);
    }
    substring(a: number, b: number = this.s.length): string {
      return substring(this.s, a, b);
    }
    isEmpty(): boolean {
      return this.s.length === 0;
    }
    toString(): string {
      return this.s;
    }
    equals(o: unknown): boolean {
      return this === o;
    }
    hashCode(): number {
      return identityHash(this);
    }
    compareTo(o: StringBuilder): number {
      return strCmp(this.s, nn(o).s);
    }
  }

  // ---- String.format ----

  /** The decimal digits of |x| rounded HALF_UP at `prec` fraction digits, from Java's shortest representation. */
  const fixedText = (x: number, prec: number): string => {
    const ax = Math.abs(x);
    if (ax === 0) return prec > 0 ? `0.${'0'.repeat(prec)}` : '0';
    const { digits, exp } = shortest(ax, false);
    // value = 0.d1d2... * 10^(exp+1)
    const pointPos = exp + 1;
    let intDigits: string;
    let fracDigits: string;
    if (pointPos <= 0) {
      intDigits = '0';
      fracDigits = '0'.repeat(-pointPos) + digits;
    } else if (pointPos >= digits.length) {
      intDigits = digits + '0'.repeat(pointPos - digits.length);
      fracDigits = '';
    } else {
      intDigits = digits.slice(0, pointPos);
      fracDigits = digits.slice(pointPos);
    }
    let all = intDigits + fracDigits.padEnd(prec, '0').slice(0, prec);
    const next = fracDigits.length > prec ? fracDigits.charCodeAt(prec) - 48 : 0;
    if (next >= 5) {
      // Add one unit in the last kept place.
      const arr = all.split('').map(Number);
      let k = arr.length - 1;
      while (k >= 0) {
        if (arr[k]! < 9) {
          arr[k]!++;
          break;
        }
        arr[k] = 0;
        k--;
      }
      all = (k < 0 ? '1' : '') + arr.join('');
    }
    const il = all.length - prec;
    const ip = all.slice(0, il).replace(/^0+(?=\d)/, '') || '0';
    return prec > 0 ? `${ip}.${all.slice(il)}` : ip;
  };
  const groupThousands = (intText: string): string => intText.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

  const format = (fmt: string, args: readonly unknown[]): string => {
    let out = '';
    let argi = 0;
    const re = /%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([a-zA-Z%])/g;
    let last = 0;
    let m: RegExpExecArray | null;
    // biome-ignore lint/suspicious/noAssignInExpressions: the usual exec loop
    while ((m = re.exec(fmt)) !== null) {
      out += checkLiteral(fmt.slice(last, m.index));
      last = re.lastIndex;
      const [spec, pos, flags = '', widthText, precText, conv] = m;
      const width = widthText === undefined ? -1 : Number(widthText);
      const prec = precText === undefined ? -1 : Number(precText.slice(1));
      if (conv === '%') {
        out += pad('%', width, flags);
        continue;
      }
      if (conv === 'n') {
        out += '\n';
        continue;
      }
      let arg: unknown;
      if (pos !== undefined) {
        const k = Number(pos.slice(0, -1)) - 1;
        if (k >= args.length) return fail('MissingFormatArgumentException', `Format specifier '${spec}'`);
        arg = args[k];
      } else {
        if (argi >= args.length) return fail('MissingFormatArgumentException', `Format specifier '${spec}'`);
        arg = args[argi++];
      }
      out += pad(convert(conv!, arg, flags, prec), width, flags);
    }
    return out + checkLiteral(fmt.slice(last));
  };
  const checkLiteral = (s: string): string => {
    const i = s.indexOf('%');
    if (i >= 0) {
      const c = s[i + 1];
      return fail('UnknownFormatConversionException', c === undefined ? "Conversion = '%'" : `Conversion = '${c}'`);
    }
    return s;
  };
  const pad = (s: string, width: number, flags: string): string => {
    if (width <= s.length) return s;
    if (flags.includes('-')) return s.padEnd(width, ' ');
    if (flags.includes('0')) {
      const sign = /^[+\- (]/.test(s) ? s[0]! : '';
      return sign + s.slice(sign.length).padStart(width - sign.length, '0');
    }
    return s.padStart(width, ' ');
  };
  const numericArg = (conv: string, arg: unknown): number | bigint => {
    if (typeof arg === 'number' || typeof arg === 'bigint') return arg;
    if (arg instanceof JShort || arg instanceof JByte) return arg.v;
    const big = arg as { $cls?: string; toBigInt?: () => bigint };
    if (big !== null && big.$cls === 'java.math.BigInteger' && big.toBigInt) return big.toBigInt();
    return fail('IllegalFormatConversionException', `${conv} != ${className(arg)}`);
  };
  const floatingArg = (conv: string, arg: unknown): number => {
    if (arg instanceof JDouble || arg instanceof JFloat) return arg.v;
    const dec = arg as { $cls?: string; doubleValue?: () => number };
    if (dec !== null && dec.$cls === 'java.math.BigDecimal' && dec.doubleValue) return dec.doubleValue();
    return fail('IllegalFormatConversionException', `${conv} != ${className(arg)}`);
  };
  const signed = (neg: boolean, body: string, flags: string): string => {
    if (neg) return flags.includes('(') ? `(${body})` : `-${body}`;
    if (flags.includes('+')) return `+${body}`;
    if (flags.includes(' ')) return ` ${body}`;
    return body;
  };
  const convert = (conv: string, arg: unknown, flags: string, prec: number): string => {
    const upper = conv === conv.toUpperCase() && conv !== conv.toLowerCase();
    const up = (s: string): string => (upper ? s.toUpperCase() : s);
    switch (conv.toLowerCase()) {
      case 's': {
        const s = str(arg);
        return up(prec >= 0 ? s.slice(0, prec) : s);
      }
      case 'b':
        return up(String(arg === null ? false : typeof arg === 'boolean' ? arg : true));
      case 'c': {
        if (arg === null) return up('null');
        const c =
          arg instanceof JChar
            ? arg.v
            : typeof arg === 'number'
              ? arg
              : fail('IllegalFormatConversionException', `c != ${className(arg)}`);
        return up(fromCode(c));
      }
      case 'd': {
        if (arg === null) return 'null';
        const v = numericArg(conv, arg);
        const neg = v < 0;
        let body = String(neg ? -BigInt(v) : v);
        if (flags.includes(',')) body = groupThousands(body);
        return signed(neg, body, flags);
      }
      case 'x':
      case 'o': {
        if (arg === null) return 'null';
        const v = numericArg(conv, arg);
        const bits = typeof arg === 'bigint' ? 64 : arg instanceof JShort ? 16 : arg instanceof JByte ? 8 : 32;
        const u =
          typeof v === 'bigint' && (arg as { $cls?: string }).$cls === 'java.math.BigInteger' ? v : uN(bits, BigInt(v));
        const body = u.toString(conv.toLowerCase() === 'x' ? 16 : 8);
        return up(flags.includes('#') ? (conv.toLowerCase() === 'x' ? '0x' : '0') + body : body);
      }
      case 'f': {
        if (arg === null) return 'null';
        const v = floatingArg(conv, arg);
        if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : signed(v < 0, 'Infinity', flags);
        let body = fixedText(v, prec < 0 ? 6 : prec);
        if (flags.includes(',')) {
          const dot = body.indexOf('.');
          body = dot < 0 ? groupThousands(body) : groupThousands(body.slice(0, dot)) + body.slice(dot);
        }
        return signed(v < 0 || Object.is(v, -0), body, flags);
      }
      case 'e': {
        if (arg === null) return 'null';
        const v = floatingArg(conv, arg);
        if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : signed(v < 0, 'Infinity', flags);
        const p = prec < 0 ? 6 : prec;
        const ax = Math.abs(v);
        let exp = ax === 0 ? 0 : shortest(ax, false).exp;
        let mant = fixedText(ax / 10 ** exp, p);
        if (mant.startsWith('10')) {
          exp++;
          mant = fixedText(ax / 10 ** exp, p);
        }
        const e = `e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
        return up(signed(v < 0, mant + e, flags));
      }
      case 'h':
        return up(arg === null ? 'null' : (hash(arg) >>> 0).toString(16));
      default:
        return fail('UnknownFormatConversionException', `Conversion = '${conv}'`);
    }
  };

  // ---- helpers the library's templates use ----

  const isNumber = (o: unknown): boolean =>
    typeof o === 'number' ||
    typeof o === 'bigint' ||
    o instanceof JDouble ||
    o instanceof JFloat ||
    o instanceof JShort ||
    o instanceof JByte ||
    ((o as { $cls?: string } | null)?.$cls ?? '').startsWith('java.math.Big');
  const numDouble = (o: unknown): number => {
    if (typeof o === 'number') return o;
    if (typeof o === 'bigint') return Number(o);
    const x = nn(o) as { v?: unknown; doubleValue?: () => number };
    if (typeof x.doubleValue === 'function') return x.doubleValue();
    return Number(x.v);
  };
  const numLong = (o: unknown): bigint => {
    if (typeof o === 'bigint') return o;
    if (typeof o === 'number') return BigInt(o);
    const x = nn(o) as { v?: unknown; longValue?: () => bigint };
    if (typeof x.longValue === 'function') return x.longValue();
    return d2l(Number(x.v));
  };
  const numInt = (o: unknown): number => {
    if (typeof o === 'number') return o;
    if (typeof o === 'bigint') return Number(BigInt.asIntN(32, o));
    const x = nn(o) as { v?: unknown; intValue?: () => number };
    if (typeof x.intValue === 'function') return x.intValue();
    return d2i(Number(x.v));
  };
  const isComparable = (o: unknown): boolean =>
    typeof o !== 'object' || (o !== null && typeof (o as { compareTo?: unknown }).compareTo === 'function');
  const sameBox = (a: unknown, b: unknown): boolean => {
    if (a === null || b === null) return a === b;
    if (typeof a === 'object')
      return (
        a === b ||
        ((a as { v: number }).v === (b as { v: number }).v &&
          (a as { v: number }).v >= -128 &&
          (a as { v: number }).v <= 127 &&
          !(a instanceof JChar && (a as { v: number }).v < 0))
      );
    return a === b && (a as number) >= -128 && (a as number) <= 127;
  };
  const unboxOr = (x: { v: number } | null, d: number): number => (x === null ? d : x.v);
  const strOrNull = (s: string | null): string => (s === null ? 'null' : s);
  const strOr = (o: unknown, d: string): string => (o === null ? d : str(o));
  const requireNonNull = <T>(o: T | null, msg: string | null): T =>
    o === null ? fail('NullPointerException', msg) : o;
  const requireNonNullElse = <T>(o: T | null, d: T | null): T =>
    o !== null ? o : d === null ? fail('NullPointerException', 'defaultObj') : d;
  const charsToString = (a: Uint16Array | null, off: number, n: number): string => {
    const arr = nn(a);
    if (off < 0 || n < 0 || off + n > arr.length)
      fail('StringIndexOutOfBoundsException', `offset ${off}, count ${n}, length ${arr.length}`);
    return String.fromCharCode(...arr.subarray(off, off + n));
  };
  const toCharArray = (s: string): Uint16Array => {
    const a = new Uint16Array(s.length);
    for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i);
    return a;
  };
  const codePointAt = (s: string, i: number): number =>
    i >= 0 && i < s.length
      ? (s.codePointAt(i) as number)
      : fail('StringIndexOutOfBoundsException', `index ${i}, length ${s.length}`);
  const codePointCount = (s: string, a: number, b: number): number => Array.from(substring(s, a, b)).length;
  const sbWithCapacity = (n: number): StringBuilder =>
    n < 0 ? fail('NegativeArraySizeException', String(n)) : new StringBuilder();
  const bitCount = (x: number): number => {
    x = x - ((x >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 63;
  };
  const lbitCount = (x: bigint): number =>
    bitCount(Number(BigInt.asIntN(32, x))) + bitCount(Number(BigInt.asIntN(32, x >> 32n)));
  const reverseBits = (x: number): number => {
    let r = 0;
    for (let i = 0; i < 32; i++) r = (r << 1) | ((x >>> i) & 1);
    return r | 0;
  };
  const lclz = (x: bigint): number => {
    const u = u64(x);
    return u === 0n ? 64 : 64 - u.toString(2).length;
  };
  const lctz = (x: bigint): number => {
    const u = u64(x);
    if (u === 0n) return 64;
    let n = 0;
    let v = u;
    while ((v & 1n) === 0n) {
      v >>= 1n;
      n++;
    }
    return n;
  };
  const parseUnsignedInt = (s: string | null): number => {
    const v = parseIntegral(s, 10, 64);
    if (v < 0n || v > 4294967295n || s?.startsWith('-'))
      return fail('NumberFormatException', `String value ${s} exceeds range of unsigned int.`);
    return Number(BigInt.asIntN(32, v));
  };
  const idivu = (a: number, b: number): number =>
    b === 0 ? fail('ArithmeticException', '/ by zero') : ((a >>> 0) / (b >>> 0)) | 0;
  const lmax = (a: bigint, b: bigint): bigint => (a >= b ? a : b);
  const lmin = (a: bigint, b: bigint): bigint => (a <= b ? a : b);
  const labs = (a: bigint): bigint => BigInt.asIntN(64, a < 0n ? -a : a);
  const doubleBits = (x: number): bigint => {
    f64[0] = Number.isNaN(x) ? Number.NaN : x;
    return (BigInt(i32of64[1]!) << 32n) | BigInt(i32of64[0]! >>> 0);
  };
  const bitsDouble = (b: bigint): number => {
    i32of64[0] = Number(BigInt.asIntN(32, b));
    i32of64[1] = Number(BigInt.asIntN(32, b >> 32n));
    return f64[0]!;
  };
  const bitsFloat = (b: number): number => {
    i32of32[0] = b;
    return f32[0]!;
  };
  const copySign = (m: number, s: number): number => (Object.is(s, -0) || s < 0 ? -Math.abs(m) : Math.abs(m));
  const toIntExact = (v: bigint): bigint => (BigInt.asIntN(32, v) !== v ? overflow(false) : v);
  const intoArray = (items: unknown[], target: unknown[] | null): unknown[] => {
    const t = nn(target);
    if (t.length >= items.length) {
      for (let i = 0; i < items.length; i++) t[i] = items[i];
      if (t.length > items.length) t[items.length] = null;
      return t;
    }
    return items;
  };
  const sortDoubles = (a: Float64Array | Float32Array | null): void => {
    nn(a).sort((x, y) => dcmp(x, y));
  };
  const arrayEquals = (a: ArrayLike<unknown> | null, b: ArrayLike<unknown> | null): boolean => {
    if (a === b) return true;
    if (a === null || b === null || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      const y = b[i];
      if (typeof x === 'number' && typeof y === 'number' ? dcmp(x, y) !== 0 : !oeq(x, y)) return false;
    }
    return true;
  };
  const arrayHash = (a: ArrayLike<unknown> | null): number => {
    if (a === null) return 0;
    let h = 1;
    const isDouble = a instanceof Float64Array;
    const isFloat = a instanceof Float32Array;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      const eh = isDouble ? doubleHash(x as number) : isFloat ? floatBits(x as number) : ohash(x);
      h = (Math.imul(31, h) + eh) | 0;
    }
    return h;
  };
  const copyOf = <A extends { length: number; slice(a?: number, b?: number): A }>(a: A | null, n: number): A => {
    const src = nn(a);
    if (n < 0) fail('NegativeArraySizeException', String(n));
    if (n <= src.length) return src.slice(0, n);
    const out = (
      Array.isArray(src)
        ? new Array(n).fill(src.length > 0 && typeof src[0] === 'boolean' ? false : null)
        : new (src.constructor as new (n: number) => A)(n)
    ) as A & { [i: number]: unknown };
    for (let i = 0; i < src.length; i++) out[i] = (src as unknown as ArrayLike<unknown>)[i];
    return out;
  };
  const copyOfRange = <A extends { length: number; slice(a?: number, b?: number): A }>(
    a: A | null,
    from: number,
    to: number,
  ): A => {
    const src = nn(a);
    if (from > to) fail('IllegalArgumentException', `${from} > ${to}`);
    if (from < 0 || from > src.length) aioobe(from, src.length);
    const head = copyOf(src.slice(from), to - from);
    return head;
  };
  const isArrayOf = (o: unknown, kind: string): boolean => {
    switch (kind) {
      case 'int':
        return o instanceof Int32Array;
      case 'long':
        return o instanceof BigInt64Array;
      case 'double':
        return o instanceof Float64Array;
      case 'float':
        return o instanceof Float32Array;
      case 'short':
        return o instanceof Int16Array;
      case 'byte':
        return o instanceof Int8Array;
      case 'char':
        return o instanceof Uint16Array;
      default:
        return Array.isArray(o);
    }
  };
  const isSpaceChar = (c: number): boolean => /\p{Z}/u.test(fromCode(c));

  g.$jl = {
    JDouble,
    JFloat,
    JShort,
    JByte,
    JChar,
    StringBuilder,
    D: (v: number) => new JDouble(v),
    F: (v: number) => new JFloat(v),
    S: (v: number) => new JShort(v),
    B: (v: number) => new JByte(v),
    C: (v: number) => new JChar(v),
    fail,
    npe,
    nn,
    dstr,
    fstr,
    dcmp,
    str,
    strHash,
    hash,
    ohash,
    eq,
    oeq,
    cmp,
    strCmp,
    className,
    castFail,
    identityHash,
    floatBits,
    doubleHash,
    longHash,
    idiv,
    imod,
    ldiv,
    lmod,
    d2i,
    d2l,
    l2f,
    iexact,
    lexact,
    imulExact,
    floorDivI,
    floorModI,
    floorDivL,
    floorModL,
    roundD,
    roundF,
    rint,
    parseInt32,
    parseInt64,
    parseShort,
    parseByte,
    parseDouble,
    parseFloat32,
    parseBool,
    intToString,
    unsignedText,
    trim,
    charAt,
    substring,
    fromCode,
    indexOfChar,
    lastIndexOfChar,
    repeat,
    equalsIgnoreCase,
    compareIgnoreCase,
    split,
    replaceAll,
    replaceFirst,
    matches,
    replaceLiteral,
    join,
    encodeUtf8,
    decodeUtf8,
    isDigit,
    isLetter,
    isWhitespace,
    isUpper,
    isLower,
    toUpperChar,
    toLowerChar,
    digit,
    forDigit,
    ai,
    aioobe,
    newArray,
    arrayOf,
    arrayText,
    format,
    pow: Math.pow,
    u64,
    uN,
    isNumber,
    numDouble,
    numLong,
    numInt,
    isComparable,
    sameBox,
    unboxOr,
    strOrNull,
    strOr,
    requireNonNull,
    requireNonNullElse,
    charsToString,
    toCharArray,
    codePointAt,
    codePointCount,
    sbWithCapacity,
    bitCount,
    lbitCount,
    reverseBits,
    lclz,
    lctz,
    parseUnsignedInt,
    idivu,
    lmax,
    lmin,
    labs,
    doubleBits,
    bitsDouble,
    bitsFloat,
    copySign,
    toIntExact,
    intoArray,
    sortDoubles,
    arrayEquals,
    arrayHash,
    copyOf,
    copyOfRange,
    isArrayOf,
    isSpaceChar,
  };
}
