// One group-commit transaction being staged: the native WriteBatch, the read-merge-write overlays of the
// tables touched so far (so two writes to one row in the same batch merge), and what to do once it commits.

import type { ChildRef, MapHandle, NativePool, WriteBatch } from './native-pool.js';

export type MapRef = MapHandle | ChildRef;

/** A child map made by ensureChild in this batch; its handle is known once the batch is applied. */
export interface NewChild {
  readonly ref: ChildRef;
  /** Position among this batch's ensureChild calls (= index into apply()'s result). */
  readonly ordinal: number;
}

export class CommitContext {
  readonly batch: WriteBatch;
  private ensureCount = 0;
  private readonly overlays = new Map<object, unknown>();
  private readonly commitHooks: ((handles: MapHandle[]) => void)[] = [];
  private readonly stagedHooks: (() => void)[] = [];

  constructor(readonly pool: NativePool) {
    this.batch = pool.batch();
  }

  ensureChild(map: MapRef, key: Buffer): NewChild {
    const ref = this.batch.ensureChild(map, key);
    return { ref, ordinal: this.ensureCount++ };
  }

  /** Per-owner scratch state living as long as this batch (e.g. a table's row overlay). */
  overlay<T>(owner: object, create: () => T): T {
    let o = this.overlays.get(owner) as T | undefined;
    if (o === undefined) {
      o = create();
      this.overlays.set(owner, o);
    }
    return o;
  }

  /**
   * Runs once every op is staged, just before the batch is applied: the last ops of a batch (e.g. a twin's one
   * buffer-log record holding every row the batch changed).
   */
  onStaged(hook: () => void): void {
    this.stagedHooks.push(hook);
  }

  runStagedHooks(): void {
    for (const h of this.stagedHooks) h();
  }

  /** Runs after a successful apply, with the handles of every ensureChild in batch order. */
  onCommit(hook: (handles: MapHandle[]) => void): void {
    this.commitHooks.push(hook);
  }

  runCommitHooks(handles: MapHandle[]): void {
    for (const h of this.commitHooks) h(handles);
  }
}
