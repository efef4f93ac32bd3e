// The two checksums of protocol v5 segments, as Cassandra computes them (net/Crc.java):
// CRC24 over the segment header (bytes taken in wire order, least significant first) and
// CRC32 over the payload, seeded by first feeding the bytes FA 2D 55 CA.

import { crc32 as zlibCrc32 } from 'node:zlib';

const CRC24_INIT = 0x875060;
const CRC24_POLY = 0x1974f0b;

/** CRC24 of `length` (1..8) bytes starting at `offset`. */
export function crc24(buf: Uint8Array, offset: number, length: number): number {
  let crc = CRC24_INIT;
  for (let i = 0; i < length; i++) {
    crc ^= buf[offset + i]! << 16;
    for (let b = 0; b < 8; b++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= CRC24_POLY;
    }
  }
  return crc;
}

const CRC32_SEED = zlibCrc32(Buffer.from([0xfa, 0x2d, 0x55, 0xca]));

/** CRC32 of a segment payload, unsigned. */
export function segmentCrc32(payload: Uint8Array): number {
  return zlibCrc32(payload, CRC32_SEED);
}
