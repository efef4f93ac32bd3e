// A profile's named query, as cassandra-stress's SchemaQuery: the CQL is prepared, and each `?` is
// bound by the name of the column the server says it stands for, with a value generated for a
// partition from the read population. fields: samerow binds every value from one row of the
// partition; multirow picks, for each clustering or regular column, any of as many rows as there
// are variables (the partition key is the partition's). Every page of the result is read; rows
// count as read, and the partition when any row came back.

import { StressArgError } from './distribution.js';
import type { ColumnRef, GeneratedRow } from './partition-generator.js';
import type { BindVariable } from './prepared-variables.js';
import type { ProfileQuery } from './profile.js';
import type { ProfileTable } from './profile-table.js';
import type { SeedManager } from './seed-manager.js';
import type { ExecuteOptions, Operation, OpResult } from './workload.js';

export class ProfileQueryOp {
  private readonly refs: ColumnRef[];

  constructor(
    readonly name: string,
    private readonly query: ProfileQuery,
    variables: BindVariable[],
    private readonly table: ProfileTable,
    private readonly options: ExecuteOptions,
    private readonly seeds: SeedManager,
    private readonly random: () => number = Math.random,
  ) {
    this.refs = variables.map((v) => {
      const ref = table.generator.column(v.name);
      if (!ref) {
        throw new StressArgError(
          `query ${name}: the bind variable ${v.name} is not a column of ${table.profile.table}; ` +
            'every ? must stand for a column value (cassandra-stress binds them by column name)',
        );
      }
      return ref;
    });
  }

  private bindings(): unknown[] | undefined {
    const seed = this.seeds.nextRead();
    if (!seed) return undefined;
    const partition = this.table.generator.partition(seed.value);
    if (this.query.fields === 'samerow' || this.refs.length <= 1) {
      const row = partition.randomRow(this.random);
      return this.refs.map((ref) => ref.generator.toDriver(partition.get(ref, row)));
    }
    const rows: GeneratedRow[] = this.refs.map(() => partition.randomRow(this.random));
    return this.refs.map((ref) => {
      const row = ref.part === 'partition' ? rows[0]! : rows[Math.floor(this.random() * rows.length)]!;
      return ref.generator.toDriver(partition.get(ref, row));
    });
  }

  next(): Operation | undefined {
    const params = this.bindings();
    if (!params) return undefined;
    const client = this.table.client;
    const cql = this.query.cql;
    const options = { ...this.options, prepare: true };
    return {
      type: this.name,
      execute: async (): Promise<OpResult> => {
        let rows = 0;
        let pageState: string | undefined;
        do {
          const rs = await client.execute(cql, params, pageState ? { ...options, pageState } : options);
          rows += rs.rowLength;
          pageState = rs.pageState ?? undefined;
        } while (pageState);
        return { partitions: Math.min(1, rows), rows };
      },
    };
  }
}
