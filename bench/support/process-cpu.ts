// CPU time (user + system) another process has used so far, from /proc (Linux): benchmarks divide a
// run's server CPU by its operations, a figure that holds even when clients share the machine.

import { readFileSync } from 'node:fs';

/** Milliseconds of CPU used by process `pid`; undefined where /proc is missing or the process is gone. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3: utime is 14, stime 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}
