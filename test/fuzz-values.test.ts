// Fuzzing the value layer (fast-check): serialized values of every type (natives, nested
// collections, tuples, UDTs, vectors), valid, mutated and random, incl. huge varints, extreme
// decimal scales, invalid UTF-8 and out-of-range dates/durations. validateValue only ever throws
// InvalidRequest; a value it accepts can be formatted (CQL and JSON), compared, normalized and
// used as a key without any error. Text-side decoders (literals, JSON, type strings) only throw
// InvalidRequest / SyntaxError. CI: a few thousand inputs; long mode: FUZZ_RUNS.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CqlError, ErrorCode, InvalidRequest } from '../cql/errors.js';
import { decodeKeyComponent, encodeKeyComponent } from '../cql/types/byte-comparable.js';
import { type CqlType, cqlTypeToString, native } from '../cql/types/cql-type.js';
import { jsonToBytes, toJsonValue } from '../cql/types/json-codec.js';
import { parseJson } from '../cql/types/json-text.js';
import { nativeFromString } from '../cql/types/literal-parser.js';
import { parseTypeString } from '../cql/types/type-parser.js';
import { compareValues } from '../cql/types/value-comparator.js';
import { formatValue } from '../cql/types/value-formatter.js';
import { normalizeValue } from '../cql/types/value-normalizer.js';
import { validateValue } from '../cql/types/value-validator.js';
import { writeVInt } from '../cql/types/vint.js';
import { count, FUZZ_TIMEOUT, fuzzParams, LONG_MODE, mutate, reportCounts } from './support/fuzz-harness.js';

afterAll(() => reportCounts('fuzz-values'));

/**
 * An input taking longer is a hang. Generous: decimals and varints of 32 KiB cost tens of ms per
 * text conversion (V8's BigInt toString is quadratic) and the long mode shares the CPU.
 */
const SLOW_MS = LONG_MODE ? 10_000 : 3000;
const n = native;
const list = (element: CqlType, frozen = true): CqlType => ({ kind: 'list', element, frozen });
const set = (element: CqlType, frozen = true): CqlType => ({ kind: 'set', element, frozen });
const map = (key: CqlType, value: CqlType, frozen = true): CqlType => ({ kind: 'map', key, value, frozen });
const tuple = (...elements: CqlType[]): CqlType => ({ kind: 'tuple', elements });
const udt: CqlType = {
  kind: 'udt',
  keyspace: 'ks',
  name: 'address',
  fields: [
    { name: 'street', type: n('text') },
    { name: 'Zip Code', type: n('int') },
    { name: 'tags', type: set(n('ascii')) },
  ],
  frozen: true,
};

const NATIVES = [
  'ascii',
  'bigint',
  'blob',
  'boolean',
  'counter',
  'date',
  'decimal',
  'double',
  'duration',
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

/** Every native, then nested shapes up to five levels deep. */
const TYPES: CqlType[] = [
  ...NATIVES.map((name) => n(name)),
  list(n('int')),
  set(n('text')),
  map(n('text'), n('bigint')),
  map(n('timeuuid'), list(n('decimal'))),
  list(list(list(list(n('varint'))))),
  set(tuple(n('date'), n('duration'), n('inet'))),
  map(set(n('uuid')), map(n('float'), list(n('double')))),
  tuple(n('int'), n('text'), list(udt), tuple(n('boolean'), n('blob'))),
  udt,
  list(udt),
  { kind: 'vector', element: n('float'), dimension: 3 },
  { kind: 'vector', element: n('text'), dimension: 2 },
  { kind: 'vector', element: list(n('int')), dimension: 2 },
];

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v | 0);
  return b;
}

function collection(count: number, parts: Buffer[]): Buffer {
  return Buffer.concat([int32(count), ...parts.flatMap((p) => [int32(p.length), p])]);
}

/** Interesting numbers for fixed-width fields. */
const edgeBytes = (width: number) =>
  fc.oneof(
    fc.uint8Array({ minLength: width, maxLength: width }).map((a) => Buffer.from(a)),
    fc.constantFrom(0x00, 0x7f, 0x80, 0xff).map((x) => Buffer.alloc(width, x)),
  );

const smallVarint = fc.uint8Array({ minLength: 1, maxLength: 24 }).map((a) => Buffer.from(a));
/** With huge varints (up to 32 KiB, ~79,000 digits), only for the top-level varint and decimal. */
const hugeVarint = fc.oneof(
  { weight: 8, arbitrary: smallVarint },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 32768 }), fc.nat(255)).map(([len, fill]) => Buffer.alloc(len, fill)),
  },
);

const durationBytes = fc
  .tuple(
    fc.bigInt({ min: 0n, max: 1n << 40n }),
    fc.bigInt({ min: 0n, max: 1n << 40n }),
    fc.bigInt({ min: 0n, max: 1n << 63n }),
    fc.boolean(),
  )
  .map(([m, d, ns, neg]) => {
    const out: number[] = [];
    for (const x of [m, d, ns]) writeVInt(neg ? -x : x, out);
    return Buffer.from(out);
  });

function nativeArb(name: (typeof NATIVES)[number], top: boolean): fc.Arbitrary<Buffer> {
  const varintBytes = top ? hugeVarint : smallVarint;
  switch (name) {
    case 'int':
    case 'float':
    case 'date':
      return edgeBytes(4);
    case 'bigint':
    case 'counter':
    case 'double':
    case 'timestamp':
    case 'time':
      return edgeBytes(8);
    case 'smallint':
      return edgeBytes(2);
    case 'tinyint':
    case 'boolean':
      return edgeBytes(1);
    case 'uuid':
      return edgeBytes(16);
    case 'timeuuid':
      return edgeBytes(16).map((b) => {
        b[6] = (b[6]! & 0x0f) | 0x10;
        return b;
      });
    case 'inet':
      return fc.oneof(edgeBytes(4), edgeBytes(16));
    case 'varint':
      return varintBytes;
    case 'decimal':
      return fc
        .tuple(fc.oneof(fc.integer(), fc.constantFrom(-0x80000000, 0x7fffffff, 0, 1000, 1001, -1001)), varintBytes)
        .map(([scale, u]) => Buffer.concat([int32(scale), u]));
    case 'duration':
      return durationBytes;
    case 'text':
      return fc.string({ unit: 'binary', maxLength: 32 }).map((s) => Buffer.from(s, 'utf8'));
    case 'ascii':
      return fc.string({ unit: 'binary-ascii', maxLength: 32 }).map((s) => Buffer.from(s, 'latin1'));
    case 'blob':
      return fc.uint8Array({ maxLength: 32 }).map((a) => Buffer.from(a));
  }
}

/** Valid serialized values of `t` (depth-limited sizes). */
function valueArb(t: CqlType, top = false): fc.Arbitrary<Buffer> {
  switch (t.kind) {
    case 'native':
      return nativeArb(t.name, top);
    case 'list':
    case 'set':
      return fc.array(valueArb(t.element), { maxLength: 4 }).map((els) => collection(els.length, els));
    case 'map':
      return fc
        .array(fc.tuple(valueArb(t.key), valueArb(t.value)), { maxLength: 3 })
        .map((es) => collection(es.length, es.flat()));
    case 'tuple':
    case 'udt': {
      const fields = t.kind === 'tuple' ? t.elements : t.fields.map((f) => f.type);
      return fc.tuple(...fields.map((f) => fc.option(valueArb(f), { freq: 5 })), fc.nat(fields.length)).map((vs) => {
        const keep = vs.pop() as number;
        const parts = (vs as (Buffer | null)[]).slice(0, Math.max(1, keep));
        return Buffer.concat(parts.map((p) => (p === null ? int32(-1) : Buffer.concat([int32(p.length), p]))));
      });
    }
    case 'vector':
      return fc.array(valueArb(t.element), { minLength: t.dimension, maxLength: t.dimension }).map((els) => {
        if (t.element.kind === 'native' && (t.element.name === 'float' || t.element.name === 'int')) {
          return Buffer.concat(els);
        }
        return Buffer.concat(els.map((e) => Buffer.concat([Buffer.from(unsignedVInt(e.length)), e])));
      });
    case 'custom':
      return fc.uint8Array().map((a) => Buffer.from(a));
  }
}

function unsignedVInt(v: number): number[] {
  // Cassandra's unsigned vint: leading 1-bits of the first byte count the extra bytes.
  if (v < 0x80) return [v];
  if (v < 0x4000) return [0x80 | (v >> 8), v & 0xff];
  if (v < 0x200000) return [0xc0 | (v >> 16), (v >> 8) & 0xff, v & 0xff];
  return [0xe0 | (v >> 24), (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff];
}

/** Valid, mutated and random bytes for `t`. */
function inputArb(t: CqlType): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 3, arbitrary: valueArb(t, true) },
    { weight: 5, arbitrary: valueArb(t, true).chain((b) => mutate(b, 3)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) },
  );
}

function isKeyable(t: CqlType): boolean {
  if (t.kind === 'native') return t.name !== 'counter' && t.name !== 'duration';
  if (t.kind === 'list' || t.kind === 'set' || t.kind === 'udt' || t.kind === 'vector') return false;
  if (t.kind === 'map') return false;
  if (t.kind === 'tuple') return t.elements.every(isKeyable);
  return false;
}

/** validateValue, then everything that reads an accepted value. */
function checkValue(t: CqlType, bytes: Buffer): 'valid' | 'invalid' {
  const started = performance.now();
  try {
    validateValue(t, bytes);
  } catch (e) {
    if (!(e instanceof InvalidRequest)) {
      throw new Error(`validateValue(${cqlTypeToString(t)}, ${bytes.toString('hex').slice(0, 200)}) threw ${e}`);
    }
    return 'invalid';
  }
  try {
    formatValue(t, bytes);
    toJsonValue(t, bytes);
    expect(compareValues(t, bytes, bytes)).toBe(0);
    const normalized = normalizeValue(t, bytes);
    validateValue(t, normalized);
    if (isKeyable(t) && bytes.length > 0) {
      for (const desc of [false, true]) {
        const key = encodeKeyComponent(t, bytes, desc);
        const back = decodeKeyComponent(t, key, 0, desc);
        expect(compareValues(t, back.value, bytes)).toBe(0);
      }
    }
  } catch (e) {
    throw new Error(
      `an accepted ${cqlTypeToString(t)} value ${bytes.toString('hex').slice(0, 200)} broke a reader: ${e}`,
    );
  }
  expect(performance.now() - started).toBeLessThan(SLOW_MS);
  return 'valid';
}

describe('serialized values', () => {
  for (const t of TYPES) {
    it(
      cqlTypeToString(t),
      () => {
        const seen = { valid: 0, invalid: 0 };
        fc.assert(
          fc.property(inputArb(t), (bytes) => {
            count(`values ${cqlTypeToString(t)}`);
            seen[checkValue(t, bytes)]++;
          }),
          fuzzParams(t.kind === 'native' ? 300 : 500),
        );
        // Both sides of the validator are exercised.
        expect(seen.valid).toBeGreaterThan(0);
      },
      FUZZ_TIMEOUT,
    );
  }

  it('deeply nested collections are validated without a stack overflow', () => {
    // The type bounds the depth of a value, but a type can be deep too.
    let t: CqlType = n('int');
    let v = int32(7);
    for (let i = 0; i < 200; i++) {
      t = list(t);
      v = collection(1, [v]);
    }
    expect(checkValue(t, v)).toBe('valid');
    const bad = Buffer.from(v);
    bad[bad.length - 5] = 9; // the innermost int's length
    expect(checkValue(t, bad)).toBe('invalid');
  });
});

function textSide(f: () => unknown): void {
  try {
    f();
  } catch (e) {
    if (!(e instanceof CqlError) || (e.code !== ErrorCode.INVALID && e.code !== ErrorCode.SYNTAX_ERROR)) throw e;
  }
}

describe('text-side decoders', () => {
  const texty = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '2147483648',
      '-2147483649',
      '9223372036854775808',
      '1e400',
      '-0',
      'NaN',
      '0x',
      '0xZZ',
      '10000000-01-01',
      '-5877641-06-23',
      '5881580-07-12',
      '2147483648',
      '1970-01-01T00:00:00.000+25:00',
      '24:00:00',
      '23:59:59.9999999999',
      '1y2mo3w4d5h6m7s8ms9us10ns',
      'P1Y2M3DT4H5M6S',
      '-P',
      '9223372036854775807h',
      '::ffff:1.2.3.4',
      '1.2.3.256',
      '123e4567-e89b-12d3-a456-42661417400',
      `1${'0'.repeat(5000)}`,
      `0.${'0'.repeat(5000)}1`,
      '1e2147483648',
    ),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  it(
    'literals of every native type (nativeFromString): valid bytes or InvalidRequest',
    () => {
      fc.assert(
        fc.property(fc.constantFrom(...NATIVES), texty, (name, text) => {
          count('literals');
          let bytes: Buffer | undefined;
          textSide(() => {
            bytes = nativeFromString(name, text);
          });
          if (bytes !== undefined) checkValue(n(name), bytes);
        }),
        fuzzParams(4000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'JSON documents (parseJson + jsonToBytes): valid bytes or InvalidRequest',
    () => {
      const json = fc.oneof(
        fc.json({ maxDepth: 4 }),
        fc.string({ maxLength: 40 }),
        fc.json().chain((j) => mutate(Buffer.from(j), 3).map((b) => b.toString('utf8'))),
        fc.constantFrom('[[[[[[[[[[', '{"a":', '1e99999', '"\\ud800"', `${'['.repeat(5000)}${']'.repeat(5000)}`),
      );
      fc.assert(
        fc.property(fc.constantFrom(...TYPES), json, (t, text) => {
          count('json');
          let bytes: Buffer | null | undefined;
          textSide(() => {
            bytes = jsonToBytes(t, parseJson(text));
          });
          if (bytes) checkValue(t, bytes);
        }),
        fuzzParams(3000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'type strings (parseTypeString): a type or InvalidRequest / SyntaxError',
    () => {
      const words = [
        'frozen',
        'list',
        'set',
        'map',
        'tuple',
        'vector',
        'int',
        'text',
        '<',
        '>',
        ',',
        ' ',
        '3',
        '-1',
        '"x"',
        'ks.u',
        '999999999999',
      ];
      const typeText = fc.oneof(
        fc.array(fc.constantFrom(...words), { maxLength: 20 }).map((w) => w.join('')),
        fc
          .constantFrom(...TYPES.map(cqlTypeToString))
          .chain((s) => mutate(Buffer.from(s), 3).map((b) => b.toString('latin1'))),
        fc.constant(`${'list<'.repeat(3000)}int${'>'.repeat(3000)}`),
      );
      fc.assert(
        fc.property(typeText, (s) => {
          count('type strings');
          textSide(() => parseTypeString(s));
        }),
        fuzzParams(3000),
      );
    },
    FUZZ_TIMEOUT,
  );
});
