// The encoded column specs of a result (global table spec or per-column names, then each column's name and type
// option), kept per frozen columns array and protocol version. Why: a prepared point read answers with the same
// columns every time, and writing their strings and types again was ~8 % of a SELECT's server CPU. Only frozen
// arrays are cached — a statement freezes the array it returns for its whole life (Selection.specs); one-off
// arrays of other results are encoded as before and never enter the cache.

import type { ColumnSpec } from '../cql/query-handler.js';
import { ByteWriter } from './byte-writer.js';

export interface EncodedColumnSpecs {
  /** All columns belong to one table: the GLOBAL_TABLES_SPEC flag is set and the names are written once. */
  readonly global: boolean;
  readonly bytes: Buffer;
}

/** Versions 3, 4, 5 at indices 0, 1, 2 (the type options differ between versions). */
const cache = new WeakMap<readonly ColumnSpec[], (EncodedColumnSpecs | undefined)[]>();

export function cachedColumnSpecs(
  columns: readonly ColumnSpec[],
  version: number,
  encode: (w: ByteWriter, global: boolean) => void,
  global: () => boolean,
): EncodedColumnSpecs | undefined {
  if (!Object.isFrozen(columns)) return undefined;
  let byVersion = cache.get(columns);
  if (byVersion === undefined) {
    byVersion = [];
    cache.set(columns, byVersion);
  }
  let entry = byVersion[version - 3];
  if (entry === undefined) {
    const w = new ByteWriter(256);
    const g = global();
    encode(w, g);
    entry = { global: g, bytes: Buffer.from(w.take()) };
    byVersion[version - 3] = entry;
  }
  return entry;
}
