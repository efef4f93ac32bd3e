// The entries of a secondary index, kept in a hidden storage table with one partition per index. An entry's
// clustering is [byte-comparable indexed term | token | partition key | base clustering], so an EQ lookup and
// an SAI range are both one clustering slice. Entries are derived from the base write alone (no read before
// write): an overwritten value or a deleted row leaves a stale entry, which a query drops by re-reading the
// base row (`isCurrent`).

import { murmur3Token } from '../../storage/murmur3-token.js';
import type { Cell, LivenessInfo, PartitionUpdate, RowUpdate } from '../../storage/mutation.js';
import { NO_DELETION_TIME, NO_TTL } from '../../storage/mutation.js';
import { deserializePartitionKey } from '../../storage/partition-key.js';
import type { Timestamp } from '../../storage/timestamp.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { IndexMetadata } from '../schema/index-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { encodeKeyComponent } from '../types/byte-comparable.js';
import type { CqlType } from '../types/cql-type.js';
import { readCollectionElements, readMapEntries } from '../types/serialized-layout.js';

/** Every entry of an index lives in this one partition of the index's table. */
export const INDEX_PARTITION_KEY = Buffer.from('i', 'latin1');
export const INDEX_PARTITION_TOKEN = murmur3Token(INDEX_PARTITION_KEY);

/** An index prepared for one table version: the column, its position and how to turn values into terms. */
export class IndexTerms {
  readonly column: ColumnMetadata;
  readonly columnIndex: number;

  constructor(
    readonly table: TableMetadata,
    readonly index: IndexMetadata,
  ) {
    const i = table.columns.findIndex((c) => c.name === index.column);
    if (i < 0) throw new Error(`index ${index.name} on unknown column ${index.column}`);
    this.columnIndex = i;
    this.column = table.columns[i]!;
  }

  /** Vector indexes only serve ANN ordering (computed over the rows): they keep no entries. */
  get keepsEntries(): boolean {
    return this.column.type.kind !== 'vector';
  }

  /** The byte-comparable terms a whole (serialized) column value is indexed under. */
  termsOfValue(value: Buffer | null): Buffer[] {
    if (value === null) return [];
    const t = this.column.type;
    switch (this.index.target) {
      case 'simple':
      case 'full':
        return [encodeKeyComponent(t, value)];
      case 'keys':
        return t.kind === 'map' ? readMapEntries(value).map(([k]) => encodeKeyComponent(t.key, k)) : [];
      case 'entries':
        return t.kind === 'map'
          ? readMapEntries(value).map(([k, v]) => Buffer.concat([encodeKeyComponent(t.key, k), termOf(t.value, v)]))
          : [];
      case 'values':
        if (t.kind === 'map') return readMapEntries(value).map(([, v]) => termOf(t.value, v));
        if (t.kind === 'list' || t.kind === 'set')
          return readCollectionElements(value).map((e) => termOf(t.element, e));
        return [];
    }
  }

  /** The term of one element cell of a non-frozen collection (path + value as storage holds them). */
  private termOfCell(cell: Cell): Buffer | undefined {
    const t = this.column.type;
    const path = cell.path!;
    switch (this.index.target) {
      case 'keys':
        return path;
      case 'entries':
        return t.kind === 'map' ? Buffer.concat([path, termOf(t.value, cell.value!)]) : undefined;
      case 'values':
        if (t.kind === 'set') return path;
        if (t.kind === 'map') return termOf(t.value, cell.value!);
        if (t.kind === 'list') return termOf(t.element, cell.value!);
        return undefined;
      default:
        return undefined;
    }
  }

  /** Entry rows for one base partition update. */
  entriesOf(table: TableMetadata, u: PartitionUpdate, out: RowUpdate[]): void {
    const col = this.column;
    const token = u.token ?? murmur3Token(u.key);
    if (col.kind === 'static') {
      if (u.staticRow) this.cellEntries(u.staticRow, u.key, token, out);
      return;
    }
    for (const row of u.rows ?? []) {
      if (col.kind === 'regular') {
        this.cellEntries(row, u.key, token, out);
        continue;
      }
      // Key columns: every write that makes the row live indexes it.
      const liveness = rowEntryLiveness(row);
      if (!liveness) continue;
      const value =
        col.kind === 'partition_key'
          ? deserializePartitionKey(u.key, table.partitionKey.length)[col.position]!
          : row.clusteringValues?.[col.position];
      if (!value) continue;
      out.push(entryRow(encodeKeyComponent(col.type, value), token, u.key, row.clustering, liveness));
    }
  }

  private cellEntries(row: RowUpdate, key: Buffer, token: bigint, out: RowUpdate[]): void {
    const id = this.column.id;
    const multi = this.index.target !== 'simple' && this.index.target !== 'full';
    for (const cell of row.cells ?? []) {
      if (cell.column !== id || cell.value === null) continue;
      const term = multi ? this.termOfCell(cell) : encodeKeyComponent(this.column.type, cell.value);
      if (!term) continue;
      const liveness: LivenessInfo =
        cell.ttl > 0
          ? { ts: cell.ts, ttl: cell.ttl, expiry: cell.ldt }
          : { ts: cell.ts, ttl: NO_TTL, expiry: NO_DELETION_TIME };
      out.push(entryRow(term, token, key, row.clustering, liveness));
    }
  }
}

function termOf(t: CqlType, value: Buffer): Buffer {
  return encodeKeyComponent(t, value);
}

/**
 * Liveness of a key-column entry (CassandraIndex.getPrimaryKeyIndexLiveness): the newest timestamp of the row's
 * liveness and live cells, expiring only with the row's own liveness. An UPDATE ... USING TTL of a regular column
 * therefore leaves a permanent entry: the row stays reachable while its INSERT's liveness lives.
 */
function rowEntryLiveness(row: RowUpdate): LivenessInfo | undefined {
  let ts = row.liveness?.ts;
  for (const c of row.cells ?? []) if (c.value !== null && (ts === undefined || c.ts > ts)) ts = c.ts;
  if (ts === undefined) return undefined;
  const l = row.liveness;
  return l && l.ttl !== NO_TTL ? { ts, ttl: l.ttl, expiry: l.expiry } : { ts, ttl: NO_TTL, expiry: NO_DELETION_TIME };
}

/** The clustering of an entry; prefix-free: the term is, the token is fixed size and the key length-prefixed. */
export function entryClustering(term: Buffer, token: bigint, key: Buffer, baseClustering: Buffer): Buffer {
  const b = Buffer.allocUnsafe(term.length + 8 + 2 + key.length + baseClustering.length);
  let o = term.copy(b, 0);
  o = b.writeBigUInt64BE(BigInt.asUintN(64, token ^ -0x8000000000000000n), o);
  o = b.writeUInt16BE(key.length, o);
  o += key.copy(b, o);
  baseClustering.copy(b, o);
  return b;
}

/** Column of the empty cell every entry carries: its writetime is the entry's timestamp, readable by queries. */
export const ENTRY_TS_COLUMN = 0;
const EMPTY = Buffer.alloc(0);

export function entryRow(
  term: Buffer,
  token: bigint,
  key: Buffer,
  baseClustering: Buffer,
  liveness: LivenessInfo,
): RowUpdate {
  return {
    clustering: entryClustering(term, token, key, baseClustering),
    // Read back by queries: the term (to re-check the base row), the base partition key and clustering.
    clusteringValues: [term, key, baseClustering],
    liveness,
    // Liveness timestamps are not readable; a cell's writetime is. A stale entry is deleted at exactly this
    // timestamp, which never shadows a newer write of the same entry.
    cells: [
      {
        column: ENTRY_TS_COLUMN,
        ts: liveness.ts,
        ttl: liveness.ttl,
        ldt: liveness.ttl > 0 ? liveness.expiry : NO_DELETION_TIME,
        value: EMPTY,
      },
    ],
  };
}

/** The base row an entry points at. */
export interface EntryTarget {
  /** The entry's own clustering in the index partition. */
  entry: Buffer;
  /** The entry's timestamp (null for entries written before entries carried it). */
  ts: Timestamp | null;
  term: Buffer;
  key: Buffer;
  clustering: Buffer;
}

export function entryTarget(entry: Buffer, clusteringValues: readonly Buffer[], ts: Timestamp | null): EntryTarget {
  return { entry, ts, term: clusteringValues[0]!, key: clusteringValues[1]!, clustering: clusteringValues[2]! };
}

/** The index partition update holding `rows`. */
export function indexUpdate(rows: RowUpdate[]): PartitionUpdate {
  return { key: INDEX_PARTITION_KEY, token: INDEX_PARTITION_TOKEN, rows };
}
