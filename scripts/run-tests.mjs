// Runs vitest, then prints the plain closing line 'N passed, N failed' that CI reads.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

rmSync('test-results/results.json', { force: true });
const args = ['--no-install', 'vitest', 'run', ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit' });
let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const r = JSON.parse(readFileSync('test-results/results.json', 'utf8'));
  passed = r.numPassedTests;
  failed = r.numFailedTests;
  skipped = r.numPendingTests + (r.numTodoTests ?? 0);
} catch {
  failed = Math.max(failed, 1);
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
