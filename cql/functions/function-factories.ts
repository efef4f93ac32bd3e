// The native functions built per call (FunctionFactory), by name: collection and masking functions.

import { COLLECTION_FACTORIES } from './collection-functions.js';
import type { FunctionFactory } from './function-parameter.js';
import { MASKING_FACTORIES } from './masking-functions.js';

const BY_NAME = new Map<string, FunctionFactory>(
  [...COLLECTION_FACTORIES, ...MASKING_FACTORIES].map((f) => [f.name, f]),
);

/** The function factory of that (lower-case) name, if any. */
export function functionFactory(name: string): FunctionFactory | undefined {
  return BY_NAME.get(name);
}
