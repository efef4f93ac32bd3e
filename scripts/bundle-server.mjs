// Bundles the tsc output of the server (dist/server/run-server.js and everything it imports, npm packages
// included) into dist/server-bundle/: run-server.cjs for what start-up needs, plus one chunk per `await import()`
// (metrics, bcrypt, ...), which stay lazy; then V8's code cache for run-server.cjs (server/bundle-loader.ts).
// CommonJS rather than ESM because only a classic script can be given a code cache on Node 20.
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
if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === tscBuild && !process.argv.includes('--force')) {
  process.exit(0); // already built from this tsc output
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
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  // The sources are ES modules, i.e. strict code; CommonJS output is not strict unless told.
  banner: '"use strict";',
  sourcemap: true,
});
await bundle.close();
// bundle-loader.ts evaluates the bundle as a classic script, which has no import(): every `await import()` must
// have become a require() of a chunk (an external one would stay an import()).
for (const chunk of output) {
  if (chunk.type === 'chunk' && /^[^*/\n]*\bimport\(\s*["'`]/m.test(chunk.code)) {
    throw new Error(`${chunk.fileName} keeps a dynamic import(); load that module with createRequire instead`);
  }
}

// The code cache, in a process of its own: it runs the bundle's module top levels.
const loader = pathToFileURL(resolve(root, 'dist/server/bundle-loader.js')).href;
const cache = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', `(await import(${JSON.stringify(loader)})).writeCodeCache(${JSON.stringify(out)});`],
  { stdio: 'inherit' },
);
if (cache.status !== 0) throw new Error(`writing the code cache failed (exit ${cache.status})`);
writeFileSync(stamp, `${tscBuild}\n`);
