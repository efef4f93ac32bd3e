// Reads the committed row behind a twin key from the row store (a flush reads the rows it turns into a segment,
// the columnar executor reads buffer rows): the row's bytes plus the deletion covering it (partition deletion,
// range tombstones), so projections see exactly what the row path sees.

import type { MapHandle } from '../native-pool.js';
import type { PartitionHeader } from '../row-codec.js';
import { decodeHeader, EMPTY_HEADER, singleRowShadow } from '../row-codec.js';
import { NO_SHADOW, shadowTsOf } from '../row-projection.js';
import { HEADER_KEY } from '../table-layout.js';
import type { TableState } from '../table-state.js';
import { shadowFor } from '../table-state.js';
import type { Timestamp } from '../timestamp.js';
import { isBufferDeletion, isBufferMarker } from './twin-keys.js';

export interface StoredRowRef {
  readonly buf: Buffer;
  readonly offset: number;
  /** Byte-comparable clustering (empty without clustering columns). */
  readonly clustering: Buffer;
  readonly shadowTs: Timestamp;
}

/** Caches the last partition's map and header: buffer rows come in key order, so partitions repeat in runs. */
export class TwinRowSource {
  private lastKey: Buffer | undefined;
  private lastMap: MapHandle = 0;
  private lastHeader: PartitionHeader = EMPTY_HEADER;

  constructor(private readonly t: TableState) {}

  /**
   * The row behind a buffer entry: its value is the row as the row store held it when written (the writer puts
   * both in one transaction, so it is the committed row), or a marker saying "read the row store".
   */
  fromBuffer(mapKey: Buffer, rowKey: Buffer, value: Buffer): StoredRowRef | undefined {
    if (isBufferDeletion(value)) return undefined;
    if (isBufferMarker(value)) return this.read(mapKey, rowKey);
    if (!this.t.clustered) {
      const { shadowTs, rowAt } = singleRowShadow(value);
      return rowAt >= value.length ? undefined : { buf: value, offset: rowAt, clustering: EMPTY, shadowTs };
    }
    // Partition deletions and range tombstones live in the partition header; a write does not purge against it.
    this.partition(mapKey);
    const clustering = rowKey.subarray(1);
    const h = this.lastHeader;
    const shadowTs = h === EMPTY_HEADER ? NO_SHADOW : shadowTsOf(shadowFor(h, clustering));
    return { buf: value, offset: 0, clustering, shadowTs };
  }

  private partition(mapKey: Buffer): void {
    if (this.lastKey?.equals(mapKey)) return;
    const pool = this.t.pool;
    this.lastKey = mapKey;
    this.lastMap = pool.getChild(this.t.partitionsHandle, mapKey);
    const h = this.lastMap === 0 ? undefined : pool.get(this.lastMap, HEADER_KEY);
    this.lastHeader = h ? decodeHeader(h) : EMPTY_HEADER;
  }

  read(mapKey: Buffer, rowKey: Buffer): StoredRowRef | undefined {
    const pool = this.t.pool;
    if (!this.t.clustered) {
      const v = pool.get(this.t.partitionsHandle, mapKey);
      if (!v) return undefined;
      const { shadowTs, rowAt } = singleRowShadow(v);
      if (rowAt >= v.length) return undefined;
      return { buf: v, offset: rowAt, clustering: EMPTY, shadowTs };
    }
    this.partition(mapKey);
    if (this.lastMap === 0) return undefined;
    const v = pool.get(this.lastMap, rowKey);
    if (!v) return undefined;
    const clustering = rowKey.subarray(1);
    const h = this.lastHeader;
    const shadowTs = h === EMPTY_HEADER ? NO_SHADOW : shadowTsOf(shadowFor(h, clustering));
    return { buf: v, offset: 0, clustering, shadowTs };
  }
}

const EMPTY = Buffer.alloc(0);
