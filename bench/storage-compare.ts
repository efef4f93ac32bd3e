// Side-by-side storage throughput, one run, the same keys and values for every engine:
//   - pmemcql's native pool through the addon (storage/native-binding.ts openPool): group-committed
//     batches of puts, point gets in random order, an ordered scan in pages;
//   - LMDB (npm `lmdb`) and SQLite (npm `better-sqlite3` 12, WAL) doing the same work, each at the
//     durability that matches ours in that setting.
// Two settings:
//   tmpfs  - files in /dev/shm: our pool in emulated pmem mode (PMEM_IS_PMEM_FORCE=1), LMDB with noSync,
//            SQLite WAL with synchronous=OFF. All survive a process crash, none a reboot.
//   disk   - files in the temp dir on the real disk: our pool journaled under commitlog_sync periodic (the default:
//            a commit returns once its journal record is written, an fdatasync every 10 s) and batch (each
//            commit waits for its fdatasync, blockUntilDurable), LMDB with its default sync (overlappingSync off,
//            so a commit returns after its fsync), SQLite WAL with synchronous=FULL (fsync per commit) and NORMAL.
// Every engine/setting runs in its own child process (libpmem reads PMEM_IS_PMEM_FORCE once per process),
// started one after the other; the parent prints a markdown table.
//
//   npx tsc -p tsconfig.json && node dist/bench/storage-compare.js [--rows 1000000] [--disk-rows 20000]
//     [--batch 1000] [--only tmpfs|disk] [--shm-dir /dev/shm] [--disk-dir $TMPDIR] [--disk-seconds 10]
//
// Keys: 20 bytes, 4 hash bytes first (so the insert order is random with respect to key order, as for
// token-prefixed partition keys); values: 100 bytes (the row number in the first 4). Gets visit every key
// once in a seeded random order, one call per key, then again 256 keys per call where the engine has a
// synchronous batched read (ours: getMany; SQLite: `WHERE k IN (256 ?)`; lmdb-js has only an async getMany,
// so none); the scan reads all rows in key order. Rates are per wall second; the
// CPU-second rate of the process is printed too, since the machine may be shared.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

type Engine = 'pmemcql' | 'lmdb' | 'sqlite';
type Setting = 'tmpfs' | 'disk';

interface RunSpec {
  id: string;
  engine: Engine;
  setting: Setting;
  label: string;
  durability: string;
  env: Record<string, string | undefined>;
  /** SQLite synchronous pragma. */
  synchronous?: 'OFF' | 'NORMAL' | 'FULL';
  /** Our pool's commitlog_sync on disk. */
  commitLogSync?: 'periodic' | 'batch';
}

const RUNS: RunSpec[] = [
  {
    id: 'pmemcql-emulated',
    engine: 'pmemcql',
    setting: 'tmpfs',
    label: 'pmemcql pool, emulated pmem',
    durability: 'process crash (cache flushes)',
    env: { PMEM_IS_PMEM_FORCE: '1' },
  },
  {
    id: 'lmdb-tmpfs',
    engine: 'lmdb',
    setting: 'tmpfs',
    label: 'LMDB, noSync',
    durability: 'process crash',
    env: {},
  },
  {
    id: 'sqlite-tmpfs',
    engine: 'sqlite',
    setting: 'tmpfs',
    label: 'SQLite WAL, synchronous=OFF',
    durability: 'process crash',
    env: {},
    synchronous: 'OFF',
  },
  {
    id: 'pmemcql-disk-periodic',
    engine: 'pmemcql',
    setting: 'disk',
    label: 'pmemcql pool, disk, commitlog_sync periodic (default)',
    durability: 'process crash at once; power loss: the last period (10 s)',
    env: { PMEM_IS_PMEM_FORCE: undefined },
    commitLogSync: 'periodic',
  },
  {
    id: 'pmemcql-disk-batch',
    engine: 'pmemcql',
    setting: 'disk',
    label: 'pmemcql pool, disk, commitlog_sync batch',
    durability: 'power loss at any moment',
    env: { PMEM_IS_PMEM_FORCE: undefined },
    commitLogSync: 'batch',
  },
  {
    id: 'lmdb-disk',
    engine: 'lmdb',
    setting: 'disk',
    label: 'LMDB, sync per commit',
    durability: 'power loss at any moment',
    env: {},
  },
  {
    id: 'sqlite-disk-full',
    engine: 'sqlite',
    setting: 'disk',
    label: 'SQLite WAL, synchronous=FULL',
    durability: 'power loss at any moment',
    env: {},
    synchronous: 'FULL',
  },
  {
    id: 'sqlite-disk-normal',
    engine: 'sqlite',
    setting: 'disk',
    label: 'SQLite WAL, synchronous=NORMAL',
    durability: 'process crash; power loss may drop the last commits',
    env: {},
    synchronous: 'NORMAL',
  },
];

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    'disk-rows': { type: 'string', default: '20000' },
    'disk-seconds': { type: 'string', default: '10' },
    batch: { type: 'string', default: '1000' },
    only: { type: 'string' },
    'shm-dir': { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : tmpdir() },
    'disk-dir': { type: 'string', default: tmpdir() },
    child: { type: 'string' },
  },
});

const BATCH = Number(args.batch);
const GET_BATCH = 256;
const KEY = 20;
const VALUE = 100;

interface Phase {
  count: number;
  wall: number;
  cpu: number;
}

interface ChildResult {
  id: string;
  rows: number;
  put: Phase;
  get: Phase;
  /** Point gets GET_BATCH keys per call, where the engine has a synchronous batched read. */
  getBatch?: Phase;
  scan: Phase;
  bytes: number;
  note: string;
}

if (args.child) {
  const spec = RUNS.find((r) => r.id === args.child);
  if (!spec) throw new Error(`unknown run ${args.child}`);
  const result = await runChild(spec);
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  process.exit(0);
} else {
  parent();
}

// ---- parent: runs every engine in its own process, prints the table ------------------------------------

function parent(): void {
  const rows = Number(args.rows);
  const diskRows = Number(args['disk-rows']);
  const selected = RUNS.filter((r) => !args.only || r.setting === args.only);
  const load0 = loadavg();
  const started = Date.now();
  const results: ChildResult[] = [];
  for (const spec of selected) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !(k in spec.env)) env[k] = v;
    for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env[k] = v;
    process.stderr.write(`${spec.id} ... `);
    const r = spawnSync(
      process.execPath,
      [
        process.argv[1]!,
        '--child',
        spec.id,
        '--rows',
        String(spec.setting === 'tmpfs' ? rows : diskRows),
        '--disk-seconds',
        args['disk-seconds']!,
        '--batch',
        String(BATCH),
        '--shm-dir',
        args['shm-dir']!,
        '--disk-dir',
        args['disk-dir']!,
      ],
      { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (r.status !== 0 || !line) {
      process.stderr.write(`failed (status ${r.status})\n${r.stdout}\n${r.stderr}\n`);
      continue;
    }
    const res = JSON.parse(line.slice(7)) as ChildResult;
    results.push(res);
    process.stderr.write(`${((res.put.wall + res.get.wall + res.scan.wall) | 0) + 1} s\n`);
  }
  const load1 = loadavg();

  const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');
  const rate = (p: Phase) => p.count / p.wall;
  const cpuRate = (p: Phase) => p.count / Math.max(p.cpu, 1e-9);
  const ratio = (ours: number, theirs: number) =>
    theirs > 0 ? `${ours / theirs < 0.1 ? (ours / theirs).toPrecision(2) : (ours / theirs).toFixed(2)}×` : '-';
  const cpuModel = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  console.log(
    `node ${process.version}, ${cpus().length} × ${cpuModel}; ${KEY}-byte keys, ${VALUE}-byte values, ` +
      `puts in batches of ${BATCH} (one transaction each); load average ${load0.map((x) => x.toFixed(2)).join(' ')} ` +
      `before, ${load1.map((x) => x.toFixed(2)).join(' ')} after; ${((Date.now() - started) / 1000).toFixed(0)} s total`,
  );
  for (const setting of ['tmpfs', 'disk'] as const) {
    const group = results.filter((r) => RUNS.find((s) => s.id === r.id)!.setting === setting);
    if (group.length === 0) continue;
    const ours = group.find((r) => r.id.startsWith('pmemcql'))!;
    console.log('');
    console.log(
      setting === 'tmpfs'
        ? `### tmpfs (${args['shm-dir']}): ${ours?.rows ?? 0} rows`
        : `### disk (${args['disk-dir']}): up to ${args['disk-rows']} rows per engine, put phase capped at ${args['disk-seconds']} s`,
    );
    console.log('');
    console.log(
      `| engine | survives | rows | put/s | get/s | get/s, ${GET_BATCH} keys per call | scan rows/s | bytes/row | ours÷theirs: put | get | batched get | scan |`,
    );
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const base = setting === 'tmpfs' ? ours : group.find((g) => g.id === 'pmemcql-disk-periodic');
    for (const r of group) {
      const spec = RUNS.find((s) => s.id === r.id)!;
      const both = (p: Phase) => `${fmt(rate(p))} (${fmt(cpuRate(p))})`;
      const vs = (b: Phase, p: Phase) => `${ratio(rate(b), rate(p))} (${ratio(cpuRate(b), cpuRate(p))})`;
      const other = base && base !== r;
      const cells = [
        spec.label + (r.note ? ` (${r.note})` : ''),
        spec.durability,
        String(r.rows),
        both(r.put),
        both(r.get),
        r.getBatch ? both(r.getBatch) : '-',
        both(r.scan),
        fmt(r.bytes / r.rows),
        other ? vs(base.put, r.put) : '-',
        other ? vs(base.get, r.get) : '-',
        other && base.getBatch && r.getBatch ? vs(base.getBatch, r.getBatch) : '-',
        other ? vs(base.scan, r.scan) : '-',
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
    console.log('');
    console.log(
      'Rates per wall second (per CPU second of the process in parentheses); ratios > 1 mean ours is faster.',
    );
    if (setting === 'disk') {
      for (const id of ['pmemcql-disk-batch']) {
        const commit = group.find((g) => g.id === id);
        if (!commit) continue;
        console.log('');
        console.log(
          'ratios in the disk table are against commitlog_sync periodic (the default); batch vs the others, put/s: ' +
            group
              .filter((g) => !g.id.startsWith('pmemcql'))
              .map((g) => `${g.id} ${ratio(rate(commit.put), rate(g.put))}`)
              .join(', ') +
            '.',
        );
      }
    }
  }
}

// ---- the work, shared by every engine -----------------------------------------------------------------

interface Store {
  /** One transaction holding rows [from, to). */
  putBatch(from: number, to: number): void;
  /** The value's length (0 when missing) after checking its first 4 bytes are `i`. */
  get(i: number): number;
  /** The keys order[from, to) read with one batched call; returns the bytes read (values checked). */
  getBatch?(order: Uint32Array, from: number, to: number): number;
  /** All rows in key order; returns how many. */
  scanAll(): number;
  bytes(): number;
  close(): void | Promise<void>;
}

function makeKeys(rows: number): { keyBytes: Buffer; key: (i: number) => Buffer; value: (i: number) => Buffer } {
  const keyBytes = Buffer.alloc(rows * KEY);
  for (let i = 0; i < rows; i++) {
    keyBytes.writeUInt32BE(Math.imul(i, 2654435761) >>> 0, i * KEY);
    keyBytes.write(`row:${String(i).padStart(12, '0')}`, i * KEY + 4, 'latin1');
  }
  // Every engine copies the value before put returns, so one buffer serves all puts.
  const v = Buffer.alloc(VALUE, 0x61);
  return {
    keyBytes,
    key: (i) => keyBytes.subarray(i * KEY, i * KEY + KEY),
    value: (i) => {
      v.writeUInt32BE(i, 0);
      return v;
    },
  };
}

/** A seeded permutation of 0..n-1 (Fisher-Yates over mulberry32). */
function permutation(n: number, seed: number): Uint32Array {
  const p = new Uint32Array(n);
  for (let i = 0; i < n; i++) p[i] = i;
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

function timed(fn: () => number): Phase {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const count = fn();
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  return { count, wall, cpu: (c.user + c.system) / 1e6 };
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) n += statSync(join(dir, f)).blocks * 512;
  return n;
}

async function runChild(spec: RunSpec): Promise<ChildResult> {
  const rows = Number(args.rows);
  const base = spec.setting === 'tmpfs' ? args['shm-dir']! : args['disk-dir']!;
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `pmemcql-compare-${spec.id}-`));
  const { key, value } = makeKeys(rows);
  let note = '';
  try {
    const store = await openStore(spec, dir, rows, key, value, (n) => {
      note = n;
    });
    // Put: new keys, in batches, until `rows` (or the time cap in the disk setting).
    const cap = spec.setting === 'disk' ? Number(args['disk-seconds']) * 1e9 : Number.POSITIVE_INFINITY;
    const t0 = process.hrtime.bigint();
    const put = timed(() => {
      let i = 0;
      while (i < rows) {
        const end = Math.min(rows, i + BATCH);
        store.putBatch(i, end);
        i = end;
        if (Number(process.hrtime.bigint() - t0) > cap) break;
      }
      return i;
    });
    const n = put.count;
    if (n < rows) note = `${note ? `${note}, ` : ''}put capped at ${args['disk-seconds']} s`;
    const order = permutation(n, 42);
    const get = timed(() => {
      let bytes = 0;
      for (let j = 0; j < n; j++) bytes += store.get(order[j]!);
      if (bytes !== n * VALUE) throw new Error(`${spec.id}: gets returned ${bytes} bytes, expected ${n * VALUE}`);
      return n;
    });
    let getBatch: Phase | undefined;
    if (store.getBatch) {
      const batched = store.getBatch.bind(store);
      getBatch = timed(() => {
        let bytes = 0;
        for (let j = 0; j < n; j += GET_BATCH) bytes += batched(order, j, Math.min(n, j + GET_BATCH));
        if (bytes !== n * VALUE) throw new Error(`${spec.id}: batched gets returned ${bytes} bytes`);
        return n;
      });
    }
    const scan = timed(() => {
      const seen = store.scanAll();
      if (seen !== n) throw new Error(`${spec.id}: scan saw ${seen} rows, expected ${n}`);
      return seen;
    });
    const bytes = store.bytes();
    await store.close();
    return { id: spec.id, rows: n, put, get, getBatch, scan, bytes, note };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function openStore(
  spec: RunSpec,
  dir: string,
  rows: number,
  key: (i: number) => Buffer,
  value: (i: number) => Buffer,
  setNote: (n: string) => void,
): Promise<Store> {
  const check = (v: Buffer | undefined, i: number): number => {
    if (!v) return 0;
    if (v.readUInt32BE(0) !== i) throw new Error(`${spec.id}: wrong value for row ${i}`);
    return v.length;
  };

  if (spec.engine === 'pmemcql') {
    // Loaded here, after the parent set the environment the addon reads at load time.
    const { openPool } = await import('../storage/native-binding.js');
    const pool = openPool({
      path: join(dir, 'bench.pool'),
      size: Math.max(1 << 30, rows * 600),
      commitLog: { sync: spec.commitLogSync ?? 'periodic' },
    });
    const expected = spec.setting === 'tmpfs' ? 'emulated' : 'disk';
    if (pool.info.mode !== expected) throw new Error(`${spec.id}: pool mode ${pool.info.mode}, expected ${expected}`);
    setNote(`mode ${pool.info.mode}, sync ${pool.info.sync}`);
    const root = pool.root;
    return {
      putBatch(from, to) {
        const b = pool.batch();
        for (let i = from; i < to; i++) b.put(root, key(i), value(i));
        pool.apply(b);
        // batch: the commit returns once its fdatasync did (0, nothing to wait for, elsewhere).
        pool.blockUntilDurable(pool.commitTicket());
      },
      get: (i) => check(pool.get(root, key(i)), i),
      getBatch(order, from, to) {
        const keys: Buffer[] = [];
        for (let j = from; j < to; j++) keys.push(key(order[j]!));
        // Values read in place (no Buffer per value), as the row decoders do.
        let bytes = 0;
        pool.getManyEach(root, keys, (i, b, off, len) => {
          if (len < 0 || b.readUInt32BE(off) !== order[from + i]) throw new Error(`${spec.id}: wrong value`);
          bytes += len;
        });
        return bytes;
      },
      scanAll() {
        let n = 0;
        let bound: Buffer | undefined;
        for (;;) {
          const page = pool.scan(root, { start: bound, startInclusive: false, limit: 1000 });
          n += page.keys.length;
          if (page.keys.length < 1000) return n;
          bound = page.keys[page.keys.length - 1];
        }
      },
      bytes: () => pool.info.used,
      close: () => pool.close(),
    };
  }

  if (spec.engine === 'lmdb') {
    // lmdb is a development dependency, loaded when this bench runs (building the server does not need it).
    interface LmdbDatabase {
      transactionSync(fn: () => void): void;
      putSync(key: Buffer, value: Buffer): void;
      getBinaryFast(key: Buffer): Buffer | undefined;
      getRange(options: object): Iterable<{ value: Buffer }>;
      close(): Promise<void>;
    }
    const { open } = createRequire(import.meta.url)('lmdb') as { open(options: object): LmdbDatabase };
    const db = open({
      path: join(dir, 'lmdb'),
      keyEncoding: 'binary',
      encoding: 'binary',
      // tmpfs: no flushes at all (a process crash loses nothing: the file is in the page cache).
      // disk: LMDB's default sync, and overlappingSync off so that a commit returns after its fsync.
      noSync: spec.setting === 'tmpfs',
      overlappingSync: false,
      mapSize: Math.max(1 << 30, rows * 600),
    });
    setNote(spec.setting === 'tmpfs' ? 'transactionSync, getBinaryFast' : 'transactionSync, fsync per commit');
    return {
      putBatch(from, to) {
        db.transactionSync(() => {
          for (let i = from; i < to; i++) db.putSync(key(i), value(i));
        });
      },
      get: (i) => check(db.getBinaryFast(key(i)), i),
      scanAll() {
        let n = 0;
        for (const { value } of db.getRange({})) if (value.length === VALUE) n++;
        return n;
      },
      bytes: () => dirBytes(join(dir, 'lmdb')) || dirBytes(dir),
      close: () => db.close(),
    };
  }

  // better-sqlite3 has no bundled types: the few calls used here.
  interface Statement {
    run(...params: unknown[]): unknown;
    get(...params: unknown[]): unknown;
    iterate(...params: unknown[]): IterableIterator<unknown>;
    pluck(on?: boolean): Statement;
    raw(on?: boolean): Statement;
  }
  interface Database {
    pragma(s: string): unknown;
    exec(s: string): void;
    prepare(s: string): Statement;
    transaction<A extends unknown[]>(fn: (...a: A) => void): (...a: A) => void;
    close(): void;
  }
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => Database;
  const file = join(dir, 'bench.sqlite');
  const db = new Sqlite(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${spec.synchronous}`);
  // A clustered B-tree keyed by the blob (no rowid indirection): the same structure as the others.
  db.exec('CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID');
  const insert = db.prepare('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)');
  const select = db.prepare('SELECT v FROM kv WHERE k = ?').pluck();
  // The batched read: one statement for GET_BATCH keys (rows come back in key order, not asked order).
  const selectMany = db.prepare(`SELECT k, v FROM kv WHERE k IN (${new Array(GET_BATCH).fill('?').join(',')})`).raw();
  const selectFew = (n: number) =>
    db.prepare(`SELECT k, v FROM kv WHERE k IN (${new Array(n).fill('?').join(',')})`).raw();
  const scan = db.prepare('SELECT k, v FROM kv ORDER BY k').raw();
  const putMany = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(key(i), value(i));
  });
  setNote('prepared statements, WITHOUT ROWID');
  return {
    putBatch: (from, to) => putMany(from, to),
    get: (i) => check(select.get(key(i)) as Buffer | undefined, i),
    getBatch(order, from, to) {
      const keys: Buffer[] = [];
      for (let j = from; j < to; j++) keys.push(key(order[j]!));
      const stmt = keys.length === GET_BATCH ? selectMany : selectFew(keys.length);
      let bytes = 0;
      for (const row of stmt.iterate(...keys)) {
        const [k, v] = row as [Buffer, Buffer];
        // The row number is in the key's text part (row:NNNNNNNNNNNN).
        bytes += check(v, Number(k.subarray(8).toString('latin1')));
      }
      return bytes;
    },
    scanAll() {
      let n = 0;
      for (const row of scan.iterate()) if (((row as Buffer[])[1] as Buffer).length === VALUE) n++;
      return n;
    },
    bytes: () => dirBytes(dir),
    close: () => db.close(),
  };
}
