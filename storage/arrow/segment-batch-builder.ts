// Appends segment rows, already in the row store's order, straight into the column encoders, and makes the
// RecordBatch. The flush streams buffer rows through it as it reads them (no per-row objects held
// until the build: those were most of a flush's garbage); buildSegmentBatch sorts rows first and then does the same.

import { makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import type { Timestamp } from '../timestamp.js';
import { META_EMPTY_VALUES, type TwinLayout } from './arrow-schema.js';
import { type ColumnEncoder, columnEncoder } from './cql-column-encoder.js';

/** Column id -> value (CQL bytes; absent or null: no value). A Map fits; so does a view over a stored row. */
export interface CellLookup {
  get(columnId: number): Uint8Array | null | undefined;
}

const TWO_32 = 4294967296;

/** Where the last readVarint ended (module state: no object per call). */
let varintEnd = 0;

/** The row codec's unsigned varint (7 bits a byte, low group first) at b[o..]. */
function readVarint(b: Uint8Array, o: number): number {
  let x = b[o++]!;
  if (x < 0x80) {
    varintEnd = o;
    return x;
  }
  let n = x & 0x7f;
  let mul = 128;
  for (;;) {
    x = b[o++]!;
    n += (x & 0x7f) * mul;
    if (x < 0x80) {
      varintEnd = o;
      return n;
    }
    mul *= 128;
  }
}

function grown(a: Int32Array, need: number): Int32Array {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

export class SegmentBatchBuilder {
  length = 0;
  /** int64 columns as little-endian int32 halves (low, high). */
  private token: Int32Array;
  private writetime: Int32Array;
  private expires: Int32Array;
  private expiresValid: Uint8Array;
  private expiresNulls = 0;
  private readonly encoders: ColumnEncoder[];
  private readonly nPk: number;
  private readonly nCk: number;

  constructor(
    private readonly layout: TwinLayout,
    capacity = 1024,
  ) {
    const fields = layout.schema.fields;
    const cap = Math.max(1, capacity);
    this.token = new Int32Array(2 * cap);
    this.writetime = new Int32Array(2 * cap);
    this.expires = new Int32Array(cap);
    this.expiresValid = new Uint8Array((cap + 7) >>> 3);
    this.encoders = layout.columns.map((c, k) => columnEncoder(c.type, cap, fields[k + 1]!.type));
    this.nPk = layout.partitionKey.length;
    this.nCk = layout.clustering.length;
  }

  /**
   * One row: its token as int32 halves (signed high, low bits), partition key components, clustering values
   * (null: a static-only row), cells by column id, write time (µs) and whole-row expiry (s; null: never).
   */
  append(
    tokenHigh: number,
    tokenLow: number,
    partitionKey: readonly Uint8Array[],
    clustering: readonly (Uint8Array | null)[],
    cells: CellLookup,
    writetime: Timestamp,
    expires: number | null,
  ): void {
    this.appendMeta(tokenHigh, tokenLow, writetime, expires);
    const enc = this.encoders;
    const cols = this.layout.columns;
    let k = 0;
    for (; k < this.nPk; k++) enc[k]!.append(partitionKey[k]!);
    for (let c = 0; c < this.nCk; c++, k++) enc[k]!.append(clustering[c] ?? null);
    for (; k < enc.length; k++) enc[k]!.append(cells.get(cols[k]!.id) ?? null);
  }

  private appendMeta(tokenHigh: number, tokenLow: number, writetime: Timestamp, expires: number | null): void {
    const i = this.length++;
    if (2 * i + 2 > this.token.length) {
      this.token = grown(this.token, 2 * i + 2);
      this.writetime = grown(this.writetime, 2 * i + 2);
      this.expires = grown(this.expires, i + 1);
    }
    if (i >>> 3 >= this.expiresValid.length) {
      const v = new Uint8Array(this.expiresValid.length * 2 + 1);
      v.set(this.expiresValid);
      this.expiresValid = v;
    }
    this.token[2 * i] = tokenLow | 0;
    this.token[2 * i + 1] = tokenHigh | 0;
    if (typeof writetime === 'bigint') {
      this.writetime[2 * i] = Number(BigInt.asIntN(32, writetime));
      this.writetime[2 * i + 1] = Number(writetime >> 32n);
    } else {
      const whi = Math.floor(writetime / TWO_32);
      this.writetime[2 * i] = (writetime - whi * TWO_32) | 0;
      this.writetime[2 * i + 1] = whi;
    }
    if (expires === null) this.expiresNulls++;
    else {
      this.expires[i] = expires;
      this.expiresValid[i >>> 3]! |= 1 << (i & 7);
    }
  }

  /**
   * Starts a row read in place (the flush): the partition key is `key[pkStart, pkEnd)` as the partitions map
   * stores it (one component: its bytes; composite: [u16 length][bytes][0] per component), the clustering values
   * are the row's clustering block at `row[clusteringAt]` (varint count, then varint length + bytes each; 0: no
   * clustering, a static-only row). The caller then appends one value per regular column to `cell(j)`, in layout
   * order, before the next row.
   */
  beginRow(
    tokenHigh: number,
    tokenLow: number,
    key: Uint8Array,
    pkStart: number,
    pkEnd: number,
    row: Uint8Array,
    clusteringAt: number,
    writetime: Timestamp,
    expires: number | null,
  ): void {
    this.appendMeta(tokenHigh, tokenLow, writetime, expires);
    const enc = this.encoders;
    if (this.nPk === 1) enc[0]!.appendRange(key, pkStart, pkEnd);
    else {
      let o = pkStart;
      for (let k = 0; k < this.nPk; k++) {
        const len = (key[o]! << 8) | key[o + 1]!;
        enc[k]!.appendRange(key, o + 2, o + 2 + len);
        o += 3 + len;
      }
    }
    let o = clusteringAt;
    const count = clusteringAt === 0 ? 0 : readVarint(row, o);
    if (clusteringAt !== 0) o = varintEnd;
    for (let c = 0; c < this.nCk; c++) {
      const e = enc[this.nPk + c]!;
      if (c >= count) {
        e.append(null);
        continue;
      }
      const len = readVarint(row, o);
      o = varintEnd;
      e.appendRange(row, o, o + len);
      o += len;
    }
  }

  /** The encoder of regular column j (layout order, after the key columns). */
  cell(j: number): ColumnEncoder {
    return this.encoders[this.nPk + this.nCk + j]!;
  }

  get regularColumns(): number {
    return this.encoders.length - this.nPk - this.nCk;
  }

  finish(): RecordBatch {
    const n = this.length;
    const layout = this.layout;
    const fields = layout.schema.fields;
    const children = new Array(fields.length);
    children[layout.tokenField] = makeData({
      type: fields[layout.tokenField]!.type,
      length: n,
      nullCount: 0,
      data: new BigInt64Array(this.token.buffer, 0, n),
    } as never);
    children[layout.writetimeField] = makeData({
      type: fields[layout.writetimeField]!.type,
      length: n,
      nullCount: 0,
      data: new BigInt64Array(this.writetime.buffer, 0, n),
    } as never);
    const valid = this.expiresValid.subarray(0, (n + 7) >>> 3);
    if (n & 7 && valid.length > 0) valid[valid.length - 1]! &= (1 << (n & 7)) - 1;
    children[layout.expiresField] = makeData({
      type: fields[layout.expiresField]!.type,
      length: n,
      nullCount: this.expiresNulls,
      nullBitmap: this.expiresNulls === 0 ? null : valid,
      data: this.expires.subarray(0, n),
    } as never);
    // Field metadata records how many empty values a column had (they are stored as null).
    const outFields = fields.slice();
    for (let k = 0; k < this.encoders.length; k++) {
      const e = this.encoders[k]!;
      children[k + 1] = e.finish();
      if (e.empties > 0) {
        const f = fields[k + 1]!;
        outFields[k + 1] = f.clone({ metadata: new Map([...f.metadata, [META_EMPTY_VALUES, String(e.empties)]]) });
      }
    }
    const schema = new Schema(outFields, layout.schema.metadata);
    const structData = makeData({ type: new Struct(outFields), length: n, nullCount: 0, children });
    return new RecordBatch(schema, structData);
  }
}
