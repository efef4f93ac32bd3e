// Sorting buffer entries by twin key (byte order), stably: of two entries for one key, the one written later
// stays later. A flush sorts the ~65 k entries written since the last one; comparison sorts cost ~0.7 µs an entry
// on the server. Keys start with the 8 sortable token bytes and tokens are hashes, so a radix sort on the first 4
// bytes nearly finishes the job; runs with equal first bytes (rows of one partition, rare collisions, rewrites of
// one row) are then sorted by comparison. The sort is resumable (EntrySorter.step): a background flush sorts in
// bounded steps between requests; a run too long for one step (a partition with many buffered rows) is merge
// sorted in steps too.

import { type BufferEntry, compareEntries } from './buffer-entry.js';

const SMALL = 64;
/** Runs up to this long are sorted in one call (Array.prototype.sort is stable); longer runs by SlicedMergeSort. */
const RUN_IN_ONE_STEP = 2048;

type Stage = 'hi' | 'count' | 'scatter' | 'gather' | 'runs' | 'done';

/** A stable sort of entries by key, done in steps of about `budget` elements of work each. */
export class EntrySorter {
  /** The sorted entries once step() returned true. */
  out: BufferEntry[] = [];
  /** The first and second 4 key bytes (the token) of out[i]; empty when the input was too short for the radix sort. */
  sortedHigh = new Uint32Array(0);
  sortedLow = new Uint32Array(0);
  private readonly n: number;
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);
  private from = new Uint32Array(0);
  private to = new Uint32Array(0);
  private readonly counts = new Uint32Array(65537);
  private stage: Stage;
  private shift = 0;
  private i = 0;
  private run: SlicedMergeSort | undefined;

  constructor(private readonly entries: BufferEntry[]) {
    this.n = entries.length;
    this.stage = this.n < SMALL ? 'done' : 'hi';
    if (this.stage === 'done') this.out = entries.sort(compareEntries);
    else {
      this.hi = new Uint32Array(this.n);
      this.lo = new Uint32Array(this.n);
      this.from = new Uint32Array(this.n);
      this.to = new Uint32Array(this.n);
    }
  }

  /** Does about `budget` elements of work; true once `out` is sorted. */
  step(budget: number): boolean {
    const n = this.n;
    // Counting, scattering and gathering are a few array accesses an element: more of them fit a step.
    const cheap = budget * 8;
    switch (this.stage) {
      case 'hi': {
        // Keys are at least 10 bytes (8 token bytes, the partition key length).
        const end = Math.min(n, this.i + cheap);
        for (let i = this.i; i < end; i++) {
          const e = this.entries[i]!;
          this.hi[i] = e.rec.readUInt32BE(e.keyAt);
          // Read now, while the key's bytes are in cache: the flush's lookups use the whole token.
          this.lo[i] = e.rec.readUInt32BE(e.keyAt + 4);
          this.from[i] = i;
        }
        this.next(end, 'count');
        break;
      }
      // LSD radix sort of the indexes by hi: two stable passes of 16 bits.
      case 'count': {
        if (this.i === 0) this.counts.fill(0);
        const end = Math.min(n, this.i + cheap);
        const { hi, from, counts, shift } = this;
        for (let i = this.i; i < end; i++) counts[((hi[from[i]!]! >>> shift) & 0xffff) + 1]!++;
        if (end === n) for (let b = 1; b <= 65536; b++) counts[b]! += counts[b - 1]!;
        this.next(end, 'scatter');
        break;
      }
      case 'scatter': {
        const end = Math.min(n, this.i + cheap);
        const { hi, from, to, counts, shift } = this;
        for (let i = this.i; i < end; i++) {
          const j = from[i]!;
          to[counts[(hi[j]! >>> shift) & 0xffff]!++] = j;
        }
        if (end === n) {
          this.from = to;
          this.to = from;
          this.shift += 16;
        }
        this.next(end, this.shift <= 16 ? 'count' : 'gather');
        break;
      }
      case 'gather': {
        if (this.i === 0) {
          this.out = new Array<BufferEntry>(n);
          this.sortedHigh = new Uint32Array(n);
          this.sortedLow = new Uint32Array(n);
        }
        const end = Math.min(n, this.i + cheap);
        for (let i = this.i; i < end; i++) {
          const j = this.from[i]!;
          this.out[i] = this.entries[j]!;
          this.sortedHigh[i] = this.hi[j]!;
          this.sortedLow[i] = this.lo[j]!;
        }
        this.next(end, 'runs');
        break;
      }
      case 'runs':
        this.sortRuns(budget);
        break;
      case 'done':
        break;
    }
    return this.stage === 'done';
  }

  private next(end: number, stage: Stage): void {
    if (end < this.n) {
      this.i = end;
      return;
    }
    this.i = 0;
    this.stage = stage;
  }

  /** Runs with equal first 4 key bytes, sorted by comparison: ~`budget` elements, or one slice of a long run. */
  private sortRuns(budget: number): void {
    const n = this.n;
    const out = this.out;
    const hi = this.hi;
    const from = this.from;
    let work = 0;
    while (this.i < n && work < budget) {
      if (this.run) {
        if (!this.run.step(budget)) return;
        this.lowOfRun(this.run.start, this.run.end);
        this.i = this.run.end;
        this.run = undefined;
        return;
      }
      const i = this.i;
      let j = i + 1;
      const h = hi[from[i]!]!;
      while (j < n && hi[from[j]!]! === h) j++;
      if (j - i > RUN_IN_ONE_STEP) {
        this.run = new SlicedMergeSort(out, i, j);
        return;
      }
      if (j - i > 1) {
        const run = out.slice(i, j).sort(compareEntries);
        for (let r = 0; r < run.length; r++) out[i + r] = run[r]!;
        this.lowOfRun(i, j);
        work += (j - i) * 4;
      } else work++;
      this.i = j;
    }
    if (this.i >= n) this.stage = 'done';
  }

  /** A run was reordered by comparison: its entries' second token halves follow them (the first are all equal). */
  private lowOfRun(start: number, end: number): void {
    for (let r = start; r < end; r++) {
      const e = this.out[r]!;
      this.sortedLow[r] = e.rec.readUInt32BE(e.keyAt + 4);
    }
  }
}

/**
 * Stable merge sort of a[start, end) in steps: blocks of BLOCK sorted one per unit of work, then bottom-up merge
 * passes that stop and resume at any element.
 */
class SlicedMergeSort {
  private static readonly BLOCK = 256;
  private width = SlicedMergeSort.BLOCK;
  /** Positions relative to `start`: block sorting, the next block; merging, the pair being merged and within it. */
  private at = 0;
  private pairAt = 0;
  private i = 0;
  private j = 0;
  private k = 0;
  private src: BufferEntry[];
  private dst: BufferEntry[];
  private sortingBlocks = true;

  constructor(
    private readonly a: BufferEntry[],
    readonly start: number,
    readonly end: number,
  ) {
    this.src = a.slice(start, end);
    this.dst = new Array<BufferEntry>(end - start);
  }

  /** About `budget` comparisons; true when a[start, end) is sorted. */
  step(budget: number): boolean {
    const len = this.end - this.start;
    const src = this.src;
    if (this.sortingBlocks) {
      let work = 0;
      while (work < budget && this.at < len) {
        const e = Math.min(len, this.at + SlicedMergeSort.BLOCK);
        const block = src.slice(this.at, e).sort(compareEntries);
        for (let r = 0; r < block.length; r++) src[this.at + r] = block[r]!;
        work += (e - this.at) * 8;
        this.at = e;
      }
      if (this.at < len) return false;
      this.sortingBlocks = false;
      this.startPair(0);
    }
    let work = 0;
    while (this.width < len) {
      const dst = this.dst;
      const s = this.src;
      const mid = Math.min(len, this.pairAt + this.width);
      const stop = Math.min(len, this.pairAt + 2 * this.width);
      // Merge s[pairAt, mid) and s[mid, stop) into dst[pairAt, stop); ties take the left (earlier) one.
      while (this.k < stop && work < budget) {
        if (this.i < mid && (this.j >= stop || compareEntries(s[this.j]!, s[this.i]!) >= 0))
          dst[this.k++] = s[this.i++]!;
        else dst[this.k++] = s[this.j++]!;
        work++;
      }
      if (this.k < stop) return false;
      if (stop < len) {
        this.startPair(stop);
        continue;
      }
      this.src = dst;
      this.dst = s;
      this.width *= 2;
      this.startPair(0);
      if (work >= budget) return this.finishIfSorted(len);
    }
    return this.finishIfSorted(len);
  }

  private startPair(at: number): void {
    this.pairAt = at;
    this.i = at;
    this.j = Math.min(this.end - this.start, at + this.width);
    this.k = at;
  }

  private finishIfSorted(len: number): boolean {
    if (this.width < len) return false;
    for (let r = 0; r < len; r++) this.a[this.start + r] = this.src[r]!;
    return true;
  }
}
