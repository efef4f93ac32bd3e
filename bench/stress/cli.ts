// pmemcql-stress: parses the command line, connects, sets up the workload's schema, runs it (YCSB:
// the load phase, then the transaction phase), prints cassandra-stress's output and writes the
// reports asked for (HTML, HdrHistogram log). Returns the process exit code: 0 done, 1 stopped by
// errors or bad arguments, 2 could not connect or set up, 130 interrupted (Ctrl-C / SIGTERM; the
// results so far are still reported).

import { appendFileSync, writeFileSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import type cassandra from 'cassandra-driver';
import { parseArgs, type StressSettings, USAGE } from './args.js';
import { AutoThreads } from './auto-threads.js';
import { connect, consistencyOf } from './client.js';
import { CounterWorkload } from './counter-workload.js';
import { StressArgError } from './distribution.js';
import { HdrLatencyLog } from './hdr-log.js';
import { writeReport } from './html-report.js';
import { LegacyWorkload } from './legacy-workload.js';
import { defaultReportFile } from './report-location.js';
import type { RunData, Summary } from './run-data.js';
import { Runner, type RunOutcome } from './runner.js';
import { UserWorkload } from './user-workload.js';
import type { ExecuteOptions, Workload } from './workload.js';
import { YcsbLoad, YcsbRun, YcsbTable } from './ycsb-workload.js';

const DEFAULT_CONTAINER_ARGS = 'write n=1000000 threads=32';

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  // NoHostAvailableError: one line per host tried instead of the driver's inspected objects.
  const inner = (e as Error & { innerErrors?: Record<string, unknown> }).innerErrors;
  if (inner && typeof inner === 'object' && Object.keys(inner).length > 0) {
    const hosts = Object.entries(inner).map(
      ([host, err]) => `${host}: ${err instanceof Error ? err.message : String(err)}`,
    );
    return `${e.name}: ${hosts.join('; ')}`;
  }
  return `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`;
}

class Output {
  private logFile: string | undefined;

  constructor(logFile: string | undefined) {
    if (logFile) {
      writeFileSync(logFile, '');
      this.logFile = logFile;
    }
  }

  readonly print = (line: string): void => {
    process.stdout.write(`${line}\n`);
    if (this.logFile) appendFileSync(this.logFile, `${line}\n`);
  };
}

interface PhaseResult {
  outcome: RunOutcome;
  summaries: Record<string, Summary>;
}

interface Phase {
  workload: Workload;
  count?: number;
  durationMs?: number;
  threads: number;
  /** Whether the run goes into the HTML report (YCSB's load phase does not, unless alone). */
  report: boolean;
  /** Added to the revision name (-rate auto: "16 threads"). */
  label?: string;
}

async function runPhase(
  settings: StressSettings,
  phase: Phase,
  print: (line: string) => void,
  current: { runner?: Runner },
  hdrLog: HdrLatencyLog | undefined,
): Promise<PhaseResult> {
  const { workload, count, durationMs, threads } = phase;
  const bound =
    count !== undefined
      ? `for ${count} iteration${durationMs !== undefined ? ` or ${durationMs / 1000} seconds` : ''}`
      : `for ${durationMs! / 1000} seconds`;
  const rate = settings.rateLimit ? ` at ${settings.rateLimit} op/s${settings.fixedRate ? ' (fixed)' : ''}` : '';
  print(`Running ${workload.name} with ${threads} threads ${bound}${rate}`);
  const runner = new Runner(workload, {
    count,
    durationMs,
    threads,
    rateLimit: settings.rateLimit,
    fixedRate: settings.fixedRate,
    retries: settings.errors.retries,
    ignoreErrors: settings.errors.ignore,
    intervalSeconds: settings.interval,
    progress: settings.progress,
    print,
    countUnit: settings.command === 'user' ? 'partitions' : 'ops',
    hdrLog,
  });
  current.runner = runner;
  const outcome = await runner.run();
  current.runner = undefined;
  const summaries = outcome.reporter.results(
    outcome.collector.cumulative,
    outcome.collector.cumulativeTotal(),
    outcome.seconds,
    outcome.gc,
  );
  return { outcome, summaries };
}

function runData(settings: StressSettings, phase: Phase, result: PhaseResult, revision: string): RunData {
  const workload = phase.workload;
  const { outcome, summaries } = result;
  const seconds = outcome.seconds;
  return {
    revision,
    title: settings.graph?.title,
    command: settings.argv.join(' '),
    workload: workload.name,
    startedAt: outcome.startedAt.toISOString(),
    durationSeconds: Math.round(seconds * 1000) / 1000,
    threads: phase.threads,
    intervalSeconds: settings.interval,
    nodes: settings.nodes.map((n) => `${n}:${settings.port}`),
    client: { hostname: hostname(), node: process.version, cpus: cpus().length },
    opTypes: [...workload.opTypes],
    series: outcome.reporter.series,
    summary: summaries,
  };
}

function writeReports(settings: StressSettings, runs: RunData[], print: (line: string) => void): void {
  const targets: { file: string; append: boolean; title?: string }[] = [];
  if (settings.logFile?.toLowerCase().endsWith('.html')) targets.push({ file: settings.logFile, append: false });
  if (settings.graph) targets.push({ file: settings.graph.file, append: true, title: settings.graph.title });
  if (targets.length === 0) {
    targets.push({ file: defaultReportFile(settings.command, new Date(runs[0]!.startedAt)), append: false });
  }
  for (const t of targets) {
    try {
      let total = 0;
      runs.forEach((run, i) => {
        total = writeReport(t.file, run, t.append || i > 0, t.title);
      });
      print(`Report: ${t.file} (${total} run${total === 1 ? '' : 's'})`);
    } catch (e) {
      process.stderr.write(`Could not write the report ${t.file}: ${errorText(e)}\n`);
    }
  }
}

export interface StressResult {
  /** The process exit code (see the top of this file). */
  code: number;
  /** The measured run (YCSB: its transaction phase, or the load when only that ran), as in the report. */
  run?: RunData;
}

export interface StressOptions {
  env?: NodeJS.ProcessEnv;
  /** Where output lines go (default: stdout, and the -log text file when given). */
  print?: (line: string) => void;
}

/** Runs one pmemcql-stress command line in this process (the benchmark suite uses this). */
export async function runStress(argv: string[], opts: StressOptions = {}): Promise<StressResult> {
  const env = opts.env ?? process.env;
  let settings: StressSettings;
  try {
    let args = argv;
    if (argv.length === 0 && env.PMEMCQL_STRESS_ARGS) args = env.PMEMCQL_STRESS_ARGS.split(/\s+/);
    else if (argv.length === 0 && env.PMEMCQL_STRESS_HOST) {
      // The docker-compose `stress` service with nothing configured: a default run rather than the usage.
      args = DEFAULT_CONTAINER_ARGS.split(' ');
      process.stderr.write(`No arguments: running \`${DEFAULT_CONTAINER_ARGS}\` (set PMEMCQL_STRESS_ARGS to choose)\n`);
    }
    settings = parseArgs(
      args.filter((a) => a.length > 0),
      env,
    );
    consistencyOf(settings.consistency);
  } catch (e) {
    if (!(e instanceof StressArgError)) throw e;
    process.stderr.write(`${e.message}\n\n${USAGE}`);
    return { code: 1 };
  }
  if (settings.command === 'help') {
    process.stdout.write(USAGE);
    return { code: argv.length === 0 ? 1 : 0 };
  }
  let out: Output;
  try {
    out = new Output(
      settings.logFile && !settings.logFile.toLowerCase().endsWith('.html') ? settings.logFile : undefined,
    );
  } catch (e) {
    process.stderr.write(`Could not open the log file ${settings.logFile}: ${errorText(e)}\n`);
    return { code: 1 };
  }
  const print = opts.print ?? out.print;
  const options: ExecuteOptions = {
    prepare: settings.prepared,
    consistency: consistencyOf(settings.consistency),
  };
  const connectTo = (keyspace?: string) => connect(settings, keyspace);
  const created: Workload[] = [];
  const makeWorkload = (): Workload => {
    let w: Workload;
    if (settings.command === 'user') w = new UserWorkload(settings, options, connectTo);
    else if (settings.command === 'counter_write' || settings.command === 'counter_read') {
      w = new CounterWorkload(settings, options);
    } else w = new LegacyWorkload(settings, options);
    created.push(w);
    return w;
  };
  // The workload is made before connecting, so a profile that does not load fails as bad arguments.
  let first: Workload | undefined;
  if (!settings.ycsb) {
    try {
      first = makeWorkload();
    } catch (e) {
      if (!(e instanceof StressArgError)) throw e;
      process.stderr.write(`${e.message}\n`);
      return { code: 1 };
    }
  }
  let hdrLog: HdrLatencyLog | undefined;
  if (settings.hdrFile) {
    try {
      hdrLog = new HdrLatencyLog(settings.hdrFile);
    } catch (e) {
      process.stderr.write(`Could not open the HdrHistogram log ${settings.hdrFile}: ${errorText(e)}\n`);
      return { code: 1 };
    }
  }

  let client: cassandra.Client;
  try {
    client = await connectTo();
  } catch (e) {
    hdrLog?.close();
    process.stderr.write(`Could not connect to ${settings.nodes.join(',')}:${settings.port}: ${errorText(e)}\n`);
    return { code: 2 };
  }
  const current: { runner?: Runner } = {};
  const onSignal = () => {
    if (current.runner) {
      process.stderr.write('\nInterrupted: finishing the operations in flight...\n');
      current.runner.interrupt();
    } else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const setUp = new Set<Workload>();
  const setUpOnce = async (w: Workload): Promise<boolean> => {
    if (setUp.has(w)) return true;
    try {
      await w.setup(client);
      setUp.add(w);
      return true;
    } catch (e) {
      process.stderr.write(`Could not set up ${w.name}: ${errorText(e)}\n`);
      return false;
    }
  };
  try {
    const hosts = client.getState().getConnectedHosts();
    const local = await client.execute('SELECT cluster_name, release_version FROM system.local').catch(() => undefined);
    const cluster = local?.first();
    print(
      `Connected to cluster: ${cluster?.get('cluster_name') ?? 'unknown'} (release ${cluster?.get('release_version') ?? '?'}), ` +
        'max pending requests per connection 2048',
    );
    for (const h of hosts) print(`Datacenter: ${h.datacenter}; Host: ${h.address}; Rack: ${h.rack}`);
    print(
      `Consistency: ${settings.consistency}; prepared statements: ${settings.prepared || settings.command === 'user' ? 'yes' : 'no'}; ` +
        `keyspace: ${settings.command === 'user' ? 'from the profile' : settings.keyspace}`,
    );

    const phases: Phase[] = [];
    const threads = settings.autoThreads?.min ?? settings.threads;
    if (settings.ycsb) {
      const y = settings.ycsb;
      const table = new YcsbTable(settings, y, options);
      if (y.phase !== 'run') {
        phases.push({ workload: new YcsbLoad(table), count: y.recordCount, threads, report: y.phase === 'load' });
      }
      if (y.phase !== 'load') {
        const run = new YcsbRun(table);
        phases.push({ workload: run, count: y.operationCount, durationMs: settings.duration, threads, report: true });
      }
      print(
        `YCSB workload ${y.workload.toUpperCase()}: ${y.recordCount} records of ${y.fieldCount} fields × ${y.fieldLength} bytes ` +
          `in ${table.table}, ${y.operationCount} operations`,
      );
    } else {
      const workload: Workload = first!;
      if (first instanceof LegacyWorkload || first instanceof CounterWorkload) {
        const size = first instanceof LegacyWorkload ? ` of ${settings.columnSize} bytes` : '';
        print(`Population: ${first.population.spec}; columns: ${settings.columnCount}${size}`);
      } else {
        print(
          `Profile(s): ${settings.userCommand!.profiles.join(', ')}; ops: ${[...settings.userCommand!.ops].map(([k, v]) => `${k}=${v}`).join(', ')}`,
        );
      }
      if (!(await setUpOnce(workload))) return { code: 2 };
      workload.describe?.(print);
      phases.push({ workload, count: settings.n, durationMs: settings.duration, threads, report: true });

      if (settings.warmup) {
        // As cassandra-stress: a quarter of n (at most 50,000) unmeasured operations of each kind
        // first, so JIT compilation and connection set-up do not land in the first intervals.
        const count = Math.min(50_000, Math.ceil((settings.n ?? 200_000) * 0.25));
        const warmups = workload.warmups?.() ?? [makeWorkload()];
        for (const warmup of warmups) {
          if (!(await setUpOnce(warmup))) return { code: 2 };
          print(`Warming up ${warmup.name} with ${count} iterations...`);
          const runner = new Runner(warmup, {
            count,
            durationMs: settings.duration !== undefined ? settings.duration / 4 / warmups.length : undefined,
            threads,
            rateLimit: settings.rateLimit,
            fixedRate: settings.fixedRate,
            retries: settings.errors.retries,
            ignoreErrors: true,
            intervalSeconds: 3600,
            progress: false,
            print: () => {},
          });
          current.runner = runner;
          await runner.run();
          current.runner = undefined;
        }
      }
    }

    let failed = false;
    let interrupted = false;
    let setupFailed = false;
    const runs: RunData[] = [];
    const execute = async (phase: Phase): Promise<PhaseResult | undefined> => {
      if (!(await setUpOnce(phase.workload))) {
        setupFailed = true;
        return undefined;
      }
      const result = await runPhase(settings, phase, print, current, hdrLog);
      const outcome = result.outcome;
      if (phase.workload instanceof YcsbRun) {
        outcome.reporter.ycsbMeasurements(
          outcome.collector.cumulative,
          outcome.collector.cumulativeTotal(),
          outcome.seconds,
        );
      }
      if (outcome.failure !== undefined) {
        process.stderr.write(
          `Operation failed after ${settings.errors.retries} retries: ${errorText(outcome.failure)}\n`,
        );
        failed = true;
      }
      if (outcome.interrupted) interrupted = true;
      if (phase.report) {
        const base =
          settings.graph?.revision ?? `${phase.workload.name.toLowerCase()} ${outcome.startedAt.toISOString()}`;
        runs.push(runData(settings, phase, result, phase.label ? `${base} ${phase.label}` : base));
      }
      return result;
    };

    if (settings.autoThreads) {
      const auto = new AutoThreads(settings.autoThreads.min, settings.autoThreads.max);
      let next: number | undefined = auto.first();
      while (next !== undefined) {
        const t = next;
        print(`Running with ${t} threadCount`);
        const workload = t === threads ? phases[0]!.workload : makeWorkload();
        const phase = { ...phases[0]!, workload, threads: t, label: `${t} threads` };
        const result = await execute(phase);
        if (!result || failed || interrupted) break;
        next = auto.record(t, result.summaries.total!);
        const improvement = auto.improvement();
        if (improvement) print(improvement);
      }
      print('');
      auto.table(print);
    } else {
      for (const phase of phases) {
        await execute(phase);
        if (setupFailed || failed || interrupted) break;
      }
    }
    if (setupFailed) return { code: 2 };
    if (runs.length > 0) writeReports(settings, runs, print);
    if (hdrLog) print(`HdrHistogram log: ${hdrLog.file}`);
    print('END');
    return { code: failed ? 1 : interrupted ? 130 : 0, run: runs[runs.length - 1] };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    hdrLog?.close();
    for (const w of created) await w.close?.().catch(() => {});
    await client.shutdown().catch(() => {});
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return (await runStress(argv, { env })).code;
}
