// A child Node.js process SIGKILLed at a random moment of its work: the crash tests' writer children.

import { spawn } from 'node:child_process';

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
