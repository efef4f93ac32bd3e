// Picks the next operation kind of a user run from ops(insert=1,simple1=2)'s weights, as
// cassandra-stress's SampledOpDistribution: a kind is drawn by weight and then repeated for a run
// whose length comes from the clustering distribution (clustering=gaussian(1..10) by default), so
// operations of one kind arrive in bursts while the mix keeps its proportions.

import type { Distribution } from './distribution.js';

export class OpChooser {
  private readonly names: string[];
  private readonly cumulative: number[] = [];
  private readonly total: number;
  private current = '';
  private remaining = 0;

  constructor(
    weights: Map<string, number>,
    private readonly clustering: Distribution,
    private readonly random: () => number = Math.random,
  ) {
    this.names = [...weights.keys()];
    let sum = 0;
    for (const name of this.names) {
      sum += weights.get(name)!;
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  next(): string {
    while (this.remaining <= 0) {
      const r = this.random() * this.total;
      let i = 0;
      while (i < this.cumulative.length - 1 && r >= this.cumulative[i]!) i++;
      this.current = this.names[i]!;
      this.remaining = Math.max(1, this.clustering.next());
    }
    this.remaining--;
    return this.current;
  }
}
