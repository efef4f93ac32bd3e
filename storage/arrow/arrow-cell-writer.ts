// Writes row `i` of an Arrow column as one protocol `[bytes]` cell, in exactly the bytes cqlBytesAt returns, without
// making a Buffer per value: fixed-width types are byte-swapped from the typed array (host little-endian, CQL
// big-endian), text and blobs copied from the column's data buffer. Types with a costlier inverse (decimal, varint,
// duration, collections, tuples, UDTs, vectors) go through cqlBytesAt itself.

import type { Data } from 'apache-arrow';
import type { CqlType } from '../../cql/types/cql-type.js';
import { cqlBytesAt } from './cql-value-decoder.js';
import type { WireCells } from './wire-cells.js';

export type CellWriter = (out: WireCells, i: number) => void;

const writeNull: CellWriter = (out) => out.nullCell();

/** Byte copies shorter than this are done in a loop: a subarray view costs more than copying a short text. */
const SHORT_COPY = 48;

function bytesOf(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** Null check for row i (true = valid), or undefined when the column has no nulls. */
function validity(data: Data): ((i: number) => boolean) | undefined {
  const bitmap = data.nullBitmap;
  if (!bitmap || bitmap.length === 0 || data.nullCount === 0) return undefined;
  const base = data.offset;
  return (i) => {
    const j = base + i;
    return (bitmap[j >>> 3]! & (1 << (j & 7))) !== 0;
  };
}

function fixedWriter(data: Data, width: number, flipSign: boolean): CellWriter {
  const src = bytesOf(data.values as ArrayBufferView);
  const base = data.offset;
  // Values 4-byte aligned in memory (the usual case: IPC bodies are 8-aligned): read as host (little-endian) int32
  // words and store them big-endian through a DataView.
  if ((width === 8 || width === 4) && (src.byteOffset & 3) === 0) {
    const words = new Int32Array(src.buffer, src.byteOffset, src.byteLength >>> 2);
    if (width === 8) {
      return (out, i) => {
        out.ensure(12);
        const v = out.view;
        const p = out.pos;
        const s = (base + i) * 2;
        v.setInt32(p, 8);
        v.setInt32(p + 4, words[s + 1]!);
        v.setInt32(p + 8, words[s]!);
        out.pos = p + 12;
      };
    }
    const flip = flipSign ? 0x80000000 | 0 : 0;
    return (out, i) => {
      out.ensure(8);
      const v = out.view;
      const p = out.pos;
      v.setInt32(p, 4);
      v.setInt32(p + 4, words[base + i]! ^ flip);
      out.pos = p + 8;
    };
  }
  // Other widths, and values not 4-byte aligned: byte by byte.
  const sign = flipSign ? 0x80 : 0;
  return (out, i) => {
    out.ensure(4 + width);
    const b = out.buf;
    const p = out.pos;
    const s = (base + i) * width;
    b[p] = 0;
    b[p + 1] = 0;
    b[p + 2] = 0;
    b[p + 3] = width;
    for (let k = 0; k < width; k++) b[p + 4 + k] = src[s + width - 1 - k]!;
    b[p + 4] = b[p + 4]! ^ sign;
    out.pos = p + 4 + width;
  };
}

function variableWriter(data: Data): CellWriter {
  const offs = data.valueOffsets as Int32Array;
  const values = data.values as Uint8Array;
  const base = data.offset;
  return (out, i) => {
    const j = base + i;
    const a = offs[j]!;
    const n = offs[j + 1]! - a;
    out.ensure(4 + n);
    const b = out.buf;
    const p = out.pos;
    b.writeInt32BE(n, p);
    if (n < SHORT_COPY) for (let k = 0; k < n; k++) b[p + 4 + k] = values[a + k]!;
    else b.set(values.subarray(a, a + n), p + 4);
    out.pos = p + 4 + n;
  };
}

function uuidWriter(data: Data): CellWriter {
  const values = data.values as Uint8Array;
  const base = data.offset;
  return (out, i) => {
    out.ensure(20);
    const b = out.buf;
    const p = out.pos;
    const s = (base + i) * 16;
    b.writeInt32BE(16, p);
    for (let k = 0; k < 16; k++) b[p + 4 + k] = values[s + k]!;
    out.pos = p + 20;
  };
}

function booleanWriter(data: Data): CellWriter {
  const values = data.values as Uint8Array;
  const base = data.offset;
  return (out, i) => {
    const j = base + i;
    out.ensure(5);
    out.buf.writeInt32BE(1, out.pos);
    out.buf[out.pos + 4] = values[j >>> 3]! & (1 << (j & 7)) ? 1 : 0;
    out.pos += 5;
  };
}

function valueWriter(t: CqlType, data: Data): CellWriter {
  if (t.kind === 'native') {
    switch (t.name) {
      case 'tinyint':
        return fixedWriter(data, 1, false);
      case 'smallint':
        return fixedWriter(data, 2, false);
      case 'int':
      case 'float':
        return fixedWriter(data, 4, false);
      case 'date':
        return fixedWriter(data, 4, true);
      case 'bigint':
      case 'counter':
      case 'double':
      case 'timestamp':
      case 'time':
        return fixedWriter(data, 8, false);
      case 'boolean':
        return booleanWriter(data);
      case 'uuid':
      case 'timeuuid':
        return uuidWriter(data);
      case 'duration':
      case 'decimal':
      case 'varint':
        break;
      default:
        return variableWriter(data);
    }
  } else if (t.kind === 'custom') {
    return variableWriter(data);
  }
  return (out, i) => out.bytesCell(cqlBytesAt(t, data, i));
}

/** The writer of column `data` (CQL type `t`); undefined data = a segment written before the column existed. */
export function arrowCellWriter(t: CqlType, data: Data | undefined): CellWriter {
  if (!data) return writeNull;
  const write = valueWriter(t, data);
  const valid = validity(data);
  if (!valid) return write;
  return (out, i) => {
    if (valid(i)) write(out, i);
    else out.nullCell();
  };
}
