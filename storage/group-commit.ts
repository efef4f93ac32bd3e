// Group commit: every write submitted during one event-loop turn is staged into ONE native WriteBatch and
// applied with ONE pool.apply (one libpmemobj transaction, one journal record on a disk pool); then each
// submitter's callback runs — at once, or, where the commit log policy says a write is acknowledged only once it
// is synced (commitlog_sync group / batch), when the journal sync covering the transaction completes. (A turn staging more than MAX_TRANSACTION_BYTES takes several transactions, each holding
// whole ops.) Staging happens at flush time, in submission order, against committed data plus the batch's
// own overlays, so two writes to one row in the same turn merge. Reads never see staged data: a write is
// visible once its transaction committed; its response may be sent once its callback has run.

import { CommitContext } from './commit-context.js';
import type { NativePool } from './native-pool.js';

/** One unit of work: staged atomically (all of it lands in the batch, or — if stage throws — none of it). */
export interface CommitOp {
  stage(ctx: CommitContext): void;
  /** Called once: undefined after the commit, or the error that kept this op out. */
  done(err: Error | undefined): void;
}

/**
 * 32 MiB: far above a turn of ordinary writes (one transaction each, as before), while a turn of large
 * values commits in several transactions instead of one batch buffer of all of them.
 */
const MAX_TRANSACTION_BYTES = 32 * 1024 * 1024;

export class GroupCommit {
  private pending: CommitOp[] = [];
  private scheduled = false;
  private closed = false;
  /** Transactions applied so far (for stats and tests). */
  commits = 0;
  /** Observes each applied transaction: ops in it and the time apply() took (metrics). */
  onCommit: ((ops: number, applyMs: number) => void) | undefined;

  /** A transaction closes once its staged bytes reach this (the op that crosses it stays in it). */
  maxTransactionBytes = MAX_TRANSACTION_BYTES;

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

  /** The transaction holding `ops` is durable (or its sync failed: `err`). */
  private finish(ops: readonly CommitOp[], err: Error | undefined): void {
    for (const op of ops) op.done(err);
  }

  private commitGroup(ops: CommitOp[]): void {
    let rest = ops;
    while (rest.length > 0) rest = this.commitPrefix(rest);
  }

  /**
   * Stages ops in order into one transaction until it holds MAX_TRANSACTION_BYTES (at least one op), commits
   * it and returns the ops left for the next one. Ops are independent, so a long group may take several
   * transactions; bounding each keeps a turn's worth of large values from doubling into one huge batch.
   */
  private commitPrefix(ops: CommitOp[]): CommitOp[] {
    let live = ops;
    let rest: CommitOp[] = [];
    let ctx: CommitContext | undefined;
    // Staging an op may throw midway; its partial ops would poison the batch, so restage without it.
    for (;;) {
      ctx = new CommitContext(this.pool);
      let failedAt = -1;
      let failure: Error | undefined;
      let staged = live.length;
      for (let i = 0; i < live.length; i++) {
        try {
          live[i]!.stage(ctx);
        } catch (e) {
          failedAt = i;
          failure = toError(e);
          break;
        }
        if (ctx.batch.byteLength >= this.maxTransactionBytes) {
          staged = i + 1;
          break;
        }
      }
      if (failedAt < 0) {
        rest = live.slice(staged);
        live = live.slice(0, staged);
        break;
      }
      live[failedAt]!.done(failure);
      live = live.filter((_, i) => i !== failedAt);
      if (live.length === 0) return [];
    }
    let handles: number[];
    const t0 = this.onCommit ? performance.now() : 0;
    try {
      ctx.runStagedHooks();
      handles = ctx.batch.size > 0 ? this.pool.apply(ctx.batch) : [];
    } catch (e) {
      // The transaction rolled back. Retry each op alone so one oversized write does not fail the others.
      if (live.length > 1) {
        for (const op of live) this.commitPrefix([op]);
      } else {
        live[0]!.done(toError(e));
      }
      return rest;
    }
    this.commits++;
    this.onCommit?.(live.length, performance.now() - t0);
    let hookError: Error | undefined;
    try {
      ctx.runCommitHooks(handles);
    } catch (e) {
      hookError = toError(e);
    }
    const ticket = this.pool.commitTicket();
    if (ticket === 0) for (const op of live) op.done(hookError);
    else this.pool.whenDurable(ticket, (err) => this.finish(live, err ?? hookError));
    return rest;
  }
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
