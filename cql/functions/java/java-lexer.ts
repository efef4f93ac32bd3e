// Java 8 tokens of a UDF body: identifiers, keywords, literals (with Java's ranges and escapes), operators.
// '>' is always its own token (with `joined` telling that the next character follows it directly), so that
// `List<List<String>>` closes two type-argument lists and the parser rebuilds `>>`, `>>>`, `>=`, `>>=`.
import { JavaSyntaxError } from './java-problems.js';

export type TokenKind = 'ident' | 'keyword' | 'int' | 'long' | 'float' | 'double' | 'char' | 'string' | 'op' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly line: number;
  /** Literal value: number (int, float, double, char), bigint (long), string. */
  readonly value?: number | bigint | string;
  /** The int literal 2147483648 (or long 9223372036854775808L), legal only right after unary minus. */
  readonly minOnly?: boolean;
  /** The next character follows this token without whitespace. */
  readonly joined: boolean;
}

/** Java's reserved words, and the literals true, false and null. */
export const JAVA_KEYWORDS = new Set([
  'abstract',
  'assert',
  'boolean',
  'break',
  'byte',
  'case',
  'catch',
  'char',
  'class',
  'const',
  'continue',
  'default',
  'do',
  'double',
  'else',
  'enum',
  'extends',
  'final',
  'finally',
  'float',
  'for',
  'goto',
  'if',
  'implements',
  'import',
  'instanceof',
  'int',
  'interface',
  'long',
  'native',
  'new',
  'package',
  'private',
  'protected',
  'public',
  'return',
  'short',
  'static',
  'strictfp',
  'super',
  'switch',
  'synchronized',
  'this',
  'throw',
  'throws',
  'transient',
  'try',
  'void',
  'volatile',
  'while',
  'true',
  'false',
  'null',
]);

// Longest first; '>'-led operators are rebuilt by the parser from single '>' tokens.
const OPERATORS = [
  '<<=',
  '...',
  '->',
  '::',
  '++',
  '--',
  '&&',
  '||',
  '==',
  '!=',
  '<=',
  '+=',
  '-=',
  '*=',
  '/=',
  '&=',
  '|=',
  '^=',
  '%=',
  '<<',
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ';',
  ',',
  '.',
  '@',
  '=',
  '>',
  '<',
  '!',
  '~',
  '?',
  ':',
  '+',
  '-',
  '*',
  '/',
  '&',
  '|',
  '^',
  '%',
];

/** Java translates \uXXXX escapes before anything else (JLS 3.3). */
function translateUnicodeEscapes(src: string): string {
  if (!src.includes('\\u')) return src;
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\\') {
      // An escape only if preceded by an even number of backslashes.
      let j = i + 1;
      if (src[j] === 'u') {
        while (src[j] === 'u') j++;
        const hex = src.slice(j, j + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JavaSyntaxError(lineAt(src, i), 'Invalid unicode');
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i = j + 4;
        continue;
      }
      out += c + (src[i + 1] ?? '');
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function lineAt(src: string, pos: number): number {
  let n = 1;
  for (let i = 0; i < pos; i++) if (src.charCodeAt(i) === 10) n++;
  return n;
}

const isIdentStart = (c: string): boolean => /[\p{L}\p{Nl}_$]/u.test(c);
const isIdentPart = (c: string): boolean => /[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}_$]/u.test(c);

export function tokenize(source: string): Token[] {
  const src = translateUnicodeEscapes(source);
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const n = src.length;
  const push = (kind: TokenKind, text: string, tokLine: number, extra?: Partial<Token>): void => {
    const next = src[i];
    const joined = next !== undefined && !/\s/.test(next);
    tokens.push({ kind, text, line: tokLine, joined, ...extra });
  };
  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new JavaSyntaxError(line, 'Unexpected end of comment');
      for (let k = i; k < end; k++) if (src.charCodeAt(k) === 10) line++;
      i = end + 2;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(src[i]!)) i++;
      const text = src.slice(start, i);
      push(JAVA_KEYWORDS.has(text) ? 'keyword' : 'ident', text, line);
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      i = lexNumber(src, i, line, tokens);
      const t = tokens[tokens.length - 1]!;
      const next = src[i];
      tokens[tokens.length - 1] = { ...t, joined: next !== undefined && !/\s/.test(next) };
      continue;
    }
    if (c === '"') {
      i++;
      let value = '';
      for (;;) {
        if (i >= n || src[i] === '\n')
          throw new JavaSyntaxError(line, 'String literal is not properly closed by a double-quote');
        const ch = src[i]!;
        if (ch === '"') break;
        if (ch === '\\') {
          const [v, next] = lexEscape(src, i, line);
          value += v;
          i = next;
        } else {
          value += ch;
          i++;
        }
      }
      i++;
      push('string', src.slice(start, i), line, { value });
      continue;
    }
    if (c === "'") {
      i++;
      let value: string;
      if (src[i] === '\\') {
        const [v, next] = lexEscape(src, i, line);
        value = v;
        i = next;
      } else if (src[i] === "'" || src[i] === '\n' || i >= n) {
        throw new JavaSyntaxError(line, 'Invalid character constant');
      } else {
        value = src[i]!;
        i++;
      }
      if (src[i] !== "'") throw new JavaSyntaxError(line, 'Invalid character constant');
      i++;
      push('char', src.slice(start, i), line, { value: value.charCodeAt(0) });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op === undefined) throw new JavaSyntaxError(line, `Syntax error on token "${c}", delete this token`);
    i += op.length;
    push('op', op, line);
  }
  tokens.push({ kind: 'eof', text: 'EOF', line, joined: false });
  return tokens;
}

function lexEscape(src: string, i: number, line: number): [string, number] {
  const e = src[i + 1];
  const simple: Record<string, string> = {
    b: '\b',
    t: '\t',
    n: '\n',
    f: '\f',
    r: '\r',
    '"': '"',
    "'": "'",
    '\\': '\\',
  };
  if (e !== undefined && simple[e] !== undefined) return [simple[e]!, i + 2];
  if (e !== undefined && /[0-7]/.test(e)) {
    // Octal escape: up to three digits, the first at most 3 when there are three.
    let j = i + 1;
    let digits = '';
    const max = e <= '3' ? 3 : 2;
    while (digits.length < max && /[0-7]/.test(src[j] ?? '')) digits += src[j++];
    return [String.fromCharCode(Number.parseInt(digits, 8)), j];
  }
  throw new JavaSyntaxError(
    line,
    'Invalid escape sequence (valid ones are  \\b  \\t  \\n  \\f  \\r  \\"  \\\'  \\\\ )',
  );
}

function lexNumber(src: string, i: number, line: number, tokens: Token[]): number {
  const start = i;
  const rest = src.slice(i);
  const radixMatch = /^0[xX]([0-9a-fA-F_]*)([lL]?)/.exec(rest) ?? /^0[bB]([01_]*)([lL]?)/.exec(rest);
  if (radixMatch && !/^0[xX][0-9a-fA-F_]*[.pP]/.test(rest)) {
    const radix = /^0[xX]/.test(rest) ? 16 : 2;
    const digits = radixMatch[1]!;
    const text = radixMatch[0];
    if (digits === '' || digits.startsWith('_') || digits.endsWith('_'))
      throw new JavaSyntaxError(
        line,
        radix === 16 ? 'Invalid hex literal number' : "Invalid binary literal number (only '0' and '1' are expected)",
      );
    const big = BigInt((radix === 16 ? '0x' : '0b') + digits.replaceAll('_', ''));
    pushInteger(tokens, text, line, big, radixMatch[2] !== '', true);
    return i + text.length;
  }
  const m = /^([0-9][0-9_]*)?(\.[0-9_]*)?([eE][+-]?[0-9_]+)?([fFdDlL]?)/.exec(rest)!;
  const text = m[0];
  const [, intPart, frac, exp, suffix] = m;
  const isFloating = frac !== undefined || exp !== undefined || /[fFdD]/.test(suffix ?? '');
  if (isFloating) {
    if (suffix === 'l' || suffix === 'L')
      throw new JavaSyntaxError(line, `Syntax error on token "${text}", delete this token`);
    const v = Number(text.replace(/[fFdD]$/, '').replaceAll('_', ''));
    const isFloat = suffix === 'f' || suffix === 'F';
    const value = isFloat ? Math.fround(v) : v;
    const nonZeroDigits = /[1-9]/.test(text.replace(/[eE].*$/, ''));
    if (!Number.isFinite(value) || (value === 0 && nonZeroDigits))
      throw new JavaSyntaxError(line, `The literal ${text} of type ${isFloat ? 'float' : 'double'} is out of range `);
    tokens.push({ kind: isFloat ? 'float' : 'double', text, line, value, joined: false });
    return start + text.length;
  }
  const digits = intPart!.replaceAll('_', '');
  if (intPart!.endsWith('_')) throw new JavaSyntaxError(line, 'Underscores have to be located within digits');
  const octal = digits.length > 1 && digits.startsWith('0');
  if (octal && /[89]/.test(digits)) throw new JavaSyntaxError(line, 'Invalid octal literal number');
  const big = octal ? BigInt('0o' + digits.slice(1)) : BigInt(digits);
  pushInteger(tokens, text, line, big, suffix !== '', octal);
  return start + text.length;
}

function pushInteger(
  tokens: Token[],
  text: string,
  line: number,
  v: bigint,
  isLong: boolean,
  unsignedForm: boolean,
): void {
  if (isLong) {
    if (unsignedForm ? v >= 2n ** 64n : v > 2n ** 63n)
      throw new JavaSyntaxError(line, `The literal ${text} of type long is out of range `);
    const minOnly = !unsignedForm && v === 2n ** 63n;
    tokens.push({ kind: 'long', text, line, value: BigInt.asIntN(64, v), minOnly, joined: false });
    return;
  }
  if (unsignedForm ? v >= 2n ** 32n : v > 2n ** 31n)
    throw new JavaSyntaxError(line, `The literal ${text} of type int is out of range `);
  const minOnly = !unsignedForm && v === 2n ** 31n;
  tokens.push({ kind: 'int', text, line, value: Number(BigInt.asIntN(32, v)), minOnly, joined: false });
}
