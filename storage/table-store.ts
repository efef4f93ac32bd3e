// One table's store over the pool: the API the executor calls. Writes go through the engine's group commit
// (one transaction per event-loop turn); reads see committed data.

import type { CommitContext } from './commit-context.js';
import type { GroupCommit } from './group-commit.js';
import type { PartitionUpdate } from './mutation.js';
import type { ReadRow } from './row-projection.js';
import { Projection } from './row-projection.js';
import type { PartitionRead, RangeScanOptions, RangeScanResult, ReadOptions } from './table-reader.js';
import { TableReader } from './table-reader.js';
import type { TableState } from './table-state.js';
import { TableWriter } from './table-writer.js';
import type { TableTwin } from './twin/table-twin.js';
import type { CompactionResult } from './twin/twin-compaction.js';
import type { FlushResult } from './twin/twin-flush.js';
import type { TwinWorker } from './twin/twin-worker.js';

export type { PagingPosition, PartitionRead, RangeScanOptions, RangeScanResult, ReadOptions } from './table-reader.js';

export class TableStore {
  private readonly writer: TableWriter;
  private readonly reader: TableReader;
  private gcCursor: Buffer | undefined;

  constructor(
    private readonly state: TableState,
    private readonly commit: GroupCommit,
    private readonly dropper: (table: TableStore) => Promise<void>,
    /** The Arrow twin and the worker flushing / compacting it; absent for pools without one. */
    readonly twin?: TableTwin,
    readonly twinWorker?: TwinWorker,
  ) {
    this.writer = new TableWriter(state, twin);
    this.reader = new TableReader(state);
  }

  /** Admin: flushes the twin's buffer into a segment now (undefined: the table has no twin / nothing to do). */
  flushTwin(): FlushResult | undefined {
    this.checkOpen();
    return this.twinWorker?.flushNow();
  }

  /** Admin: compacts the twin's segments (`all`: every segment), then flushes. */
  compactTwin(all = false): { compaction: CompactionResult | undefined; flush: FlushResult | undefined } | undefined {
    this.checkOpen();
    return this.twinWorker?.compactNow(all);
  }

  get id(): Buffer {
    return this.state.id;
  }

  get clustered(): boolean {
    return this.state.clustered;
  }

  get dropped(): boolean {
    return this.state.dropped;
  }

  /** From the schema's gc_grace_seconds (ALTER TABLE may change it). */
  get gcGraceSeconds(): number {
    return this.state.gcGraceSeconds;
  }

  set gcGraceSeconds(s: number) {
    this.state.gcGraceSeconds = s;
  }

  /** Applies the updates atomically in the current turn's group commit; resolves once durable. */
  applyMutations(updates: readonly PartitionUpdate[], nowInSeconds: number): Promise<void> {
    return this.commit.run((ctx) => this.stageMutations(ctx, updates, nowInSeconds));
  }

  /** Callback form of applyMutations (no promise allocation on the hot path). */
  applyMutationsCallback(
    updates: readonly PartitionUpdate[],
    nowInSeconds: number,
    done: (err: Error | undefined) => void,
  ): void {
    this.commit.submit({ stage: (ctx) => this.stageMutations(ctx, updates, nowInSeconds), done });
  }

  /** Stages into a batch being built (for multi-table atomic ops, see StorageEngine.apply). */
  stageMutations(ctx: CommitContext, updates: readonly PartitionUpdate[], nowInSeconds: number): void {
    this.writer.stageUpdates(ctx, updates, nowInSeconds);
  }

  /**
   * Inside a staged op (StorageEngine.run): the row as committed data plus this batch's earlier writes
   * leave it — for conditional updates (IF NOT EXISTS / IF col = ...). `clustering` undefined: the static
   * row (or the only row of a table without clustering columns).
   */
  readRowInBatch(
    ctx: CommitContext,
    key: Buffer,
    token: bigint | undefined,
    clustering: Buffer | undefined,
    columns: readonly number[] | Projection,
    nowInSeconds: number,
  ): ReadRow | undefined {
    const proj = columns instanceof Projection ? columns : new Projection(columns);
    return this.writer.readRowInBatch(ctx, key, token, clustering, proj, nowInSeconds);
  }

  readPartition(key: Buffer, token: bigint | undefined, options: ReadOptions): PartitionRead | undefined {
    this.checkOpen();
    return this.reader.readPartition(key, token, options);
  }

  scanRange(options: RangeScanOptions): RangeScanResult {
    this.checkOpen();
    return this.reader.scanRange(options);
  }

  /** Partitions stored (including ones holding only tombstones until GC removes them). */
  estimatePartitions(): number {
    this.checkOpen();
    return this.state.pool.count(this.state.partitionsHandle);
  }

  truncate(): Promise<void> {
    return this.commit.run((ctx) => this.writer.stageTruncate(ctx));
  }

  drop(): Promise<void> {
    return this.dropper(this);
  }

  /** Used by the engine's drop: later ops of the same batch must fail. */
  stageDropped(ctx: CommitContext): void {
    this.writer.markDropped(ctx);
  }

  markDropped(): void {
    this.state.dropped = true;
    this.twinWorker?.stop();
  }

  /**
   * One bounded slice of tombstone GC (up to `maxPartitions` partitions), continuing where the previous
   * slice stopped. Resolves true when it reached the end of the table (the next slice starts over).
   */
  collectGarbage(maxPartitions: number, nowInSeconds: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let next: Buffer | undefined;
      this.commit.submit({
        stage: (ctx) => {
          next = this.writer.stageGc(ctx, this.gcCursor, maxPartitions, nowInSeconds);
        },
        done: (err) => {
          if (err) return reject(err);
          this.gcCursor = next;
          resolve(next === undefined);
        },
      });
    });
  }

  private checkOpen(): void {
    if (this.state.dropped) throw new Error('table has been dropped');
  }
}
