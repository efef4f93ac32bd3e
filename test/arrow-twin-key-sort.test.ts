// The buffer's entry sort (radix on the first 4 key bytes, then comparison within runs) agrees with a stable
// Buffer.compare sort: byte order, and entries of one key stay in write order.

import { describe, expect, it } from 'vitest';
import { BufferEntry } from '../storage/twin/twin-buffer.js';
import { sortEntries } from '../storage/twin/twin-key-sort.js';
import { seededRandom } from './support/seeded-random.js';

describe('sortEntries', () => {
  it('orders like a stable Buffer.compare sort: random tokens, shared partitions, rewrites, high bytes', () => {
    const r = seededRandom(7);
    const byte = () => Math.floor(r() * 256);
    for (const n of [0, 1, 5, 63, 64, 65, 1000, 20000]) {
      const entries: BufferEntry[] = [];
      const partitions: number[][] = [];
      while (entries.length < n) {
        const roll = r();
        let key: Buffer;
        if (roll < 0.2 && entries.length > 0) {
          key = Buffer.from(entries[Math.floor(r() * entries.length)]!.key); // the same row written again
        } else if (roll < 0.45 && partitions.length > 0) {
          key = Buffer.from([...partitions[Math.floor(r() * partitions.length)]!, 2, byte(), byte()]);
        } else if (roll < 0.5 && entries.length > 0) {
          const k = entries[Math.floor(r() * entries.length)]!.key;
          key = Buffer.from([k[0]!, k[1]!, k[2]!, k[3]!, byte(), byte(), byte(), byte(), 0, 1, byte()]);
        } else {
          const p = [byte(), byte(), byte(), byte(), byte(), byte(), byte(), byte(), 0, 2, byte(), byte()];
          partitions.push(p);
          key = Buffer.from(r() < 0.5 ? p : [...p, 2, byte()]);
        }
        // An entry over its own small record: key, then a value naming the write.
        const rec = Buffer.concat([key, Buffer.from([entries.length & 0xff, entries.length >> 8])]);
        entries.push(new BufferEntry(rec, 0, key.length, key.length, rec.length));
      }
      const expected = [...entries].sort((a, b) => Buffer.compare(a.key, b.key));
      expect(sortEntries([...entries]).map((e) => e.rec)).toEqual(expected.map((e) => e.rec));
    }
  });
});
