// Writes waiting for the journal sync that makes them durable (commitlog_sync group / batch, or a lagging
// periodic sync): tickets are journal LSNs, handed out in increasing order, so the queue stays sorted and a sync
// completion releases a prefix of it.

import { PoolError } from './native-pool.js';

interface Waiter {
  ticket: number;
  done: (err?: Error) => void;
}

export class SyncWaiters {
  /** Told when the first write starts waiting (true) and when none waits any more (false). */
  onWaiting: (waiting: boolean) => void = () => {};
  private queue: Waiter[] = [];
  private head = 0;
  private durableLsn = 0;
  private failure: Error | undefined;

  add(ticket: number, done: (err?: Error) => void): void {
    if (this.failure) done(this.failure);
    else if (ticket <= this.durableLsn) done();
    else {
      if (this.queue.length === this.head) this.onWaiting(true);
      this.queue.push({ ticket, done });
    }
  }

  /** A sync completed: everything up to `lsn` is durable (or, with `error`, nothing waiting ever will be). */
  synced(lsn: number, error?: string): void {
    if (error !== undefined) {
      this.failure = new PoolError('POOL_IO', `${error}; the write may not be durable`);
      this.releaseAll(this.failure);
      return;
    }
    if (lsn > this.durableLsn) this.durableLsn = lsn;
    if (this.head === this.queue.length) return;
    // head moves before each callback: a callback may add a waiter.
    while (this.head < this.queue.length && this.queue[this.head]!.ticket <= this.durableLsn) {
      this.queue[this.head++]!.done();
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      this.onWaiting(false);
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      // The released prefix goes now and then rather than the array shifting per sync.
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** The pool closed after a final sync (`err` if that failed): nothing is left to wait for. */
  releaseAll(err?: Error): void {
    const q = this.queue;
    const from = this.head;
    if (from === q.length) return;
    this.queue = [];
    this.head = 0;
    this.onWaiting(false);
    for (let i = from; i < q.length; i++) q[i]!.done(err);
  }
}
