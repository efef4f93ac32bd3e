import { Field, Int64, makeData, RecordBatch, Schema, Struct, Table, tableToIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { openSegment } from '../storage/arrow/segment-reader.js';
import { tokenToSortableBytes } from '../storage/murmur3-token.js';
import { TokenFilter } from '../storage/twin/token-filter.js';

const halves = (t: bigint): [number, number] => {
  const b = tokenToSortableBytes(t);
  return [b.readInt32BE(0) ^ (0x80000000 | 0), b.readInt32BE(4)];
};

describe('TokenFilter', () => {
  it('never misses a token of the segment, and rejects most others', () => {
    const n = 5000;
    const tokens = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const hi = BigInt(Math.floor(Math.random() * 2 ** 32));
      const lo = BigInt(Math.floor(Math.random() * 2 ** 32));
      tokens[i] = BigInt.asIntN(64, (hi << 32n) | lo);
    }
    tokens[0] = -(2n ** 63n);
    tokens[1] = 2n ** 63n - 1n;
    tokens[2] = 0n;
    const field = new Field('_token', new Int64(), false);
    const child = makeData({ type: new Int64(), length: n, nullCount: 0, data: tokens });
    const data = makeData({ type: new Struct([field]), length: n, nullCount: 0, children: [child] });
    const seg = openSegment(tableToIPC(new Table(new RecordBatch(new Schema([field]), data)), 'file'));
    const f = TokenFilter.ofSegment(seg, 0);
    for (const t of tokens) expect(f.mayContain(...halves(t))).toBe(true);
    let hits = 0;
    for (let i = 0; i < 10000; i++) {
      const t = BigInt.asIntN(64, BigInt(Math.floor(Math.random() * 2 ** 53)) * 2048n + 7n);
      if (f.mayContain(...halves(t))) hits++;
    }
    expect(hits).toBeLessThan(500);
    expect(new TokenFilter(0).mayContain(0, 0)).toBe(false);
  });
});
