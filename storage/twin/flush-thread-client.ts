// The main thread's side of the flush thread (flush-thread.ts): one worker per process, started on the first
// flush that uses it, shared by every table. Jobs go out as messages (slices moved, not copied); answers are
// polled from a port (`take`, from the flush's paced steps) or waited for synchronously (`wait`: an admin flush
// runs its steps to the end in one call, so no event-loop turn could deliver a message).

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { FlushSlice } from './flush-input.js';
import type { FlushThreadData, FromFlushThread, ToFlushThread } from './flush-thread.js';
import type { SortedOffsets } from './flush-view.js';
import { SlabNames } from './record-arena.js';
import type { AssembledSegment, AssemblerSetup } from './segment-assembler.js';

/** A synchronous wait gives up after this long (the thread died, or is stuck). */
const WAIT_LIMIT_MS = 120_000;
const THREAD_FILE = 'storage/twin/flush-thread.js';

export class FlushThreadError extends Error {}

export class FlushThreadClient {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private nextJob = 1;
  private readonly answers = new Map<number, AssembledSegment | SortedOffsets | FlushThreadError>();
  private readonly open = new Set<number>();
  /** Set when the thread exits or fails: every open job fails, and `shared` starts another thread. */
  dead = false;

  private constructor(file: string, nice: number, idle: boolean) {
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(4);
    this.signal = new Int32Array(shared);
    this.port = port1;
    const data: FlushThreadData = { port: port2, signal: shared, nice, idle };
    this.worker = new Worker(file, { workerData: data, transferList: [port2] });
    // Neither keeps the process alive: a server exits while the thread idles.
    this.worker.unref();
    const died = (why: string) => {
      this.dead = true;
      for (const job of this.open) this.answers.set(job, new FlushThreadError(why));
    };
    this.worker.on('error', (e) => died(`flush thread failed: ${e.message}`));
    this.worker.on('exit', (code) => died(`flush thread exited (code ${code})`));
  }

  private static current: FlushThreadClient | undefined;
  private static file: string | null | undefined;

  /**
   * The process's flush thread (started now if needed, at `nice` or under SCHED_IDLE); undefined when its compiled
   * file is not found.
   */
  static shared(nice = 0, idle = false): FlushThreadClient | undefined {
    if (FlushThreadClient.current && !FlushThreadClient.current.dead) return FlushThreadClient.current;
    if (FlushThreadClient.file === undefined) FlushThreadClient.file = threadFile();
    if (FlushThreadClient.file === null) return undefined;
    FlushThreadClient.current = new FlushThreadClient(FlushThreadClient.file, nice, idle);
    return FlushThreadClient.current;
  }

  /** Sorts `records` (in the arena, oldest first) into a flush's view; the answer is SortedOffsets. */
  sort(records: readonly Buffer[]): number {
    const job = this.nextJob++;
    this.open.add(job);
    const at = new Float64Array(records.length * 3);
    const slabs = new SlabNames();
    records.forEach((r, i) => {
      at[3 * i] = slabs.name(r);
      at[3 * i + 1] = r.byteOffset;
      at[3 * i + 2] = r.length;
    });
    this.send({ type: 'sort', job, records: { at, slabs: slabs.take() } }, [at.buffer]);
    return job;
  }

  /** Assembles a segment from the slices sent next (`rows`, then `end`); the answer is an AssembledSegment. */
  begin(setup: AssemblerSetup): number {
    const job = this.nextJob++;
    this.open.add(job);
    this.send({ type: 'begin', job, setup });
    return job;
  }

  /** Moves the slice's row descriptions to the thread (unusable here afterwards); its slabs are shared. */
  rows(job: number, slice: FlushSlice): void {
    this.send({ type: 'rows', job, slice }, [slice.meta.buffer as ArrayBuffer]);
  }

  end(job: number): void {
    this.send({ type: 'end', job });
  }

  cancel(job: number): void {
    if (!this.open.delete(job)) return;
    this.answers.delete(job);
    if (!this.dead) this.send({ type: 'cancel', job });
  }

  /** The job's answer if the thread has given it (throws what the thread reported). */
  take<T extends AssembledSegment | SortedOffsets>(job: number): T | undefined {
    this.receive();
    const a = this.answers.get(job);
    if (!a) return undefined;
    this.answers.delete(job);
    this.open.delete(job);
    if (a instanceof FlushThreadError) throw a;
    return a as T;
  }

  /** Blocks until the job's answer arrives. */
  wait<T extends AssembledSegment | SortedOffsets>(job: number): T {
    const until = performance.now() + WAIT_LIMIT_MS;
    for (;;) {
      const seen = Atomics.load(this.signal, 0);
      const a = this.take<T>(job);
      if (a) return a;
      if (this.dead && !this.answers.has(job)) throw new FlushThreadError('flush thread is gone');
      const left = until - performance.now();
      if (left <= 0) throw new FlushThreadError(`flush thread did not answer within ${WAIT_LIMIT_MS} ms`);
      Atomics.wait(this.signal, 0, seen, Math.min(left, 100));
    }
  }

  private receive(): void {
    for (;;) {
      const m = receiveMessageOnPort(this.port);
      if (!m) return;
      const msg = m.message as FromFlushThread;
      if (!this.open.has(msg.job)) continue; // cancelled meanwhile
      this.answers.set(msg.job, msg.type === 'failed' ? new FlushThreadError(msg.message) : msg.result);
    }
  }

  private send(msg: ToFlushThread, transfer: ArrayBuffer[] = []): void {
    if (this.dead) throw new FlushThreadError('flush thread is gone');
    this.port.postMessage(msg, transfer);
  }
}

/**
 * The compiled thread file: next to this module when it runs from dist/, else (the server bundle, tests run from
 * the sources) dist/storage/twin/ of the checkout this module is in.
 */
function threadFile(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = resolve(here, 'flush-thread.js');
  if (existsSync(beside)) return beside;
  let dir = here;
  for (let i = 0; i < 4; i++) {
    dir = dirname(dir);
    const candidate = resolve(dir, 'dist', THREAD_FILE);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}
