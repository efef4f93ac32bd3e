// Runs last among an isolate's preludes: code generation from strings is turned off (eval and every function
// constructor throw) and every object reachable from globalThis or from the hidden intrinsics is frozen, so a
// call can neither compile new code nor leave anything behind for the next call (prototype pollution).

import { preludeOf } from './sandbox-program.js';

export const HARDENING_PRELUDE = preludeOf('hardening', (global) => {
  const refuse = () => {
    throw new EvalError('code generation from strings is disabled in user-defined functions');
  };
  // The prototypes of ordinary, generator, async and async generator functions: each one's `constructor` compiles
  // source text, and is reachable from any function value.
  const functionPrototypes = [
    Object.getPrototypeOf(() => {}),
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf(async () => {}),
    Object.getPrototypeOf(async function* () {}),
  ];
  for (const proto of functionPrototypes) {
    const tamed = function Function() {
      refuse();
    };
    Object.defineProperty(tamed, 'prototype', { value: proto });
    Object.defineProperty(proto, 'constructor', { value: tamed });
  }
  Object.defineProperty(global, 'Function', { value: functionPrototypes[0].constructor });
  Object.defineProperty(global, 'eval', { value: refuse });

  const hidden: unknown[] = [
    ...functionPrototypes,
    Object.getPrototypeOf((function* () {})()),
    Object.getPrototypeOf((async function* () {})()),
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(new Map().entries()),
    Object.getPrototypeOf(new Set().values()),
    Object.getPrototypeOf(''[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
    Object.getPrototypeOf(Int8Array),
  ];
  const seen = new Set<unknown>();
  const pending: unknown[] = [global, ...hidden];
  while (pending.length > 0) {
    const o = pending.pop();
    if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
    seen.add(o);
    for (const key of Reflect.ownKeys(o)) {
      const d = Reflect.getOwnPropertyDescriptor(o, key)!;
      if ('value' in d) pending.push(d.value);
      else pending.push(d.get, d.set);
    }
    pending.push(Object.getPrototypeOf(o));
    Object.freeze(o);
  }
});
