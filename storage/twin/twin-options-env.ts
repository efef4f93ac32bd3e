// Arrow twin options from the environment (the server's storage options): PMEMCQL_TWIN_FLUSH_ROWS,
// PMEMCQL_TWIN_FLUSH_BYTES, PMEMCQL_TWIN_SLICE_ROWS, PMEMCQL_TWIN_AUTO_FLUSH (0/false: flush only on demand),
// PMEMCQL_TWIN_FLUSH_THREAD (0/off: assemble segments on the event loop), PMEMCQL_TWIN_FLUSH_NICE (0-19),
// PMEMCQL_IDLE_THREADS (0/off: the flush thread at that nice value instead of SCHED_IDLE; the server reads it too).

import type { TwinOptions } from './twin-schema.js';

export function twinOptionsFromEnv(env: NodeJS.ProcessEnv): Partial<TwinOptions> {
  const out: { -readonly [K in keyof TwinOptions]?: TwinOptions[K] } = {};
  const num = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${v}`);
    return n;
  };
  const rows = num('PMEMCQL_TWIN_FLUSH_ROWS');
  if (rows !== undefined) out.flushRows = rows;
  const bytes = num('PMEMCQL_TWIN_FLUSH_BYTES');
  if (bytes !== undefined) out.flushBytes = bytes;
  const slice = num('PMEMCQL_TWIN_SLICE_ROWS');
  if (slice !== undefined) out.sliceRows = slice;
  const auto = env.PMEMCQL_TWIN_AUTO_FLUSH;
  if (auto !== undefined && auto !== '') out.autoFlush = !OFF.includes(auto.toLowerCase());
  const thread = env.PMEMCQL_TWIN_FLUSH_THREAD;
  if (thread !== undefined && thread !== '') out.flushThread = !OFF.includes(thread.toLowerCase());
  if (env.PMEMCQL_IDLE_THREADS) out.flushThreadIdle = idleThreadsFromEnv(env);
  const nice = env.PMEMCQL_TWIN_FLUSH_NICE;
  if (nice !== undefined && nice !== '') {
    const n = Number(nice);
    if (!Number.isInteger(n) || n < 0 || n > 19) throw new Error(`PMEMCQL_TWIN_FLUSH_NICE must be 0-19, got ${nice}`);
    out.flushThreadNice = n;
  }
  return out;
}

const OFF = ['0', 'false', 'off', 'no'];

/** PMEMCQL_IDLE_THREADS: background threads under SCHED_IDLE unless it says off (default on). */
export function idleThreadsFromEnv(env: NodeJS.ProcessEnv): boolean {
  const idle = env.PMEMCQL_IDLE_THREADS;
  return idle === undefined || idle === '' || !OFF.includes(idle.toLowerCase());
}
