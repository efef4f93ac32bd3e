// Validation of serialized values (bound values, stored values) with Cassandra's MarshalException messages,
// which Cassandra reports to clients as InvalidRequest.
import { isUtf8 } from 'node:buffer';
import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from './cql-type.js';
import { durationFromBytes } from './duration.js';
import { fixedValueLength } from './serialized-layout.js';
import { readUnsignedVIntNumber } from './vint.js';

function fail(message: string): never {
  throw new InvalidRequest(message);
}

/** Throws InvalidRequest if `bytes` is not a valid serialized value of type `t`. */
export function validateValue(t: CqlType, bytes: Uint8Array): void {
  const n = bytes.length;
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'int':
          if (n !== 4 && n !== 0) fail(`Expected 4 or 0 byte int (${n})`);
          return;
        case 'bigint':
        case 'counter':
          if (n !== 8 && n !== 0) fail(`Expected 8 or 0 byte long (${n})`);
          return;
        case 'smallint':
          if (n !== 2) fail(`Expected 2 bytes for a smallint (${n})`);
          return;
        case 'tinyint':
          if (n !== 1) fail(`Expected 1 byte for a tinyint (${n})`);
          return;
        case 'float':
          if (n !== 4 && n !== 0) fail(`Expected 4 or 0 byte value for a float (${n})`);
          return;
        case 'double':
          if (n !== 8 && n !== 0) fail(`Expected 8 or 0 byte value for a double (${n})`);
          return;
        case 'boolean':
          if (n !== 1 && n !== 0) fail(`Expected 1 or 0 byte value (${n})`);
          return;
        case 'timestamp':
          if (n !== 8 && n !== 0) fail(`Expected 8 or 0 byte long for date (${n})`);
          return;
        case 'date':
          if (n !== 4) fail(`Expected 4 byte long for date (${n})`);
          return;
        case 'time':
          if (n !== 8) fail(`Expected 8 byte long for time (${n})`);
          return;
        case 'uuid':
          if (n !== 16 && n !== 0) fail(`UUID should be 16 or 0 bytes (${n})`);
          return;
        case 'timeuuid':
          if (n !== 16 && n !== 0) fail(`UUID should be 16 or 0 bytes (${n})`);
          if (n === 16 && (bytes[6]! & 0xf0) !== 0x10) fail('Invalid version for TimeUUID type.');
          return;
        case 'inet':
          if (n !== 0 && n !== 4 && n !== 16)
            fail(`Expected 4 or 16 byte inetaddress; got ${Buffer.from(bytes).toString('hex')}`);
          return;
        case 'decimal':
          if (n !== 0 && n < 4) fail(`Expected 0 or at least 4 bytes (${n})`);
          return;
        case 'ascii':
          for (let i = 0; i < n; i++) {
            const b = bytes[i]!;
            if (b > 127) fail(`Invalid byte for ascii: ${b - 256}`);
          }
          return;
        case 'text':
          if (!isUtf8(bytes) && !cassandraUtf8(bytes)) fail("String didn't validate.");
          return;
        case 'duration':
          validateDuration(bytes);
          return;
        case 'blob':
        case 'varint':
          return;
      }
      return;
    case 'list':
    case 'set':
      validateCollection(t.kind, bytes, t.element, undefined);
      return;
    case 'map':
      validateCollection('map', bytes, t.key, t.value);
      return;
    case 'tuple':
    case 'udt':
      validateTuple(bytes, t);
      return;
    case 'vector':
      validateVector(t, bytes);
      return;
    case 'custom':
      return;
  }
}

function validateDuration(b: Uint8Array): void {
  if (b.length < 3) fail(`Expected at least 3 bytes for a duration (${b.length})`);
  const d = durationFromBytes(b);
  if (!d) fail(`Expected at least 3 bytes for a duration (${b.length})`);
  const isInt = (x: bigint) => x === BigInt.asIntN(32, x);
  if (!isInt(d.months)) fail(`The duration months must be a 32 bits integer but was: ${d.months}`);
  if (!isInt(d.days)) fail(`The duration days must be a 32 bits integer but was: ${d.days}`);
  const { months, days, nanoseconds: ns } = d;
  if (!((months >= 0n && days >= 0n && ns >= 0n) || (months <= 0n && days <= 0n && ns <= 0n)))
    fail(`The duration months, days and nanoseconds must be all of the same sign (${months}, ${days}, ${ns})`);
}

function readInt(b: Uint8Array, o: number): number {
  return (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
}

function validateCollection(kind: string, b: Uint8Array, elem: CqlType, value: CqlType | undefined): void {
  const notEnough = `Not enough bytes to read a ${kind}`;
  // Cassandra treats an empty buffer as an empty (null) collection.
  if (b.length === 0) return;
  if (b.length < 4) fail(notEnough);
  const count = readInt(b, 0);
  let o = 4;
  const per = value ? 2 : 1;
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < per; j++) {
      if (o + 4 > b.length) fail(notEnough);
      const len = readInt(b, o);
      o += 4;
      if (len < 0) fail('null is not supported inside collections');
      if (o + len > b.length) fail(notEnough);
      validateValue(j === 0 ? elem : value!, b.subarray(o, o + len));
      o += len;
    }
  }
  if (o !== b.length) fail(`Unexpected extraneous bytes after ${kind} value`);
}

function validateTuple(b: Uint8Array, t: CqlType & { kind: 'tuple' | 'udt' }): void {
  const fields = t.kind === 'tuple' ? t.elements.length : t.fields.length;
  let o = 0;
  for (let i = 0; i < fields; i++) {
    // Fewer fields than declared are allowed (fields added to a type later).
    if (o === b.length) return;
    if (b.length - o < 4) fail(`Not enough bytes to read size of ${i}th component`);
    const len = readInt(b, o);
    o += 4;
    if (len < 0) continue;
    if (b.length - o < len) fail(`Not enough bytes to read ${i}th component`);
    validateValue(t.kind === 'tuple' ? t.elements[i]! : t.fields[i]!.type, b.subarray(o, o + len));
    o += len;
  }
  if (o !== b.length) fail('Invalid remaining data after end of tuple value');
}

function validateVector(t: CqlType & { kind: 'vector' }, b: Uint8Array): void {
  const name = cqlTypeToString(t);
  const fixed = fixedValueLength(t.element);
  let o = 0;
  for (let i = 0; i < t.dimension; i++) {
    let len = fixed;
    if (fixed < 0) {
      const r = readUnsignedVIntNumber(b, o);
      if (!r) fail(`Not enough bytes to read a ${name}`);
      len = r[0];
      o = r[1];
    }
    if (o + len > b.length) fail(`Not enough bytes to read a ${name}`);
    validateValue(t.element, b.subarray(o, o + len));
    o += len;
  }
  if (o !== b.length) fail(`Unexpected ${b.length - o} extraneous bytes after ${name} value`);
}

/**
 * Cassandra's UTF8Validator, which is laxer than strict UTF-8 (it takes modified-UTF-8 NUL C0 80, surrogates and
 * F5-F7 lead bytes). Only consulted when the strict check failed.
 */
function cassandraUtf8(b: Uint8Array): boolean {
  let state = 0; // 0 start, 1 two, 2 two_80, 3 three_a0bf, 4 three_80bf_1, 5 three_80bf_2, 6 four_90bf, 7 four_80bf_3
  for (let i = 0; i < b.length; i++) {
    const u = b[i]!;
    const s = (u << 24) >> 24;
    switch (state) {
      case 0:
        if (s >= 0) break;
        if (s >> 5 === -2) {
          if (u === 0xc0) state = 2;
          else if ((u & 0x1e) === 0) return false;
          else state = 1;
        } else if (s >> 4 === -2) state = u === 0xe0 ? 3 : 5;
        else if (s >> 3 === -2) state = u === 0xf0 ? 6 : 7;
        else return false;
        break;
      case 1:
        if ((u & 0xc0) !== 0x80) return false;
        state = 0;
        break;
      case 2:
        if (u !== 0x80) return false;
        state = 0;
        break;
      case 3:
        if ((u & 0xe0) === 0x80) return false;
        state = 4;
        break;
      case 4:
        if ((u & 0xc0) !== 0x80) return false;
        state = 0;
        break;
      case 5:
        if ((u & 0xc0) !== 0x80) return false;
        state = 4;
        break;
      case 6:
        if ((u & 0x30) === 0) return false;
        state = 5;
        break;
      case 7:
        if ((u & 0xc0) !== 0x80) return false;
        state = 5;
        break;
    }
  }
  return state === 0;
}
