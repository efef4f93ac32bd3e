// CQL type -> Arrow type mapping: every type's CQL bytes go into a segment and come back as the same value.
import { DataType, type Field, Type } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CqlType, cqlTypeToString, NATIVE_TYPE_NAMES, native } from '../cql/types/cql-type.js';
import { decimalToBytes } from '../cql/types/decimal-text.js';
import { durationToBytes } from '../cql/types/duration.js';
import { buildCollection, buildTuple, buildVector } from '../cql/types/serialized-layout.js';
import { bigintToTwosComplement } from '../cql/types/varint-bytes.js';
import {
  arrowTypeOf,
  META_CQL_TYPE,
  META_EMPTY_VALUES,
  type TwinColumn,
  twinLayout,
} from '../storage/arrow/arrow-schema.js';
import { cqlBytesAt } from '../storage/arrow/cql-value-decoder.js';
import { buildSegment, type TwinRow } from '../storage/arrow/segment-builder.js';
import { openSegment, twinColumns } from '../storage/arrow/segment-reader.js';

function int(bytes: number, v: bigint): Buffer {
  const b = Buffer.alloc(bytes);
  let x = BigInt.asUintN(bytes * 8, v);
  for (let i = bytes - 1; i >= 0; i--) {
    b[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return b;
}

const bytesOf = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((a) => Buffer.from(a));

/** Canonical CQL bytes of random values of `t` (what a validated client value looks like). */
function valueArb(t: CqlType): fc.Arbitrary<Buffer> {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'tinyint':
          return bytesOf(1);
        case 'smallint':
          return bytesOf(2);
        case 'int':
        case 'float': // any bit pattern, NaN payloads included
        case 'date':
          return bytesOf(4);
        case 'bigint':
        case 'counter':
        case 'double':
        case 'timestamp':
          return bytesOf(8);
        case 'time':
          return fc.bigInt(0n, 86_399_999_999_999n).map((v) => int(8, v));
        case 'boolean':
          return fc.boolean().map((b) => Buffer.from([b ? 1 : 0]));
        case 'uuid':
        case 'timeuuid':
          return bytesOf(16);
        case 'inet':
          return fc.oneof(bytesOf(4), bytesOf(16));
        case 'text':
          return fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => Buffer.from(s, 'utf8'));
        case 'ascii':
          return fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((s) => Buffer.from(s, 'ascii'));
        case 'blob':
          return fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a));
        case 'varint':
          return fc.bigInt(-(2n ** 200n), 2n ** 200n).map(bigintToTwosComplement);
        case 'decimal':
          return fc
            .record({ unscaled: fc.bigInt(-(2n ** 100n), 2n ** 100n), scale: fc.integer({ min: -2000, max: 2000 }) })
            .map(decimalToBytes);
        case 'duration':
          return fc
            .record({
              sign: fc.constantFrom(1, -1),
              months: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
              days: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
              nanos: fc.bigInt(0n, 2n ** 63n - 1n),
            })
            .map((d) =>
              durationToBytes({
                months: d.sign * d.months,
                days: d.sign * d.days,
                nanoseconds: BigInt(d.sign) * d.nanos,
              }),
            );
      }
      break;
    case 'list':
    case 'set':
      return fc.array(valueArb(t.element), { maxLength: 5 }).map((xs) => buildCollection(xs.length, xs));
    case 'map':
      return fc
        .array(fc.tuple(valueArb(t.key), valueArb(t.value)), { maxLength: 5 })
        .map((kv) => buildCollection(kv.length, kv.flat()));
    case 'tuple':
      return fc.tuple(...t.elements.map((e) => fc.option(valueArb(e), { nil: null }))).map((fs) => buildTuple(fs));
    case 'udt':
      return fc.tuple(...t.fields.map((f) => fc.option(valueArb(f.type), { nil: null }))).map((fs) => buildTuple(fs));
    case 'vector':
      return fc
        .array(valueArb(t.element), { minLength: t.dimension, maxLength: t.dimension })
        .map((xs) => buildVector(t, xs));
    case 'custom':
      return fc.uint8Array({ maxLength: 10 }).map((a) => Buffer.from(a));
  }
  throw new Error(`no generator for ${cqlTypeToString(t)}`);
}

const COMPOSITES: CqlType[] = [
  { kind: 'list', element: native('int'), frozen: false },
  { kind: 'set', element: native('text'), frozen: true },
  { kind: 'map', key: native('text'), value: native('double'), frozen: false },
  { kind: 'map', key: native('uuid'), value: { kind: 'list', element: native('bigint'), frozen: true }, frozen: true },
  { kind: 'tuple', elements: [native('int'), native('text'), native('timestamp')] },
  {
    kind: 'udt',
    keyspace: 'ks',
    name: 'addr',
    fields: [
      { name: 'street', type: native('text') },
      { name: 'zip', type: native('int') },
      { name: 'tags', type: { kind: 'set', element: native('ascii'), frozen: true } },
    ],
    frozen: true,
  },
  { kind: 'vector', element: native('float'), dimension: 3 },
  { kind: 'vector', element: native('text'), dimension: 2 },
  { kind: 'list', element: { kind: 'tuple', elements: [native('date'), native('duration')] }, frozen: true },
  { kind: 'custom', className: 'org.apache.cassandra.db.marshal.BytesType' },
];

const ALL_TYPES: CqlType[] = [...NATIVE_TYPE_NAMES.map(native), ...COMPOSITES];

function singleColumnTable(t: CqlType): TwinColumn[] {
  return [
    { name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 },
    { name: 'v', id: 1, kind: 'regular', type: t, position: -1 },
  ];
}

function rowsOf(values: readonly (Buffer | null)[]): TwinRow[] {
  return values.map((v, i) => ({
    token: BigInt(i),
    partitionKey: [int(4, BigInt(i))],
    clustering: [],
    cells: new Map([[1, v]]),
    writetime: 1_700_000_000_000_000 + i,
    expires: null,
  }));
}

describe('CQL -> Arrow type mapping', () => {
  it('has the documented Arrow type for every native type', () => {
    const expected: Record<string, string> = {
      ascii: 'Utf8',
      bigint: 'Int64',
      blob: 'Binary',
      boolean: 'Bool',
      counter: 'Int64',
      date: 'Date32<DAY>',
      decimal: 'Utf8',
      double: 'Float64',
      duration: 'Interval<MONTH_DAY_NANO>',
      float: 'Float32',
      inet: 'Binary',
      int: 'Int32',
      smallint: 'Int16',
      text: 'Utf8',
      time: 'Time64<NANOSECOND>',
      timestamp: 'Timestamp<MILLISECOND, UTC>',
      timeuuid: 'FixedSizeBinary[16]',
      tinyint: 'Int8',
      uuid: 'FixedSizeBinary[16]',
      varint: 'Utf8',
    };
    for (const name of NATIVE_TYPE_NAMES) expect(String(arrowTypeOf(native(name))), name).toBe(expected[name]);
    expect(arrowTypeOf(COMPOSITES[0]!).typeId).toBe(Type.List);
    expect(arrowTypeOf(COMPOSITES[2]!).typeId).toBe(Type.Map);
    expect(arrowTypeOf(COMPOSITES[4]!).typeId).toBe(Type.Struct);
    const vec = arrowTypeOf(COMPOSITES[6]!);
    expect(DataType.isFixedSizeList(vec) && vec.listSize === 3 && vec.children[0]!.type.typeId === Type.Float).toBe(
      true,
    );
  });

  it('lays out hidden columns, keys first, and records CQL types in field metadata', () => {
    const layout = twinLayout([
      { name: 'v', id: 5, kind: 'regular', type: native('double'), position: -1 },
      { name: 'c2', id: 3, kind: 'clustering', type: native('text'), position: 1, descending: true },
      { name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 },
      { name: 's', id: 4, kind: 'static', type: native('int'), position: -1 },
      { name: 'c1', id: 2, kind: 'clustering', type: native('int'), position: 0 },
      { name: '_token', id: 6, kind: 'regular', type: native('int'), position: -1 },
    ]);
    expect(layout.schema.fields.map((f: Field) => f.name)).toEqual([
      '__token',
      'k',
      'c1',
      'c2',
      's',
      'v',
      '_token',
      '_writetime',
      '_expires',
    ]);
    expect(layout.schema.fields[5]!.metadata.get(META_CQL_TYPE)).toBe('double');
    expect(layout.fieldOfColumn.get(6)).toBe(6);
    expect(layout.tokenField).toBe(0);
  });

  for (const t of ALL_TYPES) {
    it(`round-trips ${cqlTypeToString(t)} values through an IPC segment`, () => {
      fc.assert(
        fc.property(fc.array(fc.option(valueArb(t), { nil: null, freq: 4 }), { minLength: 1, maxLength: 40 }), (vs) => {
          const layout = twinLayout(singleColumnTable(t));
          const seg = buildSegment(layout, rowsOf(vs));
          const open = openSegment(seg.ipc);
          const data = twinColumns(open, layout).column(1)!;
          for (let i = 0; i < vs.length; i++) {
            const got = cqlBytesAt(t, data, i);
            const want = vs[seg.order[i]!]!;
            if (want === null) expect(got).toBeNull();
            else expect(got?.toString('hex')).toBe(want.toString('hex'));
          }
        }),
        { numRuns: 30 },
      );
    });
  }

  it('gives Arrow consumers the natural values (ms timestamps, days, strings, decimals as text)', () => {
    const cols: TwinColumn[] = [
      { name: 'k', id: 0, kind: 'partition_key', type: native('int'), position: 0 },
      { name: 'ts', id: 1, kind: 'regular', type: native('timestamp'), position: -1 },
      { name: 'd', id: 2, kind: 'regular', type: native('date'), position: -1 },
      { name: 't', id: 3, kind: 'regular', type: native('text'), position: -1 },
      { name: 'dec', id: 4, kind: 'regular', type: native('decimal'), position: -1 },
      { name: 'vi', id: 5, kind: 'regular', type: native('varint'), position: -1 },
      { name: 'tm', id: 6, kind: 'regular', type: native('time'), position: -1 },
    ];
    const layout = twinLayout(cols);
    const days = Buffer.alloc(4);
    days.writeUInt32BE(2 ** 31 + 19_000); // 2022-01-08
    const row: TwinRow = {
      token: 1n,
      partitionKey: [int(4, 1n)],
      clustering: [],
      cells: new Map<number, Buffer>([
        [1, int(8, 1_700_000_000_123n)],
        [2, days],
        [3, Buffer.from('héllo')],
        [4, decimalToBytes({ unscaled: -12345n, scale: 3 })],
        [5, bigintToTwosComplement(-(10n ** 30n))],
        [6, int(8, 3_600_000_000_001n)],
      ]),
      writetime: 5,
      expires: 1_800_000_000,
    };
    const { table } = openSegment(buildSegment(layout, [row]).ipc);
    const r = table.get(0)!.toJSON();
    expect(r.ts).toBe(1_700_000_000_123);
    expect(table.getChild('d')!.data[0]!.values[0]).toBe(19_000);
    expect(r.t).toBe('héllo');
    expect(r.dec).toBe('-12.345');
    expect(r.vi).toBe(`-1${'0'.repeat(30)}`);
    expect(table.getChild('tm')!.data[0]!.values[0]).toBe(3_600_000_000_001n);
    expect(r._writetime).toBe(5n);
    expect(r._expires).toBe(1_800_000_000);
    expect(r._token).toBe(1n);
  });

  it('stores empty fixed-width values as null and counts them in the field metadata', () => {
    const layout = twinLayout(singleColumnTable(native('int')));
    const seg = buildSegment(layout, rowsOf([int(4, 7n), Buffer.alloc(0), null]));
    const open = openSegment(seg.ipc);
    const field = open.table.schema.fields[2]!;
    expect(field.metadata.get(META_EMPTY_VALUES)).toBe('1');
    const data = twinColumns(open, layout).column(1)!;
    expect(cqlBytesAt(native('int'), data, 0)).toEqual(int(4, 7n));
    expect(cqlBytesAt(native('int'), data, 1)).toBeNull();
    expect(data.nullCount).toBe(2);
  });
});
