// Group commit: every write submitted during one event-loop turn is staged into ONE native WriteBatch and
// applied with ONE pool.apply (one libpmemobj transaction, one msync in disk mode); then each submitter's
// callback runs. Staging happens at flush time, in submission order, against committed data plus the batch's
// own overlays, so two writes to one row in the same turn merge. Reads never see staged data: a write is
// visible once its callback has run, which is also when its response may be sent.

import { CommitContext } from './commit-context.js';
import type { NativePool } from './native-pool.js';

/** One unit of work: staged atomically (all of it lands in the batch, or — if stage throws — none of it). */
export interface CommitOp {
  stage(ctx: CommitContext): void;
  /** Called once: undefined after the commit, or the error that kept this op out. */
  done(err: Error | undefined): void;
}

export class GroupCommit {
  private pending: CommitOp[] = [];
  private scheduled = false;
  private closed = false;
  /** Transactions applied so far (for stats and tests). */
  commits = 0;
  /** Observes each applied transaction: ops in it and the time apply() took (metrics). */
  onCommit: ((ops: number, applyMs: number) => void) | undefined;

  constructor(private readonly pool: NativePool) {}

  submit(op: CommitOp): void {
    if (this.closed) {
      op.done(new Error('storage engine is closed'));
      return;
    }
    this.pending.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      // setImmediate runs after this turn's I/O callbacks, so all frames read in the turn share the commit.
      setImmediate(this.flushCallback);
    }
  }

  /** Promise form of submit. */
  run(stage: (ctx: CommitContext) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.submit({ stage, done: (err) => (err ? reject(err) : resolve()) });
    });
  }

  private readonly flushCallback = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Commits everything pending now (also used by close()). */
  flush(): void {
    while (this.pending.length > 0) {
      const ops = this.pending;
      this.pending = [];
      this.commitGroup(ops);
    }
  }

  close(): void {
    this.flush();
    this.closed = true;
  }

  private commitGroup(ops: CommitOp[]): void {
    let live = ops;
    let ctx: CommitContext | undefined;
    // Staging an op may throw midway; its partial ops would poison the batch, so restage without it.
    for (;;) {
      ctx = new CommitContext(this.pool);
      let failedAt = -1;
      let failure: Error | undefined;
      for (let i = 0; i < live.length; i++) {
        try {
          live[i]!.stage(ctx);
        } catch (e) {
          failedAt = i;
          failure = toError(e);
          break;
        }
      }
      if (failedAt < 0) break;
      live[failedAt]!.done(failure);
      live = live.filter((_, i) => i !== failedAt);
      if (live.length === 0) return;
    }
    let handles: number[];
    const t0 = this.onCommit ? performance.now() : 0;
    try {
      ctx.runStagedHooks();
      handles = ctx.batch.size > 0 ? this.pool.apply(ctx.batch) : [];
    } catch (e) {
      // The transaction rolled back. Retry each op alone so one oversized write does not fail the others.
      if (live.length > 1) {
        for (const op of live) this.commitGroup([op]);
      } else {
        live[0]!.done(toError(e));
      }
      return;
    }
    this.commits++;
    this.onCommit?.(live.length, performance.now() - t0);
    let hookError: Error | undefined;
    try {
      ctx.runCommitHooks(handles);
    } catch (e) {
      hookError = toError(e);
    }
    for (const op of live) op.done(hookError);
  }
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
