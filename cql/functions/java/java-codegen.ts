// The JS for Java's value operations once the checker has decided the types: primitive conversions (JLS 5.1),
// boxing and unboxing, string conversion, and arithmetic with Java's 32/64-bit overflow, integer division and
// float rounding. int/short/byte/char are JS numbers (int32), long is a bigint, float a number kept at float precision.
import { BOX, isPrim, type JType, type PrimName, unboxedName } from './java-types.js';

const INTLIKE = new Set<PrimName>(['byte', 'short', 'char', 'int']);

/** A primitive value of type `from` as type `to` (widening or narrowing, as a cast does). */
export function convertPrim(js: string, from: PrimName, to: PrimName): string {
  if (from === to) return js;
  if (from === 'boolean' || to === 'boolean') throw new Error(`no conversion ${from} -> ${to}`);
  if (INTLIKE.has(from)) {
    switch (to) {
      case 'int':
        return js;
      case 'long':
        return `BigInt(${js})`;
      case 'float':
        return from === 'int' ? `Math.fround(${js})` : js;
      case 'double':
        return js;
      default:
        return narrowInt(js, to);
    }
  }
  if (from === 'long') {
    switch (to) {
      case 'float':
        return `$jl.l2f(${js})`;
      case 'double':
        return `Number(${js})`;
      case 'int':
        return `Number(BigInt.asIntN(32, ${js}))`;
      default:
        return narrowInt(`Number(BigInt.asIntN(32, ${js}))`, to);
    }
  }
  // float / double
  switch (to) {
    case 'double':
      return js;
    case 'float':
      return `Math.fround(${js})`;
    case 'long':
      return `$jl.d2l(${js})`;
    case 'int':
      return `$jl.d2i(${js})`;
    default:
      return narrowInt(`$jl.d2i(${js})`, to);
  }
}

function narrowInt(js: string, to: PrimName): string {
  if (to === 'byte') return `((${js} << 24) >> 24)`;
  if (to === 'short') return `((${js} << 16) >> 16)`;
  if (to === 'char') return `(${js} & 65535)`;
  return js;
}

/** Boxing conversion of a primitive value (Integer, Long, Boolean are their JS primitive). */
export function box(js: string, p: PrimName): string {
  switch (p) {
    case 'double':
      return `$jl.D(${js})`;
    case 'float':
      return `$jl.F(${js})`;
    case 'short':
      return `$jl.S(${js})`;
    case 'byte':
      return `$jl.B(${js})`;
    case 'char':
      return `$jl.C(${js})`;
    default:
      return js;
  }
}

/** Unboxing conversion (NullPointerException on null), `nonNull` when the value cannot be null. */
export function unbox(js: string, boxClass: string, nonNull = false): string {
  const p = unboxedName({ k: 'class', name: boxClass, args: [] });
  const checked = nonNull ? js : `$jl.nn(${js})`;
  if (p === 'int' || p === 'long' || p === 'boolean') return checked;
  return `${checked}.v`;
}

/** Java's string conversion (JLS 5.1.11) of a value of static type `t`. */
export function stringOf(js: string, t: JType): string {
  if (isPrim(t)) {
    switch (t.name) {
      case 'double':
        return `$jl.dstr(${js})`;
      case 'float':
        return `$jl.fstr(${js})`;
      case 'char':
        return `String.fromCharCode(${js})`;
      default:
        return `(""+${js})`;
    }
  }
  if (t.k === 'class' && t.name === 'String') return `$jl.strOrNull(${js})`;
  if (t.k === 'null') return '"null"';
  return `$jl.str(${js})`;
}

/** Binary arithmetic/bitwise operator on operands already promoted to `p` (`op` one of + - * / % & | ^). */
export function arithmetic(op: string, a: string, b: string, p: PrimName): string {
  if (p === 'boolean') {
    if (op === '&') return `(${a} & ${b} ? true : false)`;
    if (op === '|') return `(${a} | ${b} ? true : false)`;
    return `(${a} !== ${b})`;
  }
  if (p === 'int') {
    switch (op) {
      case '+':
        return `((${a} + ${b}) | 0)`;
      case '-':
        return `((${a} - ${b}) | 0)`;
      case '*':
        return `Math.imul(${a}, ${b})`;
      case '/':
        return `$jl.idiv(${a}, ${b})`;
      case '%':
        return `$jl.imod(${a}, ${b})`;
      default:
        return `(${a} ${op} ${b})`;
    }
  }
  if (p === 'long') {
    switch (op) {
      case '+':
      case '-':
      case '*':
        return `BigInt.asIntN(64, ${a} ${op} ${b})`;
      case '/':
        return `$jl.ldiv(${a}, ${b})`;
      case '%':
        return `$jl.lmod(${a}, ${b})`;
      default:
        return `(${a} ${op} ${b})`;
    }
  }
  const raw = op === '%' ? `(${a} % ${b})` : `(${a} ${op} ${b})`;
  return p === 'float' ? `Math.fround${raw}` : raw;
}

/** Shift of a promoted left operand (int or long) by a count of type int or long. */
export function shift(op: string, a: string, p: PrimName, count: string, countType: PrimName): string {
  if (p === 'int') {
    const n = countType === 'long' ? `Number(${count} & 31n)` : count;
    return op === '>>>' ? `((${a} >>> ${n}) | 0)` : `(${a} ${op} ${n})`;
  }
  const n = countType === 'long' ? `(${count} & 63n)` : `BigInt(${count} & 63)`;
  if (op === '<<') return `BigInt.asIntN(64, ${a} << ${n})`;
  if (op === '>>') return `(${a} >> ${n})`;
  return `BigInt.asIntN(64, $jl.u64(${a}) >> ${n})`;
}

/** The JS literal of a Java primitive constant. */
export function literalJs(value: number | bigint | boolean, p: PrimName): string {
  if (p === 'long') return `${value}n`;
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '(-Infinity)';
    if (Object.is(value, -0)) return '(-0)';
    return value < 0 ? `(${value})` : String(value);
  }
  return String(value);
}

/** Default value of a local of type `t` (locals are always initialized in JS; Java checks definite assignment). */
export function defaultValue(t: JType): string {
  if (!isPrim(t)) return 'null';
  if (t.name === 'boolean') return 'false';
  if (t.name === 'long') return '0n';
  return '0';
}

export { BOX };
