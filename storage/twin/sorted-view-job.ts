// The latest entry of every key in a list of buffer records, sorted by key (the buffer's "sorted view"), computed
// in bounded steps: a background flush starts from this view, and building it for 65 k entries in one go held
// the event loop 50-80 ms. TwinBuffer.sortedView() runs the same job to its end.

import { type BufferEntry, compareEntries } from './buffer-entry.js';
import { decodeEntriesFrom } from './buffer-record.js';
import { EntrySorter } from './twin-key-sort.js';

type Stage = 'decode' | 'sort' | 'dedupe' | 'done';

export class SortedViewJob {
  /** The view, once step() returned true, and each of its entries' token as two numbers (the key's first 8 bytes). */
  view: BufferEntry[] = [];
  viewHigh = new Uint32Array(0);
  viewLow = new Uint32Array(0);
  private stage: Stage = 'decode';
  private rec = 0;
  private at = 0;
  private all: BufferEntry[] = [];
  private sorter: EntrySorter | undefined;
  private sorted: BufferEntry[] = [];
  private sortedHigh = new Uint32Array(0);
  private sortedLow = new Uint32Array(0);
  private i = 0;

  /**
   * `records`: record bytes, oldest first (of two entries for one key, the later one counts); `onDone` gets the
   * view when the job finishes.
   */
  constructor(
    /** The records sorted (the flush thread sorts them instead when the job has not started). */
    readonly records: readonly Buffer[],
    private readonly onDone?: (view: BufferEntry[]) => void,
  ) {}

  /** A finished job whose view is `view`. */
  static of(view: BufferEntry[]): SortedViewJob {
    const job = new SortedViewJob([]);
    job.view = view;
    job.viewHigh = new Uint32Array(view.length);
    job.viewLow = new Uint32Array(view.length);
    for (let i = 0; i < view.length; i++) {
      const e = view[i]!;
      job.viewHigh[i] = e.rec.readUInt32BE(e.keyAt);
      job.viewLow[i] = e.rec.readUInt32BE(e.keyAt + 4);
    }
    job.stage = 'done';
    return job;
  }

  /** True once `view` is complete. */
  get finished(): boolean {
    return this.stage === 'done';
  }

  /** About `budget` entries of work; true once `view` is complete. */
  step(budget: number): boolean {
    switch (this.stage) {
      case 'decode': {
        let left = budget;
        while (left > 0 && this.rec < this.records.length) {
          const bytes = this.records[this.rec]!;
          const before = this.all.length;
          this.at = decodeEntriesFrom(bytes, this.at, left, this.all);
          left -= this.all.length - before;
          if (this.at >= bytes.length) {
            this.rec++;
            this.at = 0;
          }
        }
        if (this.rec >= this.records.length) {
          this.sorter = new EntrySorter(this.all);
          this.stage = 'sort';
        }
        break;
      }
      case 'sort':
        if (this.sorter!.step(budget)) {
          this.sorted = this.sorter!.out;
          this.sortedHigh = this.sorter!.sortedHigh;
          this.sortedLow = this.sorter!.sortedLow;
          this.sorter = undefined;
          this.all = [];
          this.stage = 'dedupe';
        }
        break;
      case 'dedupe': {
        const s = this.sorted;
        if (this.i === 0) {
          this.viewHigh = new Uint32Array(s.length);
          this.viewLow = new Uint32Array(s.length);
        }
        // Keys whose first 4 bytes differ differ (most neighbours: tokens are hashes); the others are compared.
        const radix = this.sortedHigh.length === s.length;
        const end = Math.min(s.length, this.i + budget * 2);
        for (let i = this.i; i < end; i++) {
          const e = s[i]!;
          if (i + 1 < s.length && (!radix || this.sortedHigh[i] === this.sortedHigh[i + 1])) {
            if (compareEntries(s[i + 1]!, e) === 0) continue;
          }
          const at = this.view.length;
          this.viewHigh[at] = radix ? this.sortedHigh[i]! : e.rec.readUInt32BE(e.keyAt);
          this.viewLow[at] = radix ? this.sortedLow[i]! : e.rec.readUInt32BE(e.keyAt + 4);
          this.view.push(e);
        }
        this.i = end;
        if (end >= s.length) {
          this.sorted = [];
          this.sortedHigh = new Uint32Array(0);
          this.sortedLow = new Uint32Array(0);
          this.viewHigh = this.viewHigh.subarray(0, this.view.length);
          this.viewLow = this.viewLow.subarray(0, this.view.length);
          this.stage = 'done';
          this.onDone?.(this.view);
        }
        break;
      }
      case 'done':
        break;
    }
    return this.stage === 'done';
  }

  /** Runs the job to its end. */
  finish(): BufferEntry[] {
    while (!this.step(1 << 30)) {}
    return this.view;
  }
}
