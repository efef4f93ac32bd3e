// The command line, in cassandra-stress's grammar: a command, its `key=value` options (and
// `ratio(write=1,read=3)`, `ops(insert=1,q=2)`), then `-group` options each followed by their own
// `key=value` words:
//   pmemcql-stress write n=1M threads=50 -node 127.0.0.1 -port 9042 -rate limit=10000/s -log file=r.html
//   pmemcql-stress user profile=p.yaml 'ops(insert=1,simple1=3)' duration=1m -insert partitions=fixed(2)
//   pmemcql-stress counter_write n=100k -log hdrfile=latency.hlog
//   pmemcql-stress ycsb workload=a recordcount=100000 operationcount=1M distribution=zipfian threads=32

import {
  distributionFactory,
  parseCount,
  parseDistribution,
  ratioDistributionFactory,
  StressArgError,
} from './distribution.js';
import { type InsertOverrides, parseBatchType } from './profile-insert.js';
import type { TokenRangeSettings } from './token-range-query.js';

export type LegacyCommand = 'write' | 'read' | 'mixed';
export type CounterCommand = 'counter_write' | 'counter_read';
export type Command = LegacyCommand | CounterCommand | 'user' | 'ycsb' | 'help';
export type YcsbWorkload = 'a' | 'b' | 'c' | 'd' | 'e' | 'f';
export type RequestDistribution = 'zipfian' | 'uniform' | 'latest';

export interface YcsbSettings {
  workload: YcsbWorkload;
  recordCount: number;
  operationCount: number;
  /** Overrides the workload's own request distribution when given. */
  distribution?: RequestDistribution;
  fieldCount: number;
  fieldLength: number;
  maxScanLength: number;
  phase: 'load' | 'run' | 'both';
  /** Overrides of the workload's operation mix (YCSB's *proportion properties). */
  proportions: Partial<Record<'read' | 'update' | 'insert' | 'scan' | 'readmodifywrite', number>>;
}

/** The user command's options. */
export interface UserSettings {
  /** The profile files (profile=a.yaml,b.yaml). */
  profiles: string[];
  /** ops(insert=1,simple1=2): operation name (lower case) to weight. */
  ops: Map<string, number>;
  /** How many operations of one kind run in a row (clustering=, default gaussian(1..10)). */
  clustering: string;
}

export interface StressSettings {
  command: Command;
  /** The words after the program name, for the report. */
  argv: string[];
  /** Operations to run; undefined when bounded by duration only. */
  n?: number;
  /** Milliseconds. */
  duration?: number;
  consistency: string;
  ratio: { write: number; read: number };
  threads: number;
  /** cassandra-stress's -rate auto: runs at growing thread counts until the op rate stops improving. */
  autoThreads?: { min: number; max: number };
  /** Operations per second across all threads. */
  rateLimit?: number;
  /** With a fixed rate, latency counts from each operation's scheduled start (coordinated omission). */
  fixedRate: boolean;
  nodes: string[];
  port: number;
  localDataCenter: string;
  user?: string;
  password?: string;
  connectionsPerHost?: number;
  prepared: boolean;
  keyspace: string;
  replicationFactor: number;
  columnCount: string;
  columnSize: string;
  /** keysize=: bytes per key of the legacy and counter commands. */
  keySize: number;
  /** counter_write's add=: each increment. */
  counterAdd: string;
  /** -pop; wrap: a seq= population starts over when done (unless no-wrap). */
  population?: { kind: 'seq' | 'dist'; spec: string; wrap?: boolean };
  /** The user command's profiles and ops. */
  userCommand?: UserSettings;
  /** -insert: overrides of the profile's insert section. */
  insert: InsertOverrides;
  tokenRange: TokenRangeSettings;
  logFile?: string;
  /** -log hdrfile=: the HdrHistogram interval log. */
  hdrFile?: string;
  /** Seconds between periodic lines. */
  interval: number;
  progress: boolean;
  graph?: { file: string; revision?: string; title?: string; append: boolean };
  errors: { ignore: boolean; retries: number };
  /** cassandra-stress's unmeasured warm-up before legacy runs (off with no-warmup). */
  warmup: boolean;
  ycsb?: YcsbSettings;
}

export { StressArgError };

/** Command names, with cassandra-stress's aliases. */
const COMMANDS: Record<string, Command> = {
  write: 'write',
  insert: 'write',
  read: 'read',
  mixed: 'mixed',
  counter_write: 'counter_write',
  counterwrite: 'counter_write',
  counter_add: 'counter_write',
  counteradd: 'counter_write',
  counter_read: 'counter_read',
  counterread: 'counter_read',
  counter_get: 'counter_read',
  counterget: 'counter_read',
  user: 'user',
  ycsb: 'ycsb',
};
const GROUPS = new Set([
  '-node',
  '-port',
  '-rate',
  '-mode',
  '-col',
  '-pop',
  '-insert',
  '-tokenrange',
  '-log',
  '-graph',
  '-schema',
  '-errors',
]);

export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/i.exec(text.trim());
  if (!m) throw new StressArgError(`not a duration: ${text} (e.g. 30s, 5m, 1h)`);
  const unit = (m[2] ?? 's').toLowerCase();
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return Math.round(Number(m[1]) * scale);
}

function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?[kmb]?)(?:\/s)?$/i.exec(text.trim());
  if (!m) throw new StressArgError(`not a rate: ${text} (e.g. 10000/s)`);
  const v = parseCount(m[1]!);
  if (v <= 0) throw new StressArgError(`rate must be positive: ${text}`);
  return v;
}

function positive(name: string, text: string): number {
  const v = parseCount(text);
  if (v <= 0) throw new StressArgError(`${name} must be positive: ${text}`);
  return v;
}

/** Splits `key=value` (also `key<value`, `key>=value`); a bare word has value undefined. */
function keyValue(word: string): [string, string | undefined] {
  const m = /^([A-Za-z][\w.-]*)(=|<|>=|<=)(.*)$/.exec(word);
  if (!m) return [word, undefined];
  return [m[1]!.toLowerCase(), m[3]!];
}

/** ops(insert=1,simple1=2): names (case-insensitive, as cassandra-stress lower-cases them) and weights. */
function parseOps(word: string): Map<string, number> {
  const m = /^ops\((.*)\)$/i.exec(word);
  if (!m) throw new StressArgError(`bad ops: ${word} (e.g. ops(insert=1,simple1=2))`);
  const ops = new Map<string, number>();
  for (const part of m[1]!.split(',')) {
    const kv = /^\s*([\w.-]+)\s*=\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (!kv) throw new StressArgError(`bad ops part: ${part} (name=weight)`);
    const weight = Number(kv[2]);
    if (weight > 0) ops.set(kv[1]!.toLowerCase(), weight);
  }
  if (ops.size === 0) throw new StressArgError('ops(...) needs at least one operation with a positive weight');
  return ops;
}

function parseRatio(word: string): { write: number; read: number } {
  const m = /^ratio\((.*)\)$/i.exec(word);
  if (!m) throw new StressArgError(`bad ratio: ${word} (e.g. ratio(write=1,read=3))`);
  const ratio = { write: 0, read: 0 };
  for (const part of m[1]!.split(',')) {
    const [k, v] = part.split('=').map((s) => s.trim().toLowerCase());
    if ((k !== 'write' && k !== 'read') || v === undefined || !/^\d+(\.\d+)?$/.test(v)) {
      throw new StressArgError(`bad ratio part: ${part} (write=N and read=N)`);
    }
    ratio[k] = Number(v);
  }
  if (ratio.write + ratio.read <= 0) throw new StressArgError('ratio needs a positive weight');
  return ratio;
}

const COMMAND_WORD =
  /^(n|duration|cl|threads|workload|recordcount|operationcount|distribution|requestdistribution|fieldcount|fieldlength|maxscanlength|phase|profile|clustering|add|keysize)=|^(ratio|ops)\(/i;

const WORKLOADS = new Set(['a', 'b', 'c', 'd', 'e', 'f']);

function defaults(argv: string[], env: NodeJS.ProcessEnv): StressSettings {
  return {
    command: 'help',
    argv,
    consistency: 'LOCAL_ONE',
    ratio: { write: 1, read: 1 },
    threads: 8,
    fixedRate: false,
    nodes: [env.PMEMCQL_STRESS_HOST || '127.0.0.1'],
    port: env.PMEMCQL_STRESS_PORT ? Number(env.PMEMCQL_STRESS_PORT) : 9042,
    localDataCenter: 'datacenter1',
    prepared: true,
    keyspace: 'keyspace1',
    replicationFactor: 1,
    columnCount: 'FIXED(5)',
    columnSize: 'FIXED(34)',
    keySize: 10,
    counterAdd: 'FIXED(1)',
    insert: {},
    tokenRange: { wrap: false, splitFactor: 1 },
    interval: 1,
    progress: true,
    errors: { ignore: false, retries: 9 },
    warmup: true,
  };
}

function commandOption(s: StressSettings, word: string, ycsb: YcsbSettings | undefined): void {
  if (/^ratio\(/i.test(word)) {
    if (s.command !== 'mixed') throw new StressArgError('ratio(...) is for the mixed command');
    s.ratio = parseRatio(word);
    return;
  }
  if (/^ops\(/i.test(word)) {
    if (!s.userCommand) throw new StressArgError('ops(...) is for the user command');
    s.userCommand.ops = parseOps(word);
    return;
  }
  if (/^(n[<>]|err<)/i.test(word)) {
    throw new StressArgError(`${word}: uncertainty-based stopping is not supported; give n=N or duration=T`);
  }
  if (/^no-warmup$/i.test(word)) {
    s.warmup = false;
    return;
  }
  // cassandra-stress's truncation: accepted, not done (data is kept).
  if (/^truncate=\w+$/i.test(word)) return;
  const [key, value] = keyValue(word);
  if (value === undefined) throw new StressArgError(`unknown option for ${s.command}: ${word}`);
  switch (key) {
    case 'n':
      s.n = positive('n', value);
      return;
    case 'duration':
      s.duration = parseDuration(value);
      return;
    case 'cl':
      s.consistency = value.toUpperCase();
      return;
    case 'threads':
      s.threads = positive('threads', value);
      return;
  }
  if (s.userCommand) {
    switch (key) {
      case 'profile':
        s.userCommand.profiles = value.split(',').filter((p) => p.length > 0);
        return;
      case 'clustering':
        s.userCommand.clustering = distributionFactory(value)().spec;
        return;
    }
  }
  if (s.command !== 'user' && s.command !== 'ycsb' && key === 'keysize') {
    s.keySize = positive('keysize', value);
    return;
  }
  if (s.command === 'counter_write' && key === 'add') {
    s.counterAdd = parseDistribution(value).spec;
    return;
  }
  if (ycsb) {
    switch (key) {
      case 'workload': {
        const w = value.toLowerCase().replace(/^workload/, '');
        if (!WORKLOADS.has(w)) throw new StressArgError(`workload must be one of a..f: ${value}`);
        ycsb.workload = w as YcsbWorkload;
        return;
      }
      case 'recordcount':
        ycsb.recordCount = positive(key, value);
        return;
      case 'operationcount':
        ycsb.operationCount = positive(key, value);
        return;
      case 'distribution':
      case 'requestdistribution': {
        const d = value.toLowerCase();
        if (d !== 'zipfian' && d !== 'uniform' && d !== 'latest') {
          throw new StressArgError(`distribution must be zipfian, uniform or latest: ${value}`);
        }
        ycsb.distribution = d;
        return;
      }
      case 'fieldcount':
        ycsb.fieldCount = positive(key, value);
        return;
      case 'fieldlength':
        ycsb.fieldLength = positive(key, value);
        return;
      case 'maxscanlength':
        ycsb.maxScanLength = positive(key, value);
        return;
      case 'maxexecutiontime':
        s.duration = parseDuration(value);
        return;
      case 'phase': {
        const p = value.toLowerCase();
        if (p !== 'load' && p !== 'run' && p !== 'both') throw new StressArgError(`phase must be load, run or both`);
        ycsb.phase = p;
        return;
      }
      case 'readproportion':
      case 'updateproportion':
      case 'insertproportion':
      case 'scanproportion':
      case 'readmodifywriteproportion': {
        const v = Number(value);
        if (!(v >= 0 && v <= 1)) throw new StressArgError(`${key} must be within 0..1`);
        ycsb.proportions[key.replace('proportion', '') as keyof YcsbSettings['proportions']] = v;
        return;
      }
    }
  }
  throw new StressArgError(`unknown option for ${s.command}: ${word}`);
}

function groupOption(s: StressSettings, group: string, words: string[]): void {
  for (const word of words) {
    const [key, value] = keyValue(word);
    switch (group) {
      case '-node':
        if (value === undefined) s.nodes = word.split(',').filter((h) => h.length > 0);
        else if (key === 'datacenter' || key === 'dc') s.localDataCenter = value;
        else throw new StressArgError(`-node: unknown option ${word}`);
        break;
      case '-port':
        if (value === undefined || key === 'native') s.port = positive('port', value ?? word);
        else if (key === 'jmx') break;
        else throw new StressArgError(`-port: unknown option ${word}`);
        break;
      case '-rate': {
        const bound = /^threads(>=|<=)(\d+)$/i.exec(word);
        if (bound) {
          s.autoThreads ??= { min: 4, max: 1000 };
          s.autoThreads[bound[1] === '>=' ? 'min' : 'max'] = positive('threads', bound[2]!);
        } else if (word.toLowerCase() === 'auto') s.autoThreads ??= { min: 4, max: 1000 };
        else if (key === 'threads') s.threads = positive('threads', value ?? '');
        else if (key === 'limit' || key === 'throttle') s.rateLimit = parseRate(value ?? '');
        else if (key === 'fixed') {
          s.rateLimit = parseRate(value ?? '');
          s.fixedRate = true;
        } else throw new StressArgError(`-rate: unknown option ${word} (threads=N, limit=N/s, fixed=N/s, auto)`);
        break;
      }
      case '-mode':
        if (value === undefined) {
          const w = word.toLowerCase();
          if (w === 'simple') s.prepared = false;
          else if (w === 'prepared') s.prepared = true;
          else if (w !== 'native' && w !== 'cql3') throw new StressArgError(`-mode: unknown option ${word}`);
        } else if (key === 'user') s.user = value;
        else if (key === 'password') s.password = value;
        else if (key === 'connectionsperhost') s.connectionsPerHost = positive(key, value);
        else if (key === 'maxpending' || key === 'protocolversion' || key === 'compression') break;
        else throw new StressArgError(`-mode: unknown option ${word}`);
        break;
      case '-col':
        if (key === 'n') s.columnCount = parseDistribution(value ?? '').spec;
        else if (key === 'size') s.columnSize = parseDistribution(value ?? '').spec;
        else throw new StressArgError(`-col: unknown option ${word} (n=5 size=FIXED(34))`);
        break;
      case '-pop':
        if (key === 'seq') {
          const range = /^(\d+[kmb]?)\.\.+(\d+[kmb]?)$/i.exec(value ?? '');
          if (!range) throw new StressArgError(`-pop seq=min..max: ${word}`);
          const wrap = s.population?.wrap ?? true;
          s.population = { kind: 'seq', spec: `SEQ(${parseCount(range[1]!)}..${parseCount(range[2]!)})`, wrap };
        } else if (key === 'dist') {
          s.population = { kind: 'dist', spec: parseDistribution(value ?? '').spec };
        } else if (key === 'no-wrap') {
          s.population ??= { kind: 'seq', spec: '', wrap: false };
          s.population.wrap = false;
        } else if (key === 'contents') break;
        else if (key === 'read-lookback') throw new StressArgError('-pop read-lookback= is not supported');
        else throw new StressArgError(`-pop: unknown option ${word} (seq=1..N [no-wrap] or dist=GAUSSIAN(1..N))`);
        break;
      case '-insert':
        if (key === 'partitions') s.insert.partitions = distributionFactory(value ?? '')().spec;
        else if (key === 'visits') s.insert.visits = distributionFactory(value ?? '')().spec;
        else if (key === 'revisit') s.insert.revisit = distributionFactory(value ?? '')().spec;
        else if (key === 'select-ratio') s.insert.selectRatio = ratioDistributionFactory(value ?? '')().spec;
        else if (key === 'row-population-ratio') {
          s.insert.rowPopulationRatio = ratioDistributionFactory(value ?? '')().spec;
        } else if (key === 'batchtype') s.insert.batchType = parseBatchType(value ?? '');
        else {
          throw new StressArgError(
            `-insert: unknown option ${word} (partitions=, select-ratio=, row-population-ratio=, batchtype=, visits=, revisit=)`,
          );
        }
        break;
      case '-tokenrange':
        if (key === 'wrap') s.tokenRange.wrap = true;
        else if (key === 'split-factor') s.tokenRange.splitFactor = positive('split-factor', value ?? '');
        else throw new StressArgError(`-tokenrange: unknown option ${word} (wrap, split-factor=N)`);
        break;
      case '-log':
        if (key === 'file') s.logFile = value;
        else if (key === 'hdrfile') {
          if (!value) throw new StressArgError('-log hdrfile= needs a file name');
          s.hdrFile = value;
        } else if (key === 'interval') s.interval = Math.max(0.1, parseDuration(value ?? '') / 1000);
        else if (key === 'no-progress' || key === 'noprogress') s.progress = false;
        else if (key === 'level' || key === 'no-summary' || key === 'no-settings') break;
        else
          throw new StressArgError(`-log: unknown option ${word} (file=F, hdrfile=F.hlog, interval=1s, no-progress)`);
        break;
      case '-graph': {
        s.graph ??= { file: '', append: true };
        if (key === 'file') s.graph.file = value ?? '';
        else if (key === 'revision') s.graph.revision = value;
        else if (key === 'title') s.graph.title = value;
        else if (key === 'op') break;
        else throw new StressArgError(`-graph: unknown option ${word} (file=F revision=NAME title=T)`);
        break;
      }
      case '-schema': {
        const rf = /^replication\((?:.*,)?\s*factor=(\d+)\s*(?:,.*)?\)$/i.exec(word);
        if (rf) s.replicationFactor = positive('replication factor', rf[1]!);
        else if (key === 'keyspace') s.keyspace = value ?? '';
        else if (key === 'compaction' || key === 'compression') break;
        else throw new StressArgError(`-schema: unknown option ${word} (keyspace=K replication(factor=N))`);
        break;
      }
      case '-errors':
        if (key === 'ignore') s.errors.ignore = true;
        else if (key === 'retries') s.errors.retries = Math.max(0, parseCount(value ?? ''));
        else if (key === 'skip-read-validation') break;
        else throw new StressArgError(`-errors: unknown option ${word} (ignore, retries=N)`);
        break;
    }
  }
}

/** Joins words split inside parentheses, e.g. `ratio(write=1,` `read=3)` from an unquoted shell line. */
function joinParens(argv: string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const w of argv) {
    const word = pending ? `${pending}${w}` : w;
    const depth = (word.match(/\(/g)?.length ?? 0) - (word.match(/\)/g)?.length ?? 0);
    if (depth > 0) pending = word;
    else {
      pending = '';
      out.push(word);
    }
  }
  if (pending) out.push(pending);
  return out;
}

export function parseArgs(rawArgv: string[], env: NodeJS.ProcessEnv = {}): StressSettings {
  const argv = joinParens(rawArgv);
  const s = defaults(rawArgv, env);
  if (argv.length === 0) return s;
  const first = argv[0]!.toLowerCase();
  if (first === 'help' || first === '-h' || first === '--help' || first === '-?') return s;
  const command = COMMANDS[first];
  if (!command) {
    throw new StressArgError(
      `unknown command ${argv[0]} (write, read, mixed, counter_write, counter_read, user, ycsb, help)`,
    );
  }
  s.command = command;
  if (command === 'user') s.userCommand = { profiles: [], ops: new Map(), clustering: 'GAUSSIAN(1..10)' };
  let ycsb: YcsbSettings | undefined;
  if (s.command === 'ycsb') {
    ycsb = {
      workload: 'a',
      recordCount: 1000,
      operationCount: 1000,
      fieldCount: 10,
      fieldLength: 100,
      maxScanLength: 100,
      phase: 'both',
      proportions: {},
    };
    s.ycsb = ycsb;
    s.keyspace = 'ycsb';
  }
  let i = 1;
  for (; i < argv.length && !argv[i]!.startsWith('-'); i++) commandOption(s, argv[i]!, ycsb);
  while (i < argv.length) {
    const group = argv[i]!.toLowerCase();
    if (!GROUPS.has(group)) throw new StressArgError(`unknown option group ${argv[i]} (${[...GROUPS].join(' ')})`);
    const words: string[] = [];
    for (i++; i < argv.length && !(argv[i]!.startsWith('-') && GROUPS.has(argv[i]!.toLowerCase())); i++) {
      // The command's own options are also taken after the groups (n=, threads=, ratio(...), ...).
      if (group !== '-col' && COMMAND_WORD.test(argv[i]!)) commandOption(s, argv[i]!, ycsb);
      else words.push(argv[i]!);
    }
    groupOption(s, group, words);
  }
  if (s.graph && !s.graph.file) throw new StressArgError('-graph needs file=NAME.html');
  if (!s.keyspace || !/^\w+$/.test(s.keyspace)) throw new StressArgError(`bad keyspace name: ${s.keyspace}`);
  if (s.n === undefined && s.duration === undefined && !ycsb) s.n = 1_000_000;
  if (s.population && s.population.spec === '') {
    if (s.command === 'user') s.population.spec = `SEQ(1..${s.n ?? 1_000_000})`;
    else throw new StressArgError('-pop no-wrap goes with seq=min..max');
  }
  if (s.population?.wrap === false && s.command !== 'user') {
    throw new StressArgError('-pop no-wrap is for the user command');
  }
  if (s.userCommand) {
    if (s.userCommand.profiles.length === 0) throw new StressArgError('user needs profile=FILE.yaml');
    if (s.userCommand.ops.size === 0)
      throw new StressArgError('user needs ops(insert=1,...) (the operations and their weights)');
  }
  if (ycsb && s.n !== undefined) ycsb.operationCount = s.n;
  if (s.autoThreads) {
    if (ycsb) throw new StressArgError('-rate auto is not for ycsb');
    if (s.autoThreads.min > s.autoThreads.max) throw new StressArgError('-rate: threads>= is above threads<=');
  }
  return s;
}

export const USAGE = `Usage: pmemcql-stress <command> [options] [-group options...]

Commands (cassandra-stress's, and YCSB's core workloads):
  write  n=N | duration=T  [cl=LOCAL_ONE] [threads=8] [keysize=10] [no-warmup]   one-row INSERTs into keyspace1.standard1
  read   n=N | duration=T  [cl=…] [threads=…]                 read them back (-pop dist=GAUSSIAN(1..N))
  mixed  n=N | duration=T  ratio(write=1,read=1) [cl=…]       both, in that ratio
  counter_write  n=N | duration=T [add=FIXED(1)]              add to the counters of keyspace1.counter1
  counter_read   n=N | duration=T                             read them back (an empty partition is an error)
  user   profile=FILE.yaml[,FILE2.yaml] ops(insert=1,QUERY=2,...) n=N | duration=T [clustering=GAUSSIAN(1..10)]
         a YAML profile's table, inserts, named queries and token range queries (n counts partitions)
  ycsb   workload=a..f recordcount=N operationcount=N [distribution=zipfian|uniform|latest]
         [threads=N] [fieldcount=10 fieldlength=100] [maxscanlength=100] [phase=both|load|run]
  help   this text
  Counts take k/m/b suffixes (n=1M); durations s/m/h (duration=30s).

Groups:
  -node HOST[,HOST] [datacenter=datacenter1]   contact points (default 127.0.0.1, or $PMEMCQL_STRESS_HOST)
  -port N | native=N                           CQL port (default 9042, or $PMEMCQL_STRESS_PORT)
  -rate threads=N [limit=N/s | fixed=N/s]      concurrent requests and an optional op rate cap
  -rate auto [threads>=4] [threads<=1000]      repeat the run at growing thread counts until op/s stops improving
  -mode [prepared|simple] [user=U password=P] [connectionsPerHost=N]
  -col n=5 size=FIXED(34)                      columns per row and bytes per value
  -pop seq=1..N [no-wrap] | dist=UNIFORM(1..N)|GAUSSIAN(1..N,5)|EXP(1..N)|EXTREME(1..N,1.5)   which partitions
  -insert partitions=DIST select-ratio=DIST/D row-population-ratio=DIST/D batchtype=LOGGED|UNLOGGED|COUNTER
          visits=DIST revisit=DIST             override a profile's insert section (user)
  -tokenrange [wrap] [split-factor=N]          token range queries: start over when done; split each range (user)
  -schema keyspace=keyspace1 replication(factor=1)
  -log file=report.html [hdrfile=F.hlog] [interval=1s] [no-progress]
                                               HTML report (*.html) or a copy of the output; HdrHistogram log
  -graph file=report.html [revision=NAME] [title=T]    add this run to a report, overlaid with earlier runs
  -errors ignore [retries=9]                   keep going after failed operations
Without -log file=*.html or -graph, the HTML report goes to stress-reports/ in the working directory.
`;
