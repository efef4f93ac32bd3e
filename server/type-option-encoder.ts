// Writes a CqlType as a protocol [option] (column specs of RESULT metadata), per version:
// date/time/smallint/tinyint have ids from v4, duration from v5; before that, and for vector
// always, the type travels as a custom type named by its Cassandra marshal class.

import type { CqlType, NativeTypeName } from '../cql/types/cql-type.js';
import { marshalClassName } from '../cql/types/marshal-class-names.js';
import type { ByteWriter } from './byte-writer.js';

const NATIVE_IDS: Record<NativeTypeName, number> = {
  ascii: 0x0001,
  bigint: 0x0002,
  blob: 0x0003,
  boolean: 0x0004,
  counter: 0x0005,
  decimal: 0x0006,
  double: 0x0007,
  float: 0x0008,
  int: 0x0009,
  timestamp: 0x000b,
  uuid: 0x000c,
  text: 0x000d,
  varint: 0x000e,
  timeuuid: 0x000f,
  inet: 0x0010,
  date: 0x0011,
  time: 0x0012,
  smallint: 0x0013,
  tinyint: 0x0014,
  duration: 0x0015,
};

/** First protocol version with a dedicated option id; earlier ones get the custom form. */
const NATIVE_SINCE: Partial<Record<NativeTypeName, number>> = {
  date: 4,
  time: 4,
  smallint: 4,
  tinyint: 4,
  duration: 5,
};

const CUSTOM = 0x0000;
const LIST = 0x0020;
const MAP = 0x0021;
const SET = 0x0022;
const UDT = 0x0030;
const TUPLE = 0x0031;

export function writeTypeOption(w: ByteWriter, t: CqlType, version: number): void {
  switch (t.kind) {
    case 'native': {
      const since = NATIVE_SINCE[t.name];
      if (since !== undefined && version < since) {
        w.short(CUSTOM);
        w.string(marshalClassName(t));
      } else {
        w.short(NATIVE_IDS[t.name]);
      }
      return;
    }
    case 'list':
      w.short(LIST);
      writeTypeOption(w, t.element, version);
      return;
    case 'set':
      w.short(SET);
      writeTypeOption(w, t.element, version);
      return;
    case 'map':
      w.short(MAP);
      writeTypeOption(w, t.key, version);
      writeTypeOption(w, t.value, version);
      return;
    case 'tuple':
      w.short(TUPLE);
      w.short(t.elements.length);
      for (const e of t.elements) writeTypeOption(w, e, version);
      return;
    case 'udt':
      w.short(UDT);
      w.string(t.keyspace);
      w.string(t.name);
      w.short(t.fields.length);
      for (const f of t.fields) {
        w.string(f.name);
        writeTypeOption(w, f.type, version);
      }
      return;
    case 'vector':
    case 'custom':
      w.short(CUSTOM);
      w.string(marshalClassName(t));
      return;
  }
}
