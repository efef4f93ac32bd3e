// Pure parts of the storage engine: Cassandra's reconciliation rules, the row / header codecs, the read
// projection and clustering bounds. No pool needed.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterStart, beforeEnd, inSlice, prefixSuccessor, sliceToKeyRange } from '../storage/clustering-bounds.js';
import type { Cell, ClusteringBound, LivenessInfo } from '../storage/mutation.js';
import { NO_DELETION_TIME } from '../storage/mutation.js';
import { livenessSupersedes, mergeRows, purgeRow, reconcileCells, rowFromUpdate } from '../storage/reconcile.js';
import type { ColumnData, StoredRow } from '../storage/row-codec.js';
import { decodeHeader, decodeRow, encodeHeader, encodeRow } from '../storage/row-codec.js';
import { NO_SHADOW, Projection } from '../storage/row-projection.js';

const v = (...b: number[]) => Buffer.from(b);
const live = (ts: number, value: Buffer): Cell => ({ column: 0, ts, ttl: 0, ldt: NO_DELETION_TIME, value });
const expiring = (ts: number, ttl: number, expiry: number, value: Buffer): Cell => ({
  column: 0,
  ts,
  ttl,
  ldt: expiry,
  value,
});
const tomb = (ts: number, ldt: number): Cell => ({ column: 0, ts, ttl: 0, ldt, value: null });

describe('reconcileCells (Cassandra 5.0 Cells.resolveRegular)', () => {
  it('the higher timestamp wins whatever the kinds', () => {
    expect(reconcileCells(live(2, v(0)), tomb(1, 100))).toEqual(live(2, v(0)));
    expect(reconcileCells(tomb(1, 100), live(2, v(0)))).toEqual(live(2, v(0)));
  });

  it('on equal timestamps a tombstone beats a live cell', () => {
    expect(reconcileCells(live(1, v(0xff)), tomb(1, 5))).toEqual(tomb(1, 5));
    expect(reconcileCells(tomb(1, 5), live(1, v(0xff)))).toEqual(tomb(1, 5));
  });

  it('on equal timestamps an expiring cell beats a regular one (CASSANDRA-14592), a tombstone beats it', () => {
    expect(reconcileCells(live(1, v(9)), expiring(1, 10, 50, v(1)))).toEqual(expiring(1, 10, 50, v(1)));
    expect(reconcileCells(expiring(1, 10, 50, v(1)), tomb(1, 1))).toEqual(tomb(1, 1));
  });

  it('two expiring cells: the later expiry wins before values are looked at', () => {
    expect(reconcileCells(expiring(1, 10, 60, v(0)), expiring(1, 10, 50, v(9)))).toEqual(expiring(1, 10, 60, v(0)));
  });

  it('two regular cells: the greater value (unsigned bytes) wins', () => {
    expect(reconcileCells(live(1, v(0x01)), live(1, v(0xff)))).toEqual(live(1, v(0xff)));
    expect(reconcileCells(live(1, v(0x01, 0x00)), live(1, v(0x01)))).toEqual(live(1, v(0x01, 0x00)));
  });

  const arbCell: fc.Arbitrary<Cell> = fc.oneof(
    fc
      .record({ ts: fc.integer({ min: 0, max: 3 }), value: fc.uint8Array({ maxLength: 2 }) })
      .map((c) => live(c.ts, Buffer.from(c.value))),
    fc
      .record({
        ts: fc.integer({ min: 0, max: 3 }),
        ttl: fc.integer({ min: 1, max: 3 }),
        value: fc.uint8Array({ maxLength: 2 }),
      })
      .map((c) => expiring(c.ts, c.ttl, 100 + c.ttl, Buffer.from(c.value))),
    fc
      .record({ ts: fc.integer({ min: 0, max: 3 }), ldt: fc.integer({ min: 0, max: 3 }) })
      .map((c) => tomb(c.ts, c.ldt)),
  );

  it('is commutative and associative (merge order never matters)', () => {
    fc.assert(
      fc.property(arbCell, arbCell, arbCell, (a, b, c) => {
        expect(reconcileCells(a, b)).toEqual(reconcileCells(b, a));
        expect(reconcileCells(reconcileCells(a, b), c)).toEqual(reconcileCells(a, reconcileCells(b, c)));
      }),
    );
  });
});

describe('livenessSupersedes', () => {
  const l = (ts: number, ttl = 0, expiry = NO_DELETION_TIME): LivenessInfo => ({ ts, ttl, expiry });
  it('higher timestamp, then expiring over not, then later expiry', () => {
    expect(livenessSupersedes(l(2), l(1, 5, 10))).toBe(true);
    expect(livenessSupersedes(l(1, 5, 10), l(1))).toBe(true);
    expect(livenessSupersedes(l(1), l(1, 5, 10))).toBe(false);
    expect(livenessSupersedes(l(1, 5, 20), l(1, 5, 10))).toBe(true);
  });
});

// ---- codec ----------------------------------------------------------------------------------------

const arbTs = fc.integer({ min: -(2 ** 52), max: 2 ** 52 });
const arbBytes = fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b));
const arbStoredCell = (column: number, path?: Buffer): fc.Arbitrary<Cell> =>
  fc.oneof(
    fc.record({ ts: arbTs, value: arbBytes }).map((c) => ({ ...live(c.ts, c.value), column, path })),
    fc
      .record({
        ts: arbTs,
        ttl: fc.integer({ min: 1, max: 1e6 }),
        ldt: fc.integer({ min: 0, max: 2 ** 31 - 2 }),
        value: arbBytes,
      })
      .map((c) => ({ column, path, ts: c.ts, ttl: c.ttl, ldt: c.ldt, value: c.value })),
    fc
      .record({ ts: arbTs, ldt: fc.integer({ min: 0, max: 2 ** 31 - 1 }) })
      .map((c) => ({ ...tomb(c.ts, c.ldt), column, path })),
  );
const arbDeletion = fc.record({ ts: arbTs, ldt: fc.integer({ min: 0, max: 2 ** 31 - 1 }) });

const arbColumn = (column: number): fc.Arbitrary<ColumnData> =>
  fc.oneof(
    arbStoredCell(column).map((cell) => ({ column, complex: false as const, cell })),
    fc
      .record({
        deletion: fc.option(arbDeletion, { nil: undefined }),
        paths: fc.uniqueArray(
          fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
          {
            maxLength: 4,
            comparator: (a, b) => a.equals(b),
          },
        ),
      })
      .chain(({ deletion, paths }) =>
        fc
          .tuple(...paths.sort(Buffer.compare).map((p) => arbStoredCell(column, p)))
          .map((cells) => ({ column, complex: true as const, deletion, cells })),
      ),
  );

const arbRow: fc.Arbitrary<StoredRow> = fc
  .record({
    clusteringValues: fc.option(fc.array(arbBytes, { maxLength: 3 }), { nil: undefined }),
    liveness: fc.option(
      fc.oneof(
        arbTs.map((ts) => ({ ts, ttl: 0, expiry: NO_DELETION_TIME })),
        fc.record({
          ts: arbTs,
          ttl: fc.integer({ min: 1, max: 1e6 }),
          expiry: fc.integer({ min: 0, max: 2 ** 31 - 2 }),
        }),
      ),
      { nil: undefined },
    ),
    deletion: fc.option(arbDeletion, { nil: undefined }),
    ids: fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 5 }),
  })
  .chain(({ ids, ...rest }) =>
    fc.tuple(...ids.sort((a, b) => a - b).map(arbColumn)).map((columns) => ({ ...rest, columns })),
  );

/** Buffers compared by content (decoded values are subarrays). */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

describe('row codec', () => {
  it('decode(encode(row)) == row', () => {
    fc.assert(
      fc.property(arbRow, (row) => {
        expect(plain(decodeRow(encodeRow(row)))).toEqual(plain(row));
      }),
      { numRuns: 500 },
    );
  });

  it('partition headers round-trip', () => {
    const arbBound: fc.Arbitrary<ClusteringBound> = fc.record({ prefix: arbBytes, inclusive: fc.boolean() });
    fc.assert(
      fc.property(
        fc.option(arbDeletion, { nil: undefined }),
        fc.array(fc.record({ start: arbBound, end: arbBound, deletion: arbDeletion }), { maxLength: 4 }),
        (deletion, rangeTombstones) => {
          const h = { deletion, rangeTombstones };
          expect(plain(decodeHeader(encodeHeader(h)))).toEqual(plain(h));
        },
      ),
    );
  });

  it('a projection returns only the selected columns, live at now, shadowed by deletions', () => {
    const row = rowFromUpdate({
      clustering: v(1),
      clusteringValues: [v(1)],
      cells: [
        { column: 3, ts: 10, ttl: 0, ldt: NO_DELETION_TIME, value: v(3) },
        { column: 1, ts: 10, ttl: 5, ldt: 105, value: v(1) },
        { column: 2, ts: 10, ttl: 0, ldt: 100, value: null },
        { column: 7, path: v(2), ts: 10, ttl: 0, ldt: NO_DELETION_TIME, value: v(0x22) },
        { column: 7, path: v(1), ts: 12, ttl: 0, ldt: NO_DELETION_TIME, value: v(0x11) },
      ],
    });
    const buf = encodeRow(row);
    const p = new Projection([7, 1, 3], true);
    const r = p.project(buf, 0, v(1), NO_SHADOW, 100)!;
    expect(r.values[0]).toEqual({
      paths: [v(1), v(2)],
      values: [v(0x11), v(0x22)],
      writetimes: [12, 10],
      ttls: [null, null],
    });
    expect(r.values[1]).toEqual(v(1));
    expect(r.ttls![1]).toBe(5);
    expect(r.values[2]).toEqual(v(3));
    expect(r.writetimes![2]).toBe(10);
    // At 105 the expiring cell is gone; a deletion at ts 11 leaves only the map element written at 12.
    const later = p.project(buf, 0, v(1), 11, 105)!;
    expect(later.values[1]).toBeNull();
    expect(later.values[2]).toBeNull();
    expect((later.values[0] as { paths: Buffer[] }).paths).toEqual([v(1)]);
    // Shadowed entirely: not live.
    expect(p.project(buf, 0, v(1), 12, 100)).toBeUndefined();
  });
});

describe('merge and purge', () => {
  const ctx = { nowInSeconds: 1000, gcBefore: 0 };
  it('a row deletion drops older cells and liveness; newer data survives', () => {
    const a = rowFromUpdate({
      clustering: v(),
      liveness: { ts: 1, ttl: 0, expiry: NO_DELETION_TIME },
      cells: [live(1, v(1)), { ...live(3, v(3)), column: 1 }],
    });
    const merged = mergeRows(a, rowFromUpdate({ clustering: v(), deletion: { ts: 2, ldt: 900 } }));
    const purged = purgeRow(merged, undefined, ctx)!;
    expect(purged.liveness).toBeUndefined();
    expect(purged.columns.map((c) => c.column)).toEqual([1]);
    expect(purged.deletion).toEqual({ ts: 2, ldt: 900 });
  });

  it('tombstones and expired cells go once older than gc_grace; a covering shadow makes the row deletion redundant', () => {
    const row = rowFromUpdate({
      clustering: v(),
      deletion: { ts: 1, ldt: 10 },
      cells: [tomb(5, 10), { ...expiring(5, 10, 20, v(1)), column: 1 }, { ...live(5, v(2)), column: 2 }],
    });
    const purged = purgeRow(row, undefined, { nowInSeconds: 1000, gcBefore: 15 })!;
    expect(purged.deletion).toBeUndefined();
    expect(purged.columns.map((c) => c.column)).toEqual([2]);
    const kept = purgeRow(row, { ts: 1, ldt: 10 }, { nowInSeconds: 15, gcBefore: 0 })!;
    expect(kept.deletion).toBeUndefined();
    expect(kept.columns.map((c) => c.column)).toEqual([0, 1, 2]);
    expect(purgeRow(row, { ts: 5, ldt: 10 }, ctx)).toBeUndefined();
  });

  it('a complex deletion drops older elements only', () => {
    const row = rowFromUpdate({
      clustering: v(),
      cells: [{ ...live(1, v(1)), path: v(1) }],
      complexDeletions: [],
    });
    const upd = rowFromUpdate({
      clustering: v(),
      complexDeletions: [{ column: 0, deletion: { ts: 1, ldt: 5 } }],
      cells: [{ ...live(2, v(2)), path: v(2) }],
    });
    const merged = purgeRow(mergeRows(row, upd), undefined, ctx)!;
    const col = merged.columns[0]!;
    expect(col.complex && col.cells.map((c) => c.path)).toEqual([v(2)]);
  });
});

describe('clustering bounds', () => {
  const alphabet = [0, 1, 0xfe, 0xff];
  const keys: Buffer[] = [Buffer.alloc(0)];
  for (const a of alphabet) {
    keys.push(v(a));
    for (const b of alphabet) {
      keys.push(v(a, b));
      for (const c of alphabet) keys.push(v(a, b, c));
    }
  }
  const arbPrefix = fc.array(fc.constantFrom(...alphabet), { maxLength: 2 }).map((a) => Buffer.from(a));
  const arbBound = fc.option(fc.record({ prefix: arbPrefix, inclusive: fc.boolean() }), { nil: undefined });

  it('the key range given to the native scan holds exactly the keys in the slice', () => {
    fc.assert(
      fc.property(arbBound, arbBound, (start, end) => {
        const tag = v(2);
        const r = sliceToKeyRange(tag, start, end);
        for (const k of keys) {
          const mk = Buffer.concat([tag, k]);
          const inRange = !r.empty && Buffer.compare(mk, r.start!) >= 0 && (!r.end || Buffer.compare(mk, r.end) < 0);
          expect(inRange).toBe(inSlice(k, start, end));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('prefix bounds compare on the prefix only', () => {
    expect(afterStart(v(1, 5), { prefix: v(1), inclusive: true })).toBe(true);
    expect(afterStart(v(1, 5), { prefix: v(1), inclusive: false })).toBe(false);
    expect(beforeEnd(v(1, 5), { prefix: v(1), inclusive: true })).toBe(true);
    expect(beforeEnd(v(1, 5), { prefix: v(1), inclusive: false })).toBe(false);
    expect(prefixSuccessor(v(1, 0xff))).toEqual(v(2));
    expect(prefixSuccessor(v(0xff, 0xff))).toBeUndefined();
  });
});
