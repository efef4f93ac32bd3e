// Crash tests' writer children: plain Node.js processes using the real pool binding, SIGKILLed at a random moment.

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

export interface KillTiming {
  /** How long the child may take to print "ready". */
  startTimeoutMs: number;
  /** It runs this long after "ready", plus up to `jitterMs` more, before the SIGKILL. */
  minMs: number;
  jitterMs: number;
}

/** Runs `node script ...args` until killed as `timing` says; returns everything it printed (stdout and stderr). */
export async function runUntilKilled(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timing: KillTiming,
): Promise<string> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise((ok) => child.once('exit', ok));
  await new Promise<void>((ok, fail) => {
    const t = setTimeout(() => fail(new Error(`child did not start: ${out}`)), timing.startTimeoutMs);
    child.stdout.on('data', () => {
      if (out.includes('ready')) {
        clearTimeout(t);
        ok();
      }
    });
  });
  await new Promise((ok) => setTimeout(ok, timing.minMs + Math.random() * timing.jitterMs));
  child.kill('SIGKILL');
  await exited;
  return out;
}

/**
 * Makes `dir` a module directory holding the real pool binding (storage/native-pool, native-binding, sync-waiters), transpiled
 * from TypeScript: plain node children (no TS loader) import it as './native-binding.js'.
 */
export function writeBindingModules(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  for (const f of ['native-pool', 'native-binding', 'sync-waiters']) {
    const src = ts.sys.readFile(resolve(import.meta.dirname, `../../storage/${f}.ts`))!;
    const out = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(dir, `${f}.js`), out.outputText);
  }
}
