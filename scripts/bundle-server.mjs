// Bundles the tsc output of the server (dist/server/run-server.js and everything it imports, npm packages
// included) into one file, dist/server-bundle/run-server.cjs, then writes V8's code cache for it
// (server/bundle-loader.ts). One file, `await import()`s included (the bundler makes them lazy module
// initialisers, still evaluated only when reached), so that the code cache covers all of it: measured, this
// started faster than lazy chunks loaded by Node's require without a cache. CommonJS rather than ESM because
// only a classic script can be given a code cache (Node's own compile cache for ES modules was measured: the
// module graph's resolution and reading still cost ~0.35 s more per start, docs/startup.md).
// dist/server/main.js runs the bundle only while built-from.txt matches dist/.tsbuildinfo, i.e. while it was made
// from the tsc output now in dist/ (a later `tsc` alone makes main.js fall back to the module graph, never to
// stale code). Run after tsc: `npm run build:bundle` (scripts/setup.sh does); --force rebuilds a current bundle.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = resolve(import.meta.dirname, '..');
const out = resolve(root, 'dist/server-bundle');
// Read before bundling: a tsc run during the bundling then makes the stamp stale, not the bundle.
const tscBuild = createHash('sha1')
  .update(readFileSync(resolve(root, 'dist/.tsbuildinfo')))
  .digest('hex');
const stamp = resolve(out, 'built-from.txt');
// What else the output depends on: this script (its options) and the Node.js that wrote the code cache.
const builder = createHash('sha1')
  .update(readFileSync(import.meta.filename))
  .update(process.version)
  .digest('hex');
const builderStamp = resolve(out, 'built-by.txt');
const current = (file, hash) => existsSync(file) && readFileSync(file, 'utf8').trim() === hash;
if (current(stamp, tscBuild) && current(builderStamp, builder) && !process.argv.includes('--force')) {
  process.exit(0); // already built from this tsc output, by this script and Node.js
}

rmSync(out, { recursive: true, force: true });
const bundle = await rolldown({
  input: resolve(root, 'dist/server/run-server.js'),
  platform: 'node',
  // pino-pretty is required only for a terminal (server/logger.ts) and reads files next to itself.
  external: ['pino-pretty'],
  logLevel: 'warn',
});
const { output } = await bundle.write({
  dir: out,
  format: 'cjs',
  codeSplitting: false,
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  // The sources are ES modules, i.e. strict code; CommonJS output is not strict unless told.
  banner: '"use strict";',
  // Non-ASCII characters escaped and doc comments dropped (licence comments stay): an ASCII file, which
  // bundle-loader.ts reads as Latin-1, ~8 ms faster than decoding UTF-8. The source map leads back to the sources.
  charset: 'ascii',
  comments: { legal: true, annotation: false, jsdoc: false },
  sourcemap: true,
});
await bundle.close();
// bundle-loader.ts evaluates the bundle as a classic script, which has no import(): every `await import()` must
// have been inlined (an external module's would stay an import()).
for (const chunk of output) {
  if (chunk.type === 'chunk' && /^[^*/\n]*\bimport\(\s*["'`]/m.test(chunk.code)) {
    throw new Error(`${chunk.fileName} keeps a dynamic import(); load that module with createRequire instead`);
  }
}

// The code cache, in a process of its own: it runs the bundle's module top levels.
const loader = pathToFileURL(resolve(root, 'dist/server/bundle-loader.js')).href;
const cache = spawnSync(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `await (await import(${JSON.stringify(loader)})).writeCodeCache(${JSON.stringify(out)}); process.exit(0);`,
  ],
  { stdio: 'inherit' },
);
if (cache.status !== 0 || !existsSync(resolve(out, 'run-server.cjs.cache'))) {
  throw new Error(`writing the code cache failed (exit ${cache.status})`);
}
writeFileSync(builderStamp, `${builder}\n`);
// Last: main.js takes the bundle as current only from here on.
writeFileSync(stamp, `${tscBuild}\n`);
