// count/sum/avg/min/max over the Arrow twin: kernels over each segment's live rows (filters become selections),
// plus the buffer rows one by one, folded with Cassandra's result types (cql/functions/aggregate-accumulators.ts).
// GROUP BY the partition key groups segment and buffer rows by key and orders groups as the row store does.

import type { Data } from 'apache-arrow';
import {
  type CompareOp,
  countRows,
  countValues,
  filterCompare,
  javaCompare,
  maxOf,
  minOf,
  sumFloats,
  sumIntegers,
} from '../../storage/arrow/column-kernels.js';
import { cqlBytesAt } from '../../storage/arrow/cql-value-decoder.js';
import type { RowMask } from '../../storage/arrow/row-mask.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import { Projection } from '../../storage/row-projection.js';
import type { TableTwin } from '../../storage/twin/table-twin.js';
import { bufferRows, type SegmentView, segmentViews, type TokenBounds } from '../../storage/twin/twin-read.js';
import { FloatSumAccumulator, IntegerSumAccumulator, type IntegerWidth } from '../functions/aggregate-accumulators.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import { bindPredicate } from '../restrictions/row-filter.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import type { CqlType } from '../types/cql-type.js';
import { ColumnarDecline } from './columnar-decline.js';
import type { ColumnarPlan, OutputColumn } from './columnar-plan.js';

const WIDTH: Record<string, IntegerWidth> = { tinyint: 8, smallint: 16, int: 32, bigint: 64 };

function typeName(t: CqlType): string {
  return t.kind === 'native' ? t.name : '';
}

/** A CQL numeric value's bytes as a JS number (bigint for bigint columns). */
export function decodeNumber(t: CqlType, v: Buffer): number | bigint {
  switch (typeName(t)) {
    case 'tinyint':
      return v.readInt8(0);
    case 'smallint':
      return v.readInt16BE(0);
    case 'int':
      return v.readInt32BE(0);
    case 'bigint':
      return v.readBigInt64BE(0);
    case 'float':
      return v.readFloatBE(0);
    default:
      return v.readDoubleBE(0);
  }
}

export function encodeNumber(t: CqlType, x: number | bigint): Buffer {
  const name = typeName(t);
  const b = Buffer.allocUnsafe(
    name === 'tinyint' ? 1 : name === 'smallint' ? 2 : name === 'int' || name === 'float' ? 4 : 8,
  );
  switch (name) {
    case 'tinyint':
      b.writeInt8(Number(BigInt.asIntN(8, BigInt(x))));
      break;
    case 'smallint':
      b.writeInt16BE(Number(BigInt.asIntN(16, BigInt(x))));
      break;
    case 'int':
      b.writeInt32BE(Number(BigInt.asIntN(32, BigInt(x))));
      break;
    case 'bigint':
      b.writeBigInt64BE(BigInt.asIntN(64, BigInt(x)));
      break;
    case 'float':
      b.writeFloatBE(Number(x));
      break;
    default:
      b.writeDoubleBE(Number(x));
  }
  return b;
}

function long(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
}

/** Java ordering of two numbers of one column type (floats: Double.compare). */
function compareNumbers(float: boolean, a: number | bigint, b: number | bigint): number {
  if (float) return javaCompare(a as number, b as number);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One aggregate's state. */
class Acc {
  count = 0;
  readonly ints: IntegerSumAccumulator | undefined;
  readonly floats: FloatSumAccumulator | undefined;
  best: number | bigint | undefined;
  readonly float: boolean;

  constructor(
    readonly out: OutputColumn & { kind: 'aggregate' },
    readonly type: CqlType | undefined,
  ) {
    const name = type ? typeName(type) : '';
    this.float = name === 'float' || name === 'double';
    if (out.fn === 'sum' || out.fn === 'avg') {
      if (this.float) this.floats = new FloatSumAccumulator(name === 'float');
      else this.ints = new IntegerSumAccumulator(WIDTH[name]!);
    }
  }

  /** A segment's partial over selection `sel` (data undefined: the column did not exist then: all null). */
  addSegment(view: SegmentView, data: Data | undefined, sel: RowMask): void {
    const fn = this.out.fn;
    if (fn === 'countRows') {
      this.count += countRows(sel, view.rows);
      return;
    }
    if (!data) return;
    if (fn === 'count') this.count += countValues(data, sel);
    else if (this.ints) this.ints.addPartial(sumIntegers(data, sel));
    else if (this.floats) this.floats.addPartial(sumFloats(data, sel));
    else this.offer(fn === 'max' ? maxOf(data, sel) : minOf(data, sel));
  }

  offer(v: number | bigint | undefined): void {
    if (v === undefined) return;
    if (this.best === undefined) this.best = v;
    else {
      const c = compareNumbers(this.float, v, this.best);
      if (this.out.fn === 'max' ? c > 0 : c < 0) this.best = v;
    }
  }

  /** One row's value (buffer rows, grouped segment rows). */
  addValue(v: Buffer | null): void {
    const fn = this.out.fn;
    if (fn === 'countRows') {
      this.count++;
      return;
    }
    if (v === null) return;
    if (fn === 'count') {
      this.count++;
      return;
    }
    if (v.length === 0) {
      // The row path skips empties in sums; min/max would compare them: leave those to it.
      if (fn === 'min' || fn === 'max') throw new ColumnarDecline('empty value');
      return;
    }
    this.addNumber(decodeNumber(this.type!, v));
  }

  addNumber(x: number | bigint): void {
    const fn = this.out.fn;
    if (fn === 'count') this.count++;
    else if (this.ints) this.ints.add(x);
    else if (this.floats) this.floats.add(x as number);
    else this.offer(x);
  }

  result(): Buffer | null {
    const fn = this.out.fn;
    if (fn === 'countRows' || fn === 'count') return long(this.count);
    if (this.ints) return encodeNumber(this.type!, fn === 'sum' ? this.ints.sumResult() : this.ints.avgResult());
    if (this.floats) return encodeNumber(this.type!, fn === 'sum' ? this.floats.sumResult() : this.floats.avgResult());
    return this.best === undefined ? null : encodeNumber(this.type!, this.best);
  }
}

/** A WHERE filter bound to its value: a kernel comparison for segments, the row path's predicate for rows. */
export interface BoundFilter {
  readonly columnId: number;
  readonly op: CompareOp;
  readonly constant: number | bigint;
  readonly test: (row: SelectedRow) => boolean;
}

export function bindFilters(plan: ColumnarPlan, values: readonly BoundValue[]): BoundFilter[] {
  return plan.filters.map((f) => {
    const col = plan.table.columns[f.columnIndex]!;
    const v = f.terms[0]!.value(values);
    // null / unset / empty bounds: the row path says what happens.
    if (v === null || v === UNSET || v.length === 0) throw new ColumnarDecline('filter value');
    return {
      columnId: col.id,
      op: f.op as CompareOp,
      constant: decodeNumber(col.type, v),
      test: bindPredicate(f, values, col.name),
    };
  });
}

/** Live rows of a segment passing every filter. */
export function filtered(view: SegmentView, filters: readonly BoundFilter[]): RowMask {
  let sel = view.sel;
  for (const f of filters) {
    const data = view.column(f.columnId);
    if (!data) return new Int32Array((view.rows + 31) >>> 5);
    sel = filterCompare(data, f.op, f.constant, sel);
  }
  return sel;
}

/** A row as the selection / row filters see it: values by table column index. */
function selectedRow(
  table: TableMetadata,
  pk: Buffer[],
  slots: readonly number[],
  values: (Buffer | null)[],
): SelectedRow {
  const out: (Buffer | null)[] = new Array(table.columns.length).fill(null);
  for (let i = 0; i < table.columns.length; i++) {
    const c = table.columns[i]!;
    if (c.kind === 'partition_key') out[i] = pk[c.position]!;
    else if (slots[i]! >= 0) out[i] = values[slots[i]!] ?? null;
  }
  return { values: out };
}

export interface AggregateContext {
  readonly plan: ColumnarPlan;
  readonly twin: TableTwin;
  readonly values: readonly BoundValue[];
  readonly nowInSeconds: number;
  readonly bounds: TokenBounds;
  /** Output rows at most (GROUP BY: groups). */
  readonly limit: number;
  /** GROUP BY: only the groups of partitions after this one (a paging state's). */
  readonly after?: { readonly token: bigint; readonly key: Buffer } | undefined;
}

/** Output rows of an aggregate query over the twin; with GROUP BY, the partition of each row too. */
export interface AggregateOutput {
  readonly rows: (Buffer | null)[][];
  readonly partitions?: readonly { readonly token: bigint; readonly key: Buffer }[];
}

/** Output rows of an aggregate query over the twin. */
export function columnarAggregate(c: AggregateContext): AggregateOutput {
  const { plan, twin } = c;
  const table = plan.table;
  const filters = bindFilters(plan, c.values);
  const ids = plan.regularColumns.map((i) => table.columns[i]!.id);
  const slots = table.columns.map((_col, i) => plan.regularColumns.indexOf(i));
  const views = segmentViews(twin, c.nowInSeconds, c.bounds, ids);
  const projection = new Projection(ids);
  const pkCount = table.partitionKey.length;
  const newAccs = () =>
    plan.outputs.map((o) =>
      o.kind === 'aggregate'
        ? new Acc(o, o.column === undefined ? undefined : table.columns[o.column]!.type)
        : undefined,
    );

  if (!plan.grouped) {
    const accs = newAccs();
    for (const v of views) {
      const sel = filtered(v, filters);
      plan.outputs.forEach((o, k) => {
        if (o.kind !== 'aggregate') return;
        accs[k]!.addSegment(v, o.column === undefined ? undefined : v.column(table.columns[o.column]!.id), sel);
      });
    }
    bufferRows(twin, projection, c.nowInSeconds, c.bounds, pkCount, (r) => {
      const row = selectedRow(table, r.partitionKey, slots, r.row.values as (Buffer | null)[]);
      for (const f of filters) if (!f.test(row)) return;
      plan.outputs.forEach((o, k) => {
        if (o.kind === 'aggregate') accs[k]!.addValue(o.column === undefined ? null : (row.values[o.column] ?? null));
      });
    });
    return { rows: [accs.map((a) => a!.result())] };
  }

  // GROUP BY the partition key: one group per partition, ordered by token then serialized key.
  interface Group {
    token: bigint;
    key: Buffer;
    pk: Buffer[];
    accs: (Acc | undefined)[];
  }
  const groups = new Map<string, Group>();
  const group = (token: bigint, key: Buffer, pk: Buffer[]): Group => {
    const id = key.toString('latin1');
    let g = groups.get(id);
    if (!g) {
      g = { token, key, pk, accs: newAccs() };
      groups.set(id, g);
    }
    return g;
  };
  const pkCols = table.partitionKey;
  for (const v of views) {
    const sel = filtered(v, filters);
    const tokens = v.data.batch!.data.children[0]!.values as BigInt64Array;
    const pkData = pkCols.map((col) => v.column(col.id)!);
    const colData = plan.outputs.map((o) =>
      o.kind === 'aggregate' && o.column !== undefined ? v.column(table.columns[o.column]!.id) : undefined,
    );
    let prevKey: Buffer | undefined;
    let g: Group | undefined;
    for (let i = v.from; i < v.to; i++) {
      if (sel !== null && !(sel[i >>> 5]! & (1 << (i & 31)))) continue;
      const pk = pkCols.map((col, j) => cqlBytesAt(col.type, pkData[j]!, i)!);
      const key = serializePartitionKey(pk);
      if (!g || !prevKey?.equals(key)) {
        g = group(tokens[i]!, key, pk);
        prevKey = key;
      }
      plan.outputs.forEach((o, k) => {
        if (o.kind !== 'aggregate') return;
        const acc = g!.accs[k]!;
        if (o.fn === 'countRows') acc.addValue(null);
        else {
          const d = colData[k];
          acc.addValue(d ? cqlBytesAt(acc.type!, d, i) : null);
        }
      });
    }
  }
  bufferRows(twin, projection, c.nowInSeconds, c.bounds, pkCount, (r) => {
    const row = selectedRow(table, r.partitionKey, slots, r.row.values as (Buffer | null)[]);
    for (const f of filters) if (!f.test(row)) return;
    const g = group(r.token, r.key, r.partitionKey);
    plan.outputs.forEach((o, k) => {
      if (o.kind === 'aggregate') g.accs[k]!.addValue(o.column === undefined ? null : (row.values[o.column] ?? null));
    });
  });
  const order = (a: { token: bigint; key: Buffer }, b: { token: bigint; key: Buffer }) =>
    a.token < b.token ? -1 : a.token > b.token ? 1 : Buffer.compare(a.key, b.key);
  const after = c.after;
  const sorted = [...groups.values()]
    .filter((g) => !after || order(g, after) > 0)
    .sort(order)
    .slice(0, Number.isFinite(c.limit) ? c.limit : undefined);
  return {
    rows: sorted.map((g) =>
      plan.outputs.map((o, k) => (o.kind === 'key' ? g.pk[table.columns[o.column]!.position]! : g.accs[k]!.result())),
    ),
    partitions: sorted.map((g) => ({ token: g.token, key: g.key })),
  };
}
