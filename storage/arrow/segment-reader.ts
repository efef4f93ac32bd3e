// Opens an Arrow IPC segment in place: the column buffers of the resulting table are views into the given bytes
// (a Buffer over the mapped pool), never copies. Arrow JS builds typed arrays directly on the bytes, which needs
// each buffer aligned to its element size; IPC pads buffers to 8 bytes from the start of the segment, so a segment
// whose first byte is 8-byte aligned reads without a copy. A misaligned one is copied once, and says so.

import { type Data, type RecordBatch, type Table, tableFromIPC } from 'apache-arrow';
import type { TwinLayout } from './arrow-schema.js';

export interface OpenSegment {
  readonly table: Table;
  /** The segment's single record batch (an empty segment has none: length 0). */
  readonly batch: RecordBatch | undefined;
  readonly length: number;
  /** False when the bytes had to be copied to be aligned. */
  readonly zeroCopy: boolean;
}

export function openSegment(bytes: Uint8Array): OpenSegment {
  let source = bytes;
  let zeroCopy = true;
  if (bytes.byteOffset % 8 !== 0) {
    source = new Uint8Array(bytes.length);
    source.set(bytes);
    zeroCopy = false;
  }
  const table = tableFromIPC(source);
  if (table.batches.length > 1)
    throw new Error(`an Arrow segment holds one record batch, found ${table.batches.length}`);
  return { table, batch: table.batches[0], length: table.numRows, zeroCopy };
}

/** The data of field `index` (a segment has one batch, so one Data per column). */
export function columnData(segment: OpenSegment, index: number): Data | undefined {
  return segment.batch?.data.children[index];
}

/** Field data of a twin segment by role. */
export interface TwinColumns {
  readonly token: Data | undefined;
  readonly writetime: Data | undefined;
  readonly expires: Data | undefined;
  /** Column id -> its data. */
  column(id: number): Data | undefined;
}

export function twinColumns(segment: OpenSegment, layout: TwinLayout): TwinColumns {
  return {
    token: columnData(segment, layout.tokenField),
    writetime: columnData(segment, layout.writetimeField),
    expires: columnData(segment, layout.expiresField),
    column: (id) => {
      const f = layout.fieldOfColumn.get(id);
      return f === undefined ? undefined : columnData(segment, f);
    },
  };
}

/** True when every buffer of `data` (and its children) lies inside `bytes`' memory: nothing was copied. */
export function sharesMemory(data: Data, bytes: Uint8Array): boolean {
  const start = bytes.byteOffset;
  const end = start + bytes.byteLength;
  const inside = (v: ArrayBufferView | null | undefined): boolean =>
    !v ||
    v.byteLength === 0 ||
    (v.buffer === bytes.buffer && v.byteOffset >= start && v.byteOffset + v.byteLength <= end);
  return (
    inside(data.values as ArrayBufferView | undefined) &&
    inside(data.nullBitmap) &&
    inside(data.valueOffsets as ArrayBufferView | undefined) &&
    data.children.every((c) => sharesMemory(c, bytes))
  );
}
