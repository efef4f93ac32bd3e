// Regression tests for what the fuzzers found (docs/robustness.md lists each finding).
import { describe, expect, it } from 'vitest';
import { InvalidRequest } from '../cql/errors.js';
import { parseStatement } from '../cql/parser/parser.js';
import { decodeKeyComponent, encodeKeyComponent } from '../cql/types/byte-comparable.js';
import { native } from '../cql/types/cql-type.js';
import { decimalFromBytes, decimalToBytes } from '../cql/types/decimal-text.js';
import { jsonToBytes } from '../cql/types/json-codec.js';
import { parseJson } from '../cql/types/json-text.js';
import { nativeFromString } from '../cql/types/literal-parser.js';
import { compareValues } from '../cql/types/value-comparator.js';
import { bigintFromTwosComplement, bigintToTwosComplement } from '../cql/types/varint-bytes.js';
import { fakeConnection, parseResponseFrames } from './support/fuzz-harness.js';
import { frameBytes, startupBody } from './support/wire-client.js';

describe('fuzz findings', () => {
  it('F1: bigintToTwosComplement is linear (a 1 MiB varint took minutes) and unchanged in output', () => {
    const cases: [bigint, string][] = [
      [0n, '00'],
      [1n, '01'],
      [-1n, 'ff'],
      [127n, '7f'],
      [128n, '0080'],
      [-128n, '80'],
      [-129n, 'ff7f'],
      [255n, '00ff'],
      [32767n, '7fff'],
      [32768n, '008000'],
      [-32768n, '8000'],
      [1n << 64n, '010000000000000000'],
      [-(1n << 64n), 'ff0000000000000000'],
    ];
    for (const [v, hex] of cases) {
      expect(bigintToTwosComplement(v).toString('hex')).toBe(hex);
      expect(bigintFromTwosComplement(bigintToTwosComplement(v))).toBe(v);
    }
    const huge = BigInt(`0x${'b6'.repeat(1 << 20)}`);
    const started = performance.now();
    const bytes = bigintToTwosComplement(huge);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(bytes.length).toBe((1 << 20) + 1);
    expect(bigintFromTwosComplement(bytes)).toBe(huge);
    // Through a varint literal of 100,000 digits, as an INSERT would parse it.
    const t0 = performance.now();
    const lit = nativeFromString('varint', `9${'0'.repeat(100_000)}`);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(lit.length).toBeGreaterThan(41_000);
  });

  it('F2: JSON nested deeper than 1000 levels is an InvalidRequest, not a stack overflow', () => {
    const deep = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
    expect(() => parseJson(deep(1000))).not.toThrow();
    for (const d of [1001, 5000, 100_000]) expect(() => parseJson(deep(d))).toThrow(InvalidRequest);
    expect(() => parseJson(`${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`)).toThrow(InvalidRequest);
    const vector = { kind: 'vector', element: native('text'), dimension: 2 } as const;
    expect(() => jsonToBytes(vector, parseJson(deep(5000)))).toThrow(InvalidRequest);
    // The same document in an INSERT JSON parses as a statement (the JSON is read later).
    expect(parseStatement(`INSERT INTO t JSON '${deep(5000)}'`).kind).toBeDefined();
  });

  it('F3: a decimal key with scale -2^31 and trailing zeros decodes (it threw RangeError on read)', () => {
    const t = native('decimal');
    const value = decimalToBytes({ unscaled: 12_300n, scale: -0x80000000 });
    for (const desc of [false, true]) {
      const back = decodeKeyComponent(t, encodeKeyComponent(t, value, desc), 0, desc).value;
      expect(compareValues(t, back, value)).toBe(0);
      expect(decimalFromBytes(back).scale).toBe(-0x80000000);
    }
  });

  it('F5: a v5 STARTUP in a v4 stream switches to segments; v4 frames after it end in a well-formed error', () => {
    const fed = fakeConnection();
    const options = frameBytes(4, 1, 0x05, Buffer.alloc(0));
    fed.socket.emit('data', Buffer.concat([frameBytes(5, 0, 0x01, startupBody()), options]));
    expect(fed.errors).toEqual([]);
    fed.socket.destroy();
    // READY as a frame, then segments: the v4 OPTIONS frame is not a valid segment (a CRC mismatch).
    const frames = parseResponseFrames(Buffer.concat(fed.socket.written));
    expect(frames[0]).toMatchObject({ version: 5, opcode: 0x02 });
    expect(frames.slice(1).map((f) => f.opcode)).toEqual([0x00]);
    expect(frames[1]!.body.readInt32BE(0)).toBe(0x000a);
  });
});
