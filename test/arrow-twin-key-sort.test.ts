// The buffer's entry sort (radix on the first 4 key bytes, then comparison within runs) agrees with a stable
// Buffer.compare sort: byte order, and entries of one key stay in write order.

import { describe, expect, it } from 'vitest';
import { BufferEntry } from '../storage/twin/buffer-entry.js';
import { sortRecordOffsets } from '../storage/twin/record-offset-sort.js';
import { SortedViewJob } from '../storage/twin/sorted-view-job.js';
import { EntrySorter } from '../storage/twin/twin-key-sort.js';
import { seededRandom } from './support/seeded-random.js';

/** A record entry's parts: [u32 key length][key][u32 value length][value]. */
function entryParts(key: Buffer, value: Buffer): Buffer[] {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(key.length);
  const vhead = Buffer.alloc(4);
  vhead.writeUInt32BE(value.length);
  return [head, key, vhead, value];
}

/** EntrySorter run to its end in one step. */
function sortEntries(entries: BufferEntry[]): BufferEntry[] {
  const s = new EntrySorter(entries);
  while (!s.step(1 << 30)) {}
  return s.out;
}

describe('EntrySorter', () => {
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

  it('sorts the same in small steps, long runs of one partition included (merge sorted in steps)', () => {
    const r = seededRandom(11);
    const entries: BufferEntry[] = [];
    const partition = [1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 9];
    for (let i = 0; i < 7000; i++) {
      // Most rows in one partition (one run of equal token bytes, longer than a step sorts at once).
      const key =
        r() < 0.8
          ? Buffer.from([...partition, Math.floor(r() * 256), Math.floor(r() * 256)])
          : Buffer.from(Array.from({ length: 12 }, () => Math.floor(r() * 256)));
      const rec = Buffer.concat([key, Buffer.from([i & 0xff, i >> 8])]);
      entries.push(new BufferEntry(rec, 0, key.length, key.length, rec.length));
    }
    const expected = [...entries].sort((a, b) => Buffer.compare(a.key, b.key));
    for (const budget of [1, 7, 100, 5000]) {
      const s = new EntrySorter([...entries]);
      let steps = 0;
      while (!s.step(budget)) steps++;
      expect(s.out.map((e) => e.rec.toString('hex')).join()).toEqual(expected.map((e) => e.rec.toString('hex')).join());
      expect(Array.from(s.sortedLow)).toEqual(s.out.map((e) => e.key.readUInt32BE(4)));
      if (budget < 5000) expect(steps).toBeGreaterThan(7000 / budget / 8);
    }
  });
});

describe('SortedViewJob', () => {
  it('keeps the latest entry of each key across records, in any step size', () => {
    const r = seededRandom(5);
    const records: Buffer[] = [];
    const latest = new Map<string, string>();
    for (let rec = 0; rec < 20; rec++) {
      const parts: Buffer[] = [];
      const count = 1 + Math.floor(r() * 200);
      for (let i = 0; i < count; i++) {
        const key = Buffer.from([...Array.from({ length: 8 }, () => Math.floor(r() * 4)), 0, 1, Math.floor(r() * 3)]);
        const value = Buffer.from(`r${rec}-${i}`);
        parts.push(...entryParts(key, value));
        latest.set(key.toString('hex'), value.toString());
      }
      records.push(Buffer.concat(parts));
    }
    const expected = [...latest.entries()].sort(([a], [b]) =>
      Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')),
    );
    for (const budget of [1, 13, 1 << 30]) {
      const job = new SortedViewJob(records);
      while (!job.step(budget)) {}
      expect(job.view.map((e) => [e.key.toString('hex'), e.value.toString()])).toEqual(expected);
      // The tokens the flush searches: each view entry's first 8 key bytes as two numbers.
      expect(Array.from(job.viewHigh)).toEqual(job.view.map((e) => e.key.readUInt32BE(0)));
      expect(Array.from(job.viewLow)).toEqual(job.view.map((e) => e.key.readUInt32BE(4)));
    }
  });
});

describe('sortRecordOffsets (the flush thread)', () => {
  it('picks and orders the entries SortedViewJob does: rewrites, shared tokens, key lengths, a long partition', () => {
    const r = seededRandom(9);
    const byte = () => Math.floor(r() * 256);
    const partition = [9, 8, 7, 6, 5, 4, 3, 2, 0, 1, 4];
    const records: Buffer[] = [];
    for (let rec = 0; rec < 40; rec++) {
      const parts: Buffer[] = [];
      const count = 1 + Math.floor(r() * 400);
      for (let i = 0; i < count; i++) {
        const roll = r();
        const key =
          roll < 0.5
            ? Buffer.from([...partition, byte(), byte(), byte()]) // one partition's rows: a run longer than 2048
            : roll < 0.7
              ? Buffer.from([...Array.from({ length: 8 }, () => Math.floor(r() * 3)), 0, 1, Math.floor(r() * 3)])
              : Buffer.from([1, 1, 1, 1, byte(), byte(), byte(), byte(), 0, 2, byte(), ...(r() < 0.5 ? [byte()] : [])]);
        const value = Buffer.from(`r${rec}-${i}`);
        parts.push(...entryParts(key, value));
      }
      records.push(Buffer.concat(parts));
    }
    const job = new SortedViewJob(records);
    const view = job.finish();
    expect(view.filter((e) => e.rec[e.keyAt] === 9 && e.rec[e.keyAt + 1] === 8).length).toBeGreaterThan(2048);
    const o = sortRecordOffsets(records);
    expect(o.rec.length).toBe(view.length);
    view.forEach((e, i) => {
      expect(records[o.rec[i]!]).toBe(e.rec);
      expect([o.keyAt[i], o.keyEnd[i], o.valueAt[i], o.valueEnd[i]]).toEqual([
        e.keyAt,
        e.keyEnd,
        e.valueAt,
        e.valueEnd,
      ]);
    });
    expect(Array.from(o.high)).toEqual(Array.from(job.viewHigh));
    expect(Array.from(o.low)).toEqual(Array.from(job.viewLow));
    expect(sortRecordOffsets([]).rec.length).toBe(0);
  });
});
