// Recursive-descent parser for a Java method body (Java 8 statements and expressions). The body is parsed as
// Cassandra's template places it: inside a method whose closing `}` and the class's `}` follow it, so a body that
// closes the method early and declares fields, initializers, methods or classes is seen as doing so.
import type {
  ArrayInit,
  Block,
  CatchClause,
  ClassMember,
  Expr,
  LocalVarDecl,
  MethodBody,
  Stmt,
  SwitchCase,
  TypeArgNode,
  TypeNode,
} from './java-ast.js';
import { type Token, tokenize } from './java-lexer.js';
import { JavaSyntaxError } from './java-problems.js';

const PRIMITIVES = new Set(['boolean', 'byte', 'short', 'char', 'int', 'long', 'float', 'double']);
const MODIFIERS = new Set([
  'public',
  'protected',
  'private',
  'static',
  'final',
  'abstract',
  'native',
  'synchronized',
  'transient',
  'volatile',
  'strictfp',
]);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '>>>=']);

/** Binary operators by precedence level, lowest first. */
const BINARY_LEVELS: readonly (readonly string[])[] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['==', '!='],
  ['<', '>', '<=', '>=', 'instanceof'],
  ['<<', '>>', '>>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

export function parseMethodBody(body: string): MethodBody {
  // The template's "\n    }\n}" closes the method and then the class.
  const parser = new Parser(tokenize(`${body}\n}\n}`));
  return parser.methodBody();
}

class Parser {
  private pos = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get tok(): Token {
    return this.tokens[this.pos]!;
  }

  private peek(k = 1): Token {
    return this.tokens[Math.min(this.pos + k, this.tokens.length - 1)]!;
  }

  private is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'op' || t.kind === 'keyword') && t.text === text;
  }

  private accept(text: string): boolean {
    if (this.is(text)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(text: string, completes = 'BlockStatements'): Token {
    if (this.is(text)) return this.tokens[this.pos++]!;
    throw this.syntaxError(text, completes);
  }

  private syntaxError(expected: string, completes: string): JavaSyntaxError {
    const t = this.tok;
    if (t.kind === 'eof')
      return new JavaSyntaxError(t.line, `Syntax error, insert "${expected}" to complete ${completes}`);
    const prev = this.tokens[this.pos - 1];
    if (expected === ';' && prev && prev.line < t.line)
      return new JavaSyntaxError(prev.line, `Syntax error, insert ";" to complete ${completes}`);
    return new JavaSyntaxError(t.line, `Syntax error on token "${t.text}", ${expected} expected`);
  }

  private ident(what = 'Identifier'): string {
    const t = this.tok;
    if (t.kind !== 'ident') {
      if (t.kind === 'keyword')
        throw new JavaSyntaxError(
          t.line,
          `Syntax error on token "${t.text}", invalid ${what === 'Identifier' ? 'VariableDeclaratorId' : what}`,
        );
      throw this.syntaxError(what, 'Expression');
    }
    this.pos++;
    return t.text;
  }

  methodBody(): MethodBody {
    const statements: Stmt[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof')
        throw new JavaSyntaxError(this.tok.line, 'Syntax error, insert "}" to complete Block');
      statements.push(this.blockStatement());
    }
    this.pos++;
    const members: ClassMember[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof')
        throw new JavaSyntaxError(this.tok.line, 'Syntax error, insert "}" to complete ClassBody');
      members.push(this.classMember());
    }
    this.pos++;
    if (this.tok.kind !== 'eof')
      throw new JavaSyntaxError(this.tok.line, `Syntax error on token "${this.tok.text}", delete this token`);
    return { statements, members };
  }

  // ---- class members after an early close of the method (only to name them in the verifier's findings) ----

  private classMember(): ClassMember {
    const line = this.tok.line;
    const isStatic = this.is('static') && this.peek().text === '{';
    if (isStatic) this.pos++;
    if (this.is('{')) {
      const b = this.block();
      return { kind: 'initializer', line, static: isStatic, empty: b.body.length === 0 };
    }
    let staticMod = false;
    while (this.tok.kind === 'keyword' && MODIFIERS.has(this.tok.text)) {
      if (this.tok.text === 'static') staticMod = true;
      this.pos++;
    }
    if (this.is('class') || this.is('interface') || this.is('enum')) {
      this.pos++;
      const name = this.ident();
      this.skipBalancedUntilBrace();
      return { kind: 'class', line, name };
    }
    const type = this.accept('void') ? null : this.type();
    const name = this.ident();
    if (this.is('(')) {
      const params = this.skipParameterTypes();
      while (!this.is('{') && !this.is(';')) this.pos++;
      if (this.is('{')) this.block();
      else this.pos++;
      const ret = type === null ? 'V' : descriptorOf(type);
      return { kind: 'method', line, name, descriptor: `(${params})${ret}` };
    }
    let init = false;
    for (;;) {
      while (this.accept('[')) this.expect(']');
      if (this.accept('=')) {
        init = true;
        if (this.is('{')) this.arrayInit();
        else this.expression();
      }
      if (!this.accept(',')) break;
      this.ident();
    }
    this.expect(';', 'FieldDeclaration');
    return { kind: 'field', line, name, static: staticMod, init };
  }

  private skipParameterTypes(): string {
    this.expect('(');
    let desc = '';
    while (!this.is(')')) {
      while (this.accept('final')) {}
      const t = this.type();
      this.ident();
      desc += descriptorOf(t);
      if (!this.accept(',')) break;
    }
    this.expect(')');
    return desc;
  }

  private skipBalancedUntilBrace(): void {
    while (!this.is('{')) {
      if (this.tok.kind === 'eof') return;
      this.pos++;
    }
    let depth = 0;
    do {
      if (this.is('{')) depth++;
      else if (this.is('}')) depth--;
      this.pos++;
    } while (depth > 0 && this.tok.kind !== 'eof');
  }

  // ---- types ----

  /** A type at the current position, or null (position unchanged) if there is none. */
  private tryType(): TypeNode | null {
    const save = this.pos;
    try {
      return this.type();
    } catch (e) {
      if (!(e instanceof JavaSyntaxError)) throw e;
      this.pos = save;
      return null;
    }
  }

  private type(allowDiamond = false): TypeNode {
    const line = this.tok.line;
    const t = this.tok;
    if (t.kind === 'keyword' && PRIMITIVES.has(t.text)) {
      this.pos++;
      return { kind: 'type', line, name: t.text, args: null, dims: this.dims(), diamond: false };
    }
    if (t.kind !== 'ident') throw this.syntaxError('Type', 'Type');
    let name = this.ident();
    let args: TypeArgNode[] | null = null;
    let diamond = false;
    for (;;) {
      if (this.is('<')) {
        if (allowDiamond && this.peek().text === '>') {
          this.pos += 2;
          diamond = true;
        } else {
          args = this.typeArgs();
        }
      }
      if (this.is('.') && this.peek().kind === 'ident') {
        this.pos++;
        name += `.${this.ident()}`;
        continue;
      }
      break;
    }
    return { kind: 'type', line, name, args, dims: this.dims(), diamond };
  }

  private typeArgs(): TypeArgNode[] {
    this.expect('<');
    const args: TypeArgNode[] = [];
    do {
      const line = this.tok.line;
      if (this.accept('?')) {
        let bound: TypeNode | null = null;
        if (this.accept('extends')) bound = this.type();
        else if (this.accept('super')) {
          this.type();
        }
        args.push({ kind: 'wildcard', line, bound });
      } else {
        const t = this.type();
        if (PRIMITIVES.has(t.name) && t.dims === 0)
          throw new JavaSyntaxError(line, `Syntax error on token "${t.name}", Dimensions expected after this token`);
        args.push(t);
      }
    } while (this.accept(','));
    this.expect('>');
    return args;
  }

  private dims(): number {
    let d = 0;
    while (this.is('[') && this.peek().text === ']') {
      this.pos += 2;
      d++;
    }
    return d;
  }

  // ---- statements ----

  private block(): Block {
    const line = this.expect('{').line;
    const body: Stmt[] = [];
    while (!this.is('}')) {
      if (this.tok.kind === 'eof')
        throw new JavaSyntaxError(this.tok.line, 'Syntax error, insert "}" to complete Block');
      body.push(this.blockStatement());
    }
    this.pos++;
    return { kind: 'block', line, body };
  }

  private blockStatement(): Stmt {
    const t = this.tok;
    const line = t.line;
    if (
      t.kind === 'keyword' &&
      (t.text === 'class' || t.text === 'interface' || t.text === 'enum' || t.text === 'abstract')
    ) {
      this.pos++;
      const name = this.tok.kind === 'ident' ? this.tok.text : '';
      this.skipBalancedUntilBrace();
      return { kind: 'localClass', line, name };
    }
    if (this.is('final') || this.is('@')) {
      while (this.accept('final') || this.skipAnnotation()) {}
      if (this.is('class')) return this.blockStatement();
      const decl = this.localVarRest(this.type(), true, line);
      this.expect(';');
      return decl;
    }
    const decl = this.tryLocalVarDecl();
    if (decl) {
      this.expect(';');
      return decl;
    }
    return this.statement();
  }

  private skipAnnotation(): boolean {
    if (!this.is('@')) return false;
    this.pos++;
    this.type();
    if (this.is('(')) {
      let depth = 0;
      do {
        if (this.is('(')) depth++;
        else if (this.is(')')) depth--;
        this.pos++;
      } while (depth > 0 && this.tok.kind !== 'eof');
    }
    return true;
  }

  /** `Type name ...` if the tokens here form a local variable declaration. */
  private tryLocalVarDecl(): LocalVarDecl | null {
    const t = this.tok;
    if (!(t.kind === 'ident' || (t.kind === 'keyword' && PRIMITIVES.has(t.text)))) return null;
    const save = this.pos;
    const type = this.tryType();
    if (type && this.tok.kind === 'ident') return this.localVarRest(type, false, t.line);
    if (type && t.kind === 'ident' && type.args === null && type.dims === 0 && (this.is(';') || this.is('}'))) {
      // `foobarbaz;`: ECJ reads a declaration whose declarator is missing (and, without `;`, an unfinished block).
      const missing = 'Syntax error, insert "VariableDeclarators" to complete LocalVariableDeclaration';
      const line = this.tokens[this.pos - 1]!.line;
      if (this.is('}'))
        throw new JavaSyntaxError(line, missing, [
          { line, message: 'Syntax error, insert ";" to complete BlockStatements' },
        ]);
      throw new JavaSyntaxError(line, missing, [{ line, message: `${type.name} cannot be resolved to a type` }]);
    }
    if (type && t.kind === 'keyword' && !this.is('.') && !this.is('['))
      throw new JavaSyntaxError(
        this.tok.line,
        `Syntax error on token "${this.tok.text}", VariableDeclaratorId expected`,
      );
    this.pos = save;
    return null;
  }

  private localVarRest(type: TypeNode, final: boolean, line: number): LocalVarDecl {
    const declarators = [];
    do {
      const dline = this.tok.line;
      const name = this.ident();
      const dims = this.dims();
      let init: Expr | null = null;
      if (this.accept('=')) init = this.is('{') ? this.arrayInit() : this.expression();
      declarators.push({ name, line: dline, dims, init });
    } while (this.accept(','));
    return { kind: 'local', line, final, type, declarators };
  }

  private arrayInit(): ArrayInit {
    const line = this.expect('{').line;
    const elements: Expr[] = [];
    while (!this.is('}')) {
      elements.push(this.is('{') ? this.arrayInit() : this.expression());
      if (!this.accept(',')) break;
    }
    this.expect('}', 'ArrayInitializer');
    return { kind: 'arrayInit', line, elements };
  }

  private statement(): Stmt {
    const t = this.tok;
    const line = t.line;
    if (t.kind === 'op') {
      if (t.text === '{') return this.block();
      if (t.text === ';') {
        this.pos++;
        return { kind: 'empty', line };
      }
    }
    if (t.kind === 'ident' && this.peek().text === ':' && this.peek().kind === 'op') {
      this.pos += 2;
      return { kind: 'labeled', line, label: t.text, body: this.statement() };
    }
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'if': {
          this.pos++;
          const cond = this.parenExpression();
          const then = this.statement();
          const otherwise = this.accept('else') ? this.statement() : null;
          return { kind: 'if', line, cond, then, else: otherwise };
        }
        case 'while': {
          this.pos++;
          const cond = this.parenExpression();
          return { kind: 'while', line, cond, body: this.statement() };
        }
        case 'do': {
          this.pos++;
          const body = this.statement();
          this.expect('while');
          const cond = this.parenExpression();
          this.expect(';');
          return { kind: 'doWhile', line, body, cond };
        }
        case 'for':
          return this.forStatement();
        case 'return': {
          this.pos++;
          const value = this.is(';') ? null : this.expression();
          this.expect(';');
          return { kind: 'return', line, value };
        }
        case 'break':
        case 'continue': {
          this.pos++;
          const label = this.tok.kind === 'ident' ? this.ident() : null;
          this.expect(';');
          return { kind: t.text, line, label };
        }
        case 'throw': {
          this.pos++;
          const value = this.expression();
          this.expect(';');
          return { kind: 'throw', line, value };
        }
        case 'try':
          return this.tryStatement();
        case 'switch':
          return this.switchStatement();
        case 'synchronized': {
          this.pos++;
          const lock = this.parenExpression();
          return { kind: 'synchronized', line, lock, body: this.block() };
        }
        case 'assert': {
          this.pos++;
          const cond = this.expression();
          const message = this.accept(':') ? this.expression() : null;
          this.expect(';');
          return { kind: 'assert', line, cond, message };
        }
        case 'else':
        case 'case':
        case 'default':
        case 'catch':
        case 'finally':
          throw new JavaSyntaxError(line, `Syntax error on token "${t.text}", delete this token`);
      }
    }
    const expr = this.expression();
    this.expect(';');
    if (!isStatementExpression(expr)) {
      throw new JavaSyntaxError(line, 'Syntax error, insert "AssignmentOperator Expression" to complete Expression');
    }
    return { kind: 'expr', line, expr };
  }

  private parenExpression(): Expr {
    this.expect('(', 'Expression');
    const e = this.expression();
    this.expect(')', 'Expression');
    return e;
  }

  private forStatement(): Stmt {
    const line = this.expect('for').line;
    this.expect('(');
    // Enhanced for: [final] Type name : expr
    const save = this.pos;
    let final = false;
    while (this.accept('final') || this.skipAnnotation()) final = true;
    const type = this.tryType();
    if (type && this.tok.kind === 'ident' && this.peek().text === ':') {
      const name = this.ident();
      this.expect(':');
      const iterable = this.expression();
      this.expect(')');
      return { kind: 'forEach', line, final, type, name, iterable, body: this.statement() };
    }
    this.pos = save;
    let init: LocalVarDecl | Expr[] = [];
    if (!this.is(';')) {
      let isFinal = false;
      while (this.accept('final')) isFinal = true;
      const decl = isFinal ? this.localVarRest(this.type(), true, line) : this.tryLocalVarDecl();
      if (decl) init = decl;
      else {
        const exprs: Expr[] = [];
        do exprs.push(this.expression());
        while (this.accept(','));
        init = exprs;
      }
    }
    this.expect(';', 'ForStatement');
    const cond = this.is(';') ? null : this.expression();
    this.expect(';', 'ForStatement');
    const update: Expr[] = [];
    if (!this.is(')')) {
      do update.push(this.expression());
      while (this.accept(','));
    }
    this.expect(')', 'ForStatement');
    return { kind: 'for', line, init, cond, update, body: this.statement() };
  }

  private tryStatement(): Stmt {
    const line = this.expect('try').line;
    let resources = false;
    if (this.is('(')) {
      resources = true;
      let depth = 0;
      do {
        if (this.is('(')) depth++;
        else if (this.is(')')) depth--;
        this.pos++;
      } while (depth > 0 && this.tok.kind !== 'eof');
    }
    const block = this.block();
    const catches: CatchClause[] = [];
    while (this.is('catch')) {
      const cline = this.tok.line;
      this.pos++;
      this.expect('(');
      while (this.accept('final')) {}
      const types = [this.type()];
      while (this.accept('|')) types.push(this.type());
      const name = this.ident();
      this.expect(')');
      catches.push({ line: cline, types, name, body: this.block() });
    }
    const fin = this.accept('finally') ? this.block() : null;
    if (catches.length === 0 && fin === null && !resources)
      throw new JavaSyntaxError(
        this.tokens[this.pos - 1]!.line,
        'Syntax error, insert "Finally" to complete TryStatement',
      );
    return { kind: 'try', line, resources, block, catches, finally: fin };
  }

  private switchStatement(): Stmt {
    const line = this.expect('switch').line;
    const selector = this.parenExpression();
    this.expect('{');
    const cases: SwitchCase[] = [];
    while (!this.accept('}')) {
      const cline = this.tok.line;
      const labels: (Expr | null)[] = [];
      while (this.is('case') || this.is('default')) {
        if (this.accept('default')) labels.push(null);
        else {
          this.pos++;
          labels.push(this.ternary());
        }
        this.expect(':', 'SwitchLabel');
      }
      if (labels.length === 0)
        throw new JavaSyntaxError(cline, `Syntax error on token "${this.tok.text}", case expected`);
      const body: Stmt[] = [];
      while (!this.is('case') && !this.is('default') && !this.is('}')) {
        if (this.tok.kind === 'eof')
          throw new JavaSyntaxError(this.tok.line, 'Syntax error, insert "}" to complete SwitchBlock');
        body.push(this.blockStatement());
      }
      cases.push({ line: cline, labels, body });
    }
    return { kind: 'switch', line, selector, cases };
  }

  // ---- expressions ----

  expression(): Expr {
    const line = this.tok.line;
    if (this.isLambdaStart()) {
      this.skipLambda();
      return { kind: 'lambda', line };
    }
    const left = this.ternary();
    const op = this.assignOp();
    if (op !== null) {
      const value = this.expression();
      if (left.kind !== 'name' && left.kind !== 'field' && left.kind !== 'index')
        throw new JavaSyntaxError(line, 'The left-hand side of an assignment must be a variable');
      return { kind: 'assign', line, op, target: left, value };
    }
    return left;
  }

  private isLambdaStart(): boolean {
    if (this.tok.kind === 'ident' && this.peek().text === '->') return true;
    if (!this.is('(')) return false;
    let depth = 0;
    let k = this.pos;
    for (;;) {
      const t = this.tokens[k]!;
      if (t.kind === 'eof') return false;
      if (t.kind === 'op' && t.text === '(') depth++;
      if (t.kind === 'op' && t.text === ')') {
        depth--;
        if (depth === 0) return this.tokens[k + 1]?.text === '->';
      }
      k++;
    }
  }

  private skipLambda(): void {
    while (!this.is('->')) this.pos++;
    this.pos++;
    if (this.is('{')) this.block();
    else this.expression();
  }

  /** An assignment operator here (rebuilding `>>=` and `>>>=` from '>' tokens), consumed; else null. */
  private assignOp(): string | null {
    const t = this.tok;
    if (t.kind !== 'op') return null;
    if (ASSIGN_OPS.has(t.text)) {
      this.pos++;
      return t.text;
    }
    if (t.text === '>' && t.joined) {
      const t1 = this.peek();
      if (t1.text === '>' && t1.joined) {
        const t2 = this.peek(2);
        if (t2.text === '=') {
          this.pos += 3;
          return '>>=';
        }
        if (t2.text === '>' && t2.joined && this.peek(3).text === '=') {
          this.pos += 4;
          return '>>>=';
        }
      }
    }
    return null;
  }

  private ternary(): Expr {
    const line = this.tok.line;
    const cond = this.binary(0);
    if (!this.accept('?')) return cond;
    const then = this.isLambdaStart() ? this.expression() : this.ternary();
    this.expect(':', 'Expression');
    const otherwise = this.isLambdaStart() ? this.expression() : this.ternary();
    return { kind: 'conditional', line, cond, then, else: otherwise };
  }

  /** The binary operator at the current position (rebuilding '>'-led ones), without consuming it. */
  private binaryOpHere(): { op: string; width: number } | null {
    const t = this.tok;
    if (t.kind === 'keyword' && t.text === 'instanceof') return { op: 'instanceof', width: 1 };
    if (t.kind !== 'op') return null;
    if (t.text === '>') {
      if (!t.joined) return { op: '>', width: 1 };
      const t1 = this.peek();
      if (t1.text === '=') return { op: '>=', width: 2 };
      if (t1.text === '>') {
        const t2 = this.peek(2);
        if (t1.joined && t2.text === '>') {
          if (t2.joined && this.peek(3).text === '=') return null; // >>>=
          return { op: '>>>', width: 3 };
        }
        if (t1.joined && t2.text === '=') return null; // >>=
        return { op: '>>', width: 2 };
      }
      return { op: '>', width: 1 };
    }
    return { op: t.text, width: 1 };
  }

  private binary(level: number): Expr {
    if (level >= BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    const ops = BINARY_LEVELS[level]!;
    for (;;) {
      const here = this.binaryOpHere();
      if (here === null || !ops.includes(here.op)) return left;
      const line = this.tok.line;
      this.pos += here.width;
      if (here.op === 'instanceof') {
        left = { kind: 'instanceof', line, operand: left, type: this.type() };
        continue;
      }
      const right = this.binary(level + 1);
      left = { kind: 'binary', line, op: here.op, left, right };
    }
  }

  private unary(): Expr {
    const t = this.tok;
    const line = t.line;
    if (t.kind === 'op') {
      if (t.text === '++' || t.text === '--') {
        this.pos++;
        return { kind: 'incdec', line, op: t.text, prefix: true, target: this.unary() };
      }
      if (t.text === '-' && (this.peek().kind === 'int' || this.peek().kind === 'long') && this.peek().minOnly) {
        // -2147483648 and -9223372036854775808L are the only places those literals may appear.
        const lit = this.peek();
        this.pos += 2;
        const value = lit.value as number | bigint;
        return this.postfix({
          kind: 'literal',
          line,
          type: lit.kind as 'int' | 'long',
          value,
          text: `-${lit.text}`,
        });
      }
      if (t.text === '+' || t.text === '-' || t.text === '!' || t.text === '~') {
        this.pos++;
        return { kind: 'unary', line, op: t.text, operand: this.unary() };
      }
      if (t.text === '(') {
        const cast = this.tryCast();
        if (cast) return cast;
      }
    }
    return this.postfix(this.primary());
  }

  private tryCast(): Expr | null {
    const save = this.pos;
    const line = this.tok.line;
    this.pos++;
    const type = this.tryType();
    if (type === null || !this.is(')')) {
      this.pos = save;
      return null;
    }
    this.pos++;
    const isPrimitive = PRIMITIVES.has(type.name) && type.dims === 0;
    const next = this.tok;
    const startsOperand =
      next.kind === 'ident' ||
      next.kind === 'int' ||
      next.kind === 'long' ||
      next.kind === 'float' ||
      next.kind === 'double' ||
      next.kind === 'char' ||
      next.kind === 'string' ||
      (next.kind === 'keyword' && ['this', 'super', 'new', 'true', 'false', 'null'].includes(next.text)) ||
      (next.kind === 'keyword' && PRIMITIVES.has(next.text)) ||
      (next.kind === 'op' && ['(', '!', '~'].includes(next.text)) ||
      (isPrimitive && next.kind === 'op' && ['+', '-', '++', '--'].includes(next.text));
    if (!startsOperand) {
      this.pos = save;
      return null;
    }
    if (this.isLambdaStart()) {
      this.skipLambda();
      return { kind: 'lambda', line };
    }
    return { kind: 'cast', line, type, operand: this.unary() };
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      const t = this.tok;
      const line = t.line;
      if (t.kind !== 'op') return e;
      if (t.text === '.') {
        this.pos++;
        if (this.is('<')) this.typeArgs(); // explicit method type arguments: inferred instead
        if (this.accept('new')) throw new JavaSyntaxError(line, 'Syntax error on token "new", Identifier expected');
        if (this.is('class')) {
          this.pos++;
          e = { kind: 'classLit', line, type: exprToType(e, 0) };
          continue;
        }
        if (this.accept('this')) {
          e = { kind: 'this', line };
          continue;
        }
        const name = this.ident();
        if (this.is('(')) e = { kind: 'call', line, target: e, name, args: this.arguments() };
        else e = { kind: 'field', line, target: e, name };
        continue;
      }
      if (t.text === '::') {
        this.pos++;
        if (!this.accept('new')) this.ident();
        e = { kind: 'methodRef', line };
        continue;
      }
      if (t.text === '[') {
        if (this.peek().text === ']') {
          // `int[].class` / `String[].class`
          const dims = this.dims();
          if (this.is('.') && this.peek().text === 'class') {
            this.pos += 2;
            e = { kind: 'classLit', line, type: exprToType(e, dims) };
            continue;
          }
          throw new JavaSyntaxError(line, 'Syntax error on token "[", Expression expected after this token');
        }
        this.pos++;
        const index = this.expression();
        this.expect(']', 'Expression');
        e = { kind: 'index', line, target: e, index };
        continue;
      }
      if (t.text === '++' || t.text === '--') {
        this.pos++;
        e = { kind: 'incdec', line, op: t.text, prefix: false, target: e };
        continue;
      }
      return e;
    }
  }

  private arguments(): Expr[] {
    this.expect('(', 'Expression');
    const args: Expr[] = [];
    if (!this.is(')')) {
      do args.push(this.expression());
      while (this.accept(','));
    }
    this.expect(')', 'Expression');
    return args;
  }

  private primary(): Expr {
    const t = this.tok;
    const line = t.line;
    switch (t.kind) {
      case 'int':
      case 'long':
        if (t.minOnly) throw new JavaSyntaxError(line, `The literal ${t.text} of type ${t.kind} is out of range `);
        this.pos++;
        return { kind: 'literal', line, type: t.kind, value: t.value as number | bigint, text: t.text };
      case 'float':
      case 'double':
      case 'char':
        this.pos++;
        return { kind: 'literal', line, type: t.kind, value: t.value as number, text: t.text };
      case 'string':
        this.pos++;
        return { kind: 'literal', line, type: 'string', value: t.value as string, text: t.text };
      case 'ident': {
        this.pos++;
        if (this.is('(')) return { kind: 'call', line, target: null, name: t.text, args: this.arguments() };
        return { kind: 'name', line, name: t.text };
      }
      case 'keyword':
        switch (t.text) {
          case 'true':
          case 'false':
            this.pos++;
            return { kind: 'literal', line, type: 'boolean', value: t.text === 'true', text: t.text };
          case 'null':
            this.pos++;
            return { kind: 'literal', line, type: 'null', value: null, text: t.text };
          case 'this':
            this.pos++;
            if (this.is('('))
              throw new JavaSyntaxError(line, 'Constructor call must be the first statement in a constructor');
            return { kind: 'this', line };
          case 'super':
            this.pos++;
            return { kind: 'super', line };
          case 'new':
            return this.creation();
          case 'void':
            this.pos++;
            if (this.accept('.') && this.accept('class'))
              return { kind: 'classLit', line, type: primitiveType('void', line) };
            break;
          default:
            if (PRIMITIVES.has(t.text)) {
              // int.class, int[].class
              this.pos++;
              const dims = this.dims();
              if (this.accept('.') && this.accept('class'))
                return { kind: 'classLit', line, type: { ...primitiveType(t.text, line), dims } };
              throw new JavaSyntaxError(line, `Syntax error on token "${t.text}", invalid Expression`);
            }
        }
        break;
      case 'op':
        if (t.text === '(') {
          this.pos++;
          const e = this.expression();
          this.expect(')', 'Expression');
          return e;
        }
        break;
      case 'eof':
        throw new JavaSyntaxError(line, 'Syntax error, insert "Expression" to complete Expression');
    }
    throw new JavaSyntaxError(line, `Syntax error on token "${t.text}", Expression expected after this token`);
  }

  private creation(): Expr {
    const line = this.expect('new').line;
    const t = this.tok;
    const isPrim = t.kind === 'keyword' && PRIMITIVES.has(t.text);
    let base: TypeNode;
    if (isPrim) {
      this.pos++;
      base = primitiveType(t.text, line);
    } else {
      base = this.typeNoDims(true);
    }
    if (this.is('[')) {
      const dimExprs: Expr[] = [];
      let dims = 0;
      while (this.is('[')) {
        this.pos++;
        if (this.accept(']')) {
          dims++;
          continue;
        }
        if (dims > dimExprs.length)
          throw new JavaSyntaxError(line, 'Cannot specify an array dimension after an empty dimension');
        dimExprs.push(this.expression());
        this.expect(']', 'Expression');
        dims++;
      }
      let init: ArrayInit | null = null;
      if (this.is('{')) {
        if (dimExprs.length > 0)
          throw new JavaSyntaxError(line, 'Cannot define dimension expressions when an array initializer is provided');
        init = this.arrayInit();
      } else if (dimExprs.length === 0) {
        throw new JavaSyntaxError(line, 'Variable must provide either dimension expressions or an array initializer');
      }
      return { kind: 'newArray', line, element: base, dimExprs, dims, init };
    }
    if (isPrim)
      throw new JavaSyntaxError(line, `Syntax error on token "${t.text}", Dimensions expected after this token`);
    const args = this.arguments();
    let anonymousBody = false;
    if (this.is('{')) {
      anonymousBody = true;
      this.skipBalancedUntilBrace();
    }
    return { kind: 'new', line, type: base, args, anonymousBody };
  }

  private typeNoDims(allowDiamond: boolean): TypeNode {
    const line = this.tok.line;
    let name = this.ident();
    let args: TypeArgNode[] | null = null;
    let diamond = false;
    for (;;) {
      if (this.is('<')) {
        if (allowDiamond && this.peek().text === '>') {
          this.pos += 2;
          diamond = true;
        } else args = this.typeArgs();
      }
      if (this.is('.') && this.peek().kind === 'ident') {
        this.pos++;
        name += `.${this.ident()}`;
        continue;
      }
      break;
    }
    return { kind: 'type', line, name, args, dims: 0, diamond };
  }
}

function primitiveType(name: string, line: number): TypeNode {
  return { kind: 'type', line, name, args: null, dims: 0, diamond: false };
}

/** `Double.class` / `java.lang.String.class`: the qualified name as a type. */
function exprToType(e: Expr, dims: number): TypeNode {
  const name = dottedName(e);
  if (name === null) throw new JavaSyntaxError(e.line, 'Syntax error on token "class", Identifier expected');
  return { kind: 'type', line: e.line, name, args: null, dims, diamond: false };
}

export function dottedName(e: Expr): string | null {
  if (e.kind === 'name') return e.name;
  if (e.kind === 'field') {
    const left = dottedName(e.target);
    return left === null ? null : `${left}.${e.name}`;
  }
  return null;
}

function isStatementExpression(e: Expr): boolean {
  return (
    e.kind === 'assign' ||
    e.kind === 'incdec' ||
    e.kind === 'call' ||
    e.kind === 'new' ||
    e.kind === 'lambda' ||
    e.kind === 'methodRef'
  );
}

const DESCRIPTORS: Record<string, string> = {
  boolean: 'Z',
  byte: 'B',
  short: 'S',
  char: 'C',
  int: 'I',
  long: 'J',
  float: 'F',
  double: 'D',
  void: 'V',
};

/** A JVM descriptor for a declared member's type, as the byte-code verifier names methods. */
function descriptorOf(t: TypeNode): string {
  const base = DESCRIPTORS[t.name] ?? `L${qualifiedForDescriptor(t.name)};`;
  return '['.repeat(t.dims) + base;
}

function qualifiedForDescriptor(name: string): string {
  if (name.includes('.')) return name.replaceAll('.', '/');
  const javaLang = ['String', 'Object', 'Integer', 'Long', 'Double', 'Float', 'Short', 'Byte', 'Boolean', 'Character'];
  if (javaLang.includes(name)) return `java/lang/${name}`;
  if (name === 'ByteBuffer') return 'java/nio/ByteBuffer';
  return `java/util/${name}`;
}
