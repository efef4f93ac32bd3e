// A profile's table, ready to stress: its schema created when the profile defines it (keyspace,
// table, extra definitions; "already exists" is fine, as in cassandra-stress), a client bound to
// its keyspace (unqualified names in the profile's CQL resolve there), and the partition generator
// built from the table's columns as the server describes them, with the profile's columnspec.

import cassandra from 'cassandra-driver';
import { ColumnGenerator, type ColumnType } from './column-generator.js';
import { StressArgError } from './distribution.js';
import { PartitionGenerator } from './partition-generator.js';
import type { StressProfile } from './profile.js';

export interface ProfileTable {
  profile: StressProfile;
  /** Bound to the profile's keyspace. */
  client: cassandra.Client;
  generator: PartitionGenerator;
  /** Partition key, clustering and regular columns (regular ones by name, as the Java driver lists them). */
  partitionKey: string[];
  clustering: string[];
  regular: { name: string; type: ColumnType }[];
  hasCounters: boolean;
}

/** Makes a client, bound to a keyspace when one is given. */
export type ConnectTo = (keyspace?: string) => Promise<cassandra.Client>;

/** Quotes an identifier unless it is lower-case alphanumeric (cassandra-stress's quoteIdentifier). */
export function quoteIdentifier(name: string): string {
  return /^[a-z0-9_]+$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

async function executeIgnoringExisting(client: cassandra.Client, cql: string): Promise<void> {
  try {
    await client.execute(cql);
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (code !== cassandra.types.responseErrorCodes.alreadyExists) throw e;
  }
}

export async function setUpProfileTable(
  profile: StressProfile,
  admin: cassandra.Client,
  connectTo: ConnectTo,
): Promise<ProfileTable> {
  if (profile.keyspaceDefinition) await executeIgnoringExisting(admin, profile.keyspaceDefinition);
  const client = await connectTo(profile.keyspace);
  try {
    if (profile.tableDefinition) await executeIgnoringExisting(client, profile.tableDefinition);
    for (const cql of profile.extraDefinitions) await executeIgnoringExisting(client, cql);
    const table = await client.metadata.getTable(profile.keyspace, profile.table);
    if (!table) throw new StressArgError(`unable to find table ${profile.keyspace}.${profile.table}`);
    const spec = (name: string) => profile.columnSpecs.get(name);
    const generator = (c: { name: string; type: ColumnType }) => new ColumnGenerator(c.name, c.type, spec(c.name));
    const keyNames = new Set([...table.partitionKeys, ...table.clusteringKeys].map((c) => c.name));
    const regular = table.columns
      .filter((c) => !keyNames.has(c.name))
      .map((c) => ({ name: c.name, type: c.type as ColumnType }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      profile,
      client,
      generator: new PartitionGenerator(
        table.partitionKeys.map((c) => generator({ name: c.name, type: c.type as ColumnType })),
        table.clusteringKeys.map((c) => generator({ name: c.name, type: c.type as ColumnType })),
        regular.map(generator),
      ),
      partitionKey: table.partitionKeys.map((c) => c.name),
      clustering: table.clusteringKeys.map((c) => c.name),
      regular,
      hasCounters: regular.some((c) => c.type.code === cassandra.types.dataTypes.counter),
    };
  } catch (e) {
    await client.shutdown().catch(() => {});
    throw e;
  }
}
