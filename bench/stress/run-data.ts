// What one run leaves in the HTML report: the per-interval series and the summary of every
// operation type (and of all of them, under 'total'). Stored as JSON inside the report so later
// runs (-graph) can add theirs and the page re-renders all of them overlaid.

export interface Series {
  /** Seconds since the start of the run, at the end of each interval. */
  time: number[];
  /** How long each interval lasted, in seconds (the last one of a run is usually shorter). */
  seconds?: number[];
  opRate: number[];
  pkRate: number[];
  rowRate: number[];
  /** Latencies in milliseconds. */
  mean: number[];
  median: number[];
  p95: number[];
  p99: number[];
  p999: number[];
  max: number[];
  errors: number[];
}

export interface Summary {
  opRate: number;
  pkRate: number;
  rowRate: number;
  /** Milliseconds. */
  mean: number;
  median: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  ops: number;
  partitions: number;
  rows: number;
  errors: number;
}

export interface RunData {
  revision: string;
  title?: string;
  /** The command line after the program name. */
  command: string;
  workload: string;
  startedAt: string;
  durationSeconds: number;
  threads: number;
  /** The nominal interval length in seconds (-log interval=). */
  intervalSeconds?: number;
  nodes: string[];
  client: { hostname: string; node: string; cpus: number };
  opTypes: string[];
  series: Record<string, Series>;
  summary: Record<string, Summary>;
}

export interface ReportData {
  version: 1;
  title: string;
  runs: RunData[];
}

export function emptySeries(): Series {
  return {
    time: [],
    seconds: [],
    opRate: [],
    pkRate: [],
    rowRate: [],
    mean: [],
    median: [],
    p95: [],
    p99: [],
    p999: [],
    max: [],
    errors: [],
  };
}
