import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clusteringPrefixBound,
  clusteringSliceBounds,
  decodeClusteringKey,
  decodeKeyComponent,
  encodeClusteringKey,
  encodeKeyComponent,
} from '../cql/types/byte-comparable.js';
import { type CqlType, cqlTypeToString, native } from '../cql/types/cql-type.js';
import { decimalToBytes } from '../cql/types/decimal-text.js';
import { jsonToBytes, toJsonValue } from '../cql/types/json-codec.js';
import { parseJson } from '../cql/types/json-text.js';
import { literalToBytes } from '../cql/types/literal-parser.js';
import { buildCollection, buildTuple, buildVector } from '../cql/types/serialized-layout.js';
import { compareValues } from '../cql/types/value-comparator.js';
import { formatValue } from '../cql/types/value-formatter.js';
import { normalizeValue } from '../cql/types/value-normalizer.js';
import { validateValue } from '../cql/types/value-validator.js';
import { bigintToTwosComplement } from '../cql/types/varint-bytes.js';

const b = (a: Uint8Array | number[]) => Buffer.from(a);

function fixedInt(bits: number, v: bigint): Buffer {
  const out = Buffer.alloc(bits / 8);
  let u = BigInt.asUintN(bits, v);
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

const sint = (bits: number) =>
  fc.bigInt({ min: -(1n << BigInt(bits - 1)), max: (1n << BigInt(bits - 1)) - 1n }).map((v) => fixedInt(bits, v));
const withEmpty = (a: fc.Arbitrary<Buffer>) =>
  fc.oneof({ weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) }, { weight: 8, arbitrary: a });

const floatArb = fc.oneof(
  fc.float().map((f) => {
    const x = Buffer.alloc(4);
    x.writeFloatBE(f);
    return x;
  }),
  fc.uint8Array({ minLength: 4, maxLength: 4 }).map(b),
  fc.constantFrom(0, -0, 1, -1, Number.NaN, Infinity, -Infinity).map((f) => {
    const x = Buffer.alloc(4);
    x.writeFloatBE(f);
    return x;
  }),
);
const doubleArb = fc.oneof(
  fc.double().map((f) => {
    const x = Buffer.alloc(8);
    x.writeDoubleBE(f);
    return x;
  }),
  fc.uint8Array({ minLength: 8, maxLength: 8 }).map(b),
);
const varintArb = fc.oneof(
  fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }).map(bigintToTwosComplement),
  fc.integer({ min: -300, max: 300 }).map((n) => bigintToTwosComplement(BigInt(n))),
  // Non-minimal encodings compare equal to minimal ones.
  fc.bigInt({ min: -1000n, max: 1000n }).map((v) => {
    const m = bigintToTwosComplement(v);
    return Buffer.concat([Buffer.from([v < 0n ? 0xff : 0x00]), m]);
  }),
);
const decimalArb = fc
  .record({ unscaled: fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), scale: fc.integer({ min: -5, max: 8 }) })
  .map(decimalToBytes);
const uuidArb = fc.uint8Array({ minLength: 16, maxLength: 16 }).map(b);
const timeuuidArb = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((a) => {
  const x = b(a);
  x[6] = 0x10 | (x[6]! & 0x0f);
  return x;
});
const textArb = fc.string({ unit: 'binary', maxLength: 8 }).map((s) => Buffer.from(s, 'utf8'));
const asciiArb = fc
  .string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 6 })
  .map((s) => Buffer.from(s, 'latin1'));
const blobArb = fc.uint8Array({ maxLength: 6 }).map(b);
const smallBlob = fc.array(fc.constantFrom(0, 1, 0xff, 0x7f, 0x80), { maxLength: 4 }).map(b);

function arb(t: CqlType): fc.Arbitrary<Buffer> {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'int':
          return withEmpty(sint(32));
        case 'bigint':
        case 'timestamp':
          return withEmpty(sint(64));
        case 'smallint':
          return sint(16);
        case 'tinyint':
          return sint(8);
        case 'float':
          return withEmpty(floatArb);
        case 'double':
          return withEmpty(doubleArb);
        case 'boolean':
          return withEmpty(fc.constantFrom(0, 1, 2).map((v) => b([v])));
        case 'text':
          return fc.oneof(
            textArb,
            smallBlob.map((x) => Buffer.from(x.toString('latin1').replace(/[\x80-\xff]/g, 'a'))),
          );
        case 'ascii':
          return asciiArb;
        case 'blob':
          return fc.oneof(blobArb, smallBlob);
        case 'inet':
          return withEmpty(
            fc
              .oneof(fc.uint8Array({ minLength: 4, maxLength: 4 }), fc.uint8Array({ minLength: 16, maxLength: 16 }))
              .map(b),
          );
        case 'uuid':
          return withEmpty(fc.oneof(uuidArb, timeuuidArb));
        case 'timeuuid':
          return withEmpty(timeuuidArb);
        case 'varint':
          return withEmpty(varintArb);
        case 'decimal':
          return withEmpty(decimalArb);
        case 'date':
          return fc.uint8Array({ minLength: 4, maxLength: 4 }).map(b);
        case 'time':
          return fc.bigInt({ min: 0n, max: 86_399_999_999_999n }).map((v) => fixedInt(64, v));
        default:
          throw new Error(t.name);
      }
    case 'list':
    case 'set':
      return fc.array(arb(t.element), { maxLength: 3 }).map((els) => buildCollection(els.length, els));
    case 'map':
      return fc
        .array(fc.tuple(arb(t.key), arb(t.value)), { maxLength: 3 })
        .map((es) => buildCollection(es.length, es.flat()));
    case 'tuple':
    case 'udt': {
      const types = t.kind === 'tuple' ? t.elements : t.fields.map((f) => f.type);
      return fc
        .tuple(
          fc.integer({ min: 0, max: types.length }),
          fc.tuple(...types.map((ft) => fc.option(arb(ft), { freq: 4 }))),
        )
        .map(([n, fields]) => buildTuple(fields.slice(0, n)));
    }
    case 'vector':
      return fc
        .array(
          arb(t.element).filter((x) => x.length > 0 || t.element.kind !== 'native' || t.element.name === 'text'),
          { minLength: t.dimension, maxLength: t.dimension },
        )
        .map((els) => buildVector(t, els));
    default:
      throw new Error(t.kind);
  }
}

const KEY_NATIVES = [
  'ascii',
  'bigint',
  'blob',
  'boolean',
  'date',
  'decimal',
  'double',
  'float',
  'inet',
  'int',
  'smallint',
  'text',
  'time',
  'timestamp',
  'timeuuid',
  'tinyint',
  'uuid',
  'varint',
] as const;

const tupleT: CqlType = { kind: 'tuple', elements: [native('int'), native('text'), native('boolean')] };
const COMPOSITES: CqlType[] = [
  { kind: 'list', element: native('int'), frozen: true },
  { kind: 'set', element: native('text'), frozen: true },
  { kind: 'map', key: native('int'), value: native('varint'), frozen: true },
  tupleT,
  {
    kind: 'udt',
    keyspace: 'ks',
    name: 'u',
    fields: [
      { name: 'a', type: native('decimal') },
      { name: 'b', type: native('uuid') },
    ],
    frozen: true,
  },
  { kind: 'vector', element: native('float'), dimension: 3 },
  { kind: 'vector', element: native('text'), dimension: 2 },
  { kind: 'list', element: tupleT, frozen: true },
];

function checkType(t: CqlType, runs = 400) {
  fc.assert(
    fc.property(arb(t), arb(t), fc.boolean(), (x, y, desc) => {
      validateValue(t, x);
      const c = Math.sign(compareValues(t, x, y));
      const ex = encodeKeyComponent(t, x, desc);
      const ey = encodeKeyComponent(t, y, desc);
      const e = Math.sign(Buffer.compare(ex, ey));
      expect(e).toBe(desc ? 0 - c || 0 : c);
      const d = decodeKeyComponent(t, ex, 0, desc);
      expect(d.next).toBe(ex.length);
      expect(compareValues(t, d.value, x)).toBe(0);
      validateValue(t, d.value);
      expect(encodeKeyComponent(t, d.value, desc).equals(ex)).toBe(true);
    }),
    { numRuns: runs },
  );
}

describe('byte-comparable keys agree with compareValues', () => {
  for (const name of KEY_NATIVES) it(name, () => checkType(native(name), 1000));
  for (const t of COMPOSITES) it(cqlTypeToString(t), () => checkType(t));

  it('composite keys, prefixes and bounds', () => {
    const types = [native('int'), native('text'), native('timeuuid')];
    const keyArb = fc.tuple(arb(types[0]!), arb(types[1]!), arb(types[2]!));
    fc.assert(
      fc.property(
        keyArb,
        keyArb,
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (k1, k2, desc, plen) => {
          let c = 0;
          for (let i = 0; i < 3 && c === 0; i++) {
            c = Math.sign(compareValues(types[i]!, k1[i]!, k2[i]!));
            if (desc[i] && c !== 0) c = -c; // -0 would fail Object.is against Buffer.compare's 0
          }
          const e1 = encodeClusteringKey(types, desc, k1);
          const e2 = encodeClusteringKey(types, desc, k2);
          expect(Math.sign(Buffer.compare(e1, e2))).toBe(c);
          expect(decodeClusteringKey(types, desc, e1).map((v, i) => compareValues(types[i]!, v, k1[i]!))).toEqual([
            0, 0, 0,
          ]);
          // Prefix bounds: k2 has k1's prefix iff before <= k2 < after.
          const prefix = k1.slice(0, plen);
          const before = clusteringPrefixBound(types, desc, prefix, 'before');
          const after = clusteringPrefixBound(types, desc, prefix, 'after');
          const hasPrefix = prefix.every((v, i) => compareValues(types[i]!, v, k2[i]!) === 0);
          expect(Buffer.compare(before, e2) <= 0 && Buffer.compare(e2, after) < 0).toBe(hasPrefix);
          expect(Buffer.compare(before, e1) <= 0 && Buffer.compare(e1, after) < 0).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('slice bounds select the right rows for ASC and DESC', () => {
    const types = [native('int'), native('int')];
    const small = fc.integer({ min: -3, max: 3 }).map((v) => fixedInt(32, BigInt(v)));
    fc.assert(
      fc.property(
        fc.tuple(small, small),
        fc.tuple(small, small),
        fc.constantFrom('<', '<=', '>', '>=' as const),
        fc.boolean(),
        fc.boolean(),
        (row, p, op, d0, d1) => {
          const desc = [d0, d1];
          const bounds = clusteringSliceBounds(types, desc, p, op as '<' | '<=' | '>' | '>=');
          const k = encodeClusteringKey(types, desc, row);
          const inRange = Buffer.compare(bounds.start, k) <= 0 && Buffer.compare(k, bounds.end) < 0;
          const c = compareValues(types[1]!, row[1]!, p[1]!);
          const want =
            compareValues(types[0]!, row[0]!, p[0]!) === 0 &&
            (op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0);
          expect(inRange).toBe(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('compareValues specifics', () => {
  it('orders timeuuids by time, then by signed low bytes', () => {
    const t = native('timeuuid');
    const early = Buffer.from('00000001000010000000000000000000', 'hex');
    const late = Buffer.from('00000000000110000000000000000000', 'hex');
    expect(compareValues(t, early, late)).toBeLessThan(0);
    const lowNeg = Buffer.from('00000000000010008000000000000000', 'hex');
    const lowPos = Buffer.from('00000000000010007f00000000000000', 'hex');
    expect(compareValues(t, lowNeg, lowPos)).toBeLessThan(0);
    expect(compareValues(native('uuid'), lowNeg, lowPos)).toBeGreaterThan(0);
  });

  it('treats missing trailing tuple fields as nulls and orders nulls first', () => {
    const one = buildTuple([fixedInt(32, 1n)]);
    const oneNull = buildTuple([fixedInt(32, 1n), null]);
    expect(compareValues(tupleT, one, oneNull)).toBe(0);
    expect(compareValues(tupleT, buildTuple([null]), one)).toBeLessThan(0);
  });

  it('compares decimals numerically regardless of scale', () => {
    const t = native('decimal');
    expect(
      compareValues(t, decimalToBytes({ unscaled: 10n, scale: 1 }), decimalToBytes({ unscaled: 100n, scale: 2 })),
    ).toBe(0);
    expect(
      compareValues(t, decimalToBytes({ unscaled: -5n, scale: 0 }), decimalToBytes({ unscaled: 1n, scale: 3 })),
    ).toBeLessThan(0);
  });
});

/** Values whose text forms cannot carry them (NaN/Infinity in JSON, empty non-string values). */
function hasNonFinite(t: CqlType, v: Buffer): boolean {
  const j = toJsonValue(t, v);
  return /\bnull\b/.test(j);
}

describe('text forms round-trip', () => {
  const TYPES: CqlType[] = [
    ...KEY_NATIVES.filter((n) => n !== 'date').map((n) => native(n)),
    ...COMPOSITES.filter(
      (t) => t.kind !== 'udt' && t.kind !== 'tuple' && !(t.kind === 'list' && t.element.kind === 'tuple'),
    ),
  ];
  for (const t of TYPES) {
    it(`JSON ${cqlTypeToString(t)}`, () => {
      fc.assert(
        fc.property(arb(t), (v) => {
          if (hasNonFinite(t, v)) return;
          const back = jsonToBytes(t, parseJson(toJsonValue(t, v)));
          expect(back).not.toBeNull();
          expect(compareValues(t, back!, normalizeValue(t, v))).toBe(0);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('CQL literals of natives parse back', () => {
    const kindFor: Record<string, string> = {
      ascii: 'string',
      text: 'string',
      inet: 'string',
      timestamp: 'string',
      time: 'string',
      date: 'string',
      int: 'integer',
      bigint: 'integer',
      smallint: 'integer',
      tinyint: 'integer',
      varint: 'integer',
      decimal: 'float',
      float: 'float',
      double: 'float',
      boolean: 'boolean',
      uuid: 'uuid',
      timeuuid: 'uuid',
      blob: 'hex',
    };
    for (const name of KEY_NATIVES) {
      const t = native(name);
      fc.assert(
        fc.property(arb(t), (v) => {
          if (v.length === 0) return;
          let text = formatValue(t, v);
          let kind = kindFor[name]!;
          if (kind === 'string') text = text.slice(1, -1).replaceAll("''", "'");
          if (kind === 'float' && /^-?\d+$/.test(text)) kind = 'integer';
          const back = literalToBytes(t, { kind, text } as never, 'c')!;
          expect(compareValues(t, back, v)).toBe(0);
        }),
        { numRuns: 300 },
      );
    }
  });
});
