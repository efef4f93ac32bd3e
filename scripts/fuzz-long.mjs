// Long-mode fuzzing: runs the fast-check fuzz tests (test/fuzz-*.test.ts) with many more inputs.
//   node scripts/fuzz-long.mjs [--runs N] [--seed S|random] [test files...]
// Defaults: 1,000,000 inputs per property, every fuzz file, a random fast-check seed (printed; a
// failure's seed and counterexample are printed by fast-check; replay with FUZZ_SEED=<seed> FUZZ_RUNS=<n>).
// Prints the inputs fuzzed per target and the wall time; exits non-zero on a finding.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const args = process.argv.slice(2);
let runs = 1_000_000;
let seed = 'random';
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--seed') seed = args[++i];
  else files.push(args[i]);
}
// A concrete seed, printed, so that a run can be repeated exactly.
if (seed === 'random') seed = String(Math.floor(Math.random() * 2 ** 31));
if (files.length === 0) {
  for (const f of readdirSync('test')) if (/^fuzz-.*\.test\.ts$/.test(f)) files.push(`test/${f}`);
}
const started = Date.now();
console.log(`[fuzz-long] ${runs} inputs per property, seed ${seed}, files: ${files.join(' ')}`);
const run = spawnSync('npx', ['--no-install', 'vitest', 'run', ...files, '--reporter=default'], {
  stdio: 'inherit',
  env: { ...process.env, FUZZ_RUNS: String(runs), FUZZ_SEED: seed },
});
console.log(`[fuzz-long] done in ${Math.round((Date.now() - started) / 1000)} s, exit ${run.status}`);
process.exit(run.status ?? 1);
