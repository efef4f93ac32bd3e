// A simulated power cut for a journaled data directory whose process was killed: every byte no completed
// fdatasync covered may be lost. The process ran with PMEMCQL_JOURNAL_SYNC_LOG (the addon's line per completed
// sync: "<wall ms at its start> <file>:<bytes durable> ..."), so each journal file keeps what its last sync covered
// and loses a random part of the rest — cut at a random point, or, as when a later page reached the disk before an
// earlier one, with a byte of the first unsynced record flipped instead. The working pool gets random pages
// overwritten (or is deleted), and the next open must run with another boot id (PMEMCQL_BOOT_ID), as after a reboot.

import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface SyncLog {
  /** Per journal file name: bytes its last sync covered. */
  durable: Map<string, number>;
  /** Start (ms since the epoch) of the last completed sync by the sync thread: writes acknowledged before it are durable. */
  lastSyncStartMs: number | undefined;
}

/** Reads the sync log the addon wrote (PMEMCQL_JOURNAL_SYNC_LOG). */
export function readSyncLog(file: string): SyncLog {
  const log: SyncLog = { durable: new Map(), lastSyncStartMs: undefined };
  if (!existsSync(file)) return log;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const parts = line.trim().split(' ');
    if (parts.length < 2) continue;
    const checkpoint = parts[parts.length - 1] === 'checkpoint';
    for (const p of parts.slice(1, checkpoint ? -1 : undefined)) {
      const at = p.lastIndexOf(':');
      log.durable.set(p.slice(0, at), Number(p.slice(at + 1)));
    }
    if (!checkpoint) log.lastSyncStartMs = Number(parts[0]);
  }
  return log;
}

export interface PowerCut {
  /** Start of the last completed sync (see SyncLog); undefined when none completed. */
  lastSyncStartMs: number | undefined;
  /** What was done, for the test's log. */
  done: string[];
  /** Bytes of journal lost (cut off or left behind a flipped byte). */
  lostBytes: number;
  /** The boot id the next open must run with. */
  bootId: string;
}

/**
 * Applies a power cut to the journaled pool `<dir>/<stem>.pool` (its process is dead), `random` choosing what is lost.
 * Truncates the sync log: the next process starts a fresh one.
 */
export function powerCut(dir: string, stem: string, syncLogFile: string, random: () => number): PowerCut {
  const log = readSyncLog(syncLogFile);
  const cut: PowerCut = { lastSyncStartMs: log.lastSyncStartMs, done: [], lostBytes: 0, bootId: randomUUID() };
  for (const name of [`${stem}.journal-0`, `${stem}.journal-1`]) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    const size = statSync(file).size;
    const durable = Math.min(log.durable.get(name) ?? 0, size);
    if (size === durable) continue;
    const keep = durable + Math.floor(random() * (size - durable));
    if (random() < 0.3 && keep + 64 < size) {
      // Everything stays but one byte of what was not synced: a torn page in the middle.
      const at = keep + Math.floor(random() * Math.min(4096, size - keep));
      const fd = openSync(file, 'r+');
      const b = Buffer.alloc(1);
      b[0] = (readFileSync(file)[at]! ^ (1 + Math.floor(random() * 255))) & 255;
      writeSync(fd, b, 0, 1, at);
      closeSync(fd);
      cut.done.push(`${name}: byte ${at} flipped (durable ${durable} of ${size})`);
    } else {
      truncateSync(file, keep);
      cut.done.push(`${name}: cut at ${keep} (durable ${durable} of ${size})`);
    }
    cut.lostBytes += size - keep;
  }
  const pool = join(dir, `${stem}.pool`);
  if (existsSync(pool)) {
    if (random() < 0.25) {
      rmSync(pool);
      cut.done.push('working pool deleted');
    } else {
      // Pages written back in no particular order: some hold garbage as far as the next boot can tell.
      const size = statSync(pool).size;
      const fd = openSync(pool, 'r+');
      const garbage = Buffer.alloc(4096);
      for (let i = 0; i < 8; i++) {
        for (let j = 0; j < garbage.length; j++) garbage[j] = Math.floor(random() * 256);
        writeSync(fd, garbage, 0, garbage.length, Math.floor((random() * size) / 4096) * 4096);
      }
      closeSync(fd);
      cut.done.push('8 working pool pages overwritten');
    }
  }
  truncateSync(syncLogFile, 0);
  return cut;
}
