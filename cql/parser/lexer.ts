// The CQL lexer, token for token as Cassandra's Lexer.g: case-insensitive keywords, '-' as part of
// numbers ("x-1" is IDENT INTEGER), durations, uuids, pg-style $$strings$$, and its error messages.
// A lexer error becomes an ERROR token so that it surfaces only when the parser reaches it, which is
// when Cassandra's lazily-fed ANTLR lexer would report it.

import { K, keywordHashStep, keywordTypeAt, T, type Token } from './token.js';

const CH_TAB = 9;
const CH_LF = 10;
const CH_CR = 13;
const CH_SPACE = 32;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
const IDENT_PART = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  IDENT_PART[c] = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 ? 1 : 0;
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Line (1-based) and column (0-based) of an offset, counting '\n' as ANTLR does. */
export function lineCol(src: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === CH_LF) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart };
}

/** ANTLR's getCharErrorDisplay. */
function charDisplay(src: string, pos: number): string {
  if (pos >= src.length) return "'<EOF>'";
  const c = src[pos]!;
  if (c === '\n') return "'\\n'";
  if (c === '\t') return "'\\t'";
  if (c === '\r') return "'\\r'";
  return `'${c}'`;
}

/** A token whose text is sliced from the source only when asked for (keywords and punctuation rarely are). */
class LexToken implements Token {
  private cached: string | undefined;
  constructor(
    readonly type: number,
    readonly start: number,
    readonly end: number,
    private readonly src: string,
    text: string | undefined,
  ) {
    this.cached = text;
  }
  get text(): string {
    if (this.cached === undefined) this.cached = this.src.slice(this.start, this.end);
    return this.cached;
  }
}

function lexError(src: string, pos: number, what: string): Token {
  const { line, col } = lineCol(src, pos);
  return new LexToken(T.ERROR, pos, pos, src, `line ${line}:${col} ${what}`);
}

function mismatchedChar(src: string, pos: number, expecting: string): Token {
  return lexError(src, pos, `mismatched character ${charDisplay(src, pos)} expecting ${expecting}`);
}

/**
 * The UUID at i: 36 when complete, 0 when it is not one. Like ANTLR's lexer, eight hex digits and a '-'
 * commit to a UUID; a later mismatch is then a lexer error, returned as -1 - (offset of the bad char).
 */
function matchUuid(src: string, i: number): number {
  for (let k = 0; k < 36; k++) {
    const c = i + k < src.length ? src.charCodeAt(i + k) : -1;
    const ok = k === 8 || k === 13 || k === 18 || k === 23 ? c === 45 : c >= 0 && isHex(c);
    if (!ok) return k <= 8 ? 0 : -1 - k;
  }
  return 36;
}

function uuidError(src: string, i: number, u: number): Token {
  const k = -1 - u;
  return mismatchedChar(src, i + k, k === 13 || k === 18 || k === 23 ? "'-'" : 'set null');
}

function digitsEnd(src: string, i: number): number {
  while (i < src.length && isDigit(src.charCodeAt(i))) i++;
  return i;
}

/** Length of a duration unit (y, mo, w, d, h, m, s, ms, us, µs, ns; any case) at i, or 0. */
function durationUnit(src: string, i: number): number {
  if (i >= src.length) return 0;
  const c = src.charCodeAt(i) | 0x20;
  const n = i + 1 < src.length ? src.charCodeAt(i + 1) | 0x20 : 0;
  if (src.charCodeAt(i) === 0xb5) return n === 0x73 ? 2 : 0; // µs
  switch (c) {
    case 0x6d: // m, mo, ms
      return n === 0x6f || n === 0x73 ? 2 : 1;
    case 0x75: // us
    case 0x6e: // ns
      return n === 0x73 ? 2 : 0;
    case 0x79: // y
    case 0x77: // w
    case 0x64: // d
    case 0x68: // h
    case 0x73: // s
      return 1;
    default:
      return 0;
  }
}

/** Matches `DIGIT+ L` for one of the letters in `letters`, in order after `from`; returns [end, letterIndex]. */
function isoPair(src: string, i: number, letters: string, from: number): [number, number] {
  const d = digitsEnd(src, i);
  if (d === i || d >= src.length) return [-1, -1];
  const li = letters.indexOf(src[d]!, from);
  if (li < 0) return [-1, -1];
  return [d + 1, li];
}

/** ISO 8601 time designators after 'T' at i: T(nH)?(nM)?(nS)? with at least one. Returns end or -1. */
function isoTime(src: string, i: number): number {
  if (src[i] !== 'T') return -1;
  let p = i + 1;
  let from = 0;
  let any = false;
  for (;;) {
    const [end, li] = isoPair(src, p, 'HMS', from);
    if (end < 0) break;
    any = true;
    p = end;
    from = li + 1;
  }
  return any ? p : -1;
}

/** The ISO 8601 forms of DURATION starting at 'P' (i points at 'P'). Returns end or -1. */
function isoDuration(src: string, i: number): number {
  // Alternative format PYYYY-MM-DDThh:mm:ss.
  const alt = /^P\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.exec(src.slice(i, i + 20));
  if (alt) return i + 20;
  const p = i + 1;
  if (src[p] === 'T') return isoTime(src, p);
  const [wEnd] = isoPair(src, p, 'W', 0);
  if (wEnd > 0) return wEnd;
  let q = p;
  let from = 0;
  let any = false;
  for (;;) {
    const [end, li] = isoPair(src, q, 'YMD', from);
    if (end < 0) break;
    any = true;
    q = end;
    from = li + 1;
  }
  if (!any) return -1;
  const t = isoTime(src, q);
  return t > 0 ? t : q;
}

/** Number-like token (INTEGER, FLOAT, DURATION) at i; i may point at a leading '-'. */
function lexNumber(src: string, i: number): { type: number; end: number } {
  const s = src.charCodeAt(i) === 45 ? i + 1 : i;
  const d = digitsEnd(src, s);
  const next = d < src.length ? src.charCodeAt(d) : -1;
  if (next === 46) {
    // INTEGER '.' RANGE => "1." then "..": INTEGER RANGE => "1" then "..".
    if (src.charCodeAt(d + 1) === 46) {
      if (src.charCodeAt(d + 2) === 46) return { type: T.FLOAT, end: d + 1 };
      return { type: T.INTEGER, end: d };
    }
    let e = digitsEnd(src, d + 1);
    e = exponentEnd(src, e);
    return { type: T.FLOAT, end: e };
  }
  const u = durationUnit(src, d);
  if (u > 0) {
    let e = d + u;
    for (;;) {
      const dd = digitsEnd(src, e);
      if (dd === e) break;
      const uu = durationUnit(src, dd);
      if (uu === 0) break;
      e = dd + uu;
    }
    return { type: T.DURATION, end: e };
  }
  const x = exponentEnd(src, d);
  return x > d ? { type: T.FLOAT, end: x } : { type: T.INTEGER, end: d };
}

function exponentEnd(src: string, i: number): number {
  const c = src.charCodeAt(i) | 0x20;
  if (c !== 0x65) return i;
  let j = i + 1;
  const s = src.charCodeAt(j);
  if (s === 43 || s === 45) j++;
  const d = digitsEnd(src, j);
  return d > j ? d : i;
}

function matchesWordCI(src: string, i: number, lower: string): boolean {
  if (i + lower.length > src.length) return false;
  return src.slice(i, i + lower.length).toLowerCase() === lower;
}

/**
 * Splits a CQL string into tokens ending with EOF. With `hidden`, whitespace and comments are kept too
 * (only the error path wants them, to build Cassandra's query snippet).
 */
export function tokenize(src: string, hidden = false): Token[] {
  const out: Token[] = [];
  const n = src.length;
  let i = 0;
  const push = (type: number, start: number, end: number, text?: string): void => {
    out.push(new LexToken(type, start, end, src, text));
  };
  while (i < n) {
    const c = src.charCodeAt(i);
    const start = i;
    if (c === CH_SPACE || c === CH_TAB || c === CH_LF || c === CH_CR) {
      i++;
      while (i < n) {
        const w = src.charCodeAt(i);
        if (w !== CH_SPACE && w !== CH_TAB && w !== CH_LF && w !== CH_CR) break;
        i++;
      }
      if (hidden) push(T.WS, start, i);
      continue;
    }
    const c2 = i + 1 < n ? src.charCodeAt(i + 1) : -1;
    if ((c === 45 && c2 === 45) || (c === 47 && c2 === 47)) {
      // A line comment must end with a newline, as in Lexer.g.
      let j = i + 2;
      while (j < n && src.charCodeAt(j) !== CH_LF && src.charCodeAt(j) !== CH_CR) j++;
      if (j >= n) {
        out.push(mismatchedChar(src, n, 'set null'));
        break;
      }
      i = j + 1;
      if (hidden) push(T.COMMENT, start, i);
      continue;
    }
    if (c === 47 && c2 === 42) {
      const j = src.indexOf('*/', i + 2);
      if (j < 0) {
        out.push(mismatchedChar(src, n, src.endsWith('*') && n > i + 2 ? "'/'" : "'*'"));
        break;
      }
      i = j + 2;
      if (hidden) push(T.MULTILINE_COMMENT, start, i);
      continue;
    }
    if (isDigit(c)) {
      const u = matchUuid(src, i);
      if (u > 0) {
        i += u;
        push(T.UUID, start, i);
        continue;
      }
      if (u < 0) {
        out.push(uuidError(src, i, u));
        break;
      }
      if (c === 48 && (c2 === 120 || c2 === 88)) {
        let j = i + 2;
        while (j < n && isHex(src.charCodeAt(j))) j++;
        i = j;
        push(T.HEXNUMBER, start, i);
        continue;
      }
      const num = lexNumber(src, i);
      i = num.end;
      push(num.type, start, i);
      continue;
    }
    if (isLetter(c)) {
      if (isHex(c)) {
        const u = matchUuid(src, i);
        if (u > 0) {
          i += u;
          push(T.UUID, start, i);
          continue;
        }
        if (u < 0) {
          out.push(uuidError(src, i, u));
          break;
        }
      }
      let j = i + 1;
      let h = keywordHashStep(0, c | 0x20);
      for (; j < n; j++) {
        const d = src.charCodeAt(j);
        if (d >= 128 || IDENT_PART[d] !== 1) break;
        h = keywordHashStep(h, d >= 65 && d <= 90 ? d | 0x20 : d);
      }
      if (c === 80) {
        const d = isoDuration(src, i);
        if (d >= j) {
          i = d;
          push(T.DURATION, start, i);
          continue;
        }
      }
      if (j - i === 4 && c2 === 120 && src.charCodeAt(j) === 40 && src.startsWith('expr(', i)) {
        i = j + 1;
        push(T.EXPR, start, i);
        continue;
      }
      const kw = keywordTypeAt(src, i, j, h);
      i = j;
      out.push(new LexToken(kw === -1 ? T.IDENT : kw, start, i, src, undefined));
      continue;
    }
    switch (c) {
      case 39: {
        // 'string' with '' as an escaped quote
        const quoted = scanQuoted(src, i, "'");
        if (!quoted) {
          out.push(mismatchedChar(src, n, "'''"));
          return finish(out, n);
        }
        i = quoted.end;
        push(T.STRING_LITERAL, start, i, quoted.text);
        continue;
      }
      case 34: {
        // "Quoted Name" with "" as an escaped quote; "" alone is the empty name.
        if (c2 === 34 && src.charCodeAt(i + 2) !== 34) {
          i += 2;
          push(T.EMPTY_QUOTED_NAME, start, i);
          continue;
        }
        const quoted = scanQuoted(src, i, '"');
        if (!quoted) {
          out.push(mismatchedChar(src, n, "'\"'"));
          return finish(out, n);
        }
        i = quoted.end;
        push(T.QUOTED_NAME, start, i, quoted.text);
        continue;
      }
      case 36: {
        // $$pg-style string$$
        if (c2 !== 36) {
          out.push(mismatchedChar(src, i + 1, "'$'"));
          return finish(out, n);
        }
        const q = src.indexOf('$$', i + 2);
        if (q < 0) {
          const last = n - 1;
          const at = n - (i + 2) >= 1 && src.charCodeAt(last) !== 36 ? last : n;
          out.push(mismatchedChar(src, at, "'$'"));
          return finish(out, n);
        }
        i = q + 2;
        push(T.STRING_LITERAL, start, i, src.slice(start + 2, q));
        continue;
      }
      case 45: // '-'
        if (c2 === 61) {
          i += 2;
          push(T.MINUS_EQ, start, i);
          continue;
        }
        if (isDigit(c2)) {
          const num = lexNumber(src, i);
          i = num.end;
          push(num.type, start, i);
          continue;
        }
        if (matchesWordCI(src, i + 1, 'infinity')) {
          i += 9;
          push(K.NEGATIVE_INFINITY, start, i);
          continue;
        }
        if (matchesWordCI(src, i + 1, 'nan')) {
          i += 4;
          push(K.NEGATIVE_NAN, start, i);
          continue;
        }
        if (c2 === 80) {
          const d = isoDuration(src, i + 1);
          if (d > 0) {
            i = d;
            push(T.DURATION, start, i);
            continue;
          }
        }
        i++;
        push(T.MINUS, start, i);
        continue;
      case 43: // '+'
        if (c2 === 61) {
          i += 2;
          push(T.PLUS_EQ, start, i);
        } else push(T.PLUS, start, ++i);
        continue;
      case 46: // '.'
        if (c2 === 46) {
          i += 2;
          push(T.RANGE, start, i);
        } else push(T.DOT, start, ++i);
        continue;
      case 60: // '<'
        if (c2 === 61) {
          i += 2;
          push(T.LTE, start, i);
        } else push(T.LT, start, ++i);
        continue;
      case 62: // '>'
        if (c2 === 61) {
          i += 2;
          push(T.GTE, start, i);
        } else push(T.GT, start, ++i);
        continue;
      case 33: // '!='
        if (c2 !== 61) {
          out.push(mismatchedChar(src, i + 1, "'='"));
          return finish(out, n);
        }
        i += 2;
        push(T.NEQ, start, i);
        continue;
      case 63:
        push(T.QMARK, start, ++i);
        continue;
      case 59:
        push(T.SEMI, start, ++i);
        continue;
      case 40:
        push(T.LPAREN, start, ++i);
        continue;
      case 41:
        push(T.RPAREN, start, ++i);
        continue;
      case 44:
        push(T.COMMA, start, ++i);
        continue;
      case 42:
        push(T.STAR, start, ++i);
        continue;
      case 91:
        push(T.LBRACKET, start, ++i);
        continue;
      case 93:
        push(T.RBRACKET, start, ++i);
        continue;
      case 123:
        push(T.LBRACE, start, ++i);
        continue;
      case 125:
        push(T.RBRACE, start, ++i);
        continue;
      case 58:
        push(T.COLON, start, ++i);
        continue;
      case 61:
        push(T.EQ, start, ++i);
        continue;
      case 47:
        push(T.SLASH, start, ++i);
        continue;
      case 37:
        push(T.PERCENT, start, ++i);
        continue;
      default:
        out.push(lexError(src, i, `no viable alternative at character ${charDisplay(src, i)}`));
        return finish(out, n);
    }
  }
  return finish(out, n);
}

function finish(out: Token[], n: number): Token[] {
  out.push(new LexToken(T.EOF, n, n, '', '<EOF>'));
  return out;
}

/**
 * The text between the quote at `at` and its closing quote, a doubled quote standing for one; `end` is just past
 * the closing quote. Undefined when it is never closed.
 */
function scanQuoted(src: string, at: number, quote: "'" | '"'): { text: string; end: number } | undefined {
  let text = '';
  let from = at + 1;
  for (let j = from; ; ) {
    const q = src.indexOf(quote, j);
    if (q < 0) return undefined;
    if (src[q + 1] === quote) {
      text += src.slice(from, q + 1);
      j = q + 2;
      from = j;
      continue;
    }
    return { text: text + src.slice(from, q), end: q + 1 };
  }
}
