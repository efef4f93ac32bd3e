// IndexMetadata.toCqlString (Cassandra 5.0): CREATE INDEX / CREATE CUSTOM INDEX as DESCRIBE prints
// them, from the options system_schema.indexes shows (`target`, `class_name`, the rest as OPTIONS).

import type { IndexMetadata } from '../schema/index-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { qualifiedTableName } from './table-cql.js';

export function indexCql(index: IndexMetadata, table: TableMetadata): string {
  const b = new CqlBuilder();
  const { target, class_name: className, ...rest } = index.options;
  if (index.kind === 'CUSTOM') {
    b.append(`CREATE CUSTOM INDEX ${maybeQuote(index.name)} ON ${qualifiedTableName(table)} (${target}) USING `);
    b.appendWithSingleQuotes(className ?? '');
    if (Object.keys(rest).length > 0) b.append(' WITH OPTIONS = ').appendMap(rest);
  } else {
    b.append(`CREATE INDEX ${maybeQuote(index.name)} ON ${qualifiedTableName(table)} (${target})`);
  }
  return b.append(';').toString();
}
