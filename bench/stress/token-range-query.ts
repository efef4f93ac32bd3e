// A profile's token range query, as cassandra-stress's TokenRangeQuery: a bulk read that sweeps the
// table one token range at a time (the ring's ranges as the driver knows them, unwrapped, sorted,
// each split -tokenrange split-factor times), one page (page_size rows) per operation:
//   SELECT token(pk), columns FROM table WHERE token(pk) > start AND token(pk) <= end
// Partitions count once per range (by their token). When every range is done the operation is
// exhausted, unless -tokenrange wrap starts over.

import type cassandra from 'cassandra-driver';
import type { TokenRangeQueryDef } from './profile.js';
import { type ProfileTable, quoteIdentifier } from './profile-table.js';
import type { ExecuteOptions, Operation, OpResult } from './workload.js';

export interface TokenRangeSettings {
  /** Start over when every range has been read. */
  wrap: boolean;
  splitFactor: number;
}

interface Cursor {
  query: string;
  pageState?: string;
  seen: Set<string>;
}

export class TokenRangeQueryOp {
  private readonly ranges: { start: string; end?: string }[] = [];
  private pending: { start: string; end?: string }[] = [];
  /** Ranges with pages left, not being read right now. */
  private readonly resumable: Cursor[] = [];
  private readonly select: string;
  private readonly tokenOf: string;

  constructor(
    readonly name: string,
    private readonly def: TokenRangeQueryDef,
    private readonly table: ProfileTable,
    private readonly options: ExecuteOptions,
    private readonly settings: TokenRangeSettings,
  ) {
    const columns =
      def.columns.trim() === '*'
        ? [...table.partitionKey, ...table.clustering, ...table.regular.map((c) => c.name)]
            .map(quoteIdentifier)
            .join(', ')
        : def.columns;
    this.tokenOf = `token(${table.partitionKey.map(quoteIdentifier).join(', ')})`;
    this.select = `SELECT ${this.tokenOf}, ${columns} FROM ${quoteIdentifier(table.profile.table)}`;
    const metadata = table.client.metadata;
    const min = metadata.newToken('-9223372036854775808').toString();
    const known = [...(metadata.getTokenRanges() ?? [])];
    const unwrapped = known.flatMap((r) => r.unwrap()).sort((a, b) => a.compare(b));
    // Without the ring's ranges (no token metadata), the whole ring is one range.
    const base =
      unwrapped.length > 0 ? unwrapped : [metadata.newTokenRange(metadata.newToken(min), metadata.newToken(min))];
    for (const range of base) {
      const parts = settings.splitFactor > 1 ? safeSplit(range, settings.splitFactor) : [range];
      for (const part of parts) {
        const end = part.end.toString();
        this.ranges.push({ start: part.start.toString(), end: end === min ? undefined : end });
      }
    }
    this.pending = [...this.ranges];
  }

  private nextCursor(): Cursor | undefined {
    const resumed = this.resumable.shift();
    if (resumed) return resumed;
    if (this.pending.length === 0 && this.settings.wrap) this.pending = [...this.ranges];
    const range = this.pending.shift();
    if (!range) return undefined;
    const where = [`${this.tokenOf} > ${range.start}`];
    if (range.end !== undefined) where.push(`${this.tokenOf} <= ${range.end}`);
    return { query: `${this.select} WHERE ${where.join(' AND ')}`, seen: new Set() };
  }

  next(): Operation | undefined {
    const cursor = this.nextCursor();
    if (!cursor) return undefined;
    const client = this.table.client;
    const options = { ...this.options, prepare: false, fetchSize: this.def.pageSize };
    let read = false;
    return {
      type: this.name,
      execute: async (): Promise<OpResult> => {
        const rs = await client.execute(
          cursor.query,
          [],
          cursor.pageState ? { ...options, pageState: cursor.pageState } : options,
        );
        let partitions = 0;
        const tokenColumn = rs.columns[0]!.name;
        for (const row of rs.rows) {
          const token = String(row.get(tokenColumn));
          if (!cursor.seen.has(token)) {
            cursor.seen.add(token);
            partitions++;
          }
        }
        cursor.pageState = rs.pageState ?? undefined;
        read = true;
        return { partitions, rows: rs.rowLength };
      },
      done: () => {
        // A page that failed is read again by a later operation.
        if (cursor.pageState || !read) this.resumable.push(cursor);
      },
    };
  }
}

function safeSplit(range: cassandra.token.TokenRange, n: number): cassandra.token.TokenRange[] {
  try {
    return range.splitEvenly(n);
  } catch {
    return [range];
  }
}
