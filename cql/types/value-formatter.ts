// Values as CQL literal text (AbstractType.toCQLLiteral, used by DESCRIBE and messages) and Cassandra's plain
// toString of native values (shared with json-codec.ts).
import type { CqlType } from './cql-type.js';
import { decimalFromBytes, decimalToString } from './decimal-text.js';
import { durationFromBytes, formatDuration } from './duration.js';
import { inetToText } from './inet-text.js';
import { javaFloatingToString } from './java-number-text.js';
import { readCollectionElements, readMapEntries, readTupleFields, readVectorElements } from './serialized-layout.js';
import { formatDate, formatTime, formatTimestamp } from './temporal.js';
import { uuidToText } from './uuid-text.js';
import { bigintFromTwosComplement } from './varint-bytes.js';

function buf(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
}

/** Cassandra's TypeSerializer.toString of a non-empty native value (timestamps in the CQL/UTC form). */
export function nativeToText(name: string, v: Uint8Array, timestampSep: 'T' | ' ' = 'T'): string {
  const b = buf(v);
  switch (name) {
    case 'ascii':
    case 'text':
      return b.toString(name === 'ascii' ? 'latin1' : 'utf8');
    case 'int':
      return String(b.readInt32BE(0));
    case 'bigint':
    case 'counter':
      return String(b.readBigInt64BE(0));
    case 'smallint':
      return String(b.readInt16BE(0));
    case 'tinyint':
      return String(b.readInt8(0));
    case 'varint':
      return String(bigintFromTwosComplement(b));
    case 'decimal':
      // DecimalSerializer.toString: BigDecimal.toString (1E+1000, 1.5E-7, 123.45).
      return decimalToString(decimalFromBytes(b));
    case 'float':
      return javaFloatingToString(b.readFloatBE(0), true);
    case 'double':
      return javaFloatingToString(b.readDoubleBE(0), false);
    case 'boolean':
      return b[0] === 0 ? 'false' : 'true';
    case 'blob':
      return `0x${b.toString('hex')}`;
    case 'uuid':
    case 'timeuuid':
      return uuidToText(b);
    case 'inet':
      return inetToText(b);
    case 'timestamp':
      return formatTimestamp(b.readBigInt64BE(0), timestampSep);
    case 'date':
      return formatDate(b.readUInt32BE(0));
    case 'time':
      return formatTime(b.readBigInt64BE(0));
    case 'duration': {
      const d = durationFromBytes(b)!;
      return formatDuration({ months: Number(d.months), days: Number(d.days), nanoseconds: d.nanoseconds });
    }
  }
  return `0x${b.toString('hex')}`;
}

const QUOTED = new Set(['ascii', 'text', 'inet', 'timestamp', 'date', 'time']);

function quote(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A field name as CQL needs it written: quoted unless a plain lower-case identifier. */
export function cqlIdentifier(name: string): string {
  return /^[a-z][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** The CQL literal for a value; 'null' for an empty value of a type where empty means nothing. */
export function formatValue(t: CqlType, v: Uint8Array): string {
  if (v.length === 0) {
    if (t.kind === 'native') {
      if (t.name === 'text' || t.name === 'ascii') return "''";
      if (t.name === 'blob') return '0x';
    }
    return 'null';
  }
  switch (t.kind) {
    case 'native': {
      if (t.name === 'duration') return nativeToText('duration', v) || '0s';
      const s = nativeToText(t.name, v);
      return QUOTED.has(t.name) ? quote(s) : s;
    }
    case 'list':
      return `[${readCollectionElements(buf(v))
        .map((e) => formatValue(t.element, e))
        .join(', ')}]`;
    case 'set':
      return `{${readCollectionElements(buf(v))
        .map((e) => formatValue(t.element, e))
        .join(', ')}}`;
    case 'map':
      return `{${readMapEntries(buf(v))
        .map(([k, x]) => `${formatValue(t.key, k)}: ${formatValue(t.value, x)}`)
        .join(', ')}}`;
    case 'tuple': {
      const fields = readTupleFields(buf(v));
      return `(${t.elements.map((et, i) => (fields[i] == null ? 'null' : formatValue(et, fields[i]!))).join(', ')})`;
    }
    case 'udt': {
      const fields = readTupleFields(buf(v));
      return `{${t.fields
        .map((f, i) => `${cqlIdentifier(f.name)}: ${fields[i] == null ? 'null' : formatValue(f.type, fields[i]!)}`)
        .join(', ')}}`;
    }
    case 'vector':
      return `[${readVectorElements(t, buf(v))
        .map((e) => formatValue(t.element, e))
        .join(', ')}]`;
    case 'custom':
      return `0x${buf(v).toString('hex')}`;
  }
}
