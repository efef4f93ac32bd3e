// Segments: row order (token, partition key, clustering), zero-copy reading, deletion vectors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeClusteringKey } from '../cql/types/byte-comparable.js';
import { native } from '../cql/types/cql-type.js';
import { type TwinColumn, twinLayout } from '../storage/arrow/arrow-schema.js';
import { CHUNK_BYTES, DeletionVector, ROWS_PER_CHUNK } from '../storage/arrow/deletion-vector.js';
import { buildSegment, type TwinRow } from '../storage/arrow/segment-builder.js';
import { openSegment, sharesMemory, twinColumns } from '../storage/arrow/segment-reader.js';

const COLUMNS: TwinColumn[] = [
  { name: 'k', id: 0, kind: 'partition_key', type: native('text'), position: 0 },
  { name: 'c1', id: 1, kind: 'clustering', type: native('int'), position: 0 },
  { name: 'c2', id: 2, kind: 'clustering', type: native('text'), position: 1, descending: true },
  { name: 'x', id: 3, kind: 'regular', type: native('double'), position: -1 },
  { name: 'n', id: 4, kind: 'regular', type: native('bigint'), position: -1 },
  { name: 's', id: 5, kind: 'regular', type: native('text'), position: -1 },
];
const layout = twinLayout(COLUMNS);

function i32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

function f64(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return b;
}

function i64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
}

interface Spec {
  token: bigint;
  key: string;
  c1: number;
  c2: string;
  x: number | null;
}

function row(s: Spec, withKey: boolean): TwinRow {
  const clustering = [i32(s.c1), Buffer.from(s.c2)];
  return {
    token: s.token,
    partitionKey: [Buffer.from(s.key)],
    clustering,
    clusteringKey: withKey
      ? encodeClusteringKey([native('int'), native('text')], [false, true], clustering)
      : undefined,
    cells: new Map<number, Buffer | null>([
      [3, s.x === null ? null : f64(s.x)],
      [4, i64(BigInt(s.c1) * 3n)],
      [5, Buffer.from(`${s.key}/${s.c1}/${s.c2}`)],
    ]),
    writetime: 1000 + s.c1,
    expires: s.c1 % 2 === 0 ? null : 1_900_000_000 + s.c1,
  };
}

const specArb = fc.record({
  token: fc.bigInt(-3n, 3n).chain((small) => fc.constantFrom(small, small * 2n ** 61n)),
  key: fc.constantFrom('a', 'b', 'ab', ''),
  c1: fc.integer({ min: -3, max: 3 }),
  c2: fc.constantFrom('', 'x', 'y', 'xy'),
  x: fc.option(fc.double({ noNaN: true }), { nil: null }),
});

/** Reference order: token (signed), key bytes, c1 ASC, c2 DESC. */
function refCompare(a: Spec, b: Spec): number {
  if (a.token !== b.token) return a.token < b.token ? -1 : 1;
  const k = Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
  if (k !== 0) return k;
  if (a.c1 !== b.c1) return a.c1 - b.c1;
  return -Buffer.compare(Buffer.from(a.c2), Buffer.from(b.c2));
}

describe('segment builder', () => {
  for (const withKey of [true, false]) {
    it(`sorts rows by token, partition key and clustering (${withKey ? 'byte-comparable keys' : 'typed compare'})`, () => {
      fc.assert(
        fc.property(fc.uniqueArray(specArb, { selector: (s) => `${s.token}|${s.key}|${s.c1}|${s.c2}` }), (specs) => {
          const seg = buildSegment(
            layout,
            specs.map((s) => row(s, withKey)),
          );
          const want = specs.map((_, i) => i).sort((a, b) => refCompare(specs[a]!, specs[b]!));
          expect([...seg.order]).toEqual(want);
          const open = openSegment(seg.ipc);
          const cols = twinColumns(open, layout);
          const tokens = cols.token!.values as BigInt64Array;
          for (let i = 0; i < specs.length; i++) {
            const s = specs[seg.order[i]!]!;
            expect(tokens[i]).toBe(s.token);
            expect(open.table.get(i)!.toJSON().s).toBe(`${s.key}/${s.c1}/${s.c2}`);
          }
        }),
        { numRuns: 100 },
      );
    });
  }

  it('fills hidden columns: _writetime, _expires (null when the row never expires)', () => {
    const seg = buildSegment(layout, [row({ token: 5n, key: 'a', c1: 1, c2: 'x', x: 1.5 }, true)]);
    const r = openSegment(seg.ipc).table.get(0)!.toJSON();
    expect(r._writetime).toBe(1001n);
    expect(r._expires).toBe(1_900_000_001);
    expect(r.x).toBe(1.5);
    expect(r.n).toBe(3n);
    const seg2 = buildSegment(layout, [row({ token: 5n, key: 'a', c1: 2, c2: 'x', x: null }, true)]);
    const r2 = openSegment(seg2.ipc).table.get(0)!.toJSON();
    expect(r2._expires).toBeNull();
    expect(r2.x).toBeNull();
  });

  it('handles an empty segment', () => {
    const seg = buildSegment(layout, []);
    const open = openSegment(seg.ipc);
    expect(open.length).toBe(0);
  });
});

describe('segment reader', () => {
  function bigSegment(): Uint8Array {
    const specs: Spec[] = [];
    for (let i = 0; i < 5000; i++) specs.push({ token: BigInt(i), key: `k${i}`, c1: i, c2: 'z', x: i % 7 ? i : null });
    return buildSegment(
      layout,
      specs.map((s) => row(s, true)),
    ).ipc;
  }

  it('reads column buffers in place from an aligned buffer (no copy)', () => {
    const ipc = bigSegment();
    // As the pool hands it out: a Buffer view at an 8-aligned offset inside a larger mapping.
    const pool = Buffer.alloc(ipc.length + 4096);
    const at = 1024;
    pool.set(ipc, at);
    const view = pool.subarray(at, at + ipc.length);
    const open = openSegment(view);
    expect(open.zeroCopy).toBe(true);
    const cols = twinColumns(open, layout);
    const x = cols.column(3)!;
    expect(x.values.buffer).toBe(pool.buffer);
    expect(sharesMemory(x, view)).toBe(true);
    for (const f of open.batch!.data.children) expect(sharesMemory(f, view)).toBe(true);
    // Writes to the pool bytes show through the column (it really is the same memory).
    const values = x.values as Float64Array;
    const off = values.byteOffset;
    new DataView(pool.buffer).setFloat64(off + 8, 42.25, true);
    expect(values[1]).toBe(42.25);
  });

  it('copies (and says so) when the bytes are not 8-aligned', () => {
    const ipc = bigSegment();
    const pool = Buffer.alloc(ipc.length + 16);
    pool.set(ipc, 3);
    const view = pool.subarray(3, 3 + ipc.length);
    const open = openSegment(view);
    expect(open.zeroCopy).toBe(false);
    expect(sharesMemory(twinColumns(open, layout).column(3)!, view)).toBe(false);
    expect(open.length).toBe(5000);
  });

  it('reads stream-format segments too', () => {
    const seg = buildSegment(layout, [row({ token: 1n, key: 'a', c1: 1, c2: 'x', x: 2 }, true)], { format: 'stream' });
    expect(openSegment(seg.ipc).table.get(0)!.toJSON().x).toBe(2);
  });
});

describe('deletion vector', () => {
  it('sets, tests, counts and survives bytes and chunks', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: ROWS_PER_CHUNK * 2 + 100 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: 300 }))),
        ([n, rows]) => {
          const dv = new DeletionVector(n);
          const ref = new Set<number>();
          for (const r of rows) {
            expect(dv.set(r)).toBe(!ref.has(r));
            ref.add(r);
          }
          expect(dv.count()).toBe(ref.size);
          expect(dv.liveCount).toBe(n - ref.size);
          for (const r of rows) expect(dv.test(r)).toBe(true);
          const copy = new DeletionVector(n, dv.toBytes());
          expect(copy.count()).toBe(ref.size);
          expect(dv.toBytes().length).toBe(Math.ceil(n / 32) * 4);
          const chunks = new Map<number, Uint8Array>();
          for (const c of dv.takeDirtyChunks()) {
            expect(c.bytes.length).toBeLessThanOrEqual(CHUNK_BYTES);
            chunks.set(c.index, c.bytes);
          }
          expect(dv.takeDirtyChunks()).toEqual([]);
          const back = DeletionVector.fromChunks(n, chunks);
          expect(back.count()).toBe(ref.size);
          for (let i = 0; i < n; i += Math.max(1, Math.floor(n / 500))) expect(back.test(i)).toBe(ref.has(i));
          for (const r of ref) expect(back.test(r)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('marks only the chunks it touched dirty, and unset undoes a set', () => {
    const dv = new DeletionVector(ROWS_PER_CHUNK * 3);
    dv.set(5);
    dv.set(ROWS_PER_CHUNK * 2 + 1);
    expect(dv.takeDirtyChunks().map((c) => c.index)).toEqual([0, 2]);
    dv.unset(5);
    expect(dv.test(5)).toBe(false);
    expect(dv.count()).toBe(1);
    expect(dv.takeDirtyChunks().map((c) => c.index)).toEqual([0]);
    expect(() => dv.set(ROWS_PER_CHUNK * 3)).toThrow(RangeError);
  });

  it('ignores stray padding bits in persisted bytes', () => {
    const bytes = new Uint8Array(4).fill(0xff);
    expect(new DeletionVector(3, bytes).count()).toBe(3);
  });
});
