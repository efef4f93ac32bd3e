// Recursive-descent building blocks shared by all statements, following Parser.g rule by rule:
// the token cursor and error reporting, identifiers and names, types, terms, selectors, WHERE
// relations and IF conditions. Decisions look a few tokens ahead instead of backtracking, so the
// common path never throws.

import { InvalidRequest, SyntaxError } from '../errors.js';
import { type NativeTypeName, native } from '../types/cql-type.js';
import type {
  BinaryOp,
  BindMarker,
  Condition,
  ConditionOp,
  InValues,
  Literal,
  MarkerRole,
  PropertyValue,
  QualifiedName,
  RawType,
  Relation,
  RelationOp,
  Selectable,
  Selector,
  Term,
} from './ast.js';
import { tokenize } from './lexer.js';
import { parserErrorMessage, tokenDisplay } from './syntax-error.js';
import { termText } from './term-text.js';
import {
  BASIC_UNRESERVED,
  K,
  NATIVE_TYPE_KEYWORDS,
  T,
  TOKEN_NAMES,
  TOKEN_TYPE_COUNT,
  type Token,
  UNRESERVED,
  UNRESERVED_FUNCTION,
} from './token.js';

/** Token types of Parser.g constant. */
const CONSTANT = new Uint8Array(TOKEN_TYPE_COUNT);
for (const t of [
  T.STRING_LITERAL,
  T.INTEGER,
  T.FLOAT,
  T.BOOLEAN,
  T.DURATION,
  T.UUID,
  T.HEXNUMBER,
  K.POSITIVE_NAN,
  K.NEGATIVE_NAN,
  K.POSITIVE_INFINITY,
  K.NEGATIVE_INFINITY,
])
  CONSTANT[t] = 1;

/** Parser.g reservedTypeNames: not usable as user type names. */
const RESERVED_TYPE_NAMES = new Set(['byte', 'complex', 'enum', 'date', 'interval', 'macaddr', 'bitstring']);

const RELATION_OPS: Partial<Record<number, RelationOp & ConditionOp>> = {
  [T.EQ]: '=',
  [T.LT]: '<',
  [T.LTE]: '<=',
  [T.GT]: '>',
  [T.GTE]: '>=',
  [T.NEQ]: '!=',
};

/** Cassandra's QualifiedName.toString(), as error messages print it: `ks.name`, unquoted. */
export function qualifiedNameToString(n: QualifiedName): string {
  return n.keyspace !== undefined ? `${n.keyspace}.${n.name}` : n.name;
}

export class ParserBase {
  protected readonly toks: Token[];
  protected p = 0;
  /** Index of the furthest token looked at, for the error snippet. */
  private maxFetched = 0;
  /** Index of the lexer's ERROR token, or beyond the end when there is none. */
  private readonly errorAt: number;
  protected readonly markers: BindMarker[] = [];

  constructor(protected readonly src: string) {
    this.toks = tokenize(src);
    const n = this.toks.length;
    this.errorAt = n >= 2 && this.toks[n - 2]!.type === T.ERROR ? n - 2 : n;
  }

  // ------------------------------------------------------------ cursor

  /** Token k ahead (1 = next). Reaching a lexer error reports it, as ANTLR's lazy lexer would. */
  protected lt(k = 1): Token {
    let i = this.p + k - 1;
    const last = this.toks.length - 1;
    if (i > last) i = last;
    if (i >= this.errorAt) throw new SyntaxError(this.toks[this.errorAt]!.text);
    if (i > this.maxFetched) this.maxFetched = i;
    return this.toks[i]!;
  }

  protected la(k = 1): number {
    return this.lt(k).type;
  }

  protected consume(): Token {
    const t = this.lt(1);
    if (t.type !== T.EOF) this.p++;
    return t;
  }

  protected accept(type: number): boolean {
    if (this.la() === type) {
      this.p++;
      return true;
    }
    return false;
  }

  protected expect(type: number): Token {
    const t = this.lt(1);
    if (t.type !== type) this.mismatch(type);
    this.p++;
    return t;
  }

  // ------------------------------------------------------------ errors

  protected mismatch(expected: number): never {
    const t = this.lt(1);
    throw this.syntaxError(`mismatched input ${tokenDisplay(t)} expecting ${TOKEN_NAMES[expected]}`, t, t);
  }

  /** No alternative matched; the decision failed at token `depth` ahead (ANTLR names that one). */
  protected noViable(depth = 1): never {
    const t = this.lt(depth);
    throw this.syntaxError(`no viable alternative at input ${tokenDisplay(t)}`, t, this.lt(1));
  }

  protected syntaxError(what: string, offending: Token, highlight: Token): SyntaxError {
    const last = this.toks[Math.min(this.maxFetched, this.toks.length - 1)]!;
    return new SyntaxError(parserErrorMessage(this.src, what, offending, highlight, last));
  }

  /** Parser.g addRecognitionError: a message without position. */
  protected recognitionError(message: string): never {
    throw new SyntaxError(message);
  }

  protected invalid(message: string): never {
    throw new InvalidRequest(message);
  }

  // ------------------------------------------------------------ identifiers and names

  /** IDENT, QUOTED_NAME or an unreserved keyword (Parser.g ident / noncol_ident / fident). */
  protected isIdent(type: number): boolean {
    return type === T.IDENT || type === T.QUOTED_NAME || UNRESERVED[type] === 1;
  }

  protected identText(t: Token): string {
    return t.type === T.QUOTED_NAME ? t.text : t.text.toLowerCase();
  }

  protected ident(): string {
    const t = this.lt(1);
    if (!this.isIdent(t.type)) this.noViable();
    this.p++;
    return this.identText(t);
  }

  /** ident, or "" for the legacy empty quoted name. */
  protected cident(): string {
    if (this.la() === T.EMPTY_QUOTED_NAME) {
      this.p++;
      return '';
    }
    return this.ident();
  }

  private nameOrMarker(what: string): string {
    if (this.la() === T.QMARK) this.recognitionError(`Bind variables cannot be used for ${what} names`);
    return this.ident();
  }

  protected keyspaceName(): string {
    return this.nameOrMarker('keyspace');
  }

  /** `[ks.]name` for tables, views (what = 'table') and indexes (what = 'index'). */
  protected qualifiedName(what: 'table' | 'index' = 'table'): QualifiedName {
    const t = this.la();
    if ((this.isIdent(t) || t === T.QMARK) && this.la(2) === T.DOT) {
      const keyspace = this.keyspaceName();
      this.p++;
      return { keyspace, name: this.nameOrMarker(what) };
    }
    return { keyspace: undefined, name: this.nameOrMarker(what) };
  }

  /** Parser.g userTypeName: `[ks.]non_type_ident`. */
  protected userTypeName(): QualifiedName {
    let keyspace: string | undefined;
    if (this.isIdent(this.la()) && this.la(2) === T.DOT) {
      keyspace = this.ident();
      this.p++;
    }
    const t = this.lt(1);
    let name: string;
    if (t.type === T.IDENT) {
      name = t.text.toLowerCase();
      if (RESERVED_TYPE_NAMES.has(t.text)) this.recognitionError(`Invalid (reserved) user type name ${t.text}`);
    } else if (t.type === T.QUOTED_NAME) name = t.text;
    else if (BASIC_UNRESERVED[t.type] === 1 || t.type === K.KEY) name = t.text.toLowerCase();
    else this.noViable();
    this.p++;
    return { keyspace, name };
  }

  /** Parser.g allowedFunctionName. */
  protected isFunctionNameToken(type: number): boolean {
    return (
      type === T.IDENT ||
      type === T.QUOTED_NAME ||
      UNRESERVED_FUNCTION[type] === 1 ||
      type === K.TOKEN ||
      type === K.COUNT
    );
  }

  protected allowedFunctionName(): string {
    const t = this.lt(1);
    if (!this.isFunctionNameToken(t.type)) this.noViable();
    this.p++;
    return t.type === T.QUOTED_NAME ? t.text : t.text.toLowerCase();
  }

  /** Parser.g functionName: `[ks.]allowedFunctionName`. */
  protected functionName(): QualifiedName {
    if ((this.isIdent(this.la()) || this.la() === T.QMARK) && this.la(2) === T.DOT) {
      const keyspace = this.keyspaceName();
      this.p++;
      return { keyspace, name: this.allowedFunctionName() };
    }
    return { keyspace: undefined, name: this.allowedFunctionName() };
  }

  /** Parser.g roleName / userOrRoleName: identifiers fold case, string literals keep it. */
  protected roleName(): string {
    const t = this.lt(1);
    if (t.type === T.STRING_LITERAL) {
      this.p++;
      return t.text;
    }
    if (t.type === T.QMARK) this.recognitionError('Bind variables cannot be used for role names');
    return this.ident();
  }

  protected ifNotExists(): boolean {
    if (this.la() !== K.IF) return false;
    this.p++;
    this.expect(K.NOT);
    this.expect(K.EXISTS);
    return true;
  }

  protected ifExists(): boolean {
    if (this.la() !== K.IF) return false;
    this.p++;
    this.expect(K.EXISTS);
    return true;
  }

  // ------------------------------------------------------------ types

  protected comparatorType(): RawType {
    const t = this.lt(1);
    const nativeName = NATIVE_TYPE_KEYWORDS.get(t.type);
    if (nativeName !== undefined) {
      this.p++;
      return native(nativeName as NativeTypeName) as RawType;
    }
    switch (t.type) {
      case K.MAP: {
        this.p++;
        this.expect(T.LT);
        const key = this.comparatorType();
        this.expect(T.COMMA);
        const value = this.comparatorType();
        this.expect(T.GT);
        return { kind: 'map', key, value, frozen: false };
      }
      case K.LIST:
      case K.SET: {
        this.p++;
        this.expect(T.LT);
        const element = this.comparatorType();
        this.expect(T.GT);
        return { kind: t.type === K.LIST ? 'list' : 'set', element, frozen: false };
      }
      case K.TUPLE: {
        this.p++;
        this.expect(T.LT);
        const elements = [freezeInner(this.comparatorType())];
        while (this.accept(T.COMMA)) elements.push(freezeInner(this.comparatorType()));
        this.expect(T.GT);
        return { kind: 'tuple', elements };
      }
      case K.VECTOR: {
        this.p++;
        this.expect(T.LT);
        const element = this.comparatorType();
        this.expect(T.COMMA);
        const d = this.expect(T.INTEGER);
        this.expect(T.GT);
        return { kind: 'vector', element, dimension: Number.parseInt(d.text, 10) };
      }
      case K.FROZEN: {
        this.p++;
        this.expect(T.LT);
        const inner = this.comparatorType();
        this.expect(T.GT);
        return this.freeze(inner);
      }
      case T.STRING_LITERAL:
        this.p++;
        return { kind: 'custom', className: t.text };
      default: {
        const name = this.userTypeName();
        return { kind: 'userType', keyspace: name.keyspace, name: name.name, frozen: false };
      }
    }
  }

  private freeze(t: RawType): RawType {
    switch (t.kind) {
      case 'list':
      case 'set':
      case 'map':
      case 'userType':
        return freezeDeep(t);
      case 'tuple':
      case 'vector':
        return t;
      default:
        this.recognitionError('frozen<> is only allowed on collections, tuples, and user-defined types');
    }
  }

  protected nativeType(): NativeTypeName {
    const t = this.lt(1);
    const name = NATIVE_TYPE_KEYWORDS.get(t.type);
    if (name === undefined) this.noViable();
    this.p++;
    return name as NativeTypeName;
  }

  /** Can a type start at token k (for telling `(type) x` casts from tuples)? */
  private typeCastAhead(startsOperand: (k: number) => boolean): boolean {
    const t = this.la(2);
    // Native type names are also column names: `(text)` is a tuple unless an operand follows.
    if (NATIVE_TYPE_KEYWORDS.has(t) || t === T.STRING_LITERAL) return this.la(3) === T.RPAREN && startsOperand(4);
    if (t === K.MAP || t === K.LIST || t === K.FROZEN || t === K.TUPLE || t === K.SET || t === K.VECTOR) {
      return this.la(3) === T.LT;
    }
    if (t === T.IDENT || t === T.QUOTED_NAME || BASIC_UNRESERVED[t] === 1 || t === K.KEY) {
      if (this.la(3) === T.RPAREN) return startsOperand(4);
      if (this.la(3) === T.DOT && this.isIdent(this.la(4)) && this.la(5) === T.RPAREN) return startsOperand(6);
    }
    return false;
  }

  // ------------------------------------------------------------ terms

  protected newMarker(name: string | undefined, role: MarkerRole, pos: number): BindMarker {
    const m: BindMarker = { kind: 'marker', index: this.markers.length, name, role, pos };
    this.markers.push(m);
    return m;
  }

  /** Parser.g marker / inMarker / jsonValue markers: `?` or `:name`. */
  protected marker(role: MarkerRole = 'value'): BindMarker {
    const t = this.lt(1);
    if (t.type === T.QMARK) {
      this.p++;
      return this.newMarker(undefined, role, t.start);
    }
    this.expect(T.COLON);
    return this.newMarker(this.ident(), role, t.start);
  }

  protected isConstant(type: number): boolean {
    return CONSTANT[type] === 1;
  }

  /** Parser.g constant. */
  protected constant(): Literal {
    const t = this.lt(1);
    const pos = t.start;
    let type: Literal['type'];
    let text = t.text;
    switch (t.type) {
      case T.STRING_LITERAL:
        type = 'string';
        break;
      case T.INTEGER:
        type = 'integer';
        break;
      case T.FLOAT:
        type = 'float';
        break;
      case T.BOOLEAN:
        type = 'boolean';
        break;
      case T.DURATION:
        type = 'duration';
        break;
      case T.UUID:
        type = 'uuid';
        break;
      case T.HEXNUMBER:
        type = 'hex';
        break;
      case K.POSITIVE_NAN:
      case K.NEGATIVE_NAN:
        type = 'float';
        text = 'NaN';
        break;
      case K.POSITIVE_INFINITY:
        type = 'float';
        text = 'Infinity';
        break;
      case K.NEGATIVE_INFINITY:
        type = 'float';
        text = '-Infinity';
        break;
      default:
        this.noViable();
    }
    this.p++;
    return { kind: 'literal', type, text, pos };
  }

  /** Can a simpleTerm start at token k? Identifiers count only as function calls. */
  protected startsSimpleTerm(k: number): boolean {
    const t = this.la(k);
    if (this.isConstant(t)) return true;
    switch (t) {
      case K.NULL:
      case T.QMARK:
      case T.COLON:
      case T.LBRACKET:
      case T.LBRACE:
      case T.LPAREN:
      case K.CAST:
        return true;
    }
    if (this.isFunctionNameToken(t)) {
      const n = this.la(k + 1);
      if (n === T.LPAREN) return true;
      if (n === T.DOT) return this.isFunctionNameToken(this.la(k + 2)) && this.la(k + 3) === T.LPAREN;
    }
    return false;
  }

  protected startsTermGroup(k: number): boolean {
    return this.la(k) === T.MINUS || this.startsSimpleTerm(k);
  }

  /** Parser.g term (termAddition). */
  protected term(): Term {
    let left = this.termMultiplication();
    for (;;) {
      const t = this.la();
      if ((t !== T.PLUS && t !== T.MINUS) || !this.startsTermGroup(2)) return left;
      const pos = this.consume().start;
      const right = this.termMultiplication();
      left = { kind: 'binary', op: t === T.PLUS ? '+' : '-', left, right, pos };
    }
  }

  private termMultiplication(): Term {
    let left = this.termGroup();
    for (;;) {
      const t = this.la();
      let op: BinaryOp;
      if (t === T.STAR) op = '*';
      else if (t === T.SLASH) op = '/';
      else if (t === T.PERCENT) op = '%';
      else return left;
      const pos = this.consume().start;
      const right = this.termGroup();
      left = { kind: 'binary', op, left, right, pos };
    }
  }

  private termGroup(): Term {
    if (this.la() === T.MINUS) {
      const pos = this.consume().start;
      return { kind: 'negate', term: this.simpleTerm(), pos };
    }
    return this.simpleTerm();
  }

  protected simpleTerm(): Term {
    const t = this.lt(1);
    const pos = t.start;
    if (this.isConstant(t.type)) return this.constant();
    switch (t.type) {
      case K.NULL:
        this.p++;
        return { kind: 'null', pos };
      case T.QMARK:
      case T.COLON:
        return this.marker();
      case T.LBRACKET: {
        this.p++;
        const elements: Term[] = [];
        if (this.la() !== T.RBRACKET) {
          elements.push(this.term());
          while (this.accept(T.COMMA)) elements.push(this.term());
        }
        this.expect(T.RBRACKET);
        return { kind: 'list', elements, pos };
      }
      case T.LBRACE:
        return this.braceLiteral();
      case T.LPAREN: {
        if (this.typeCastAhead((k) => this.startsSimpleTerm(k))) {
          this.p++;
          const type = this.comparatorType();
          this.expect(T.RPAREN);
          return { kind: 'typeHint', type, term: this.simpleTerm(), pos };
        }
        return this.tupleLiteral();
      }
      case K.CAST:
        if (this.la(2) === T.LPAREN) {
          this.p += 2;
          const term = this.simpleTerm();
          this.expect(K.AS);
          const type = this.nativeType();
          this.expect(T.RPAREN);
          return { kind: 'cast', term, type, pos };
        }
        break;
    }
    if (this.isFunctionNameToken(t.type)) {
      const n = this.la(2);
      if (n === T.LPAREN || n === T.DOT) {
        const fn = this.functionName();
        this.expect(T.LPAREN);
        const args: Term[] = [];
        if (this.la() !== T.RPAREN) {
          args.push(this.term());
          while (this.accept(T.COMMA)) args.push(this.term());
        }
        this.expect(T.RPAREN);
        return { kind: 'function', keyspace: fn.keyspace, name: fn.name, args, pos };
      }
      this.noViable(2);
    }
    return this.noViable();
  }

  /** `{}` (empty set), `{a: 1}` (UDT), `{k: v, ...}` (map), `{a, b}` (set). */
  private braceLiteral(): Term {
    const pos = this.expect(T.LBRACE).start;
    if (this.accept(T.RBRACE)) return { kind: 'set', elements: [], pos };
    if (this.isIdent(this.la()) && this.la(2) === T.COLON) {
      const fields: { name: string; value: Term }[] = [];
      do {
        const name = this.ident();
        this.expect(T.COLON);
        fields.push({ name, value: this.term() });
      } while (this.accept(T.COMMA));
      this.expect(T.RBRACE);
      return { kind: 'udt', fields, pos };
    }
    const first = this.term();
    if (this.accept(T.COLON)) {
      const entries: [Term, Term][] = [[first, this.term()]];
      while (this.accept(T.COMMA)) {
        const k = this.term();
        this.expect(T.COLON);
        entries.push([k, this.term()]);
      }
      this.expect(T.RBRACE);
      return { kind: 'map', entries, pos };
    }
    const elements = [first];
    while (this.accept(T.COMMA)) elements.push(this.term());
    this.expect(T.RBRACE);
    return { kind: 'set', elements, pos };
  }

  protected tupleLiteral(): Term {
    const pos = this.expect(T.LPAREN).start;
    const elements = [this.term()];
    while (this.accept(T.COMMA)) elements.push(this.term());
    this.expect(T.RPAREN);
    return { kind: 'tuple', elements, pos };
  }

  /** Parser.g intValue: INTEGER or a marker. */
  protected intValue(): Term {
    const t = this.la();
    if (t === T.INTEGER) return this.constant();
    if (t === T.QMARK || t === T.COLON) return this.marker();
    return this.noViable();
  }

  // ------------------------------------------------------------ properties (WITH a = b AND ...)

  protected properties(into: Map<string, PropertyValue>): void {
    this.property(into);
    while (this.accept(K.AND)) this.property(into);
  }

  protected property(into: Map<string, PropertyValue>): void {
    const name = this.ident();
    this.expect(T.EQ);
    let value: PropertyValue;
    if (this.la() === T.LBRACE) value = { kind: 'map', entries: this.propertyMap() };
    else if (this.isConstant(this.la())) value = { kind: 'simple', value: this.constant().text };
    else if (UNRESERVED[this.la()] === 1) value = { kind: 'simple', value: this.consume().text };
    else this.noViable();
    if (into.has(name)) this.recognitionError(`Multiple definition for property '${name}'`);
    into.set(name, value);
  }

  /** Parser.g fullMapLiteral + convertPropertyMap: constants only, as raw text. */
  protected propertyMap(): Map<string, string> {
    this.expect(T.LBRACE);
    const pairs: [Term, Term][] = [];
    if (this.la() !== T.RBRACE) {
      do {
        const k = this.term();
        this.expect(T.COLON);
        pairs.push([k, this.term()]);
      } while (this.accept(T.COMMA));
    }
    this.expect(T.RBRACE);
    const out = new Map<string, string>();
    for (const [k, v] of pairs) {
      if (k.kind !== 'literal') {
        let msg = `Invalid property name: ${termText(k)}`;
        if (k.kind === 'marker') msg += ' (bind variables are not supported in DDL queries)';
        this.recognitionError(msg);
      }
      if (v.kind !== 'literal') {
        let msg = `Invalid property value: ${termText(v)} for property: ${termText(k)}`;
        if (v.kind === 'marker') msg += ' (bind variables are not supported in DDL queries)';
        this.recognitionError(msg);
      }
      if (out.has(k.text)) this.recognitionError(`Multiple definition for property ${k.text}`);
      out.set(k.text, v.text);
    }
    return out;
  }

  // ------------------------------------------------------------ selectors

  /** Can a selector start at token k? (For SELECT JSON / DISTINCT, which are also column names.) */
  protected startsSelector(k: number): boolean {
    const t = this.la(k);
    return this.isIdent(t) || t === T.STAR || t === K.TOKEN || t === T.MINUS || this.startsSimpleTerm(k);
  }

  protected selectors(): Selector[] {
    if (this.accept(T.STAR)) return [];
    const out = [this.selector()];
    while (this.accept(T.COMMA)) out.push(this.selector());
    return out;
  }

  private selector(): Selector {
    const selectable = this.unaliasedSelector();
    let alias: string | undefined;
    if (this.accept(K.AS)) alias = this.ident();
    return { selectable, alias };
  }

  protected unaliasedSelector(): Selectable {
    let left = this.selectionMultiplication();
    for (;;) {
      const t = this.la();
      if (t !== T.PLUS && t !== T.MINUS) return left;
      const pos = this.consume().start;
      const right = this.selectionMultiplication();
      left = { kind: 'binary', op: t === T.PLUS ? '+' : '-', left, right, pos };
    }
  }

  private selectionMultiplication(): Selectable {
    let left = this.selectionGroup();
    for (;;) {
      const t = this.la();
      let op: BinaryOp;
      if (t === T.STAR) op = '*';
      else if (t === T.SLASH) op = '/';
      else if (t === T.PERCENT) op = '%';
      else return left;
      const pos = this.consume().start;
      const right = this.selectionGroup();
      left = { kind: 'binary', op, left, right, pos };
    }
  }

  private selectionGroup(): Selectable {
    if (this.la() === T.MINUS) {
      const pos = this.consume().start;
      return { kind: 'negate', arg: this.selectionGroup(), pos };
    }
    return this.selectorModifiers(this.selectionGroupWithoutField());
  }

  /** `.field` and `[key]` / `[from..to]` after a selector. */
  private selectorModifiers(s: Selectable): Selectable {
    for (;;) {
      const t = this.lt(1);
      if (t.type === T.DOT) {
        this.p++;
        s = { kind: 'field', arg: s, field: this.ident(), pos: t.start };
      } else if (t.type === T.LBRACKET) {
        this.p++;
        if (this.accept(T.RANGE)) {
          const to = this.term();
          this.expect(T.RBRACKET);
          s = { kind: 'slice', arg: s, from: undefined, to, pos: t.start };
          continue;
        }
        const key = this.term();
        if (this.accept(T.RANGE)) {
          const to = this.la() === T.RBRACKET ? undefined : this.term();
          this.expect(T.RBRACKET);
          s = { kind: 'slice', arg: s, from: key, to, pos: t.start };
        } else {
          this.expect(T.RBRACKET);
          s = { kind: 'element', arg: s, key, pos: t.start };
        }
      } else return s;
    }
  }

  private selectionGroupWithoutField(): Selectable {
    const t = this.lt(1);
    const pos = t.start;
    switch (t.type) {
      case T.LPAREN: {
        if (this.typeCastAhead((k) => this.startsSelector(k) && this.la(k) !== T.STAR && this.la(k) !== T.MINUS)) {
          this.p++;
          const type = this.comparatorType();
          this.expect(T.RPAREN);
          return { kind: 'typeHint', type, arg: this.selectionGroupWithoutField(), pos };
        }
        this.p++;
        const elements = [this.unaliasedSelector()];
        while (this.accept(T.COMMA)) elements.push(this.unaliasedSelector());
        this.expect(T.RPAREN);
        return { kind: 'tuple', elements, pos };
      }
      case T.LBRACKET: {
        this.p++;
        const elements: Selectable[] = [];
        if (this.la() !== T.RBRACKET) {
          elements.push(this.unaliasedSelector());
          while (this.accept(T.COMMA)) elements.push(this.unaliasedSelector());
        }
        this.expect(T.RBRACKET);
        return { kind: 'list', elements, pos };
      }
      case T.LBRACE: {
        this.p++;
        if (this.accept(T.RBRACE)) return { kind: 'set', elements: [], pos };
        const first = this.unaliasedSelector();
        if (this.accept(T.COLON)) {
          const entries: [Selectable, Selectable][] = [[first, this.unaliasedSelector()]];
          while (this.accept(T.COMMA)) {
            const k = this.unaliasedSelector();
            this.expect(T.COLON);
            entries.push([k, this.unaliasedSelector()]);
          }
          this.expect(T.RBRACE);
          return { kind: 'mapOrUdt', entries, pos };
        }
        const elements = [first];
        while (this.accept(T.COMMA)) elements.push(this.unaliasedSelector());
        this.expect(T.RBRACE);
        return { kind: 'set', elements, pos };
      }
      case K.NULL:
        this.p++;
        return { kind: 'term', term: { kind: 'null', pos }, pos };
      case T.QMARK:
      case T.COLON:
        return { kind: 'term', term: this.marker(), pos };
    }
    if (this.isConstant(t.type)) return { kind: 'term', term: this.constant(), pos };
    // Fail on the token itself before looking further, so the error snippet ends where Cassandra's does.
    if (!this.isIdent(t.type) && !this.isFunctionNameToken(t.type)) this.noViable();
    if (this.la(2) === T.LPAREN) {
      switch (t.type) {
        case K.COUNT:
          if (this.la(3) === T.STAR && this.la(4) === T.RPAREN) {
            this.p += 4;
            return { kind: 'countRows', pos };
          }
          break;
        case K.WRITETIME:
        case K.MAXWRITETIME:
        case K.TTL: {
          this.p += 2;
          const colPos = this.lt(1).start;
          const col: Selectable = { kind: 'column', name: this.ident(), pos: colPos };
          const target = this.selectorModifiers(col);
          this.expect(T.RPAREN);
          const kind = t.type === K.TTL ? 'ttl' : t.type === K.WRITETIME ? 'writetime' : 'maxwritetime';
          return { kind, target, pos };
        }
        case K.CAST: {
          this.p += 2;
          const arg = this.unaliasedSelector();
          this.expect(K.AS);
          const type = this.nativeType();
          this.expect(T.RPAREN);
          return { kind: 'cast', arg, type, pos };
        }
      }
      if (this.isFunctionNameToken(t.type)) return this.selectionFunction();
    }
    if (this.la(2) === T.DOT && this.isFunctionNameToken(this.la(3)) && this.la(4) === T.LPAREN) {
      if (this.isIdent(t.type) || t.type === T.QMARK) return this.selectionFunction();
    }
    if (this.isIdent(t.type)) {
      this.p++;
      return { kind: 'column', name: this.identText(t), pos };
    }
    return this.noViable();
  }

  private selectionFunction(): Selectable {
    const pos = this.lt(1).start;
    const fn = this.functionName();
    this.expect(T.LPAREN);
    const args: Selectable[] = [];
    if (this.la() !== T.RPAREN) {
      args.push(this.unaliasedSelector());
      while (this.accept(T.COMMA)) args.push(this.unaliasedSelector());
    }
    this.expect(T.RPAREN);
    return { kind: 'function', keyspace: fn.keyspace, name: fn.name, args, pos };
  }

  // ------------------------------------------------------------ WHERE

  protected whereClause(): Relation[] {
    const out: Relation[] = [];
    this.relationOrExpression(out);
    while (this.accept(K.AND)) this.relationOrExpression(out);
    return out;
  }

  private relationOrExpression(out: Relation[]): void {
    if (this.la() === T.EXPR) {
      const pos = this.consume().start;
      const name = this.nameOrMarker('index');
      this.expect(T.COMMA);
      const value = this.term();
      this.expect(T.RPAREN);
      out.push({ kind: 'customIndex', index: { keyspace: undefined, name }, value, pos });
      return;
    }
    this.relation(out);
  }

  private relationOp(): RelationOp | undefined {
    const op = RELATION_OPS[this.la()];
    if (op !== undefined) this.p++;
    return op;
  }

  protected inValues(): InValues {
    const t = this.la();
    if (t === T.QMARK || t === T.COLON) return { kind: 'marker', marker: this.marker('in') };
    if (t !== T.LPAREN) this.noViable();
    this.p++;
    const terms: Term[] = [];
    if (this.la() !== T.RPAREN) {
      terms.push(this.term());
      while (this.accept(T.COMMA)) terms.push(this.term());
    }
    this.expect(T.RPAREN);
    return { kind: 'terms', terms };
  }

  private tupleOfIdentifiers(): string[] {
    this.expect(T.LPAREN);
    const ids = [this.cident()];
    while (this.accept(T.COMMA)) ids.push(this.cident());
    this.expect(T.RPAREN);
    return ids;
  }

  private relation(out: Relation[]): void {
    const t = this.lt(1);
    const pos = t.start;
    if (t.type === K.TOKEN) {
      this.p++;
      const columns = this.tupleOfIdentifiers();
      const op = this.relationOp();
      if (op === undefined) this.noViable();
      out.push({ kind: 'token', columns, op, value: this.term(), pos });
      return;
    }
    if (t.type === T.LPAREN) {
      const n = this.la(3);
      if ((this.isIdent(this.la(2)) || this.la(2) === T.EMPTY_QUOTED_NAME) && (n === T.COMMA || n === T.RPAREN)) {
        const columns = this.tupleOfIdentifiers();
        if (this.accept(K.IN)) {
          out.push({ kind: 'multi', columns, op: 'IN', value: undefined, in: this.multiColumnInValues(), pos });
          return;
        }
        const op = this.relationOp();
        if (op === undefined) this.noViable();
        const value = this.la() === T.LPAREN ? this.tupleLiteral() : this.marker();
        out.push({ kind: 'multi', columns, op, value, in: undefined, pos });
        return;
      }
      this.p++;
      this.relation(out);
      this.expect(T.RPAREN);
      return;
    }
    if (!this.isIdent(t.type) && t.type !== T.EMPTY_QUOTED_NAME) this.noViable();
    const column = this.cident();
    const next = this.la();
    const op = RELATION_OPS[next];
    if (op !== undefined) {
      this.p++;
      out.push({ kind: 'single', column, op, value: this.term(), in: undefined, pos });
      return;
    }
    switch (next) {
      case K.IN:
        this.p++;
        out.push({ kind: 'single', column, op: 'IN', value: undefined, in: this.inValues(), pos });
        return;
      case K.CONTAINS: {
        this.p++;
        const key = this.accept(K.KEY);
        out.push({
          kind: 'single',
          column,
          op: key ? 'CONTAINS KEY' : 'CONTAINS',
          value: this.term(),
          in: undefined,
          pos,
        });
        return;
      }
      case K.LIKE:
        this.p++;
        out.push({ kind: 'single', column, op: 'LIKE', value: this.term(), in: undefined, pos });
        return;
      case K.IS: {
        this.p++;
        this.expect(K.NOT);
        const nullPos = this.expect(K.NULL).start;
        out.push({ kind: 'single', column, op: 'IS NOT', value: { kind: 'null', pos: nullPos }, in: undefined, pos });
        return;
      }
      case T.LBRACKET: {
        this.p++;
        const key = this.term();
        this.expect(T.RBRACKET);
        const eop = this.relationOp();
        if (eop === undefined) this.noViable();
        out.push({ kind: 'element', column, key, op: eop, value: this.term(), pos });
        return;
      }
    }
    // ANTLR's decision covered the column and the operator: name the operator, bracket the column.
    this.p--;
    this.noViable(2);
  }

  private multiColumnInValues(): InValues {
    const t = this.la();
    if (t === T.QMARK || t === T.COLON) return { kind: 'marker', marker: this.marker('in') };
    this.expect(T.LPAREN);
    const terms: Term[] = [];
    if (this.accept(T.RPAREN)) return { kind: 'terms', terms };
    if (this.la() === T.LPAREN) {
      terms.push(this.tupleLiteral());
      while (this.accept(T.COMMA)) terms.push(this.tupleLiteral());
    } else {
      terms.push(this.marker());
      while (this.accept(T.COMMA)) terms.push(this.marker());
    }
    this.expect(T.RPAREN);
    return { kind: 'terms', terms };
  }

  // ------------------------------------------------------------ IF conditions

  protected conditions(): Condition[] {
    const out = [this.columnCondition()];
    while (this.accept(K.AND)) out.push(this.columnCondition());
    return out;
  }

  private columnCondition(): Condition {
    const pos = this.lt(1).start;
    const column = this.cident();
    let element: Term | undefined;
    let field: string | undefined;
    const t = this.la();
    if (t === T.LBRACKET) {
      this.p++;
      element = this.term();
      this.expect(T.RBRACKET);
    } else if (t === T.DOT) {
      this.p++;
      field = this.ident();
    } else if (t === K.CONTAINS) {
      this.p++;
      const key = this.accept(K.KEY);
      const value = this.term();
      return { column, element, field, op: key ? 'CONTAINS KEY' : 'CONTAINS', value, in: undefined, pos };
    }
    if (this.accept(K.IN)) return { column, element, field, op: 'IN', value: undefined, in: this.inValues(), pos };
    const op = RELATION_OPS[this.la()];
    if (op === undefined) this.noViable();
    this.p++;
    return { column, element, field, op, value: this.term(), in: undefined, pos };
  }
}

/** frozen<...> freezes the collections and UDTs inside too, as Cassandra's CQL3Type.Raw.freeze() does. */
function freezeDeep(t: RawType): RawType {
  switch (t.kind) {
    case 'list':
    case 'set':
      return { ...t, element: freezeDeep(t.element), frozen: true };
    case 'map':
      return { ...t, key: freezeDeep(t.key), value: freezeDeep(t.value), frozen: true };
    case 'userType':
      return { ...t, frozen: true };
    default:
      return t;
  }
}

/** Inner collections and UDTs of a tuple are frozen, as Cassandra's tuple type does. */
function freezeInner(t: RawType): RawType {
  if (t.kind === 'list' || t.kind === 'set' || t.kind === 'map' || t.kind === 'userType') return { ...t, frozen: true };
  return t;
}
