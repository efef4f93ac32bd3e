// ColumnIdentifier.maybeQuote: how Cassandra writes a name in the CQL it generates. Unlike
// cqlIdentifier (types/value-formatter.ts), reserved keywords are quoted too, so that `"token"`
// or `"desc"` replay as names.

/** Cassandra 5.0's reserved_keywords.txt. */
const RESERVED_KEYWORDS: ReadonlySet<string> = new Set([
  'ADD',
  'ALLOW',
  'ALTER',
  'AND',
  'APPLY',
  'ASC',
  'AUTHORIZE',
  'BATCH',
  'BEGIN',
  'BY',
  'COLUMNFAMILY',
  'CREATE',
  'DELETE',
  'DESC',
  'DESCRIBE',
  'DROP',
  'ENTRIES',
  'EXECUTE',
  'FROM',
  'FULL',
  'GRANT',
  'IF',
  'IN',
  'INDEX',
  'INFINITY',
  'INSERT',
  'INTO',
  'IS',
  'KEYSPACE',
  'LIMIT',
  'MATERIALIZED',
  'MODIFY',
  'NAN',
  'NORECURSIVE',
  'NOT',
  'NULL',
  'OF',
  'ON',
  'OR',
  'ORDER',
  'PRIMARY',
  'RENAME',
  'REVOKE',
  'SCHEMA',
  'SELECT',
  'SET',
  'TABLE',
  'TO',
  'TOKEN',
  'TRUNCATE',
  'UNLOGGED',
  'UPDATE',
  'USE',
  'USING',
  'VIEW',
  'WHERE',
  'WITH',
]);

export function isReservedKeyword(name: string): boolean {
  return RESERVED_KEYWORDS.has(name.toUpperCase());
}

/** The name as is when it is a plain lower-case identifier and no reserved keyword, else double-quoted. */
export function maybeQuote(name: string): string {
  if (/^[a-z][a-z0-9_]*$/.test(name) && !isReservedKeyword(name)) return name;
  return `"${name.replaceAll('"', '""')}"`;
}
