// The JS face of the native addon (native/): a persistent pool holding ordered byte maps.
// This file is the contract between native/ and the rest of storage/; its types and PoolError reach the callers too.

export type DurabilityMode = 'pmem' | 'emulated' | 'disk';

/**
 * When a write to a disk pool counts as durable, in Cassandra's commitlog_sync words (docs/storage-native.md,
 * "Durability of disk pools"): `periodic` acknowledges once the write is in the working pool and its journal record
 * is written (safe against a process crash) and makes it power-safe within `periodMs`; `group` and `batch`
 * acknowledge only after the fdatasync covering the write (group: at most one per `groupWindowMs`; batch: as soon as
 * possible). Pools on persistent memory (and emulated ones) are durable at commit and ignore it.
 */
export type CommitLogSync = 'periodic' | 'group' | 'batch';

export interface CommitLogOptions {
  sync: CommitLogSync;
  /** periodic: the journal is fdatasynced at least this often (commitlog_sync_period). */
  periodMs: number;
  /** group: at most one fdatasync per this window (commitlog_sync_group_window). */
  groupWindowMs: number;
  /** periodic: once the last completed sync started longer ago than this, writes wait for the next one. */
  lagBlockMs: number;
}

/** What opening a journaled pool found and did (for the log). */
export interface PoolRecovery {
  /** created, opened (the working pool as it was), rebuilt (from image + journal), adopted, converted */
  action: string;
  reason?: string;
  /** Torn or damaged journal records found (never applied), files ignored. */
  problems: string[];
  replayedRecords: number;
  journalBytes: number;
  ms: number;
}

export interface JournalStats {
  /** Records written and, of them, durable. */
  writtenLsn: number;
  syncedLsn: number;
  syncs: number;
  checkpoints: number;
  checkpointRunning: boolean;
  /** Bytes in the journal files now. */
  bytes: number;
  lastSyncMs: number;
  lastCheckpointMs: number;
  syncError?: string;
  checkpointError?: string;
}

/** A persistent map's handle: its offset inside the pool (stable across restarts). 0 = none. */
export type MapHandle = number;

export interface PoolInfo {
  path: string;
  mode: DurabilityMode;
  /** Bytes the pool can hold / holds now (approximate; from the allocator). */
  size: number;
  used: number;
  /** How commits become durable: cache flushes (pmem, emulated), or a disk pool's commitlog_sync. */
  sync: 'flush' | CommitLogSync;
  /** Disk pools: the commit log settings in force (checkpointBytes: a journal file this long is checkpointed). */
  commitLog?: { periodMs: number; groupWindowMs: number; lagBlockMs: number; checkpointBytes: number };
  /** Disk pools: the checkpoint image and the two journal files. */
  image?: string;
  journalFiles?: string[];
  recovery?: PoolRecovery;
  journal?: JournalStats;
}

export interface ScanOptions {
  /** Lower bound (undefined: from the first key). */
  start?: Buffer | undefined;
  startInclusive?: boolean;
  /** Upper bound (undefined: to the last key). */
  end?: Buffer | undefined;
  endInclusive?: boolean;
  reverse?: boolean;
  /** At most this many entries (undefined: all). */
  limit?: number;
}

export interface ScanResult {
  keys: Buffer[];
  /** For entries holding a child map, the value is undefined and `children[i]` is set. */
  values: (Buffer | undefined)[];
  children: MapHandle[];
}

/**
 * A batch of writes applied in ONE libpmemobj transaction (group commit): either all of it is
 * durable when apply() returns, or (crash / error) none of it is.
 */
export interface WriteBatch {
  put(map: MapHandle | ChildRef, key: Buffer, value: Buffer): this;
  /**
   * put() of a value of `length` bytes whose content comes later, in slices, through NativePool.fill: for
   * megabytes that nothing refers to until a later transaction (a twin segment's staged bytes), so that no single
   * step copies and persists them all. Until filled, the value's bytes are undefined.
   */
  reserve(map: MapHandle | ChildRef, key: Buffer, length: number): this;
  del(map: MapHandle | ChildRef, key: Buffer): this;
  /** Child map under `key`: the existing one, or a new empty one. Usable by later ops in the batch. */
  ensureChild(map: MapHandle | ChildRef, key: Buffer): ChildRef;
  /** Removes `key` and, when it holds a child map, frees that map recursively. */
  dropChild(map: MapHandle | ChildRef, key: Buffer): this;
  /** Empties a map (freeing children recursively); the map itself stays. */
  clear(map: MapHandle | ChildRef): this;
  /** Ops staged so far. */
  readonly size: number;
  /** Bytes staged so far (keys, values and op headers). */
  readonly byteLength: number;
}

/** Receives one value of NativePool.getManyEach; length -1 when the key is absent. */
export type ValueVisitor = (index: number, bytes: Buffer, offset: number, length: number) => void;

/** A map created (or found) by an earlier op of the same batch; resolved at apply(). */
export interface ChildRef {
  readonly batchIndex: number;
}

export interface NativePool {
  readonly info: PoolInfo;
  /** The pool's root map (created with the pool). */
  readonly root: MapHandle;
  get(map: MapHandle, key: Buffer): Buffer | undefined;
  /**
   * get() of many keys in one call: out[i] for keys[i]. The tree descents of a group of keys are interleaved,
   * so their cache misses overlap (about twice get()'s rate over keys spread across a large map).
   */
  getMany(map: MapHandle, keys: readonly Buffer[]): (Buffer | undefined)[];
  /**
   * getMany without a Buffer per value: visit(i, bytes, offset, length) for keys[i], in order, with the value at
   * bytes[offset, offset + length) (length -1 when absent or a child map). `bytes` is reused by the next call:
   * read the value inside visit, do not keep `bytes`. About 1.5x getMany's rate when values are decoded in place.
   */
  getManyEach(map: MapHandle, keys: readonly Buffer[], visit: ValueVisitor): void;
  /**
   * The value's bytes in the mapped pool itself (no copy), for large write-once values (Arrow segments).
   * Valid until the entry is replaced or deleted or the pool is closed: the caller must drop the view first
   * (reading it afterwards sees reused memory, or crashes once the pool is unmapped). Never write through it.
   */
  view(map: MapHandle, key: Buffer): Buffer | undefined;
  /**
   * Copies `bytes` into the value under `key` at `offset` and makes them durable before returning, logging no undo
   * copy (a crash keeps what was filled so far): only for values reserved by WriteBatch.reserve that nothing refers
   * to yet.
   */
  fill(map: MapHandle, key: Buffer, offset: number, bytes: Buffer): void;
  getChild(map: MapHandle, key: Buffer): MapHandle;
  scan(map: MapHandle, options?: ScanOptions): ScanResult;
  count(map: MapHandle): number;
  batch(): WriteBatch;
  /** Applies the batch; returns the handles of every ensureChild, in batch order. */
  apply(batch: WriteBatch): MapHandle[];
  /**
   * After apply() or fill(): 0 when that write may be acknowledged now, else a ticket for whenDurable (a disk pool
   * under commitlog_sync group or batch, or periodic with syncs lagging past lagBlockMs).
   */
  commitTicket(): number;
  /** Calls `done` once the journal is durable through `ticket`; with an error when a sync failed. */
  whenDurable(ticket: number, done: (err?: Error) => void): void;
  /**
   * Blocks this thread until the journal is durable through `ticket` (a sync starts at once, whatever the policy):
   * for tools and benchmarks that write synchronously, never for a server's event loop. Throws on a failed sync.
   */
  blockUntilDurable(ticket: number): void;
  /**
   * Starts a native thread that maps the pool's pages into the process ahead of the allocator (what is in use, a
   * quarter more and 64 MiB), so that the event loop takes fewer page faults; `idleThread`: under SCHED_IDLE. For
   * writing on pmem and emulated pools; for reading on a journaled disk pool (a page populated for writing would be
   * written back to disk unchanged). Whether it runs.
   */
  startPrefault(idleThread: boolean): boolean;
  /** Bytes from the start of the pool mapped by startPrefault so far; -1 when it does not run. */
  prefaulted(): number;
  close(): void;
}

/** Errors from the pool carry a stable `.code` (e.g. 'POOL_FULL', 'POOL_CORRUPT', 'NO_SUCH_MAP'). */
export class PoolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PoolError';
  }
}
