// Bundles the tsc output of the server (dist/server/run-server.js and everything it imports, npm packages
// included) into dist/server-bundle/: one file for what start-up needs, plus one chunk per `await import()`
// (metrics, ...), which stay lazy. dist/server/main.js runs the bundle only while built-from.txt matches
// dist/.tsbuildinfo, i.e. while the bundle was made from the tsc output now in dist/ (a later `tsc` alone makes
// main.js fall back to the module graph, never to stale code). Run after tsc: `npm run build:bundle`.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
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
  // pino-pretty is loaded only for a terminal (server/logger.ts) and reads files next to itself.
  external: ['pino-pretty'],
  logLevel: 'warn',
});
await bundle.write({ dir: out, format: 'esm', sourcemap: true });
await bundle.close();
writeFileSync(stamp, `${tscBuild}\n`);
