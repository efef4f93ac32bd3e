import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode, InvalidRequest, SyntaxError } from '../cql/errors.js';
import type {
  AlterTableStatement,
  BatchStatement,
  CreateTableStatement,
  DeleteStatement,
  InsertStatement,
  SelectStatement,
  Statement,
  UpdateStatement,
} from '../cql/parser/ast.js';
import { isResolvedType, resolveType } from '../cql/parser/ast.js';
import { lineCol, tokenize } from '../cql/parser/lexer.js';
import { parseStatement } from '../cql/parser/parser.js';
import { K, T } from '../cql/parser/token.js';
import { native } from '../cql/types/cql-type.js';

function parse<S extends Statement>(cql: string): S {
  return parseStatement(cql) as S;
}

function syntaxError(cql: string): string {
  try {
    parseStatement(cql);
  } catch (e) {
    expect(e).toBeInstanceOf(SyntaxError);
    expect((e as SyntaxError).code).toBe(ErrorCode.SYNTAX_ERROR);
    return (e as Error).message;
  }
  throw new Error(`expected a syntax error for: ${cql}`);
}

function invalid(cql: string): string {
  try {
    parseStatement(cql);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidRequest);
    return (e as Error).message;
  }
  throw new Error(`expected InvalidRequest for: ${cql}`);
}

describe('lexer', () => {
  const types = (s: string) => tokenize(s).map((t) => t.type);
  it('keywords are case-insensitive and identifiers keep their text', () => {
    const toks = tokenize('SeLeCt Foo FROM "Bar""x"');
    expect(toks.map((t) => t.type)).toEqual([K.SELECT, T.IDENT, K.FROM, T.QUOTED_NAME, T.EOF]);
    expect(toks[1]!.text).toBe('Foo');
    expect(toks[3]!.text).toBe('Bar"x');
  });
  it('literals', () => {
    expect(types("'it''s' $$a'b$$ 12 -3 1.5 1e10 -2.5E-3 0xCAFE true FALSE")).toEqual([
      T.STRING_LITERAL,
      T.STRING_LITERAL,
      T.INTEGER,
      T.INTEGER,
      T.FLOAT,
      T.FLOAT,
      T.FLOAT,
      T.HEXNUMBER,
      T.BOOLEAN,
      T.BOOLEAN,
      T.EOF,
    ]);
    expect(tokenize("'it''s'")[0]!.text).toBe("it's");
    expect(tokenize("$$a'b$$")[0]!.text).toBe("a'b");
    expect(types('NaN -NaN Infinity -Infinity')).toEqual([
      K.POSITIVE_NAN,
      K.NEGATIVE_NAN,
      K.POSITIVE_INFINITY,
      K.NEGATIVE_INFINITY,
      T.EOF,
    ]);
  });
  it('uuids, durations, ranges', () => {
    expect(types('123e4567-e89b-12d3-a456-426614174000 deadbeef-e89b-12d3-a456-426614174000')).toEqual([
      T.UUID,
      T.UUID,
      T.EOF,
    ]);
    for (const d of ['1h30m', '12mo', '3d', '-1h', '1us', '1µs', '2ns', '5ms', 'P1DT2H', 'PT30M', 'P2W', '-P1Y']) {
      expect(types(d), d).toEqual([T.DURATION, T.EOF]);
    }
    expect(types('P0001-02-03T04:05:06')).toEqual([T.DURATION, T.EOF]);
    expect(types('1..2')).toEqual([T.INTEGER, T.RANGE, T.INTEGER, T.EOF]);
    expect(types('1...2')).toEqual([T.FLOAT, T.RANGE, T.INTEGER, T.EOF]);
    expect(types('x-1')).toEqual([T.IDENT, T.INTEGER, T.EOF]);
  });
  it('comments and whitespace are skipped', () => {
    expect(types('SELECT -- c\n* /* x\n y */ FROM // z\r t')).toEqual([K.SELECT, T.STAR, K.FROM, T.IDENT, T.EOF]);
  });
  it('operators and markers', () => {
    expect(types('? :n = != < <= > >= += -= + - * / % [ ] { } ( ) , . ;')).toEqual([
      T.QMARK,
      T.COLON,
      T.IDENT,
      T.EQ,
      T.NEQ,
      T.LT,
      T.LTE,
      T.GT,
      T.GTE,
      T.PLUS_EQ,
      T.MINUS_EQ,
      T.PLUS,
      T.MINUS,
      T.STAR,
      T.SLASH,
      T.PERCENT,
      T.LBRACKET,
      T.RBRACKET,
      T.LBRACE,
      T.RBRACE,
      T.LPAREN,
      T.RPAREN,
      T.COMMA,
      T.DOT,
      T.SEMI,
      T.EOF,
    ]);
  });
  it('line and column', () => {
    expect(lineCol('ab\ncd', 4)).toEqual({ line: 2, col: 1 });
  });
});

describe('driver and cqlsh statements', () => {
  it('system.local and peers', () => {
    const s = parse<SelectStatement>("SELECT * FROM system.local WHERE key='local'");
    expect(s.kind).toBe('select');
    expect(s.table).toEqual({ keyspace: 'system', name: 'local' });
    expect(s.selectors).toEqual([]);
    expect(s.where).toMatchObject([
      { kind: 'single', column: 'key', op: '=', value: { type: 'string', text: 'local' } },
    ]);
    const p = parse<SelectStatement>('SELECT peer, host_id, rpc_address, schema_version FROM system.peers');
    expect(p.selectors.map((x) => x.selectable)).toMatchObject([
      { kind: 'column', name: 'peer' },
      { kind: 'column', name: 'host_id' },
      { kind: 'column', name: 'rpc_address' },
      { kind: 'column', name: 'schema_version' },
    ]);
  });
  it('schema tables', () => {
    for (const q of [
      'SELECT * FROM system_schema.keyspaces',
      'SELECT * FROM system_schema.tables',
      'SELECT * FROM system_schema.columns',
      'SELECT * FROM system_schema.types',
      'SELECT * FROM system_schema.functions',
      'SELECT * FROM system_schema.aggregates',
      'SELECT * FROM system_schema.indexes',
      'SELECT * FROM system_schema.views',
      "SELECT * FROM system_schema.tables WHERE keyspace_name = 'ks' AND table_name = 't'",
      'SELECT keyspace_name, table_name, column_name, kind, position, type FROM system_schema.columns',
      'SELECT release_version FROM system.local',
      'SELECT cluster_name, data_center, rack, partitioner, release_version, tokens FROM system.local WHERE key = ?',
      'SELECT * FROM system.peers_v2',
      'select now() from system.local',
      'SELECT * FROM "MyKs"."MyTable";',
      'SELECT * FROM system_virtual_schema.keyspaces',
    ]) {
      expect(parseStatement(q).kind, q).toBe('select');
    }
  });
  it('USE, with quoted names', () => {
    expect(parseStatement('USE "MyKeyspace"')).toMatchObject({ kind: 'use', keyspace: 'MyKeyspace' });
    expect(parseStatement('use KS;')).toMatchObject({ kind: 'use', keyspace: 'ks' });
  });
});

describe('SELECT', () => {
  it('full clause set', () => {
    const s = parse<SelectStatement>(
      'SELECT JSON DISTINCT a AS x, "B", count(*), COUNT(1), writetime(c), maxwritetime(c), ttl(c), ' +
        "CAST(d AS text), u.f, m['k'], s[1..3], s[..2], ks.fn(a, 2) AS y, 1 + a * 2, -a, (int) ? " +
        'FROM ks.t WHERE k = 1 AND c >= 2 AND c < 5 GROUP BY k ORDER BY c DESC, d ASC ' +
        'PER PARTITION LIMIT 2 LIMIT 10 ALLOW FILTERING',
    );
    expect(s.json).toBe(true);
    expect(s.distinct).toBe(true);
    expect(s.selectors[0]).toEqual({ selectable: { kind: 'column', name: 'a', pos: 21 }, alias: 'x' });
    expect(s.selectors.map((x) => x.selectable.kind)).toEqual([
      'column',
      'column',
      'countRows',
      'function',
      'writetime',
      'maxwritetime',
      'ttl',
      'cast',
      'field',
      'element',
      'slice',
      'slice',
      'function',
      'binary',
      'negate',
      'typeHint',
    ]);
    expect(s.selectors[1]!.selectable).toMatchObject({ name: 'B' });
    expect(s.selectors[12]).toMatchObject({ selectable: { keyspace: 'ks', name: 'fn' }, alias: 'y' });
    expect(s.groupBy).toHaveLength(1);
    expect(s.orderBy).toEqual([
      { column: 'c', descending: true, ann: undefined },
      { column: 'd', descending: false, ann: undefined },
    ]);
    expect(s.perPartitionLimit).toMatchObject({ text: '2' });
    expect(s.limit).toMatchObject({ text: '10' });
    expect(s.allowFiltering).toBe(true);
    expect(s.bindMarkers).toHaveLength(1);
  });
  it('json and distinct are column names when nothing follows', () => {
    const s = parse<SelectStatement>('SELECT json, distinct FROM t');
    expect(s.json).toBe(false);
    expect(s.distinct).toBe(false);
    expect(s.selectors.map((x) => x.selectable)).toMatchObject([{ name: 'json' }, { name: 'distinct' }]);
    expect(parse<SelectStatement>('SELECT JSON * FROM t').json).toBe(true);
    expect(parse<SelectStatement>('SELECT DISTINCT k FROM t').distinct).toBe(true);
  });
  it('unreserved keywords as column names', () => {
    const s = parse<SelectStatement>('SELECT key, ttl, writetime, count, type, values, keys, text, list FROM t');
    expect(s.selectors.map((x) => (x.selectable as { name: string }).name)).toEqual([
      'key',
      'ttl',
      'writetime',
      'count',
      'type',
      'values',
      'keys',
      'text',
      'list',
    ]);
  });
  it('relations', () => {
    const s = parse<SelectStatement>(
      'SELECT * FROM t WHERE a IN (1, 2) AND b IN ? AND c IN (?, :x) AND (d, e) > (1, 2) AND (d, e) IN ((1, 2), (3, 4)) ' +
        "AND (d, e) IN ? AND (d, e) < ? AND token(a, b) > token(?, ?) AND token(a) <= ? AND m['k'] = 'v' AND " +
        "s CONTAINS 1 AND m CONTAINS KEY 'k' AND n LIKE 'ab%' AND v IS NOT NULL AND f != 3 AND expr(idx, 'q')",
    );
    expect(s.where.map((r) => [r.kind, 'op' in r ? r.op : undefined])).toEqual([
      ['single', 'IN'],
      ['single', 'IN'],
      ['single', 'IN'],
      ['multi', '>'],
      ['multi', 'IN'],
      ['multi', 'IN'],
      ['multi', '<'],
      ['token', '>'],
      ['token', '<='],
      ['element', '='],
      ['single', 'CONTAINS'],
      ['single', 'CONTAINS KEY'],
      ['single', 'LIKE'],
      ['single', 'IS NOT'],
      ['single', '!='],
      ['customIndex', undefined],
    ]);
    expect(s.where[1]).toMatchObject({ in: { kind: 'marker', marker: { index: 0, role: 'in' } } });
    expect(s.where[2]).toMatchObject({ in: { kind: 'terms', terms: [{ index: 1 }, { index: 2, name: 'x' }] } });
    expect(s.where[7]).toMatchObject({ columns: ['a', 'b'], value: { kind: 'function', name: 'token' } });
    expect(s.bindMarkers.map((m) => [m.index, m.name, m.role])).toEqual([
      [0, undefined, 'in'],
      [1, undefined, 'value'],
      [2, 'x', 'value'],
      [3, undefined, 'in'],
      [4, undefined, 'value'],
      [5, undefined, 'value'],
      [6, undefined, 'value'],
      [7, undefined, 'value'],
    ]);
  });
  it('ANN ordering and named markers', () => {
    const s = parse<SelectStatement>('SELECT * FROM t ORDER BY v ANN OF [1.0, 2.5] LIMIT :lim');
    expect(s.orderBy[0]).toMatchObject({ column: 'v', ann: { kind: 'list' } });
    expect(s.limit).toMatchObject({ kind: 'marker', name: 'lim', index: 0 });
  });
  it('selector terms and collections', () => {
    const s = parse<SelectStatement>("SELECT 1, 'a', NULL, [a, b], {a, b}, {'k': a}, {}, (a, b), (a) FROM t");
    expect(s.selectors.map((x) => x.selectable.kind)).toEqual([
      'term',
      'term',
      'term',
      'list',
      'set',
      'mapOrUdt',
      'set',
      'tuple',
      'tuple',
    ]);
  });
});

describe('terms', () => {
  const value = (t: string) => parse<InsertStatement>(`INSERT INTO t (a) VALUES (${t})`).values[0];
  it('literals keep raw text and kind', () => {
    expect(value("'x''y'")).toMatchObject({ kind: 'literal', type: 'string', text: "x'y" });
    expect(value('-12')).toMatchObject({ type: 'integer', text: '-12' });
    expect(value('1.5e3')).toMatchObject({ type: 'float', text: '1.5e3' });
    expect(value('-Infinity')).toMatchObject({ type: 'float', text: '-Infinity' });
    expect(value('NaN')).toMatchObject({ type: 'float', text: 'NaN' });
    expect(value('true')).toMatchObject({ type: 'boolean', text: 'true' });
    expect(value('0xff')).toMatchObject({ type: 'hex', text: '0xff' });
    expect(value('1h30m')).toMatchObject({ type: 'duration', text: '1h30m' });
    expect(value('P1DT1H')).toMatchObject({ type: 'duration' });
    expect(value('123e4567-e89b-12d3-a456-426614174000')).toMatchObject({ type: 'uuid' });
    expect(value('null')).toMatchObject({ kind: 'null' });
  });
  it('collections, tuples, udts', () => {
    expect(value('[1, 2]')).toMatchObject({ kind: 'list', elements: [{ text: '1' }, { text: '2' }] });
    expect(value('{1, 2}')).toMatchObject({ kind: 'set' });
    expect(value('{}')).toMatchObject({ kind: 'set', elements: [] });
    expect(value("{'a': 1, 'b': 2}")).toMatchObject({
      kind: 'map',
      entries: [
        [{ text: 'a' }, { text: '1' }],
        [{}, {}],
      ],
    });
    expect(value('{street: \'x\', "Zip": 1}')).toMatchObject({
      kind: 'udt',
      fields: [{ name: 'street' }, { name: 'Zip' }],
    });
    expect(value("(1, 'a', [2])")).toMatchObject({ kind: 'tuple' });
    expect(value('{a: {b: [1]}}')).toMatchObject({ kind: 'udt' });
  });
  it('functions, casts, arithmetic', () => {
    expect(value('now()')).toMatchObject({ kind: 'function', name: 'now', args: [] });
    expect(value('ks.f(1, ?)')).toMatchObject({ kind: 'function', keyspace: 'ks', name: 'f' });
    expect(value('token(1)')).toMatchObject({ kind: 'function', name: 'token' });
    expect(value('(int) ?')).toMatchObject({ kind: 'typeHint', type: native('int'), term: { kind: 'marker' } });
    expect(value('(frozen<list<int>>) [1]')).toMatchObject({ kind: 'typeHint', type: { kind: 'list', frozen: true } });
    expect(value('CAST(1 AS text)')).toMatchObject({ kind: 'cast', type: 'text' });
    expect(value('1 + 2 * 3')).toMatchObject({ kind: 'binary', op: '+', right: { kind: 'binary', op: '*' } });
    expect(value('- ?')).toMatchObject({ kind: 'negate' });
    expect(value('10 % 3 - 1 / 2')).toMatchObject({ kind: 'binary', op: '-' });
  });
});

describe('INSERT / UPDATE / DELETE / BATCH', () => {
  it('insert', () => {
    const s = parse<InsertStatement>(
      "INSERT INTO ks.users (id, name, emails) VALUES (?, 'bob', {'a@b'}) IF NOT EXISTS USING TTL 86400 AND TIMESTAMP ?",
    );
    expect(s).toMatchObject({
      kind: 'insert',
      table: { keyspace: 'ks', name: 'users' },
      columns: ['id', 'name', 'emails'],
      ifNotExists: true,
      attrs: { ttl: { text: '86400' }, timestamp: { kind: 'marker', index: 1 } },
    });
    expect(s.bindMarkers).toHaveLength(2);
  });
  it('insert json', () => {
    expect(parseStatement('INSERT INTO t JSON \'{"a": 1}\' DEFAULT UNSET')).toMatchObject({
      kind: 'insertJson',
      json: { kind: 'literal', text: '{"a": 1}' },
      defaultUnset: true,
    });
    expect(parseStatement('INSERT INTO t JSON ? DEFAULT NULL IF NOT EXISTS')).toMatchObject({
      json: { kind: 'marker', role: 'json' },
      defaultUnset: false,
      ifNotExists: true,
    });
  });
  it('update', () => {
    const s = parse<UpdateStatement>(
      "UPDATE t USING TTL 5 SET a = a + 1, b = b - {1}, c = [1] + c, d = d -3, m['k'] = 2, l[0] = 1, u.f = 3, e += 1, " +
        "g -= {'x'}, h = 'v' WHERE k = ? IF a = 1 AND m['k'] != 2 AND u.f > 3 AND c IN (1, 2) AND s CONTAINS 1",
    );
    expect(s.operations.map((o) => o.kind)).toEqual([
      'add',
      'subtract',
      'prepend',
      'add',
      'setElement',
      'setElement',
      'setField',
      'add',
      'subtract',
      'set',
    ]);
    expect(s.operations[3]).toMatchObject({ value: { text: '-3' } });
    expect(s.conditions.map((c) => [c.column, c.op, c.element !== undefined, c.field])).toEqual([
      ['a', '=', false, undefined],
      ['m', '!=', true, undefined],
      ['u', '>', false, 'f'],
      ['c', 'IN', false, undefined],
      ['s', 'CONTAINS', false, undefined],
    ]);
    expect(parse<UpdateStatement>('UPDATE t SET a = 1 WHERE k = 1 IF EXISTS').ifExists).toBe(true);
    expect(parse<UpdateStatement>('UPDATE t SET a = 1 WHERE k = 1 IF exists = 2').conditions).toHaveLength(1);
  });
  it('update rejects wrong column forms', () => {
    expect(syntaxError('UPDATE t SET a = b + 1 WHERE k = 1')).toBe(
      'Only expressions of the form X = X +<value> are supported.',
    );
    expect(syntaxError('UPDATE t SET a = [1] + b WHERE k = 1')).toBe(
      'Only expressions of the form X = <value> + X are supported.',
    );
    expect(syntaxError('UPDATE t SET a = 1, a = 2 WHERE k = 1')).toBe('Multiple incompatible setting of column a');
  });
  it('delete', () => {
    const s = parse<DeleteStatement>("DELETE a, m['k'], u.f FROM t USING TIMESTAMP 123 WHERE k = 1 IF EXISTS");
    expect(s.deletions).toMatchObject([
      { kind: 'column', column: 'a' },
      { kind: 'element', column: 'm' },
      { kind: 'field', column: 'u', field: 'f' },
    ]);
    expect(s.attrs.timestamp).toMatchObject({ text: '123' });
    expect(s.ifExists).toBe(true);
    expect(parse<DeleteStatement>('DELETE FROM t WHERE k IN (1, 2) IF a = 3').deletions).toEqual([]);
  });
  it('batch', () => {
    const s = parse<BatchStatement>(
      'BEGIN UNLOGGED BATCH USING TIMESTAMP 1 INSERT INTO t (a) VALUES (?); UPDATE t SET b = ? WHERE a = ?; ' +
        'DELETE FROM t WHERE a = ? APPLY BATCH;',
    );
    expect(s.type).toBe('UNLOGGED');
    expect(s.statements.map((x) => x.kind)).toEqual(['insert', 'update', 'delete']);
    expect(s.bindMarkers.map((m) => m.index)).toEqual([0, 1, 2, 3]);
    expect(s.statements[1]!.bindMarkers.map((m) => m.index)).toEqual([1, 2]);
    expect(parse<BatchStatement>('BEGIN COUNTER BATCH UPDATE t SET c = c + 1 WHERE k = 1 APPLY BATCH').type).toBe(
      'COUNTER',
    );
    expect(parse<BatchStatement>('BEGIN BATCH APPLY BATCH').statements).toEqual([]);
  });
});

describe('DDL', () => {
  it('keyspaces', () => {
    expect(
      parseStatement(
        "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false",
      ),
    ).toMatchObject({
      kind: 'createKeyspace',
      keyspace: 'ks',
      ifNotExists: true,
      properties: new Map<string, unknown>([
        [
          'replication',
          {
            kind: 'map',
            entries: new Map([
              ['class', 'SimpleStrategy'],
              ['replication_factor', '1'],
            ]),
          },
        ],
        ['durable_writes', { kind: 'simple', value: 'false' }],
      ]),
    });
    expect(
      parseStatement("ALTER KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 3}"),
    ).toMatchObject({ kind: 'alterKeyspace' });
    expect(parseStatement('DROP KEYSPACE IF EXISTS ks')).toMatchObject({ kind: 'dropKeyspace', ifExists: true });
  });
  it('create table', () => {
    const s = parse<CreateTableStatement>(
      'CREATE TABLE IF NOT EXISTS ks.events (tenant text, day date, ts timeuuid, "Value" frozen<map<text, list<int>>>, ' +
        'tags set<text>, meta tuple<int, list<text>>, emb vector<float, 3>, addr frozen<address>, owner ks2.person, ' +
        "s int STATIC, c 'org.apache.cassandra.db.marshal.UTF8Type', v varchar, " +
        "PRIMARY KEY ((tenant, day), ts)) WITH CLUSTERING ORDER BY (ts DESC) AND comment = 'x' AND " +
        "compaction = {'class': 'LeveledCompactionStrategy'} AND gc_grace_seconds = 10 AND ID = 123e4567-e89b-12d3-a456-426614174000",
    );
    expect(s.partitionKey).toEqual(['tenant', 'day']);
    expect(s.clustering).toEqual(['ts']);
    expect(s.clusteringOrder).toEqual([{ column: 'ts', descending: true }]);
    const types = Object.fromEntries(s.columns.map((c) => [c.name, c.type]));
    // frozen<...> freezes what is inside too (CQL3Type.Raw.freeze()).
    expect(types.Value).toEqual({
      kind: 'map',
      key: native('text'),
      value: { kind: 'list', element: native('int'), frozen: true },
      frozen: true,
    });
    expect(types.meta).toEqual({
      kind: 'tuple',
      elements: [native('int'), { kind: 'list', element: native('text'), frozen: true }],
    });
    expect(types.emb).toEqual({ kind: 'vector', element: native('float'), dimension: 3 });
    expect(types.addr).toEqual({ kind: 'userType', keyspace: undefined, name: 'address', frozen: true });
    expect(types.owner).toEqual({ kind: 'userType', keyspace: 'ks2', name: 'person', frozen: false });
    expect(types.c).toEqual({ kind: 'custom', className: 'org.apache.cassandra.db.marshal.UTF8Type' });
    expect(types.v).toBe(native('text'));
    expect(s.columns.find((c) => c.name === 's')!.isStatic).toBe(true);
    expect(s.properties.get('id')).toEqual({ kind: 'simple', value: '123e4567-e89b-12d3-a456-426614174000' });
    expect(isResolvedType(types.tags!)).toBe(true);
    expect(isResolvedType(types.addr!)).toBe(false);
    expect(
      resolveType(types.addr!, (keyspace, name, frozen) => ({
        kind: 'udt',
        keyspace: keyspace ?? 'ks',
        name,
        fields: [],
        frozen,
      })),
    ).toMatchObject({ kind: 'udt', name: 'address', frozen: true });
    const inline = parse<CreateTableStatement>('CREATE TABLE t (k int PRIMARY KEY, v text,)');
    expect(inline.partitionKey).toEqual(['k']);
    expect(inline.clustering).toEqual([]);
  });
  it('create table errors', () => {
    expect(invalid('CREATE TABLE t (k int PRIMARY KEY) WITH COMPACT STORAGE')).toBe(
      'Guardrail compact_tables violated: Creation of new COMPACT STORAGE tables is not allowed',
    );
    expect(invalid('CREATE TABLE t (k int PRIMARY KEY, k text)')).toBe(
      "Duplicate column 'k' declaration for table 't'",
    );
    expect(invalid('CREATE TABLE ks.t (k int PRIMARY KEY, v int, PRIMARY KEY (v))')).toBe(
      "Multiple PRIMARY KEY specified for table 'ks.t' (exactly one required)",
    );
    expect(syntaxError("CREATE TABLE t (k int PRIMARY KEY) WITH comment = 'a' AND comment = 'b'")).toBe(
      "Multiple definition for property 'comment'",
    );
    expect(syntaxError("CREATE KEYSPACE k WITH replication = {'a': 1, 'a': 2}")).toBe(
      'Multiple definition for property a',
    );
    expect(syntaxError("CREATE KEYSPACE k WITH replication = {'class': ?}")).toBe(
      "Invalid property value: ? for property: 'class' (bind variables are not supported in DDL queries)",
    );
    expect(syntaxError('CREATE TABLE t (k int) x')).toBe(
      "line 1:23 mismatched input 'x' expecting EOF (...TABLE t (k int) [x])",
    );
    expect(invalid('CREATE TABLE t (k int)')).toBe("No PRIMARY KEY specifed for table 't' (exactly one required)");
    expect(syntaxError('CREATE TABLE t (k byte PRIMARY KEY)')).toBe('Invalid (reserved) user type name byte');
    expect(syntaxError('CREATE TABLE t (k frozen<int> PRIMARY KEY)')).toBe(
      'frozen<> is only allowed on collections, tuples, and user-defined types',
    );
  });
  it('alter / drop / truncate table', () => {
    const ops = [
      'ALTER TABLE t ADD a int',
      'ALTER TABLE t ADD IF NOT EXISTS (a int, b text static)',
      'ALTER TABLE t DROP a',
      'ALTER TABLE IF EXISTS t DROP IF EXISTS (a, b) USING TIMESTAMP 12345678901234',
      'ALTER TABLE t RENAME a TO b AND c TO d',
      "ALTER TABLE t WITH comment = 'hi' AND default_time_to_live = 10",
      'ALTER TABLE t ALTER a TYPE text',
      'ALTER TABLE t ALTER a MASKED WITH mask_inner(1, null)',
      'ALTER TABLE t ALTER a DROP MASKED',
      'ALTER TABLE t DROP COMPACT STORAGE',
    ].map((q) => (parseStatement(q) as AlterTableStatement).operation);
    expect(ops.map((o) => o.kind)).toEqual([
      'add',
      'add',
      'drop',
      'drop',
      'rename',
      'with',
      'alterColumnType',
      'mask',
      'mask',
      'dropCompactStorage',
    ]);
    expect(ops[1]).toMatchObject({ ifNotExists: true, columns: [{ name: 'a' }, { name: 'b', isStatic: true }] });
    expect(ops[3]).toMatchObject({ ifExists: true, columns: ['a', 'b'], timestamp: 12345678901234n });
    expect(ops[4]).toMatchObject({
      renames: [
        { from: 'a', to: 'b' },
        { from: 'c', to: 'd' },
      ],
    });
    expect(parseStatement('DROP TABLE IF EXISTS ks.t')).toMatchObject({ kind: 'dropTable', ifExists: true });
    expect(parseStatement('TRUNCATE TABLE ks.t')).toMatchObject({ kind: 'truncate', table: { keyspace: 'ks' } });
    expect(parseStatement('TRUNCATE t')).toMatchObject({ kind: 'truncate', table: { name: 't' } });
    expect(syntaxError('ALTER TABLE t ADD COLUMN x text')).toBe(
      "line 1:27 mismatched input 'text' expecting EOF (...TABLE t ADD COLUMN x [text])",
    );
  });
  it('types', () => {
    expect(
      parseStatement('CREATE TYPE IF NOT EXISTS ks.address (street text, zip int, tags frozen<set<text>>)'),
    ).toMatchObject({
      kind: 'createType',
      type: { keyspace: 'ks', name: 'address' },
      fields: [{ name: 'street' }, {}, {}],
    });
    expect(parseStatement('ALTER TYPE address ADD phone text')).toMatchObject({ operation: { kind: 'add' } });
    expect(parseStatement('ALTER TYPE address RENAME zip TO code AND street TO road')).toMatchObject({
      operation: { kind: 'rename', renames: [{}, {}] },
    });
    expect(parseStatement('ALTER TYPE address ALTER zip TYPE bigint')).toMatchObject({ operation: { kind: 'alter' } });
    expect(parseStatement('DROP TYPE IF EXISTS address')).toMatchObject({ kind: 'dropType', ifExists: true });
  });
  it('indexes', () => {
    expect(parseStatement('CREATE INDEX ON t (v)')).toMatchObject({
      kind: 'createIndex',
      name: undefined,
      targets: [{ column: 'v', kind: 'simple' }],
    });
    expect(parseStatement('CREATE INDEX IF NOT EXISTS idx ON ks.t (keys(m))')).toMatchObject({
      name: 'idx',
      ifNotExists: true,
      targets: [{ column: 'm', kind: 'keys' }],
    });
    for (const [f, k] of [
      ['values', 'values'],
      ['entries', 'entries'],
      ['full', 'full'],
    ]) {
      expect(parseStatement(`CREATE INDEX i ON t (${f}(c))`)).toMatchObject({ targets: [{ kind: k }] });
    }
    expect(
      parseStatement(
        "CREATE CUSTOM INDEX i ON t (v) USING 'StorageAttachedIndex' WITH OPTIONS = {'similarity_function': 'cosine'}",
      ),
    ).toMatchObject({ custom: true, using: 'StorageAttachedIndex', properties: new Map([['options', {}]]) });
    expect(parseStatement('DROP INDEX IF EXISTS ks.i')).toMatchObject({
      kind: 'dropIndex',
      index: { keyspace: 'ks', name: 'i' },
    });
  });
  it('materialized views', () => {
    expect(
      parseStatement(
        'CREATE MATERIALIZED VIEW IF NOT EXISTS ks.by_name AS SELECT name, id FROM ks.users ' +
          "WHERE name IS NOT NULL AND id IS NOT NULL PRIMARY KEY (name, id) WITH CLUSTERING ORDER BY (id DESC) AND comment = 'v'",
      ),
    ).toMatchObject({
      kind: 'createView',
      view: { keyspace: 'ks', name: 'by_name' },
      baseTable: { name: 'users' },
      partitionKey: ['name'],
      clustering: ['id'],
      clusteringOrder: [{ column: 'id', descending: true }],
    });
    expect(syntaxError('CREATE MATERIALIZED VIEW v AS SELECT * FROM t PRIMARY KEY (a) WITH COMPACT STORAGE')).toBe(
      'COMPACT STORAGE tables are not allowed starting with version 4.0',
    );
    expect(parseStatement("ALTER MATERIALIZED VIEW v WITH comment = 'x'")).toMatchObject({ kind: 'alterView' });
    expect(parseStatement('DROP MATERIALIZED VIEW IF EXISTS ks.v')).toMatchObject({ kind: 'dropView', ifExists: true });
  });
  it('functions and aggregates', () => {
    expect(
      parseStatement(
        "CREATE OR REPLACE FUNCTION ks.plus(a int, b int) CALLED ON NULL INPUT RETURNS int LANGUAGE java AS 'return a + b;'",
      ),
    ).toMatchObject({
      kind: 'createFunction',
      orReplace: true,
      function: { keyspace: 'ks', name: 'plus' },
      args: [{ name: 'a' }, { name: 'b' }],
      calledOnNullInput: true,
      language: 'java',
      body: 'return a + b;',
    });
    expect(
      parseStatement(
        'CREATE FUNCTION IF NOT EXISTS f(x double) RETURNS NULL ON NULL INPUT RETURNS double LANGUAGE JavaScript AS $$ x * 2 $$',
      ),
    ).toMatchObject({ calledOnNullInput: false, language: 'javascript', body: ' x * 2 ' });
    expect(syntaxError('DROP FUNCTION ks.add(int)')).toBe(
      "line 1:17 no viable alternative at input 'add' (DROP FUNCTION ks.[add]...)",
    );
    expect(parseStatement('DROP FUNCTION IF EXISTS ks.plus(int, int)')).toMatchObject({
      kind: 'dropFunction',
      argTypes: [native('int'), native('int')],
    });
    expect(parseStatement('DROP FUNCTION f')).toMatchObject({ argTypes: undefined });
    expect(
      parseStatement(
        'CREATE OR REPLACE AGGREGATE ks.avg2(int) SFUNC st STYPE tuple<int, bigint> FINALFUNC fin INITCOND (0, 0)',
      ),
    ).toMatchObject({
      kind: 'createAggregate',
      stateFunction: 'st',
      finalFunction: 'fin',
      initCondition: { kind: 'tuple' },
    });
    expect(parseStatement('DROP AGGREGATE IF EXISTS avg2(int)')).toMatchObject({ kind: 'dropAggregate' });
  });
  it('triggers', () => {
    expect(parseStatement("CREATE TRIGGER trg ON t USING 'org.Foo'")).toMatchObject({ kind: 'createTrigger' });
    expect(parseStatement('DROP TRIGGER IF EXISTS trg ON t')).toMatchObject({ kind: 'dropTrigger' });
  });
});

describe('DCL', () => {
  it('roles and users', () => {
    expect(
      parseStatement(
        "CREATE ROLE IF NOT EXISTS alice WITH PASSWORD = 'pw' AND LOGIN = true AND SUPERUSER = false AND OPTIONS = {'a': 'b'} AND ACCESS TO DATACENTERS {'dc1', 'dc2'}",
      ),
    ).toMatchObject({
      kind: 'createRole',
      role: 'alice',
      ifNotExists: true,
      options: { password: 'pw', login: true, superuser: false, datacenters: ['dc1', 'dc2'] },
    });
    expect(parseStatement("CREATE ROLE 'Bob'")).toMatchObject({
      role: 'Bob',
      options: { login: false, superuser: false },
    });
    expect(parseStatement('ALTER ROLE bob WITH ACCESS TO ALL DATACENTERS')).toMatchObject({
      kind: 'alterRole',
      options: { datacenters: 'all', login: undefined },
    });
    expect(parseStatement('DROP ROLE IF EXISTS bob')).toMatchObject({ kind: 'dropRole', ifExists: true });
    expect(parseStatement("CREATE USER Carol WITH PASSWORD 'x' SUPERUSER")).toMatchObject({
      kind: 'createRole',
      user: true,
      role: 'Carol',
      options: { password: 'x', login: true, superuser: true },
    });
    expect(parseStatement("ALTER USER carol WITH PASSWORD 'y' NOSUPERUSER")).toMatchObject({
      kind: 'alterRole',
      options: { superuser: false },
    });
    expect(parseStatement('DROP USER IF EXISTS carol')).toMatchObject({ kind: 'dropRole', user: true });
    expect(syntaxError("CREATE ROLE r WITH PASSWORD = 'a' AND HASHED PASSWORD = 'b'")).toBe(
      "Options 'password' and 'hashed password' are mutually exclusive",
    );
    expect(syntaxError('CREATE USER "x"')).toBe(
      'Quoted strings are are not supported for user names and USER is deprecated, please use ROLE',
    );
  });
  it('grant / revoke / list', () => {
    expect(parseStatement('GRANT admin TO alice')).toMatchObject({
      kind: 'grantRole',
      role: 'admin',
      grantee: 'alice',
    });
    expect(parseStatement('REVOKE admin FROM alice')).toMatchObject({ kind: 'revokeRole', revokee: 'alice' });
    expect(parseStatement('GRANT SELECT, MODIFY ON KEYSPACE ks TO alice')).toMatchObject({
      kind: 'grantPermissions',
      permissions: ['SELECT', 'MODIFY'],
      resource: { kind: 'keyspace', keyspace: 'ks' },
    });
    expect(parseStatement('GRANT ALL PERMISSIONS ON ALL KEYSPACES TO alice')).toMatchObject({
      all: true,
      resource: { kind: 'allKeyspaces' },
    });
    expect(parseStatement('REVOKE SELECT ON TABLE ks.t FROM bob')).toMatchObject({
      kind: 'revokePermissions',
      resource: { kind: 'table', table: { keyspace: 'ks', name: 't' } },
    });
    expect(parseStatement('GRANT SELECT ON ks.t TO bob')).toMatchObject({ resource: { kind: 'table' } });
    expect(parseStatement('GRANT ALTER ON ALL ROLES TO bob')).toMatchObject({ resource: { kind: 'allRoles' } });
    expect(parseStatement('GRANT ALTER ON ROLE carol TO bob')).toMatchObject({
      resource: { kind: 'role', role: 'carol' },
    });
    expect(parseStatement('GRANT EXECUTE ON ALL FUNCTIONS IN KEYSPACE ks TO bob')).toMatchObject({
      resource: { kind: 'allFunctionsInKeyspace', keyspace: 'ks' },
    });
    expect(parseStatement('GRANT EXECUTE ON ALL FUNCTIONS TO bob')).toMatchObject({
      resource: { kind: 'allFunctions' },
    });
    expect(parseStatement('GRANT EXECUTE ON FUNCTION ks.f(int, text) TO bob')).toMatchObject({
      resource: { kind: 'function', argTypes: [native('int'), native('text')] },
    });
    expect(parseStatement('GRANT SELECT ON ALL MBEANS TO bob')).toMatchObject({ resource: { kind: 'allMBeans' } });
    expect(parseStatement("GRANT SELECT ON MBEAN 'org.apache:type=X' TO bob")).toMatchObject({
      resource: { kind: 'mbean', pattern: false },
    });
    expect(parseStatement("GRANT SELECT ON MBEANS 'org.apache:type=*' TO bob")).toMatchObject({
      resource: { kind: 'mbean', pattern: true },
    });
    expect(parseStatement('GRANT UNMASK ON TABLE t TO bob')).toMatchObject({ permissions: ['UNMASK'] });
    expect(parseStatement('GRANT SELECT_MASKED ON KEYSPACE ks TO bob')).toMatchObject({
      permissions: ['SELECT_MASKED'],
    });
    expect(syntaxError('GRANT EXECUTE ON KEYSPACE ks TO bob')).toBe(
      'Resource type DataResource does not support any of the requested permissions',
    );
    expect(parseStatement('LIST ROLES')).toMatchObject({ kind: 'listRoles', role: undefined, recursive: true });
    expect(parseStatement('LIST ROLES OF alice NORECURSIVE')).toMatchObject({ role: 'alice', recursive: false });
    expect(parseStatement('LIST USERS')).toMatchObject({ kind: 'listUsers' });
    expect(parseStatement('LIST ALL PERMISSIONS OF alice')).toMatchObject({
      kind: 'listPermissions',
      all: true,
      role: 'alice',
      resource: undefined,
    });
    expect(parseStatement('LIST SELECT ON KEYSPACE ks OF bob NORECURSIVE')).toMatchObject({
      permissions: ['SELECT'],
      resource: { kind: 'keyspace' },
      recursive: false,
    });
    expect(parseStatement('LIST ALL')).toMatchObject({ kind: 'listPermissions', all: true });
  });
});

describe('DESCRIBE', () => {
  const target = (q: string) => (parseStatement(q) as Extract<Statement, { kind: 'describe' }>).target;
  it('every form', () => {
    expect(target('DESCRIBE CLUSTER')).toEqual({ kind: 'cluster' });
    expect(target('DESC SCHEMA')).toEqual({ kind: 'schema', full: false });
    expect(target('DESCRIBE FULL SCHEMA')).toEqual({ kind: 'schema', full: true });
    expect(target('DESCRIBE KEYSPACES')).toEqual({ kind: 'keyspaces' });
    expect(target('DESCRIBE KEYSPACE')).toEqual({ kind: 'keyspace', keyspace: undefined, only: false });
    expect(target('DESCRIBE ONLY KEYSPACE ks')).toEqual({ kind: 'keyspace', keyspace: 'ks', only: true });
    expect(target('DESCRIBE TABLES')).toEqual({ kind: 'tables' });
    expect(target('DESCRIBE TABLE ks.t')).toEqual({ kind: 'table', name: { keyspace: 'ks', name: 't' } });
    expect(target('DESCRIBE COLUMNFAMILY t')).toMatchObject({ kind: 'table' });
    expect(target('DESCRIBE TYPES')).toEqual({ kind: 'types' });
    expect(target('DESCRIBE TYPE ks.address')).toEqual({ kind: 'type', name: { keyspace: 'ks', name: 'address' } });
    expect(target('DESCRIBE FUNCTIONS')).toEqual({ kind: 'functions' });
    expect(target('DESCRIBE FUNCTION ks.f')).toEqual({ kind: 'function', name: { keyspace: 'ks', name: 'f' } });
    expect(target('DESCRIBE AGGREGATES')).toEqual({ kind: 'aggregates' });
    expect(target('DESCRIBE AGGREGATE a')).toEqual({ kind: 'aggregate', name: { keyspace: undefined, name: 'a' } });
    expect(target('DESCRIBE INDEX ks.i')).toMatchObject({ kind: 'index' });
    expect(target('DESCRIBE MATERIALIZED VIEW v')).toMatchObject({ kind: 'materializedView' });
    expect(target('DESCRIBE ks.t')).toEqual({ kind: 'generic', name: { keyspace: 'ks', name: 't' } });
    expect(target('DESCRIBE "MyTable"')).toEqual({ kind: 'generic', name: { keyspace: undefined, name: 'MyTable' } });
    expect(target('DESCRIBE type')).toEqual({ kind: 'generic', name: { keyspace: undefined, name: 'type' } });
    expect(parseStatement('DESCRIBE TABLE t WITH INTERNALS')).toMatchObject({ withInternals: true });
    expect(parseStatement('DESCRIBE KEYSPACE ks WITH INTERNALS;')).toMatchObject({ withInternals: true });
  });
});

describe("syntax errors in Cassandra's words", () => {
  const cases: [string, string][] = [
    ['SELEC * FROM t', "line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)"],
    ['SELECT * FRM t', "line 1:9 mismatched input 'FRM' expecting K_FROM (SELECT * [FRM]...)"],
    ['SELECT * zeppelin.albums;', "line 1:9 mismatched input 'zeppelin' expecting K_FROM (SELECT * [zeppelin]...)"],
    ['select *\n;', "line 2:0 mismatched input ';' expecting K_FROM (select *[;])"],
    ['SELECT', "line 0:-1 no viable alternative at input '<EOF>'"],
    ['SELECT * FROM t x', "line 1:16 mismatched input 'x' expecting EOF (SELECT * FROM t [x])"],
    ['SELECT 1; SELECT 2;', "line 1:8 mismatched input ';' expecting K_FROM (SELECT 1[;]...)"],
    [
      'SELECT * FROM t; SELECT * FROM t',
      "line 1:17 mismatched input 'SELECT' expecting EOF (SELECT * FROM t; [SELECT]...)",
    ],
    ['INSERT INTO t (a, b)', "line 0:-1 mismatched input '<EOF>' expecting K_VALUES"],
    [
      'INSERT INTO t (a) VALUE (1)',
      "line 1:18 mismatched input 'VALUE' expecting K_VALUES (INSERT INTO t (a) [VALUE]...)",
    ],
    ['CREATE TABLE t (a int PRIMARY KEY', "line 0:-1 mismatched input '<EOF>' expecting ')'"],
    [
      'CREATE TABLE t (select int PRIMARY KEY)',
      "line 1:16 no viable alternative at input 'select' (CREATE TABLE t ([select]...)",
    ],
    ["SELECT * FROM t WHERE a = 'abc", "line 1:30 mismatched character '<EOF>' expecting '''"],
    ['SELECT * FROM "t', "line 1:16 mismatched character '<EOF>' expecting '\"'"],
    ['SELECT * FROM t -- comment', "line 1:26 mismatched character '<EOF>' expecting set null"],
    ['-----', "line 1:5 mismatched character '<EOF>' expecting set null"],
    ['SELECT * FROM t WHERE a # 1', "line 1:24 no viable alternative at character '#'"],
    ['SELECT * FROM t WHERE a ! 1', "line 1:25 mismatched character ' ' expecting '='"],
    // The following are messages Cassandra itself printed (collected from bug reports and tutorials).
    ['SELECT  FROM t', "line 1:8 no viable alternative at input 'FROM' (SELECT  [FROM]...)"],
    [
      "create user newuser withpassword 'newrole123';",
      "line 1:20 mismatched input 'withpassword' expecting EOF (create user newuser [withpassword]...)",
    ],
    ['delete from user;', "line 1:16 mismatched input ';' expecting K_WHERE (delete from user[;])"],
    [
      'DELETE FROM players_ageorder ;',
      "line 1:29 mismatched input ';' expecting K_WHERE (DELETE FROM players_ageorder [;])",
    ],
    [
      "UPDATE user SET phone_numbers = ['1-800-111-2222']\n;",
      "line 2:0 mismatched input ';' expecting K_WHERE (...SET phone_numbers = ['1-800-111-2222'][;])",
    ],
    [
      "CREATE KEYSPACE social_app\nWITH REPLICATION={}\n'class':'NetworkTopologyStrategy',\n'DC1':2\n} and durable_writes=true;",
      // Cassandra brackets by the unescaped text's length, hence ['clas].
      "line 3:0 mismatched input 'class' expecting EOF (... social_appWITH REPLICATION={}['clas]...)",
    ],
    ['drop eomployee_info\n;', "line 1:5 no viable alternative at input 'eomployee_info' ([drop] eomployee_info...)"],
    ['DROP cqlkeyspace.t;', "line 1:5 no viable alternative at input 'cqlkeyspace' ([DROP] cqlkeyspace...)"],
    ['DELETE cqlkeyspace.t;', "line 1:20 mismatched input ';' expecting K_FROM (DELETE cqlkeyspace.t[;])"],
    [
      'insert into "xephonnaive".metrics (metric_name, metric_timestamp, value) values ("cpu.load", now(), 30);',
      'line 1:91 no viable alternative at input \',\' (... metric_timestamp, value) values (["cpu.loa]d",...)',
    ],
    [
      'SELECT * FROM Comment_per_video WHERE video_id = eccb34b0-0d4b-11ea-9d48-0b1cc2ad2f9;SELECT * FROM c',
      "line 1:84 mismatched character ';' expecting set null",
    ],
    ['SELECT * FROM ?', 'Bind variables cannot be used for table names'],
    ['USE ?', 'Bind variables cannot be used for keyspace names'],
  ];
  for (const [q, msg] of cases) {
    it(q.replace(/\n/g, '\\n'), () => {
      expect(syntaxError(q)).toBe(msg);
    });
  }
  it('multi-line snippet', () => {
    expect(syntaxError('SELECT *\nFROM t\nWHERE a = 1\nLIMIT x')).toBe(
      "line 4:6 no viable alternative at input 'x' (...WHERE a = 1LIMIT [x])",
    );
  });
  it('lexer errors come first only when reached', () => {
    // The parser fails at SELEC before the lexer reaches the bad string.
    expect(syntaxError("SELEC 'abc")).toBe("line 1:0 no viable alternative at input 'SELEC' ([SELEC]...)");
  });
});

describe('robustness', () => {
  const keywords = ['SELECT', 'FROM', 'WHERE', 'AND', 'INSERT', 'INTO', 'VALUES', 'UPDATE', 'SET', 'CREATE', 'TABLE'];
  const pieces = fc.oneof(
    fc.constantFrom(
      ...keywords,
      '(',
      ')',
      ',',
      ';',
      '?',
      ':x',
      "'s'",
      '"Q"',
      '1',
      '-1.5',
      '{',
      '}',
      '[',
      ']',
      '=',
      '<',
    ),
    fc.constantFrom(
      'a',
      'key',
      'ttl',
      'count(*)',
      'token(a)',
      'IN',
      'IF',
      'EXISTS',
      'NOT',
      'NULL',
      '..',
      '$$x$$',
      '/*',
    ),
    fc.string({ maxLength: 4 }),
  );
  const accepted = (e: unknown) => e instanceof SyntaxError || e instanceof InvalidRequest;
  it('random strings only ever throw SyntaxError / InvalidRequest', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        try {
          parseStatement(s);
        } catch (e) {
          if (!accepted(e)) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });
  it('random token soups only ever throw SyntaxError / InvalidRequest', () => {
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
        try {
          parseStatement(parts.join(' '));
        } catch (e) {
          if (!accepted(e)) throw e;
        }
      }),
      { numRuns: 5000 },
    );
  });
  it('prefixes of valid statements never crash', () => {
    const qs = [
      'SELECT a, b AS c, count(*) FROM ks.t WHERE k = ? AND c IN (1, 2) ORDER BY c DESC LIMIT 10 ALLOW FILTERING',
      "UPDATE t USING TTL 5 SET a = a + 1, m['k'] = 2 WHERE k = 1 IF a = 1",
      "CREATE TABLE ks.t (k int, c text, v map<text, frozen<list<int>>>, PRIMARY KEY ((k), c)) WITH CLUSTERING ORDER BY (c DESC) AND comment = 'x'",
      'BEGIN BATCH INSERT INTO t (a) VALUES (1); DELETE FROM t WHERE a = 2 APPLY BATCH',
      "CREATE ROLE r WITH PASSWORD = 'p' AND LOGIN = true",
    ];
    for (const q of qs) {
      for (let i = 0; i <= q.length; i++) {
        try {
          parseStatement(q.slice(0, i));
        } catch (e) {
          if (!accepted(e)) throw e;
        }
      }
    }
  });
  it('deep nesting is a syntax error, not a crash', () => {
    const deep = `SELECT * FROM t WHERE a = ${'['.repeat(200_000)}`;
    expect(syntaxError(deep)).toMatch(/^Failed parsing statement: /);
    expect(syntaxError(`INSERT INTO t (a) VALUES (${'('.repeat(50_000)}1${')'.repeat(50_000)})`)).toMatch(/^Failed/);
  });
  it('is fast on simple statements', () => {
    const q = "SELECT a, b, c FROM ks.tbl WHERE pk = ? AND ck > 'x' LIMIT 100";
    const start = process.hrtime.bigint();
    for (let i = 0; i < 20_000; i++) parseStatement(q);
    const perCall = Number(process.hrtime.bigint() - start) / 20_000 / 1000;
    // Generous bound for a shared CI machine; typically a few microseconds.
    expect(perCall).toBeLessThan(100);
  });
});
