// A server process for benchmarks: emulated persistent memory on /dev/shm, or a journaled disk pool in a directory
// under the temporary directory (commitlog_sync from the environment, PMEMCQL_COMMITLOG_SYNC), its own data
// directory, quiet logs; ready once a driver can connect.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import cassandra from 'cassandra-driver';
import { HEAP_FLOOR_FLAG } from '../../server/heap-floor.js';

export interface BenchServer {
  port: number;
  dir: string;
  child: ChildProcess;
  /** Stops the process (SIGTERM, waits for exit); the data stays unless `remove`. */
  stop(remove?: boolean): Promise<void>;
}

export async function waitForCql(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = new cassandra.Client({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1' });
    try {
      await c.connect();
      await c.execute("SELECT key FROM system.local WHERE key = 'local'");
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await c.shutdown().catch(() => {});
    }
  }
}

export async function startBenchServer(
  mode: 'emulated' | 'disk',
  options: {
    dir?: string;
    poolSize?: string;
    port?: number;
    /** Node options before the server's script (e.g. `--import` of a probe). */
    nodeArgs?: string[];
    env?: Record<string, string>;
    /** Another Node.js executable and the server's main.js of a checkout built for it (runtime comparisons). */
    node?: string;
    main?: string;
  } = {},
): Promise<BenchServer> {
  const port = options.port ?? 19042 + Math.floor(Math.random() * 2000);
  const dir =
    options.dir ??
    (mode === 'emulated' && existsSync('/dev/shm')
      ? mkdtempSync('/dev/shm/pmemcql-bench-')
      : mkdtempSync(join(tmpdir(), 'pmemcql-bench-')));
  const child = spawn(
    options.node ?? process.execPath,
    [
      HEAP_FLOOR_FLAG,
      ...(options.nodeArgs ?? []),
      options.main ?? resolve(import.meta.dirname, '../../server/main.js'),
      '--port',
      String(port),
      '--data',
      dir,
      '--pool-size',
      options.poolSize ?? '4GiB',
      '--log-level',
      'warn',
      '--metrics-port',
      '-1',
    ],
    {
      env: {
        ...process.env,
        PMEM_IS_PMEM_FORCE: mode === 'emulated' ? '1' : '0',
        ...options.env,
      },
      stdio: 'inherit',
    },
  );
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    await waitForCql(port);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    port,
    dir,
    child,
    async stop(remove = true) {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      if (remove) rmSync(dir, { recursive: true, force: true });
    },
  };
}
