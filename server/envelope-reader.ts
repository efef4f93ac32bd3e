// Cuts a connection's incoming bytes into envelopes: v3/v4 frames (and v5 before STARTUP), or v5 segments after
// it, whose payload holds whole envelopes (self-contained) or a part of one large envelope. Bytes of an incomplete
// frame or segment wait until enough have arrived; an envelope over the size limit is skipped after its sink has
// answered it. What the envelopes mean is the connection's business (EnvelopeSink).

import { ProtocolError } from '../cql/errors.js';
import { HEADER_LENGTH, RESPONSE_BIT, VERSION_MASK } from './frame-codec.js';
import { isSupportedVersion } from './protocol-version.js';
import { decodeSegment } from './segment-codec.js';

export interface EnvelopeSink {
  /** Whether input is no longer processed (a fatal error, shutdown): the reader stops at once. */
  readonly closing: boolean;
  /** A complete envelope: its header's fields and its body, `buf[bodyStart, bodyEnd)`. */
  envelope(
    version: number,
    flags: number,
    stream: number,
    opcode: number,
    buf: Buffer,
    bodyStart: number,
    bodyEnd: number,
    fromServer: boolean,
  ): void;
  /** An envelope of `total` bytes over the limit: answered on its stream; the reader skips its body. */
  tooBig(stream: number, version: number, total: number): void;
  /** A frame in a protocol version this server does not speak: refused, and the connection closes. */
  unsupportedVersion(version: number, stream: number): void;
  /** A segment failed its checks (CRC, length, decompression): answered, and the connection closes. */
  corruptSegment(e: unknown): void;
  /** The byte stream cannot be trusted any more. */
  fatal(e: ProtocolError): void;
}

export class EnvelopeReader {
  /** Bytes of an incomplete frame/segment wait here until `needed` are there. */
  private readonly pending: Buffer[] = [];
  private pendingLength = 0;
  private needed = 0;
  /** Bytes of an oversized v3/v4 frame still to skip. */
  private discardRemaining = 0;
  private segments = false;
  private lz4Segments = false;
  // A v5 envelope spread over non-self-contained segments.
  private largeParts: Buffer[] | undefined;
  private largeReceived = 0;
  private largeTotal = 0;
  private largeDiscard = false;

  constructor(
    private readonly sink: EnvelopeSink,
    private readonly maxFrameBytes: number,
    /** Names the connection in segment errors. */
    private readonly label: string,
  ) {}

  /** From the next byte on, v5 segments (after a v5 STARTUP), their payloads LZ4-compressed when `lz4`. */
  useSegments(lz4: boolean): void {
    this.segments = true;
    this.lz4Segments = lz4;
  }

  /** Bytes held back: an incomplete frame or segment, and the parts of a large envelope received so far. */
  buffered(): number {
    return this.pendingLength + (this.largeParts?.reduce((n, p) => n + p.length, 0) ?? 0);
  }

  /** Drops what waits for more bytes (the connection is closing). */
  discard(): void {
    this.pending.length = 0;
    this.pendingLength = 0;
  }

  receive(chunk: Buffer): void {
    let buf: Buffer;
    if (this.pendingLength === 0) {
      buf = chunk;
    } else {
      this.pending.push(chunk);
      this.pendingLength += chunk.length;
      if (this.pendingLength < this.needed) return;
      buf = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingLength);
      this.pending.length = 0;
      this.pendingLength = 0;
    }
    let off = 0;
    // STARTUP in v5 switches the framing in the middle of a chunk: go on with the other decoder.
    for (;;) {
      const segments = this.segments;
      off = segments ? this.readSegments(buf, off) : this.readFrames(buf, off);
      if (this.sink.closing || this.segments === segments || off >= buf.length) break;
    }
    if (!this.sink.closing && off < buf.length) {
      this.pending.push(buf.subarray(off));
      this.pendingLength = buf.length - off;
    }
  }

  /** v3/v4 framing (and v5 before STARTUP). Returns the offset of the first unconsumed byte. */
  private readFrames(buf: Buffer, off: number): number {
    for (;;) {
      if (this.discardRemaining > 0) {
        const skip = Math.min(this.discardRemaining, buf.length - off);
        this.discardRemaining -= skip;
        off += skip;
      }
      const available = buf.length - off;
      if (available === 0) {
        this.needed = 0;
        return off;
      }
      const first = buf[off]!;
      const version = first & VERSION_MASK;
      if (!isSupportedVersion(version)) {
        const streamBytes = version === 1 || version === 2 ? 3 : 4;
        if (available < streamBytes) {
          this.needed = streamBytes;
          return off;
        }
        this.sink.unsupportedVersion(
          version,
          version === 1 || version === 2 ? buf[off + 2]! : buf.readInt16BE(off + 2),
        );
        return buf.length;
      }
      if (available < HEADER_LENGTH) {
        this.needed = HEADER_LENGTH;
        return off;
      }
      const flags = buf[off + 1]!;
      const stream = buf.readInt16BE(off + 2);
      const opcode = buf[off + 4]!;
      const length = buf.readUInt32BE(off + 5);
      const total = HEADER_LENGTH + length;
      if (total > this.maxFrameBytes) {
        this.sink.tooBig(stream, version, total);
        this.discardRemaining = total;
        continue;
      }
      if (available < total) {
        this.needed = total;
        return off;
      }
      const bodyStart = off + HEADER_LENGTH;
      off += total;
      this.sink.envelope(version, flags, stream, opcode, buf, bodyStart, off, (first & RESPONSE_BIT) !== 0);
      if (this.sink.closing || this.segments) return off;
    }
  }

  /** v5 framing after STARTUP. */
  private readSegments(buf: Buffer, off: number): number {
    while (!this.sink.closing) {
      if (off >= buf.length) {
        this.needed = 0;
        return off;
      }
      let segment: ReturnType<typeof decodeSegment>;
      try {
        segment = decodeSegment(buf, off, this.lz4Segments, this.label);
      } catch (e) {
        this.sink.corruptSegment(e);
        return buf.length;
      }
      if (typeof segment === 'number') {
        this.needed = segment;
        return off;
      }
      off += segment.wireLength;
      if (segment.selfContained) this.readContainedEnvelopes(segment.payload);
      else this.readLargeEnvelopePart(segment.payload);
    }
    return buf.length;
  }

  private readContainedEnvelopes(payload: Buffer): void {
    let at = 0;
    while (at < payload.length && !this.sink.closing) {
      if (payload.length - at < HEADER_LENGTH) {
        this.sink.fatal(new ProtocolError('Truncated envelope header in a self-contained segment', true));
        return;
      }
      const total = HEADER_LENGTH + payload.readUInt32BE(at + 5);
      if (total > payload.length - at) {
        this.sink.fatal(new ProtocolError('Envelope crosses the end of a self-contained segment', true));
        return;
      }
      const first = payload[at]!;
      this.sink.envelope(
        first & VERSION_MASK,
        payload[at + 1]!,
        payload.readInt16BE(at + 2),
        payload[at + 4]!,
        payload,
        at + HEADER_LENGTH,
        at + total,
        (first & RESPONSE_BIT) !== 0,
      );
      at += total;
    }
  }

  private readLargeEnvelopePart(payload: Buffer): void {
    if (this.largeParts === undefined) {
      if (payload.length < HEADER_LENGTH) {
        this.sink.fatal(new ProtocolError('Truncated envelope header in the first segment of a large envelope', true));
        return;
      }
      this.largeTotal = HEADER_LENGTH + payload.readUInt32BE(5);
      this.largeParts = [];
      this.largeReceived = 0;
      this.largeDiscard = this.largeTotal > this.maxFrameBytes;
      if (this.largeDiscard) this.sink.tooBig(payload.readInt16BE(2), payload[0]! & VERSION_MASK, this.largeTotal);
    }
    this.largeReceived += payload.length;
    if (!this.largeDiscard) this.largeParts.push(payload);
    if (this.largeReceived > this.largeTotal) {
      this.sink.fatal(new ProtocolError('Segments of a large envelope exceed its announced length', true));
      return;
    }
    if (this.largeReceived < this.largeTotal) return;
    const parts = this.largeParts;
    this.largeParts = undefined;
    if (this.largeDiscard) return;
    const envelope = parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.largeTotal);
    const first = envelope[0]!;
    this.sink.envelope(
      first & VERSION_MASK,
      envelope[1]!,
      envelope.readInt16BE(2),
      envelope[4]!,
      envelope,
      HEADER_LENGTH,
      envelope.length,
      (first & RESPONSE_BIT) !== 0,
    );
  }
}
