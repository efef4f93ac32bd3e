// Starts the real server (dist/server/main.js) as a child process on a free port with a fresh
// data directory, and stops it. Every integration test talks to one of these over a real socket.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HEAP_FLOOR_FLAG } from '../../server/heap-floor.js';

export interface ServerProcess {
  host: string;
  port: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the server printed, for assertions on logs. */
  output(): string;
  /** The fields of the server's "ready" log line (start-up settings: build, idle_threads, ...). */
  readyLine(): Record<string, unknown>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Prints why the server died under the tests, if it did (afterAll hooks call it before stopping it). */
export function reportIfDied(server: ServerProcess | undefined): void {
  if (server && (server.child.exitCode !== null || server.child.signalCode !== null)) {
    console.error(
      `server exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.output().slice(-6000)}`,
    );
  }
}

/** A server with user-defined functions on, Java and JavaScript (both are off by default, as in Cassandra). */
export const UDF_ENV: Record<string, string> = {
  PMEMCQL_USER_DEFINED_FUNCTIONS_ENABLED: 'true',
  PMEMCQL_SCRIPTED_USER_DEFINED_FUNCTIONS_ENABLED: 'true',
};

export async function freePort(): Promise<number> {
  return await new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
  });
}

export interface StartOptions {
  /** Reuse a data directory (restart tests); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Extra CLI flags for main.js. */
  args?: string[];
  env?: Record<string, string>;
  keepData?: boolean;
  /** Another entry point than this repository's dist/server/main.js (a copy of the build). */
  main?: string;
  /** Node options before main.js; the launchers' heap floor (server/heap-floor.ts) unless given. */
  nodeArgs?: string[];
}

export async function startServer(options: StartOptions = {}): Promise<ServerProcess> {
  const port = await freePort();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'pmemcql-test-'));
  const main = options.main ?? resolve(import.meta.dirname, '../../dist/server/main.js');
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? [HEAP_FLOOR_FLAG]),
      main,
      '--listen-address',
      '127.0.0.1',
      '--port',
      String(port),
      '--data',
      dataDir,
      // Several test servers run on this host: no fixed metrics port unless a test asks for one,
      // and small pools (libpmemobj allocates the whole file when it creates a pool).
      '--metrics-port',
      '-1',
      '--pool-size',
      '128MiB',
      ...(options.args ?? []),
    ],
    { env: { ...process.env, PMEMCQL_LOG_LEVEL: 'info', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  await new Promise<void>((ok, fail) => {
    // A server that never says ready is killed, so a failed start leaves no process behind.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`server did not start in time:\n${out}`));
    }, 30_000);
    const check = () => {
      if (out.includes('"msg":"ready"')) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${code} before ready:\n${out}`));
    });
  });
  return {
    host: '127.0.0.1',
    port,
    dataDir,
    child,
    output: () => out,
    readyLine: () => JSON.parse(out.split('\n').find((l) => l.includes('"msg":"ready"'))!) as Record<string, unknown>,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      if (!options.keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
