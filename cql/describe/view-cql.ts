// ViewMetadata.toCqlString (Cassandra 5.0): CREATE MATERIALIZED VIEW as DESCRIBE prints it.

import type { ViewMetadata } from '../schema/view-metadata.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { appendPrimaryKey, appendTableOptions, columnsInSelectOrder, qualifiedTableName } from './table-cql.js';

export function viewCql(v: ViewMetadata, withInternals: boolean): string {
  const b = new CqlBuilder()
    .append(`CREATE MATERIALIZED VIEW ${qualifiedTableName(v.table)} AS`)
    .newLine()
    .increaseIndent()
    .append('SELECT ');
  const columns = columnsInSelectOrder(v.table).map((c) => maybeQuote(c.name));
  b.append(v.includeAllColumns ? '*' : columns.join(', '));
  b.newLine()
    .append(`FROM ${maybeQuote(v.keyspace)}.${maybeQuote(v.baseTableName)}`)
    .newLine()
    .append(`WHERE ${v.whereClause}`)
    .newLine();
  appendPrimaryKey(b, v.table);
  b.decreaseIndent().append(' WITH ').increaseIndent();
  appendTableOptions(b, v.table, { virtual: false, withInternals, isView: true });
  return b.toString();
}
