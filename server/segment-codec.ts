// Protocol v5 framing: after STARTUP both directions carry envelopes inside segments.
//   plain:  header 6 bytes = 3-byte little-endian {payload length:17, self-contained:1, pad:6}
//           + CRC24 of those 3 bytes (LE); payload; CRC32 of the payload (LE)
//   lz4:    header 8 bytes = 5-byte LE {compressed length:17, uncompressed length:17,
//           self-contained:1, pad:5} + CRC24 of those 5 bytes; compressed payload; CRC32 of it.
//           Uncompressed length 0 means the payload is stored uncompressed.
// A self-contained segment holds whole envelopes; an envelope larger than one payload is split
// over consecutive non-self-contained segments.

import { ProtocolError } from '../cql/errors.js';
import { crc24, segmentCrc32 } from './crc.js';
import { lz4CompressBlock, lz4DecompressBlock } from './lz4-compression.js';

/** Largest payload of one segment (17-bit length). */
export const MAX_SEGMENT_PAYLOAD = 128 * 1024 - 1;
const PLAIN_HEADER = 6;
const LZ4_HEADER = 8;
const TRAILER = 4;

export interface Segment {
  payload: Buffer;
  selfContained: boolean;
  /** Bytes the segment took on the wire. */
  wireLength: number;
}

/**
 * Decodes the segment at `offset`. Returns the segment, or the number of bytes (from `offset`)
 * needed before it can be decoded. A CRC mismatch is a fatal ProtocolError: the byte stream
 * (or the envelopes of a corrupt payload, whose streams are unknown) cannot be recovered.
 */
export function decodeSegment(buf: Buffer, offset: number, lz4: boolean, connectionId: string): Segment | number {
  const available = buf.length - offset;
  const headerLength = lz4 ? LZ4_HEADER : PLAIN_HEADER;
  if (available < headerLength) return headerLength;
  let payloadLength: number;
  let uncompressedLength = 0;
  let selfContained: boolean;
  let headerCrcAt: number;
  if (lz4) {
    const v =
      buf[offset]! +
      buf[offset + 1]! * 0x100 +
      buf[offset + 2]! * 0x10000 +
      buf[offset + 3]! * 0x1000000 +
      buf[offset + 4]! * 0x100000000;
    payloadLength = v % 0x20000;
    uncompressedLength = Math.floor(v / 0x20000) % 0x20000;
    selfContained = Math.floor(v / 0x400000000) % 2 === 1;
    headerCrcAt = offset + 5;
  } else {
    const v = buf[offset]! | (buf[offset + 1]! << 8) | (buf[offset + 2]! << 16);
    payloadLength = v & 0x1ffff;
    selfContained = (v & 0x20000) !== 0;
    headerCrcAt = offset + 3;
  }
  const readHeaderCrc = buf[headerCrcAt]! | (buf[headerCrcAt + 1]! << 8) | (buf[headerCrcAt + 2]! << 16);
  const computedHeaderCrc = crc24(buf, offset, headerCrcAt - offset);
  if (readHeaderCrc !== computedHeaderCrc) throw crcMismatch(connectionId, 'header', readHeaderCrc, computedHeaderCrc);

  const wireLength = headerLength + payloadLength + TRAILER;
  if (available < wireLength) return wireLength;
  const payloadStart = offset + headerLength;
  const payloadEnd = payloadStart + payloadLength;
  let payload = buf.subarray(payloadStart, payloadEnd);
  const readCrc = buf.readUInt32LE(payloadEnd);
  const computedCrc = segmentCrc32(payload);
  if (readCrc !== computedCrc) throw crcMismatch(connectionId, 'body', readCrc | 0, computedCrc | 0);
  if (uncompressedLength > 0) {
    try {
      payload = lz4DecompressBlock(payload, uncompressedLength);
    } catch (e) {
      throw new ProtocolError((e as Error).message, true);
    }
  }
  return { payload, selfContained, wireLength };
}

function crcMismatch(id: string, where: string, read: number, computed: number): ProtocolError {
  return new ProtocolError(
    `${id} invalid, unrecoverable CRC mismatch detected in frame ${where}. Read ${read}, Computed ${computed}`,
    true,
  );
}

/**
 * Wraps envelopes (contiguous in `envelopes`, each ending at an offset of `ends`) into
 * segments: as many whole envelopes per self-contained segment as fit, and each envelope
 * too large for one segment split over non-self-contained ones.
 */
export function encodeSegments(envelopes: Buffer, ends: readonly number[], lz4: boolean): Buffer {
  const starts: number[] = [];
  const stops: number[] = [];
  const contained: boolean[] = [];
  let segStart = 0;
  let segEnd = 0;
  let prev = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    if (end - prev > MAX_SEGMENT_PAYLOAD) {
      if (segEnd > segStart) {
        starts.push(segStart);
        stops.push(segEnd);
        contained.push(true);
      }
      for (let at = prev; at < end; at += MAX_SEGMENT_PAYLOAD) {
        starts.push(at);
        stops.push(Math.min(end, at + MAX_SEGMENT_PAYLOAD));
        contained.push(false);
      }
      segStart = end;
      segEnd = end;
    } else if (end - segStart > MAX_SEGMENT_PAYLOAD) {
      starts.push(segStart);
      stops.push(segEnd);
      contained.push(true);
      segStart = prev;
      segEnd = end;
    } else {
      segEnd = end;
    }
    prev = end;
  }
  if (segEnd > segStart) {
    starts.push(segStart);
    stops.push(segEnd);
    contained.push(true);
  }
  return lz4
    ? writeLz4Segments(envelopes, starts, stops, contained)
    : writePlainSegments(envelopes, starts, stops, contained);
}

function writePlainSegments(src: Buffer, starts: number[], stops: number[], contained: boolean[]): Buffer {
  let total = 0;
  for (let i = 0; i < starts.length; i++) total += PLAIN_HEADER + (stops[i]! - starts[i]!) + TRAILER;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < starts.length; i++) {
    const len = stops[i]! - starts[i]!;
    const h = len | (contained[i] ? 0x20000 : 0);
    out[at] = h & 0xff;
    out[at + 1] = (h >>> 8) & 0xff;
    out[at + 2] = (h >>> 16) & 0xff;
    writeCrc24(out, at, 3);
    at += PLAIN_HEADER;
    const payload = src.subarray(starts[i]!, stops[i]!);
    out.set(payload, at);
    at += len;
    out.writeUInt32LE(segmentCrc32(payload), at);
    at += TRAILER;
  }
  return out;
}

function writeLz4Segments(src: Buffer, starts: number[], stops: number[], contained: boolean[]): Buffer {
  const payloads: Buffer[] = [];
  const uncompressed: number[] = [];
  let total = 0;
  for (let i = 0; i < starts.length; i++) {
    const raw = src.subarray(starts[i]!, stops[i]!);
    const packed = lz4CompressBlock(raw);
    // Not worth it: send the bytes as they are, marked by an uncompressed length of 0.
    if (packed.length >= raw.length) {
      payloads.push(raw);
      uncompressed.push(0);
    } else {
      payloads.push(packed);
      uncompressed.push(raw.length);
    }
    total += LZ4_HEADER + payloads[i]!.length + TRAILER;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < payloads.length; i++) {
    const payload = payloads[i]!;
    const h = payload.length + uncompressed[i]! * 0x20000 + (contained[i] ? 0x400000000 : 0);
    out[at] = h & 0xff;
    out[at + 1] = Math.floor(h / 0x100) & 0xff;
    out[at + 2] = Math.floor(h / 0x10000) & 0xff;
    out[at + 3] = Math.floor(h / 0x1000000) & 0xff;
    out[at + 4] = Math.floor(h / 0x100000000) & 0xff;
    writeCrc24(out, at, 5);
    at += LZ4_HEADER;
    out.set(payload, at);
    at += payload.length;
    out.writeUInt32LE(segmentCrc32(payload), at);
    at += TRAILER;
  }
  return out;
}

function writeCrc24(out: Buffer, at: number, length: number): void {
  const crc = crc24(out, at, length);
  out[at + length] = crc & 0xff;
  out[at + length + 1] = (crc >>> 8) & 0xff;
  out[at + length + 2] = (crc >>> 16) & 0xff;
}
