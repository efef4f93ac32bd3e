// Values as JSON text, as SELECT JSON and toJson() print them (AbstractType.toJSONString).
import type { CqlType } from './cql-type.js';
import { readCollectionElements, readMapEntries, readTupleFields, readVectorElements } from './serialized-layout.js';
import { nativeToText } from './value-formatter.js';

function buf(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
}

const NUMERIC = new Set(['int', 'bigint', 'counter', 'smallint', 'tinyint', 'varint', 'decimal', 'float', 'double']);

/** JSON text of a value ('null' for an empty non-string value). */
export function toJsonValue(t: CqlType, v: Uint8Array): string {
  if (v.length === 0 && !(t.kind === 'native' && (t.name === 'text' || t.name === 'ascii' || t.name === 'blob')))
    return 'null';
  switch (t.kind) {
    case 'native': {
      if (t.name === 'boolean') return v[0] === 0 ? 'false' : 'true';
      const s = nativeToText(t.name, v, ' ');
      if (NUMERIC.has(t.name)) {
        // JSON has no NaN or infinities.
        return s === 'NaN' || s.endsWith('Infinity') ? 'null' : s;
      }
      return JSON.stringify(s);
    }
    case 'list':
    case 'set':
      return `[${readCollectionElements(buf(v))
        .map((e) => toJsonValue(t.element, e))
        .join(', ')}]`;
    case 'map':
      return `{${readMapEntries(buf(v))
        .map(([k, x]) => {
          const key = toJsonValue(t.key, k);
          return `${key.startsWith('"') ? key : JSON.stringify(key)}: ${toJsonValue(t.value, x)}`;
        })
        .join(', ')}}`;
    case 'tuple': {
      const fields = readTupleFields(buf(v));
      return `[${t.elements.map((et, i) => (fields[i] == null ? 'null' : toJsonValue(et, fields[i]!))).join(', ')}]`;
    }
    case 'udt': {
      const fields = readTupleFields(buf(v));
      return `{${t.fields
        .map((f, i) => {
          const name = f.name === f.name.toLowerCase() ? f.name : `"${f.name}"`;
          return `${JSON.stringify(name)}: ${fields[i] == null ? 'null' : toJsonValue(f.type, fields[i]!)}`;
        })
        .join(', ')}}`;
    }
    case 'vector':
      return `[${readVectorElements(t, buf(v))
        .map((e) => toJsonValue(t.element, e))
        .join(', ')}]`;
    case 'custom':
      return JSON.stringify(`0x${buf(v).toString('hex')}`);
  }
}
