// The table engine on real pool files, against a reference model of Cassandra's semantics (storage-model
// section below): random writes / deletes / TTLs / range and partition deletions, grouped into event-loop
// turns (group commit), with reopen in between; reads (slices, reversed, limits, static rows, writetime/ttl)
// and paged token-range scans must equal the model's answers.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { murmur3Token } from '../storage/murmur3-token.js';
import type { Cell, ClusteringBound, PartitionUpdate, RowUpdate } from '../storage/mutation.js';
import { NO_DELETION_TIME, rowLiveness } from '../storage/mutation.js';
import type { ColumnValue, ReadRow } from '../storage/row-projection.js';
import { StorageEngine } from '../storage/storage-engine.js';
import type { PartitionRead, TableStore } from '../storage/table-store.js';

const ADDON = new URL('../native/build/Release/pmemcql_native.node', import.meta.url);
const hasAddon = existsSync(ADDON);

// ---- reference model ----------------------------------------------------------------------------

const NO_DEL = 0x7fffffff;

interface MCell {
  ts: number;
  ttl: number;
  /** Expiry for expiring cells, deletion time for tombstones, NO_DEL for regular cells. */
  ldt: number;
  value: number | null;
}

interface MLiveness {
  ts: number;
  ttl: number;
  expiry: number;
}

interface MBound {
  comps: number[];
  incl: boolean;
}

type Ck = number[];

interface PlainRow {
  ck: string;
  cv: string[];
  values: (string | [string, string][] | null)[];
  writetimes?: (number | number[] | null)[];
  ttls?: (number | (number | null)[] | null)[];
}

interface PlainPartition {
  pk: string;
  staticRow: PlainRow | undefined;
  rows: PlainRow[];
}

/** Test schema: columns 0, 1 simple regular; 2 complex (a map of byte -> byte); 5 static. */
const COMPLEX_COLUMN = 2;
const STATIC_COLUMN = 5;
const ALL_COLUMNS = [0, 1, 2, 5];

const hex = (n: number) => Buffer.from([n]).toString('hex');
const ckKey = (ck: Ck) => ck.join(',');

function cmpTuple(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Compares the first |prefix| components of ck with the prefix. */
function cmpPrefix(ck: Ck, prefix: number[]): number {
  for (let i = 0; i < prefix.length; i++) {
    if (i >= ck.length) return -1;
    if (ck[i] !== prefix[i]) return ck[i]! - prefix[i]!;
  }
  return 0;
}

function inBounds(ck: Ck, start: MBound | undefined, end: MBound | undefined): boolean {
  if (start && start.comps.length > 0) {
    const c = cmpPrefix(ck, start.comps);
    if (start.incl ? c < 0 : c <= 0) return false;
  }
  if (end && end.comps.length > 0) {
    const c = cmpPrefix(ck, end.comps);
    if (end.incl ? c > 0 : c >= 0) return false;
  }
  return true;
}

/** Cassandra 5.0 Cells.resolveRegular: does a beat b. */
function cellBeats(a: MCell, b: MCell): boolean {
  if (a.ts !== b.ts) return a.ts > b.ts;
  const aE = a.ldt !== NO_DEL;
  const bE = b.ldt !== NO_DEL;
  if (aE !== bE) return aE;
  if (aE) {
    const aT = a.ttl === 0;
    const bT = b.ttl === 0;
    if (aT !== bT) return aT;
    if (a.ldt !== b.ldt) return a.ldt > b.ldt;
  }
  return (a.value ?? -1) > (b.value ?? -1);
}

/** LivenessInfo.supersedes. */
function livenessBeats(a: MLiveness, b: MLiveness): boolean {
  if (a.ts !== b.ts) return a.ts > b.ts;
  const aE = a.ttl !== 0;
  const bE = b.ttl !== 0;
  if (aE === bE) return a.expiry > b.expiry;
  return aE;
}

function winnerOf(cells: MCell[]): MCell {
  let w = cells[0]!;
  for (const c of cells) if (cellBeats(c, w)) w = c;
  return w;
}

/** Keeps every write; answers reads from first principles. No merging, no byte encodings. */
class Model {
  private readonly cells = new Map<string, MCell[]>();
  private readonly liveness = new Map<string, MLiveness[]>();
  private readonly rowDeletions = new Map<string, number[]>();
  private readonly complexDeletions = new Map<string, number[]>();
  private readonly partitionDeletions = new Map<number, number[]>();
  private readonly ranges = new Map<number, { start: MBound; end: MBound; ts: number }[]>();
  private readonly rowsOf = new Map<number, Map<string, Ck>>();

  private push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
    const l = m.get(k);
    if (l) l.push(v);
    else m.set(k, [v]);
  }

  private partition(pk: number): Map<string, Ck> {
    let rows = this.rowsOf.get(pk);
    if (!rows) {
      rows = new Map();
      this.rowsOf.set(pk, rows);
    }
    return rows;
  }

  private touch(pk: number, ck: Ck): void {
    this.partition(pk).set(ckKey(ck), ck);
  }

  partitionKeys(): number[] {
    return [...this.rowsOf.keys()];
  }

  clear(): void {
    for (const m of [this.cells, this.liveness, this.rowDeletions, this.complexDeletions]) m.clear();
    this.partitionDeletions.clear();
    this.ranges.clear();
    this.rowsOf.clear();
  }

  cell(pk: number, ck: Ck | 'static', column: number, path: number | undefined, c: MCell): void {
    if (ck === 'static') this.partition(pk);
    else this.touch(pk, ck);
    this.push(this.cells, `${pk}|${ck === 'static' ? 's' : ckKey(ck)}|${column}|${path ?? ''}`, c);
  }

  rowLiveness(pk: number, ck: Ck, ts: number, ttl: number, now: number): void {
    this.touch(pk, ck);
    this.push(this.liveness, `${pk}|${ckKey(ck)}`, { ts, ttl, expiry: ttl > 0 ? now + ttl : NO_DEL });
  }

  rowDeletion(pk: number, ck: Ck, ts: number): void {
    this.touch(pk, ck);
    this.push(this.rowDeletions, `${pk}|${ckKey(ck)}`, ts);
  }

  complexDeletion(pk: number, ck: Ck, column: number, ts: number): void {
    this.touch(pk, ck);
    this.push(this.complexDeletions, `${pk}|${ckKey(ck)}|${column}`, ts);
  }

  partitionDeletion(pk: number, ts: number): void {
    this.partition(pk);
    this.push(this.partitionDeletions, pk, ts);
  }

  rangeDeletion(pk: number, start: MBound, end: MBound, ts: number): void {
    this.partition(pk);
    this.push(this.ranges, pk, { start, end, ts });
  }

  private deletionOf(pk: number, ck: Ck | 'static'): number {
    let d = Number.NEGATIVE_INFINITY;
    for (const ts of this.partitionDeletions.get(pk) ?? []) d = Math.max(d, ts);
    if (ck === 'static') return d;
    for (const r of this.ranges.get(pk) ?? []) if (inBounds(ck, r.start, r.end)) d = Math.max(d, r.ts);
    for (const ts of this.rowDeletions.get(`${pk}|${ckKey(ck)}`) ?? []) d = Math.max(d, ts);
    return d;
  }

  /** The row as a read at `now` sees it (undefined: not live). */
  row(pk: number, ck: Ck | 'static', now: number, meta: boolean): PlainRow | undefined {
    const d = this.deletionOf(pk, ck);
    const ckName = ck === 'static' ? 's' : ckKey(ck);
    let live = false;
    if (ck !== 'static') {
      const ls = this.liveness.get(`${pk}|${ckName}`);
      if (ls) {
        let w = ls[0]!;
        for (const l of ls) if (livenessBeats(l, w)) w = l;
        if (w.ts > d && (w.ttl === 0 || now < w.expiry)) live = true;
      }
    }
    const values: PlainRow['values'] = [];
    const writetimes: NonNullable<PlainRow['writetimes']> = [];
    const ttls: NonNullable<PlainRow['ttls']> = [];
    const isLive = (c: MCell, del: number) => c.value !== null && (c.ttl === 0 || now < c.ldt) && c.ts > del;
    for (const column of ALL_COLUMNS) {
      if ((column !== STATIC_COLUMN) === (ck === 'static')) {
        values.push(null);
        writetimes.push(null);
        ttls.push(null);
        continue;
      }
      if (column !== COMPLEX_COLUMN) {
        const cs = this.cells.get(`${pk}|${ckName}|${column}|`);
        const w = cs ? winnerOf(cs) : undefined;
        if (w && isLive(w, d)) {
          live = true;
          values.push(hex(w.value!));
          writetimes.push(w.ts);
          ttls.push(w.ttl === 0 ? null : w.ldt - now);
        } else {
          values.push(null);
          writetimes.push(null);
          ttls.push(null);
        }
        continue;
      }
      let cd = d;
      for (const ts of this.complexDeletions.get(`${pk}|${ckName}|${column}`) ?? []) cd = Math.max(cd, ts);
      const elements: [string, string][] = [];
      const wts: number[] = [];
      const ets: (number | null)[] = [];
      for (let path = 0; path < 256; path++) {
        const cs = this.cells.get(`${pk}|${ckName}|${column}|${path}`);
        if (!cs) continue;
        const w = winnerOf(cs);
        if (!isLive(w, cd)) continue;
        live = true;
        elements.push([hex(path), hex(w.value!)]);
        wts.push(w.ts);
        ets.push(w.ttl === 0 ? null : w.ldt - now);
      }
      values.push(elements.length > 0 ? elements : null);
      writetimes.push(elements.length > 0 ? wts : null);
      ttls.push(elements.length > 0 ? ets : null);
    }
    if (!live) return undefined;
    const row: PlainRow = {
      ck: ck === 'static' ? '' : Buffer.from(ck).toString('hex'),
      cv: ck === 'static' ? [] : ck.map(hex),
      values,
    };
    if (meta) {
      row.writetimes = writetimes;
      row.ttls = ttls;
    }
    return row;
  }

  /** Live rows of a partition, in clustering order, within a slice. */
  rows(pk: number, start: MBound | undefined, end: MBound | undefined, now: number, meta: boolean): PlainRow[] {
    const cks = [...(this.rowsOf.get(pk)?.values() ?? [])].sort(cmpTuple);
    const out: PlainRow[] = [];
    for (const ck of cks) {
      if (!inBounds(ck, start, end)) continue;
      const r = this.row(pk, ck, now, meta);
      if (r) out.push(r);
    }
    return out;
  }

  partitionRead(
    pk: number,
    o: { start?: MBound; end?: MBound; reversed?: boolean; limit?: number; meta?: boolean; withStatic: boolean },
    now: number,
  ): PlainPartition | undefined {
    let rows = this.rows(pk, o.start, o.end, now, o.meta === true);
    if (o.reversed) rows.reverse();
    if (o.limit !== undefined) rows = rows.slice(0, o.limit);
    const staticRow = o.withStatic ? this.row(pk, 'static', now, o.meta === true) : undefined;
    if (rows.length === 0 && !staticRow) return undefined;
    return { pk: hex(pk), staticRow, rows };
  }
}

// ---- engine side --------------------------------------------------------------------------------

function plainValue(v: ColumnValue): string | [string, string][] | null {
  if (v === null) return null;
  if (Buffer.isBuffer(v)) return v.toString('hex');
  return v.paths.map((p, i) => [p.toString('hex'), v.values[i]!.toString('hex')]);
}

function plainRow(r: ReadRow, meta: boolean): PlainRow {
  const row: PlainRow = {
    ck: r.clustering.toString('hex'),
    cv: r.clusteringValues.map((b) => b.toString('hex')),
    values: r.values.map(plainValue),
  };
  if (meta) {
    row.writetimes = r.values.map((v, i) =>
      v !== null && !Buffer.isBuffer(v) ? v.writetimes! : (r.writetimes![i] ?? null),
    );
    row.ttls = r.values.map((v, i) => (v !== null && !Buffer.isBuffer(v) ? v.ttls! : (r.ttls![i] ?? null)));
  }
  return row;
}

function plainPartition(p: PartitionRead | undefined, meta: boolean): PlainPartition | undefined {
  if (!p) return undefined;
  return {
    pk: p.key.toString('hex'),
    staticRow: p.staticRow ? plainRow(p.staticRow, meta) : undefined,
    rows: p.rows.map((r) => plainRow(r, meta)),
  };
}

const pkBytes = (pk: number) => Buffer.from([pk]);
const tokenOf = (pk: number) => murmur3Token(pkBytes(pk));
const bound = (b: MBound | undefined): ClusteringBound | undefined =>
  b ? { prefix: Buffer.from(b.comps), inclusive: b.incl } : undefined;

// ---- operations ---------------------------------------------------------------------------------

type Op =
  | { k: 'insert'; pk: number; ck: Ck; ts: number; ttl: number; v0: number | null; v1: number | null }
  | { k: 'update'; pk: number; ck: Ck; ts: number; ttl: number; col: number; value: number | null }
  | { k: 'mapPut'; pk: number; ck: Ck; ts: number; ttl: number; path: number; value: number }
  | { k: 'mapRemove'; pk: number; ck: Ck; ts: number; path: number }
  | { k: 'mapOverwrite'; pk: number; ck: Ck; ts: number; entries: [number, number][] }
  | { k: 'static'; pk: number; ts: number; ttl: number; value: number | null }
  | { k: 'rowDelete'; pk: number; ck: Ck; ts: number }
  | { k: 'rangeDelete'; pk: number; start: MBound; end: MBound; ts: number }
  | { k: 'partitionDelete'; pk: number; ts: number }
  | { k: 'tick'; seconds: number }
  | { k: 'reopen' }
  | { k: 'flush' }
  | {
      k: 'read';
      pk: number;
      start?: MBound;
      end?: MBound;
      reversed: boolean;
      limit?: number;
      meta: boolean;
      withStatic: boolean;
    }
  | { k: 'scan'; pageSize: number; perPartitionLimit?: number; range?: [number, number]; slice?: [MBound, MBound] }
  | { k: 'pagedRead'; pk: number; reversed: boolean; pageSize: number; withStatic: boolean };

const arbPk = fc.integer({ min: 0, max: 3 });
const arbCk = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 }));
const arbTs = fc.integer({ min: 1, max: 6 });
const arbTtl = fc.constantFrom(0, 0, 0, 1, 2, 5);
const arbVal = fc.integer({ min: 0, max: 3 });
const arbBound: fc.Arbitrary<MBound> = fc.record({
  comps: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }),
  incl: fc.boolean(),
});

function arbOp(clustered: boolean): fc.Arbitrary<Op> {
  const ck = clustered ? arbCk.map((t) => [...t]) : fc.constant([] as number[]);
  const writes: fc.Arbitrary<Op>[] = [
    fc.record({
      k: fc.constant('insert' as const),
      pk: arbPk,
      ck,
      ts: arbTs,
      ttl: arbTtl,
      v0: fc.option(arbVal),
      v1: fc.option(arbVal),
    }),
    fc.record({
      k: fc.constant('update' as const),
      pk: arbPk,
      ck,
      ts: arbTs,
      ttl: arbTtl,
      col: fc.constantFrom(0, 1),
      value: fc.option(arbVal),
    }),
    fc.record({
      k: fc.constant('mapPut' as const),
      pk: arbPk,
      ck,
      ts: arbTs,
      ttl: arbTtl,
      path: arbVal,
      value: arbVal,
    }),
    fc.record({ k: fc.constant('mapRemove' as const), pk: arbPk, ck, ts: arbTs, path: arbVal }),
    fc.record({
      k: fc.constant('mapOverwrite' as const),
      pk: arbPk,
      ck,
      ts: arbTs,
      entries: fc.uniqueArray(fc.tuple(arbVal, arbVal), { maxLength: 3, selector: (e) => e[0] }),
    }),
    fc.record({ k: fc.constant('rowDelete' as const), pk: arbPk, ck, ts: arbTs }),
    fc.record({ k: fc.constant('partitionDelete' as const), pk: arbPk, ts: arbTs }),
  ];
  if (clustered) {
    writes.push(
      fc.record({ k: fc.constant('static' as const), pk: arbPk, ts: arbTs, ttl: arbTtl, value: fc.option(arbVal) }),
      fc.record({ k: fc.constant('rangeDelete' as const), pk: arbPk, start: arbBound, end: arbBound, ts: arbTs }),
    );
  }
  const others: fc.Arbitrary<Op>[] = [
    fc.record({ k: fc.constant('tick' as const), seconds: fc.integer({ min: 1, max: 3 }) }),
    fc.constant({ k: 'reopen' as const }),
    fc.constant({ k: 'flush' as const }),
    fc.record(
      {
        k: fc.constant('read' as const),
        pk: arbPk,
        start: arbBound,
        end: arbBound,
        reversed: fc.boolean(),
        limit: fc.integer({ min: 0, max: 5 }),
        meta: fc.boolean(),
        withStatic: fc.boolean(),
      },
      { requiredKeys: ['k', 'pk', 'reversed', 'meta', 'withStatic'] },
    ),
    fc.record(
      {
        k: fc.constant('scan' as const),
        pageSize: fc.integer({ min: 1, max: 7 }),
        perPartitionLimit: fc.integer({ min: 1, max: 3 }),
        range: fc.tuple(arbPk, arbPk),
        slice: fc.tuple(arbBound, arbBound),
      },
      { requiredKeys: ['k', 'pageSize'] },
    ),
    fc.record({
      k: fc.constant('pagedRead' as const),
      pk: arbPk,
      reversed: fc.boolean(),
      pageSize: fc.integer({ min: 1, max: 4 }),
      withStatic: fc.boolean(),
    }),
  ];
  return fc.oneof({ arbitrary: fc.oneof(...writes), weight: 4 }, { arbitrary: fc.oneof(...others), weight: 1 });
}

/** Turns an op into the PartitionUpdate the executor would send, and records it in the model. */
function toUpdate(op: Op, now: number, model: Model): PartitionUpdate | undefined {
  const cell = (column: number, ts: number, ttl: number, value: number | null, path?: number): Cell => {
    const c: Cell =
      value === null
        ? { column, ts, ttl: 0, ldt: now, value: null }
        : { column, ts, ttl, ldt: ttl > 0 ? now + ttl : NO_DELETION_TIME, value: Buffer.from([value]) };
    const mc: MCell = { ts: c.ts, ttl: c.ttl, ldt: c.ldt, value };
    if (column === STATIC_COLUMN) model.cell(pkOf(op), 'static', column, undefined, mc);
    else model.cell(pkOf(op), (op as { ck: Ck }).ck, column, path, mc);
    return path === undefined ? c : { ...c, path: Buffer.from([path]) };
  };
  const rowOf = (ck: Ck, extra: Partial<RowUpdate>): RowUpdate => ({
    clustering: Buffer.from(ck),
    clusteringValues: ck.map((c) => Buffer.from([c])),
    ...extra,
  });
  const base = (pk: number) => ({ key: pkBytes(pk), token: tokenOf(pk) });
  switch (op.k) {
    case 'insert': {
      model.rowLiveness(op.pk, op.ck, op.ts, op.ttl, now);
      const cells = [cell(0, op.ts, op.ttl, op.v0), cell(1, op.ts, op.ttl, op.v1)];
      return { ...base(op.pk), rows: [rowOf(op.ck, { liveness: rowLiveness(op.ts, op.ttl, now), cells })] };
    }
    case 'update':
      return { ...base(op.pk), rows: [rowOf(op.ck, { cells: [cell(op.col, op.ts, op.ttl, op.value)] })] };
    case 'mapPut':
      return {
        ...base(op.pk),
        rows: [rowOf(op.ck, { cells: [cell(COMPLEX_COLUMN, op.ts, op.ttl, op.value, op.path)] })],
      };
    case 'mapRemove':
      return {
        ...base(op.pk),
        rows: [rowOf(op.ck, { cells: [cell(COMPLEX_COLUMN, op.ts, 0, null, op.path)] })],
      };
    case 'mapOverwrite': {
      // Cassandra: `m = {...}` deletes the column at ts - 1 and writes the elements at ts.
      model.complexDeletion(op.pk, op.ck, COMPLEX_COLUMN, op.ts - 1);
      const cells = op.entries.map(([p, v]) => cell(COMPLEX_COLUMN, op.ts, 0, v, p));
      const complexDeletions = [{ column: COMPLEX_COLUMN, deletion: { ts: op.ts - 1, ldt: now } }];
      return { ...base(op.pk), rows: [rowOf(op.ck, { cells, complexDeletions })] };
    }
    case 'static':
      return {
        ...base(op.pk),
        staticRow: { clustering: Buffer.alloc(0), cells: [cell(STATIC_COLUMN, op.ts, op.ttl, op.value)] },
      };
    case 'rowDelete':
      model.rowDeletion(op.pk, op.ck, op.ts);
      return { ...base(op.pk), rows: [rowOf(op.ck, { deletion: { ts: op.ts, ldt: now } })] };
    case 'rangeDelete':
      model.rangeDeletion(op.pk, op.start, op.end, op.ts);
      return {
        ...base(op.pk),
        rangeTombstones: [{ start: bound(op.start)!, end: bound(op.end)!, deletion: { ts: op.ts, ldt: now } }],
      };
    case 'partitionDelete':
      model.partitionDeletion(op.pk, op.ts);
      return { ...base(op.pk), deletion: { ts: op.ts, ldt: now } };
    default:
      return undefined;
  }
}

function pkOf(op: Op): number {
  return (op as { pk: number }).pk;
}

function comparePartitionOrder(a: number, b: number): number {
  const ta = tokenOf(a);
  const tb = tokenOf(b);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a - b;
}

// ---- the tests ----------------------------------------------------------------------------------

describe.skipIf(!hasAddon)('storage engine on a real pool', () => {
  let dir: string;
  let path: string;
  let engine: StorageEngine;
  let tableSeq = 0;

  beforeAll(() => {
    // tmpfs when there is one: disk mode msyncs every commit, and these tests commit thousands of times.
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-storage-'));
    path = join(dir, 'engine.pool');
    engine = StorageEngine.open({ path, size: 256 * 1024 * 1024 });
  });

  afterAll(() => {
    engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function reopen(): void {
    engine.close();
    engine = StorageEngine.open({ path, size: 256 * 1024 * 1024 });
  }

  const newTableId = () => Buffer.from(`t${++tableSeq}`);

  async function runScenario(clustered: boolean, ops: Op[]): Promise<void> {
    const id = newTableId();
    let table: TableStore = await engine.createTable(id, { clustered });
    const model = new Model();
    let now = 1_000_000;
    let pending: Promise<void>[] = [];
    const settle = async () => {
      await Promise.all(pending);
      pending = [];
    };
    for (const op of ops) {
      const update = toUpdate(op, now, model);
      if (update) {
        pending.push(table.applyMutations([update], now));
        continue;
      }
      await settle();
      switch (op.k) {
        case 'tick':
          now += op.seconds;
          break;
        case 'reopen':
          reopen();
          table = engine.table(id)!;
          expect(table).toBeDefined();
          break;
        case 'read': {
          const o = { ...op, withStatic: op.withStatic && clustered };
          const got = table.readPartition(pkBytes(op.pk), tokenOf(op.pk), {
            columns: ALL_COLUMNS,
            nowInSeconds: now,
            start: bound(op.start),
            end: bound(op.end),
            reversed: op.reversed,
            limit: op.limit,
            includeStatic: o.withStatic,
            withMetadata: op.meta,
          });
          const want = model.partitionRead(op.pk, clustered ? o : { ...o, start: undefined, end: undefined }, now);
          expect(plainPartition(got, op.meta)).toEqual(want);
          break;
        }
        case 'scan':
          checkScan(table, model, now, clustered ? op : { ...op, slice: undefined }, clustered);
          break;
        case 'pagedRead': {
          // The executor pages inside a partition with an exclusive bound at the last clustering returned.
          const withStatic = op.withStatic && clustered;
          const want = model.partitionRead(op.pk, { reversed: op.reversed, withStatic }, now);
          let got: PlainPartition | undefined;
          let last: Buffer | undefined;
          for (let page = 0; page < 100; page++) {
            const from = last && { prefix: last, inclusive: false };
            const p = table.readPartition(pkBytes(op.pk), tokenOf(op.pk), {
              columns: ALL_COLUMNS,
              nowInSeconds: now,
              start: op.reversed ? undefined : from,
              end: op.reversed ? from : undefined,
              reversed: op.reversed,
              limit: op.pageSize,
              includeStatic: withStatic,
            });
            const plain = plainPartition(p, false);
            if (!plain) break;
            if (got) got.rows.push(...plain.rows);
            else got = plain;
            if (p!.rows.length < op.pageSize || !clustered) break;
            last = p!.rows[p!.rows.length - 1]!.clustering;
          }
          expect(got).toEqual(want);
          break;
        }
      }
    }
    await settle();
    checkScan(table, model, now, { k: 'scan', pageSize: 1000 }, clustered);
    await table.drop();
    expect(engine.table(id)).toBeUndefined();
  }

  function checkScan(
    table: TableStore,
    model: Model,
    now: number,
    op: Extract<Op, { k: 'scan' }>,
    clustered: boolean,
  ): void {
    let startToken: bigint | undefined;
    let endToken: bigint | undefined;
    if (op.range) {
      startToken = tokenOf(op.range[0]);
      endToken = tokenOf(op.range[1]);
    }
    // Cassandra's token(k) > a AND token(k) <= b.
    const inRange = (pk: number) =>
      (startToken === undefined || tokenOf(pk) > startToken) && (endToken === undefined || tokenOf(pk) <= endToken);
    const per = op.perPartitionLimit;
    const want: PlainPartition[] = [];
    for (const pk of model.partitionKeys().filter(inRange).sort(comparePartitionOrder)) {
      const [start, end] = op.slice ?? [undefined, undefined];
      const p = model.partitionRead(pk, { withStatic: clustered, limit: per, start, end }, now);
      if (p) want.push(p);
    }
    const got: PlainPartition[] = [];
    let after: ReturnType<TableStore['scanRange']>['next'];
    for (let page = 0; page < 1000; page++) {
      const res = table.scanRange({
        columns: ALL_COLUMNS,
        nowInSeconds: now,
        includeStatic: clustered,
        limit: op.pageSize,
        perPartitionLimit: per,
        start: bound(op.slice?.[0]),
        end: bound(op.slice?.[1]),
        startToken: startToken === undefined ? undefined : { token: startToken, inclusive: false },
        endToken: endToken === undefined ? undefined : { token: endToken, inclusive: true },
        after,
      });
      let rows = 0;
      for (const p of res.partitions) {
        rows += p.rows.length > 0 ? p.rows.length : 1;
        const plain = plainPartition(p, false)!;
        const last = got[got.length - 1];
        if (last && last.pk === plain.pk) last.rows.push(...plain.rows);
        else got.push(plain);
      }
      expect(rows).toBeLessThanOrEqual(op.pageSize);
      if (!res.next) break;
      expect(rows).toBe(op.pageSize);
      after = res.next;
    }
    expect(got).toEqual(want);
  }

  it('clustered tables match the reference model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp(true), { minLength: 1, maxLength: 80, size: 'max' }), (ops) =>
        runScenario(true, ops),
      ),
      { numRuns: 300 },
    );
  });

  it('tables without clustering columns match the reference model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp(false), { minLength: 1, maxLength: 60, size: 'max' }), (ops) =>
        runScenario(false, ops),
      ),
      { numRuns: 100 },
    );
  });

  it('GC (write-time purge and background slices) never changes what reads see', async () => {
    const fullScan = (table: TableStore, now: number, clustered: boolean) =>
      table
        .scanRange({ columns: ALL_COLUMNS, nowInSeconds: now, includeStatic: clustered, withMetadata: true })
        .partitions.map((p) => plainPartition(p, true));
    await fc.assert(
      fc.asyncProperty(
        fc
          .boolean()
          .chain((clustered) =>
            fc.tuple(fc.constant(clustered), fc.array(arbOp(clustered), { minLength: 1, maxLength: 60, size: 'max' })),
          ),
        fc.integer({ min: 0, max: 3 }),
        async ([clustered, ops], gcGraceSeconds) => {
          const table = await engine.createTable(newTableId(), { clustered, gcGraceSeconds });
          const model = new Model();
          let now = 1_000_000;
          let pending: Promise<void>[] = [];
          for (const op of [...ops, { k: 'flush' } as Op]) {
            const update = toUpdate(op, now, model);
            if (update) {
              pending.push(table.applyMutations([update], now));
              continue;
            }
            await Promise.all(pending);
            pending = [];
            if (op.k === 'tick') now += op.seconds;
            if (op.k !== 'flush' && op.k !== 'scan') continue;
            const before = fullScan(table, now, clustered);
            let finished = false;
            while (!finished) finished = await table.collectGarbage(2, now);
            expect(fullScan(table, now, clustered)).toEqual(before);
          }
          await table.drop();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('group commit: one transaction per turn, in-batch merges, failures isolated', async () => {
    const table = await engine.createTable(newTableId(), { clustered: true });
    const other = await engine.createTable(newTableId(), { clustered: false });
    await other.drop();
    const now = 2_000_000;
    const before = engine.commit.commits;
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      // Fifty writes to the same row and to other rows, all in this turn.
      writes.push(
        table.applyMutations(
          [
            {
              key: pkBytes(1),
              token: tokenOf(1),
              rows: [
                {
                  clustering: Buffer.from([0, 0]),
                  clusteringValues: [Buffer.from([0]), Buffer.from([0])],
                  cells: [{ column: 0, ts: i, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.from([i]) }],
                },
                {
                  clustering: Buffer.from([1, i]),
                  clusteringValues: [Buffer.from([1]), Buffer.from([i])],
                  liveness: rowLiveness(i, 0, now),
                },
              ],
            },
          ],
          now,
        ),
      );
    }
    // An op that fails while staging (its table was dropped) is left out; the others still commit together.
    const failing = other.applyMutations([{ key: pkBytes(1), token: tokenOf(1), rows: [] }], now);
    writes.push(
      table.applyMutations(
        [
          {
            key: pkBytes(1),
            token: tokenOf(1),
            rows: [
              {
                clustering: Buffer.from([0, 0]),
                cells: [{ column: 1, ts: 5, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.from([9]) }],
              },
            ],
          },
        ],
        now,
      ),
    );
    await expect(failing).rejects.toThrow(/dropped/);
    await Promise.all(writes);
    expect(engine.commit.commits - before).toBe(1);
    const p = table.readPartition(pkBytes(1), tokenOf(1), { columns: [0, 1], nowInSeconds: now })!;
    expect(p.rows).toHaveLength(51);
    expect(plainValue(p.rows[0]!.values[0]!)).toBe(hex(49));
    expect(plainValue(p.rows[0]!.values[1]!)).toBe(hex(9));
    expect(p.rows[0]!.clusteringValues.map((b) => b.toString('hex'))).toEqual(['00', '00']);
  });

  it('group commit: a turn of large values takes several bounded transactions, each holding whole ops', async () => {
    const table = await engine.createTable(newTableId(), { clustered: false });
    const now = 2_100_000;
    const saved = engine.commit.maxTransactionBytes;
    engine.commit.maxTransactionBytes = 1024 * 1024;
    try {
      const before = engine.commit.commits;
      const write = (k: number, bytes: number) =>
        table.applyMutations(
          [
            {
              key: pkBytes(k),
              token: tokenOf(k),
              rows: [
                {
                  clustering: Buffer.alloc(0),
                  cells: [{ column: 0, ts: 1, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.alloc(bytes, k) }],
                },
              ],
            },
          ],
          now,
        );
      // 4 ops of 600 KiB: the 2nd and the 4th close a transaction; then the 10 small ones share a third.
      await Promise.all([
        ...[1, 2, 3, 4].map((k) => write(k, 600 * 1024)),
        ...Array.from({ length: 10 }, (_, i) => write(10 + i, 10)),
      ]);
      expect(engine.commit.commits - before).toBe(3);
      for (const k of [1, 2, 3, 4, 10, 19]) {
        const row = table.readPartition(pkBytes(k), tokenOf(k), { columns: [0], nowInSeconds: now })!.rows[0]!;
        expect(plainValue(row.values[0]!)).toBe(Buffer.alloc(k < 10 ? 600 * 1024 : 10, k).toString('hex'));
      }
    } finally {
      engine.commit.maxTransactionBytes = saved;
    }
  });

  it('conditional updates see the writes staged before them in the same batch', async () => {
    const table = await engine.createTable(newTableId(), { clustered: true });
    const now = 2_500_000;
    const ck = Buffer.from([3]);
    const ifNotExists = (value: number) =>
      engine.run((ctx) => {
        if (table.readRowInBatch(ctx, pkBytes(1), tokenOf(1), ck, [0], now)) return;
        table.stageMutations(
          ctx,
          [
            {
              key: pkBytes(1),
              token: tokenOf(1),
              rows: [
                {
                  clustering: ck,
                  clusteringValues: [ck],
                  liveness: rowLiveness(value, 0, now),
                  cells: [{ column: 0, ts: value, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.from([value]) }],
                },
              ],
            },
          ],
          now,
        );
      });
    const before = engine.commit.commits;
    // Both in one turn: the second must see the first (not yet committed) and do nothing.
    await Promise.all([ifNotExists(1), ifNotExists(2)]);
    expect(engine.commit.commits - before).toBe(1);
    const p = table.readPartition(pkBytes(1), tokenOf(1), { columns: [0], nowInSeconds: now })!;
    expect(p.rows.map((r) => plainValue(r.values[0]!))).toEqual([hex(1)]);
    // The static row, and a partition deletion staged earlier in the batch, are seen too.
    await engine.run((ctx) => {
      table.stageMutations(ctx, [{ key: pkBytes(1), token: tokenOf(1), deletion: { ts: 10, ldt: now } }], now);
      expect(table.readRowInBatch(ctx, pkBytes(1), tokenOf(1), ck, [0], now)).toBeUndefined();
      expect(table.readRowInBatch(ctx, pkBytes(1), tokenOf(1), undefined, [5], now)).toBeUndefined();
    });
  });

  it('a transaction that fails is retried op by op', async () => {
    const small = StorageEngine.open({ path: join(dir, 'small.pool'), size: 16 * 1024 * 1024 });
    try {
      const table = await small.createTable(Buffer.from('s'), { clustered: false });
      const now = 2_000_000;
      const ok = table.applyMutations(
        [
          {
            key: pkBytes(7),
            token: tokenOf(7),
            rows: [{ clustering: Buffer.alloc(0), liveness: rowLiveness(1, 0, now) }],
          },
        ],
        now,
      );
      // Larger than the pool: its transaction rolls back, and the other write of the turn is retried alone.
      const huge = table.applyMutations(
        [
          {
            key: pkBytes(8),
            token: tokenOf(8),
            rows: [
              {
                clustering: Buffer.alloc(0),
                cells: [{ column: 0, ts: 1, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.alloc(32 * 1024 * 1024) }],
              },
            ],
          },
        ],
        now,
      );
      await expect(huge).rejects.toThrow();
      await ok;
      expect(table.readPartition(pkBytes(7), tokenOf(7), { columns: [0], nowInSeconds: now })?.rows).toHaveLength(1);
      expect(table.readPartition(pkBytes(8), tokenOf(8), { columns: [0], nowInSeconds: now })).toBeUndefined();
    } finally {
      small.close();
    }
  });

  it('reopen keeps tables, rows and the catalog; truncate and drop', async () => {
    const id = newTableId();
    const table = await engine.createTable(id, { clustered: true });
    const now = 3_000_000;
    const updates: PartitionUpdate[] = [];
    for (let pk = 0; pk < 20; pk++) {
      updates.push({
        key: pkBytes(pk),
        token: tokenOf(pk),
        staticRow: {
          clustering: Buffer.alloc(0),
          cells: [{ column: 5, ts: 1, ttl: 0, ldt: NO_DELETION_TIME, value: Buffer.from([pk]) }],
        },
        rows: [0, 1, 2].map((c) => ({
          clustering: Buffer.from([c]),
          clusteringValues: [Buffer.from([c])],
          liveness: rowLiveness(1, 0, now),
        })),
      });
    }
    await Promise.all([
      table.applyMutations(updates, now),
      engine.catalogPut('ks/demo', Buffer.from('keyspace blob')),
      engine.catalogPut('ks/demo/t', Buffer.from('table blob')),
      engine.catalogPut('kt/other', Buffer.from('x')),
    ]);
    reopen();
    const again = engine.table(id)!;
    expect(again.clustered).toBe(true);
    expect(again.estimatePartitions()).toBe(20);
    const all = again.scanRange({ columns: [5], nowInSeconds: now, includeStatic: true });
    expect(all.partitions).toHaveLength(20);
    expect(all.partitions.every((p) => p.rows.length === 3 && p.staticRow !== undefined)).toBe(true);
    expect(engine.catalogGet('ks/demo')?.toString()).toBe('keyspace blob');
    expect(engine.catalogScan('ks/').map((e) => e.key.toString())).toEqual(['ks/demo', 'ks/demo/t']);
    await engine.catalogDelete('ks/demo');
    expect(engine.catalogGet('ks/demo')).toBeUndefined();
    expect(engine.tableIds().some((t) => t.equals(id))).toBe(true);

    await again.truncate();
    expect(again.estimatePartitions()).toBe(0);
    expect(again.scanRange({ columns: [5], nowInSeconds: now }).partitions).toHaveLength(0);
    await again.applyMutations(updates.slice(0, 2), now);
    expect(again.estimatePartitions()).toBe(2);
    await again.drop();
    expect(engine.tableIds().some((t) => t.equals(id))).toBe(false);
    expect(() => again.scanRange({ columns: [5], nowInSeconds: now })).toThrow(/dropped/);
    reopen();
    expect(engine.table(id)).toBeUndefined();
  });

  it('tombstones and expired cells are purged after gc_grace_seconds', async () => {
    const table = await engine.createTable(newTableId(), { clustered: true, gcGraceSeconds: 10 });
    const now = 4_000_000;
    const row = (c: number, extra: Partial<RowUpdate>): RowUpdate => ({
      clustering: Buffer.from([c]),
      clusteringValues: [Buffer.from([c])],
      ...extra,
    });
    await table.applyMutations(
      [
        {
          key: pkBytes(1),
          token: tokenOf(1),
          rows: [
            row(0, { liveness: rowLiveness(1, 0, now) }),
            row(1, { cells: [{ column: 0, ts: 1, ttl: 5, ldt: now + 5, value: Buffer.from([1]) }] }),
          ],
        },
        { key: pkBytes(2), token: tokenOf(2), rows: [row(0, { liveness: rowLiveness(1, 0, now) })] },
      ],
      now,
    );
    // Delete partition 1 entirely; row (2, 0) by a row deletion.
    await table.applyMutations(
      [
        { key: pkBytes(1), token: tokenOf(1), deletion: { ts: 2, ldt: now } },
        { key: pkBytes(2), token: tokenOf(2), rows: [row(0, { deletion: { ts: 2, ldt: now } })] },
      ],
      now,
    );
    expect(table.estimatePartitions()).toBe(2);
    // Before gc_grace nothing disappears: an older write stays shadowed.
    await table.applyMutations(
      [{ key: pkBytes(1), token: tokenOf(1), rows: [row(3, { liveness: rowLiveness(1, 0, now) })] }],
      now + 1,
    );
    expect(table.readPartition(pkBytes(1), tokenOf(1), { columns: [0], nowInSeconds: now + 1 })).toBeUndefined();
    // GC and a write to a collected partition in the same turn: the write lands in a new partition map.
    const gc = (async () => {
      let finished = false;
      while (!finished) finished = await table.collectGarbage(1, now + 20);
    })();
    const write = table.applyMutations(
      [{ key: pkBytes(1), token: tokenOf(1), rows: [row(4, { liveness: rowLiveness(10, 0, now + 20) })] }],
      now + 20,
    );
    await Promise.all([gc, write]);
    expect(table.estimatePartitions()).toBe(1);
    const p = table.readPartition(pkBytes(1), tokenOf(1), { columns: [0], nowInSeconds: now + 20 })!;
    expect(p.rows.map((r) => r.clustering)).toEqual([Buffer.from([4])]);
    // Deleting what does not exist is harmless.
    await engine.catalogDelete('no such entry');
    await engine.dropTable(Buffer.from('no such table'));
  });
});
