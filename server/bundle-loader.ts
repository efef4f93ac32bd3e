// Loads the server's single-file build (dist/server-bundle/run-server.cjs, made by scripts/bundle-server.mjs) as
// Node's CommonJS loader would, but with V8's code cache for it (run-server.cjs.cache, written by the same build
// step): V8 then deserializes the compiled top level instead of parsing ~1.5 MB of source at every start-up
// (docs/startup.md). A cache V8 rejects (another Node version or V8 flags) is ignored: the source is compiled.
import { isAscii } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';

type ServerModule = typeof import('./run-server.js');
type ModuleWrapper = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

const BUNDLE_ENTRY = 'run-server.cjs';
const CODE_CACHE = 'run-server.cjs.cache';

function compile(dir: string, cachedData?: Buffer): Script {
  const file = join(dir, BUNDLE_ENTRY);
  const bytes = readFileSync(file);
  // ASCII (the bundler escapes the rest) reads as Latin-1, much faster than decoding UTF-8.
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  // The CommonJS module wrapper, opened on the source's first line so stack traces keep their line numbers.
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
}

function evaluate(script: Script, dir: string): ServerModule {
  const file = join(dir, BUNDLE_ENTRY);
  const module = { exports: {} };
  (script.runInThisContext() as ModuleWrapper)(module.exports, createRequire(file), module, file, dir);
  return module.exports as ServerModule;
}

export function loadBundle(dir: string): ServerModule {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(join(dir, CODE_CACHE));
  } catch {
    // no cache: V8 compiles the source
  }
  return evaluate(compile(dir, cachedData), dir);
}

/**
 * Build step (scripts/bundle-server.mjs, in a process of its own): compiles the bundle and runs its module top
 * levels (not the server), so the cache also holds the functions that start-up runs, then writes V8's code cache.
 */
export async function writeCodeCache(dir: string): Promise<void> {
  const script = compile(dir);
  await evaluate(script, dir).warmStartupCode();
  writeFileSync(join(dir, CODE_CACHE), script.createCachedData());
}
