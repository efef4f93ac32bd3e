// Token types of the CQL lexer, named as Cassandra's Lexer.g names them so that syntax error messages
// ("expecting K_FROM", "expecting ')'") read exactly like Cassandra's.

/** Non-keyword token types. Keywords follow from KEYWORD_BASE. */
export const T = {
  EOF: 0,
  /** A lexer error; its text is the full message. Always the last token before EOF. */
  ERROR: 1,
  IDENT: 2,
  QUOTED_NAME: 3,
  EMPTY_QUOTED_NAME: 4,
  STRING_LITERAL: 5,
  INTEGER: 6,
  FLOAT: 7,
  BOOLEAN: 8,
  DURATION: 9,
  UUID: 10,
  HEXNUMBER: 11,
  QMARK: 12,
  RANGE: 13,
  SEMI: 14,
  LPAREN: 15,
  RPAREN: 16,
  COMMA: 17,
  DOT: 18,
  STAR: 19,
  LBRACKET: 20,
  RBRACKET: 21,
  LBRACE: 22,
  RBRACE: 23,
  COLON: 24,
  EQ: 25,
  LT: 26,
  LTE: 27,
  GT: 28,
  GTE: 29,
  NEQ: 30,
  PLUS: 31,
  MINUS: 32,
  SLASH: 33,
  PERCENT: 34,
  PLUS_EQ: 35,
  MINUS_EQ: 36,
  /** The literal 'expr(' of custom index expressions. */
  EXPR: 37,
  /** Hidden-channel tokens, produced only when asked for (error snippets). */
  WS: 38,
  COMMENT: 39,
  MULTILINE_COMMENT: 40,
} as const;

const KEYWORD_BASE = 64;

/** Keyword names as in Lexer.g without the K_ prefix. */
const KEYWORDS = [
  'SELECT',
  'FROM',
  'AS',
  'WHERE',
  'AND',
  'KEY',
  'KEYS',
  'ENTRIES',
  'FULL',
  'INSERT',
  'UPDATE',
  'WITH',
  'LIMIT',
  'PER',
  'PARTITION',
  'USING',
  'USE',
  'DISTINCT',
  'COUNT',
  'SET',
  'BEGIN',
  'UNLOGGED',
  'BATCH',
  'APPLY',
  'TRUNCATE',
  'DELETE',
  'IN',
  'CREATE',
  'SCHEMA',
  'KEYSPACE',
  'KEYSPACES',
  'COLUMNFAMILY',
  'TABLES',
  'MATERIALIZED',
  'VIEW',
  'INDEX',
  'CUSTOM',
  'ON',
  'TO',
  'DROP',
  'PRIMARY',
  'INTO',
  'VALUES',
  'TIMESTAMP',
  'TTL',
  'CAST',
  'ALTER',
  'RENAME',
  'ADD',
  'TYPE',
  'TYPES',
  'COMPACT',
  'STORAGE',
  'ORDER',
  'BY',
  'ASC',
  'DESC',
  'ALLOW',
  'FILTERING',
  'IF',
  'IS',
  'CONTAINS',
  'BETWEEN',
  'GROUP',
  'CLUSTER',
  'INTERNALS',
  'ONLY',
  'GRANT',
  'ALL',
  'PERMISSION',
  'PERMISSIONS',
  'OF',
  'REVOKE',
  'MODIFY',
  'AUTHORIZE',
  'DESCRIBE',
  'EXECUTE',
  'NORECURSIVE',
  'MBEAN',
  'MBEANS',
  'USER',
  'USERS',
  'ROLE',
  'ROLES',
  'SUPERUSERS',
  'SUPERUSER',
  'NOSUPERUSER',
  'GENERATED',
  'PASSWORD',
  'HASHED',
  'LOGIN',
  'NOLOGIN',
  'OPTIONS',
  'ACCESS',
  'DATACENTERS',
  'CIDRS',
  'IDENTITY',
  'CLUSTERING',
  'ASCII',
  'BIGINT',
  'BLOB',
  'BOOLEAN',
  'COUNTER',
  'DECIMAL',
  'DOUBLE',
  'DURATION',
  'FLOAT',
  'INET',
  'INT',
  'SMALLINT',
  'TINYINT',
  'TEXT',
  'UUID',
  'VARCHAR',
  'VARINT',
  'TIMEUUID',
  'TOKEN',
  'WRITETIME',
  'MAXWRITETIME',
  'DATE',
  'TIME',
  'NULL',
  'NOT',
  'EXISTS',
  'MAP',
  'LIST',
  'POSITIVE_NAN',
  'NEGATIVE_NAN',
  'POSITIVE_INFINITY',
  'NEGATIVE_INFINITY',
  'TUPLE',
  'TRIGGER',
  'STATIC',
  'FROZEN',
  'FUNCTION',
  'FUNCTIONS',
  'AGGREGATE',
  'AGGREGATES',
  'SFUNC',
  'STYPE',
  'FINALFUNC',
  'INITCOND',
  'RETURNS',
  'CALLED',
  'INPUT',
  'LANGUAGE',
  'OR',
  'REPLACE',
  'JSON',
  'DEFAULT',
  'UNSET',
  'LIKE',
  'MASKED',
  'UNMASK',
  'SELECT_MASKED',
  'VECTOR',
  'ANN',
] as const;

export type KeywordName = (typeof KEYWORDS)[number];

export const K = {} as { readonly [N in KeywordName]: number };
/** Lower-case spelling -> token type. */
const KEYWORD_BY_SPELLING = new Map<string, number>();
/** Token type -> name used in "expecting X" messages. */
export const TOKEN_NAMES: string[] = [
  'EOF',
  '<ERROR>',
  'IDENT',
  'QUOTED_NAME',
  'EMPTY_QUOTED_NAME',
  'STRING_LITERAL',
  'INTEGER',
  'FLOAT',
  'BOOLEAN',
  'DURATION',
  'UUID',
  'HEXNUMBER',
  'QMARK',
  'RANGE',
  "';'",
  "'('",
  "')'",
  "','",
  "'.'",
  "'*'",
  "'['",
  "']'",
  "'{'",
  "'}'",
  "':'",
  "'='",
  "'<'",
  "'<='",
  "'>'",
  "'>='",
  "'!='",
  "'+'",
  "'-'",
  "'/'",
  "'%'",
  "'+='",
  "'-='",
  "'expr('",
  'WS',
  'COMMENT',
  'MULTILINE_COMMENT',
];
while (TOKEN_NAMES.length < KEYWORD_BASE) TOKEN_NAMES.push('<unused>');

const SPECIAL_SPELLINGS: Partial<Record<KeywordName, readonly string[]>> = {
  COLUMNFAMILY: ['columnfamily', 'table'],
  TABLES: ['columnfamilies', 'tables'],
  POSITIVE_NAN: ['nan'],
  POSITIVE_INFINITY: ['infinity'],
  // Produced by the lexer itself from '-' followed by the word.
  NEGATIVE_NAN: [],
  NEGATIVE_INFINITY: [],
};

for (let i = 0; i < KEYWORDS.length; i++) {
  const name = KEYWORDS[i]!;
  const type = KEYWORD_BASE + i;
  (K as Record<string, number>)[name] = type;
  TOKEN_NAMES[type] = `K_${name}`;
  for (const s of SPECIAL_SPELLINGS[name] ?? [name.toLowerCase()]) KEYWORD_BY_SPELLING.set(s, type);
}

// BOOLEAN is lexed like a keyword (Lexer.g defines it before IDENT).
KEYWORD_BY_SPELLING.set('true', T.BOOLEAN);
KEYWORD_BY_SPELLING.set('false', T.BOOLEAN);

export const TOKEN_TYPE_COUNT = KEYWORD_BASE + KEYWORDS.length;

/** Keyword (or BOOLEAN) token type for an identifier's lower-cased text, or undefined. */
export function keywordType(lower: string): number | undefined {
  return KEYWORD_BY_SPELLING.get(lower);
}

// An open-addressing table over lower-cased spellings, so the lexer finds keywords straight from the
// source characters without allocating a lower-cased copy of every identifier.
const KW_TABLE_SIZE = 1024;
const kwSlots = new Int32Array(KW_TABLE_SIZE).fill(-1);
const kwSpellings: string[] = [];
const kwTypes: number[] = [];

/** Hash step used by both the table and the lexer: `h = keywordHashStep(h, lowerCaseCharCode)`. */
export function keywordHashStep(h: number, lowerCode: number): number {
  return (Math.imul(h, 31) + lowerCode) | 0;
}

for (const [spelling, type] of KEYWORD_BY_SPELLING) {
  let h = 0;
  for (let i = 0; i < spelling.length; i++) h = keywordHashStep(h, spelling.charCodeAt(i));
  let slot = h & (KW_TABLE_SIZE - 1);
  while (kwSlots[slot] !== -1) slot = (slot + 1) & (KW_TABLE_SIZE - 1);
  kwSlots[slot] = kwSpellings.length;
  kwSpellings.push(spelling);
  kwTypes.push(type);
}

/**
 * Keyword type of the identifier src[start, end) whose lower-cased hash is `hash`, or -1. The identifier
 * holds only ASCII letters, digits and '_'.
 */
export function keywordTypeAt(src: string, start: number, end: number, hash: number): number {
  const len = end - start;
  let slot = hash & (KW_TABLE_SIZE - 1);
  for (;;) {
    const k = kwSlots[slot]!;
    if (k === -1) return -1;
    const sp = kwSpellings[k]!;
    if (sp.length === len) {
      let i = 0;
      while (i < len) {
        let c = src.charCodeAt(start + i);
        if (c >= 65 && c <= 90) c |= 0x20;
        if (c !== sp.charCodeAt(i)) break;
        i++;
      }
      if (i === len) return kwTypes[k]!;
    }
    slot = (slot + 1) & (KW_TABLE_SIZE - 1);
  }
}

export function isKeyword(type: number): boolean {
  return type >= KEYWORD_BASE;
}

export interface Token {
  readonly type: number;
  /** Offset of the first character in the source. */
  readonly start: number;
  /** Offset just past the last character. */
  readonly end: number;
  /**
   * The text as ANTLR's token would hold it: raw source for identifiers, keywords and numbers; the
   * unescaped content for string literals and quoted names (Cassandra's lexer rewrites those).
   */
  readonly text: string;
}

function flags(types: readonly number[]): Uint8Array {
  const a = new Uint8Array(TOKEN_TYPE_COUNT);
  for (const t of types) a[t] = 1;
  return a;
}

/** Native type keywords, with the type name they stand for (varchar is text). */
export const NATIVE_TYPE_KEYWORDS: ReadonlyMap<number, string> = new Map([
  [K.ASCII, 'ascii'],
  [K.BIGINT, 'bigint'],
  [K.BLOB, 'blob'],
  [K.BOOLEAN, 'boolean'],
  [K.COUNTER, 'counter'],
  [K.DECIMAL, 'decimal'],
  [K.DOUBLE, 'double'],
  [K.DURATION, 'duration'],
  [K.FLOAT, 'float'],
  [K.INET, 'inet'],
  [K.INT, 'int'],
  [K.SMALLINT, 'smallint'],
  [K.TEXT, 'text'],
  [K.TIMESTAMP, 'timestamp'],
  [K.TINYINT, 'tinyint'],
  [K.UUID, 'uuid'],
  [K.VARCHAR, 'text'],
  [K.VARINT, 'varint'],
  [K.TIMEUUID, 'timeuuid'],
  [K.DATE, 'date'],
  [K.TIME, 'time'],
]);

/** Parser.g basic_unreserved_keyword. */
export const BASIC_UNRESERVED: Uint8Array = flags([
  K.KEYS,
  K.AS,
  K.CLUSTER,
  K.CLUSTERING,
  K.COMPACT,
  K.STORAGE,
  K.TABLES,
  K.TYPE,
  K.TYPES,
  K.VALUES,
  K.MAP,
  K.LIST,
  K.FILTERING,
  K.PERMISSION,
  K.PERMISSIONS,
  K.KEYSPACES,
  K.ALL,
  K.USER,
  K.USERS,
  K.ROLE,
  K.ROLES,
  K.IDENTITY,
  K.SUPERUSER,
  K.SUPERUSERS,
  K.NOSUPERUSER,
  K.LOGIN,
  K.NOLOGIN,
  K.OPTIONS,
  K.PASSWORD,
  K.GENERATED,
  K.HASHED,
  K.EXISTS,
  K.CUSTOM,
  K.TRIGGER,
  K.CONTAINS,
  K.INTERNALS,
  K.ONLY,
  K.STATIC,
  K.FROZEN,
  K.TUPLE,
  K.FUNCTION,
  K.FUNCTIONS,
  K.AGGREGATE,
  K.AGGREGATES,
  K.SFUNC,
  K.STYPE,
  K.FINALFUNC,
  K.INITCOND,
  K.RETURNS,
  K.LANGUAGE,
  K.CALLED,
  K.INPUT,
  K.LIKE,
  K.PER,
  K.PARTITION,
  K.GROUP,
  K.DATACENTERS,
  K.CIDRS,
  K.ACCESS,
  K.DEFAULT,
  K.MBEAN,
  K.MBEANS,
  K.REPLACE,
  K.UNSET,
  K.MASKED,
  K.UNMASK,
  K.SELECT_MASKED,
  K.VECTOR,
  K.ANN,
  K.BETWEEN,
]);

/** Parser.g unreserved_function_keyword: basic unreserved keywords and native type names. */
export const UNRESERVED_FUNCTION: Uint8Array = (() => {
  const a = BASIC_UNRESERVED.slice();
  for (const t of NATIVE_TYPE_KEYWORDS.keys()) a[t] = 1;
  return a;
})();

/** Parser.g unreserved_keyword: may be used as a column, table, keyspace or field name. */
export const UNRESERVED: Uint8Array = (() => {
  const a = UNRESERVED_FUNCTION.slice();
  for (const t of [K.TTL, K.COUNT, K.WRITETIME, K.MAXWRITETIME, K.KEY, K.CAST, K.JSON, K.DISTINCT]) a[t] = 1;
  return a;
})();
