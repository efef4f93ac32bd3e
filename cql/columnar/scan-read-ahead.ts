// Read-ahead for paged columnar scans: drivers ask for page N+1 only once page N has arrived, so without it the
// server's time and the client's time add up page after page. When a scan page ends with a paging state, the next
// page is prepared (encoded) as soon as the current response has been flushed, while the client decodes; the
// request that follows with that paging state is answered from it.
//
// A prepared page is used only when it is exactly what the request would compute now: same statement, bound
// values and page size, same `now` (second), and no change to the table's twin since (TableTwin.version: writes,
// flushes, compactions). Memory is bounded: one page per paging state, at most MAX_PAGES pages and MAX_BYTES bytes
// in all (the oldest go first), each dropped after TTL_MS or once used.
//
// Under the same conditions a scan's state (its open segment cursors, encoded-scan.ts) is kept where a page left
// it, so that the next page continues the merge instead of opening every segment again (at 10 M rows, 153 segments
// a page); at most MAX_STATES of them, each dropped after TTL_MS or once used.

import type { TableTwin } from '../../storage/twin/table-twin.js';
import type { BoundValue } from '../query-handler.js';
import type { EncodedScanState } from './encoded-scan.js';

/** A scan page as the wire needs it. */
export interface ScanPage {
  readonly count: number;
  readonly bytes: Buffer;
  readonly pagingState: Buffer | undefined;
}

/** What a page depends on besides the paging state it resumes from. */
export interface ScanPageKey {
  /** The prepared statement (its plan and selection). */
  readonly statement: object;
  readonly twin: TableTwin;
  readonly values: readonly BoundValue[];
  readonly pageSize: number;
  readonly nowInSeconds: number;
}

const MAX_PAGES = 16;
const MAX_STATES = 16;
const MAX_BYTES = 64 * 1024 * 1024;
const TTL_MS = 5_000;

function sameValues(a: readonly BoundValue[], b: readonly BoundValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (!Buffer.isBuffer(x) || !Buffer.isBuffer(y) || !x.equals(y)) return false;
  }
  return true;
}

function sameKey(a: ScanPageKey, b: ScanPageKey): boolean {
  return (
    a.statement === b.statement &&
    a.twin === b.twin &&
    a.pageSize === b.pageSize &&
    a.nowInSeconds === b.nowInSeconds &&
    sameValues(a.values, b.values)
  );
}

/** Counters for tests and benchmarks. */
export const readAheadStats = { prepared: 0, used: 0, stale: 0, continued: 0 };

/** The key with copies of its bound values (they arrive as views of request bytes that later requests reuse). */
function ownKey(request: ScanPageKey): ScanPageKey {
  return { ...request, values: request.values.map((v) => (Buffer.isBuffer(v) ? Buffer.from(v) : v)) };
}

/**
 * Values kept under the paging state they belong to, each for one later request with the same key at the same
 * twin version, then dropped; the oldest go first past `maxEntries` / `maxBytes`, each after TTL_MS.
 */
class KeptByPagingState<T> {
  private readonly entries = new Map<
    string,
    { key: ScanPageKey; version: number; value: T; bytes: number; timer: NodeJS.Timeout }
  >();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Keeps `value` under `id` (replacing what was there); `key` must own its bound values (ownKey). */
  put(id: string, key: ScanPageKey, version: number, value: T, bytes: number): void {
    this.drop(id);
    const timer = setTimeout(() => this.drop(id), TTL_MS).unref();
    this.entries.set(id, { key, version, value, bytes, timer });
    this.bytes += bytes;
    for (const oldId of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.drop(oldId);
    }
  }

  /**
   * The value under `id` for a request with `key`: undefined when there is none for that key (left in place);
   * otherwise it is dropped, and 'stale' when the twin changed since.
   */
  take(id: string, key: ScanPageKey): { value: T } | 'stale' | undefined {
    const e = this.entries.get(id);
    if (!e || !sameKey(e.key, key)) return undefined;
    this.drop(id);
    return e.version === key.twin.version ? { value: e.value } : 'stale';
  }

  private drop(id: string): void {
    const e = this.entries.get(id);
    if (!e) return;
    clearTimeout(e.timer);
    this.entries.delete(id);
    this.bytes -= e.bytes;
  }
}

export class ScanReadAhead {
  /** Prepared pages by paging state (latin1 string of its bytes). */
  private readonly pages = new KeptByPagingState<ScanPage>(MAX_PAGES, MAX_BYTES);
  /** Paging states whose page is scheduled but not prepared yet, and not yet asked for. */
  private readonly pending = new Set<string>();
  /** Scan states by the paging state they stand at. */
  private readonly states = new KeptByPagingState<EncodedScanState>(MAX_STATES, Number.POSITIVE_INFINITY);

  /** Keeps `state`, which stands at `pagingState`, for the request (or preparation) of the next page. */
  keep(pagingState: Buffer, request: ScanPageKey, state: EncodedScanState): void {
    this.states.put(pagingState.toString('latin1'), ownKey(request), request.twin.version, state, 0);
  }

  /** The scan state standing at `pagingState`, if it is still valid for this request; used once. */
  resume(pagingState: Buffer, key: ScanPageKey): EncodedScanState | undefined {
    const k = this.states.take(pagingState.toString('latin1'), key);
    if (k === undefined || k === 'stale') return undefined;
    readAheadStats.continued++;
    return k.value;
  }

  /** The prepared page for a request resuming at `pagingState`, if it is still exactly the answer; used once. */
  take(pagingState: Buffer, key: ScanPageKey): ScanPage | undefined {
    const id = pagingState.toString('latin1');
    // Asked for before its preparation ran (a fast client): the request computes it, so the preparation must not.
    this.pending.delete(id);
    const p = this.pages.take(id, key);
    if (p === undefined) return undefined;
    if (p === 'stale') {
      readAheadStats.stale++;
      return undefined;
    }
    readAheadStats.used++;
    return p.value;
  }

  /**
   * Prepares the page after `pagingState` once the current response has gone out: `compute` runs two event-loop
   * turns later (the connection flushes its responses in a setImmediate queued after this one).
   */
  prepare(pagingState: Buffer, request: ScanPageKey, compute: () => ScanPage): void {
    const id = pagingState.toString('latin1');
    const version = request.twin.version;
    if (this.pending.has(id) || this.pages.has(id)) return;
    const key = ownKey(request);
    this.pending.add(id);
    setImmediate(() =>
      setImmediate(() => {
        // Asked for meanwhile (the request computed it), or a write since the page before (it would be stale).
        if (!this.pending.delete(id) || key.twin.version !== version) return;
        let page: ScanPage;
        try {
          page = compute();
        } catch {
          return; // the request itself will meet (and report) the error
        }
        this.pages.put(id, key, version, page, page.bytes.length);
        readAheadStats.prepared++;
      }),
    );
  }
}
