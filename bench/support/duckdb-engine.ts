// DuckDB (npm `@duckdb/node-api`, a development dependency) for the benches that compare against it, loaded when
// they run rather than imported, so that building the server does not need it installed: the few calls used.

import { createRequire } from 'node:module';

export interface DuckDbConnection {
  run(sql: string): Promise<{ getRowsJS(): Promise<unknown[][]> }>;
  closeSync(): void;
}

export interface DuckDbInstance {
  connect(): Promise<DuckDbConnection>;
  closeSync(): void;
}

/** An in-memory DuckDB; throws when the package is not installed (`npm ci` installs it, `npm start` does not). */
export async function openDuckDb(): Promise<DuckDbInstance> {
  const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as {
    DuckDBInstance: { create(path: string): Promise<DuckDbInstance> };
  };
  return await duckdb.DuckDBInstance.create(':memory:');
}
