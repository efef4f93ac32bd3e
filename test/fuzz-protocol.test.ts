// Fuzzing the native-protocol input path in process (fast-check): v3/v4 frames (plain, lz4,
// snappy) and v5 segments (plain, lz4, self-contained and split envelopes) fed in random chunks
// to a real server/Connection on a fake socket; the segment decoder, the body decompressors and
// every request-body decoder on their own. Properties: only typed protocol errors (never a
// catch-all "unexpected error"), no hang, buffered bytes bounded by the frame limit.
// CI: a few thousand inputs; long mode: FUZZ_RUNS=1000000 (see docs/robustness.md).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodePlainCredentials } from '../server/auth/password-authenticator.js';
import { ByteReader } from '../server/byte-reader.js';
import { lz4CompressBlock, lz4CompressBody, lz4DecompressBlock, lz4DecompressBody } from '../server/lz4-compression.js';
import {
  decodeAuthResponse,
  decodeBatch,
  decodeExecute,
  decodePrepare,
  decodeQuery,
  decodeRegister,
  decodeStartup,
} from '../server/request-decoder.js';
import { decodeSegment, MAX_SEGMENT_PAYLOAD } from '../server/segment-codec.js';
import { snappyCompressBody, snappyDecompressBody } from '../server/snappy-compression.js';
import {
  chunked,
  count,
  FUZZ_TIMEOUT,
  fakeConnection,
  fuzzParams,
  isTypedError,
  mutate,
  mutatedOrRandom,
  parseResponseFrames,
  reportCounts,
  validBodies,
} from './support/fuzz-harness.js';
import { frameBytes, largeEnvelopeSegments, segmentBytes, startupBody } from './support/fuzz-wire.js';

const MAX_FRAME = 256 * 1024;
/** A single input taking longer than this is a hang. */
const SLOW_MS = 2000;

afterAll(() => reportCounts('fuzz-protocol'));

/** Feeds chunks; asserts the invariants after each. Returns what the server wrote. */
function feed(chunks: Buffer[], maxFrame = MAX_FRAME): Buffer {
  const fed = fakeConnection(maxFrame);
  const started = performance.now();
  for (const c of chunks) {
    fed.socket.emit('data', c);
    expect(fed.errors).toEqual([]);
    // Held back: at most one incomplete frame, or one incomplete segment plus the parts of one
    // large envelope (itself under the frame limit).
    expect(fed.buffered()).toBeLessThanOrEqual(maxFrame + MAX_SEGMENT_PAYLOAD + 12);
  }
  expect(performance.now() - started).toBeLessThan(SLOW_MS);
  fed.socket.destroy();
  return Buffer.concat(fed.socket.written);
}

type Compression = 'none' | 'lz4' | 'snappy';

/** A v3/v4 frame whose body is compressed as negotiated (flag 0x01). */
function frame(version: number, stream: number, opcode: number, body: Buffer, compression: Compression): Buffer {
  if (compression === 'none' || opcode === 0x01) return frameBytes(version, stream, opcode, body);
  const packed = compression === 'lz4' ? lz4CompressBody(body) : snappyCompressBody(body);
  return frameBytes(version, stream, opcode, packed, 0x01);
}

describe('frames v3/v4 through a Connection', () => {
  for (const version of [3, 4]) {
    for (const compression of ['none', 'lz4', 'snappy'] as const) {
      it(
        `v${version} ${compression}: mutated request streams`,
        () => {
          const bodies = validBodies(version).filter(([op]) => op !== 0x01);
          const valid = bodies.map(([op, body], i) => frame(version, i + 1, op, body, compression));
          const startup = frameBytes(
            version,
            0,
            0x01,
            startupBody(compression === 'none' ? {} : { COMPRESSION: compression }),
          );
          const stream = fc.tuple(
            fc.oneof({ weight: 9, arbitrary: fc.constant(startup) }, { weight: 1, arbitrary: mutate(startup) }),
            fc.array(mutatedOrRandom(valid), { minLength: 1, maxLength: 6 }),
          );
          fc.assert(
            fc.property(chunked(stream.map(([s, rest]) => Buffer.concat([s, ...rest]))), (chunks) => {
              count(`frames v${version} ${compression}`);
              const out = feed(chunks);
              // Whatever happened, the answers are well-formed frames.
              for (const f of parseResponseFrames(out)) expect(f.opcode === 0x00 || f.opcode <= 0x10).toBe(true);
            }),
            fuzzParams(1000),
          );
        },
        FUZZ_TIMEOUT,
      );
    }
  }

  it(
    'random header fields before STARTUP (any version byte, flags, opcode, length)',
    () => {
      const header = fc
        .tuple(fc.nat(255), fc.nat(255), fc.integer({ min: -32768, max: 32767 }), fc.nat(255), fc.nat(MAX_FRAME * 2))
        .map(([v, f, s, o, len]) => {
          const h = Buffer.alloc(9);
          h[0] = v;
          h[1] = f;
          h.writeInt16BE(s, 2);
          h[4] = o;
          h.writeUInt32BE(len, 5);
          return h;
        });
      fc.assert(
        fc.property(
          chunked(fc.tuple(header, fc.uint8Array({ maxLength: 64 })).map(([h, b]) => Buffer.concat([h, b]))),
          (c) => {
            count('frame headers');
            feed(c);
          },
        ),
        fuzzParams(2000),
      );
    },
    FUZZ_TIMEOUT,
  );
});

describe('v5 segments through a Connection', () => {
  for (const lz4 of [false, true]) {
    it(
      `v5 ${lz4 ? 'lz4' : 'plain'}: mutated envelopes, segments and split envelopes`,
      () => {
        const envelopes = validBodies(5)
          .filter(([op]) => op !== 0x01)
          .map(([op, body], i) => frameBytes(5, i + 1, op, body));
        const big = frameBytes(
          5,
          99,
          0x07,
          Buffer.concat([Buffer.from([0, 0, 0x90, 0]), Buffer.alloc(0x9000 * 8, 0x61)]),
        );
        const startup = frameBytes(5, 0, 0x01, startupBody(lz4 ? { COMPRESSION: 'lz4' } : {}));
        const segment = fc.oneof(
          // A mutated envelope inside a valid segment (CRCs right: the envelope parser is hit).
          {
            weight: 5,
            arbitrary: fc
              .array(mutatedOrRandom(envelopes), { minLength: 1, maxLength: 3 })
              .map((e) => segmentBytes(Buffer.concat(e), true, lz4)),
          },
          // A valid segment with mutated bytes (CRC/header checks are hit).
          { weight: 2, arbitrary: fc.constantFrom(...envelopes).chain((e) => mutate(segmentBytes(e, true, lz4))) },
          // A mutated envelope claiming not to be self-contained.
          { weight: 1, arbitrary: mutatedOrRandom(envelopes).map((e) => segmentBytes(e, false, lz4)) },
          // A large envelope over several segments, sometimes mutated or cut short.
          {
            weight: 1,
            arbitrary: fc.tuple(fc.boolean(), fc.nat(), fc.nat(255)).map(([cut, at, v]) => {
              const parts = largeEnvelopeSegments(big, lz4);
              if (cut) return Buffer.concat(parts.slice(0, 1 + (at % parts.length)));
              const e = Buffer.from(big);
              e[9 + (at % (e.length - 9))] = v;
              return Buffer.concat(largeEnvelopeSegments(e, lz4));
            }),
          },
        );
        fc.assert(
          fc.property(
            chunked(fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => Buffer.concat([startup, ...s]))),
            fc.constantFrom(MAX_FRAME, 64 * 1024),
            (chunks, maxFrame) => {
              count(`segments v5 ${lz4 ? 'lz4' : 'plain'}`);
              feed(chunks, maxFrame);
            },
          ),
          fuzzParams(800),
        );
      },
      FUZZ_TIMEOUT,
    );
  }
});

describe('decoders on their own', () => {
  it(
    'decodeSegment: a segment, a byte count it needs (making progress), or a ProtocolError',
    () => {
      const valid = validBodies(5).map(([op, b]) => frameBytes(5, 1, op, b));
      const inputs = fc.tuple(
        fc.boolean(),
        fc.oneof(
          fc.constantFrom(...valid).chain((e) => mutate(segmentBytes(e, true, false))),
          fc.constantFrom(...valid).chain((e) => mutate(segmentBytes(e, true, true))),
          fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
        ),
      );
      fc.assert(
        fc.property(inputs, ([lz4, bytes]) => {
          count('decodeSegment');
          try {
            const r = decodeSegment(bytes, 0, lz4, '[fuzz]');
            if (typeof r === 'number') {
              expect(r).toBeGreaterThan(bytes.length);
              expect(r).toBeLessThanOrEqual(8 + MAX_SEGMENT_PAYLOAD + 4);
            } else {
              expect(r.wireLength).toBeLessThanOrEqual(bytes.length);
              expect(r.payload.length).toBeLessThanOrEqual(MAX_SEGMENT_PAYLOAD);
            }
          } catch (e) {
            if (!isTypedError(e)) throw e;
          }
        }),
        fuzzParams(3000),
      );
    },
    FUZZ_TIMEOUT,
  );

  it(
    'lz4 and snappy bodies: the declared size or a ProtocolError, never more than the limit',
    () => {
      const samples = validBodies(4).map(([, b]) => Buffer.concat([b, b, b]));
      const inputs = fc
        .tuple(fc.constantFrom('lz4', 'snappy', 'block'), fc.constantFrom(...samples))
        .chain(([kind, sample]) => {
          const packed =
            kind === 'lz4'
              ? lz4CompressBody(sample)
              : kind === 'snappy'
                ? snappyCompressBody(sample)
                : lz4CompressBlock(sample);
          return fc.tuple(
            fc.constant(kind),
            fc.constant(sample),
            fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 9, arbitrary: mutate(packed) }),
            fc.constant(packed),
          );
        });
      fc.assert(
        fc.property(inputs, ([kind, sample, mutated, packed]) => {
          count('decompressors');
          const bytes = mutated ?? packed;
          try {
            const out =
              kind === 'lz4'
                ? lz4DecompressBody(bytes, MAX_FRAME)
                : kind === 'snappy'
                  ? snappyDecompressBody(bytes, MAX_FRAME)
                  : lz4DecompressBlock(bytes, sample.length);
            expect(out.length).toBeLessThanOrEqual(MAX_FRAME);
            if (mutated === undefined) expect(out.equals(sample)).toBe(true);
          } catch (e) {
            if (mutated === undefined || !isTypedError(e)) throw e;
          }
        }),
        fuzzParams(1000),
      );
    },
    FUZZ_TIMEOUT,
  );

  const DECODERS: Record<number, (r: ByteReader, v: number) => unknown> = {
    1: (r) => decodeStartup(r),
    7: decodeQuery,
    9: decodePrepare,
    10: decodeExecute,
    11: (r) => decodeRegister(r),
    13: decodeBatch,
    15: (r) => {
      const token = decodeAuthResponse(r);
      return decodePlainCredentials(token ?? Buffer.alloc(0));
    },
  };

  for (const version of [3, 4, 5]) {
    it(
      `v${version} request bodies (QUERY, EXECUTE, BATCH, PREPARE, STARTUP, REGISTER, AUTH_RESPONSE)`,
      () => {
        const bodies = validBodies(version).filter(([op]) => DECODERS[op] !== undefined);
        // Valid bodies decode (the corpus is right), mutated ones decode or throw a typed error.
        for (const [op, body] of bodies) {
          if (op === 0x0f) continue; // PLAIN credentials of the corpus are fine but checked below
          DECODERS[op]!(new ByteReader(body), version);
        }
        fc.assert(
          fc.property(
            fc.nat(bodies.length - 1).chain((i) => fc.tuple(fc.constant(bodies[i]![0]), mutate(bodies[i]![1], 6))),
            ([op, body]) => {
              count(`bodies v${version}`);
              const r = new ByteReader(body);
              try {
                DECODERS[op]!(r, version);
                expect(r.offset).toBeLessThanOrEqual(body.length);
              } catch (e) {
                if (!isTypedError(e)) throw e;
              }
            },
          ),
          fuzzParams(3000),
        );
      },
      FUZZ_TIMEOUT,
    );
  }
});
