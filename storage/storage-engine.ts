// The storage engine: opens the pool, keeps the table directory (table id -> TableRoot) and the schema
// catalog in the pool's root map, and owns the group commit every write goes through. Opening reads three
// root entries: O(1) in data size, no replay.

import type { CommitContext } from './commit-context.js';
import { GroupCommit } from './group-commit.js';
import type { PartitionUpdate } from './mutation.js';
import { type OpenProgress, openPool } from './native-binding.js';
import type { CommitLogOptions, MapHandle, NativePool, PoolInfo } from './native-pool.js';
import { PoolError } from './native-pool.js';
import {
  decodeTableMeta,
  encodeTableMeta,
  LAYOUT_VERSION,
  ROOT_CATALOG_KEY,
  ROOT_TABLES_KEY,
  ROOT_VERSION_KEY,
  TABLE_META_KEY,
  TABLE_PARTITIONS_KEY,
} from './table-layout.js';
import { DEFAULT_GC_GRACE_SECONDS } from './table-state.js';
import { TableStore } from './table-store.js';
import { migrateRowPointers } from './twin/pointer-migration.js';
import { TableTwin, TWIN_INCOMPLETE_KEY, type TwinHandles } from './twin/table-twin.js';
import type { FlushResult } from './twin/twin-flush.js';
import {
  TWIN_BUFFER_KEY,
  TWIN_DELETIONS_KEY,
  TWIN_INDEX_KEY,
  TWIN_POINTERS_KEY,
  TWIN_SEGMENTS_KEY,
} from './twin/twin-keys.js';
import { DEFAULT_TWIN_OPTIONS, type TwinOptions, type TwinSchemaSource } from './twin/twin-schema.js';
import { TwinWorker } from './twin/twin-worker.js';

/** The twin maps of a TableRoot, in TwinHandles order. */
const TWIN_KEYS = [TWIN_BUFFER_KEY, TWIN_INDEX_KEY, TWIN_SEGMENTS_KEY, TWIN_DELETIONS_KEY, TWIN_POINTERS_KEY];

export interface StorageEngineOptions {
  path: string;
  /** Pool size in bytes when the file is created (default: the binding's). */
  size?: number;
  /** When writes to a disk pool are durable (commitlog_sync; default periodic, 10 s). */
  commitLog?: Partial<CommitLogOptions>;
  /** Told during long steps of the open (rebuilding a disk pool's working copy). */
  onOpenProgress?: OpenProgress;
  /** Arrow twin flush thresholds and background work. */
  twin?: Partial<TwinOptions>;
}

export interface TableOptions {
  /** The table has clustering columns (its partitions hold many rows). */
  clustered: boolean;
  gcGraceSeconds?: number;
}

/** Mutations of one table, for StorageEngine.apply (several tables in one atomic op: logged batches). */
export interface TableMutation {
  table: TableStore;
  updates: readonly PartitionUpdate[];
  nowInSeconds: number;
}

export interface CatalogEntry {
  key: Buffer;
  value: Buffer;
}

export class StorageEngine {
  readonly commit: GroupCommit;
  private readonly catalog: MapHandle;
  private readonly tables: MapHandle;
  private readonly open = new Map<string, TableStore>();
  private gcTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private twinSchemas: TwinSchemaSource | undefined;
  readonly twinOptions: TwinOptions;
  /** Errors of background twin work (logged by whoever set onTwinError). */
  onTwinError: (table: Buffer, e: unknown) => void = () => {};
  /** Finished twin flushes (logged by whoever set onTwinFlushed). */
  onTwinFlushed: (table: Buffer, r: FlushResult) => void = () => {};

  static open(options: StorageEngineOptions): StorageEngine {
    return new StorageEngine(openPool(options), options.twin);
  }

  constructor(
    readonly pool: NativePool,
    twin?: Partial<TwinOptions>,
  ) {
    this.twinOptions = { ...DEFAULT_TWIN_OPTIONS, ...twin };
    const root = pool.root;
    const version = pool.get(root, ROOT_VERSION_KEY);
    if (version && version[0]! > LAYOUT_VERSION) {
      throw new PoolError('POOL_VERSION', `pool layout ${version[0]} is newer than this server (${LAYOUT_VERSION})`);
    }
    let catalog = pool.getChild(root, ROOT_CATALOG_KEY);
    let tables = pool.getChild(root, ROOT_TABLES_KEY);
    if (catalog === 0 || tables === 0) {
      const b = pool.batch();
      b.ensureChild(root, ROOT_CATALOG_KEY);
      b.ensureChild(root, ROOT_TABLES_KEY);
      b.put(root, ROOT_VERSION_KEY, Buffer.from([LAYOUT_VERSION]));
      [catalog, tables] = pool.apply(b) as [number, number];
    }
    this.catalog = catalog;
    this.tables = tables;
    this.commit = new GroupCommit(pool);
  }

  get info(): PoolInfo {
    return this.pool.info;
  }

  /**
   * Where the Arrow twins learn their tables' columns (the schema layer). Without a source, no table keeps a
   * twin (storage-only use).
   */
  setTwinSchemaSource(source: TwinSchemaSource | undefined): void {
    this.twinSchemas = source;
  }

  /** Open tables (those used since start-up), for system_arrow and admin commands. */
  openTables(): TableStore[] {
    return [...this.open.values()];
  }

  // ---- tables ---------------------------------------------------------------------------------

  /** The store of an existing table (undefined when there is none). Cheap after the first call. */
  table(id: Buffer, gcGraceSeconds?: number): TableStore | undefined {
    const k = id.toString('hex');
    const cached = this.open.get(k);
    if (cached) {
      if (gcGraceSeconds !== undefined) cached.gcGraceSeconds = gcGraceSeconds;
      return cached;
    }
    const root = this.pool.getChild(this.tables, id);
    if (root === 0) return undefined;
    const meta = this.pool.get(root, TABLE_META_KEY);
    const partitions = this.pool.getChild(root, TABLE_PARTITIONS_KEY);
    if (!meta || partitions === 0) throw new PoolError('POOL_CORRUPT', `table ${k} has no meta or partitions map`);
    return this.remember(id, root, partitions, this.twinHandles(root), decodeTableMeta(meta).clustered, gcGraceSeconds);
  }

  /**
   * The twin maps of a table root; a table made before twins existed gets them now (one small transaction), and a
   * twin written before key indexes has its row pointers converted.
   */
  private twinHandles(root: MapHandle): TwinHandles {
    let h = TWIN_KEYS.map((key) => this.pool.getChild(root, key));
    if (h.some((x) => x === 0)) {
      const b = this.pool.batch();
      for (const key of TWIN_KEYS) b.ensureChild(root, key);
      // A table with rows from before twins existed: its new, empty twin does not hold them.
      const partitions = this.pool.getChild(root, TABLE_PARTITIONS_KEY);
      if (partitions !== 0 && this.pool.count(partitions) > 0) b.put(root, TWIN_INCOMPLETE_KEY, Buffer.from([1]));
      h = this.pool.apply(b);
    }
    const handles = { buffer: h[0]!, index: h[1]!, segments: h[2]!, deletions: h[3]!, pointers: h[4]! };
    migrateRowPointers(this.pool, handles);
    return handles;
  }

  /** Creates the table's root (idempotent: an existing table is returned as it is). */
  createTable(id: Buffer, options: TableOptions): Promise<TableStore> {
    return new Promise((resolve, reject) => {
      let store: TableStore | undefined;
      this.commit.submit({
        stage: (ctx) => {
          const existing = this.table(id, options.gcGraceSeconds);
          if (existing) {
            if (existing.clustered !== options.clustered) {
              throw new Error(`table ${id.toString('hex')} exists with clustered = ${existing.clustered}`);
            }
            store = existing;
            return;
          }
          const root = ctx.ensureChild(this.tables, id);
          ctx.batch.put(root.ref, TABLE_META_KEY, encodeTableMeta(options.clustered));
          const partitions = ctx.ensureChild(root.ref, TABLE_PARTITIONS_KEY);
          const twin = TWIN_KEYS.map((key) => ctx.ensureChild(root.ref, key).ordinal);
          ctx.onCommit((handles) => {
            const t = twin.map((o) => handles[o]!);
            store =
              this.open.get(id.toString('hex')) ??
              this.remember(
                id,
                handles[root.ordinal]!,
                handles[partitions.ordinal]!,
                { buffer: t[0]!, index: t[1]!, segments: t[2]!, deletions: t[3]!, pointers: t[4]! },
                options.clustered,
                options.gcGraceSeconds,
              );
          });
        },
        done: (err) => (err ? reject(err) : resolve(store!)),
      });
    });
  }

  dropTable(id: Buffer): Promise<void> {
    return this.commit.run((ctx) => this.stageDropTable(ctx, id));
  }

  stageDropTable(ctx: CommitContext, id: Buffer): void {
    const store = this.table(id);
    if (!store) return;
    store.stageDropped(ctx);
    ctx.batch.dropChild(this.tables, id);
    ctx.onCommit(() => {
      store.markDropped();
      this.open.delete(id.toString('hex'));
    });
  }

  /** Ids of every table in the directory. */
  tableIds(): Buffer[] {
    return this.pool.scan(this.tables).keys;
  }

  private remember(
    id: Buffer,
    root: MapHandle,
    partitions: MapHandle,
    twinHandles: TwinHandles,
    clustered: boolean,
    gcGraceSeconds: number | undefined,
  ): TableStore {
    const state = {
      id: Buffer.from(id),
      pool: this.pool,
      rootHandle: root,
      partitionsHandle: partitions,
      clustered,
      gcGraceSeconds: gcGraceSeconds ?? DEFAULT_GC_GRACE_SECONDS,
      dropped: false,
    };
    const twin = new TableTwin(state, twinHandles, () => this.twinSchemas, this.twinOptions);
    const worker = new TwinWorker(
      twin,
      (e) => this.onTwinError(state.id, e),
      (r) => this.onTwinFlushed(state.id, r),
    );
    const store = new TableStore(state, this.commit, (t) => this.dropTable(t.id), twin, worker);
    this.open.set(id.toString('hex'), store);
    return store;
  }

  // ---- writes ---------------------------------------------------------------------------------

  /** Mutations of several tables as one atomic op in the current group commit. */
  apply(mutations: readonly TableMutation[]): Promise<void> {
    return this.commit.run((ctx) => this.stageMutations(ctx, mutations));
  }

  applyCallback(mutations: readonly TableMutation[], done: (err: Error | undefined) => void): void {
    this.commit.submit({ stage: (ctx) => this.stageMutations(ctx, mutations), done });
  }

  private stageMutations(ctx: CommitContext, mutations: readonly TableMutation[]): void {
    for (const m of mutations) m.table.stageMutations(ctx, m.updates, m.nowInSeconds);
  }

  /** Any staged work (schema + data, ...) as one atomic op of the current group commit. */
  run(stage: (ctx: CommitContext) => void): Promise<void> {
    return this.commit.run(stage);
  }

  // ---- catalog --------------------------------------------------------------------------------

  catalogGet(key: Buffer | string): Buffer | undefined {
    return this.pool.get(this.catalog, bytes(key));
  }

  /** Entries whose key starts with `prefix` (all when omitted), in key order. */
  catalogScan(prefix?: Buffer | string): CatalogEntry[] {
    const p = prefix === undefined ? undefined : bytes(prefix);
    const r = this.pool.scan(this.catalog, p && p.length > 0 ? { start: p } : {});
    const out: CatalogEntry[] = [];
    for (let i = 0; i < r.keys.length; i++) {
      const key = r.keys[i]!;
      if (p && (key.length < p.length || key.compare(p, 0, p.length, 0, p.length) !== 0)) break;
      out.push({ key, value: r.values[i]! });
    }
    return out;
  }

  catalogPut(key: Buffer | string, value: Buffer): Promise<void> {
    return this.commit.run((ctx) => this.stageCatalogPut(ctx, key, value));
  }

  catalogDelete(key: Buffer | string): Promise<void> {
    return this.commit.run((ctx) => this.stageCatalogDelete(ctx, key));
  }

  stageCatalogPut(ctx: CommitContext, key: Buffer | string, value: Buffer): void {
    ctx.batch.put(this.catalog, bytes(key), value);
  }

  stageCatalogDelete(ctx: CommitContext, key: Buffer | string): void {
    ctx.batch.del(this.catalog, bytes(key));
  }

  // ---- background GC and lifecycle ------------------------------------------------------------

  /** Every `intervalMs`, GC one slice (`slicePartitions`) of one table, round robin over open tables. */
  startGc(intervalMs = 1000, slicePartitions = 64): void {
    if (this.gcTimer) return;
    let turn = 0;
    this.gcTimer = setInterval(() => {
      const stores = [...this.open.values()];
      if (stores.length === 0) return;
      const store = stores[turn % stores.length]!;
      store.collectGarbage(slicePartitions, Math.floor(Date.now() / 1000)).then(
        (finished) => {
          if (finished) turn++;
        },
        () => {
          turn++;
        },
      );
    }, intervalMs);
    this.gcTimer.unref();
  }

  /** Maps the pool's pages ahead of its allocator (NativePool.startPrefault); whether that runs. */
  startPrefault(idleThread: boolean): boolean {
    return this.pool.startPrefault(idleThread);
  }

  stopGc(): void {
    if (this.gcTimer) clearInterval(this.gcTimer);
    this.gcTimer = undefined;
  }

  /** Commits what is pending, then closes the pool. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopGc();
    for (const t of this.open.values()) t.twinWorker?.stop();
    this.commit.close();
    this.pool.close();
  }
}

function bytes(key: Buffer | string): Buffer {
  return typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
}
