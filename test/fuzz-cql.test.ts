// Fuzzing the CQL lexer and parser (fast-check): token soups, mutated real statements, random
// unicode, pathological nesting. The lexer never throws (errors become ERROR tokens) and covers
// its input; parseStatement returns a statement or throws SyntaxError / InvalidRequest, never
// anything else, and never takes long. CI: a few thousand inputs; long mode: FUZZ_RUNS.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CqlError, ErrorCode } from '../cql/errors.js';
import { tokenize } from '../cql/parser/lexer.js';
import { parseStatement } from '../cql/parser/parser.js';
import { count, FUZZ_TIMEOUT, fuzzParams, reportCounts } from './support/fuzz-harness.js';

afterAll(() => reportCounts('fuzz-cql'));

const SLOW_MS = 2000;

/** Real statements of every kind, to mutate. */
const STATEMENTS = [
  "SELECT * FROM ks.t WHERE k = 1 AND c > 'a' ORDER BY c DESC LIMIT 10 ALLOW FILTERING",
  'SELECT DISTINCT k, token(k), writetime(v), ttl(v) FROM t WHERE token(k) > ? PER PARTITION LIMIT 2',
  'SELECT JSON k, v AS x, CAST(v AS text), count(*) FROM t WHERE k IN (1, 2, ?) GROUP BY k',
  'SELECT m[1], s, l[0..2], u.f FROM t WHERE m CONTAINS KEY 1 AND l CONTAINS 3 AND (c1, c2) >= (1, 2)',
  "SELECT * FROM t WHERE v LIKE 'a%' AND x IS NOT NULL ORDER BY vec ANN OF [1.0, 2.5] LIMIT 3",
  "INSERT INTO ks.t (k, v, m, s, l, u, tu) VALUES (1, 'x', {1: 'a'}, {1, 2}, [1, 2], {f: 1}, (1, 'b')) IF NOT EXISTS USING TTL 86400 AND TIMESTAMP 1234",
  'INSERT INTO t JSON \'{"k": 1, "v": "x"}\' DEFAULT UNSET',
  'UPDATE t USING TTL ? SET v = v + 1, m[?] = ?, l = l - [1], s = s + {3} WHERE k = :key IF v = 2 AND m[1] != null',
  'UPDATE t SET c = c + 1 WHERE k = 0x0aff AND id = 123e4567-e89b-12d3-a456-426614174000',
  'DELETE v, m[1], u.f FROM t USING TIMESTAMP 5 WHERE k = 1 AND c IN (1, 2) IF EXISTS',
  "BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (k) VALUES (1); UPDATE t SET v = 'a' WHERE k = 2; DELETE FROM t WHERE k = 3; APPLY BATCH",
  "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = true",
  "CREATE TABLE IF NOT EXISTS ks.t (k int, c text, v frozen<map<int, list<tuple<int, text>>>>, s set<blob> static, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x' AND compaction = {'class': 'LCS'}",
  'CREATE TABLE t (k uuid PRIMARY KEY, d duration, vec vector<float, 3>, dt date, tm time, ts timestamp, i inet, vi varint, de decimal)',
  'ALTER TABLE ks.t ADD (a int, b text); ',
  'ALTER TABLE t DROP v USING TIMESTAMP 3',
  'ALTER TABLE t RENAME c TO d AND e TO f',
  'ALTER TABLE t WITH gc_grace_seconds = 0',
  'DROP TABLE IF EXISTS ks.t',
  'TRUNCATE TABLE ks.t',
  'CREATE INDEX IF NOT EXISTS i ON t (keys(m))',
  "CREATE CUSTOM INDEX ON t (v) USING 'StorageAttachedIndex' WITH OPTIONS = {'case_sensitive': 'false'}",
  'DROP INDEX ks.i',
  'CREATE TYPE ks.u (f int, g frozen<list<text>>)',
  'ALTER TYPE u ADD h text',
  'ALTER TYPE u RENAME f TO ff',
  'CREATE MATERIALIZED VIEW v AS SELECT * FROM t WHERE k IS NOT NULL AND c IS NOT NULL PRIMARY KEY (c, k)',
  "CREATE OR REPLACE FUNCTION ks.f (a int) CALLED ON NULL INPUT RETURNS int LANGUAGE javascript AS 'a + 1'",
  'CREATE FUNCTION f2 (a int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS $$ return a; $$',
  'CREATE AGGREGATE ks.agg (int) SFUNC f STYPE int FINALFUNC g INITCOND 0',
  "CREATE ROLE IF NOT EXISTS r WITH PASSWORD = 'p' AND LOGIN = true AND SUPERUSER = false AND OPTIONS = {'a': 1}",
  "CREATE USER u WITH PASSWORD 'p' NOSUPERUSER",
  'GRANT SELECT ON ALL KEYSPACES TO r',
  'REVOKE MODIFY ON TABLE ks.t FROM r',
  'GRANT EXECUTE ON FUNCTION ks.f(int) TO r',
  'LIST ALL PERMISSIONS OF r NORECURSIVE',
  'LIST ROLES OF r',
  'GRANT r1 TO r2',
  'DESCRIBE KEYSPACE ks',
  'DESC TABLE ks.t',
  'DESCRIBE FULL SCHEMA',
  'USE "MyKs"',
  "SELECT * FROM t WHERE k = -1.5e10 AND d = 1h30m AND x = P1DT2H AND y = NaN AND z = -Infinity AND w = $$a'b$$",
  'SELECT a + b * -c / d % e, [1, 2], {1: 2}, (1, 2), ?, :n FROM t',
  "SELECT * FROM system.local WHERE key = 'local' -- trailing comment\n /* block */",
];

/** Tokens CQL knows, for soups that look almost right. */
const VOCABULARY = [
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'INSERT',
  'INTO',
  'VALUES',
  'UPDATE',
  'SET',
  'DELETE',
  'BEGIN',
  'BATCH',
  'APPLY',
  'CREATE',
  'ALTER',
  'DROP',
  'TABLE',
  'KEYSPACE',
  'TYPE',
  'INDEX',
  'VIEW',
  'FUNCTION',
  'AGGREGATE',
  'ROLE',
  'USER',
  'WITH',
  'IF',
  'NOT',
  'EXISTS',
  'USING',
  'TTL',
  'TIMESTAMP',
  'PRIMARY',
  'KEY',
  'ORDER',
  'BY',
  'LIMIT',
  'IN',
  'CONTAINS',
  'GRANT',
  'REVOKE',
  'ON',
  'TO',
  'OF',
  'LIST',
  'DESCRIBE',
  'USE',
  'TRUNCATE',
  'JSON',
  'DISTINCT',
  'AS',
  'CAST',
  'token',
  'frozen',
  'map',
  'list',
  'set',
  'tuple',
  'vector',
  'int',
  'text',
  'blob',
  'NULL',
  'true',
  'IS',
  'ANN',
  'LIKE',
  'STATIC',
  'CLUSTERING',
  'ALLOW',
  'FILTERING',
  'GROUP',
  'PER',
  'PARTITION',
  'DEFAULT',
  'UNSET',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '<',
  '>',
  ',',
  ';',
  '.',
  '..',
  ':',
  '=',
  '!=',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  ':x',
  "'str'",
  "'it''s'",
  '"Quoted"',
  '$$dollar$$',
  '0',
  '-1',
  '1.5',
  '1e400',
  '-0.0',
  'NaN',
  'Infinity',
  '0xCAFE',
  '0x',
  '123e4567-e89b-12d3-a456-426614174000',
  '1h2m',
  'P1Y2M',
  'PT1S',
  'P2W',
  '--c\n',
  '/* c */',
  "'",
  '"',
  '$$',
  '/*',
  'k',
  'ks',
  't',
  'v',
  'm',
  '\u00e9',
  '\u{1F600}',
  '\\',
  '@',
  '#',
  '`',
  '\0',
];

function parseOnly(cql: string): void {
  const started = performance.now();
  try {
    parseStatement(cql);
  } catch (e) {
    if (!(e instanceof CqlError) || (e.code !== ErrorCode.SYNTAX_ERROR && e.code !== ErrorCode.INVALID)) {
      throw new Error(`parser threw ${String(e)} on ${JSON.stringify(cql.slice(0, 300))}`);
    }
    expect(typeof e.message).toBe('string');
  } finally {
    expect(performance.now() - started).toBeLessThan(SLOW_MS);
  }
}

function lexOnly(cql: string): void {
  const tokens = tokenize(cql, true);
  // Tokens come in order, inside the input, and there are not more of them than characters
  // (plus EOF and an ERROR token or two): the lexer always makes progress. (Plain checks: expect()
  // per token is too slow for 20,000-token inputs.)
  let at = 0;
  for (const t of tokens) {
    if (t.start < at || t.end < t.start || t.end > cql.length) {
      throw new Error(
        `lexer token out of place: ${t.start}..${t.end} after ${at} in ${JSON.stringify(cql.slice(0, 200))}`,
      );
    }
    at = t.start;
  }
  if (tokens.length > cql.length + 3) throw new Error(`lexer made ${tokens.length} tokens of ${cql.length} chars`);
}

type Edit = { at: number; del: number; ins: string };
const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  del: fc.nat(8),
  ins: fc.oneof(
    fc.constantFrom(...VOCABULARY).map((v) => ` ${v} `),
    fc.string({ maxLength: 4 }),
    fc.constant(''),
  ),
});

function applyEdits(src: string, edits: Edit[]): string {
  let s = src;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % (s.length + 1);
    s = s.slice(0, at) + e.ins + s.slice(at + e.del);
  }
  return s;
}

const mutatedStatement = fc
  .tuple(fc.constantFrom(...STATEMENTS), fc.array(editArb, { minLength: 1, maxLength: 4 }))
  .map(([s, edits]) => applyEdits(s, edits));
const tokenSoup = fc
  .array(fc.constantFrom(...VOCABULARY), { maxLength: 40 })
  .chain((words) => fc.constantFrom(' ', '', '\n').map((sep) => words.join(sep)));
/** Statement prefixes: every truncation point of a real statement. */
const truncated = fc.tuple(fc.constantFrom(...STATEMENTS), fc.nat()).map(([s, n]) => s.slice(0, n % (s.length + 1)));

describe('CQL lexer and parser', () => {
  it('parses every corpus statement (the corpus is right)', () => {
    for (const s of STATEMENTS) parseStatement(s);
  });

  it(
    'mutated real statements: a statement, SyntaxError or InvalidRequest',
    () => {
      fc.assert(
        fc.property(mutatedStatement, (s) => {
          count('parser: mutated statements');
          lexOnly(s);
          parseOnly(s);
        }),
        fuzzParams(4000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'token soups and truncated statements',
    () => {
      fc.assert(
        fc.property(fc.oneof(tokenSoup, truncated), (s) => {
          count('parser: token soups');
          lexOnly(s);
          parseOnly(s);
        }),
        fuzzParams(4000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'random unicode strings',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.string({ maxLength: 200, unit: 'binary' }), fc.string({ maxLength: 200 })), (s) => {
          count('parser: random strings');
          lexOnly(s);
          parseOnly(s);
        }),
        fuzzParams(2000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it('pathological nesting and sizes stay errors, not crashes', () => {
    const deep = 20_000;
    const cases = [
      `SELECT ${'('.repeat(deep)}1${')'.repeat(deep)} FROM t`,
      `SELECT * FROM t WHERE k = ${'['.repeat(deep)}`,
      `INSERT INTO t (k, v) VALUES (1, ${'{'.repeat(deep)}1${'}'.repeat(deep)})`,
      `INSERT INTO t (k, v) VALUES (1, ${'['.repeat(deep)}${']'.repeat(deep)})`,
      `CREATE TABLE t (k ${'frozen<list<'.repeat(deep)}int${'>>'.repeat(deep)} PRIMARY KEY)`,
      `SELECT ${'-'.repeat(deep)}1 FROM t`,
      `SELECT ${'f('.repeat(deep)}${')'.repeat(deep)} FROM t`,
      `SELECT * FROM t WHERE k = ${'1 + '.repeat(deep)}1`,
      `SELECT * FROM t WHERE ${'k = 1 AND '.repeat(deep)}k = 1`,
      `SELECT ${'a, '.repeat(deep)}a FROM t`,
      `SELECT * FROM t WHERE k = '${'x'.repeat(1 << 20)}`,
      `SELECT * FROM t WHERE k = 1${'0'.repeat(100_000)}`,
      `/*${' '.repeat(1 << 20)}`,
      `$$${'$'.repeat(10_000)}`,
      `SELECT * FROM t WHERE k = ${'?'.repeat(deep)}`,
    ];
    for (const c of cases) {
      count('parser: pathological');
      lexOnly(c);
      parseOnly(c);
    }
  });
});
