// The mutation model the executor hands to storage. Keys arrive already encoded (partition key bytes +
// token, byte-comparable clustering); values are the client's bytes and are never decoded here.
// Times follow Cassandra: timestamps in microseconds, ttl / local deletion times in seconds since the epoch.

import type { Timestamp } from './timestamp.js';

/** Cassandra's Cell.NO_DELETION_TIME: a live, non-expiring cell. */
export const NO_DELETION_TIME = 0x7fffffff;
/** ttl of a non-expiring cell / liveness info. */
export const NO_TTL = 0;

/**
 * A deletion: everything with timestamp <= `ts` is shadowed. `ldt` (local deletion time, seconds) is when
 * it was issued; it becomes purgeable once ldt < now - gc_grace_seconds.
 */
export interface DeletionTime {
  readonly ts: Timestamp;
  readonly ldt: number;
}

/**
 * Row liveness (the primary key liveness of an INSERT; UPDATE does not set it).
 * Non-expiring: ttl = 0, expiry = NO_DELETION_TIME. Expiring: ttl > 0, expiry = write time + ttl (seconds).
 */
export interface LivenessInfo {
  readonly ts: Timestamp;
  readonly ttl: number;
  readonly expiry: number;
}

/**
 * One cell. Live regular cell: value set, ttl 0, ldt NO_DELETION_TIME. Expiring cell: value set, ttl > 0,
 * ldt = expiry time. Tombstone: value null, ttl 0, ldt = deletion time. (Cassandra's own encoding.)
 */
export interface Cell {
  readonly column: number;
  /** Element path of a complex (non-frozen collection / UDT) column; undefined for a simple column. */
  readonly path?: Buffer | undefined;
  readonly ts: Timestamp;
  readonly ttl: number;
  readonly ldt: number;
  readonly value: Buffer | null;
}

/** `c = {...}` / `DELETE c`: every element of complex column `column` with timestamp <= deletion.ts dies. */
export interface ComplexDeletion {
  readonly column: number;
  readonly deletion: DeletionTime;
}

/** One row's update (also used for the static row, with an empty clustering). */
export interface RowUpdate {
  /** Byte-comparable clustering (memcmp order = CQL order, DESC inverted); empty for the static row. */
  readonly clustering: Buffer;
  /** The raw clustering values, returned by reads (stored once per row). */
  readonly clusteringValues?: readonly Buffer[] | undefined;
  readonly liveness?: LivenessInfo | undefined;
  readonly deletion?: DeletionTime | undefined;
  /** Simple cells and complex cells (with path). Several cells of one column/path merge by reconciliation. */
  readonly cells?: readonly Cell[] | undefined;
  readonly complexDeletions?: readonly ComplexDeletion[] | undefined;
}

/**
 * A clustering bound: a byte-comparable clustering *prefix*. A row matches an inclusive start when its key's
 * first `prefix.length` bytes are >= prefix, an exclusive start when they are > prefix (and mirrored for
 * ends). An empty prefix is unbounded. Component encodings must be prefix-free, so a prefix of whole
 * components selects exactly the rows starting with those components (Cassandra's ClusteringBound).
 */
export interface ClusteringBound {
  readonly prefix: Buffer;
  readonly inclusive: boolean;
}

export interface RangeTombstone {
  readonly start: ClusteringBound;
  readonly end: ClusteringBound;
  readonly deletion: DeletionTime;
}

/** Every change to one partition of one table. */
export interface PartitionUpdate {
  /** Cassandra's serialized partition key (single component: the value; composite: [len16 bytes 0]*). */
  readonly key: Buffer;
  /** Murmur3 token of `key`; hashed from the key when absent (cheaper: no bigint is built). */
  readonly token?: bigint | undefined;
  readonly deletion?: DeletionTime | undefined;
  readonly staticRow?: RowUpdate | undefined;
  readonly rows?: readonly RowUpdate[] | undefined;
  readonly rangeTombstones?: readonly RangeTombstone[] | undefined;
}

/** DeletionTime A supersedes B (Cassandra's DeletionTime.supersedes). */
export function deletionSupersedes(a: DeletionTime, b: DeletionTime): boolean {
  return a.ts > b.ts || (a.ts === b.ts && a.ldt > b.ldt);
}

/** The stronger of two optional deletions. */
export function maxDeletion(a: DeletionTime | undefined, b: DeletionTime | undefined): DeletionTime | undefined {
  if (!a) return b;
  if (!b) return a;
  return deletionSupersedes(b, a) ? b : a;
}

/** Convenience constructors (the executor may build the objects directly). */
export function liveCell(column: number, ts: Timestamp, value: Buffer, path?: Buffer): Cell {
  return { column, path, ts, ttl: NO_TTL, ldt: NO_DELETION_TIME, value };
}

export function expiringCell(
  column: number,
  ts: Timestamp,
  ttl: number,
  nowInSeconds: number,
  value: Buffer,
  path?: Buffer,
): Cell {
  return { column, path, ts, ttl, ldt: nowInSeconds + ttl, value };
}

export function tombstoneCell(column: number, ts: Timestamp, nowInSeconds: number, path?: Buffer): Cell {
  return { column, path, ts, ttl: NO_TTL, ldt: nowInSeconds, value: null };
}

export function rowLiveness(ts: Timestamp, ttl: number, nowInSeconds: number): LivenessInfo {
  return ttl > 0 ? { ts, ttl, expiry: nowInSeconds + ttl } : { ts, ttl: NO_TTL, expiry: NO_DELETION_TIME };
}
