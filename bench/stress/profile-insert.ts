// A profile's `insert` operation, as cassandra-stress's SchemaInsert: the statement is an UPDATE of
// every regular column by the primary key (counters and non-frozen lists and sets add: c = c + ?;
// an INSERT of the key for a key-only table; the profile's `condition` appended), prepared. Each
// operation takes `partitions` partitions from the seed manager, visits each row of them with the
// `select` chance (a partition with several visits is written a slice at a time), nulls the value
// columns beyond the `row-population` ratio, and writes the rows as one statement or a batch of
// the profile's batchtype (counter tables always in a COUNTER batch).

import cassandra from 'cassandra-driver';
import type { Canonical } from './column-generator.js';
import {
  type Distribution,
  distributionFactory,
  type RatioDistribution,
  ratioDistributionFactory,
  StressArgError,
} from './distribution.js';
import type { ColumnRef, GeneratedRow, Partition } from './partition-generator.js';
import { type ProfileTable, quoteIdentifier } from './profile-table.js';
import type { Seed, SeedManager } from './seed-manager.js';
import type { ExecuteOptions, Operation, OpResult } from './workload.js';

export type BatchType = 'LOGGED' | 'UNLOGGED' | 'COUNTER';

/** -insert's options; each one given wins over the profile's insert section. */
export interface InsertOverrides {
  partitions?: string;
  selectRatio?: string;
  rowPopulationRatio?: string;
  batchType?: BatchType;
  visits?: string;
  revisit?: string;
}

const MAX_BATCH = 65535;

export function parseBatchType(text: string): BatchType {
  const t = text.trim().toUpperCase();
  if (t !== 'LOGGED' && t !== 'UNLOGGED' && t !== 'COUNTER') {
    throw new StressArgError(`batchtype must be LOGGED, UNLOGGED or COUNTER, not ${text}`);
  }
  return t;
}

export class ProfileInsert {
  readonly statement: string;
  readonly batchType: BatchType;
  readonly partitions: Distribution;
  readonly select: RatioDistribution;
  readonly rowPopulation: RatioDistribution;
  private readonly binds: ColumnRef[];
  private readonly valueColumns: number;
  private readonly counters: boolean[];

  constructor(
    readonly table: ProfileTable,
    overrides: InsertOverrides,
    private readonly options: ExecuteOptions,
    private readonly seeds: SeedManager,
    private readonly random: () => number = Math.random,
  ) {
    const insert = table.profile.insert;
    this.partitions = distributionFactory(overrides.partitions ?? insert.get('partitions') ?? 'fixed(1)')();
    this.select = ratioDistributionFactory(overrides.selectRatio ?? insert.get('select') ?? 'fixed(1)/1')();
    this.rowPopulation = ratioDistributionFactory(
      overrides.rowPopulationRatio ?? insert.get('row-population') ?? 'fixed(1)/1',
    )();
    this.batchType = overrides.batchType ?? parseBatchType(insert.get('batchtype') ?? 'LOGGED');
    const generator = table.generator;
    const ref = (name: string) => generator.column(name)!;
    const keyColumns = [...table.partitionKey, ...table.clustering];
    const tableName = quoteIdentifier(table.profile.table);
    if (table.regular.length === 0) {
      this.statement = `INSERT INTO ${tableName} (${keyColumns.map(quoteIdentifier).join(', ')}) VALUES (${keyColumns.map(() => '?').join(', ')})`;
      this.binds = keyColumns.map(ref);
    } else {
      const { list, set, counter } = cassandra.types.dataTypes;
      const assignments = table.regular.map(({ name, type }) => {
        const q = quoteIdentifier(name);
        const adds = type.code === counter || ((type.code === list || type.code === set) && !type.options?.frozen);
        return adds ? `${q} = ${q} + ?` : `${q} = ?`;
      });
      const where = keyColumns.map((c) => `${quoteIdentifier(c)} = ?`).join(' AND ');
      const condition = insert.get('condition');
      this.statement = `UPDATE ${tableName} SET ${assignments.join(', ')} WHERE ${where}${condition ? ` ${condition}` : ''}`;
      this.binds = [...table.regular.map((c) => ref(c.name)), ...keyColumns.map(ref)];
    }
    this.valueColumns = table.regular.length;
    this.counters = this.binds.map((b) => b.generator.type.code === cassandra.types.dataTypes.counter);
    const maxBatch = this.select.max * this.partitions.max * generator.maxRowCount;
    if (this.batchType === 'LOGGED' && !table.hasCounters && maxBatch > MAX_BATCH) {
      throw new StressArgError(
        `the profile generates batches of up to ${Math.round(maxBatch)} rows, but LOGGED batches are limited to 65535 rows`,
      );
    }
  }

  /** cassandra-stress's lines about the insert before the run. */
  describe(print: (line: string) => void, visits: Distribution): void {
    const g = this.table.generator;
    if (g.maxRowCount > 100_000_000) {
      print(
        `WARNING: You have defined a schema that permits very large partitions (${Math.round(g.maxRowCount)} max rows (>100M))`,
      );
    }
    const maxBatch = this.select.max * this.partitions.max * g.maxRowCount * (1 / Math.max(1, visits.min));
    if (maxBatch > 100_000) {
      print(
        `WARNING: You have defined a schema that permits very large batches (${Math.round(maxBatch)} max rows (>100K)).`,
      );
    }
    print('Insert Statement:');
    print(`  ${this.statement}`);
    const minBatch = this.select.min * this.partitions.min * g.minRowCount * (1 / Math.max(1, visits.max));
    print(
      `Generating batches with [${this.partitions.min}..${this.partitions.max}] partitions and ` +
        `[${Math.round(minBatch)}..${Math.round(maxBatch)}] rows (of [${Math.round(this.partitions.min * g.minRowCount)}..` +
        `${Math.round(this.partitions.max * g.maxRowCount)}] total rows in the partitions)`,
    );
  }

  /** The rows of one partition this write covers: a slice when the partition takes several visits. */
  private rowsOf(seed: Seed, partition: Partition): GeneratedRow[] {
    const chance = this.select.next();
    if (seed.visits <= 1) return partition.selectRows(chance, this.random).rows;
    const slice = Math.max(1, Math.floor(partition.expectedRowCount() / seed.visits));
    const selection = partition.selectRows(chance, this.random, seed.position, slice);
    seed.position += slice;
    if (selection.finished) this.seeds.finished(seed);
    return selection.rows;
  }

  private bind(partition: Partition, row: GeneratedRow, populated: number): unknown[] {
    return this.binds.map((ref, i) => {
      if (ref.part === 'value' && !this.counters[i] && ref.index >= populated) return null;
      const v: Canonical = partition.get(ref, row);
      return ref.generator.toDriver(v);
    });
  }

  /** The next write, covering at most `budget` partitions; undefined when the population ran out. */
  next(type: string, budget: number): Operation | undefined {
    const wanted = Math.max(1, Math.min(budget, this.partitions.next()));
    const statements: unknown[][] = [];
    let partitions = 0;
    for (let i = 0; i < wanted; i++) {
      const seed = this.seeds.nextWrite();
      if (!seed) break;
      partitions++;
      const partition = this.table.generator.partition(seed.value);
      // cassandra-stress nulls the value columns whose position is past the ratio.
      const populated = Math.floor(this.rowPopulation.next() * this.valueColumns + 1e-9);
      for (const row of this.rowsOf(seed, partition)) statements.push(this.bind(partition, row, populated));
    }
    if (partitions === 0) return undefined;
    const client = this.table.client;
    const options = { ...this.options, prepare: true };
    const query = this.statement;
    const batchOptions = {
      ...options,
      logged: this.batchType === 'LOGGED' && !this.table.hasCounters,
      counter: this.batchType === 'COUNTER' || this.table.hasCounters,
    };
    return {
      type,
      permits: partitions,
      execute: async (): Promise<OpResult> => {
        if (statements.length === 1) await client.execute(query, statements[0]!, options);
        else {
          for (let from = 0; from < statements.length; from += MAX_BATCH) {
            const chunk = statements.slice(from, from + MAX_BATCH).map((params) => ({ query, params }));
            await client.batch(chunk, batchOptions);
          }
        }
        return { partitions, rows: statements.length };
      },
    };
  }
}
