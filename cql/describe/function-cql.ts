// UDFunction.toCqlString / UDAggregate.toCqlString (Cassandra 5.0): CREATE FUNCTION and CREATE
// AGGREGATE as DESCRIBE prints them, and their element names (`name(type, ...)`).

import type { UserAggregateMetadata, UserFunctionMetadata } from '../functions/user-function-metadata.js';
import type { CqlType } from '../types/cql-type.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { typeAsCql } from './cql-type-text.js';

/** AbstractFunction.toCqlString: tuples are frozen by nature in functions and printed without frozen<>. */
export function functionTypeText(t: CqlType): string {
  return t.kind === 'tuple' ? `tuple<${t.elements.map(typeAsCql).join(', ')}>` : typeAsCql(t);
}

/** AbstractFunction.elementName: `name(type, type)`, the name unquoted. */
export function functionElementName(name: string, argTypes: readonly CqlType[]): string {
  return `${name}(${argTypes.map(functionTypeText).join(', ')})`;
}

export function functionCql(f: UserFunctionMetadata): string {
  const args = f.argNames.map((n, i) => `${maybeQuote(n)} ${functionTypeText(f.argTypes[i]!)}`).join(', ');
  return new CqlBuilder()
    .append(`CREATE FUNCTION ${maybeQuote(f.keyspace)}.${maybeQuote(f.name)}(${args})`)
    .newLine()
    .increaseIndent()
    .append(f.calledOnNullInput ? 'CALLED' : 'RETURNS NULL')
    .append(' ON NULL INPUT')
    .newLine()
    .append(`RETURNS ${functionTypeText(f.returnType)}`)
    .newLine()
    .append(`LANGUAGE ${f.language}`)
    .newLine()
    .append(`AS $$${f.body}$$;`)
    .toString();
}

export function aggregateCql(a: UserAggregateMetadata): string {
  const b = new CqlBuilder()
    .append(`CREATE AGGREGATE ${maybeQuote(a.keyspace)}.${maybeQuote(a.name)}(`)
    .append(a.argTypes.map(functionTypeText).join(', '))
    .append(')')
    .newLine()
    .increaseIndent()
    .append(`SFUNC ${maybeQuote(a.stateFunction)}`)
    .newLine()
    .append(`STYPE ${functionTypeText(a.stateType)}`);
  if (a.finalFunction !== undefined) b.newLine().append(`FINALFUNC ${maybeQuote(a.finalFunction)}`);
  if (a.initConditionText !== null) b.newLine().append(`INITCOND ${a.initConditionText}`);
  return b.append(';').toString();
}
