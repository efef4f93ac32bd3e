// cassandra-stress's predefined counter commands on keyspace1.counter1:
//   counter1 (key blob PRIMARY KEY, "C0" counter, ..., "C4" counter)
// counter_write adds to every counter of a partition (UPDATE counter1 SET "C0"="C0"+?, ... WHERE KEY=?,
// each increment drawn from add=, default fixed(1)); counter_read selects a partition
// (SELECT * FROM counter1 WHERE KEY=?) and, as there, a read that finds nothing is an error (not
// retried). Keys are the legacy commands' keys, so counter_read finds what counter_write wrote.

import cassandra from 'cassandra-driver';
import type { StressSettings } from './args.js';
import { type Distribution, parseDistribution } from './distribution.js';
import { legacyKey } from './legacy-workload.js';
import { type ExecuteOptions, type Operation, type OpResult, ValidationError, type Workload } from './workload.js';

export type CounterCommand = 'counter_write' | 'counter_read';

export class EmptyCounterReadError extends ValidationError {
  constructor() {
    super('Data returned was not validated: the partition has no counters');
  }
}

export class CounterWorkload implements Workload {
  readonly name: string;
  readonly opTypes: readonly string[];
  readonly population: Distribution;
  private readonly add: Distribution;
  private readonly columns: string[];
  private readonly table: string;
  private client!: cassandra.Client;
  private readonly update: string;
  private readonly select: string;

  constructor(
    private readonly settings: StressSettings,
    private readonly options: ExecuteOptions,
    random: () => number = Math.random,
  ) {
    const command = settings.command as CounterCommand;
    this.name = command.toUpperCase();
    this.opTypes = [this.name];
    this.population = parseDistribution(CounterWorkload.populationSpec(settings), random);
    this.add = parseDistribution(settings.counterAdd, random);
    const count = parseDistribution(settings.columnCount).max;
    if (count < 1 || count > 1000) throw new Error('-col n must be within 1..1000');
    this.columns = Array.from({ length: count }, (_, i) => `"C${i}"`);
    this.table = `${settings.keyspace}.counter1`;
    this.update = `UPDATE ${this.table} SET ${this.columns.map((c) => `${c}=${c}+?`).join(',')} WHERE KEY=?`;
    this.select = `SELECT * FROM ${this.table} WHERE KEY=?`;
  }

  /** cassandra-stress's default -pop: seq=1..n for counter_write, GAUSSIAN(1..n) for counter_read. */
  static populationSpec(settings: StressSettings): string {
    if (settings.population) return settings.population.spec;
    const limit = settings.n ?? 1_000_000;
    return settings.command === 'counter_write' ? `SEQ(1..${limit})` : `GAUSSIAN(1..${limit})`;
  }

  async setup(client: cassandra.Client): Promise<void> {
    this.client = client;
    const ks = this.settings.keyspace;
    if (this.settings.command === 'counter_write') {
      await client.execute(
        `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ` +
          `{'class': 'SimpleStrategy', 'replication_factor': '${this.settings.replicationFactor}'} AND durable_writes = true`,
      );
      await client.execute(
        `CREATE TABLE IF NOT EXISTS ${this.table} (key blob PRIMARY KEY, ${this.columns.map((c) => `${c} counter`).join(', ')})`,
      );
    } else {
      // A missing table fails here rather than as the first operation's error.
      await client.execute(this.select, [legacyKey(0, this.settings.keySize)], this.options);
    }
  }

  next(): Operation {
    const key = legacyKey(this.population.next(), this.settings.keySize);
    if (this.settings.command === 'counter_read') {
      return {
        type: this.name,
        execute: async (): Promise<OpResult> => {
          const rs = await this.client.execute(this.select, [key], this.options);
          if (rs.rowLength === 0) throw new EmptyCounterReadError();
          return { partitions: rs.rowLength, rows: rs.rowLength };
        },
      };
    }
    const params: unknown[] = this.columns.map(() => cassandra.types.Long.fromNumber(this.add.next()));
    params.push(key);
    return {
      type: this.name,
      execute: async (): Promise<OpResult> => {
        await this.client.execute(this.update, params, this.options);
        return { partitions: 1, rows: 1 };
      },
    };
  }
}
