// CQL value bytes -> Arrow column data, one encoder per column, filled row by row into preallocated (growable)
// typed arrays and validity bitmaps: no per-value JS objects for fixed-width types, text and blobs are byte copies.
// The mapping is arrow-schema.ts's; values are assumed validated (they were, on the way in).
//
// Empty values (zero bytes, not null; CQL allows them for every type) have no Arrow form in fixed-width columns:
// they are stored as null and counted (`empties`), so a reader knows the column is not exact for them.

import {
  type Data,
  type DataType,
  type Field,
  type FixedSizeList,
  type List,
  type Map_,
  makeData,
  type Struct,
  type Struct as StructType,
} from 'apache-arrow';
import type { CqlType } from '../../cql/types/cql-type.js';
import { decimalFromBytes, decimalToString } from '../../cql/types/decimal-text.js';
import { durationFromBytes } from '../../cql/types/duration.js';
import {
  fixedValueLength,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
  readVectorElements,
} from '../../cql/types/serialized-layout.js';
import { bigintFromTwosComplement } from '../../cql/types/varint-bytes.js';
import { arrowTypeOf } from './arrow-schema.js';

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  // Arrow buffers are little-endian; the encoders write them with host-order typed arrays.
  throw new Error('the Arrow twin needs a little-endian host');
}

function grow<T extends Uint8Array | Int32Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let size = Math.max(16, a.length * 2);
  while (size < need) size *= 2;
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/** Validity bits of an encoder (bit set = value present), LSB first as Arrow wants. Starts all-valid, so a
 * present value costs nothing; a null clears its bit. */
class Validity {
  bits = new Uint8Array(0);
  nullCount = 0;

  set(i: number, valid: boolean): void {
    if (i >>> 3 >= this.bits.length) {
      const old = this.bits;
      this.bits = new Uint8Array(Math.max(16, old.length * 2, (i >>> 3) + 1)).fill(0xff);
      this.bits.set(old);
    }
    if (!valid) {
      this.bits[i >>> 3]! &= ~(1 << (i & 7));
      this.nullCount++;
    }
  }

  /** The bitmap, or null when nothing is null (Arrow's "all valid"); bits past `length` cleared. */
  bitmap(length: number): Uint8Array | null {
    if (this.nullCount === 0) return null;
    const out = this.bits.subarray(0, (length + 7) >>> 3);
    if (length & 7) out[out.length - 1]! &= (1 << (length & 7)) - 1;
    return out;
  }
}

export abstract class ColumnEncoder {
  length = 0;
  /** Non-null zero-length values stored as null (fixed-width types only). */
  empties = 0;
  protected readonly validity = new Validity();

  constructor(readonly type: DataType) {}

  get nullCount(): number {
    return this.validity.nullCount;
  }

  append(value: Uint8Array | null): void {
    const i = this.length++;
    if (value === null) {
      this.validity.set(i, false);
      this.put(i, null);
      return;
    }
    if (value.length === 0 && this.fixedWidth) {
      this.empties++;
      this.validity.set(i, false);
      this.put(i, null);
      return;
    }
    this.validity.set(i, true);
    this.put(i, value);
  }

  /** append(buf.subarray(start, end)), without making the view where the encoder can (the flush's hot path). */
  appendRange(buf: Uint8Array, start: number, end: number): void {
    if (end === start && this.fixedWidth) {
      this.append(EMPTY_VALUE);
      return;
    }
    const i = this.length++;
    this.validity.set(i, true);
    this.putRange(i, buf, start, end);
  }

  protected get fixedWidth(): boolean {
    return true;
  }

  /** Stores row i (null: a placeholder the validity bitmap hides). */
  protected abstract put(i: number, value: Uint8Array | null): void;

  protected putRange(i: number, buf: Uint8Array, start: number, end: number): void {
    this.put(i, buf.subarray(start, end));
  }
  abstract finish(): Data;
}

const EMPTY_VALUE = new Uint8Array(0);

/** Typed array views over one ArrayBuffer need its length to be a multiple of the widest element. */
function roundUp8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

enum Fixed {
  Int8,
  Int16,
  Int32,
  Int64,
  Date,
}

/** Big-endian fixed-width numbers (also float/double bit patterns, so NaN payloads survive) -> host order. */
class FixedEncoder extends ColumnEncoder {
  private readonly width: number;
  private buf: ArrayBuffer;
  private i8: Int8Array;
  private i16: Int16Array;
  private i32: Int32Array;

  constructor(
    type: DataType,
    private readonly kind: Fixed,
    capacity: number,
  ) {
    super(type);
    this.width = kind === Fixed.Int8 ? 1 : kind === Fixed.Int16 ? 2 : kind === Fixed.Int64 ? 8 : 4;
    this.buf = new ArrayBuffer(roundUp8(Math.max(8, capacity * this.width)));
    this.i8 = new Int8Array(this.buf);
    this.i16 = new Int16Array(this.buf);
    this.i32 = new Int32Array(this.buf);
  }

  private regrow(need: number): void {
    const next = new ArrayBuffer(roundUp8(Math.max(need, this.buf.byteLength * 2)));
    new Uint8Array(next).set(new Uint8Array(this.buf));
    this.buf = next;
    this.i8 = new Int8Array(next);
    this.i16 = new Int16Array(next);
    this.i32 = new Int32Array(next);
  }

  protected put(i: number, b: Uint8Array | null): void {
    if ((i + 1) * this.width > this.buf.byteLength) this.regrow((i + 1) * this.width);
    if (b !== null) this.putAt(i, b, 0); // null: zero-initialised
  }

  protected override putRange(i: number, buf: Uint8Array, start: number): void {
    if ((i + 1) * this.width > this.buf.byteLength) this.regrow((i + 1) * this.width);
    this.putAt(i, buf, start);
  }

  /** Row i from the big-endian value at b[o..]. */
  private putAt(i: number, b: Uint8Array, o: number): void {
    switch (this.kind) {
      case Fixed.Int32:
        this.i32[i] = (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
        return;
      case Fixed.Date: // unsigned days with the epoch at 2^31 -> signed days since the epoch: flip the top bit
        this.i32[i] = ((b[o]! ^ 0x80) << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
        return;
      case Fixed.Int64:
        this.i32[2 * i] = (b[o + 4]! << 24) | (b[o + 5]! << 16) | (b[o + 6]! << 8) | b[o + 7]!;
        this.i32[2 * i + 1] = (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
        return;
      case Fixed.Int16:
        this.i16[i] = (b[o]! << 8) | b[o + 1]!;
        return;
      case Fixed.Int8:
        this.i8[i] = b[o]!;
        return;
    }
  }

  finish(): Data {
    const Ctor = (this.type as { ArrayType: new (b: ArrayBuffer, o: number, n: number) => ArrayLike<unknown> })
      .ArrayType;
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      data: new Ctor(this.buf, 0, this.length),
    } as never);
  }
}

class BoolEncoder extends ColumnEncoder {
  private bits = new Uint8Array(0);

  protected put(i: number, b: Uint8Array | null): void {
    if ((i & 7) === 0) this.bits = grow(this.bits, (i >>> 3) + 1);
    if (b !== null && b[0] !== 0) this.bits[i >>> 3]! |= 1 << (i & 7);
  }

  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      data: this.bits.subarray(0, (this.length + 7) >>> 3),
    } as never);
  }
}

/** Utf8 / Binary: int32 offsets + bytes. `convert` turns a value's CQL bytes into the stored bytes. */
class VarBinaryEncoder extends ColumnEncoder {
  private offsets: Int32Array;
  private bytes: Uint8Array;
  private end = 0;

  constructor(
    type: DataType,
    capacity: number,
    private readonly convert: ((b: Uint8Array) => Uint8Array) | undefined,
  ) {
    super(type);
    this.offsets = new Int32Array(capacity + 1);
    // A guess of 8 bytes a value: every doubling leaves a dead buffer, and big dead buffers cost full GCs.
    this.bytes = new Uint8Array(Math.max(1024, capacity * 8));
  }

  protected override get fixedWidth(): boolean {
    return false;
  }

  protected put(i: number, b: Uint8Array | null): void {
    if (i + 2 > this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    if (b !== null) {
      const v = this.convert ? this.convert(b) : b;
      if (this.end + v.length > this.bytes.length) this.bytes = grow(this.bytes, this.end + v.length);
      this.bytes.set(v, this.end);
      this.end += v.length;
    }
    this.offsets[i + 1] = this.end;
  }

  protected override putRange(i: number, buf: Uint8Array, start: number, end: number): void {
    if (this.convert) {
      this.put(i, buf.subarray(start, end));
      return;
    }
    if (i + 2 > this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    const n = end - start;
    if (this.end + n > this.bytes.length) this.bytes = grow(this.bytes, this.end + n);
    const out = this.bytes;
    const at = this.end;
    // A loop beats TypedArray.set (a builtin call and a view) for short values.
    if (n <= 32) for (let k = 0; k < n; k++) out[at + k] = buf[start + k]!;
    else out.set(buf.subarray(start, end), at);
    this.end = at + n;
    this.offsets[i + 1] = this.end;
  }

  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      data: this.bytes.subarray(0, this.end),
    } as never);
  }
}

/** uuid / timeuuid: 16 bytes as they are (big-endian, so byte order = the UUID's text order). */
class FixedBinaryEncoder extends ColumnEncoder {
  private bytes: Uint8Array;

  constructor(
    type: DataType,
    private readonly width: number,
    capacity: number,
  ) {
    super(type);
    this.bytes = new Uint8Array(capacity * width);
  }

  protected put(i: number, b: Uint8Array | null): void {
    this.bytes = grow(this.bytes, (i + 1) * this.width);
    if (b !== null) this.bytes.set(b.subarray(0, this.width), i * this.width);
  }

  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      data: this.bytes.subarray(0, this.length * this.width),
    } as never);
  }
}

const INT32_MIN = -2147483648n;
const INT32_MAX = 2147483647n;

/** duration: three zig-zag vints -> Arrow's month-day-nano interval (int32 months, int32 days, int64 nanos). */
class DurationEncoder extends ColumnEncoder {
  private words: Int32Array;

  constructor(type: DataType, capacity: number) {
    super(type);
    this.words = new Int32Array(capacity * 4);
  }

  protected put(i: number, b: Uint8Array | null): void {
    this.words = grow(this.words, (i + 1) * 4);
    if (b === null) return;
    const d = durationFromBytes(b);
    if (!d || d.months < INT32_MIN || d.months > INT32_MAX || d.days < INT32_MIN || d.days > INT32_MAX) {
      throw new Error('invalid duration value');
    }
    const w = this.words;
    w[4 * i] = Number(d.months);
    w[4 * i + 1] = Number(d.days);
    const n = BigInt.asUintN(64, d.nanoseconds);
    w[4 * i + 2] = Number(n & 0xffffffffn) | 0;
    w[4 * i + 3] = Number(n >> 32n) | 0;
  }

  finish(): Data {
    return makeData({
      type: this.type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      data: this.words.subarray(0, this.length * 4),
    } as never);
  }
}

/** list / set: int32 offsets over one child column of all elements. */
class ListEncoder extends ColumnEncoder {
  private offsets: Int32Array;

  constructor(
    type: DataType,
    private readonly child: ColumnEncoder,
    capacity: number,
  ) {
    super(type);
    this.offsets = new Int32Array(capacity + 1);
  }

  protected override get fixedWidth(): boolean {
    return false;
  }

  protected put(i: number, b: Uint8Array | null): void {
    if (i + 2 > this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    if (b !== null) for (const e of readCollectionElements(asBuffer(b))) this.child.append(e);
    this.offsets[i + 1] = this.child.length;
  }

  finish(): Data {
    return makeData({
      type: this.type as List,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      child: this.child.finish(),
    });
  }
}

/** map: int32 offsets over a struct of (key, value) columns, entries in the value's (sorted) order. */
class MapEncoder extends ColumnEncoder {
  private offsets: Int32Array;
  private entries = 0;

  constructor(
    type: DataType,
    private readonly keys: ColumnEncoder,
    private readonly values: ColumnEncoder,
    capacity: number,
  ) {
    super(type);
    this.offsets = new Int32Array(capacity + 1);
  }

  protected override get fixedWidth(): boolean {
    return false;
  }

  protected put(i: number, b: Uint8Array | null): void {
    if (i + 2 > this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    if (b !== null) {
      for (const [k, v] of readMapEntries(asBuffer(b))) {
        this.keys.append(k);
        this.values.append(v);
        this.entries++;
      }
    }
    this.offsets[i + 1] = this.entries;
  }

  finish(): Data {
    const type = this.type as Map_;
    const entriesType = type.children[0]!.type as StructType;
    const entries = makeData({
      type: entriesType,
      length: this.entries,
      nullCount: 0,
      children: [this.keys.finish(), this.values.finish()],
    });
    return makeData({
      type,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      child: entries,
    });
  }
}

/** tuple / UDT: one child per field; fields missing at the end of a value are null. */
class StructEncoder extends ColumnEncoder {
  constructor(
    type: DataType,
    private readonly children: readonly ColumnEncoder[],
  ) {
    super(type);
  }

  protected override get fixedWidth(): boolean {
    return false;
  }

  protected put(_i: number, b: Uint8Array | null): void {
    const fields = b === null ? [] : readTupleFields(asBuffer(b));
    for (let f = 0; f < this.children.length; f++) this.children[f]!.append(fields[f] ?? null);
  }

  finish(): Data {
    return makeData({
      type: this.type as Struct,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      children: this.children.map((c) => c.finish()),
    });
  }
}

/** vector<T, n>: n child values per row (zeros behind a null row, as Arrow's fixed-size list requires). */
class VectorEncoder extends ColumnEncoder {
  constructor(
    type: DataType,
    private readonly cql: CqlType & { kind: 'vector' },
    private readonly child: ColumnEncoder,
  ) {
    super(type);
  }

  protected override get fixedWidth(): boolean {
    return fixedValueLength(this.cql) > 0;
  }

  protected put(_i: number, b: Uint8Array | null): void {
    if (b === null) {
      for (let k = 0; k < this.cql.dimension; k++) this.child.append(null);
      return;
    }
    for (const e of readVectorElements(this.cql, asBuffer(b))) this.child.append(e);
  }

  finish(): Data {
    return makeData({
      type: this.type as FixedSizeList,
      length: this.length,
      nullCount: this.nullCount,
      nullBitmap: this.validity.bitmap(this.length),
      child: this.child.finish(),
    });
  }
}

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
}

const encoder = new TextEncoder();

function decimalText(b: Uint8Array): Uint8Array {
  return encoder.encode(decimalToString(decimalFromBytes(b)));
}

function varintText(b: Uint8Array): Uint8Array {
  return encoder.encode(bigintFromTwosComplement(b).toString());
}

/** An encoder for a column of CQL type `t`, sized for `capacity` rows (it grows past that if needed). */
export function columnEncoder(t: CqlType, capacity: number, type: DataType = arrowTypeOf(t)): ColumnEncoder {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'tinyint':
          return new FixedEncoder(type, Fixed.Int8, capacity);
        case 'smallint':
          return new FixedEncoder(type, Fixed.Int16, capacity);
        case 'int':
        case 'float':
          return new FixedEncoder(type, Fixed.Int32, capacity);
        case 'date':
          return new FixedEncoder(type, Fixed.Date, capacity);
        case 'bigint':
        case 'counter':
        case 'double':
        case 'timestamp':
        case 'time':
          return new FixedEncoder(type, Fixed.Int64, capacity);
        case 'boolean':
          return new BoolEncoder(type);
        case 'uuid':
        case 'timeuuid':
          return new FixedBinaryEncoder(type, 16, capacity);
        case 'duration':
          return new DurationEncoder(type, capacity);
        case 'decimal':
          return new VarBinaryEncoder(type, capacity, decimalText);
        case 'varint':
          return new VarBinaryEncoder(type, capacity, varintText);
        default: // text, ascii, blob, inet
          return new VarBinaryEncoder(type, capacity, undefined);
      }
    case 'list':
    case 'set': {
      const item = (type as List).children[0] as Field;
      return new ListEncoder(type, columnEncoder(t.element, capacity, item.type), capacity);
    }
    case 'map': {
      const entries = (type as Map_).children[0]!.type as StructType;
      const [k, v] = entries.children as [Field, Field];
      return new MapEncoder(
        type,
        columnEncoder(t.key, capacity, k.type),
        columnEncoder(t.value, capacity, v.type),
        capacity,
      );
    }
    case 'tuple':
    case 'udt': {
      const fields = (type as Struct).children;
      const types = t.kind === 'tuple' ? t.elements : t.fields.map((f) => f.type);
      return new StructEncoder(
        type,
        types.map((ft, i) => columnEncoder(ft, capacity, fields[i]!.type)),
      );
    }
    case 'vector': {
      const item = (type as FixedSizeList).children[0]!;
      return new VectorEncoder(type, t, columnEncoder(t.element, capacity * t.dimension, item.type));
    }
    case 'custom':
      return new VarBinaryEncoder(type, capacity, undefined);
  }
}
