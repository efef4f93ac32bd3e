// Why a call into the sandbox did not produce a value. The host turns it into Cassandra's FunctionFailure (or,
// for a body that does not compile, InvalidRequest); the isolate is rebuilt after anything but a thrown value.

export type SandboxFailureReason =
  /** The body threw; `detail` is String(thrown) as the sandbox printed it. */
  | 'thrown'
  /** The call ran past the time limit and was interrupted. */
  | 'timeout'
  /** The isolate ran out of its memory or stack. */
  | 'exhausted'
  /** The program's source did not compile or its preludes failed. */
  | 'compile'
  /** The engine itself failed (a WebAssembly trap); the engine was replaced. */
  | 'engine';

export class SandboxFailure extends Error {
  constructor(
    readonly reason: SandboxFailureReason,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'SandboxFailure';
  }
}
