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

interface Prepared {
  readonly key: ScanPageKey;
  readonly version: number;
  readonly page: ScanPage;
  readonly timer: NodeJS.Timeout;
}

interface KeptState {
  readonly key: ScanPageKey;
  readonly version: number;
  readonly state: EncodedScanState;
  readonly timer: NodeJS.Timeout;
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

export class ScanReadAhead {
  /** By paging state (latin1 string of its bytes), oldest first. */
  private readonly pages = new Map<string, Prepared>();
  /** Paging states whose page is scheduled but not prepared yet, and not yet asked for. */
  private readonly pending = new Set<string>();
  private bytes = 0;
  /** Scan states by the paging state they stand at, oldest first. */
  private readonly states = new Map<string, KeptState>();

  /** Keeps `state`, which stands at `pagingState`, for the request (or preparation) of the next page. */
  keep(pagingState: Buffer, request: ScanPageKey, state: EncodedScanState): void {
    const id = pagingState.toString('latin1');
    const old = this.states.get(id);
    if (old) this.dropState(id, old);
    const timer = setTimeout(() => {
      const k = this.states.get(id);
      if (k) this.dropState(id, k);
    }, TTL_MS).unref();
    this.states.set(id, { key: ownKey(request), version: request.twin.version, state, timer });
    for (const [oldId, s] of this.states) {
      if (this.states.size <= MAX_STATES) break;
      this.dropState(oldId, s);
    }
  }

  /** The scan state standing at `pagingState`, if it is still valid for this request; used once. */
  resume(pagingState: Buffer, key: ScanPageKey): EncodedScanState | undefined {
    const id = pagingState.toString('latin1');
    const k = this.states.get(id);
    if (!k) return undefined;
    if (!sameKey(k.key, key)) return undefined;
    this.dropState(id, k);
    if (k.version !== key.twin.version) return undefined;
    readAheadStats.continued++;
    return k.state;
  }

  private dropState(id: string, k: KeptState): void {
    clearTimeout(k.timer);
    this.states.delete(id);
  }

  /** The prepared page for a request resuming at `pagingState`, if it is still exactly the answer; used once. */
  take(pagingState: Buffer, key: ScanPageKey): ScanPage | undefined {
    const id = pagingState.toString('latin1');
    // Asked for before its preparation ran (a fast client): the request computes it, so the preparation must not.
    this.pending.delete(id);
    const p = this.pages.get(id);
    if (!p) return undefined;
    if (!sameKey(p.key, key)) return undefined;
    this.drop(id, p);
    if (p.version !== key.twin.version) {
      readAheadStats.stale++;
      return undefined;
    }
    readAheadStats.used++;
    return p.page;
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
        this.add(id, { key, version, page, timer: setTimeout(() => this.expire(id), TTL_MS).unref() });
        readAheadStats.prepared++;
      }),
    );
  }

  private add(id: string, p: Prepared): void {
    this.pages.set(id, p);
    this.bytes += p.page.bytes.length;
    for (const [oldId, old] of this.pages) {
      if (this.pages.size <= MAX_PAGES && this.bytes <= MAX_BYTES) break;
      this.drop(oldId, old);
    }
  }

  private expire(id: string): void {
    const p = this.pages.get(id);
    if (p) this.drop(id, p);
  }

  private drop(id: string, p: Prepared): void {
    clearTimeout(p.timer);
    this.pages.delete(id);
    this.bytes -= p.page.bytes.length;
  }
}
