// UserType.toCqlString: CREATE TYPE with one indented line per field.

import type { UserTypeMetadata } from '../schema/keyspace-metadata.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { typeAsCql } from './cql-type-text.js';

export function userTypeCql(t: UserTypeMetadata): string {
  const b = new CqlBuilder()
    .append(`CREATE TYPE ${maybeQuote(t.keyspace)}.${maybeQuote(t.name)} (`)
    .newLine()
    .increaseIndent();
  t.fields.forEach((f, i) => {
    if (i > 0) b.append(',').newLine();
    b.append(`${maybeQuote(f.name)} ${typeAsCql(f.type)}`);
  });
  return b.newLine().decreaseIndent().append(');').toString();
}
