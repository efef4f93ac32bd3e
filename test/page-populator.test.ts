// The page populator (native/src/page-populator.cc): memory handed to populateLater is faulted in by a background
// thread, so the caller's first writes to it take no page faults. The twin's record arena hands it each next slab.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { populateLater } from '../storage/native-binding.js';
import { RecordArena } from '../storage/twin/record-arena.js';

const MiB = 1024 * 1024;
const PAGES = (64 * MiB) / 4096;

/** Minor page faults of the calling thread so far. */
function minorFaults(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}

/** The process's resident memory in bytes. */
function residentBytes(): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}

/** Faults taken while writing one byte a page of `b`. */
function faultsWriting(b: Buffer): number {
  const before = minorFaults();
  for (let i = 0; i < b.length; i += 4096) b[i] = 1;
  return minorFaults() - before;
}

describe.skipIf(process.platform !== 'linux')('page populator', () => {
  it('faults in a buffer off the calling thread', async () => {
    // 64 MiB: above glibc's largest mmap threshold, so each is fresh, untouched memory.
    const control = Buffer.from(new SharedArrayBuffer(64 * MiB));
    const populated = Buffer.from(new SharedArrayBuffer(64 * MiB));
    const before = residentBytes();
    populateLater(populated, true);
    // The thread is under SCHED_IDLE: on a machine busy with other tests it may wait seconds for an idle moment.
    for (const until = Date.now() + 20_000; residentBytes() - before < 60 * MiB && Date.now() < until; ) {
      await sleep(50);
    }
    expect(faultsWriting(control)).toBeGreaterThan(PAGES / 2);
    expect(faultsWriting(populated)).toBeLessThan(PAGES / 10);
  });

  it('leaves the bytes as they are, written meanwhile or not', async () => {
    const b = Buffer.from(new SharedArrayBuffer(4 * MiB));
    b.fill(7, 0, MiB);
    populateLater(b, true);
    b.fill(9, MiB, 2 * MiB);
    await sleep(200);
    expect(b.subarray(0, MiB).every((x) => x === 7)).toBe(true);
    expect(b.subarray(MiB, 2 * MiB).every((x) => x === 9)).toBe(true);
    expect(b.subarray(2 * MiB).every((x) => x === 0)).toBe(true);
  });

  it('the record arena copies records intact across its slabs, spare ones included', () => {
    const arena = new RecordArena();
    const copies: [Buffer, number][] = [];
    // ~6 MiB of 300-byte records: slabs from 4 KiB up to 1 MiB, each one after 64 KiB allocated ahead.
    for (let i = 0; i < 20_000; i++) {
      const src = Buffer.alloc(300, i & 0xff);
      copies.push([arena.copy(src), i & 0xff]);
    }
    for (const [copy, v] of copies) {
      expect(copy.length).toBe(300);
      expect(copy[0]).toBe(v);
      expect(copy[299]).toBe(v);
    }
  });
});
