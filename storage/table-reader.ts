// Reads of one table from committed data: a partition's clustering slice (forward or reversed, with a row
// limit) and token-range scans with a paging position. Only live rows come back, as of `nowInSeconds`.

import { prefixSuccessor, sliceToKeyRange } from './clustering-bounds.js';
import type { ClusteringBound } from './mutation.js';
import type { MapHandle } from './native-pool.js';
import type { PartitionHeader } from './row-codec.js';
import { decodeHeader, EMPTY_HEADER, singleRowShadow } from './row-codec.js';
import type { ReadRow } from './row-projection.js';
import { Projection, shadowTsOf } from './row-projection.js';
import { HEADER_KEY, keyOfMapKey, partitionMapKey, ROW_TAG, STATIC_KEY, tokenOfMapKey } from './table-layout.js';
import type { TableState } from './table-state.js';
import { shadowFor } from './table-state.js';

export interface ReadOptions {
  /** Column ids to return (values come back in this order), or a Projection compiled once per statement. */
  readonly columns: readonly number[] | Projection;
  readonly nowInSeconds: number;
  /** Clustering slice (prefix bounds over the byte-comparable clustering); undefined = unbounded. */
  readonly start?: ClusteringBound | undefined;
  readonly end?: ClusteringBound | undefined;
  readonly reversed?: boolean | undefined;
  /** At most this many live rows. */
  readonly limit?: number | undefined;
  /** Also return the static row (tables with static columns). */
  readonly includeStatic?: boolean | undefined;
  /** writetime()/ttl() values, only when the query asks for them. */
  readonly withMetadata?: boolean | undefined;
}

export interface PartitionRead {
  readonly key: Buffer;
  readonly token: bigint;
  /** The live static row, when asked for and present. */
  readonly staticRow: ReadRow | undefined;
  readonly rows: ReadRow[];
}

/** Where a range scan stopped: after this partition's `clustering` row (undefined: after the whole partition). */
export interface PagingPosition {
  readonly token: bigint;
  readonly key: Buffer;
  readonly clustering?: Buffer | undefined;
  /** Rows already returned from this partition (for perPartitionLimit across pages). */
  readonly rowsInPartition?: number | undefined;
}

export interface TokenBound {
  readonly token: bigint;
  readonly inclusive: boolean;
}

export interface RangeScanOptions extends Omit<ReadOptions, 'reversed'> {
  /** Token range; undefined ends are unbounded. Cassandra's `token(k) > a AND token(k) <= b` is (a excl, b incl). */
  readonly startToken?: TokenBound | undefined;
  readonly endToken?: TokenBound | undefined;
  /** Resume after this position (from a previous page's `next`). */
  readonly after?: PagingPosition | undefined;
  /** At most this many rows in all (a partition with only a live static row counts as one). */
  readonly limit?: number | undefined;
  readonly perPartitionLimit?: number | undefined;
  /** At most this many partitions. */
  readonly partitionLimit?: number | undefined;
}

export interface RangeScanResult {
  readonly partitions: PartitionRead[];
  /** Set when a limit stopped the scan: pass it back as `after` for the next page. */
  readonly next: PagingPosition | undefined;
}

const NO_CLUSTERING = Buffer.alloc(0);
const PARTITION_CHUNK = 256;

export class TableReader {
  constructor(private readonly t: TableState) {}

  readPartition(key: Buffer, token: bigint | undefined, o: ReadOptions): PartitionRead | undefined {
    const mapKey = partitionMapKey(key, token);
    const proj = projectionOf(o);
    const tok = token ?? tokenOfMapKey(mapKey);
    if (!this.t.clustered) {
      const v = this.t.pool.get(this.t.partitionsHandle, mapKey);
      return v && o.limit !== 0 ? this.readSingle(key, tok, v, proj, o) : undefined;
    }
    const h = this.t.pool.getChild(this.t.partitionsHandle, mapKey);
    if (h === 0) return undefined;
    return this.readClustered(h, key, tok, proj, o, o.start, o.limit, true);
  }

  scanRange(o: RangeScanOptions): RangeScanResult {
    const proj = projectionOf(o);
    const partitions: PartitionRead[] = [];
    const limit = o.limit ?? Number.POSITIVE_INFINITY;
    const perPartition = o.perPartitionLimit ?? Number.POSITIVE_INFINITY;
    const partitionLimit = o.partitionLimit ?? Number.POSITIVE_INFINITY;
    let count = 0;

    let lo: Buffer | undefined;
    let loInclusive = true;
    let hi: Buffer | undefined;
    if (o.startToken) {
      const t = tokenBytes(o.startToken.token);
      if (o.startToken.inclusive) lo = t;
      else {
        lo = prefixSuccessor(t);
        if (!lo) return { partitions, next: undefined };
      }
    }
    if (o.endToken) {
      const t = tokenBytes(o.endToken.token);
      hi = o.endToken.inclusive ? prefixSuccessor(t) : t;
    }
    const inRange = (k: Buffer) =>
      (!lo || Buffer.compare(k, lo) >= (loInclusive ? 0 : 1)) && (!hi || Buffer.compare(k, hi) < 0);

    if (o.after) {
      const ak = partitionMapKey(o.after.key, o.after.token);
      const done = o.after.rowsInPartition ?? 0;
      // Finish the partition the previous page stopped in.
      if (o.after.clustering !== undefined && this.t.clustered && inRange(ak) && done < perPartition) {
        const h = this.t.pool.getChild(this.t.partitionsHandle, ak);
        if (h !== 0) {
          const want = Math.min(limit, perPartition - done);
          const from: ClusteringBound = { prefix: o.after.clustering, inclusive: false };
          const pr = this.readClustered(h, o.after.key, o.after.token, proj, o, from, want, false);
          if (pr && pr.rows.length > 0) {
            partitions.push(pr);
            count += pr.rows.length;
            if (count >= limit || partitions.length >= partitionLimit) {
              const n = done + pr.rows.length;
              return { partitions, next: position(ak, pr, n, n >= perPartition) };
            }
          }
        }
      }
      if (!lo || Buffer.compare(ak, lo) >= 0) {
        lo = ak;
        loInclusive = false;
      }
    }

    for (;;) {
      const remaining = Math.min(limit - count, partitionLimit - partitions.length);
      const chunk = Math.min(PARTITION_CHUNK, Math.max(16, remaining + 1));
      const res = this.t.pool.scan(this.t.partitionsHandle, {
        start: lo,
        startInclusive: loInclusive,
        end: hi,
        endInclusive: false,
        limit: chunk,
      });
      const n = res.keys.length;
      for (let i = 0; i < n; i++) {
        const mapKey = res.keys[i]!;
        const key = keyOfMapKey(mapKey);
        const token = tokenOfMapKey(mapKey);
        let pr: PartitionRead | undefined;
        if (this.t.clustered) {
          const want = Math.min(limit - count, perPartition);
          pr = this.readClustered(res.children[i]!, key, token, proj, o, o.start, want, true);
        } else {
          pr = this.readSingle(key, token, res.values[i]!, proj, o);
        }
        if (!pr) continue;
        const counted = pr.rows.length > 0 ? pr.rows.length : pr.staticRow ? 1 : 0;
        if (counted === 0) continue;
        partitions.push(pr);
        count += counted;
        if (count >= limit || partitions.length >= partitionLimit) {
          const finished = !this.t.clustered || pr.rows.length === 0 || pr.rows.length >= perPartition;
          return { partitions, next: position(mapKey, pr, pr.rows.length, finished) };
        }
      }
      if (n < chunk) return { partitions, next: undefined };
      lo = res.keys[n - 1]!;
      loInclusive = false;
    }
  }

  private readSingle(key: Buffer, token: bigint, v: Buffer, proj: Projection, o: ReadOptions) {
    const { shadowTs, rowAt } = singleRowShadow(v);
    if (rowAt >= v.length) return undefined;
    const row = proj.project(v, rowAt, NO_CLUSTERING, shadowTs, o.nowInSeconds);
    if (!row) return undefined;
    return { key, token, staticRow: undefined, rows: [row] };
  }

  /** A clustered partition's live static row and rows from `start` (the slice's or a paging bound). */
  private readClustered(
    h: MapHandle,
    key: Buffer,
    token: bigint,
    proj: Projection,
    o: ReadOptions,
    start: ClusteringBound | undefined,
    limit: number | undefined,
    emptyIsUndefined: boolean,
  ): PartitionRead | undefined {
    const pool = this.t.pool;
    const now = o.nowInSeconds;
    let header: PartitionHeader = EMPTY_HEADER;
    let staticRow: ReadRow | undefined;
    if (o.includeStatic) {
      // Header and static row are adjacent: one native call for both.
      const r = pool.scan(h, { start: HEADER_KEY, end: STATIC_KEY, endInclusive: true });
      let staticBuf: Buffer | undefined;
      for (let i = 0; i < r.keys.length; i++) {
        if (r.keys[i]![0] === HEADER_KEY[0]) header = decodeHeader(r.values[i]!);
        else staticBuf = r.values[i];
      }
      if (staticBuf) staticRow = proj.project(staticBuf, 0, NO_CLUSTERING, shadowTsOf(header.deletion), now);
    } else {
      const v = pool.get(h, HEADER_KEY);
      if (v) header = decodeHeader(v);
    }

    const rows: ReadRow[] = [];
    const range = sliceToKeyRange(ROW_TAG, start, o.end);
    const max = limit ?? Number.POSITIVE_INFINITY;
    const limited = Number.isFinite(max);
    if (!range.empty && max > 0) {
      const reverse = o.reversed === true;
      let lo = range.start;
      let loInclusive = true;
      let hi = range.end;
      let hiInclusive = false;
      const simpleShadow = header.rangeTombstones.length === 0;
      const partitionShadow = shadowTsOf(header.deletion);
      for (;;) {
        const want = limited ? max - rows.length : undefined;
        const res = pool.scan(h, {
          start: lo,
          startInclusive: loInclusive,
          end: hi,
          endInclusive: hiInclusive,
          reverse,
          limit: want,
        });
        const n = res.keys.length;
        for (let i = 0; i < n && rows.length < max; i++) {
          const clustering = res.keys[i]!.subarray(1);
          const shadow = simpleShadow ? partitionShadow : shadowTsOf(shadowFor(header, clustering));
          const row = proj.project(res.values[i]!, 0, clustering, shadow, now);
          if (row) rows.push(row);
        }
        if (want === undefined || n < want || rows.length >= max) break;
        // Some rows were dead: continue after the last key seen.
        if (reverse) {
          hi = res.keys[n - 1]!;
          hiInclusive = false;
        } else {
          lo = res.keys[n - 1]!;
          loInclusive = false;
        }
      }
    }
    if (emptyIsUndefined && rows.length === 0 && !staticRow) return undefined;
    return { key, token, staticRow, rows };
  }
}

function projectionOf(o: ReadOptions): Projection {
  return o.columns instanceof Projection ? o.columns : new Projection(o.columns, o.withMetadata === true);
}

function tokenBytes(token: bigint): Buffer {
  return partitionMapKey(NO_CLUSTERING, token);
}

function position(mapKey: Buffer, pr: PartitionRead, rowsInPartition: number, finished: boolean): PagingPosition {
  const last = pr.rows[pr.rows.length - 1];
  return {
    token: pr.token,
    key: keyOfMapKey(mapKey),
    clustering: finished || !last ? undefined : last.clustering,
    rowsInPartition,
  };
}
