// The rows of a profile's partitions, as cassandra-stress's PartitionGenerator and PartitionIterator
// define them. A partition seed gives the partition key values; their hash seeds the first
// clustering column, which takes `cluster` distinct values; each value's hash seeds the level below,
// and so on, so a partition is a tree whose leaves are its rows, and the value columns of a row
// come from the row's seed. Nothing is stored: the same seed regenerates the same partition, which
// is how queries find what inserts wrote.

import { type Canonical, type ColumnGenerator, childSeed, valueKey } from './column-generator.js';
import { averageOf } from './distribution.js';

export interface GeneratedRow {
  /** The clustering values, outermost first. */
  clustering: Canonical[];
  /** Seeds the row's value columns. */
  seed: number;
}

/** Where a bound column's value comes from. */
export type ColumnRef = { part: 'partition' | 'clustering' | 'value'; index: number; generator: ColumnGenerator };

export class PartitionGenerator {
  /** Rows under one value at each clustering depth, on average (1 at the last). */
  readonly descendantAverages: number[];
  readonly minRowCount: number;
  readonly maxRowCount: number;
  private readonly refs = new Map<string, ColumnRef>();

  constructor(
    readonly partitionKey: ColumnGenerator[],
    readonly clustering: ColumnGenerator[],
    readonly values: ColumnGenerator[],
  ) {
    const componentAverages = clustering.map((g) => averageOf(g.clustering));
    this.descendantAverages = clustering.map(() => 1);
    for (let i = clustering.length - 2; i >= 0; i--) {
      this.descendantAverages[i] = componentAverages[i + 1]! * this.descendantAverages[i + 1]!;
    }
    this.minRowCount = clustering.reduce((n, g) => n * g.clustering.min, 1);
    this.maxRowCount = clustering.reduce((n, g) => n * g.clustering.max, 1);
    for (const [part, generators] of [
      ['partition', partitionKey],
      ['clustering', clustering],
      ['value', values],
    ] as const) {
      generators.forEach((generator, index) => {
        this.refs.set(generator.name, { part, index, generator });
      });
    }
  }

  /** The generator of a column by its name, or undefined when the table has no such column. */
  column(name: string): ColumnRef | undefined {
    return this.refs.get(name);
  }

  partition(seed: number): Partition {
    return new Partition(this, seed);
  }
}

/** A slice of a partition's rows chosen for one write. */
export interface RowSelection {
  rows: GeneratedRow[];
  /** Whether the walk reached the partition's last row. */
  finished: boolean;
}

export class Partition {
  readonly key: Canonical[] = [];
  /** The seed of the partition's content: its key values hashed. */
  readonly idseed: number;

  constructor(
    private readonly generator: PartitionGenerator,
    seed: number,
  ) {
    let idseed = 0;
    for (const g of generator.partitionKey) {
      g.setSeed(seed);
      const v = g.generate();
      this.key.push(v);
      idseed = childSeed(idseed, v);
    }
    this.idseed = idseed;
  }

  /** The distinct values of a clustering column under a parent seed. */
  private level(depth: number, parentSeed: number): Canonical[] {
    const g = this.generator.clustering[depth]!;
    g.setSeed(parentSeed);
    const count = Math.max(1, g.clustering.next());
    if (count === 1) return [g.generate()];
    const seen = new Set<string>();
    const out: Canonical[] = [];
    for (let i = 0; i < count; i++) {
      const v = g.generate();
      const k = valueKey(v);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(v);
      }
    }
    return out;
  }

  /** The expected number of rows, from the first clustering column's count and the averages below it. */
  expectedRowCount(): number {
    if (this.generator.clustering.length === 0) return 1;
    const g = this.generator.clustering[0]!;
    g.setSeed(this.idseed);
    return Math.max(1, g.clustering.next()) * this.generator.descendantAverages[0]!;
  }

  /**
   * The rows a write visits: each with probability `useChance`, among the rows at positions
   * [from, from + limit) in the partition's order. With the whole partition in range, subtrees are
   * skipped as cassandra-stress does: a value is descended into with the chance that any row below
   * it is picked, and the chance below is raised to match, so every row has the same chance without
   * generating the ones skipped. At least one row is returned when the range holds any.
   */
  selectRows(useChance: number, random: () => number, from = 0, limit = Number.POSITIVE_INFINITY): RowSelection {
    const clustering = this.generator.clustering;
    if (clustering.length === 0) return { rows: [{ clustering: [], seed: this.idseed }], finished: true };
    const rows: GeneratedRow[] = [];
    const whole = from === 0 && limit === Number.POSITIVE_INFINITY;
    const last = clustering.length - 1;
    let position = 0;
    let fallback: GeneratedRow | undefined;
    const walk = (depth: number, parentSeed: number, chance: number, prefix: Canonical[]): boolean => {
      for (const v of this.level(depth, parentSeed)) {
        const seed = childSeed(parentSeed, v);
        if (depth === last) {
          const at = position++;
          if (at < from) continue;
          if (at >= from + limit) return false;
          const row = { clustering: [...prefix, v], seed };
          if (chance >= 1 || random() < chance) rows.push(row);
          else fallback ??= row;
          continue;
        }
        let below = chance;
        if (whole && chance < 1) {
          const descend = Math.min(1, chance * this.generator.descendantAverages[depth]!);
          if (random() >= descend) continue;
          below = chance / descend;
        }
        if (!walk(depth + 1, seed, below, [...prefix, v])) return false;
      }
      return true;
    };
    const finished = walk(0, this.idseed, Math.max(0, Math.min(1, useChance)), []);
    if (rows.length === 0) {
      const one = fallback ?? (whole ? this.randomRow(random) : undefined);
      if (one) rows.push(one);
    }
    return { rows, finished };
  }

  /** One row picked by a uniformly random value at each clustering level. */
  randomRow(random: () => number): GeneratedRow {
    let seed = this.idseed;
    const clustering: Canonical[] = [];
    for (let depth = 0; depth < this.generator.clustering.length; depth++) {
      const values = this.level(depth, seed);
      const v = values[Math.floor(random() * values.length)]!;
      clustering.push(v);
      seed = childSeed(seed, v);
    }
    return { clustering, seed };
  }

  /** A value column of a row. */
  value(row: GeneratedRow, index: number): Canonical {
    const g = this.generator.values[index]!;
    g.setSeed(row.seed);
    return g.generate();
  }

  /** A column's value in a row, canonical. */
  get(ref: ColumnRef, row: GeneratedRow): Canonical {
    if (ref.part === 'partition') return this.key[ref.index]!;
    if (ref.part === 'clustering') return row.clustering[ref.index]!;
    return this.value(row, ref.index);
  }
}
