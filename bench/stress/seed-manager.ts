// Which partitions a profile's operations touch, as cassandra-stress's SeedManager: seeds come from
// -pop (seq=min..max in order, wrapping unless no-wrap, or dist=DIST drawn at random); writes and
// reads share the one source. A write may cover its partition in several visits (-insert visits=):
// such a partition stays in a revisit pool, and each write picks a pool slot from the inverted
// revisit distribution, continuing the partition found there or starting a new one when the slot
// is empty, so partially written partitions are revisited at the rate that distribution sets.

import type { Distribution } from './distribution.js';

export interface Seed {
  /** The population number; it seeds the partition's key. */
  readonly value: number;
  /** How many writes share the partition's rows. */
  readonly visits: number;
  /** Rows written so far (for visits > 1). */
  position: number;
}

export type SeedSource =
  | { kind: 'seq'; min: number; max: number; wrap: boolean }
  | { kind: 'dist'; distribution: Distribution };

export class SeedManager {
  private nextInSequence = 0;
  private readonly pool: Seed[] = [];
  private readonly poolSize: number;

  constructor(
    private readonly source: SeedSource,
    private readonly visits: Distribution,
    private readonly revisit: Distribution,
  ) {
    this.poolSize = 1 + revisit.max - revisit.min;
  }

  private draw(visits: number): Seed | undefined {
    const s = this.source;
    if (s.kind === 'dist') return { value: s.distribution.next(), visits, position: 0 };
    const count = s.max - s.min + 1;
    const n = this.nextInSequence++;
    if (!s.wrap && n >= count) return undefined;
    return { value: s.min + (n % count), visits, position: 0 };
  }

  /** The partition the next write covers (a partially written one, or a new one); undefined when no-wrap ran out. */
  nextWrite(): Seed | undefined {
    if (this.pool.length > 0) {
      // cassandra-stress draws the slot from the inverted distribution: max - (v - min), less the offset min.
      const slot = this.revisit.max - this.revisit.next();
      if (slot >= 0 && slot < this.pool.length) return this.pool[slot];
    }
    const visits = Math.max(1, this.visits.next());
    const seed = this.draw(visits);
    if (seed && visits > 1 && this.pool.length < this.poolSize) this.pool.push(seed);
    return seed;
  }

  /** The partition the next read covers; undefined when no-wrap ran out. */
  nextRead(): Seed | undefined {
    return this.draw(1);
  }

  /** A write reached the partition's last row: it leaves the revisit pool. */
  finished(seed: Seed): void {
    if (seed.visits <= 1) return;
    const i = this.pool.indexOf(seed);
    if (i >= 0) {
      this.pool[i] = this.pool[this.pool.length - 1]!;
      this.pool.pop();
    }
  }
}
