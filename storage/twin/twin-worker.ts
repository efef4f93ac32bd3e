// Runs a table's twin flushes and compactions off the request path: bounded slices, paced to a quarter of the
// event loop (see schedule), so requests interleave with the work; one job at a time per table. The admin entry
// points (flushNow / compactNow) run the same steps to completion synchronously. Between them it builds the token
// filters of complete blocks of segments (segment-filter-tree.ts), one segment a step.

import { PoolError } from '../native-pool.js';
import type { FilterBuild } from './segment-filter-tree.js';
import type { TableTwin } from './table-twin.js';
import { type CompactionResult, pickVictims, TwinCompaction } from './twin-compaction.js';
import { type FlushResult, startFlush, THREAD_POLL_MS, type TwinFlush } from './twin-flush.js';

type Job =
  | { kind: 'flush'; job: TwinFlush }
  | { kind: 'compact'; job: TwinCompaction }
  | { kind: 'filter'; job: FilterBuild };

/** Background work waits this long after the pool was full, doubling up to the maximum while it stays full. */
const POOL_FULL_RETRY_MS = 1_000;
const POOL_FULL_RETRY_MAX_MS = 60_000;
/** Background steps' share of the event loop's time while the table is not behind. */
const DUTY = 0.25;
/**
 * A flush's reclaim steps (deleting the buffer records it consumed: ~20 000 a flush at 20 000 INSERTs/s) hold up
 * nothing but the next flush, which is seconds away: they take a smaller share, so that on top of a busy event loop
 * they do not build a queue of requests (docs/arrow-twins.md "Flush").
 */
const RECLAIM_DUTY = 0.1;
const MAX_PAUSE_MS = 30;

/** The pause after a background step of `stepMs` that keeps background work to its `duty` share (ms). */
export function pauseAfterStep(stepMs: number, duty = DUTY): number {
  return Math.min(MAX_PAUSE_MS, (stepMs * (1 - duty)) / duty);
}

export class TwinWorker {
  private current: Job | undefined;
  private scheduled = false;
  stopped = false;
  /** Last results, for system_arrow and tests. */
  lastFlush: FlushResult | undefined;
  lastCompaction: CompactionResult | undefined;
  errors = 0;
  /** While the pool is full: no background work before this time (ms since epoch), and the next wait. */
  private pausedUntil = 0;
  private retryMs = POOL_FULL_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The next paced step (see schedule). */
  private timer: NodeJS.Timeout | undefined;
  private lastStepMs = 0;

  constructor(
    private readonly twin: TableTwin,
    private readonly onError: (e: unknown) => void = () => {},
    /** Each finished background flush (the server logs it). */
    private readonly onFlushed: (r: FlushResult) => void = () => {},
  ) {
    twin.onThreshold = () => this.kick();
    twin.onFilterWork = () => {
      if (!this.current) this.schedule();
    };
  }

  /** Background: start a flush if none runs (a filter build in progress finishes first: a few steps). */
  kick(): void {
    if (this.stopped || !this.twin.options.autoFlush || this.current) return;
    // A full pool fails every flush: writes past the threshold would retry one per write.
    if (Date.now() < this.pausedUntil) return;
    const f = startFlush(this.twin);
    if (!f) return;
    this.current = { kind: 'flush', job: f };
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Paced: after a step of d ms the next waits d * (1 - duty) / duty, so background work takes at most its duty
    // share of the event loop and a flush's CPU is spread instead of piling up behind requests. A table whose
    // buffer already holds the next flush's rows or bytes runs flat out (the buffer must not grow without bound).
    // A flush waiting for the flush thread looks again a little later (it checks rewritten rows meanwhile).
    const cur = this.current;
    const pause =
      cur?.kind === 'flush' && cur.job.waiting
        ? THREAD_POLL_MS
        : this.twin.backlogged()
          ? 0
          : pauseAfterStep(
              this.lastStepMs,
              cur?.kind === 'flush' && cur.job.currentPhase === 'reclaim' ? RECLAIM_DUTY : DUTY,
            );
    if (pause >= 1) this.timer = setTimeout(this.tick, pause);
    else setImmediate(this.tick);
  }

  private readonly tick = (): void => {
    this.scheduled = false;
    if (this.stopped) return;
    if (!this.current) this.startFilterBuild();
    const cur = this.current;
    if (!cur) return;
    let finished: boolean;
    const t0 = performance.now();
    try {
      finished = cur.job.step(this.twin.options.sliceRows);
      this.lastStepMs = performance.now() - t0;
    } catch (e) {
      this.errors++;
      this.abandon(cur);
      if (e instanceof PoolError && e.code === 'POOL_FULL') this.pauseWhilePoolFull();
      this.onError(e);
      return;
    }
    this.retryMs = POOL_FULL_RETRY_MS;
    if (!finished) {
      this.schedule();
      return;
    }
    this.finished(cur);
    if (this.stopped) return;
    if (this.twin.options.autoFlush) {
      // After a flush, see whether compaction is worth it; after a compaction, flush what it re-buffered.
      if (cur.kind === 'flush') {
        const victims = pickVictims(this.twin);
        if (victims.length > 0) {
          this.current = { kind: 'compact', job: new TwinCompaction(this.twin, victims) };
          this.schedule();
          return;
        }
        if (this.twin.overThreshold()) this.kick();
      } else if (cur.kind === 'compact' || this.twin.overThreshold()) {
        this.kick();
      }
    }
    if (!this.current) this.startFilterBuild();
    if (this.current) this.schedule();
  };

  private startFilterBuild(): void {
    if (this.twin.table.dropped) return;
    const build = this.twin.filterTree.startBuild();
    if (build) this.current = { kind: 'filter', job: build };
  }

  private finished(cur: Job): void {
    this.current = undefined;
    if (cur.kind === 'flush') {
      this.lastFlush = cur.job.result;
      if (cur.job.result?.segment) this.onFlushed(cur.job.result);
    } else if (cur.kind === 'compact') this.lastCompaction = cur.job.result;
  }

  private abandon(cur: Job): void {
    this.current = undefined;
    if (cur.kind !== 'compact') cur.job.cancel();
  }

  /** Runs whatever job is in progress to its end, synchronously. */
  private drain(): void {
    const cur = this.current;
    if (!cur) return;
    try {
      const limit = this.twin.options.sliceRows;
      // A flush waits for its thread's answer synchronously (no event-loop turn could deliver it).
      while (!(cur.kind === 'flush' ? cur.job.step(limit, true) : cur.job.step(limit))) {}
    } catch (e) {
      this.abandon(cur);
      throw e;
    }
    this.finished(cur);
  }

  /** Admin: flush the whole buffer now (after any job in progress). */
  flushNow(): FlushResult | undefined {
    this.drain();
    const f = startFlush(this.twin);
    if (!f) return undefined;
    this.current = { kind: 'flush', job: f };
    this.drain();
    // The new segment may complete a block whose filter the background builds (the flush ran outside tick).
    if (!this.stopped) this.schedule();
    return f.result;
  }

  /** Admin: compact (victims as pickVictims chooses; `all`: every segment), then flush the re-buffered rows. */
  compactNow(all = false): { compaction: CompactionResult | undefined; flush: FlushResult | undefined } {
    this.drain();
    const victims = all ? this.twin.segments() : pickVictims(this.twin);
    let compaction: CompactionResult | undefined;
    if (victims.length > 0) {
      const c = new TwinCompaction(this.twin, victims);
      this.current = { kind: 'compact', job: c };
      this.drain();
      compaction = c.result;
    }
    return { compaction, flush: this.flushNow() };
  }

  /** The buffer stays (reads use it); flushing is tried again later, less often while the pool stays full. */
  private pauseWhilePoolFull(): void {
    this.pausedUntil = Date.now() + this.retryMs;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.kick(), this.retryMs + 1);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, POOL_FULL_RETRY_MAX_MS);
  }

  /** Milliseconds until background work is tried again after the pool was full (0: not paused). */
  get pausedForMs(): number {
    return Math.max(0, this.pausedUntil - Date.now());
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.timer);
    if (this.current) this.abandon(this.current);
  }
}
