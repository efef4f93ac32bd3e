// What storage needs from the schema layer to build a table's Arrow twin: its columns (CQL types, ids, kinds)
// and how a non-frozen collection / UDT value read from the row store becomes the bytes CQL would return.
// Storage never parses CQL; the server plugs a source in (StorageEngine.setTwinSchemaSource).

import type { TwinColumn } from '../arrow/arrow-schema.js';
import type { ComplexValue } from '../row-projection.js';

export interface TwinSchema {
  /** The table's current columns (no static columns: such tables get no twin). */
  readonly columns: readonly TwinColumn[];
  /** Serialized whole value of a multi-cell column (what SELECT returns for it). */
  complexToBytes(columnId: number, value: ComplexValue): Buffer | null;
}

/** undefined: the table is not known yet (ask again later); null: this table gets no twin. */
export type TwinSchemaSource = (tableId: Buffer) => TwinSchema | null | undefined;

export interface TwinOptions {
  /** Flush when the buffer holds this many rows (changed since the last flush)... */
  readonly flushRows: number;
  /** ...or when about this many row bytes were written since the last flush. */
  readonly flushBytes: number;
  /**
   * Buffer rows read per flush slice (one slice a step, paced by the twin worker). 1024 rows take ~3 ms here: every
   * slice delays the requests queued behind it, so it bounds the twin's share of the latency tail (4096-row slices,
   * 11-16 ms, doubled an INSERT p99 at 20 000 requests/s; docs/benchmarks.md, hot path).
   */
  readonly sliceRows: number;
  /** Flush (and compact) in the background when thresholds pass; false: only on demand. */
  readonly autoFlush: boolean;
  /**
   * Assemble segments (read rows, build, serialize, key index, token filter) in the flush thread instead of the
   * event loop's paced steps (tables with multi-cell columns always assemble on the event loop).
   */
  readonly flushThread: boolean;
  /**
   * Run the flush thread under SCHED_IDLE (Linux: it takes only CPU time nothing else wants; see
   * server/background-threads.ts); false, or when that fails: at `flushThreadNice`.
   */
  readonly flushThreadIdle: boolean;
  /** The flush thread's nice value when it is not idle (Linux; 0: the server's priority). */
  readonly flushThreadNice: number;
}

export const DEFAULT_TWIN_OPTIONS: TwinOptions = {
  flushRows: 65_536,
  flushBytes: 64 * 1024 * 1024,
  sliceRows: 1024,
  autoFlush: true,
  flushThread: true,
  flushThreadIdle: true,
  flushThreadNice: 10,
};
