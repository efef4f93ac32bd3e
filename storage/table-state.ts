// What the writer and the reader of one table share: its pool, its maps and its options.

import { inSlice } from './clustering-bounds.js';
import type { DeletionTime } from './mutation.js';
import { maxDeletion } from './mutation.js';
import type { MapHandle, NativePool } from './native-pool.js';
import type { PartitionHeader } from './row-codec.js';

export const DEFAULT_GC_GRACE_SECONDS = 864_000;

export interface TableState {
  readonly id: Buffer;
  readonly pool: NativePool;
  readonly rootHandle: MapHandle;
  readonly partitionsHandle: MapHandle;
  /** The table has clustering columns: partitions are child maps of rows; otherwise one value each. */
  readonly clustered: boolean;
  gcGraceSeconds: number;
  dropped: boolean;
}

/** The deletion a row at `clustering` is under: the partition deletion and every range tombstone covering it. */
export function shadowFor(header: PartitionHeader, clustering: Buffer): DeletionTime | undefined {
  let d = header.deletion;
  const rts = header.rangeTombstones;
  for (let i = 0; i < rts.length; i++) {
    const rt = rts[i]!;
    if (inSlice(clustering, rt.start, rt.end)) d = maxDeletion(d, rt.deletion);
  }
  return d;
}
