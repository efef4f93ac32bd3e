// Loads the native addon (native/) and gives it the NativePool face of ./native-pool.ts.
// Point reads get their value copied by the addon straight into a shared block (no native
// allocation per call); writes are serialized into one Buffer so a batch crosses into C++ once.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  ChildRef,
  CommitLogOptions,
  MapHandle,
  NativePool,
  PoolInfo,
  ScanOptions,
  ScanResult,
  ValueVisitor,
  WriteBatch,
} from './native-pool.js';
import { PoolError } from './native-pool.js';
import { SyncWaiters } from './sync-waiters.js';

/** Pool size used when a new pool file is created without one: 1 GiB (allocated up front by libpmemobj). */
export const DEFAULT_POOL_SIZE = 1024 * 1024 * 1024;

type RawInfo = PoolInfo & { root: number; layoutVersion: number };

/** The commit log settings the addon takes at open, where its sync thread reports, and where a long open does. */
interface RawCommitLog extends Partial<CommitLogOptions> {
  onSynced(lsn: number, error: string | undefined): void;
  onOpenProgress?: OpenProgress;
}

/** Told during long steps of an open (a rebuild copying the image, replaying the journal), about once a second. */
export type OpenProgress = (step: string, done: number, total: number) => void;

/** The addon's pool object; point reads are module functions taking its handle(). */
interface RawPool {
  handle(): RawHandle;
  setScratch(scratch: Buffer): void;
  scan(
    map: number,
    start: Buffer | null,
    end: Buffer | null,
    flags: number,
    limit: number,
    offset: number,
  ): number | Buffer;
  apply(batch: Buffer, length: number, ops: number): number[];
  commitTicket(): number;
  /** Whether the sync callback keeps the event loop alive (while writes wait for a sync). */
  holdLoop(on: boolean): void;
  blockUntilDurable(ticket: number): void;
  info(): RawInfo;
  /** Syncs a journaled pool's journal and unmaps the pool; the final sync's error, if it failed. */
  close(): string | undefined;
  startPrefault(idle: boolean): boolean;
  prefaulted(): number;
  setLayoutVersionForTest(version: number): void;
  objectCountsForTest(): Record<string, number>;
}

declare const rawHandle: unique symbol;
type RawHandle = { readonly [rawHandle]: true };

interface Addon {
  NativePool: new (path: string, size: number, scratch: Buffer, commitLog: RawCommitLog) => RawPool;
  get(pool: RawHandle, map: number, key: Buffer, offset: number): number | Buffer;
  getChild(pool: RawHandle, map: number, key: Buffer): number;
  count(pool: RawHandle, map: number): number;
  view(pool: RawHandle, map: number, key: Buffer): number | Buffer;
  fill(pool: RawHandle, map: number, key: Buffer, offset: number, bytes: Buffer): void;
  getMany(
    pool: RawHandle,
    map: number,
    keys: readonly Buffer[],
    from: number,
    count: number,
    out: Buffer,
    offset: number,
    lens: Int32Array,
  ): number;
  setErrorClass(ctor: typeof PoolError): void;
  enableJournaling(): boolean;
  kahanSumF64(values: Float64Array, out: Float64Array): void;
  filterCompareF64(values: Float64Array, words: number, op: number, constant: number, out: Int32Array): void;
  setThreadScheduling(tid: number, idle: boolean): number;
  populateLater(bytes: Buffer, idleThread: boolean): void;
  layoutVersion: number;
}

/** Column kernels in native/src (kahan-sum.cc, double-kernels.cc): see storage/arrow/column-kernels.ts. */
export type NativeKernels = Pick<Addon, 'kahanSumF64' | 'filterCompareF64'>;

const ADDON_FILE = 'native/build/Release/pmemcql_native.node';

// The addon sits at <repo>/native/build/...; this module runs from <repo>/storage (sources,
// tests) or <repo>/dist/storage (compiled). PMEMCQL_NATIVE_ADDON overrides both.
function addonPath(): string {
  const override = process.env.PMEMCQL_NATIVE_ADDON;
  if (override) return override;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    dir = dirname(dir);
    const candidate = resolve(dir, ADDON_FILE);
    if (existsSync(candidate)) return candidate;
  }
  throw new PoolError(
    'NO_ADDON',
    `native addon ${ADDON_FILE} is not built; run: npx node-gyp rebuild --directory native`,
  );
}

let addon: Addon | undefined;

function loadAddon(): Addon {
  if (!addon) {
    const loaded = createRequire(import.meta.url)(addonPath()) as Addon;
    loaded.setErrorClass(PoolError);
    // Before any pool opens: libpmemobj then treats mappings as persistent memory, and disk pools are journaled
    // (not when PMEM_IS_PMEM_FORCE=1 asks for emulated persistent memory).
    loaded.enableJournaling();
    addon = loaded;
  }
  return addon;
}

/**
 * Puts thread `tid` of this process under SCHED_IDLE (`idle`), or back under SCHED_OTHER (native/src/
 * thread-scheduling.cc); false if that failed (leaving SCHED_IDLE needs CAP_SYS_NICE).
 */
export function threadScheduling(tid: number, idle: boolean): boolean {
  try {
    const a = loadAddon();
    return typeof a.setThreadScheduling === 'function' && a.setThreadScheduling(tid, idle) === 0;
  } catch {
    return false;
  }
}

/**
 * Has a background thread fault in the memory under `bytes` (native/src/page-populator.cc), so that this thread's
 * first writes to it take no page faults; returns at once. `idleThread`: that thread under SCHED_IDLE (decided by
 * the first call). Nothing when the addon cannot be loaded.
 */
export function populateLater(bytes: Buffer, idleThread: boolean): void {
  try {
    const a = loadAddon();
    if (typeof a.populateLater === 'function') a.populateLater(bytes, idleThread);
  } catch {
    // no addon: the writes take the faults
  }
}

/** The native column kernels; undefined when the addon cannot be loaded (the JS kernels then run). */
export function nativeKernels(): NativeKernels | undefined {
  try {
    const a = loadAddon();
    return typeof a.filterCompareF64 === 'function' ? a : undefined;
  } catch {
    return undefined;
  }
}

/** Layout version this build reads and writes (native/LAYOUT.md). */
export function nativeLayoutVersion(): number {
  return loadAddon().layoutVersion;
}

const OP_PUT = 1;
const OP_DEL = 2;
const OP_ENSURE_CHILD = 3;
const OP_DROP_CHILD = 4;
const OP_CLEAR = 5;
const OP_RESERVE = 6;
// get() results are slices of a shared block the addon copies values into, like Buffer's own
// allocUnsafe pool: one small object per result and no second copy. A retained result keeps its
// block alive, hence small blocks; values over a quarter block come back as their own Buffer.
const VALUE_BLOCK_BYTES = 16 * 1024;
// Keys per getMany() call into the addon: enough groups of interleaved descents to pay for the call.
const GET_MANY_CHUNK = 256;

class BatchChildRef implements ChildRef {
  constructor(
    readonly batchIndex: number,
    readonly batch: NativeWriteBatch,
  ) {}
}

/** Serializes ops in the wire format of native/src/write-batch.h. */
export class NativeWriteBatch implements WriteBatch {
  // Small first: a one-row batch is common, and Buffer's pool serves sizes under 4 KiB.
  buf: Buffer = Buffer.allocUnsafe(2048);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  length = 0;
  private ops = 0;

  get size(): number {
    return this.ops;
  }

  get byteLength(): number {
    return this.length;
  }

  put(map: MapHandle | ChildRef, key: Buffer, value: Buffer): this {
    this.head(OP_PUT, map, 18 + key.length + value.length);
    this.bytes(key);
    this.bytes(value);
    return this;
  }

  reserve(map: MapHandle | ChildRef, key: Buffer, length: number): this {
    if (!Number.isInteger(length) || length < 0 || length > 0xffffffff) {
      throw new PoolError('BAD_BATCH', `reserve: bad value length ${length}`);
    }
    this.head(OP_RESERVE, map, 18 + key.length);
    this.bytes(key);
    this.view.setUint32(this.length, length, true);
    this.length += 4;
    return this;
  }

  del(map: MapHandle | ChildRef, key: Buffer): this {
    this.head(OP_DEL, map, 14 + key.length);
    this.bytes(key);
    return this;
  }

  ensureChild(map: MapHandle | ChildRef, key: Buffer): ChildRef {
    const ref = new BatchChildRef(this.ops, this);
    this.head(OP_ENSURE_CHILD, map, 14 + key.length);
    this.bytes(key);
    return ref;
  }

  dropChild(map: MapHandle | ChildRef, key: Buffer): this {
    this.head(OP_DROP_CHILD, map, 14 + key.length);
    this.bytes(key);
    return this;
  }

  clear(map: MapHandle | ChildRef): this {
    this.head(OP_CLEAR, map, 10);
    return this;
  }

  private head(op: number, map: MapHandle | ChildRef, bytes: number): void {
    if (this.length + bytes > this.buf.length) this.grow(bytes);
    const o = this.length;
    this.buf[o] = op;
    if (typeof map === 'number') {
      this.buf[o + 1] = 0;
      this.view.setFloat64(o + 2, map, true);
    } else {
      if (!(map instanceof BatchChildRef) || map.batch !== this) {
        throw new PoolError('BAD_BATCH', 'a ChildRef can only be used in the batch that created it');
      }
      this.buf[o + 1] = 1;
      this.view.setFloat64(o + 2, map.batchIndex, true);
    }
    this.length = o + 10;
    this.ops++;
  }

  private bytes(x: Buffer): void {
    const b = this.buf;
    const o = this.length;
    const n = x.length;
    this.view.setUint32(o, n, true);
    // TypedArray.set costs a builtin call; typical keys are shorter than that is worth.
    if (n <= 32) for (let i = 0; i < n; i++) b[o + 4 + i] = x[i]!;
    else b.set(x, o + 4);
    this.length = o + 4 + n;
  }

  private grow(bytes: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + bytes));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.length);
  }
}

class Pool implements NativePool {
  readonly root: MapHandle;
  private readonly addon: Addon;
  private readonly raw: RawPool;
  private readonly handle: RawHandle;
  private block: Buffer;
  private blockUsed = 0;
  private readonly manyLens = new Int32Array(GET_MANY_CHUNK);
  // getManyEach's values: reused by every call (visitors read them in place, never keep them).
  private readonly visitBlock = Buffer.allocUnsafeSlow(64 * 1024);

  private closed = false;

  constructor(
    addon: Addon,
    raw: RawPool,
    block: Buffer,
    private readonly waiters: SyncWaiters,
  ) {
    this.addon = addon;
    this.raw = raw;
    this.handle = raw.handle();
    this.block = block;
    this.root = raw.info().root;
  }

  get info(): PoolInfo {
    const { root: _root, layoutVersion: _version, ...info } = this.raw.info();
    return info;
  }

  get(map: MapHandle, key: Buffer): Buffer | undefined {
    let r = this.addon.get(this.handle, map, key, this.blockUsed);
    if (typeof r !== 'number') return r;
    if (r < 0) return undefined;
    if (this.blockUsed + r > VALUE_BLOCK_BYTES) {
      // It did not fit (so was not copied): start a new block and read again.
      this.newBlock();
      r = this.addon.get(this.handle, map, key, 0) as number;
    }
    const at = this.blockUsed;
    this.blockUsed = (at + r + 7) & ~7;
    return this.block.subarray(at, at + r);
  }

  getMany(map: MapHandle, keys: readonly Buffer[]): (Buffer | undefined)[] {
    const out: (Buffer | undefined)[] = new Array(keys.length);
    const lens = this.manyLens;
    for (let from = 0; from < keys.length; ) {
      const n = Math.min(GET_MANY_CHUNK, keys.length - from);
      const done = this.addon.getMany(this.handle, map, keys, from, n, this.block, this.blockUsed, lens);
      let at = this.blockUsed;
      for (let i = 0; i < done; i++) {
        const len = lens[i]!;
        if (len >= 0) {
          out[from + i] = this.block.subarray(at, at + len);
          at = (at + len + 7) & ~7;
        } else {
          out[from + i] = len === -3 ? this.get(map, keys[from + i]!) : undefined;
        }
      }
      this.blockUsed = at;
      // Fewer answered than asked: the block is full; the rest go to a fresh one.
      if (done < n) this.newBlock();
      from += done;
    }
    return out;
  }

  getManyEach(map: MapHandle, keys: readonly Buffer[], visit: ValueVisitor): void {
    const lens = this.manyLens;
    const bytes = this.visitBlock;
    for (let from = 0; from < keys.length; ) {
      const done = this.addon.getMany(
        this.handle,
        map,
        keys,
        from,
        Math.min(GET_MANY_CHUNK, keys.length - from),
        bytes,
        0,
        lens,
      );
      let at = 0;
      for (let i = 0; i < done; i++) {
        const len = lens[i]!;
        if (len >= 0) {
          visit(from + i, bytes, at, len);
          at = (at + len + 7) & ~7;
        } else if (len === -3) {
          const v = this.get(map, keys[from + i]!)!;
          visit(from + i, v, 0, v.length);
        } else {
          visit(from + i, bytes, 0, -1);
        }
      }
      from += done;
    }
  }

  view(map: MapHandle, key: Buffer): Buffer | undefined {
    const r = this.addon.view(this.handle, map, key);
    return typeof r === 'number' ? undefined : r;
  }

  fill(map: MapHandle, key: Buffer, offset: number, bytes: Buffer): void {
    this.addon.fill(this.handle, map, key, offset, bytes);
  }

  private newBlock(): void {
    this.block = Buffer.allocUnsafeSlow(VALUE_BLOCK_BYTES);
    this.blockUsed = 0;
    this.raw.setScratch(this.block);
  }

  getChild(map: MapHandle, key: Buffer): MapHandle {
    return this.addon.getChild(this.handle, map, key);
  }

  scan(map: MapHandle, options: ScanOptions = {}): ScanResult {
    const flags =
      (options.startInclusive === false ? 0 : 1) | (options.endInclusive === false ? 0 : 2) | (options.reverse ? 4 : 0);
    const at = this.blockUsed;
    const r = this.raw.scan(map, options.start ?? null, options.end ?? null, flags, options.limit ?? -1, at);
    let ab: ArrayBufferLike;
    let base: number;
    let length: number;
    if (typeof r === 'number') {
      // Packed into the value block at `at`; keys and values become views of it.
      ab = this.block.buffer;
      base = this.block.byteOffset + at;
      length = r;
      this.blockUsed = (at + r + 7) & ~7;
    } else {
      ab = r.buffer;
      base = r.byteOffset;
      length = r.length;
      // The block was too full for this result; start a fresh one for the next read.
      if (r.length <= VALUE_BLOCK_BYTES / 4) this.newBlock();
    }
    const keys: Buffer[] = [];
    const values: (Buffer | undefined)[] = [];
    const children: MapHandle[] = [];
    const dv = new DataView(ab, base, length);
    let o = 0;
    while (o < length) {
      const klen = dv.getUint32(o, true);
      const vlen = dv.getUint32(o + 4, true);
      children.push(dv.getFloat64(o + 8, true));
      o += 16;
      keys.push(Buffer.from(ab, base + o, klen));
      o += klen;
      if (vlen === 0xffffffff) {
        values.push(undefined);
      } else {
        values.push(Buffer.from(ab, base + o, vlen));
        o += vlen;
      }
    }
    return { keys, values, children };
  }

  count(map: MapHandle): number {
    return this.addon.count(this.handle, map);
  }

  batch(): WriteBatch {
    return new NativeWriteBatch();
  }

  apply(batch: WriteBatch): MapHandle[] {
    if (!(batch instanceof NativeWriteBatch)) throw new PoolError('BAD_BATCH', 'batch was not made by pool.batch()');
    if (batch.size === 0) return [];
    return this.raw.apply(batch.buf, batch.length, batch.size);
  }

  commitTicket(): number {
    return this.raw.commitTicket();
  }

  blockUntilDurable(ticket: number): void {
    if (ticket > 0 && !this.closed) this.raw.blockUntilDurable(ticket);
  }

  whenDurable(ticket: number, done: (err?: Error) => void): void {
    if (this.closed) done();
    else this.waiters.add(ticket, done);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const error = this.raw.close();
    this.waiters.releaseAll(
      error === undefined ? undefined : new PoolError('POOL_IO', `${error}; the last writes may not be durable`),
    );
  }

  startPrefault(idleThread: boolean): boolean {
    return this.raw.startPrefault(idleThread);
  }

  prefaulted(): number {
    return this.raw.prefaulted();
  }

  /** How this pool makes commits durable ('flush' on pmem and in emulated mode). */
  get sync(): PoolInfo['sync'] {
    return this.raw.info().sync;
  }

  /** Test hook: stamps another layout version into the pool root. */
  setLayoutVersionForTest(version: number): void {
    this.raw.setLayoutVersionForTest(version);
  }

  /** Test hook: live objects per type number (native/LAYOUT.md), by a full heap walk. */
  objectCountsForTest(): Record<string, number> {
    return this.raw.objectCountsForTest();
  }
}

/** commitlog_sync's defaults, as in Cassandra: periodic, fdatasync every 10 s. */
export const DEFAULT_COMMIT_LOG: CommitLogOptions = {
  sync: 'periodic',
  periodMs: 10_000,
  groupWindowMs: 1,
  lagBlockMs: 15_000,
};

/**
 * Opens the pool file at `path`, creating it (`size` bytes, default 1 GiB, allocated up front) when absent. A pool
 * on a disk is journaled under `commitLog` (docs/storage-native.md, "Durability of disk pools"). Throws PoolError:
 * POOL_LAYOUT (another layout or version), POOL_BUSY (open elsewhere), POOL_OPEN, POOL_CORRUPT, POOL_IO, BAD_OPTION.
 */
export function openPool(options: {
  path: string;
  size?: number;
  commitLog?: Partial<CommitLogOptions>;
  onOpenProgress?: OpenProgress;
}): NativePool {
  if (process.env.PMEMCQL_DISK_SYNC !== undefined) {
    throw new PoolError(
      'BAD_OPTION',
      'PMEMCQL_DISK_SYNC was replaced by commitlog_sync (PMEMCQL_COMMITLOG_SYNC): periodic, group or batch',
    );
  }
  const a = loadAddon();
  const block = Buffer.allocUnsafeSlow(VALUE_BLOCK_BYTES);
  const waiters = new SyncWaiters();
  const raw = new a.NativePool(options.path, options.size ?? DEFAULT_POOL_SIZE, block, {
    ...DEFAULT_COMMIT_LOG,
    ...options.commitLog,
    onSynced: (lsn, error) => waiters.synced(lsn, error),
    ...(options.onOpenProgress ? { onOpenProgress: options.onOpenProgress } : {}),
  });
  waiters.onWaiting = (waiting) => raw.holdLoop(waiting);
  return new Pool(a, raw, block, waiters);
}
