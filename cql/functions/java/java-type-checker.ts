// Type checking of a parsed Java UDF body, producing its JS as it goes: every expression gets its Java static type
// (which decides the arithmetic, conversions, overloads and string formatting of the JS emitted for it), every
// problem is reported with ECJ's wording, and what Cassandra's byte-code verifier refuses is collected apart.
// User identifiers become `v$name` locals; member access is only ever to members resolved in the library.
import type { Block, Expr, Stmt, TypeNode } from './java-ast.js';
import { arithmetic, box, convertPrim, defaultValue, literalJs, shift, stringOf, unbox } from './java-codegen.js';
import { type EmitContext, type LibClass, type LibField, type LibMethod, lookupClass } from './java-library.js';
import { dottedName } from './java-parser.js';
import type { ProblemList } from './java-problems.js';
import {
  BOX,
  boxed,
  cls,
  isClass,
  isIntegralPrim,
  isNumericPrim,
  isPrim,
  isReference,
  type JType,
  type PrimName,
  prim,
  primWidens,
  promote,
  promoteUnary,
  sameType,
  substitute,
  T_BOOLEAN,
  T_CHAR,
  T_DOUBLE,
  T_ERROR,
  T_FLOAT,
  T_INT,
  T_LONG,
  T_NULL,
  T_OBJECT,
  T_STRING,
  T_VOID,
  typeName,
  unboxedName,
  unboxedType,
} from './java-types.js';

interface TExpr {
  readonly t: JType;
  readonly js: string;
  readonly constant?: number | bigint | string | boolean;
  /** The expression's value cannot be null (literals, `new`, concatenations). */
  readonly nonNull?: boolean;
  /** `new X<>(...)` whose type arguments nothing decided: it takes those of whatever it is assigned to. */
  readonly diamond?: boolean;
  /** A local variable reference (assignable). */
  readonly local?: Local;
}

interface Local {
  readonly name: string;
  readonly type: JType;
  readonly js: string;
  readonly final: boolean;
  readonly hasInit: boolean;
  /** Assigned somewhere before (in source order): reads of a local neither initialized nor assigned are refused. */
  assigned: boolean;
}

/** Names the sandbox cannot reach at all: as in Cassandra without UDF threads, they "cannot be resolved". */
const DENIED_CLASSES = new Set([
  'System',
  'Runtime',
  'Thread',
  'ThreadGroup',
  'ThreadLocal',
  'InheritableThreadLocal',
  'Process',
  'ProcessBuilder',
  'ProcessEnvironment',
  'Compiler',
  'Package',
  'Runnable',
  'Shutdown',
  'ServiceLoader',
  'Timer',
]);

/** Real java.lang/java.util names this compiler does not implement: refused saying so. */
const UNSUPPORTED_CLASSES = new Set([
  'Random',
  'Optional',
  'OptionalInt',
  'StringJoiner',
  'Scanner',
  'Locale',
  'BitSet',
  'Vector',
  'Stack',
  'Hashtable',
  'Properties',
  'ArrayDeque',
  'PriorityQueue',
  'EnumMap',
  'EnumSet',
  'IdentityHashMap',
  'WeakHashMap',
  'Deque',
  'Queue',
  'ListIterator',
  'Enumeration',
  'Base64',
  'Currency',
  'TimeZone',
  'GregorianCalendar',
  'Formatter',
  'StringTokenizer',
  'Enum',
  'Iterable',
  'ClassLoader',
  'Character.UnicodeBlock',
  'Void',
]);

/** Calls Cassandra's byte-code verifier refuses: qualified class → method names. */
const VERIFIER_DENIED: Readonly<Record<string, readonly string[]>> = {
  'java.lang.Class': ['forName', 'getClassLoader', 'getResource', 'getResourceAsStream'],
  'java.nio.ByteBuffer': ['allocateDirect'],
  'java.net.InetAddress': [
    'getByAddress',
    'getAllByName',
    'getByName',
    'getLocalHost',
    'getHostName',
    'getCanonicalHostName',
    'isReachable',
  ],
  'java.net.Inet4Address': [
    'getByAddress',
    'getAllByName',
    'getByName',
    'getLocalHost',
    'getHostName',
    'getCanonicalHostName',
    'isReachable',
  ],
  'java.net.Inet6Address': [
    'getByAddress',
    'getAllByName',
    'getByName',
    'getLocalHost',
    'getHostName',
    'getCanonicalHostName',
    'isReachable',
  ],
};
const OBJECT_DENIED = new Set(['clone', 'finalize', 'notify', 'notifyAll', 'wait']);

type Resolved =
  | { readonly kind: 'value'; readonly e: TExpr }
  | { readonly kind: 'type'; readonly c: LibClass }
  | { readonly kind: 'package'; readonly path: string };

/** Thrown to abandon an expression whose problem has been reported. */
class Reported extends Error {}

export interface CheckedBody {
  readonly js: string;
  readonly verifierFindings: ReadonlySet<string>;
}

export interface BodyInput {
  readonly params: readonly { readonly name: string; readonly type: JType }[];
  readonly returnType: JType;
  readonly statements: readonly Stmt[];
  readonly emit: EmitContext & { setLine(line: number): void };
  /** The generated class's name, as ECJ names it in "undefined for the type" problems. */
  readonly className: string;
}

export function checkBody(input: BodyInput, problems: ProblemList): CheckedBody & { completesNormally: boolean } {
  const c = new Checker(input, problems);
  return c.run();
}

class Checker {
  private readonly scopes: Map<string, Local>[] = [];
  private tempCount = 0;
  private readonly findings = new Set<string>();
  /** Checked exception types caught by the enclosing try blocks (innermost last). */
  private readonly catching: JType[][] = [];
  private readonly labels: { name: string | null; loop: boolean; switch: boolean }[] = [];

  constructor(
    private readonly input: BodyInput,
    private readonly problems: ProblemList,
  ) {}

  run(): CheckedBody & { completesNormally: boolean } {
    const top = new Map<string, Local>();
    for (const p of this.input.params)
      top.set(p.name, { name: p.name, type: p.type, js: mangle(p.name), final: false, hasInit: true, assigned: true });
    this.scopes.push(top);
    const { js, completes } = this.statements(this.input.statements);
    const temps =
      this.tempCount > 0 ? `let ${Array.from({ length: this.tempCount }, (_, i) => `$t${i}`).join(', ')};\n` : '';
    return { js: temps + js, verifierFindings: this.findings, completesNormally: completes };
  }

  // ---- problems ----

  private problem(line: number, message: string): never {
    this.problems.report(line, message);
    throw new Reported();
  }

  private report(line: number, message: string): void {
    this.problems.report(line, message);
  }

  private temp(): string {
    return `$t${this.tempCount++}`;
  }

  // ---- scopes ----

  private lookupLocal(name: string): Local | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const l = this.scopes[i]!.get(name);
      if (l) return l;
    }
    return undefined;
  }

  private declare(line: number, name: string, type: JType, final: boolean, hasInit: boolean): Local {
    if (this.lookupLocal(name)) this.report(line, `Duplicate local variable ${name}`);
    const local: Local = { name, type, js: mangle(name), final, hasInit, assigned: hasInit };
    this.scopes[this.scopes.length - 1]!.set(name, local);
    return local;
  }

  private scoped<T>(f: () => T): T {
    this.scopes.push(new Map());
    try {
      return f();
    } finally {
      this.scopes.pop();
    }
  }

  // ---- types ----

  resolveType(node: TypeNode, allowDiamond = false): JType {
    let base: JType;
    const prims = ['boolean', 'byte', 'short', 'char', 'int', 'long', 'float', 'double'];
    if (prims.includes(node.name)) base = prim(node.name as PrimName);
    else {
      const c = this.classByName(node.line, node.name, true);
      let args: JType[] = [];
      if (node.args !== null) {
        args = node.args.map((a) => {
          if (a.kind === 'wildcard')
            return a.bound
              ? ({ k: 'tvar', name: '?', bound: this.resolveType(a.bound) } as JType)
              : ({ k: 'tvar', name: '?' } as JType);
          return this.resolveType(a);
        });
        if (args.length !== c.tparams.length) {
          const shown = `${node.name}<${args.map(typeName).join(',')}>`;
          if (c.tparams.length === 0)
            this.problem(
              node.line,
              `The type ${c.name} is not generic; it cannot be parameterized with arguments <${args.map(typeName).join(', ')}>`,
            );
          this.problem(
            node.line,
            `Incorrect number of arguments for type ${c.name}; it cannot be parameterized with arguments <${shown.slice(node.name.length + 1, -1)}>`,
          );
        }
      }
      if (node.diamond && !allowDiamond) this.problem(node.line, `Syntax error on token "<", invalid diamond`);
      base = { k: 'class', name: c.name, args };
    }
    for (let i = 0; i < node.dims; i++) base = { k: 'array', elem: base };
    return base;
  }

  /** The library class for a name used as a type, or a reported problem. */
  private classByName(line: number, name: string, asType: boolean): LibClass {
    const c = lookupClass(name);
    if (c) return c;
    const denied =
      DENIED_CLASSES.has(name) ||
      /^java\.lang\.(System|Runtime|Thread|ThreadGroup|ThreadLocal|Process|ProcessBuilder|Runnable|Compiler|Package)$/.test(
        name,
      );
    if (!denied && (UNSUPPORTED_CLASSES.has(name) || /^java\.(util|lang|math|text|time)\.[A-Z]/.test(name)))
      this.problem(line, `${name} is not supported in Java UDFs by this server`);
    return this.problem(line, asType ? `${name} cannot be resolved to a type` : `${name} cannot be resolved`);
  }

  /** `sub` as an instance of `superName` (with its type arguments), if it is one. */
  private asSuper(sub: JType, superName: string): JType | null {
    if (sub.k !== 'class') return null;
    if (sub.name === superName) return sub;
    const c = lookupClassByName(sub.name);
    if (!c) return null;
    const env = new Map<string, JType>();
    c.tparams.forEach((p, i) => {
      env.set(p, sub.args[i] ?? T_OBJECT);
    });
    for (const s of c.supers) {
      const found = this.asSuper(substitute(s, env), superName);
      if (found) return found;
    }
    return null;
  }

  private isSubtype(s: JType, t: JType): boolean {
    if (s.k === 'error' || t.k === 'error') return true;
    if (sameType(s, t)) return true;
    if (s.k === 'null') return isReference(t);
    if (t.k === 'tvar') return isReference(s);
    if (s.k === 'tvar') return isClass(t, 'Object');
    if (s.k === 'array') {
      if (t.k === 'class') return t.name === 'Object';
      if (t.k !== 'array') return false;
      if (isPrim(s.elem) || isPrim(t.elem)) return sameType(s.elem, t.elem);
      return this.isSubtype(s.elem, t.elem);
    }
    if (s.k !== 'class' || t.k !== 'class') return false;
    const up = this.asSuper(s, t.name);
    if (up?.k !== 'class') return false;
    if (t.args.length === 0 || up.args.length === 0) return true;
    return up.args.every((a, i) => typeArgContains(t.args[i]!, a));
  }

  /** Assignment (or, with `loose` false, strict invocation) conversion of `e` to `to`, or null if none applies. */
  private convert(e: TExpr, to: JType, loose = true, allowConstantNarrowing = true): string | null {
    const from = e.t;
    if (from.k === 'error' || to.k === 'error') return e.js;
    if (to.k === 'prim') {
      if (from.k === 'prim') {
        if (primWidens(from.name, to.name)) return convertPrim(e.js, from.name, to.name);
        if (
          allowConstantNarrowing &&
          typeof e.constant === 'number' &&
          (from.name === 'int' || from.name === 'short' || from.name === 'char' || from.name === 'byte') &&
          fitsIn(e.constant, to.name)
        )
          return literalJs(e.constant, to.name);
        return null;
      }
      if (!loose) return null;
      const u = unboxedName(from);
      if (u && primWidens(u, to.name)) return convertPrim(unbox(e.js, BOX[u], e.nonNull), u, to.name);
      return null;
    }
    if (to.k === 'void') return null;
    if (from.k === 'prim') {
      if (!loose && !(allowConstantNarrowing && to.k === 'class' && unboxedName(to))) return null;
      const target = unboxedName(to);
      if (target) {
        if (target === from.name) return box(e.js, target);
        if (
          allowConstantNarrowing &&
          typeof e.constant === 'number' &&
          from.name === 'int' &&
          (target === 'byte' || target === 'short' || target === 'char') &&
          fitsIn(e.constant, target)
        )
          return box(literalJs(e.constant, target), target);
        return null;
      }
      if (!loose) return null;
      const b = boxed(from);
      return this.isSubtype(b, to) ? box(e.js, from.name) : null;
    }
    if (
      e.diamond &&
      from.k === 'class' &&
      to.k === 'class' &&
      this.asSuper({ k: 'class', name: from.name, args: [] }, to.name)
    )
      return e.js;
    return this.isSubtype(from, to) ? e.js : null;
  }

  private coerce(line: number, e: TExpr, to: JType): string {
    const js = this.convert(e, to);
    if (js !== null) return js;
    return this.problem(line, `Type mismatch: cannot convert from ${typeName(e.t)} to ${typeName(to)}`);
  }

  // ---- statements ----

  private statements(list: readonly Stmt[]): { js: string; completes: boolean } {
    const out: string[] = [];
    let completes = true;
    let reportedUnreachable = false;
    for (const s of list) {
      if (!completes && !reportedUnreachable) {
        this.report(s.line, 'Unreachable code');
        reportedUnreachable = true;
      }
      try {
        const r = this.statement(s);
        out.push(r.js);
        if (!r.completes) completes = false;
      } catch (e) {
        if (!(e instanceof Reported)) throw e;
      }
    }
    return { js: out.join('\n'), completes };
  }

  private block(b: Block): { js: string; completes: boolean } {
    return this.scoped(() => {
      const r = this.statements(b.body);
      return { js: `{\n${r.js}\n}`, completes: r.completes };
    });
  }

  /** A statement in its own scope (loop and if bodies). */
  private nested(s: Stmt): { js: string; completes: boolean } {
    return this.scoped(() => {
      try {
        return this.statement(s);
      } catch (e) {
        if (!(e instanceof Reported)) throw e;
        return { js: '', completes: true };
      }
    });
  }

  private statement(s: Stmt): { js: string; completes: boolean; breaks?: boolean } {
    this.input.emit.setLine(s.line);
    switch (s.kind) {
      case 'block':
        return this.block(s);
      case 'local':
        return { js: this.localDecl(s), completes: true };
      case 'expr': {
        const e = this.expr(s.expr, true);
        return { js: `${e.js};`, completes: true };
      }
      case 'empty':
        return { js: ';', completes: true };
      case 'if': {
        const cond = this.condition(s.cond);
        const then = this.nested(s.then);
        if (s.else === null) return { js: `if (${cond}) ${wrap(then.js)}`, completes: true };
        const other = this.nested(s.else);
        return {
          js: `if (${cond}) ${wrap(then.js)} else ${wrap(other.js)}`,
          completes: then.completes || other.completes,
        };
      }
      case 'while': {
        const cond = this.condition(s.cond);
        const constTrue = this.isConstantTrue(s.cond);
        const body = this.loopBody(null, s.body);
        return { js: `while (${cond}) ${wrap(body.js)}`, completes: !constTrue || body.breaks };
      }
      case 'doWhile': {
        const body = this.loopBody(null, s.body);
        const cond = this.condition(s.cond);
        const constTrue = this.isConstantTrue(s.cond);
        return {
          js: `do ${wrap(body.js)} while (${cond});`,
          completes: (!constTrue && (body.completes || body.continues)) || body.breaks,
        };
      }
      case 'for':
        return this.scoped(() => {
          let init = '';
          if (Array.isArray(s.init)) init = (s.init as readonly Expr[]).map((e) => this.expr(e, true).js).join(', ');
          else init = this.localDecl(s.init as Extract<Stmt, { kind: 'local' }>, true);
          const cond = s.cond === null ? '' : this.condition(s.cond);
          const update = s.update.map((e) => this.expr(e, true).js).join(', ');
          const body = this.loopBody(null, s.body);
          const forever = s.cond === null || this.isConstantTrue(s.cond);
          return { js: `for (${init}; ${cond}; ${update}) ${wrap(body.js)}`, completes: !forever || body.breaks };
        });
      case 'forEach':
        return this.forEach(s, null);
      case 'labeled':
        return this.labeled(s.label, s.body);
      case 'return':
        return { js: this.returnStmt(s.line, s.value), completes: false };
      case 'break':
      case 'continue': {
        const target = this.findLabel(s.line, s.kind, s.label);
        const label = s.label === null ? '' : ` l$${s.label}`;
        target.used = true;
        return { js: `${s.kind}${label};`, completes: false, breaks: s.kind === 'break' };
      }
      case 'throw': {
        const e = this.expr(s.value);
        if (e.t.k !== 'error' && !this.isSubtype(e.t, cls('Throwable'))) {
          if (e.t.k === 'null') this.problem(s.line, 'Cannot throw null as an exception');
          this.problem(
            s.line,
            `No exception of type ${typeName(e.t)} can be thrown; an exception type must be a subclass of Throwable`,
          );
        }
        this.checkHandled(s.line, e.t);
        return { js: `throw ${e.nonNull ? e.js : `$jl.nn(${e.js})`};`, completes: false };
      }
      case 'try':
        return this.tryStmt(s);
      case 'switch':
        return this.switchStmt(s);
      case 'assert': {
        const cond = this.condition(s.cond);
        const msg = s.message === null ? '' : stringOf(this.expr(s.message).js, this.expr(s.message).t);
        return { js: `if (!(${cond})) throw new $jx.AssertionError(${msg});`, completes: true };
      }
      case 'synchronized': {
        this.findings.add('use of synchronized');
        if (s.lock.kind !== 'this') this.expr(s.lock);
        const body = this.block(s.body);
        return { js: body.js, completes: body.completes };
      }
      case 'localClass':
        return this.problem(s.line, `Local classes are not supported in Java UDFs (class ${s.name})`);
    }
  }

  private isConstantTrue(e: Expr): boolean {
    return e.kind === 'literal' && e.value === true;
  }

  private condition(e: Expr): string {
    const t = this.expr(e);
    return this.coerce(e.line, t, T_BOOLEAN);
  }

  private localDecl(s: Extract<Stmt, { kind: 'local' }>, inFor = false): string {
    const type = this.resolveType(s.type);
    const parts: string[] = [];
    for (const d of s.declarators) {
      let t = type;
      for (let i = 0; i < d.dims; i++) t = { k: 'array', elem: t };
      let init: string = defaultValue(t);
      if (d.init !== null) {
        try {
          init =
            d.init.kind === 'arrayInit'
              ? this.arrayInit(d.init, t)
              : this.coerce(d.line, this.expr(d.init, false, t), t);
        } catch (e) {
          if (!(e instanceof Reported)) throw e;
        }
      }
      const local = this.declare(d.line, d.name, t, s.final, d.init !== null);
      parts.push(`${local.js} = ${init}`);
    }
    return inFor ? `let ${parts.join(', ')}` : `let ${parts.join(', ')};`;
  }

  private loopBody(
    label: string | null,
    body: Stmt,
  ): { js: string; completes: boolean; breaks: boolean; continues: boolean } {
    const entry = { name: label, loop: true, switch: false, used: false, breaks: false, continues: false };
    this.labels.push(entry);
    try {
      const r = this.nested(body);
      return { js: r.js, completes: r.completes, breaks: entry.breaks, continues: entry.continues };
    } finally {
      this.labels.pop();
    }
  }

  private findLabel(line: number, kind: 'break' | 'continue', label: string | null) {
    for (let i = this.labels.length - 1; i >= 0; i--) {
      const l = this.labels[i]! as {
        name: string | null;
        loop: boolean;
        switch: boolean;
        used?: boolean;
        breaks?: boolean;
        continues?: boolean;
      };
      if (label === null ? (kind === 'break' ? l.loop || l.switch : l.loop) : l.name === label) {
        if (kind === 'continue' && !l.loop) this.problem(line, 'continue cannot be used outside of a loop');
        if (kind === 'break') l.breaks = true;
        else l.continues = true;
        return l;
      }
    }
    if (label !== null) return this.problem(line, `The label ${label} is missing`);
    return this.problem(
      line,
      kind === 'break'
        ? 'break cannot be used outside of a loop or a switch'
        : 'continue cannot be used outside of a loop',
    );
  }

  private labeled(label: string, body: Stmt): { js: string; completes: boolean } {
    const isLoop = body.kind === 'for' || body.kind === 'forEach' || body.kind === 'while' || body.kind === 'doWhile';
    if (isLoop) {
      // The loop registers the label itself so that `continue label` finds a loop.
      const r = this.loopWithLabel(label, body);
      return { js: `l$${label}: ${r.js}`, completes: r.completes };
    }
    const entry = { name: label, loop: false, switch: false, breaks: false };
    this.labels.push(entry);
    try {
      const r = this.nested(body);
      return { js: `l$${label}: ${wrap(r.js)}`, completes: r.completes || entry.breaks };
    } finally {
      this.labels.pop();
    }
  }

  private loopWithLabel(label: string, s: Stmt): { js: string; completes: boolean } {
    const entry = { name: label, loop: true, switch: false, breaks: false, continues: false };
    this.labels.push(entry);
    try {
      const r = s.kind === 'forEach' ? this.forEach(s, label) : this.statement(s);
      return { js: r.js, completes: r.completes || entry.breaks };
    } finally {
      this.labels.pop();
    }
  }

  private forEach(s: Extract<Stmt, { kind: 'forEach' }>, _label: string | null): { js: string; completes: boolean } {
    return this.scoped(() => {
      const declared = this.resolveType(s.type);
      const it = this.expr(s.iterable);
      let elem: JType;
      let head: string;
      let value: string;
      if (it.t.k === 'array') {
        elem = it.t.elem;
        const a = this.temp();
        const i = this.temp();
        head = `for (${a} = $jl.nn(${it.js}), ${i} = 0; ${i} < ${a}.length; ${i}++)`;
        value = `${a}[${i}]`;
      } else if (it.t.k === 'error') {
        elem = T_ERROR;
        head = 'for (;false;)';
        value = 'null';
      } else {
        const iterable = this.asSuper(it.t, 'Iterable');
        if (!iterable)
          return this.problem(s.line, 'Can only iterate over an array or an instance of java.lang.Iterable');
        elem = iterable.k === 'class' && iterable.args[0] ? iterable.args[0] : T_OBJECT;
        if (elem.k === 'tvar') elem = T_OBJECT;
        const t = this.temp();
        head = `for (${t} = $ju.iter(${it.js}); ${t}.hasNext();)`;
        value = `${t}.next()`;
      }
      const conv = this.convert({ t: elem, js: value }, declared);
      if (conv === null)
        this.problem(
          s.line,
          `Type mismatch: cannot convert from element type ${typeName(elem)} to ${typeName(declared)}`,
        );
      const local = this.declare(s.line, s.name, declared, s.final, true);
      const body = this.loopBody(null, s.body);
      return { js: `${head} {\nlet ${local.js} = ${conv};\n${body.js}\n}`, completes: true };
    });
  }

  private returnStmt(line: number, value: Expr | null): string {
    const rt = this.input.returnType;
    if (value === null) return this.problem(line, `This method must return a result of type ${typeName(rt)}`);
    const e = this.expr(value, false, rt);
    return `return ${this.coerce(line, e, rt)};`;
  }

  private checkHandled(line: number, t: JType): void {
    if (t.k !== 'class') return;
    const c = lookupClassByName(t.name);
    if (!c?.checked) return;
    for (const level of this.catching) for (const caught of level) if (this.isSubtype(t, caught)) return;
    this.report(line, `Unhandled exception type ${typeName(t)}`);
  }

  private tryStmt(s: Extract<Stmt, { kind: 'try' }>): { js: string; completes: boolean } {
    if (s.resources)
      return this.problem(
        s.line,
        'try-with-resources is not supported in Java UDFs (no closeable resource is reachable)',
      );
    const catchTypes = s.catches.map((c) => c.types.map((t) => this.resolveType(t)));
    this.catching.push(catchTypes.flat());
    let body: { js: string; completes: boolean };
    try {
      body = this.block(s.block);
    } finally {
      this.catching.pop();
    }
    let completes = body.completes;
    let js = `try ${body.js}`;
    if (s.catches.length > 0) {
      const ex = this.temp();
      const branches: string[] = [];
      s.catches.forEach((c, i) => {
        const types = catchTypes[i]!;
        for (const t of types)
          if (t.k !== 'error' && !this.isSubtype(t, cls('Throwable')))
            this.report(
              c.line,
              `No exception of type ${typeName(t)} can be thrown; an exception type must be a subclass of Throwable`,
            );
        const test = types.map((t) => (t.k === 'class' ? `${ex} instanceof $jx.${t.name}` : 'false')).join(' || ');
        const declaredType = types.length === 1 ? types[0]! : cls('Exception');
        const r = this.scoped(() => {
          const local = this.declare(c.line, c.name, declaredType, types.length > 1, true);
          const b = this.statements(c.body.body);
          return { js: `let ${local.js} = ${ex};\n${b.js}`, completes: b.completes };
        });
        if (r.completes) completes = true;
        branches.push(`if (${test}) {\n${r.js}\n}`);
      });
      js += ` catch (${ex}) {\n${branches.join(' else ')} else throw ${ex};\n}`;
    }
    if (s.finally !== null) {
      const f = this.block(s.finally);
      js += ` finally ${f.js}`;
      if (!f.completes) completes = false;
    }
    return { js, completes };
  }

  private switchStmt(s: Extract<Stmt, { kind: 'switch' }>): { js: string; completes: boolean } {
    const sel = this.expr(s.selector);
    let selType = sel.t;
    let selJs = sel.js;
    const u = unboxedType(selType);
    if (u && u.k === 'prim' && selType.k === 'class') {
      selJs = unbox(sel.js, selType.name, sel.nonNull);
      selType = u;
    }
    const isString = isClass(selType, 'String');
    if (isString) selJs = `$jl.nn(${selJs})`;
    if (
      !isString &&
      !(isPrim(selType) && ['char', 'byte', 'short', 'int'].includes(selType.name)) &&
      selType.k !== 'error'
    )
      this.problem(
        s.line,
        `Cannot switch on a value of type ${typeName(sel.t)}. Only convertible int values, strings or enum variables are permitted`,
      );
    const entry = { name: null, loop: false, switch: true, breaks: false };
    this.labels.push(entry);
    const seen = new Set<unknown>();
    let hasDefault = false;
    let lastCompletes = true;
    const hoisted: string[] = [];
    const cases: string[] = [];
    this.scopes.push(new Map());
    try {
      for (const c of s.cases) {
        const labels: string[] = [];
        for (const l of c.labels) {
          if (l === null) {
            if (hasDefault) this.report(c.line, 'The default case is already defined');
            hasDefault = true;
            labels.push('default:');
            continue;
          }
          const v = this.expr(l);
          if (v.constant === undefined) {
            this.report(l.line, 'case expressions must be constant expressions');
            continue;
          }
          const conv = this.convert(v, selType);
          if (conv === null) {
            this.report(l.line, `Type mismatch: cannot convert from ${typeName(v.t)} to ${typeName(selType)}`);
            continue;
          }
          if (seen.has(v.constant)) this.report(l.line, 'Duplicate case');
          seen.add(v.constant);
          labels.push(`case ${isString ? JSON.stringify(v.constant) : literalJs(v.constant as number, 'int')}:`);
        }
        // Locals declared in a case are visible in later cases (one block in Java): hoist them.
        const body: string[] = [];
        let completes = true;
        for (const st of c.body) {
          try {
            if (st.kind === 'local') {
              const decl = this.localDecl(st);
              const m = /^let (.*);$/s.exec(decl)!;
              for (const d of st.declarators) hoisted.push(mangle(d.name));
              body.push(`${m[1]!};`);
              continue;
            }
            const r = this.statement(st);
            body.push(r.js);
            if (!r.completes) completes = false;
          } catch (e) {
            if (!(e instanceof Reported)) throw e;
          }
        }
        lastCompletes = completes;
        cases.push(`${labels.join(' ')}\n${body.join('\n')}`);
      }
    } finally {
      this.scopes.pop();
      this.labels.pop();
    }
    const decl = hoisted.length > 0 ? `let ${hoisted.join(', ')};\n` : '';
    const completes = !hasDefault || entry.breaks || lastCompletes;
    return { js: `{\n${decl}switch (${selJs}) {\n${cases.join('\n')}\n}\n}`, completes };
  }

  private arrayInit(init: Extract<Expr, { kind: 'arrayInit' }>, t: JType): string {
    if (t.k !== 'array')
      return this.problem(init.line, `Type mismatch: cannot convert from ${'{...}'} to ${typeName(t)}`);
    const elem = t.elem;
    const items = init.elements.map((e) =>
      e.kind === 'arrayInit' ? this.arrayInit(e, elem) : this.coerce(e.line, this.expr(e, false, elem), elem),
    );
    return `$jl.arrayOf(${JSON.stringify(arrayKind(elem))}, [${items.join(', ')}])`;
  }

  // ---- expressions ----

  expr(e: Expr, _statement = false, expected?: JType): TExpr {
    switch (e.kind) {
      case 'literal':
        return this.literal(e);
      case 'name':
      case 'field': {
        const r = this.resolve(e);
        if (r.kind === 'value') return r.e;
        if (r.kind === 'type') return this.problem(e.line, `${dottedName(e)} cannot be resolved to a variable`);
        if (e.kind === 'name') return this.problem(e.line, `${e.name} cannot be resolved to a variable`);
        return this.problem(e.line, `${r.path} cannot be resolved to a variable`);
      }
      case 'call':
        return this.call(e, expected);
      case 'new':
        return this.newObject(e, expected);
      case 'newArray':
        return this.newArray(e);
      case 'arrayInit':
        return this.problem(e.line, 'Array constants can only be used in initializers');
      case 'index': {
        const a = this.expr(e.target);
        const i = this.expr(e.index);
        if (a.t.k !== 'array') {
          if (a.t.k === 'error') return { t: T_ERROR, js: 'null' };
          return this.problem(
            e.line,
            `The type of the expression must be an array type but it resolved to ${typeName(a.t)}`,
          );
        }
        const idx = this.coerce(e.index.line, this.promoteIndex(i), T_INT);
        const t = this.temp();
        return { t: a.t.elem, js: `(${t} = ${a.js})[$jl.ai(${t}, ${idx})]` };
      }
      case 'unary':
        return this.unary(e);
      case 'incdec':
        return this.incdec(e);
      case 'binary':
        return this.binary(e);
      case 'assign':
        return this.assign(e);
      case 'conditional':
        return this.conditional(e, expected);
      case 'cast':
        return this.cast(e);
      case 'instanceof': {
        const v = this.expr(e.operand);
        const t = this.resolveType(e.type);
        if (isPrim(v.t))
          return this.problem(e.line, `Incompatible conditional operand types ${typeName(v.t)} and ${typeName(t)}`);
        const test = this.runtimeTest(e.line, t);
        const tmp = this.temp();
        return { t: T_BOOLEAN, js: `((${tmp} = ${v.js}) !== null && ${test(tmp)})`, nonNull: true };
      }
      case 'classLit': {
        const t = this.resolveType(e.type);
        const name = t.k === 'class' ? (lookupClassByName(t.name)?.qualified ?? t.name) : typeName(t);
        return { t: cls('Class', boxed(t)), js: JSON.stringify(name), nonNull: true };
      }
      case 'this':
      case 'super':
        return this.problem(e.line, `'${e.kind}' is not supported in Java UDFs`);
      case 'lambda':
        return this.problem(e.line, 'Lambda expressions are not supported in Java UDFs');
      case 'methodRef':
        return this.problem(e.line, 'Method references are not supported in Java UDFs');
    }
  }

  private promoteIndex(i: TExpr): TExpr {
    const u = unboxedType(i.t);
    if (u && u.k === 'prim' && i.t.k === 'class') return { t: u, js: unbox(i.js, i.t.name, i.nonNull) };
    return i;
  }

  private literal(e: Extract<Expr, { kind: 'literal' }>): TExpr {
    switch (e.type) {
      case 'int':
        return { t: T_INT, js: literalJs(e.value as number, 'int'), constant: e.value as number, nonNull: true };
      case 'long':
        return { t: T_LONG, js: literalJs(e.value as bigint, 'long'), constant: e.value as bigint, nonNull: true };
      case 'float':
        return { t: T_FLOAT, js: literalJs(e.value as number, 'float'), constant: e.value as number, nonNull: true };
      case 'double':
        return { t: T_DOUBLE, js: literalJs(e.value as number, 'double'), constant: e.value as number, nonNull: true };
      case 'char':
        return { t: T_CHAR, js: String(e.value), constant: e.value as number, nonNull: true };
      case 'string':
        return { t: T_STRING, js: JSON.stringify(e.value), constant: e.value as string, nonNull: true };
      case 'boolean':
        return { t: T_BOOLEAN, js: String(e.value), constant: e.value as boolean, nonNull: true };
      case 'null':
        return { t: T_NULL, js: 'null' };
    }
  }

  /** A name or dotted name: a local, a static field, a type, or (not yet resolved) a package prefix. */
  private resolve(e: Expr): Resolved {
    if (e.kind === 'name') {
      const local = this.lookupLocal(e.name);
      if (local) {
        if (!local.assigned) this.report(e.line, `The local variable ${e.name} may not have been initialized`);
        return { kind: 'value', e: { t: local.type, js: local.js, local } };
      }
      if (e.name === 'udfContext') return { kind: 'value', e: { t: cls('UDFContext'), js: '$ctx', nonNull: true } };
      const c = lookupClass(e.name);
      if (c) return { kind: 'type', c };
      if (DENIED_CLASSES.has(e.name)) return this.problem(e.line, `${e.name} cannot be resolved`);
      return { kind: 'package', path: e.name };
    }
    if (e.kind === 'field') {
      const target =
        e.target.kind === 'name' || e.target.kind === 'field'
          ? this.resolve(e.target)
          : { kind: 'value' as const, e: this.expr(e.target) };
      if (target.kind === 'package') {
        const path = `${target.path}.${e.name}`;
        const c = lookupClass(path);
        if (c) return { kind: 'type', c };
        if (
          /^java\.lang\.(System|Runtime|Thread|ThreadGroup|ThreadLocal|Process|ProcessBuilder|Runnable|Compiler|Package)$/.test(
            path,
          )
        )
          return this.problem(e.line, `${path} cannot be resolved`);
        return { kind: 'package', path };
      }
      if (target.kind === 'type') {
        const nested = lookupClass(`${target.c.name}.${e.name}`) ?? lookupClass(`${target.c.qualified}.${e.name}`);
        if (nested) return { kind: 'type', c: nested };
        const f = this.staticField(target.c, e.name);
        if (f)
          return {
            kind: 'value',
            e: { t: f.type, js: f.js, constant: f.constant, nonNull: f.constant !== undefined || isPrim(f.type) },
          };
        return this.problem(e.line, `${e.name} cannot be resolved or is not a field`);
      }
      const v = target.e;
      if (v.t.k === 'array' && e.name === 'length')
        return { kind: 'value', e: { t: T_INT, js: `$jl.nn(${v.js}).length` } };
      if (v.t.k === 'error') return { kind: 'value', e: { t: T_ERROR, js: 'null' } };
      if (isPrim(v.t))
        return this.problem(
          e.line,
          `The primitive type ${typeName(v.t)} of ${dottedName(e.target) ?? 'the expression'} does not have a field ${e.name}`,
        );
      return this.problem(e.line, `${e.name} cannot be resolved or is not a field`);
    }
    return { kind: 'value', e: this.expr(e) };
  }

  private staticField(c: LibClass, name: string): LibField | undefined {
    const f = c.fields.get(name);
    if (f) return f;
    for (const s of c.supers) {
      if (s.k !== 'class') continue;
      const sc = lookupClassByName(s.name);
      const found = sc ? this.staticField(sc, name) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  // ---- calls ----

  private call(e: Extract<Expr, { kind: 'call' }>, expected?: JType): TExpr {
    if (e.target === null) return this.unqualifiedCall(e);
    const target =
      e.target.kind === 'name' || e.target.kind === 'field'
        ? this.resolve(e.target)
        : { kind: 'value' as const, e: this.expr(e.target) };
    if (target.kind === 'package') {
      if (/^java\.(util|lang|math|text|time)\.[A-Z]/.test(target.path))
        return this.problem(e.line, `${target.path} is not supported in Java UDFs by this server`);
      return this.problem(e.line, `${target.path} cannot be resolved`);
    }
    if (OBJECT_DENIED.has(e.name)) {
      this.findings.add(`call to java.lang.Object.${e.name}()`);
      for (const a of e.args) this.expr(a);
      return { t: e.name === 'clone' ? T_OBJECT : T_VOID, js: 'undefined' };
    }
    if (target.kind === 'type') {
      const denied = VERIFIER_DENIED[target.c.qualified];
      if (denied?.includes(e.name) || target.c.qualified === 'java.net.NetworkInterface') {
        this.findings.add(`call to ${target.c.qualified}.${e.name}()`);
        for (const a of e.args) this.expr(a);
        return { t: T_OBJECT, js: 'null' };
      }
      const args = e.args.map((a) => this.expr(a));
      const candidates = this.staticMethods(target.c, e.name);
      return this.invoke(e.line, target.c, candidates, e.name, null, args, e.args, expected);
    }
    const recv = target.e;
    if (recv.t.k === 'error') {
      for (const a of e.args) this.expr(a);
      return { t: T_ERROR, js: 'null' };
    }
    if (e.name === 'getClass') return this.problem(e.line, 'The method getClass() is not supported in Java UDFs');
    const args = e.args.map((a) => this.expr(a));
    if (isPrim(recv.t))
      return this.problem(
        e.line,
        `Cannot invoke ${e.name}(${args.map((a) => typeName(a.t)).join(', ')}) on the primitive type ${typeName(recv.t)}`,
      );
    if (recv.t.k === 'array') {
      if (e.name === 'clone' && args.length === 0) return { t: recv.t, js: `$jl.nn(${recv.js}).slice()` };
      return this.objectMethodOn(e, recv, args, expected);
    }
    if (recv.t.k === 'null') return this.problem(e.line, `Cannot invoke ${e.name}() on null`);
    const c = recv.t.k === 'class' ? lookupClassByName(recv.t.name) : undefined;
    if (!c) return this.objectMethodOn(e, recv, args, expected);
    const candidates = this.instanceMethods(recv.t, e.name);
    const receiverJs = recv.nonNull ? recv.js : `$jl.nn(${recv.js})`;
    return this.invoke(e.line, c, candidates, e.name, { js: receiverJs, t: recv.t }, args, e.args, expected);
  }

  private objectMethodOn(e: Extract<Expr, { kind: 'call' }>, recv: TExpr, args: TExpr[], expected?: JType): TExpr {
    const obj = lookupClassByName('Object')!;
    const candidates = this.instanceMethods(T_OBJECT, e.name);
    return this.invoke(
      e.line,
      obj,
      candidates,
      e.name,
      { js: `$jl.nn(${recv.js})`, t: recv.t },
      args,
      e.args,
      expected,
    );
  }

  private unqualifiedCall(e: Extract<Expr, { kind: 'call' }>): TExpr {
    if (OBJECT_DENIED.has(e.name)) {
      this.findings.add(`call to java.lang.Object.${e.name}()`);
      for (const a of e.args) this.expr(a);
      return { t: e.name === 'clone' ? T_OBJECT : T_VOID, js: 'undefined' };
    }
    if (e.name === 'getClass') return this.problem(e.line, 'The method getClass() is not supported in Java UDFs');
    const args = e.args.map((a) => this.expr(a));
    return this.problem(
      e.line,
      `The method ${e.name}(${args.map((a) => typeName(a.t)).join(', ')}) is undefined for the type ${this.input.className}`,
    );
  }

  private staticMethods(c: LibClass, name: string): { m: LibMethod; env: Map<string, JType> }[] {
    const out: { m: LibMethod; env: Map<string, JType> }[] = [];
    for (const m of c.statics.get(name) ?? []) out.push({ m, env: new Map() });
    return out;
  }

  /** Instance methods named `name` visible on `t`, with the owner's type variables bound from `t`. */
  private instanceMethods(t: JType, name: string): { m: LibMethod; env: Map<string, JType> }[] {
    const out: { m: LibMethod; env: Map<string, JType> }[] = [];
    const seen = new Set<string>();
    const visit = (ct: JType): void => {
      if (ct.k !== 'class') return;
      const c = lookupClassByName(ct.name);
      if (!c || seen.has(c.name)) return;
      seen.add(c.name);
      const env = new Map<string, JType>();
      c.tparams.forEach((p, i) => {
        const a = ct.args[i];
        env.set(p, a === undefined ? T_OBJECT : a.k === 'tvar' && a.name === '?' ? (a.bound ?? T_OBJECT) : a);
      });
      for (const m of c.methods.get(name) ?? []) {
        // A subclass's method hides an inherited one with the same parameters.
        const key = m.params.map((p) => typeName(substitute(p, env))).join(',');
        if (out.some((o) => o.m.params.map((p) => typeName(substitute(p, o.env))).join(',') === key)) continue;
        out.push({ m, env });
      }
      for (const s of c.supers) visit(substitute(s, env));
    };
    visit(t);
    return out;
  }

  /** Overload resolution (JLS 15.12.2: strict, loose, then varargs; most specific) and emission. */
  private invoke(
    line: number,
    owner: LibClass,
    candidates: { m: LibMethod; env: Map<string, JType> }[],
    name: string,
    recv: { js: string; t: JType } | null,
    args: TExpr[],
    argExprs: readonly Expr[],
    expected?: JType,
  ): TExpr {
    const argText = args.map((a) => typeName(a.t)).join(', ');
    if (candidates.length === 0) {
      const where = recv ? typeName(recv.t) : owner.name;
      if (recv === null && owner.methods.has(name))
        return this.problem(
          line,
          `Cannot make a static reference to the non-static method ${name}(${argText}) from the type ${owner.name}`,
        );
      return this.problem(line, `The method ${name}(${argText}) is undefined for the type ${where}`);
    }
    for (const phase of [1, 2, 3] as const) {
      const applicable: { m: LibMethod; env: Map<string, JType>; params: JType[] }[] = [];
      for (const cand of candidates) {
        const params = this.applicable(cand.m, cand.env, args, phase, expected);
        if (params) applicable.push({ ...cand, params });
      }
      if (applicable.length === 0) continue;
      let best = applicable[0]!;
      for (const a of applicable.slice(1))
        if (this.moreSpecific(a.params, best.params, a.m.varargs && phase === 3)) best = a;
      return this.emitCall(line, best.m, best.params, recv, args, argExprs, phase === 3);
    }
    const shown = candidates.find((c) => c.m.params.length === args.length) ?? candidates[0]!;
    const sig = shown.m.params.map((p) => typeName(substitute(p, shown.env))).join(', ');
    const ownerName = shown.m.owner.name;
    if (shown.m.name === 'new') return this.problem(line, `The constructor ${ownerName}(${argText}) is undefined`);
    return this.problem(
      line,
      `The method ${name}(${sig}) in the type ${ownerName} is not applicable for the arguments (${argText})`,
    );
  }

  /** The method's parameter types (type variables inferred) if `args` are applicable in `phase`, else null. */
  private applicable(
    m: LibMethod,
    env: Map<string, JType>,
    args: TExpr[],
    phase: 1 | 2 | 3,
    expected?: JType,
  ): JType[] | null {
    const n = m.params.length;
    if (phase < 3 ? args.length !== n : !m.varargs || args.length < n - 1) return null;
    // Infer the method's own type variables from the arguments (and the expected type for the result).
    const menv = new Map(env);
    const formal = (i: number): JType => {
      if (phase === 3 && i >= n - 1) {
        const last = m.params[n - 1]!;
        return last.k === 'array' ? last.elem : last;
      }
      return m.params[i]!;
    };
    if (m.tparams.length > 0) {
      for (let i = 0; i < args.length; i++) infer(formal(i), boxed(args[i]!.t), menv, new Set(m.tparams));
      if (expected) infer(m.ret, expected, menv, new Set(m.tparams), true);
      for (const tp of m.tparams) if (!menv.has(tp)) menv.set(tp, T_OBJECT);
    }
    const params: JType[] = [];
    for (let i = 0; i < args.length; i++) {
      const p = substitute(formal(i), menv);
      params.push(p);
      if (this.convert(args[i]!, p, phase > 1, false) === null) return null;
    }
    if (phase === 3 && args.length === n - 1) params.push(substitute(formal(n - 1), menv));
    (params as JType[] & { ret?: JType }).ret = substitute(m.ret, menv);
    return params;
  }

  private moreSpecific(a: JType[], b: JType[], _varargs: boolean): boolean {
    if (a.length !== b.length) return false;
    let strictly = false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      const y = b[i]!;
      const ok = isPrim(x) && isPrim(y) ? primWidens(x.name, y.name) : this.isSubtype(x, y);
      if (!ok) return false;
      if (!sameType(x, y)) strictly = true;
    }
    return strictly;
  }

  private emitCall(
    line: number,
    m: LibMethod,
    params: JType[],
    recv: { js: string; t: JType } | null,
    args: TExpr[],
    argExprs: readonly Expr[],
    varargsCall: boolean,
  ): TExpr {
    let argJs: string[];
    const n = m.params.length;
    if (m.varargs) {
      const fixed = varargsCall ? n - 1 : n;
      argJs = args.slice(0, fixed).map((a, i) => this.coerce(line, a, params[i]!));
      if (varargsCall) {
        const elem = params[n - 1] ?? T_OBJECT;
        const rest = args.slice(n - 1).map((a) => this.coerce(line, a, elem));
        argJs.push(`$jl.arrayOf(${JSON.stringify(arrayKind(elem))}, [${rest.join(', ')}])`);
      }
    } else argJs = args.map((a, i) => this.coerce(line, a, params[i]!));
    const ret = (params as JType[] & { ret?: JType }).ret ?? m.ret;
    const literals = argExprs.map((a) =>
      a.kind === 'literal' && a.type === 'string' ? (a.value as string) : undefined,
    );
    const ctx: EmitContext = {
      ...this.input.emit,
      literal: (i) => literals[i],
      problem: (msg) => this.problem(line, msg),
    };
    // Java evaluates the receiver, then the arguments, each once: a template may use them in another order or
    // twice, so anything with possible effects is evaluated into temps first, in Java's order.
    const parts = [recv?.js ?? '', ...argJs];
    const bindings: string[] = [];
    if (parts.some((p) => !isRepeatable(p)))
      parts.forEach((p, i) => {
        if (i === 0 && recv === null) return;
        if (isRepeatable(p)) return;
        const t = this.temp();
        bindings.push(`${t} = ${p}`);
        parts[i] = t;
      });
    const [r, ...a] = parts as [string, ...string[]];
    const body = typeof m.emit === 'function' ? m.emit(r, a, ctx) : fillTemplate(m.emit, r, a);
    const js = bindings.length === 0 ? body : `${bindings.join(', ')}, ${body}`;
    return {
      t: m.name === 'new' ? m.ret : ret.k === 'tvar' ? T_OBJECT : ret,
      js: `(${js})`,
      nonNull: m.name === 'new',
    };
  }

  private newObject(e: Extract<Expr, { kind: 'new' }>, expected?: JType): TExpr {
    if (e.anonymousBody) return this.problem(e.line, 'Anonymous classes are not supported in Java UDFs');
    const c = this.classByName(e.type.line, e.type.name, true);
    if (c.isInterface) return this.problem(e.line, `Cannot instantiate the type ${c.name}`);
    let t = this.resolveType(e.type, true) as Extract<JType, { k: 'class' }>;
    if (e.type.diamond || (t.args.length === 0 && c.tparams.length > 0 && e.type.diamond)) {
      // Diamond: the type arguments of the expected type, as seen through this class.
      let args: JType[] = c.tparams.map(() => T_OBJECT);
      if (expected?.k === 'class') {
        const asTarget = this.asSuper(
          { k: 'class', name: c.name, args: c.tparams.map((p) => ({ k: 'tvar', name: p })) },
          expected.name,
        );
        if (asTarget?.k === 'class') {
          const env = new Map<string, JType>();
          asTarget.args.forEach((a, i) => {
            const ea = expected.args[i];
            if (a.k === 'tvar' && ea) env.set(a.name, ea.k === 'tvar' ? T_OBJECT : ea);
          });
          args = c.tparams.map((p) => env.get(p) ?? T_OBJECT);
        }
      }
      t = { k: 'class', name: c.name, args };
    }
    const args = e.args.map((a) => this.expr(a));
    const env = new Map<string, JType>();
    c.tparams.forEach((p, i) => {
      env.set(p, t.args[i] ?? T_OBJECT);
    });
    const ctors = c.ctors.map((m) => ({ m, env }));
    if (ctors.length === 0)
      return this.problem(
        e.line,
        `The constructor ${c.name}(${args.map((a) => typeName(a.t)).join(', ')}) is undefined`,
      );
    const r = this.invoke(e.line, c, ctors, 'new', null, args, e.args);
    return { t, js: r.js, nonNull: true, diamond: e.type.diamond && expected === undefined };
  }

  private newArray(e: Extract<Expr, { kind: 'newArray' }>): TExpr {
    let elem = this.resolveType(e.element);
    let t: JType = elem;
    for (let i = 0; i < e.dims; i++) t = { k: 'array', elem: t };
    if (e.init !== null) return { t, js: this.arrayInit(e.init, t), nonNull: true };
    const dims = e.dimExprs.map((d) => this.coerce(d.line, this.promoteIndex(this.expr(d)), T_INT));
    // Dimensions without a size leave nulls: the innermost created arrays hold references.
    for (let i = 0; i < e.dims - e.dimExprs.length; i++) elem = { k: 'array', elem };
    return { t, js: `$jl.newArray(${JSON.stringify(arrayKind(elem))}, [${dims.join(', ')}])`, nonNull: true };
  }

  // ---- operators ----

  /** The primitive view of an operand for numeric/boolean operators (unboxing), or null. */
  private primOperand(x: TExpr): { t: PrimName; js: string } | null {
    if (x.t.k === 'prim') return { t: x.t.name, js: x.js };
    const u = unboxedName(x.t);
    if (u && x.t.k === 'class') return { t: u, js: unbox(x.js, x.t.name, x.nonNull) };
    return null;
  }

  private unary(e: Extract<Expr, { kind: 'unary' }>): TExpr {
    const x = this.expr(e.operand);
    if (x.t.k === 'error') return x;
    const p = this.primOperand(x);
    const bad = (): never =>
      this.problem(e.line, `The operator ${e.op} is undefined for the argument type(s) ${typeName(x.t)}`);
    if (!p) return bad();
    if (e.op === '!') {
      if (p.t !== 'boolean') return bad();
      return {
        t: T_BOOLEAN,
        js: `(!${p.js})`,
        constant: typeof x.constant === 'boolean' ? !x.constant : undefined,
        nonNull: true,
      };
    }
    if (p.t === 'boolean') return bad();
    const pt = promoteUnary(p.t);
    const v = convertPrim(p.js, p.t, pt);
    if (e.op === '~') {
      if (pt !== 'int' && pt !== 'long') return bad();
      const constant =
        typeof x.constant === 'number' ? ~x.constant : typeof x.constant === 'bigint' ? ~x.constant : undefined;
      return { t: prim(pt), js: `(~${v})`, constant, nonNull: true };
    }
    if (e.op === '+') return { t: prim(pt), js: v, constant: x.constant, nonNull: true };
    let js: string;
    let constant: number | bigint | undefined;
    if (pt === 'int') {
      js = `(-${v} | 0)`;
      if (typeof x.constant === 'number') constant = -x.constant | 0;
    } else if (pt === 'long') {
      js = `BigInt.asIntN(64, -${v})`;
      if (typeof x.constant === 'bigint') constant = BigInt.asIntN(64, -x.constant);
    } else {
      js = `(-${v})`;
      if (typeof x.constant === 'number') constant = -x.constant;
    }
    if (constant !== undefined) js = literalJs(constant, pt);
    return { t: prim(pt), js, constant, nonNull: true };
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): TExpr {
    const op = e.op;
    if (op === '&&' || op === '||') {
      const a = this.condition(e.left);
      const b = this.condition(e.right);
      return { t: T_BOOLEAN, js: `(${a} ${op} ${b})`, nonNull: true };
    }
    const l = this.expr(e.left);
    const r = this.expr(e.right);
    return this.binaryOn(e.line, op, l, r);
  }

  /** `shownOp`: the operator as written (a compound assignment's `+=`), for problems. */
  private binaryOn(line: number, op: string, l: TExpr, r: TExpr, shownOp = op): TExpr {
    if (l.t.k === 'error' || r.t.k === 'error') return { t: T_ERROR, js: 'null' };
    const undefinedOp = (): never =>
      this.problem(
        line,
        `The operator ${shownOp} is undefined for the argument type(s) ${typeName(l.t)}, ${typeName(r.t)}`,
      );
    if (op === '+' && (isClass(l.t, 'String') || isClass(r.t, 'String'))) {
      if (l.t.k === 'void' || r.t.k === 'void') return undefinedOp();
      const constant =
        l.constant !== undefined &&
        r.constant !== undefined &&
        typeof l.constant !== 'bigint' &&
        typeof r.constant !== 'bigint'
          ? constantText(l) + constantText(r)
          : undefined;
      const js =
        constant !== undefined ? JSON.stringify(constant) : `(${stringOf(l.js, l.t)} + ${stringOf(r.js, r.t)})`;
      return { t: T_STRING, js, constant, nonNull: true };
    }
    if (op === '==' || op === '!=') return this.equality(line, op, l, r);
    const a = this.primOperand(l);
    const b = this.primOperand(r);
    if (!a || !b) return undefinedOp();
    if (op === '<<' || op === '>>' || op === '>>>') {
      if (!isIntegralPrim(prim(a.t)) || !isIntegralPrim(prim(b.t))) return undefinedOp();
      const pa = promoteUnary(a.t);
      const pb = promoteUnary(b.t);
      const js = shift(op, convertPrim(a.js, a.t, pa), pa, convertPrim(b.js, b.t, pb), pb);
      return { t: prim(pa), js, constant: foldShift(op, l.constant, r.constant, pa), nonNull: true };
    }
    if ((op === '&' || op === '|' || op === '^') && a.t === 'boolean' && b.t === 'boolean')
      return { t: T_BOOLEAN, js: arithmetic(op, a.js, b.js, 'boolean'), nonNull: true };
    if (a.t === 'boolean' || b.t === 'boolean') return undefinedOp();
    const p = promote(a.t, b.t);
    const x = convertPrim(a.js, a.t, p);
    const y = convertPrim(b.js, b.t, p);
    if (op === '<' || op === '>' || op === '<=' || op === '>=')
      return { t: T_BOOLEAN, js: `(${x} ${op} ${y})`, nonNull: true };
    if ((op === '&' || op === '|' || op === '^') && (p === 'float' || p === 'double')) return undefinedOp();
    const constant = foldArithmetic(op, l.constant, r.constant, p);
    const js = constant !== undefined ? literalJs(constant, p) : arithmetic(op, x, y, p);
    return { t: prim(p), js, constant, nonNull: true };
  }

  private equality(line: number, op: '==' | '!=', l: TExpr, r: TExpr): TExpr {
    const neg = op === '!=';
    const eq = neg ? '!==' : '===';
    const lp = isPrim(l.t);
    const rp = isPrim(r.t);
    if (lp || rp) {
      const a = this.primOperand(l);
      const b = this.primOperand(r);
      if (!a || !b || (a.t === 'boolean') !== (b.t === 'boolean'))
        return this.problem(line, `Incompatible operand types ${typeName(l.t)} and ${typeName(r.t)}`);
      if (a.t === 'boolean') return { t: T_BOOLEAN, js: `(${a.js} ${eq} ${b.js})`, nonNull: true };
      const p = promote(a.t, b.t);
      return { t: T_BOOLEAN, js: `(${convertPrim(a.js, a.t, p)} ${eq} ${convertPrim(b.js, b.t, p)})`, nonNull: true };
    }
    if (!(this.isCastable(l.t, r.t) || this.isCastable(r.t, l.t)))
      return this.problem(line, `Incompatible operand types ${typeName(l.t)} and ${typeName(r.t)}`);
    // Boxed integers: distinct objects unless both came from the Integer.valueOf cache (-128..127).
    const lc = l.t.k === 'class' ? l.t.name : '';
    const rc = r.t.k === 'class' ? r.t.name : '';
    if (lc === rc && (lc === 'Integer' || lc === 'Long' || lc === 'Short' || lc === 'Byte' || lc === 'Character')) {
      if (l.local !== undefined && l.local === r.local)
        return { t: T_BOOLEAN, js: neg ? 'false' : 'true', nonNull: true };
      const js = `$jl.sameBox(${l.js}, ${r.js})`;
      return { t: T_BOOLEAN, js: neg ? `(!${js})` : js, nonNull: true };
    }
    return { t: T_BOOLEAN, js: `(${l.js} ${eq} ${r.js})`, nonNull: true };
  }

  /** Whether a cast from s to t is legal (JLS 5.5, approximately: unrelated classes are not). */
  private isCastable(s: JType, t: JType): boolean {
    if (s.k === 'error' || t.k === 'error' || s.k === 'null' || t.k === 'null') return true;
    if (this.isSubtype(s, t) || this.isSubtype(t, s)) return true;
    if (s.k === 'class' && t.k === 'class') {
      const sc = lookupClassByName(s.name);
      const tc = lookupClassByName(t.name);
      if (!sc || !tc) return true;
      if (sc.isInterface && tc.isInterface) return true;
      const finalish = (c: LibClass): boolean =>
        c.test !== undefined &&
        !c.isInterface &&
        !['Object', 'Number', 'Throwable', 'Exception', 'RuntimeException'].includes(c.name);
      if (sc.isInterface) return !finalish(tc) || this.isSubtype(t, s);
      if (tc.isInterface) return !finalish(sc) || this.isSubtype(s, t);
      return false;
    }
    if (s.k === 'tvar' || t.k === 'tvar') return true;
    return false;
  }

  private conditional(e: Extract<Expr, { kind: 'conditional' }>, expected?: JType): TExpr {
    const cond = this.condition(e.cond);
    const a = this.expr(e.then, false, expected);
    const b = this.expr(e.else, false, expected);
    if (a.t.k === 'error' || b.t.k === 'error') return { t: T_ERROR, js: 'null' };
    const ap = unboxedType(a.t);
    const bp = unboxedType(b.t);
    let t: JType;
    if (sameType(a.t, b.t)) t = a.t;
    else if (
      ap &&
      bp &&
      ap.k === 'prim' &&
      bp.k === 'prim' &&
      (isPrim(a.t) || isPrim(b.t) || (isNumericPrim(ap) && isNumericPrim(bp)))
    ) {
      if (ap.name === 'boolean' || bp.name === 'boolean') t = ap.name === bp.name ? T_BOOLEAN : T_ERROR;
      else if (
        typeof b.constant === 'number' &&
        isPrim(a.t) &&
        ['byte', 'short', 'char'].includes(ap.name) &&
        b.t.k === 'prim' &&
        b.t.name === 'int' &&
        fitsIn(b.constant, ap.name)
      )
        t = ap;
      else if (
        typeof a.constant === 'number' &&
        isPrim(b.t) &&
        ['byte', 'short', 'char'].includes(bp.name) &&
        a.t.k === 'prim' &&
        a.t.name === 'int' &&
        fitsIn(a.constant, bp.name)
      )
        t = bp;
      else if ((ap.name === 'byte' && bp.name === 'short') || (ap.name === 'short' && bp.name === 'byte'))
        t = prim('short');
      else t = prim(promote(ap.name, bp.name));
    } else if (a.t.k === 'null' && !isPrim(b.t)) t = b.t;
    else if (b.t.k === 'null' && !isPrim(a.t)) t = a.t;
    else if (a.t.k === 'null') t = boxed(b.t);
    else if (b.t.k === 'null') t = boxed(a.t);
    else {
      const ar = isPrim(a.t) ? boxed(a.t) : a.t;
      const br = isPrim(b.t) ? boxed(b.t) : b.t;
      t = this.isSubtype(ar, br) ? br : this.isSubtype(br, ar) ? ar : (expected ?? T_OBJECT);
    }
    if (t.k === 'error')
      return this.problem(e.line, `Incompatible conditional operand types ${typeName(a.t)} and ${typeName(b.t)}`);
    const x = this.convertForConditional(e.then.line, a, t);
    const y = this.convertForConditional(e.else.line, b, t);
    return { t, js: `(${cond} ? ${x} : ${y})` };
  }

  private convertForConditional(line: number, x: TExpr, t: JType): string {
    if (isPrim(t) && isPrim(x.t) && !primWidens(x.t.name, t.name) && typeof x.constant === 'number')
      return literalJs(x.constant, t.name);
    return this.coerce(line, x, t);
  }

  private cast(e: Extract<Expr, { kind: 'cast' }>): TExpr {
    const t = this.resolveType(e.type);
    const x = this.expr(e.operand, false, t);
    if (x.t.k === 'error') return { t, js: x.js };
    const fail = (): never => this.problem(e.line, `Cannot cast from ${typeName(x.t)} to ${typeName(t)}`);
    if (isPrim(t)) {
      if (isPrim(x.t)) {
        if ((t.name === 'boolean') !== (x.t.name === 'boolean')) return fail();
        const constant = foldCast(x.constant, x.t.name, t.name);
        return {
          t,
          js: constant !== undefined ? literalJs(constant, t.name) : convertPrim(x.js, x.t.name, t.name),
          constant,
          nonNull: true,
        };
      }
      const u = unboxedName(x.t);
      if (u && x.t.k === 'class') {
        if ((t.name === 'boolean') !== (u === 'boolean') || !primWidens(u, t.name)) return fail();
        return { t, js: convertPrim(unbox(x.js, x.t.name, x.nonNull), u, t.name), nonNull: true };
      }
      // (int) obj: a checked cast to the box, then unboxing.
      if (x.t.k === 'class' && (x.t.name === 'Object' || x.t.name === 'Number' || x.t.name === 'Comparable')) {
        const boxType = cls(BOX[t.name]);
        const checked = this.checkedCast(e.line, x, boxType);
        return { t, js: unbox(checked, BOX[t.name]) };
      }
      return fail();
    }
    if (isPrim(x.t)) {
      const b = boxed(x.t);
      if (!this.isSubtype(b, t)) return fail();
      return { t, js: box(x.js, x.t.name), nonNull: true };
    }
    if (this.isSubtype(x.t, t)) return { t, js: x.js, nonNull: x.nonNull };
    if (!this.isCastable(x.t, t)) return fail();
    return { t, js: this.checkedCast(e.line, x, t) };
  }

  private checkedCast(line: number, x: TExpr, t: JType): string {
    const test = this.runtimeTest(line, t);
    const tmp = this.temp();
    const target = t.k === 'class' ? (lookupClassByName(t.name)?.qualified ?? t.name) : typeName(t);
    return `((${tmp} = ${x.js}) === null || ${test(tmp)} ? ${tmp} : $jl.castFail(${tmp}, ${JSON.stringify(target)}))`;
  }

  private runtimeTest(line: number, t: JType): (js: string) => string {
    if (t.k === 'array') {
      const kind = arrayKind(t.elem);
      return (js) => `$jl.isArrayOf(${js}, ${JSON.stringify(kind)})`;
    }
    if (t.k !== 'class') return () => 'true';
    const c = lookupClassByName(t.name);
    if (!c?.test)
      return this.problem(line, `Cannot perform instanceof check or cast against type ${typeName(t)} in Java UDFs`);
    return c.test;
  }

  // ---- assignment ----

  private assign(e: Extract<Expr, { kind: 'assign' }>): TExpr {
    const target = this.lvalue(e.target);
    const t = target.type;
    if (e.op === '=') {
      const v = e.value.kind === 'arrayInit' ? null : this.expr(e.value, false, t);
      const js =
        v === null
          ? this.problem(e.line, 'Array constants can only be used in initializers')
          : this.coerce(e.line, v, t);
      return { t, js: target.store(js) };
    }
    const op = e.op.slice(0, -1);
    const rhs = this.expr(e.value);
    const current: TExpr = { t, js: target.load() };
    const result = this.binaryOn(e.line, op, current, rhs, e.op);
    // Compound assignment casts the result back to the variable's type (JLS 15.26.2).
    let js: string;
    if (isClass(t, 'String')) {
      if (!isClass(result.t, 'String'))
        return this.problem(
          e.line,
          `The operator ${e.op} is undefined for the argument type(s) ${typeName(t)}, ${typeName(rhs.t)}`,
        );
      js = result.js;
    } else if (isPrim(t) && isPrim(result.t)) js = convertPrim(result.js, result.t.name, t.name);
    else {
      const u = unboxedName(t);
      if (!u || !isPrim(result.t))
        return this.problem(
          e.line,
          `The operator ${e.op} is undefined for the argument type(s) ${typeName(t)}, ${typeName(rhs.t)}`,
        );
      js = box(convertPrim(result.js, result.t.name, u), u);
    }
    return { t, js: target.store(js, true) };
  }

  private incdec(e: Extract<Expr, { kind: 'incdec' }>): TExpr {
    const target = this.lvalue(e.target);
    const t = target.type;
    const p = isPrim(t) ? t.name : unboxedName(t);
    if (!p || p === 'boolean') return this.problem(e.line, 'Invalid argument to operation ++/--');
    const old = this.temp();
    const oldPrim = isPrim(t) ? old : unbox(old, (t as { name: string }).name);
    const one = p === 'long' ? '1n' : '1';
    const pp = promote(p, 'int');
    const sum = arithmetic(e.op === '++' ? '+' : '-', convertPrim(oldPrim, p, pp), one, pp);
    let next = convertPrim(sum, pp, p);
    if (!isPrim(t)) next = box(next, p);
    // The old value is read once into a temp; the store happens through the target's own temps.
    const store = target.store(next, true, old);
    return { t, js: e.prefix ? store : `(${store}, ${old})` };
  }

  /** An assignable location: its type, a load, and a store (which may first read the old value into `oldTemp`). */
  private lvalue(e: Expr): {
    type: JType;
    load(): string;
    store(js: string, compound?: boolean, oldTemp?: string): string;
  } {
    if (e.kind === 'name') {
      const local = this.lookupLocal(e.name);
      if (!local) return this.problem(e.line, `${e.name} cannot be resolved to a variable`);
      return {
        type: local.type,
        load: () => local.js,
        store: (js, compound, oldTemp) => {
          if (compound && !local.assigned)
            this.report(e.line, `The local variable ${local.name} may not have been initialized`);
          local.assigned = true;
          if (local.final && (local.hasInit || compound))
            this.report(
              e.line,
              `The final local variable ${local.name} cannot be assigned. It must be blank and not using a compound assignment`,
            );
          return oldTemp ? `(${oldTemp} = ${local.js}, ${local.js} = ${js})` : `(${local.js} = ${js})`;
        },
      };
    }
    if (e.kind === 'index') {
      const a = this.expr(e.target);
      if (a.t.k !== 'array')
        return this.problem(
          e.line,
          `The type of the expression must be an array type but it resolved to ${typeName(a.t)}`,
        );
      const i = this.coerce(e.index.line, this.promoteIndex(this.expr(e.index)), T_INT);
      const at = this.temp();
      const it = this.temp();
      const elem = a.t.elem;
      return {
        type: elem,
        load: () => `${at}[${it}]`,
        store: (js, _compound, oldTemp) =>
          `(${at} = ${a.js}, ${it} = $jl.ai(${at}, ${i}), ${oldTemp ? `${oldTemp} = ${at}[${it}], ` : ''}${at}[${it}] = ${js})`,
      };
    }
    if (e.kind === 'field') {
      const r = this.resolve(e);
      if (r.kind === 'value' && r.e.local) return this.lvalue({ kind: 'name', line: e.line, name: r.e.local.name });
      if (r.kind === 'value' && e.target && e.name === 'length')
        return this.problem(e.line, 'The final field array.length cannot be assigned');
      return this.problem(e.line, `The left-hand side of an assignment must be a variable`);
    }
    return this.problem(e.line, 'The left-hand side of an assignment must be a variable');
  }
}

// ---- helpers ----

/** The JS local for a Java identifier: no Java name can reach a JS global or keyword. */
export function mangle(name: string): string {
  return `v$${name.replace(/[^A-Za-z0-9_$]/g, (c) => `$${c.charCodeAt(0).toString(16)}$`)}`;
}

function wrap(js: string): string {
  return js.startsWith('{') ? js : `{\n${js}\n}`;
}

/** JS that may be evaluated twice or out of order: a local, a temp, a literal. */
function isRepeatable(js: string): boolean {
  return /^(?:v\$[\w$]+|\$t\d+|\$ctx|-?\d[\w.]*|\(-?\d[\w.]*\)|true|false|null|"(?:[^"\\]|\\.)*")$/.test(js);
}

function fillTemplate(template: string, recv: string, args: readonly string[]): string {
  return template.replace(/\$(r|\d)/g, (_, k: string) => (k === 'r' ? recv : (args[Number(k)] ?? 'undefined')));
}

function arrayKind(elem: JType): string {
  return isPrim(elem) ? elem.name : 'Object';
}

function fitsIn(v: number, p: PrimName): boolean {
  if (p === 'byte') return v >= -128 && v <= 127;
  if (p === 'short') return v >= -32768 && v <= 32767;
  if (p === 'char') return v >= 0 && v <= 65535;
  return true;
}

function typeArgContains(target: JType, actual: JType): boolean {
  if (target.k === 'tvar' || actual.k === 'tvar' || target.k === 'error' || actual.k === 'error') return true;
  return sameType(target, actual);
}

function lookupClassByName(simple: string): LibClass | undefined {
  return lookupClass(simple) ?? lookupHidden(simple);
}

/** Classes referenced in types by simple name even where the UDF cannot name them (LocalDate, BigInteger...). */
function lookupHidden(simple: string): LibClass | undefined {
  for (const pkg of [
    'java.math.',
    'java.net.',
    'org.apache.cassandra.cql3.functions.types.',
    'org.apache.cassandra.cql3.functions.',
    'java.nio.',
  ]) {
    const c = lookupClass(pkg + simple);
    if (c) return c;
  }
  return undefined;
}

/** Binds method type variables in `formal` from `actual` (`reverse`: from an expected result type). */
function infer(
  formal: JType,
  actual: JType,
  env: Map<string, JType>,
  vars: ReadonlySet<string>,
  reverse = false,
): void {
  if (formal.k === 'tvar' && vars.has(formal.name)) {
    if (actual.k === 'null' || actual.k === 'error' || (actual.k === 'tvar' && actual.name === '?')) return;
    const bound = env.get(formal.name);
    if (bound === undefined) env.set(formal.name, actual);
    // Two different argument types: their least upper bound, approximated by Object.
    else if (!reverse && !sameType(bound, actual) && !(bound.k === 'tvar')) env.set(formal.name, T_OBJECT);
    return;
  }
  if (formal.k === 'array' && actual.k === 'array') infer(formal.elem, actual.elem, env, vars, reverse);
  if (formal.k === 'class' && actual.k === 'class' && formal.name === actual.name)
    formal.args.forEach((a, i) => {
      const x = actual.args[i];
      if (x) infer(a, x, env, vars, reverse);
    });
  if (formal.k === 'class' && actual.k === 'class' && formal.name !== actual.name && formal.args.length > 0) {
    // e.g. Collection<T> from ArrayList<Integer>: look through the actual's supertypes.
    const c = lookupClassByName(actual.name);
    if (!c) return;
    const cenv = new Map<string, JType>();
    c.tparams.forEach((p, i) => {
      cenv.set(p, actual.args[i] ?? T_OBJECT);
    });
    for (const s of c.supers) infer(formal, substitute(s, cenv), env, vars, reverse);
  }
}

function constantText(x: TExpr): string {
  const c = x.constant;
  if (typeof c === 'string') return c;
  if (typeof c === 'boolean') return String(c);
  if (x.t.k === 'prim' && x.t.name === 'char') return String.fromCharCode(c as number);
  if (x.t.k === 'prim' && x.t.name === 'double') return javaDoubleText(c as number, false);
  if (x.t.k === 'prim' && x.t.name === 'float') return javaDoubleText(c as number, true);
  return String(c);
}

function javaDoubleText(x: number, isFloat: boolean): string {
  // Compile-time folding of "a" + 1.5 uses the same text as the runtime's Double.toString.
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  let s = '';
  if (isFloat) {
    for (let p = 1; p <= 9; p++) {
      s = Math.abs(x).toExponential(p - 1);
      if (Math.fround(Number(s)) === Math.abs(x)) break;
    }
  } else s = Math.abs(x).toExponential();
  const [mant, expText] = s.split('e') as [string, string];
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0';
  const exp = Number(expText);
  const sign = x < 0 ? '-' : '';
  const ax = Math.abs(x);
  if (ax >= 1e-3 && ax < 1e7) {
    if (exp >= 0) {
      const ip = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits + '0'.repeat(exp + 1 - digits.length);
      const fp = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
      return `${sign}${ip}.${fp}`;
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  if (digits.length === 1) {
    const two = ax.toExponential(1);
    return `${sign}${two[0]}.${two[2]}E${Number(two.slice(two.indexOf('e') + 1))}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1)}E${exp}`;
}

function foldArithmetic(
  op: string,
  a: TExpr['constant'],
  b: TExpr['constant'],
  p: PrimName,
): number | bigint | undefined {
  if (a === undefined || b === undefined || typeof a === 'string' || typeof b === 'string') return undefined;
  if (typeof a === 'boolean' || typeof b === 'boolean') return undefined;
  if (p === 'int') {
    const x = Number(a) | 0;
    const y = Number(b) | 0;
    switch (op) {
      case '+':
        return (x + y) | 0;
      case '-':
        return (x - y) | 0;
      case '*':
        return Math.imul(x, y);
      case '/':
        return y === 0 ? undefined : (x / y) | 0;
      case '%':
        return y === 0 ? undefined : (x % y) | 0;
      case '&':
        return x & y;
      case '|':
        return x | y;
      case '^':
        return x ^ y;
    }
    return undefined;
  }
  if (p === 'long') {
    const x = BigInt(a);
    const y = BigInt(b);
    switch (op) {
      case '+':
        return BigInt.asIntN(64, x + y);
      case '-':
        return BigInt.asIntN(64, x - y);
      case '*':
        return BigInt.asIntN(64, x * y);
      case '/':
        return y === 0n ? undefined : BigInt.asIntN(64, x / y);
      case '%':
        return y === 0n ? undefined : x % y;
      case '&':
        return x & y;
      case '|':
        return x | y;
      case '^':
        return x ^ y;
    }
    return undefined;
  }
  const x = Number(a);
  const y = Number(b);
  let r: number;
  switch (op) {
    case '+':
      r = x + y;
      break;
    case '-':
      r = x - y;
      break;
    case '*':
      r = x * y;
      break;
    case '/':
      r = x / y;
      break;
    case '%':
      r = x % y;
      break;
    default:
      return undefined;
  }
  return p === 'float' ? Math.fround(r) : r;
}

function foldShift(op: string, a: TExpr['constant'], b: TExpr['constant'], p: PrimName): number | bigint | undefined {
  if ((typeof a !== 'number' && typeof a !== 'bigint') || (typeof b !== 'number' && typeof b !== 'bigint'))
    return undefined;
  if (p === 'int') {
    const x = Number(a) | 0;
    const n = Number(BigInt(b) & 31n);
    return op === '<<' ? x << n : op === '>>' ? x >> n : (x >>> n) | 0;
  }
  const x = BigInt(a);
  const n = BigInt(b) & 63n;
  return op === '<<' ? BigInt.asIntN(64, x << n) : op === '>>' ? x >> n : BigInt.asIntN(64, BigInt.asUintN(64, x) >> n);
}

function foldCast(c: TExpr['constant'], from: PrimName, to: PrimName): number | bigint | boolean | undefined {
  if (c === undefined || typeof c === 'string') return undefined;
  if (typeof c === 'boolean') return to === 'boolean' ? c : undefined;
  const asNum = (v: number | bigint): number => Number(v);
  if (to === 'long') {
    if (typeof c === 'bigint') return c;
    if (from === 'float' || from === 'double') {
      if (Number.isNaN(c)) return 0n;
      if (c >= 2 ** 63) return 2n ** 63n - 1n;
      if (c <= -(2 ** 63)) return -(2n ** 63n);
      return BigInt(Math.trunc(c));
    }
    return BigInt(c);
  }
  if (to === 'float' || to === 'double') {
    const v = asNum(c);
    return to === 'float' ? Math.fround(v) : v;
  }
  let i: number;
  if (typeof c === 'bigint') i = Number(BigInt.asIntN(32, c));
  else if (from === 'float' || from === 'double') {
    if (Number.isNaN(c)) i = 0;
    else if (c >= 2147483647) i = 2147483647;
    else if (c <= -2147483648) i = -2147483648;
    else i = Math.trunc(c) | 0;
  } else i = c;
  if (to === 'byte') return (i << 24) >> 24;
  if (to === 'short') return (i << 16) >> 16;
  if (to === 'char') return i & 65535;
  return i;
}
