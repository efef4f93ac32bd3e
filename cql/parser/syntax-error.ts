// Builds syntax error messages the way Cassandra does: ANTLR 3's "line L:C <message>" header, and
// ErrorCollector's query snippet "(... [offending] ...)" made of up to 10 tokens (hidden ones
// included) before the offending one and at most 2 after it among those the parser had fetched.
// Cassandra's EOF token has no position, hence "line 0:-1" and no snippet at the end of input.

import { lineCol, tokenize } from './lexer.js';
import { T, type Token } from './token.js';

const FIRST_TOKEN_OFFSET = 10;
const LAST_TOKEN_OFFSET = 2;

/** ANTLR's getTokenErrorDisplay. */
export function tokenDisplay(t: Token): string {
  if (t.type === T.EOF) return "'<EOF>'";
  const s = t.text.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return `'${s}'`;
}

/** "line L:C" for a token, "line 0:-1" for EOF. */
export function errorHeader(src: string, t: Token): string {
  if (t.type === T.EOF) return 'line 0:-1';
  const { line, col } = lineCol(src, t.start);
  return `line ${line}:${col}`;
}

/** Java's String.split("\n"): trailing empty strings are dropped. */
function javaSplitLines(s: string): string[] {
  const parts = s.split('\n');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

interface Positioned {
  line: number;
  col: number;
  length: number;
}

/**
 * The full message of a parser error.
 * @param what e.g. "no viable alternative at input 'x'"
 * @param offending the token named in the message (its position makes the header)
 * @param highlight the token the snippet brackets (ANTLR rewinds to the decision start)
 * @param lastFetched the furthest token the parser had looked at
 */
export function parserErrorMessage(
  src: string,
  what: string,
  offending: Token,
  highlight: Token,
  lastFetched: Token,
): string {
  const msg = `${errorHeader(src, offending)} ${what}`;
  if (highlight.type === T.EOF) return msg;
  const snippet = buildSnippet(src, highlight, lastFetched);
  return snippet === undefined ? msg : `${msg}${snippet}`;
}

function buildSnippet(src: string, highlight: Token, lastFetched: Token): string | undefined {
  const all = tokenize(src, true);
  let index = -1;
  let last = -1;
  for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    if (t.type === T.ERROR) break;
    if (t.start === highlight.start && t.type === highlight.type) index = i;
    if (t.start === lastFetched.start && t.type === lastFetched.type) last = i;
  }
  if (index < 0) return undefined;
  if (last < index) last = index;
  const fromTok = all[Math.max(0, index - FIRST_TOKEN_OFFSET)]!;
  const toTok = all[Math.min(last, index + LAST_TOKEN_OFFSET)]!;
  if (toTok.type === T.EOF || toTok.type === T.ERROR) return undefined;
  const pos = (t: Token): Positioned => {
    const { line, col } = lineCol(src, t.start);
    return { line, col, length: t.text.length };
  };
  const from = pos(fromTok);
  const to = pos(toTok);
  const off = pos(highlight);
  const lines = javaSplitLines(src);
  if (lines.length === 0) return undefined;
  const lastCharPos = (p: Positioned) => p.col + p.length;
  const includeQueryStart = from.line === 1 && from.col === 0;
  const includeQueryEnd = to.line === lines.length && lastCharPos(to) === lines[lines.length - 1]!.length;
  const get = (line: number) => lines[line - 1] ?? '';
  const set = (line: number, s: string) => {
    if (line - 1 < lines.length) lines[line - 1] = s;
  };
  const toLine = get(to.line);
  const toEnd = lastCharPos(to);
  set(to.line, toEnd >= toLine.length ? toLine : toLine.substring(0, toEnd));
  const offLine = get(off.line);
  const withClose = insertAt(offLine, lastCharPos(off), ']');
  set(off.line, insertAt(withClose, off.col, '['));
  set(from.line, get(from.line).substring(Math.min(from.col, get(from.line).length)));
  let out = ' (';
  if (!includeQueryStart) out += '...';
  for (let l = from.line; l <= to.line; l++) out += get(l);
  if (!includeQueryEnd) out += '...';
  return `${out})`;
}

function insertAt(s: string, index: number, c: string): string {
  const i = Math.max(0, Math.min(index, s.length));
  return s.slice(0, i) + c + s.slice(i);
}
