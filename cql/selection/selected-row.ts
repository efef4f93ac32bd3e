// One row as the selection sees it: values by column index of the table (TableMetadata.columns),
// plus cell timestamps/TTLs when writetime()/ttl() are selected.

import type { ComplexValue } from '../../storage/row-projection.js';
import type { Timestamp } from '../../storage/timestamp.js';
import type { BoundValue } from '../query-handler.js';

export interface SelectedRow {
  readonly values: readonly (Buffer | null)[];
  /** The statement's bound values, for bind markers in selectors (`similarity_cosine(v, ?)`). */
  readonly params?: readonly BoundValue[];
  /** Microsecond write timestamp of a simple cell, or null (by column index). */
  writetime?(columnIndex: number): Timestamp | null;
  /** Remaining TTL seconds of a cell, or null when it does not expire. */
  ttl?(columnIndex: number): number | null;
  /** A non-frozen collection / UDT column's cells with their timestamps and TTLs, or null (by column index). */
  cells?(columnIndex: number): ComplexValue | null;
}
