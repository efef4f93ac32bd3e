// Instances of the QuickJS engine compiled to WebAssembly (quickjs-emscripten): one per function isolate, each with
// a WebAssembly memory of its own whose maximum is the isolate's memory limit (QuickJS's own accounting misses
// array buffers in this build), so a function can neither exceed its limit nor touch another's memory, and an
// instance whose state is in doubt is simply dropped. The module is compiled once; an instance takes ~4 ms to
// create and can only be created asynchronously, so a spare is kept ready.
//
// Loaded only when user-defined functions are enabled, through require, so the server bundle does not carry it.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

const PAGE = 64 * 1024;
/** The engine's WebAssembly module asks for this much memory to start with (its static data, stack and heap). */
export const ENGINE_INITIAL_BYTES = 256 * PAGE;

type Core = typeof import('quickjs-emscripten-core');
type Variant = import('quickjs-emscripten-core').QuickJSSyncVariant;

/** The WebAssembly API (not in this project's TypeScript lib). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number; maximum: number }) => object;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export class QuickJsInstances {
  private spare: QuickJSWASMModule | undefined;
  private filling: Promise<void> | undefined;

  private constructor(
    private readonly core: Core,
    private readonly variant: Variant,
    private readonly compiled: object,
    private readonly maximumPages: number,
  ) {}

  /** Compiles the engine's module; instances get `memoryBytes` of WebAssembly memory at most. */
  static async start(memoryBytes: number): Promise<QuickJsInstances> {
    const load = createRequire(import.meta.url);
    const core = load('quickjs-emscripten-core') as Core;
    const variantPath = load.resolve('@jitl/quickjs-wasmfile-release-sync');
    const variant = (load(variantPath) as { default: Variant }).default;
    const compiled = new wasm.Module(readFileSync(resolve(dirname(variantPath), 'emscripten-module.wasm')));
    const pages = Math.max(ENGINE_INITIAL_BYTES / PAGE, Math.floor(memoryBytes / PAGE));
    const instances = new QuickJsInstances(core, variant, compiled, pages);
    await instances.fill();
    return instances;
  }

  /** A ready instance, if one is (the spare); a new spare is started at once. */
  take(): QuickJSWASMModule | undefined {
    const ready = this.spare;
    this.spare = undefined;
    void this.fill();
    return ready;
  }

  /** An instance, waiting for one if none is ready. */
  async instance(): Promise<QuickJSWASMModule> {
    for (;;) {
      const ready = this.take();
      if (ready) return ready;
      await this.fill();
    }
  }

  private fill(): Promise<void> {
    if (this.spare) return Promise.resolve();
    this.filling ??= this.create().then(
      (m) => {
        this.spare = m;
        this.filling = undefined;
      },
      (e: unknown) => {
        this.filling = undefined;
        throw e;
      },
    );
    return this.filling;
  }

  private create(): Promise<QuickJSWASMModule> {
    const variant = this.core.newVariant(this.variant, {
      wasmModule: this.compiled as never,
      wasmMemory: () => new wasm.Memory({ initial: ENGINE_INITIAL_BYTES / PAGE, maximum: this.maximumPages }) as never,
    });
    return this.core.newQuickJSWASMModuleFromVariant(variant);
  }
}
