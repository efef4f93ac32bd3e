// The flush thread's entry point (a worker_threads Worker started by flush-thread-client.ts): it sorts a flush's
// buffer records into its view (record-offset-sort.ts) and assembles segments (segment-assembler.ts) from the slices
// of row descriptions the main thread sends (flush-input.ts: where each row's bytes are in the record arena), so the
// read, build, serialize, key index and token filter steps of a flush (~2/3 of its CPU) leave the event loop that
// serves requests. It never touches the pool. Answers go to the port the client polls; the shared counter wakes
// a client waiting synchronously (an admin flush).

import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { type MessagePort, workerData } from 'node:worker_threads';
import { threadScheduling } from '../native-binding.js';
import type { FlushSlice } from './flush-input.js';
import type { SortedOffsets } from './flush-view.js';
import { sortRecordOffsets } from './record-offset-sort.js';
import { type AssembledSegment, type AssemblerSetup, SegmentAssembler } from './segment-assembler.js';

export type ToFlushThread =
  | { readonly type: 'sort'; readonly job: number; readonly records: SortInput }
  | { readonly type: 'begin'; readonly job: number; readonly setup: AssemblerSetup }
  | { readonly type: 'rows'; readonly job: number; readonly slice: FlushSlice }
  | { readonly type: 'end'; readonly job: number }
  | { readonly type: 'cancel'; readonly job: number };

export type FromFlushThread =
  | { readonly type: 'sorted'; readonly job: number; readonly result: SortedOffsets }
  | { readonly type: 'done'; readonly job: number; readonly result: AssembledSegment }
  | { readonly type: 'failed'; readonly job: number; readonly message: string };

export interface FlushThreadData {
  readonly port: MessagePort;
  /**
   * Two Int32s: [0] a counter bumped after every answer; [1] this thread's id once it runs under SCHED_IDLE (0
   * otherwise), for the main thread to lift it out while it waits on it (flush-thread-client.ts).
   */
  readonly signal: SharedArrayBuffer;
  /** Scheduling priority of this thread (nice value; 0: the process's). */
  readonly nice: number;
  /** Run under SCHED_IDLE instead (falls back to `nice` if that fails). */
  readonly idle: boolean;
}

const READ_ALL = Number.MAX_SAFE_INTEGER;

function run(data: FlushThreadData): void {
  const { port } = data;
  const signal = new Int32Array(data.signal);
  Atomics.store(signal, 1, lowerPriority(data.nice, data.idle));
  const jobs = new Map<number, SegmentAssembler>();
  const answer = (msg: FromFlushThread, transfer: ArrayBuffer[] = []): void => {
    port.postMessage(msg, transfer);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  port.on('message', (msg: ToFlushThread) => {
    const job = msg.job;
    try {
      switch (msg.type) {
        case 'sort': {
          const result = sortRecords(msg.records);
          answer(
            { type: 'sorted', job, result },
            Object.values(result).map((a: Uint32Array) => a.buffer as ArrayBuffer),
          );
          break;
        }
        case 'begin':
          jobs.set(job, new SegmentAssembler(msg.setup));
          break;
        case 'rows': {
          const a = jobs.get(job);
          if (!a) break;
          a.add(msg.slice);
          // Read what arrived while the event loop describes the next slice.
          a.step(READ_ALL);
          break;
        }
        case 'end': {
          const a = jobs.get(job);
          if (!a) break;
          jobs.delete(job);
          a.end();
          while (!a.step(READ_ALL)) {}
          const r = a.result!;
          answer({ type: 'done', job, result: r }, transferables(r));
          break;
        }
        case 'cancel':
          jobs.delete(job);
          break;
      }
    } catch (e) {
      jobs.delete(job);
      answer({ type: 'failed', job, message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  });
}

/** The records to sort: per record its slab id, offset and length (`at`), and the slabs by id. */
export interface SortInput {
  readonly at: Float64Array;
  readonly slabs: readonly (readonly [number, SharedArrayBuffer])[];
}

/** The sorted view (latest entry per key) of the records, as offsets. */
function sortRecords(input: SortInput): SortedOffsets {
  const slabs = new Map<number, SharedArrayBuffer>(input.slabs);
  const at = input.at;
  const records: Buffer[] = [];
  for (let i = 0; i < at.length; i += 3) records.push(Buffer.from(slabs.get(at[i]!)!, at[i + 1]!, at[i + 2]!));
  return sortRecordOffsets(records);
}

/** The result's arrays that own their memory (moved, not copied); a view into shared memory is copied instead. */
function transferables(r: AssembledSegment): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const owned = (a: ArrayBufferView | undefined): void => {
    if (a && a.buffer instanceof ArrayBuffer && a.byteOffset === 0 && a.byteLength === a.buffer.byteLength) {
      out.add(a.buffer);
    }
  };
  owned(r.fates);
  owned(r.segmentRow);
  owned(r.ipc);
  owned(r.keyIndex);
  owned(r.tokenWords);
  if (r.keyParts) for (const p of Object.values(r.keyParts)) owned(p as Uint32Array);
  return [...out];
}

/**
 * Linux schedules threads as tasks: the thread's own id takes a policy and a nice value of its own. SCHED_IDLE
 * (the default) lets a woken event loop take this thread's CPU at once, where nice 10 left it queued behind a
 * client process on the other CPU (docs/benchmarks.md). Returns the thread's id when it is under
 * SCHED_IDLE, else 0.
 */
function lowerPriority(nice: number, idle: boolean): number {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) return 0;
    if (idle && threadScheduling(tid, true)) return tid;
    if (nice !== 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the thread runs at the process's priority.
  }
  return 0;
}

if (workerData && (workerData as Partial<FlushThreadData>).port) run(workerData as FlushThreadData);
