// The bind variables of a statement, as the server reports them when it prepares it (names and
// types): the profile's queries bind each `?` by the name of the column it stands for, as
// cassandra-stress does with the prepared statement's variable definitions. The driver keeps that
// metadata for every statement it prepares; an execution with no values prepares the statement and
// stops at the missing first value, so nothing runs.

import cassandra from 'cassandra-driver';

export interface BindVariable {
  name: string;
  type: { code: number; info?: unknown };
}

interface PreparedInfo {
  meta?: { columns?: BindVariable[] };
}

interface PreparedCache {
  getPreparedInfo(keyspace: string | undefined, query: string): PreparedInfo;
}

/** Prepares the statement on the client's keyspace and returns its bind variables in order. */
export async function preparedVariables(client: cassandra.Client, query: string): Promise<BindVariable[]> {
  if (!query.includes('?')) return [];
  try {
    await client.execute(query, {}, { prepare: true });
  } catch (e) {
    // The expected stop: 'Parameter "x" not defined'. Anything else (a syntax error, an unknown table) is the answer.
    if (!(e instanceof cassandra.errors.ArgumentError)) throw e;
  }
  const cache = client.metadata as unknown as PreparedCache;
  const info = cache.getPreparedInfo(client.keyspace, query);
  const columns = info.meta?.columns;
  if (!columns) throw new Error(`the driver kept no bind variables for: ${query}`);
  return columns.map((c) => ({ name: c.name, type: c.type }));
}
