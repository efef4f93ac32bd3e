// KeyspaceMetadata.toCqlString (5.0): CREATE KEYSPACE with the replication map as ReplicationParams
// prints it (class first, by its simple name when it is one of Cassandra's own, then the options in Java
// HashMap order), or a comment for virtual keyspaces.

import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { CqlBuilder } from './cql-builder.js';
import { maybeQuote } from './cql-identifiers.js';
import { hashMapCapacityForCopy, javaHashMapOrder, javaStringHash } from './java-ordering.js';

function quoted(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

const LOCATOR_PACKAGE = 'org.apache.cassandra.locator.';

/** Cassandra's own strategies go by their simple name (`SimpleStrategy`), others by their full class name. */
function strategyName(cls: string): string {
  const simple = cls.slice(LOCATOR_PACKAGE.length);
  return cls.startsWith(LOCATOR_PACKAGE) && !simple.includes('.') ? simple : cls;
}

/** ReplicationParams.appendCqlTo: options come from `new HashMap<>(map)` of the map with `class` in it. */
export function replicationCql(replication: Readonly<Record<string, string>>): string {
  const options = Object.keys(replication).filter((k) => k !== 'class');
  const ordered = javaHashMapOrder(options, javaStringHash, hashMapCapacityForCopy(options.length + 1));
  const parts = [`'class': ${quoted(strategyName(replication.class ?? ''))}`];
  for (const k of ordered) parts.push(`${quoted(k)}: ${quoted(replication[k]!)}`);
  return `{${parts.join(', ')}}`;
}

export function keyspaceCql(ks: KeyspaceMetadata): string {
  const name = maybeQuote(ks.name);
  if (ks.virtual) {
    return new CqlBuilder()
      .append('/*')
      .newLine()
      .append(`Warning: Keyspace ${name} is a virtual keyspace and cannot be recreated with CQL.`)
      .newLine()
      .append('Structure, for reference:')
      .newLine()
      .append(`VIRTUAL KEYSPACE ${name};`)
      .newLine()
      .append('*/')
      .toString();
  }
  return `CREATE KEYSPACE ${name} WITH replication = ${replicationCql(ks.replication)}  AND durable_writes = ${ks.durableWrites};`;
}
