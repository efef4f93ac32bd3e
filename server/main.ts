#!/usr/bin/env -S node --initial-old-space-size=128
// pmemcql server entry point. Runs the single-file build of the server (dist/server-bundle/, written by
// scripts/bundle-server.mjs after tsc) when it was made from the current tsc output, else the tsc output module
// by module (./run-server.js). Why: Node resolves, reads and compiles ~350 ES modules one at a time, which was
// most of a restart (~0.5 s of ~0.8 s); one file with a code cache loads in a fraction of that (docs/startup.md).
// PMEMCQL_BUNDLE=off forces the module graph (debugging against the tsc output).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ServerBuild } from './run-server.js';
import { STARTUP_FAILURE_EXIT, startupFailureMessage } from './startup-failure.js';

const BUNDLE_DIR = fileURLToPath(new URL('../server-bundle/', import.meta.url));

/** True when dist/server-bundle/ was built from the tsc output now in dist/ (same .tsbuildinfo). */
function bundleIsCurrent(): boolean {
  if (process.env.PMEMCQL_BUNDLE === 'off') return false;
  try {
    const builtFrom = readFileSync(`${BUNDLE_DIR}built-from.txt`, 'utf8').trim();
    const tscBuild = createHash('sha1')
      .update(readFileSync(new URL('../.tsbuildinfo', import.meta.url)))
      .digest('hex');
    return builtFrom === tscBuild;
  } catch {
    return false; // no bundle, or no tsc build info: the module graph is always current
  }
}

const build: ServerBuild = bundleIsCurrent() ? 'bundle' : 'modules';
try {
  const { runServer } =
    build === 'bundle' ? (await import('./bundle-loader.js')).loadBundle(BUNDLE_DIR) : await import('./run-server.js');
  await runServer(build);
} catch (e) {
  const reason = startupFailureMessage(e);
  if (reason === undefined) {
    console.error(e);
    process.exit(1);
  }
  console.error(`pmemcql: ${reason}`);
  process.exit(STARTUP_FAILURE_EXIT);
}
