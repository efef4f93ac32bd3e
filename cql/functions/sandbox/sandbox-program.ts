// What a user-defined function becomes before it runs in the sandbox: plain JavaScript source, evaluated
// inside a QuickJS isolate that has no host functions at all (see docs/user-defined-functions.md).

/** A named piece of JavaScript evaluated once per isolate, before the entry; it may define globals. */
export interface SandboxPrelude {
  readonly name: string;
  readonly source: string;
}

export interface SandboxProgram {
  /**
   * Evaluated in order, once per isolate. After the last one every object reachable from globalThis (and the
   * hidden intrinsics) is frozen, so nothing a call changes there survives into the next call.
   */
  readonly preludes: readonly SandboxPrelude[];
  /**
   * Source of an expression that evaluates to the entry function:
   * `(args: Array<Uint8Array | null>) => Uint8Array | null` — the CQL-serialized arguments in declared order
   * (null for null) to the CQL-serialized result (validated by the host) or null. Whatever it throws is
   * reported as `String(thrown)`, computed inside the sandbox.
   */
  readonly entry: string;
}

/**
 * The source of a prelude written as a self-contained function: it references nothing outside its own body
 * (no imports, no module-level names) and receives `globalThis`, so it can be type-checked and linted here and
 * still run alone inside the sandbox.
 */
export function preludeOf(name: string, body: (global: Record<string, unknown>) => void): SandboxPrelude {
  return { name, source: `(${body.toString()})(globalThis);` };
}
