import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidRequest } from '../cql/errors.js';
import { type CqlType, native } from '../cql/types/cql-type.js';
import { toJsonValue } from '../cql/types/json-codec.js';
import type { Literal } from '../cql/types/literal.js';
import { literalToBytes } from '../cql/types/literal-parser.js';
import { marshalClassName, parseMarshalClass, parseMarshalClassWithOrder } from '../cql/types/marshal-class-names.js';
import { parseTypeString } from '../cql/types/type-parser.js';
import { formatValue } from '../cql/types/value-formatter.js';
import { normalizeValue } from '../cql/types/value-normalizer.js';
import { validateValue } from '../cql/types/value-validator.js';

const require = createRequire(import.meta.url);
const cassandra = require('cassandra-driver');
const Encoder = require('cassandra-driver/lib/encoder.js');
const encoder = new Encoder(4, {});
const { dataTypes } = cassandra.types;

const lit = (kind: Literal['kind'], text: string) => ({ kind, text }) as Literal;
const str = (text: string) => lit('string', text);
const int = (text: string) => lit('integer', text);

function bytesOf(t: CqlType, l: Literal, name = 'c'): Buffer {
  const v = literalToBytes(t, l, name);
  if (v === null) throw new Error('null');
  validateValue(t, v);
  return v;
}

function rejects(fn: () => unknown, message: string) {
  expect(fn).toThrow(InvalidRequest);
  expect(fn).toThrow(message);
}

const address: CqlType = {
  kind: 'udt',
  keyspace: 'ks',
  name: 'address',
  fields: [
    { name: 'street', type: native('text') },
    { name: 'zip', type: native('int') },
  ],
  frozen: true,
};

describe('validateValue', () => {
  it('reports Cassandra messages for bad sizes', () => {
    rejects(() => validateValue(native('int'), Buffer.alloc(3)), 'Expected 4 or 0 byte int (3)');
    rejects(() => validateValue(native('bigint'), Buffer.alloc(3)), 'Expected 8 or 0 byte long (3)');
    rejects(() => validateValue(native('smallint'), Buffer.alloc(0)), 'Expected 2 bytes for a smallint (0)');
    rejects(() => validateValue(native('tinyint'), Buffer.alloc(2)), 'Expected 1 byte for a tinyint (2)');
    rejects(() => validateValue(native('date'), Buffer.alloc(8)), 'Expected 4 byte long for date (8)');
    rejects(() => validateValue(native('time'), Buffer.alloc(4)), 'Expected 8 byte long for time (4)');
    rejects(() => validateValue(native('uuid'), Buffer.alloc(4)), 'UUID should be 16 or 0 bytes (4)');
    rejects(() => validateValue(native('inet'), Buffer.alloc(5)), 'Expected 4 or 16 byte inetaddress; got 0000000000');
    rejects(() => validateValue(native('decimal'), Buffer.alloc(2)), 'Expected 0 or at least 4 bytes (2)');
    rejects(() => validateValue(native('duration'), Buffer.alloc(2)), 'Expected at least 3 bytes for a duration (2)');
    validateValue(native('int'), Buffer.alloc(0));
    validateValue(native('varint'), Buffer.alloc(7));
  });

  it('checks text, ascii and timeuuid contents', () => {
    rejects(() => validateValue(native('text'), Buffer.from([0xc3, 0x28])), "String didn't validate.");
    validateValue(native('text'), Buffer.from('héllo ✓ 😀'));
    validateValue(native('text'), Buffer.from([0xc0, 0x80])); // modified UTF-8 NUL, accepted by Cassandra
    rejects(() => validateValue(native('ascii'), Buffer.from([0x41, 0xc3])), 'Invalid byte for ascii: -61');
    const v4 = Buffer.from('0d9b4f8e4c3a4b2f9e1d2c3b4a596877', 'hex');
    rejects(() => validateValue(native('timeuuid'), v4), 'Invalid version for TimeUUID type.');
  });

  it('validates nested collections, tuples and vectors', () => {
    const listInt: CqlType = { kind: 'list', element: native('int'), frozen: false };
    const good = bytesOf(listInt, { kind: 'list', elements: [int('1'), int('2')] });
    validateValue(listInt, good);
    rejects(() => validateValue(listInt, good.subarray(0, good.length - 1)), 'Not enough bytes to read a list');
    rejects(
      () => validateValue(listInt, Buffer.concat([good, Buffer.from([0])])),
      'Unexpected extraneous bytes after list value',
    );
    const bad = Buffer.from([0, 0, 0, 1, 0, 0, 0, 3, 1, 2, 3]);
    rejects(() => validateValue(listInt, bad), 'Expected 4 or 0 byte int (3)');
    const mapT: CqlType = { kind: 'map', key: native('text'), value: native('int'), frozen: false };
    rejects(() => validateValue(mapT, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 0x41])), 'Not enough bytes to read a map');
    const tupleT = parseTypeString('tuple<int, text>');
    rejects(() => validateValue(tupleT, Buffer.from([0, 0, 0, 4, 1])), 'Not enough bytes to read 0th component');
    validateValue(tupleT, Buffer.from([0, 0, 0, 4, 0, 0, 0, 1])); // fewer fields than declared
    const vec = parseTypeString('vector<int, 2>');
    rejects(() => validateValue(vec, Buffer.alloc(4)), 'Not enough bytes to read a vector<int, 2>');
    rejects(() => validateValue(vec, Buffer.alloc(12)), 'Unexpected 4 extraneous bytes after vector<int, 2> value');
  });
});

describe('literalToBytes', () => {
  it('converts integer literals into every numeric type', () => {
    expect(bytesOf(native('int'), int('-2'))).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xfe]));
    expect(bytesOf(native('bigint'), int('1'))).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]));
    expect(bytesOf(native('counter'), int('1'))).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]));
    expect(bytesOf(native('smallint'), int('300'))).toEqual(Buffer.from([1, 44]));
    expect(bytesOf(native('tinyint'), int('-1'))).toEqual(Buffer.from([0xff]));
    expect(bytesOf(native('varint'), int('128'))).toEqual(Buffer.from([0, 128]));
    expect(bytesOf(native('double'), int('2')).readDoubleBE(0)).toBe(2);
    expect(bytesOf(native('float'), lit('float', '1.5')).readFloatBE(0)).toBe(1.5);
    expect(formatValue(native('decimal'), bytesOf(native('decimal'), int('12')))).toBe('12');
    expect(formatValue(native('decimal'), bytesOf(native('decimal'), lit('float', '-1.250')))).toBe('-1.250');
    // BigDecimal.toString, as DecimalSerializer.toString: a negative scale reads in scientific notation.
    expect(formatValue(native('decimal'), bytesOf(native('decimal'), lit('float', '1e3')))).toBe('1E+3');
  });

  it('gives Cassandra messages for wrong or out-of-range constants', () => {
    rejects(() => literalToBytes(native('int'), str('x'), 'c'), 'Invalid STRING constant (x) for "c" of type int');
    rejects(
      () => literalToBytes(native('int'), lit('float', '1.5'), 'c'),
      'Invalid FLOAT constant (1.5) for "c" of type int',
    );
    rejects(() => literalToBytes(native('text'), int('1'), 'c'), 'Invalid INTEGER constant (1) for "c" of type text');
    rejects(() => literalToBytes(native('blob'), str('ab'), 'b'), 'Invalid STRING constant (ab) for "b" of type blob');
    rejects(() => literalToBytes(native('int'), int('2147483648'), 'c'), "Unable to make int from '2147483648'");
    rejects(
      () => literalToBytes(native('bigint'), int('9223372036854775808'), 'c'),
      "Unable to make long from '9223372036854775808'",
    );
    rejects(() => literalToBytes(native('smallint'), int('32768'), 'c'), "Unable to make short from '32768'");
    rejects(() => literalToBytes(native('tinyint'), int('128'), 'c'), "Unable to make byte from '128'");
    rejects(
      () => literalToBytes(native('boolean'), int('1'), 'c'),
      'Invalid INTEGER constant (1) for "c" of type boolean',
    );
    rejects(
      () => literalToBytes(native('counter'), lit('null', 'null'), 'c'),
      'Invalid null value for counter increment/decrement',
    );
    rejects(() => literalToBytes(native('ascii'), str('é'), 'c'), 'Invalid ASCII character in string literal');
    rejects(() => literalToBytes(native('blob'), lit('hex', '0xabc'), 'c'), "cannot parse 'abc' as hex bytes");
    expect(literalToBytes(native('int'), lit('null', 'null'), 'c')).toBeNull();
  });

  it('parses every Cassandra timestamp format', () => {
    const ts = native('timestamp');
    const ms = (text: string) => bytesOf(ts, str(text)).readBigInt64BE(0);
    const base = BigInt(Date.UTC(2024, 0, 2, 3, 4, 5));
    expect(ms('2024-01-02 03:04:05+0000')).toBe(base);
    expect(ms('2024-01-02T03:04:05Z')).toBe(base);
    expect(ms('2024-01-02T03:04:05.000Z')).toBe(base);
    expect(ms('2024-01-02T03:04:05.123+00:00')).toBe(base + 123n);
    expect(ms('2024-01-02 03:04:05')).toBe(base);
    expect(ms('2024-01-02 04:04:05+0100')).toBe(base);
    expect(ms('2024-01-02 04:04:05 GMT+01:00')).toBe(base);
    expect(ms('2024-01-02 03:04')).toBe(base - 5000n);
    expect(ms('2024-01-02')).toBe(BigInt(Date.UTC(2024, 0, 2)));
    expect(ms('2024-01-02Z')).toBe(BigInt(Date.UTC(2024, 0, 2)));
    expect(ms('1704164645000')).toBe(1704164645000n);
    expect(bytesOf(ts, int('-5')).readBigInt64BE(0)).toBe(-5n);
    rejects(
      () => literalToBytes(ts, str('2024-13-02'), 'c'),
      "Unable to coerce '2024-13-02' to a formatted date (long)",
    );
    rejects(
      () => literalToBytes(ts, str('2024-02-30'), 'c'),
      "Unable to coerce '2024-02-30' to a formatted date (long)",
    );
  });

  it('parses dates, times, durations, inets and uuids like the driver encodes them', () => {
    const { LocalDate, LocalTime, Duration, BigDecimal, InetAddress, Uuid, TimeUuid } = cassandra.types;
    expect(bytesOf(native('date'), str('2024-01-02'))).toEqual(
      encoder.encode(LocalDate.fromString('2024-01-02'), dataTypes.date),
    );
    expect(bytesOf(native('date'), str('1970-01-01')).readUInt32BE(0)).toBe(2 ** 31);
    expect(bytesOf(native('date'), int('2147483648')).readUInt32BE(0)).toBe(2 ** 31);
    expect(bytesOf(native('time'), str('08:12:54.123456789'))).toEqual(
      encoder.encode(LocalTime.fromString('08:12:54.123456789'), dataTypes.time),
    );
    expect(bytesOf(native('time'), str('08:12:54'))).toEqual(
      encoder.encode(LocalTime.fromString('08:12:54'), dataTypes.time),
    );
    rejects(
      () => literalToBytes(native('time'), str('25:00:00'), 'c'),
      "(TimeType) Unable to coerce '25:00:00' to a formatted time (long)",
    );
    for (const d of ['1h2m', '-3d4h', '1y2mo3w4d5h6m7s8ms9us10ns', '89h4m48s', '1mo']) {
      expect(bytesOf(native('duration'), lit('duration', d))).toEqual(
        encoder.encode(Duration.fromString(d), dataTypes.duration),
      );
      expect(formatValue(native('duration'), bytesOf(native('duration'), lit('duration', d)))).toBe(
        Duration.fromString(d).toString(),
      );
    }
    expect(bytesOf(native('duration'), lit('duration', 'P1Y2M3DT4H5M6S'))).toEqual(
      encoder.encode(Duration.fromString('P1Y2M3DT4H5M6S'), dataTypes.duration),
    );
    expect(bytesOf(native('duration'), lit('duration', 'P2W'))).toEqual(
      encoder.encode(Duration.fromString('P2W'), dataTypes.duration),
    );
    rejects(
      () => literalToBytes(native('duration'), lit('duration', '1m1h'), 'c'),
      'Invalid duration. The minutes should be after hours',
    );
    for (const d of ['-123.4500', '0', '0.0000001', '99999999999999999999.1']) {
      expect(bytesOf(native('decimal'), lit('float', d))).toEqual(
        encoder.encode(BigDecimal.fromString(d), dataTypes.decimal),
      );
    }
    for (const a of ['127.0.0.1', '::1', '2001:db8::ff00:42:8329', '1::']) {
      expect(bytesOf(native('inet'), str(a))).toEqual(encoder.encode(InetAddress.fromString(a), dataTypes.inet));
    }
    // Java's InetAddress.getByName turns IPv4-mapped IPv6 addresses into IPv4 ones.
    expect(bytesOf(native('inet'), str('::ffff:1.2.3.4'))).toEqual(Buffer.from([1, 2, 3, 4]));
    const u = Uuid.random().toString();
    expect(bytesOf(native('uuid'), lit('uuid', u))).toEqual(encoder.encode(Uuid.fromString(u), dataTypes.uuid));
    const tu = TimeUuid.now().toString();
    expect(bytesOf(native('timeuuid'), lit('uuid', tu))).toEqual(
      encoder.encode(TimeUuid.fromString(tu), dataTypes.timeuuid),
    );
    rejects(() => literalToBytes(native('timeuuid'), lit('uuid', u), 'c'), 'TimeUUID supports only version 1 UUIDs');
  });

  it('builds collections, tuples, udts and vectors', () => {
    const setT = parseTypeString('set<int>');
    const v = bytesOf(setT, { kind: 'set', elements: [int('3'), int('1'), int('3')] });
    expect(formatValue(setT, v)).toBe('{1, 3}');
    const mapT = parseTypeString('map<text, int>');
    const m = bytesOf(mapT, {
      kind: 'map',
      entries: [
        [str('b'), int('1')],
        [str('a'), int('2')],
        [str('b'), int('3')],
      ],
    });
    expect(formatValue(mapT, m)).toBe("{'a': 2, 'b': 3}");
    expect(toJsonValue(mapT, m)).toBe('{"a": 2, "b": 3}');
    expect(formatValue(setT, bytesOf(setT, { kind: 'map', entries: [] }))).toBe('{}');
    rejects(
      () => literalToBytes(parseTypeString('list<int>'), { kind: 'list', elements: [str('a')] }, 'l'),
      "Invalid list literal for l: value 'a' is not of type int",
    );
    rejects(
      () => literalToBytes(parseTypeString('list<int>'), { kind: 'set', elements: [] }, 'l'),
      'Invalid set literal for l of type list<int>',
    );
    rejects(
      () => literalToBytes(parseTypeString('list<int>'), { kind: 'list', elements: [lit('null', 'null')] }, 'l'),
      'null is not supported inside collections',
    );
    rejects(
      () => literalToBytes(mapT, { kind: 'map', entries: [[int('1'), int('1')]] }, 'm'),
      'Invalid map literal for m: key 1 is not of type text',
    );
    const tupleT = parseTypeString('tuple<int, text, boolean>');
    const t = bytesOf(tupleT, { kind: 'tuple', elements: [int('1'), lit('null', 'null'), lit('boolean', 'TRUE')] });
    expect(formatValue(tupleT, t)).toBe('(1, null, true)');
    expect(toJsonValue(tupleT, t)).toBe('[1, null, true]');
    rejects(
      () =>
        literalToBytes(
          tupleT,
          { kind: 'tuple', elements: [int('1'), str('a'), lit('boolean', 'true'), int('2')] },
          't',
        ),
      'Invalid tuple literal for t: too many elements. Type frozen<tuple<int, text, boolean>> expects 3 but got 4',
    );
    rejects(
      () => literalToBytes(tupleT, { kind: 'tuple', elements: [str('x')] }, 't'),
      'Invalid tuple literal for t: component 0 is not of type int',
    );
    const u = bytesOf(address, { kind: 'udt', fields: [{ name: 'zip', value: int('75001') }] });
    expect(formatValue(address, u)).toBe('{street: null, zip: 75001}');
    expect(toJsonValue(address, u)).toBe('{"street": null, "zip": 75001}');
    rejects(
      () => literalToBytes(address, { kind: 'udt', fields: [{ name: 'city', value: str('x') }] }, 'a'),
      "Unknown field 'city' in value of user defined type address",
    );
    const vec = parseTypeString('vector<float, 3>');
    const vv = bytesOf(vec, { kind: 'list', elements: [lit('float', '1.5'), int('2'), lit('float', '-0.25')] });
    expect(vv.length).toBe(12);
    expect(formatValue(vec, vv)).toBe('[1.5, 2.0, -0.25]');
    rejects(
      () => literalToBytes(vec, { kind: 'list', elements: [int('1')] }, 'value'),
      'Invalid vector literal for value of type vector<float, 3>; expected 3 elements, but given 1',
    );
    const vt = parseTypeString('vector<text, 2>');
    expect(formatValue(vt, bytesOf(vt, { kind: 'list', elements: [str('a'), str("it's")] }))).toBe("['a', 'it''s']");
    // Same bytes as the driver's vector encoding, for fixed- and variable-size elements.
    const driverType = (t: CqlType) => encoder.parseFqTypeName(marshalClassName(t));
    expect(vv).toEqual(encoder.encode(new Float32Array([1.5, 2, -0.25]), driverType(vec)));
    expect(bytesOf(vt, { kind: 'list', elements: [str('a'), str('bc')] })).toEqual(
      encoder.encode(new cassandra.types.Vector(['a', 'bc'], 'text'), driverType(vt)),
    );
  });
});

describe('formatValue and toJsonValue', () => {
  it('prints natives as Cassandra does', () => {
    const f = (t: string, l: Literal) => formatValue(native(t as 'int'), bytesOf(native(t as 'int'), l));
    const j = (t: string, l: Literal) => toJsonValue(native(t as 'int'), bytesOf(native(t as 'int'), l));
    expect(f('timestamp', str('2024-01-02 03:04:05.006+0000'))).toBe("'2024-01-02T03:04:05.006Z'");
    expect(j('timestamp', str('2024-01-02 03:04:05.006+0000'))).toBe('"2024-01-02 03:04:05.006Z"');
    expect(f('date', str('2024-01-02'))).toBe("'2024-01-02'");
    expect(f('time', str('08:12:54.1'))).toBe("'08:12:54.100000000'");
    expect(f('double', lit('float', '1e10'))).toBe('1.0E10');
    expect(f('double', lit('float', '0.001'))).toBe('0.001');
    expect(f('double', lit('float', '0.0001'))).toBe('1.0E-4');
    expect(f('float', lit('float', '0.1'))).toBe('0.1');
    expect(f('double', lit('float', 'NaN'))).toBe('NaN');
    expect(j('double', lit('float', 'NaN'))).toBe('null');
    expect(f('text', str("it's"))).toBe("'it''s'");
    expect(j('text', str('a"b'))).toBe('"a\\"b"');
    expect(f('blob', lit('hex', '0xCAFE'))).toBe('0xcafe');
    expect(j('blob', lit('hex', '0xCAFE'))).toBe('"0xcafe"');
    expect(f('varint', int('-123456789012345678901234567890'))).toBe('-123456789012345678901234567890');
    expect(f('inet', str('::1'))).toBe("'0:0:0:0:0:0:0:1'");
    expect(f('boolean', lit('boolean', 'false'))).toBe('false');
    expect(j('duration', lit('duration', '1h30m'))).toBe('"1h30m"');
  });

  it('round-trips random timestamps, dates and times through their text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(6n * 10n ** 13n), max: 10n ** 14n }), (ms) => {
        const b = Buffer.alloc(8);
        b.writeBigInt64BE(ms);
        const text = formatValue(native('timestamp'), b).slice(1, -1);
        expect(bytesOf(native('timestamp'), str(text))).toEqual(b);
        if (ms > -8640000000000000n && ms < 8640000000000000n) expect(Date.parse(text)).toBe(Number(ms));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 2 ** 31 - 3_000_000, max: 2 ** 31 + 2_900_000 }), (days) => {
        const b = Buffer.alloc(4);
        b.writeUInt32BE(days);
        const text = formatValue(native('date'), b).slice(1, -1);
        expect(bytesOf(native('date'), str(text))).toEqual(b);
      }),
    );
  });
});

describe('normalizeValue', () => {
  it('sorts and de-duplicates frozen sets bound by clients', () => {
    const t = parseTypeString('frozen<set<int>>');
    const raw = Buffer.from([0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 5]);
    expect(formatValue(t, normalizeValue(t, raw))).toBe('{1, 5}');
  });
});

describe('parseTypeString', () => {
  const resolve = (ks: string | undefined, name: string) =>
    name === 'address' && (ks ?? 'ks') === 'ks' ? (address as CqlType & { kind: 'udt' }) : undefined;

  it('parses nested and frozen types', () => {
    expect(parseTypeString('map<text, frozen<list<int>>>')).toEqual({
      kind: 'map',
      key: native('text'),
      value: { kind: 'list', element: native('int'), frozen: true },
      frozen: false,
    });
    expect(parseTypeString('VARCHAR')).toBe(native('text'));
    expect(parseTypeString('frozen<address>', resolve)).toEqual(address);
    expect(parseTypeString('list<frozen<ks.address>>', resolve)).toEqual({
      kind: 'list',
      element: address,
      frozen: false,
    });
    expect(parseTypeString('tuple<int, list<text>>')).toEqual({
      kind: 'tuple',
      elements: [native('int'), { kind: 'list', element: native('text'), frozen: true }],
    });
    expect(parseTypeString('vector<float, 3>')).toEqual({ kind: 'vector', element: native('float'), dimension: 3 });
    expect(parseTypeString("'org.example.MyType'")).toEqual({ kind: 'custom', className: 'org.example.MyType' });
  });

  it('rejects what Cassandra rejects', () => {
    rejects(
      () => parseTypeString('list<list<int>>'),
      'Non-frozen collections are not allowed inside collections: list<list<int>>',
    );
    rejects(
      () => parseTypeString('list<address>', resolve),
      'Non-frozen UDTs are not allowed inside collections: list<address>',
    );
    rejects(() => parseTypeString('set<duration>'), 'Durations are not allowed inside sets: set<duration>');
    rejects(() => parseTypeString('nosuch'), 'Unknown type nosuch');
    rejects(() => parseTypeString('map<int>'), 'Invalid type');
  });

  it('round-trips cqlTypeToString', async () => {
    const { cqlTypeToString } = await import('../cql/types/cql-type.js');
    for (const s of [
      'map<text, frozen<list<int>>>',
      'frozen<set<timeuuid>>',
      'frozen<tuple<int, text>>',
      'vector<float, 5>',
      'list<frozen<map<int, blob>>>',
    ])
      expect(cqlTypeToString(parseTypeString(s))).toBe(s);
  });
});

describe('marshal class names', () => {
  const P = 'org.apache.cassandra.db.marshal.';
  it('names types as Cassandra does', () => {
    expect(marshalClassName(native('int'))).toBe(`${P}Int32Type`);
    expect(marshalClassName(native('int'), true)).toBe(`${P}ReversedType(${P}Int32Type)`);
    expect(marshalClassName(parseTypeString('map<text, frozen<list<int>>>'))).toBe(
      `${P}MapType(${P}UTF8Type,${P}FrozenType(${P}ListType(${P}Int32Type)))`,
    );
    expect(marshalClassName(parseTypeString('frozen<list<frozen<set<int>>>>'))).toBe(
      `${P}FrozenType(${P}ListType(${P}SetType(${P}Int32Type)))`,
    );
    expect(marshalClassName(parseTypeString('vector<float, 3>'))).toBe(`${P}VectorType(${P}FloatType , 3)`);
    expect(marshalClassName(address)).toBe(
      `${P}FrozenType(${P}UserType(ks,61646472657373,737472656574:${P}UTF8Type,7a6970:${P}Int32Type))`,
    );
    expect(marshalClassName(parseTypeString('tuple<int, text>'))).toBe(
      `${P}FrozenType(${P}TupleType(${P}Int32Type,${P}UTF8Type))`,
    );
  });

  it('parses what it prints', () => {
    for (const s of [
      'map<text, frozen<list<int>>>',
      'frozen<list<frozen<set<int>>>>',
      'vector<float, 3>',
      'tuple<int, text>',
      'set<timeuuid>',
    ])
      expect(parseMarshalClass(marshalClassName(parseTypeString(s)))).toEqual(parseTypeString(s));
    expect(parseMarshalClass(marshalClassName(address))).toEqual(address);
    expect(parseMarshalClassWithOrder(`${P}ReversedType(${P}TimestampType)`)).toEqual({
      type: native('timestamp'),
      reversed: true,
    });
    expect(parseMarshalClass('org.example.Custom')).toEqual({ kind: 'custom', className: 'org.example.Custom' });
  });
});

describe('jsonToBytes', () => {
  it('reads INSERT JSON values with full precision and Cassandra messages', async () => {
    const { jsonToBytes } = await import('../cql/types/json-codec.js');
    const { parseJson } = await import('../cql/types/json-text.js');
    const j = (t: CqlType, text: string) => jsonToBytes(t, parseJson(text));
    expect(j(native('bigint'), '9007199254740993')!.readBigInt64BE(0)).toBe(9007199254740993n);
    expect(j(native('int'), '"12"')!.readInt32BE(0)).toBe(12);
    expect(j(native('double'), '3')!.readDoubleBE(0)).toBe(3);
    expect(formatValue(native('varint'), j(native('varint'), '123456789012345678901234567890')!)).toBe(
      '123456789012345678901234567890',
    );
    rejects(() => j(native('int'), '2147483648'), 'Expected an int value, but got a Long: 2147483648');
    rejects(() => j(native('bigint'), '1.5'), 'Expected a bigint value, but got a Double: 1.5');
    rejects(() => j(native('smallint'), '32768'), "Unable to make short from '32768'");
    rejects(() => j(native('blob'), '"abcd"'), 'String representation of blob is missing 0x prefix');
    const mapT = parseTypeString('map<int, text>');
    expect(formatValue(mapT, j(mapT, '{"2": "b", "1": "a"}')!)).toBe("{1: 'a', 2: 'b'}");
    expect(formatValue(address, j(address, '{"zip": 1, "street": "x"}')!)).toBe("{street: 'x', zip: 1}");
    rejects(() => j(address, '{"city": 1}'), "Unknown field 'city' in value of user defined type address");
    expect(j(native('int'), 'null')).toBeNull();
    rejects(() => parseJson('{"a": }'), 'Could not decode JSON string');
  });
});
