// The main thread's side of the flush thread (flush-thread.ts): one worker per process, started on the first
// flush that uses it, shared by every table. Jobs go out as messages (slices moved, not copied); answers are
// polled from a port (`take`, from the flush's paced steps) or waited for synchronously (`wait`: an admin flush
// runs its steps to the end in one call, so no event-loop turn could deliver a message).
//
// The thread runs under SCHED_IDLE, so on cores kept busy by other processes it gets almost no CPU (a SCHED_IDLE
// task weighs 3 against a normal one's 1024). Where that would starve the server, the thread is lifted back to
// SCHED_OTHER until it answers: while the event loop blocks on it (`wait`: priority inheritance), and once a job's
// answer is overdue by LIFT_AFTER_MS (a flush that falls that far behind lets the buffer grow). Leaving SCHED_IDLE
// needs CAP_SYS_NICE (or a RLIMIT_NICE allowing it); where it is refused the thread stays as it is.

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { threadScheduling } from '../native-binding.js';
import type { FlushSlice } from './flush-input.js';
import type { FlushThreadData, FromFlushThread, ToFlushThread } from './flush-thread.js';
import type { SortedOffsets } from './flush-view.js';
import { SlabNames } from './record-arena.js';
import type { AssembledSegment, AssemblerSetup } from './segment-assembler.js';

/** A synchronous wait gives up after this long (the thread died, or is stuck). */
const WAIT_LIMIT_MS = 120_000;
/** A job whose answer is this late lifts the thread out of SCHED_IDLE (see above). */
const LIFT_AFTER_MS = 1_000;
const THREAD_FILE = 'storage/twin/flush-thread.js';

export class FlushThreadError extends Error {}

/** How often the thread was lifted out of SCHED_IDLE (tests, metrics). */
export const flushThreadLifts = { count: 0 };

export class FlushThreadClient {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  private nextJob = 1;
  private readonly answers = new Map<number, AssembledSegment | SortedOffsets | FlushThreadError>();
  /** Open jobs, with the time their answer became due (Infinity until an assembly has all its rows). */
  private readonly open = new Map<number, number>();
  /** The thread is out of SCHED_IDLE now; `liftRefused`: the system does not allow it (tried once). */
  private lifted = false;
  private liftRefused = false;
  /** A synchronous wait is under way. */
  private waiting = false;
  /** Set when the thread exits or fails: every open job fails, and `shared` starts another thread. */
  dead = false;

  private constructor(file: string, nice: number, idle: boolean) {
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(8);
    this.signal = new Int32Array(shared);
    this.port = port1;
    const data: FlushThreadData = { port: port2, signal: shared, nice, idle };
    this.worker = new Worker(file, { workerData: data, transferList: [port2] });
    // Neither keeps the process alive: a server exits while the thread idles.
    this.worker.unref();
    const died = (why: string) => {
      this.dead = true;
      for (const job of this.open.keys()) this.answers.set(job, new FlushThreadError(why));
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

  /** Whether the process's flush thread runs, and whether it is lifted out of SCHED_IDLE now. */
  static status(): { running: boolean; lifted: boolean } {
    const c = FlushThreadClient.current;
    return { running: !!c && !c.dead, lifted: !!c && !c.dead && c.lifted };
  }

  /** The flush thread's id while it runs under SCHED_IDLE (its scheduling is managed here), else undefined. */
  static idleThreadId(): number | undefined {
    const c = FlushThreadClient.current;
    const tid = c && !c.dead ? Atomics.load(c.signal, 1) : 0;
    return tid === 0 ? undefined : tid;
  }

  /** Sorts `records` (in the arena, oldest first) into a flush's view; the answer is SortedOffsets. */
  sort(records: readonly Buffer[]): number {
    const job = this.nextJob++;
    this.open.set(job, performance.now());
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
    this.open.set(job, Number.POSITIVE_INFINITY);
    this.send({ type: 'begin', job, setup });
    return job;
  }

  /** Moves the slice's row descriptions to the thread (unusable here afterwards); its slabs are shared. */
  rows(job: number, slice: FlushSlice): void {
    this.send({ type: 'rows', job, slice }, [slice.meta.buffer as ArrayBuffer]);
  }

  end(job: number): void {
    this.send({ type: 'end', job });
    if (this.open.has(job)) this.open.set(job, performance.now());
  }

  cancel(job: number): void {
    if (!this.open.delete(job)) return;
    this.answers.delete(job);
    if (!this.dead) this.send({ type: 'cancel', job });
    this.schedule();
  }

  /** The job's answer if the thread has given it (throws what the thread reported). */
  take<T extends AssembledSegment | SortedOffsets>(job: number): T | undefined {
    this.receive();
    const a = this.answers.get(job);
    if (!a) {
      this.schedule();
      return undefined;
    }
    this.answers.delete(job);
    this.open.delete(job);
    this.schedule();
    if (a instanceof FlushThreadError) throw a;
    return a as T;
  }

  /** Blocks until the job's answer arrives (the thread out of SCHED_IDLE meanwhile). */
  wait<T extends AssembledSegment | SortedOffsets>(job: number): T {
    const until = performance.now() + WAIT_LIMIT_MS;
    this.waiting = true;
    try {
      for (;;) {
        const seen = Atomics.load(this.signal, 0);
        const a = this.take<T>(job);
        if (a) return a;
        if (this.dead && !this.answers.has(job)) throw new FlushThreadError('flush thread is gone');
        const left = until - performance.now();
        if (left <= 0) throw new FlushThreadError(`flush thread did not answer within ${WAIT_LIMIT_MS} ms`);
        Atomics.wait(this.signal, 0, seen, Math.min(left, 100));
      }
    } finally {
      this.waiting = false;
      this.schedule();
    }
  }

  /** Lifts the thread out of SCHED_IDLE while the event loop waits on it or an answer is overdue; else puts it back. */
  private schedule(): void {
    const tid = Atomics.load(this.signal, 1);
    if (tid === 0 || this.dead) return; // not under SCHED_IDLE (or not running yet)
    let lift = this.waiting;
    if (!lift && !this.liftRefused) {
      const overdue = performance.now() - LIFT_AFTER_MS;
      for (const [job, due] of this.open) {
        if (due <= overdue && !this.answers.has(job)) {
          lift = true;
          break;
        }
      }
    }
    if (lift === this.lifted || (lift && this.liftRefused)) return;
    if (lift) {
      if (!threadScheduling(tid, false)) {
        this.liftRefused = true;
        return;
      }
      flushThreadLifts.count++;
    } else threadScheduling(tid, true);
    this.lifted = lift;
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
