// `__invoke` inside the sandbox: the one function the host calls. It unpacks the arguments from one buffer,
// calls the program's entry, and returns its bytes (an ArrayBuffer), undefined for null, or a string describing
// what the body threw, so that the host never has to inspect an object made by user code.

import { preludeOf } from './sandbox-program.js';

export const RUNNER_PRELUDE = preludeOf('runner', (global) => {
  const MAX_DETAIL = 1000;
  const describe = (thrown: unknown): string => {
    try {
      const s = String(thrown);
      return s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL)}...` : s;
    } catch {
      return 'an exception that cannot be printed';
    }
  };
  global.__invoke = (entry: (args: (Uint8Array | null)[]) => unknown, packed: ArrayBuffer) => {
    const bytes = new Uint8Array(packed);
    const int32 = (at: number) => (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const args: (Uint8Array | null)[] = [];
    for (let i = 0, n = int32(0), o = 4; i < n; i++) {
      const len = int32(o);
      o += 4;
      if (len < 0) args.push(null);
      else {
        args.push(new Uint8Array(packed, o, len));
        o += len;
      }
    }
    let result: unknown;
    try {
      result = entry(args);
    } catch (e) {
      return describe(e);
    }
    if (result === null || result === undefined) return undefined;
    if (!(result instanceof Uint8Array)) return 'internal error: the function did not produce serialized bytes';
    return result.byteOffset === 0 && result.byteLength === result.buffer.byteLength
      ? result.buffer
      : result.slice().buffer;
  };
});
