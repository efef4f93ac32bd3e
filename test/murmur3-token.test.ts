import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_TOKEN,
  MIN_TOKEN,
  murmur3Token,
  sortableBytesToToken,
  tokenToSortableBytes,
  writeSortableToken,
} from '../storage/murmur3-token.js';
import { deserializePartitionKey, serializePartitionKey } from '../storage/partition-key.js';

const require = createRequire(import.meta.url);
const tokenizer = require('cassandra-driver/lib/tokenizer.js');
const driverTokenizer = new tokenizer.Murmur3Tokenizer();

function driverToken(key: Buffer): bigint {
  return BigInt(driverTokenizer.hash(key).getValue().toString());
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

describe('murmur3Token', () => {
  it('matches known Cassandra tokens', () => {
    expect(murmur3Token(int32(1))).toBe(-4069959284402364209n);
    expect(murmur3Token(int32(1))).toBe(driverToken(int32(1)));
    expect(murmur3Token(Buffer.from('a'))).toBe(driverToken(Buffer.from('a')));
    expect(murmur3Token(Buffer.alloc(0))).toBe(MIN_TOKEN);
  });

  it('matches the driver tokenizer on random keys of every length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), (bytes) => {
        const key = Buffer.from(bytes);
        expect(murmur3Token(key)).toBe(driverToken(key));
      }),
      { numRuns: 5000 },
    );
  });

  it('matches the driver on composite keys', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 40 }), { minLength: 2, maxLength: 4 }), (parts) => {
        const key = serializePartitionKey(parts.map((p) => Buffer.from(p)));
        expect(murmur3Token(key)).toBe(driverToken(key));
        expect(deserializePartitionKey(key, parts.length).map((b) => [...b])).toEqual(parts.map((p) => [...p]));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes sortable bytes equal to tokenToSortableBytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 40 }), (bytes) => {
        const key = Buffer.from(bytes);
        const out = writeSortableToken(key, Buffer.alloc(8));
        expect(out.equals(tokenToSortableBytes(murmur3Token(key)))).toBe(true);
        expect(sortableBytesToToken(out)).toBe(murmur3Token(key));
      }),
      { numRuns: 1000 },
    );
  });

  it('sortable bytes preserve signed order', () => {
    const tok = fc.bigInt({ min: MIN_TOKEN, max: MAX_TOKEN });
    fc.assert(
      fc.property(tok, tok, (a, b) => {
        const c = Buffer.compare(tokenToSortableBytes(a), tokenToSortableBytes(b));
        expect(Math.sign(c)).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });

  it('single-component keys are the component bytes', () => {
    const k = Buffer.from([1, 2, 3]);
    expect(serializePartitionKey([k])).toBe(k);
    expect(serializePartitionKey([Buffer.from('ab'), Buffer.from([7])])).toEqual(
      Buffer.from([0, 2, 0x61, 0x62, 0, 0, 1, 7, 0]),
    );
  });
});
