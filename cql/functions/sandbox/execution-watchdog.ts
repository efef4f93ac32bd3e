// The native watchdog (native/src/execution-watchdog.cc): runs a function with a hard deadline that stops even a
// loop inside one of the engine's built-ins, which the engine's own interrupt handler cannot reach.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface WatchdogAddon {
  /** fn's result; throws an Error with code 'TERMINATED' when fn ran past `ms` and was stopped. */
  callWithin<T>(ms: number, fn: () => T): T;
}

const ADDON_FILE = 'native/build/Release/pmemcql_watchdog.node';

let addon: WatchdogAddon | undefined;

/** The addon beside the pool's (<repo>/native/build); this module runs from the sources or from dist/. */
export function executionWatchdog(): WatchdogAddon {
  if (addon) return addon;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    dir = dirname(dir);
    const candidate = resolve(dir, ADDON_FILE);
    if (existsSync(candidate)) {
      addon = createRequire(import.meta.url)(candidate) as WatchdogAddon;
      return addon;
    }
  }
  throw new Error(`native addon ${ADDON_FILE} is not built; run: npx node-gyp rebuild --directory native`);
}

export function isWatchdogTermination(e: unknown): boolean {
  return (e as { code?: unknown })?.code === 'TERMINATED';
}
