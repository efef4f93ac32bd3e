// The library's classes for CQL values (the Java types of UDF arguments and results that are not java.lang or
// java.util collections): UUID, Date, Cassandra's LocalDate/Duration/TupleValue/UDTValue, InetAddress, ByteBuffer,
// BigInteger, BigDecimal, RoundingMode, and the `udfContext` a UDF body can use.
import type { CqlType } from '../../types/cql-type.js';
import { type Emit, type EmitContext, libraryBuilder } from './java-library.js';

const { defineClass, members, fields, instanceOf } = libraryBuilder;
const TYPES = 'org.apache.cassandra.cql3.functions.types';

const UUID = defineClass('UUID', 'java.util.UUID', {
  supers: ['Object', 'Comparable<UUID>'],
  test: instanceOf('$jv.JUUID'),
});
members(UUID, {
  'new(long, long)': 'new $jv.JUUID($0, $1)',
  'long getMostSignificantBits()': '$r.getMostSignificantBits()',
  'long getLeastSignificantBits()': '$r.getLeastSignificantBits()',
  'int version()': '$r.version()',
  'int variant()': '$r.variant()',
  'long timestamp()': '$r.timestamp()',
  'int clockSequence()': '$r.clockSequence()',
  'long node()': '$r.node()',
  'String toString()': '$r.toString()',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'int compareTo(UUID)': '$r.compareTo($0)',
  'static UUID fromString(String)': '$jv.uuidFromString($0)',
  'static UUID randomUUID()': '$jv.randomUUID()',
});

const DATE = defineClass('Date', 'java.util.Date', {
  supers: ['Object', 'Comparable<Date>'],
  test: instanceOf('$jv.JDate'),
});
members(DATE, {
  'new()': '$jv.now()',
  'new(long)': 'new $jv.JDate($0)',
  'long getTime()': '$r.getTime()',
  'boolean before(Date)': '$r.before($0)',
  'boolean after(Date)': '$r.after($0)',
  'int compareTo(Date)': '$r.compareTo($0)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});

const CALENDAR = defineClass('Calendar', 'java.util.Calendar');
fields(CALENDAR, {
  YEAR: ['int', '1', 1],
  MONTH: ['int', '2', 2],
  WEEK_OF_YEAR: ['int', '3', 3],
  WEEK_OF_MONTH: ['int', '4', 4],
  DATE: ['int', '5', 5],
  DAY_OF_MONTH: ['int', '5', 5],
  DAY_OF_YEAR: ['int', '6', 6],
  DAY_OF_WEEK: ['int', '7', 7],
});

const LOCALDATE = defineClass('LocalDate', `${TYPES}.LocalDate`, {
  imported: false,
  test: instanceOf('$jv.LocalDate'),
});
members(LOCALDATE, {
  'static LocalDate fromDaysSinceEpoch(int)': '$jv.fromDays($0)',
  'static LocalDate fromMillisSinceEpoch(long)': '$jv.fromMillis($0)',
  'int getDaysSinceEpoch()': '$r.getDaysSinceEpoch()',
  'long getMillisSinceEpoch()': '$r.getMillisSinceEpoch()',
  'int getYear()': '$r.getYear()',
  'int getMonth()': '$r.getMonth()',
  'int getDay()': '$r.getDay()',
  'LocalDate add(int, int)': '$r.add($0, $1)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});

const DURATION = defineClass('Duration', `${TYPES}.Duration`, { imported: false, test: instanceOf('$jv.Duration') });
members(DURATION, {
  'static Duration newInstance(int, int, long)': 'new $jv.Duration($0, $1, $2)',
  'int getMonths()': '$r.getMonths()',
  'int getDays()': '$r.getDays()',
  'long getNanoseconds()': '$r.getNanoseconds()',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});

const INET = defineClass('InetAddress', 'java.net.InetAddress', { imported: false, test: instanceOf('$jv.JInet') });
members(INET, {
  'String getHostAddress()': '$r.getHostAddress()',
  'byte[] getAddress()': '$r.getAddress()',
  'boolean isLoopbackAddress()': '$r.isLoopbackAddress()',
  'boolean isAnyLocalAddress()': '$r.isAnyLocalAddress()',
  'boolean isMulticastAddress()': '$r.isMulticastAddress()',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});
defineClass('Inet4Address', 'java.net.Inet4Address', {
  imported: false,
  supers: ['InetAddress'],
  test: (js) => `(${js} instanceof $jv.JInet && ${js}.bytes.length === 4)`,
});
defineClass('Inet6Address', 'java.net.Inet6Address', {
  imported: false,
  supers: ['InetAddress'],
  test: (js) => `(${js} instanceof $jv.JInet && ${js}.bytes.length === 16)`,
});
defineClass('NetworkInterface', 'java.net.NetworkInterface', { imported: false });

const BYTEBUFFER = defineClass('ByteBuffer', 'java.nio.ByteBuffer', {
  imported: true,
  supers: ['Object', 'Comparable<ByteBuffer>'],
  test: instanceOf('$jv.JByteBuffer'),
});
members(BYTEBUFFER, {
  'static ByteBuffer allocate(int)': '$jv.allocate($0)',
  'static ByteBuffer wrap(byte[])': '$jv.wrap($0)',
  'static ByteBuffer wrap(byte[], int, int)': '$jv.wrap($0, $1, $2)',
  'int remaining()': '$r.remaining()',
  'boolean hasRemaining()': '$r.hasRemaining()',
  'int position()': '$r.position()',
  'ByteBuffer position(int)': '$r.position($0)',
  'int limit()': '$r.limit()',
  'ByteBuffer limit(int)': '$r.limit($0)',
  'int capacity()': '$r.capacity()',
  'ByteBuffer flip()': '$r.flip()',
  'ByteBuffer rewind()': '$r.rewind()',
  'ByteBuffer clear()': '$r.clear()',
  'byte get()': '$r.get()',
  'byte get(int)': '$r.get($0)',
  'ByteBuffer get(byte[])': '$r.getBytes($0)',
  'short getShort()': '$r.getShort()',
  'short getShort(int)': '$r.getShort($0)',
  'char getChar()': '$r.getChar()',
  'char getChar(int)': '$r.getChar($0)',
  'int getInt()': '$r.getInt()',
  'int getInt(int)': '$r.getInt($0)',
  'long getLong()': '$r.getLong()',
  'long getLong(int)': '$r.getLong($0)',
  'float getFloat()': '$r.getFloat()',
  'float getFloat(int)': '$r.getFloat($0)',
  'double getDouble()': '$r.getDouble()',
  'double getDouble(int)': '$r.getDouble($0)',
  'ByteBuffer put(byte)': '$r.put($0)',
  'ByteBuffer put(int, byte)': '$r.put($1, $0)',
  'ByteBuffer put(byte[])': '$r.putBytes($0)',
  'ByteBuffer put(ByteBuffer)': '$r.putBuffer($0)',
  'ByteBuffer putShort(short)': '$r.putShort($0)',
  'ByteBuffer putShort(int, short)': '$r.putShort($1, $0)',
  'ByteBuffer putInt(int)': '$r.putInt($0)',
  'ByteBuffer putInt(int, int)': '$r.putInt($1, $0)',
  'ByteBuffer putLong(long)': '$r.putLong($0)',
  'ByteBuffer putLong(int, long)': '$r.putLong($1, $0)',
  'ByteBuffer putFloat(float)': '$r.putFloat($0)',
  'ByteBuffer putFloat(int, float)': '$r.putFloat($1, $0)',
  'ByteBuffer putDouble(double)': '$r.putDouble($0)',
  'ByteBuffer putDouble(int, double)': '$r.putDouble($1, $0)',
  'byte[] array()': '$r.array()',
  'int arrayOffset()': '$r.arrayOffset()',
  'boolean hasArray()': '$r.hasArray()',
  'ByteBuffer duplicate()': '$r.duplicate()',
  'ByteBuffer slice()': '$r.slice()',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'int compareTo(ByteBuffer)': '$r.compareTo($0)',
  'String toString()': '$r.toString()',
});

const BIGINT = defineClass('BigInteger', 'java.math.BigInteger', {
  imported: false,
  supers: ['Number', 'Comparable<BigInteger>'],
  test: instanceOf('$jv.BigInteger'),
});
members(BIGINT, {
  'new(String)': '$jv.bigIntegerOf($0)',
  'new(String, int)': '$jv.bigIntegerOf($0, $1)',
  'static BigInteger valueOf(long)': 'new $jv.BigInteger($0)',
  'BigInteger add(BigInteger)': '$r.add($0)',
  'BigInteger subtract(BigInteger)': '$r.subtract($0)',
  'BigInteger multiply(BigInteger)': '$r.multiply($0)',
  'BigInteger divide(BigInteger)': '$r.divide($0)',
  'BigInteger remainder(BigInteger)': '$r.remainder($0)',
  'BigInteger mod(BigInteger)': '$r.mod($0)',
  'BigInteger pow(int)': '$r.pow($0)',
  'BigInteger negate()': '$r.negate()',
  'BigInteger abs()': '$r.abs()',
  'int signum()': '$r.signum()',
  'BigInteger gcd(BigInteger)': '$r.gcd($0)',
  'BigInteger min(BigInteger)': '$r.min($0)',
  'BigInteger max(BigInteger)': '$r.max($0)',
  'BigInteger sqrt()': '$r.sqrt()',
  'BigInteger shiftLeft(int)': '$r.shiftLeft($0)',
  'BigInteger shiftRight(int)': '$r.shiftRight($0)',
  'BigInteger and(BigInteger)': '$r.and($0)',
  'BigInteger or(BigInteger)': '$r.or($0)',
  'BigInteger xor(BigInteger)': '$r.xor($0)',
  'BigInteger not()': '$r.not()',
  'boolean testBit(int)': '$r.testBit($0)',
  'int bitLength()': '$r.bitLength()',
  'int intValue()': '$r.intValue()',
  'long longValue()': '$r.longValue()',
  'double doubleValue()': '$r.doubleValue()',
  'float floatValue()': 'Math.fround($r.doubleValue())',
  'int intValueExact()': '$r.intValueExact()',
  'long longValueExact()': '$r.longValueExact()',
  'int compareTo(BigInteger)': '$r.compareTo($0)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
  'String toString(int)': '$r.toString($0)',
});
fields(BIGINT, {
  ZERO: ['BigInteger', 'new $jv.BigInteger(0n)'],
  ONE: ['BigInteger', 'new $jv.BigInteger(1n)'],
  TWO: ['BigInteger', 'new $jv.BigInteger(2n)'],
  TEN: ['BigInteger', 'new $jv.BigInteger(10n)'],
});

const ROUNDING = defineClass('RoundingMode', 'java.math.RoundingMode', {
  imported: false,
  test: (js) => `(typeof ${js} === "string")`,
});
fields(
  ROUNDING,
  Object.fromEntries(
    ['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN', 'UNNECESSARY'].map((m) => [
      m,
      ['RoundingMode', JSON.stringify(m)] as [string, string],
    ]),
  ),
);
members(ROUNDING, { 'String toString()': '$r', 'String name()': '$r' });

const BIGDEC = defineClass('BigDecimal', 'java.math.BigDecimal', {
  imported: false,
  supers: ['Number', 'Comparable<BigDecimal>'],
  test: instanceOf('$jv.BigDecimal'),
});
members(BIGDEC, {
  'new(String)': '$jv.bigDecimalOf($0)',
  'new(int)': 'new $jv.BigDecimal(BigInt($0), 0)',
  'new(long)': 'new $jv.BigDecimal($0, 0)',
  'new(double)': '$jv.bigDecimalOfDouble($0)',
  'new(BigInteger)': 'new $jv.BigDecimal($jl.nn($0).v, 0)',
  'new(BigInteger, int)': 'new $jv.BigDecimal($jl.nn($0).v, $1)',
  'static BigDecimal valueOf(long)': 'new $jv.BigDecimal($0, 0)',
  'static BigDecimal valueOf(long, int)': 'new $jv.BigDecimal($0, $1)',
  'static BigDecimal valueOf(double)': '$jv.bigDecimalValueOf($0)',
  'BigDecimal add(BigDecimal)': '$r.add($0)',
  'BigDecimal subtract(BigDecimal)': '$r.subtract($0)',
  'BigDecimal multiply(BigDecimal)': '$r.multiply($0)',
  'BigDecimal divide(BigDecimal)': '$r.divide($0)',
  'BigDecimal divide(BigDecimal, RoundingMode)': '$r.divide($0, $jl.nn($1))',
  'BigDecimal divide(BigDecimal, int, RoundingMode)': '$r.divide($0, $1, $jl.nn($2))',
  'BigDecimal remainder(BigDecimal)': '$r.remainder($0)',
  'BigDecimal setScale(int)': '$r.setScale($0)',
  'BigDecimal setScale(int, RoundingMode)': '$r.setScale($0, $jl.nn($1))',
  'BigDecimal negate()': '$r.negate()',
  'BigDecimal abs()': '$r.abs()',
  'BigDecimal pow(int)': '$r.pow($0)',
  'BigDecimal min(BigDecimal)': '$r.min($0)',
  'BigDecimal max(BigDecimal)': '$r.max($0)',
  'BigDecimal stripTrailingZeros()': '$r.stripTrailingZeros()',
  'BigDecimal movePointLeft(int)': '$r.movePointLeft($0)',
  'BigDecimal movePointRight(int)': '$r.movePointRight($0)',
  'int signum()': '$r.signum()',
  'int scale()': '$r.scale()',
  'int precision()': '$r.precision()',
  'BigInteger unscaledValue()': '$r.unscaledValue()',
  'BigInteger toBigInteger()': '$r.toBigInteger()',
  'int intValue()': '$r.intValue()',
  'long longValue()': '$r.longValue()',
  'double doubleValue()': '$r.doubleValue()',
  'float floatValue()': 'Math.fround($r.doubleValue())',
  'int compareTo(BigDecimal)': '$r.compareTo($0)',
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
  'String toPlainString()': '$r.toPlainString()',
});
fields(BIGDEC, {
  ZERO: ['BigDecimal', 'new $jv.BigDecimal(0n, 0)'],
  ONE: ['BigDecimal', 'new $jv.BigDecimal(1n, 0)'],
  TEN: ['BigDecimal', 'new $jv.BigDecimal(10n, 0)'],
});

// ---- TupleValue / UDTValue ----

/** Getters and setters over a field key (`int` for tuples; `int` or `String` for UDTs). */
function dataAccessors(self: string, key: string): Record<string, Emit> {
  const g = (ret: string, name: string, cls: string, dflt = 'null'): [string, Emit] => [
    `${ret} ${name}(${key})`,
    `$r.get($0, "${cls}", ${dflt})`,
  ];
  const unboxGet = (ret: string, name: string, cls: string, dflt: string): [string, Emit] => [
    `${ret} ${name}(${key})`,
    `$jl.unboxOr($r.get($0, "${cls}", null), ${dflt})`,
  ];
  const s = (name: string, param: string, cls: string, wrap = (x: string) => x): [string, Emit] => [
    `${self} ${name}(${key}, ${param})`,
    `$r.set($0, "${cls}", ${wrap('$1')})`,
  ];
  return Object.fromEntries([
    g('boolean', 'getBool', 'java.lang.Boolean', 'false'),
    unboxGet('byte', 'getByte', 'java.lang.Byte', '0'),
    unboxGet('short', 'getShort', 'java.lang.Short', '0'),
    g('int', 'getInt', 'java.lang.Integer', '0'),
    g('long', 'getLong', 'java.lang.Long', '0n'),
    unboxGet('float', 'getFloat', 'java.lang.Float', '0'),
    unboxGet('double', 'getDouble', 'java.lang.Double', '0'),
    g('Date', 'getTimestamp', 'java.util.Date'),
    g(`${TYPES}.LocalDate`, 'getDate', `${TYPES}.LocalDate`),
    g('long', 'getTime', 'java.lang.Long', '0n'),
    g('ByteBuffer', 'getBytes', 'java.nio.ByteBuffer'),
    g('String', 'getString', 'java.lang.String'),
    g('java.math.BigInteger', 'getVarint', 'java.math.BigInteger'),
    g('java.math.BigDecimal', 'getDecimal', 'java.math.BigDecimal'),
    g('UUID', 'getUUID', 'java.util.UUID'),
    g('java.net.InetAddress', 'getInet', 'java.net.InetAddress'),
    g(`${TYPES}.Duration`, 'getDuration', `${TYPES}.Duration`),
    g('UDTValue', 'getUDTValue', `${TYPES}.UDTValue`),
    g('TupleValue', 'getTupleValue', `${TYPES}.TupleValue`),
    [`Object getObject(${key})`, '$r.getObject($0)'],
    [`ByteBuffer getBytesUnsafe(${key})`, '$r.getBytesUnsafe($0)'],
    [`boolean isNull(${key})`, '$r.isNull($0)'],
    [`<T> List<T> getList(${key}, Class<T>)`, '$r.getCollection($0, "list", $1)'],
    [`<T> Set<T> getSet(${key}, Class<T>)`, '$r.getCollection($0, "set", $1)'],
    [`<K,V> Map<K,V> getMap(${key}, Class<K>, Class<V>)`, '$r.getCollection($0, "map", $1, $2)'],
    [`<T> T get(${key}, Class<T>)`, '$r.get($0, $1, null)'],
    s('setBool', 'boolean', 'java.lang.Boolean'),
    s('setByte', 'byte', 'java.lang.Byte', (x) => `$jl.B(${x})`),
    s('setShort', 'short', 'java.lang.Short', (x) => `$jl.S(${x})`),
    s('setInt', 'int', 'java.lang.Integer'),
    s('setLong', 'long', 'java.lang.Long'),
    s('setFloat', 'float', 'java.lang.Float', (x) => `$jl.F(${x})`),
    s('setDouble', 'double', 'java.lang.Double', (x) => `$jl.D(${x})`),
    s('setTimestamp', 'Date', 'java.util.Date'),
    s('setDate', `${TYPES}.LocalDate`, `${TYPES}.LocalDate`),
    s('setTime', 'long', 'java.lang.Long'),
    s('setBytes', 'ByteBuffer', 'java.nio.ByteBuffer'),
    s('setString', 'String', 'java.lang.String'),
    s('setVarint', 'java.math.BigInteger', 'java.math.BigInteger'),
    s('setDecimal', 'java.math.BigDecimal', 'java.math.BigDecimal'),
    s('setUUID', 'UUID', 'java.util.UUID'),
    s('setInet', 'java.net.InetAddress', 'java.net.InetAddress'),
    s('setDuration', `${TYPES}.Duration`, `${TYPES}.Duration`),
    s('setUDTValue', 'UDTValue', `${TYPES}.UDTValue`),
    s('setTupleValue', 'TupleValue', `${TYPES}.TupleValue`),
    [`<E> ${self} setList(${key}, List<E>)`, '$r.setCollection($0, "list", $1)'],
    [`<E> ${self} setSet(${key}, Set<E>)`, '$r.setCollection($0, "set", $1)'],
    [`<K,V> ${self} setMap(${key}, Map<K,V>)`, '$r.setCollection($0, "map", $1)'],
    [`${self} setToNull(${key})`, '$r.setToNull($0)'],
    [`${self} setBytesUnsafe(${key}, ByteBuffer)`, '$r.setBytesUnsafe($0, $1)'],
  ]);
}

const isTuple = (js: string) => `(${js} instanceof $jt.TupleValue && !${js}.udt)`;
const isUdt = (js: string) => `(${js} instanceof $jt.TupleValue && ${js}.udt)`;
const TUPLE = defineClass('TupleValue', `${TYPES}.TupleValue`, { imported: true, test: isTuple });
members(TUPLE, {
  ...dataAccessors('TupleValue', 'int'),
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});
const UDT = defineClass('UDTValue', `${TYPES}.UDTValue`, { imported: true, test: isUdt });
members(UDT, {
  ...dataAccessors('UDTValue', 'int'),
  ...dataAccessors('UDTValue', 'String'),
  'boolean equals(Object)': '$r.equals($0)',
  'int hashCode()': '$r.hashCode()',
  'String toString()': '$r.toString()',
});

// ---- udfContext ----

/** The argument's CQL type by literal name or index, resolved at compile time. */
function argType(ctx: EmitContext, arg: string, byName: boolean): CqlType | string {
  if (byName) {
    const name = ctx.literal(0);
    if (name === undefined)
      return ctx.problem('The argument name given to udfContext must be a string literal in Java UDFs');
    const i = ctx.argNames.indexOf(name);
    if (i < 0)
      return `$jl.fail("IllegalArgumentException", ${JSON.stringify(`Function does not declare an argument named '${name}'`)})`;
    return ctx.argTypes[i]!;
  }
  const n = /^\(?(-?\d+)\)?$/.exec(arg);
  if (!n) return ctx.problem('The argument index given to udfContext must be an int literal in Java UDFs');
  const i = Number(n[1]);
  if (i < 0 || i >= ctx.argTypes.length)
    return `$jl.fail("IllegalArgumentException", ${JSON.stringify(`Function does not declare an argument with index ${i}`)})`;
  return ctx.argTypes[i]!;
}

function newValue(what: 'udt' | 'tuple', t: CqlType | string, ctx: EmitContext): string {
  return typeof t === 'string' ? t : `$jt.newValue(${ctx.typeRef(t)}, "${what}")`;
}

const CONTEXT = defineClass('UDFContext', 'org.apache.cassandra.cql3.functions.UDFContext', { imported: false });
members(CONTEXT, {
  'UDTValue newArgUDTValue(String)': (_r, a, ctx) => newValue('udt', argType(ctx, a[0]!, true), ctx),
  'UDTValue newArgUDTValue(int)': (_r, a, ctx) => newValue('udt', argType(ctx, a[0]!, false), ctx),
  'UDTValue newReturnUDTValue()': (_r, _a, ctx) => newValue('udt', ctx.returnType, ctx),
  'UDTValue newUDTValue(String)': (_r, _a, ctx) => {
    const name = ctx.literal(0);
    if (name === undefined)
      return ctx.problem('The type name given to udfContext.newUDTValue must be a string literal in Java UDFs');
    const t = ctx.userType(name);
    if (!t)
      return `$jl.fail("IllegalArgumentException", ${JSON.stringify(`No UDT named ${name} in keyspace ${ctx.keyspace}`)})`;
    return newValue('udt', t, ctx);
  },
  'TupleValue newArgTupleValue(String)': (_r, a, ctx) => newValue('tuple', argType(ctx, a[0]!, true), ctx),
  'TupleValue newArgTupleValue(int)': (_r, a, ctx) => newValue('tuple', argType(ctx, a[0]!, false), ctx),
  'TupleValue newReturnTupleValue()': (_r, _a, ctx) => newValue('tuple', ctx.returnType, ctx),
  'TupleValue newTupleValue(String)': (_r, _a, ctx) => {
    const text = ctx.literal(0);
    if (text === undefined)
      return ctx.problem('The type given to udfContext.newTupleValue must be a string literal in Java UDFs');
    const t = ctx.parseTupleType(text);
    if (!t) return `$jl.fail("IllegalStateException", ${JSON.stringify(`Invalid type definition: ${text}`)})`;
    return newValue('tuple', t, ctx);
  },
});

export const VALUE_CLASSES_LOADED = true;
