// Snappy compression of v3/v4 frame bodies (raw snappy, whose own header carries the length).
// Not available in v5, as in Cassandra.

import snappy from 'snappyjs';
import { ProtocolError } from '../cql/errors.js';

export function snappyCompressBody(body: Uint8Array): Buffer {
  const out = snappy.compress(body);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

export function snappyDecompressBody(body: Buffer, maxLength: number): Buffer {
  let out: Uint8Array;
  try {
    out = snappy.uncompress(body, maxLength);
  } catch (e) {
    throw new ProtocolError(`Malformed snappy compressed data: ${(e as Error).message}`);
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
