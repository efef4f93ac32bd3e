// One program in an engine instance of its own (quickjs-instances.ts): a QuickJS runtime and context in a
// WebAssembly memory whose size is the isolate's memory limit, a time limit per call, and a stack limit. Isolates
// share nothing. After a call that was interrupted, ran out of memory or stack, or trapped, the instance is
// dropped whole (never reused, never even freed from inside: its memory goes with it), so no half-finished state
// survives. Instances are created asynchronously: prepare() before a statement runs, call() during it.

import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { CALENDAR_PRELUDE } from './calendar-prelude.js';
import { CQL_CODEC_PRELUDE } from './cql-codec-prelude.js';
import { executionWatchdog, isWatchdogTermination } from './execution-watchdog.js';
import { HARDENING_PRELUDE } from './hardening-prelude.js';
import type { QuickJsInstances } from './quickjs-instances.js';
import { RUNNER_PRELUDE } from './runner-prelude.js';
import { SandboxFailure } from './sandbox-failure.js';
import type { SandboxProgram } from './sandbox-program.js';

export interface SandboxLimits {
  /** Wall-clock time one call (or building the isolate) may take before it is interrupted. */
  readonly timeoutMs: number;
  /** Bytes of WebAssembly memory the isolate's engine instance may grow to (its heap, stack and data). */
  readonly memoryBytes: number;
  /** Bytes of stack the isolate's JavaScript may use (deep recursion ends with a stack overflow). */
  readonly stackBytes: number;
}

interface Live {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly invoke: QuickJSHandle;
  readonly entry: QuickJSHandle;
}

const EXHAUSTED = /^InternalError: (out of memory|stack overflow)/;
/** The watchdog stops what the engine's interrupt handler did not, this long after the time limit. */
const WATCHDOG_GRACE_MS = 100;

export class SandboxIsolate {
  private live: Live | undefined;
  /** A call left promise jobs queued: the isolate still serves the statement running, then is replaced. */
  private tainted = false;
  private deadline = 0;
  private interrupted = false;
  /** The call in progress, for `invokeLive` (one closure per isolate rather than one per call). */
  private callLive: Live | undefined;
  private callArgument: QuickJSHandle | undefined;
  private readonly invokeLive = () => {
    const live = this.callLive!;
    return live.context.callFunction(live.invoke, live.context.undefined, live.entry, this.callArgument!);
  };

  constructor(
    private readonly instances: QuickJsInstances,
    private readonly program: SandboxProgram,
    private readonly limits: SandboxLimits,
  ) {}

  /** Whether prepare() has work to do (no engine instance yet, or one to replace). */
  get needsPreparation(): boolean {
    return this.live === undefined || this.tainted;
  }

  /** Builds the isolate in a fresh engine instance, waiting for one if needed; a program that does not compile throws. */
  async prepare(): Promise<void> {
    if (!this.needsPreparation) return;
    const instance = this.instances.take() ?? (await this.instances.instance());
    if (!this.needsPreparation) return; // prepared by another statement meanwhile
    this.drop();
    this.live = this.build(instance);
  }

  /** Calls the program's entry with serialized arguments; its serialized result, or null. */
  call(args: readonly (Buffer | null)[]): Buffer | null {
    const live = this.live ?? this.buildNow();
    const packed = pack(args);
    let failure: SandboxFailure | undefined;
    let result: Buffer | null = null;
    try {
      const { context } = live;
      const argument = context.newArrayBuffer(packed);
      this.startClock();
      this.callLive = live;
      this.callArgument = argument;
      const outcome = this.withinDeadline(this.invokeLive);
      this.callLive = undefined;
      this.callArgument = undefined;
      argument.dispose();
      if (outcome.error) {
        outcome.error.dispose();
        failure = this.interrupted
          ? new SandboxFailure('timeout', `ran longer than ${this.limits.timeoutMs}ms`)
          : new SandboxFailure('exhausted', 'the function ran out of memory or stack');
      } else {
        const value = outcome.value;
        const kind = context.typeof(value);
        if (kind === 'string') {
          const detail = context.getString(value);
          failure = new SandboxFailure(EXHAUSTED.test(detail) ? 'exhausted' : 'thrown', detail);
        } else if (kind === 'object') {
          const bytes = context.getArrayBuffer(value);
          result = Buffer.from(bytes.value);
          bytes.dispose();
        }
        value.dispose();
      }
      if (failure && failure.reason !== 'thrown') this.drop();
      else if (live.runtime.hasPendingJob()) this.tainted = true;
    } catch (e) {
      throw this.engineFailed(e);
    }
    if (failure) throw failure;
    return result;
  }

  /** Forgets the isolate (its function was dropped or replaced); the engine instance goes with it. */
  dispose(): void {
    this.drop();
  }

  /** Without prepare(): only a spare instance can be used, since none can be created synchronously. */
  private buildNow(): Live {
    const instance = this.instances.take();
    if (!instance) throw new SandboxFailure('engine', 'no sandbox engine instance is ready yet; try again');
    this.live = this.build(instance);
    return this.live;
  }

  private withinDeadline<T>(fn: () => T): T {
    return executionWatchdog().callWithin(this.limits.timeoutMs + WATCHDOG_GRACE_MS, fn);
  }

  private startClock(): void {
    this.interrupted = false;
    this.deadline = performance.now() + this.limits.timeoutMs;
  }

  private build(instance: QuickJSWASMModule): Live {
    try {
      const runtime = instance.newRuntime();
      runtime.setMemoryLimit(this.limits.memoryBytes);
      runtime.setMaxStackSize(this.limits.stackBytes);
      runtime.setInterruptHandler(() => {
        if (performance.now() <= this.deadline) return false;
        this.interrupted = true;
        return true;
      });
      const context = runtime.newContext();
      this.startClock();
      return this.withinDeadline(() => {
        for (const prelude of [
          CQL_CODEC_PRELUDE,
          CALENDAR_PRELUDE,
          RUNNER_PRELUDE,
          ...this.program.preludes,
          HARDENING_PRELUDE,
        ]) {
          this.evaluate(context, prelude.source, `${prelude.name}.js`).dispose();
        }
        const invoke = context.getProp(context.global, '__invoke');
        const entry = this.evaluate(context, this.program.entry, 'udf.js');
        return { runtime, context, invoke, entry };
      });
    } catch (e) {
      if (e instanceof SandboxFailure) throw e;
      throw this.engineFailed(e);
    }
  }

  private evaluate(context: QuickJSContext, source: string, filename: string): QuickJSHandle {
    const outcome = context.evalCode(source, filename, { type: 'global', strict: true });
    if (!outcome.error) return outcome.value;
    // Only our own preludes and the generated entry run here (no user code executes while building), so the
    // error object can be read without running code the user wrote.
    const error = outcome.error;
    const message = this.interrupted ? 'compiling took too long' : errorText(context, error);
    error.dispose();
    throw new SandboxFailure('compile', message);
  }

  /** The instance's state is unknown after a trap or a termination: it is dropped. */
  private engineFailed(e: unknown): SandboxFailure {
    this.drop();
    if (isWatchdogTermination(e)) return new SandboxFailure('timeout', `ran longer than ${this.limits.timeoutMs}ms`);
    // Recursion inside one of the engine's built-ins (JSON.stringify of a deep structure) runs on the host stack.
    if (e instanceof RangeError) return new SandboxFailure('exhausted', 'InternalError: stack overflow');
    return new SandboxFailure('engine', `the sandbox engine failed (${(e as Error)?.message ?? String(e)})`);
  }

  private drop(): void {
    this.live = undefined;
    this.tainted = false;
  }
}

function errorText(context: QuickJSContext, error: QuickJSHandle): string {
  const read = (name: string) => {
    const h = context.getProp(error, name);
    const s = context.typeof(h) === 'string' ? context.getString(h) : undefined;
    h.dispose();
    return s;
  };
  const name = read('name');
  const message = read('message') ?? 'unknown error';
  return name ? `${name}: ${message}` : message;
}

/** [int32 count] then [int32 length or -1][bytes] per argument. */
function pack(args: readonly (Buffer | null)[]): ArrayBuffer {
  let size = 4;
  for (const a of args) size += 4 + (a ? a.length : 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setInt32(0, args.length);
  let o = 4;
  for (const a of args) {
    view.setInt32(o, a ? a.length : -1);
    o += 4;
    if (a) {
      out.set(a, o);
      o += a.length;
    }
  }
  return out.buffer;
}
