// The paging state handed to clients: where the previous page stopped. Opaque to clients; this
// layout is ours (version byte first, so it can change).

import { ProtocolError } from '../errors.js';

export interface PagingState {
  /** Key reads: index of the partition key (IN order) and clustering range. */
  partitionIndex: number;
  rangeIndex: number;
  /** Range scans: the stopping partition. */
  token: bigint;
  key: Buffer;
  /** Byte-comparable clustering of the last row returned; empty: the partition is finished. */
  clustering: Buffer;
  rowsInPartition: number;
  /** Rows still allowed by LIMIT (-1: no limit). */
  remaining: number;
}

const VERSION = 1;

export function encodePagingState(s: PagingState): Buffer {
  const b = Buffer.allocUnsafe(1 + 4 + 4 + 8 + 4 + s.key.length + 4 + s.clustering.length + 4 + 4);
  let o = b.writeUInt8(VERSION, 0);
  o = b.writeUInt32BE(s.partitionIndex, o);
  o = b.writeUInt32BE(s.rangeIndex, o);
  o = b.writeBigInt64BE(s.token, o);
  o = b.writeUInt32BE(s.key.length, o);
  o += s.key.copy(b, o);
  o = b.writeUInt32BE(s.clustering.length, o);
  o += s.clustering.copy(b, o);
  o = b.writeUInt32BE(s.rowsInPartition, o);
  b.writeInt32BE(s.remaining, o);
  return b;
}

export function decodePagingState(b: Buffer): PagingState {
  try {
    if (b[0] !== VERSION) throw new Error('version');
    let o = 1;
    const partitionIndex = b.readUInt32BE(o);
    o += 4;
    const rangeIndex = b.readUInt32BE(o);
    o += 4;
    const token = b.readBigInt64BE(o);
    o += 8;
    const kl = b.readUInt32BE(o);
    o += 4;
    const key = b.subarray(o, o + kl);
    o += kl;
    const cl = b.readUInt32BE(o);
    o += 4;
    const clustering = b.subarray(o, o + cl);
    o += cl;
    const rowsInPartition = b.readUInt32BE(o);
    o += 4;
    const remaining = b.readInt32BE(o);
    if (key.length !== kl || clustering.length !== cl) throw new Error('short');
    return { partitionIndex, rangeIndex, token, key, clustering, rowsInPartition, remaining };
  } catch {
    throw new ProtocolError('Invalid value for the paging state');
  }
}
