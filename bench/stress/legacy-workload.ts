// cassandra-stress's legacy workloads (write, read, mixed) on keyspace1.standard1:
//   key blob PRIMARY KEY, "C0" .. "C4" blob — 10-byte keys, 5 columns of 34 bytes by default.
// Each partition's key and values come from its seed (the population number), so reads find what
// writes stored. Writes are one-row INSERTs, reads SELECT every column by key.

import type cassandra from 'cassandra-driver';
import type { StressSettings } from './args.js';
import { type Distribution, parseDistribution } from './distribution.js';
import type { ExecuteOptions, Operation, OpResult, Workload } from './workload.js';

const KEY_BYTES = 10;

/** A bijection on 40-bit numbers (a 4-round Feistel network), so sequential seeds spread over the token ring. */
function scramble40(seed: number): number {
  let left = Math.floor(seed / 2 ** 20) & 0xfffff;
  let right = seed & 0xfffff;
  for (let round = 0; round < 4; round++) {
    const f = (Math.imul(right ^ (round * 0x5bd1e995), 0x9e3779b1) >>> 12) & 0xfffff;
    [left, right] = [right, left ^ f];
  }
  return left * 2 ** 20 + right;
}

/**
 * The partition key for a seed: `size` printable bytes (keysize=, default 10), distinct for every
 * seed below 2^40 at 10 bytes or more; shorter keys keep the low digits and collide, as they must.
 */
export function legacyKey(seed: number, size = KEY_BYTES): Buffer {
  const hex = scramble40(seed % 2 ** 40)
    .toString(16)
    .toUpperCase()
    .padStart(KEY_BYTES, '0');
  return Buffer.from(size >= KEY_BYTES ? hex.padStart(size, '0') : hex.slice(KEY_BYTES - size), 'latin1');
}

/** Deterministic pseudo-random value bytes: a slice of a fixed random pool chosen by seed and column. */
class ValueSource {
  private readonly pool: Buffer;
  constructor(maxSize: number) {
    this.pool = Buffer.alloc(Math.max(4096, maxSize * 64));
    let x = 0x2545f491;
    for (let i = 0; i < this.pool.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.pool[i] = x & 0xff;
    }
  }

  value(seed: number, column: number, size: number): Buffer {
    const span = this.pool.length - size;
    const offset = (Math.imul(seed, 0x9e3779b1) ^ Math.imul(column + 1, 0x85ebca6b)) >>> 0;
    return this.pool.subarray(offset % (span + 1), (offset % (span + 1)) + size);
  }
}

export class LegacyWorkload implements Workload {
  readonly name: string;
  readonly opTypes: readonly string[];
  readonly population: Distribution;
  private readonly columnCount: Distribution;
  private readonly columnSize: Distribution;
  private readonly values: ValueSource;
  private readonly maxColumns: number;
  private readonly table: string;
  private readonly readWeight: number;
  private client!: cassandra.Client;
  private readonly inserts = new Map<number, string>();
  private select = '';

  constructor(
    private readonly settings: StressSettings,
    private readonly options: ExecuteOptions,
    private readonly random: () => number = Math.random,
  ) {
    const command = settings.command;
    this.name = command.toUpperCase();
    this.opTypes = command === 'mixed' ? ['READ', 'WRITE'] : [command.toUpperCase()];
    this.population = parseDistribution(LegacyWorkload.populationSpec(settings), random);
    this.columnCount = parseDistribution(settings.columnCount, random);
    this.columnSize = parseDistribution(settings.columnSize, random);
    this.maxColumns = this.columnCount.max;
    if (this.maxColumns < 1 || this.maxColumns > 1000) throw new Error(`-col n must be within 1..1000`);
    this.values = new ValueSource(this.columnSize.max);
    this.table = `${settings.keyspace}.standard1`;
    const { read, write } = settings.ratio;
    this.readWeight = command === 'mixed' ? read / (read + write) : command === 'read' ? 1 : 0;
  }

  /** cassandra-stress's default -pop: seq=1..n for writes, GAUSSIAN(1..n) otherwise (n = 1M when not counted). */
  static populationSpec(settings: StressSettings): string {
    if (settings.population) return settings.population.spec;
    const limit = settings.n ?? 1_000_000;
    return settings.command === 'write' ? `SEQ(1..${limit})` : `GAUSSIAN(1..${limit})`;
  }

  private columnNames(count: number): string[] {
    return Array.from({ length: count }, (_, i) => `"C${i}"`);
  }

  async setup(client: cassandra.Client): Promise<void> {
    this.client = client;
    const ks = this.settings.keyspace;
    const columns = this.columnNames(this.maxColumns);
    if (this.settings.command !== 'read') {
      await client.execute(
        `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ` +
          `{'class': 'SimpleStrategy', 'replication_factor': '${this.settings.replicationFactor}'} AND durable_writes = true`,
      );
      await client.execute(
        `CREATE TABLE IF NOT EXISTS ${this.table} (key blob PRIMARY KEY, ${columns.map((c) => `${c} blob`).join(', ')})`,
      );
    }
    this.select = `SELECT key, ${columns.join(', ')} FROM ${this.table} WHERE key = ?`;
    // Prepare up front so the first operations do not pay for it, and so a missing table fails early.
    if (this.options.prepare) {
      if (this.settings.command !== 'write')
        await client.execute(this.select, [legacyKey(0, this.settings.keySize)], this.options);
    } else if (this.settings.command === 'read') {
      await client.execute(this.select, [legacyKey(0, this.settings.keySize)], this.options);
    }
  }

  private insertFor(count: number): string {
    let q = this.inserts.get(count);
    if (!q) {
      const columns = this.columnNames(count);
      q = `INSERT INTO ${this.table} (key, ${columns.join(', ')}) VALUES (?${', ?'.repeat(count)})`;
      this.inserts.set(count, q);
    }
    return q;
  }

  next(): Operation {
    const seed = this.population.next();
    const key = legacyKey(seed, this.settings.keySize);
    if (this.readWeight > 0 && (this.readWeight >= 1 || this.random() < this.readWeight)) {
      return {
        type: 'READ',
        execute: async (): Promise<OpResult> => {
          const rs = await this.client.execute(this.select, [key], this.options);
          return { partitions: 1, rows: rs.rowLength };
        },
      };
    }
    const count = this.columnCount.next();
    const params: Buffer[] = [key];
    for (let c = 0; c < count; c++) params.push(this.values.value(seed, c, this.columnSize.next()));
    const query = this.insertFor(count);
    return {
      type: 'WRITE',
      execute: async (): Promise<OpResult> => {
        await this.client.execute(query, params, this.options);
        return { partitions: 1, rows: 1 };
      },
    };
  }
}
