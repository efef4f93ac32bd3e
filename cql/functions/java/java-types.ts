// Java's static types as the checker sees them: primitives, parameterized classes, arrays, null; with the
// conversions of JLS 5 (widening, boxing, unboxing, narrowing of constants) and the names ECJ prints in problems.

export type PrimName = 'boolean' | 'byte' | 'short' | 'char' | 'int' | 'long' | 'float' | 'double';

export type JType =
  | { readonly k: 'prim'; readonly name: PrimName }
  | { readonly k: 'class'; readonly name: string; readonly args: readonly JType[] }
  | { readonly k: 'array'; readonly elem: JType }
  /** A type variable; `?` is a wildcard, whose `bound` (`? extends X`) is what reading an element gives. */
  | { readonly k: 'tvar'; readonly name: string; readonly bound?: JType }
  | { readonly k: 'null' }
  | { readonly k: 'void' }
  /** The type of an expression whose problem was already reported: accepted everywhere, reported nowhere. */
  | { readonly k: 'error' };

const prims = new Map<PrimName, JType>();
export function prim(name: PrimName): JType {
  let t = prims.get(name);
  if (!t) {
    t = { k: 'prim', name };
    prims.set(name, t);
  }
  return t;
}

export const T_BOOLEAN = prim('boolean');
export const T_BYTE = prim('byte');
export const T_SHORT = prim('short');
export const T_CHAR = prim('char');
export const T_INT = prim('int');
export const T_LONG = prim('long');
export const T_FLOAT = prim('float');
export const T_DOUBLE = prim('double');
export const T_NULL: JType = { k: 'null' };
export const T_VOID: JType = { k: 'void' };
export const T_ERROR: JType = { k: 'error' };

export function cls(name: string, ...args: JType[]): JType {
  return { k: 'class', name, args };
}

export const T_OBJECT = cls('Object');
export const T_STRING = cls('String');

export const BOX: Readonly<Record<PrimName, string>> = {
  boolean: 'Boolean',
  byte: 'Byte',
  short: 'Short',
  char: 'Character',
  int: 'Integer',
  long: 'Long',
  float: 'Float',
  double: 'Double',
};
const UNBOX = new Map<string, PrimName>(Object.entries(BOX).map(([p, b]) => [b, p as PrimName]));

export function isPrim(t: JType, name?: PrimName): t is { k: 'prim'; name: PrimName } {
  return t.k === 'prim' && (name === undefined || t.name === name);
}

export function isClass(t: JType, name?: string): t is { k: 'class'; name: string; args: readonly JType[] } {
  return t.k === 'class' && (name === undefined || t.name === name);
}

export function isReference(t: JType): boolean {
  return t.k === 'class' || t.k === 'array' || t.k === 'null' || t.k === 'tvar';
}

export function boxed(t: JType): JType {
  return t.k === 'prim' ? cls(BOX[t.name]) : t;
}

/** The primitive a boxed class unboxes to, if it is one. */
export function unboxedName(t: JType): PrimName | undefined {
  return t.k === 'class' ? UNBOX.get(t.name) : undefined;
}

/** The primitive type of `t` after unboxing, if any. */
export function unboxedType(t: JType): JType | undefined {
  if (t.k === 'prim') return t;
  const n = unboxedName(t);
  return n ? prim(n) : undefined;
}

export function isNumericPrim(t: JType): boolean {
  return t.k === 'prim' && t.name !== 'boolean';
}

export function isIntegralPrim(t: JType): boolean {
  return (
    t.k === 'prim' &&
    (t.name === 'byte' || t.name === 'short' || t.name === 'char' || t.name === 'int' || t.name === 'long')
  );
}

const RANK: Readonly<Record<PrimName, number>> = {
  boolean: -1,
  byte: 1,
  short: 2,
  char: 2,
  int: 3,
  long: 4,
  float: 5,
  double: 6,
};

/** JLS 5.1.2: widening primitive conversion (or identity). */
export function primWidens(from: PrimName, to: PrimName): boolean {
  if (from === to) return true;
  if (from === 'boolean' || to === 'boolean') return false;
  if (to === 'char') return false;
  if (from === 'char') return RANK[to] >= 3;
  if (from === 'byte' && to === 'short') return true;
  return RANK[from] < RANK[to] && RANK[to] >= 3;
}

/** Binary numeric promotion (JLS 5.6.2) of two primitive numeric types. */
export function promote(a: PrimName, b: PrimName): PrimName {
  if (a === 'double' || b === 'double') return 'double';
  if (a === 'float' || b === 'float') return 'float';
  if (a === 'long' || b === 'long') return 'long';
  return 'int';
}

/** Unary numeric promotion. */
export function promoteUnary(a: PrimName): PrimName {
  return a === 'byte' || a === 'short' || a === 'char' ? 'int' : a;
}

export function sameType(a: JType, b: JType): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'prim':
      return a.name === (b as typeof a).name;
    case 'class': {
      const bc = b as typeof a;
      return a.name === bc.name && a.args.length === bc.args.length && a.args.every((x, i) => sameType(x, bc.args[i]!));
    }
    case 'array':
      return sameType(a.elem, (b as typeof a).elem);
    case 'tvar':
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}

/** How ECJ prints a type in problems: simple names, type arguments after the name. */
export function typeName(t: JType): string {
  switch (t.k) {
    case 'prim':
      return t.name;
    case 'class':
      return t.args.length === 0 ? t.name : `${t.name}<${t.args.map(typeName).join(',')}>`;
    case 'array':
      return `${typeName(t.elem)}[]`;
    case 'tvar':
      return t.name;
    case 'null':
      return 'null';
    case 'void':
      return 'void';
    case 'error':
      return '<error>';
  }
}

/** Substitutes type variables. */
export function substitute(t: JType, env: ReadonlyMap<string, JType>): JType {
  switch (t.k) {
    case 'tvar':
      return env.get(t.name) ?? t;
    case 'class':
      return t.args.length === 0 ? t : { k: 'class', name: t.name, args: t.args.map((a) => substitute(a, env)) };
    case 'array':
      return { k: 'array', elem: substitute(t.elem, env) };
    default:
      return t;
  }
}

export function containsTypeVar(t: JType): boolean {
  if (t.k === 'tvar') return true;
  if (t.k === 'class') return t.args.some(containsTypeVar);
  if (t.k === 'array') return containsTypeVar(t.elem);
  return false;
}
