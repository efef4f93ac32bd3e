// Unit tests of the native-protocol codecs in server/: byte reader/writer, CRCs, lz4/snappy,
// segments, type options, errors per version, request decoding per version.
import lz4js from 'lz4js';
import { describe, expect, it } from 'vitest';
import {
  AlreadyExists,
  CasWriteUnknown,
  FunctionFailure,
  InvalidRequest,
  ReadFailure,
  Unavailable,
  Unprepared,
  WriteFailure,
  WriteTimeout,
} from '../cql/errors.js';
import { UNSET } from '../cql/query-handler.js';
import { type CqlType, native } from '../cql/types/cql-type.js';
import { marshalClassName } from '../cql/types/marshal-class-names.js';
import { ByteReader } from '../server/byte-reader.js';
import { ByteWriter, inetBytes } from '../server/byte-writer.js';
import { crc24 } from '../server/crc.js';
import { writeError } from '../server/error-encoder.js';
import { beginFrame, endFrame } from '../server/frame-codec.js';
import { lz4CompressBlock, lz4CompressBody, lz4DecompressBlock, lz4DecompressBody } from '../server/lz4-compression.js';
import { decodeBatch, decodeExecute, decodePrepare, decodeQuery } from '../server/request-decoder.js';
import { writeResult } from '../server/response-encoder.js';
import { decodeSegment, encodeSegments, MAX_SEGMENT_PAYLOAD, type Segment } from '../server/segment-codec.js';
import { snappyCompressBody, snappyDecompressBody } from '../server/snappy-compression.js';
import { writeTypeOption } from '../server/type-option-encoder.js';
import { crc24 as clientCrc24, segmentBytes } from './support/wire-client.js';

function bytesOf(f: (w: ByteWriter) => void): Buffer {
  const w = new ByteWriter(16);
  f(w);
  return Buffer.from(w.take());
}

describe('ByteWriter / ByteReader', () => {
  it('round-trips the notations and grows without losing marks', () => {
    const w = new ByteWriter(16);
    const mark = w.mark;
    w.int(0);
    w.string('héllo');
    w.longString('x'.repeat(70_000));
    w.bytes(null);
    w.bytes(Buffer.from([1, 2, 3]));
    w.shortBytes(Buffer.from([9]));
    w.stringList(['a', 'b']);
    w.long(-5n);
    w.patchInt(mark, 42);
    const out = w.take();
    const r = new ByteReader(out);
    expect(r.int()).toBe(42);
    expect(r.string()).toBe('héllo');
    expect(r.longString().length).toBe(70_000);
    expect(r.bytes()).toBeNull();
    expect([...r.bytes()!]).toEqual([1, 2, 3]);
    expect([...r.shortBytes()]).toEqual([9]);
    expect(r.stringList()).toEqual(['a', 'b']);
    expect(r.long()).toBe(-5n);
    expect(r.remaining).toBe(0);
    expect(() => r.int()).toThrow(/Not enough bytes/);
  });

  it('take() hands out independent slices', () => {
    const w = new ByteWriter(64);
    w.int(1);
    const a = w.take();
    w.int(2);
    const b = w.take();
    expect(a.readInt32BE(0)).toBe(1);
    expect(b.readInt32BE(0)).toBe(2);
  });

  it('reads [value] per version: -2 is unset from v4, null before', () => {
    const buf = Buffer.from([0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff]);
    expect(new ByteReader(buf).value(4)).toBe(UNSET);
    expect(new ByteReader(buf).value(3)).toBeNull();
    expect(new ByteReader(buf, 4).value(4)).toBeNull();
    expect(() => new ByteReader(Buffer.from([0xff, 0xff, 0xff, 0xf0])).value(4)).toThrow(/Invalid length/);
  });

  it('writes [inetaddr] for IPv4, IPv6 and mapped addresses', () => {
    expect([...inetBytes('127.0.0.1')]).toEqual([127, 0, 0, 1]);
    expect([...inetBytes('::ffff:10.1.2.3')]).toEqual([10, 1, 2, 3]);
    expect(inetBytes('::1').toString('hex')).toBe('00000000000000000000000000000001');
    expect(inetBytes('fe80::1:2').toString('hex')).toBe('fe800000000000000000000000010002');
  });
});

describe('CRC', () => {
  it('CRC24 matches an independent implementation of Cassandra’s algorithm', () => {
    for (const bytes of [
      [0, 0, 0],
      [1, 2, 3],
      [0xff, 0xff, 0xff, 0xff, 0xff],
      [0x12, 0x34, 0x05],
    ]) {
      expect(crc24(Buffer.from(bytes), 0, bytes.length)).toBe(clientCrc24(Buffer.from(bytes)));
    }
    expect(crc24(Buffer.from([0, 0, 0]), 0, 3)).toBeLessThan(1 << 24);
  });
});

describe('lz4', () => {
  const samples = [
    Buffer.alloc(0),
    Buffer.from('a'),
    Buffer.from('hello hello hello hello hello hello hello hello hello hello hello hello hello'),
    Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 251)),
    Buffer.from('SELECT * FROM ks.t WHERE k = ?'.repeat(3000)),
  ];
  it('round-trips blocks, and lz4js reads our blocks', () => {
    for (const s of samples) {
      const block = lz4CompressBlock(s);
      expect(lz4DecompressBlock(block, s.length).equals(s)).toBe(true);
      const dst = new Uint8Array(s.length);
      const n = (
        lz4js as unknown as { decompressBlock(a: Uint8Array, b: Uint8Array, c: number, d: number, e: number): number }
      ).decompressBlock(block, dst, 0, block.length, 0);
      expect(n).toBe(s.length);
    }
  });

  it('keeps the end-of-block rules strict decoders enforce (last match >= 12 bytes from the end)', () => {
    let x = 99;
    const rnd = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    for (let t = 0; t < 300; t++) {
      const n = Math.floor(rnd() * 600);
      const src = Buffer.alloc(n);
      for (let i = 0; i < n; i++)
        src[i] = rnd() < 0.5 && i > 8 ? src[i - 1 - Math.floor(rnd() * 8)]! : Math.floor(rnd() * 4);
      const block = lz4CompressBlock(src);
      let s = 0;
      let d = 0;
      let lastLiterals = 0;
      while (s < block.length) {
        const token = block[s++]!;
        let lit = token >>> 4;
        if (lit === 15) for (let b = 255; b === 255; lit += b) b = block[s++]!;
        s += lit;
        d += lit;
        lastLiterals = lit;
        if (s >= block.length) break;
        s += 2;
        let match = token & 15;
        if (match === 15) for (let b = 255; b === 255; match += b) b = block[s++]!;
        expect(d).toBeLessThanOrEqual(n - 12);
        d += match + 4;
      }
      expect(d).toBe(n);
      if (n >= 5) expect(lastLiterals).toBeGreaterThanOrEqual(5);
      expect(lz4DecompressBlock(block, n).equals(src)).toBe(true);
    }
  });

  it('round-trips v4 bodies and rejects hostile input without crashing', () => {
    for (const s of samples) expect(lz4DecompressBody(lz4CompressBody(s), 1 << 24).equals(s)).toBe(true);
    expect(() => lz4DecompressBody(Buffer.from([0, 0, 0, 10, 0x1f, 0, 0, 0]), 100)).toThrow();
    expect(() => lz4DecompressBody(Buffer.from([0x7f, 0, 0, 10, 0]), 100)).toThrow(/uncompressed length/);
    expect(() => lz4DecompressBlock(Buffer.from([0x0f, 0xff, 0xff]), 10)).toThrow();
    for (let i = 0; i < 200; i++) {
      const junk = Buffer.from(Array.from({ length: 20 }, () => Math.floor(Math.random() * 256)));
      try {
        lz4DecompressBlock(junk, 64);
      } catch (e) {
        expect((e as Error).message).toMatch(/LZ4/);
      }
    }
  });
});

describe('snappy', () => {
  it('round-trips v4 bodies', () => {
    const s = Buffer.from('snappy snappy snappy snappy'.repeat(100));
    expect(snappyDecompressBody(snappyCompressBody(s), 1 << 20).equals(s)).toBe(true);
    expect(() => snappyDecompressBody(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 1]), 100)).toThrow(/snappy/);
  });
});

describe('segments', () => {
  function decodeAll(wire: Buffer, lz4: boolean): Segment[] {
    const out: Segment[] = [];
    let at = 0;
    while (at < wire.length) {
      const s = decodeSegment(wire, at, lz4, 'test');
      if (typeof s === 'number') throw new Error('incomplete');
      out.push(s);
      at += s.wireLength;
    }
    return out;
  }

  for (const lz4 of [false, true]) {
    it(`packs small envelopes together and splits large ones (${lz4 ? 'lz4' : 'plain'})`, () => {
      const sizes = [20, 30, 200_000, 40, MAX_SEGMENT_PAYLOAD, 100_000, 100_000];
      const envelopes = sizes.map((n, i) => Buffer.alloc(n, i + 1));
      const all = Buffer.concat(envelopes);
      const ends: number[] = [];
      let end = 0;
      for (const e of envelopes) {
        end += e.length;
        ends.push(end);
      }
      const segments = decodeAll(encodeSegments(all, ends, lz4), lz4);
      expect(Buffer.concat(segments.map((s) => s.payload)).equals(all)).toBe(true);
      expect(segments.map((s) => s.selfContained)).toEqual([true, false, false, true, true, true, true]);
      expect(segments.map((s) => s.payload.length)).toEqual([
        50,
        MAX_SEGMENT_PAYLOAD,
        200_000 - MAX_SEGMENT_PAYLOAD,
        40,
        MAX_SEGMENT_PAYLOAD,
        100_000,
        100_000,
      ]);
    });
  }

  it('reads segments written by the independent test client', () => {
    const payload = Buffer.from('abcdefghij'.repeat(50));
    for (const lz4 of [false, true]) {
      const wire = segmentBytes(payload, true, lz4);
      const s = decodeSegment(wire, 0, lz4, 'test') as Segment;
      expect(s.payload.equals(payload)).toBe(true);
      expect(s.selfContained).toBe(true);
      expect(decodeSegment(wire.subarray(0, 5), 0, lz4, 'test')).toBe(lz4 ? 8 : 6);
      expect(decodeSegment(wire.subarray(0, 20), 0, lz4, 'test')).toBe(wire.length);
    }
  });

  it('reports CRC mismatches as fatal protocol errors', () => {
    const wire = segmentBytes(Buffer.from('payload'), true);
    const badHeader = Buffer.from(wire);
    badHeader[1] = badHeader[1]! ^ 1;
    expect(() => decodeSegment(badHeader, 0, false, 'c1')).toThrow(/CRC mismatch detected in frame header/);
    const badBody = Buffer.from(wire);
    badBody[7] = badBody[7]! ^ 1;
    try {
      decodeSegment(badBody, 0, false, 'c1');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toContain('CRC mismatch detected in frame body');
      expect((e as { fatal: boolean }).fatal).toBe(true);
    }
  });
});

describe('type options', () => {
  const vector: CqlType = { kind: 'vector', element: native('float'), dimension: 3 };
  it('writes native ids and version-dependent custom forms', () => {
    const opt = (t: CqlType, v: number) => bytesOf((w) => writeTypeOption(w, t, v));
    expect(opt(native('int'), 4).toString('hex')).toBe('0009');
    expect(opt(native('text'), 4).toString('hex')).toBe('000d');
    expect(opt(native('date'), 4).toString('hex')).toBe('0011');
    expect(opt(native('duration'), 5).toString('hex')).toBe('0015');
    const customDuration = opt(native('duration'), 4);
    expect(customDuration.readUInt16BE(0)).toBe(0);
    expect(new ByteReader(customDuration, 2).string()).toBe('org.apache.cassandra.db.marshal.DurationType');
    expect(new ByteReader(opt(native('smallint'), 3), 2).string()).toBe('org.apache.cassandra.db.marshal.ShortType');
    expect(new ByteReader(opt(vector, 5), 2).string()).toBe(
      'org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)',
    );
  });

  it('writes collections, tuples and UDTs', () => {
    const map: CqlType = { kind: 'map', key: native('text'), value: native('int'), frozen: false };
    expect(bytesOf((w) => writeTypeOption(w, map, 4)).toString('hex')).toBe('0021000d0009');
    const tuple: CqlType = { kind: 'tuple', elements: [native('int'), native('text')] };
    expect(bytesOf((w) => writeTypeOption(w, tuple, 4)).toString('hex')).toBe('003100020009000d');
    const udt: CqlType = {
      kind: 'udt',
      keyspace: 'ks',
      name: 'addr',
      fields: [{ name: 'zip', type: native('int') }],
      frozen: true,
    };
    const r = new ByteReader(bytesOf((w) => writeTypeOption(w, udt, 4)));
    expect(r.short()).toBe(0x30);
    expect([r.string(), r.string(), r.short(), r.string(), r.short()]).toEqual(['ks', 'addr', 1, 'zip', 9]);
  });

  it('names marshal classes as Cassandra does', () => {
    const list: CqlType = { kind: 'list', element: native('int'), frozen: true };
    expect(marshalClassName(list)).toBe(
      'org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type))',
    );
    const vectorOfList: CqlType = { kind: 'vector', element: { ...list, frozen: false }, dimension: 2 };
    expect(marshalClassName(vectorOfList)).toContain('VectorType(org.apache.cassandra.db.marshal.FrozenType(');
  });
});

describe('errors', () => {
  function error(e: Parameters<typeof writeError>[1], version: number): ByteReader {
    return new ByteReader(bytesOf((w) => writeError(w, e, version)));
  }

  it('writes code, message and the extra fields', () => {
    let r = error(new Unavailable('down', 4, 3, 1), 4);
    expect([r.int(), r.string(), r.short(), r.int(), r.int()]).toEqual([0x1000, 'down', 4, 3, 1]);
    r = error(new AlreadyExists('exists', 'ks', 't'), 4);
    expect([r.int(), r.string(), r.string(), r.string()]).toEqual([0x2400, 'exists', 'ks', 't']);
    r = error(new Unprepared('gone', Buffer.from([1, 2])), 4);
    expect([r.int(), r.string(), [...r.shortBytes()]]).toEqual([0x2500, 'gone', [1, 2]]);
    r = error(new InvalidRequest('bad'), 4);
    expect([r.int(), r.string(), r.remaining]).toEqual([0x2200, 'bad', 0]);
    r = error(new FunctionFailure('ff', 'ks', 'f', ['int']), 4);
    expect([r.int(), r.string(), r.string(), r.string(), r.stringList()]).toEqual([0x1400, 'ff', 'ks', 'f', ['int']]);
  });

  it('writes <numfailures> before v5 and a <reasonmap> from v5', () => {
    let r = error(new ReadFailure('rf', 1, 0, 1, 1, false), 4);
    expect([r.int(), r.string(), r.short(), r.int(), r.int(), r.int(), r.byte()]).toEqual([
      0x1300,
      'rf',
      1,
      0,
      1,
      1,
      0,
    ]);
    r = error(new ReadFailure('rf', 1, 0, 1, 1, true), 5);
    expect([r.int(), r.string(), r.short(), r.int(), r.int()]).toEqual([0x1300, 'rf', 1, 0, 1]);
    expect(r.int()).toBe(1);
    expect(r.byte()).toBe(4);
    r.skip(4);
    expect([r.short(), r.byte(), r.remaining]).toEqual([0, 1, 0]);
    r = error(new WriteFailure('wf', 1, 0, 1, 1, 'SIMPLE'), 5);
    expect([r.int(), r.string(), r.short(), r.int(), r.int(), r.int()]).toEqual([0x1500, 'wf', 1, 0, 1, 1]);
    r.skip(5 + 2);
    expect(r.string()).toBe('SIMPLE');
  });

  it('maps codes older versions lack', () => {
    let r = error(new ReadFailure('rf', 1, 0, 1, 1, true), 3);
    expect(r.int()).toBe(0x1200);
    r = error(new CasWriteUnknown('cas', 8, 0, 1), 4);
    expect([r.int(), r.string(), r.short(), r.int(), r.int(), r.string()]).toEqual([0x1100, 'cas', 8, 0, 1, 'CAS']);
    r = error(new CasWriteUnknown('cas', 8, 0, 1), 5);
    expect(r.int()).toBe(0x1700);
    r = error(new WriteTimeout('wt', 8, 0, 1, 'CAS', 3), 5);
    expect([r.int(), r.string(), r.short(), r.int(), r.int(), r.string(), r.short()]).toEqual([
      0x1100,
      'wt',
      8,
      0,
      1,
      'CAS',
      3,
    ]);
  });
});

describe('request decoding', () => {
  function params(version: number, flags: number, rest: Buffer[]): Buffer {
    const f = Buffer.alloc(version >= 5 ? 4 : 1);
    if (version >= 5) f.writeInt32BE(flags, 0);
    else f[0] = flags;
    return Buffer.concat([Buffer.from([0, 6]), f, ...rest]);
  }
  const lstr = (s: string) => bytesOf((w) => w.longString(s));
  const str = (s: string) => bytesOf((w) => w.string(s));
  const int = (n: number) => bytesOf((w) => w.int(n));
  const short = (n: number) => bytesOf((w) => w.short(n));

  it('decodes a v4 QUERY with values (bytes, null, unset), paging and timestamp', () => {
    const body = Buffer.concat([
      lstr('SELECT ?'),
      params(4, 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20, [
        short(3),
        int(2),
        Buffer.from([7, 8]),
        int(-1),
        int(-2),
        int(100),
        int(1),
        Buffer.from([5]),
        short(9),
        bytesOf((w) => w.long(1234n)),
      ]),
    ]);
    const q = decodeQuery(new ByteReader(body), 4);
    expect(q.query).toBe('SELECT ?');
    expect(q.options.consistency).toBe(6);
    expect([...(q.options.values[0] as Buffer)]).toEqual([7, 8]);
    expect(q.options.values[1]).toBeNull();
    expect(q.options.values[2]).toBe(UNSET);
    expect(q.options.skipMetadata).toBe(true);
    expect(q.options.pageSize).toBe(100);
    expect([...q.options.pagingState!]).toEqual([5]);
    expect(q.options.serialConsistency).toBe(9);
    expect(q.options.timestamp).toBe(1234n);
    // Values are views of the request bytes, not copies.
    expect((q.options.values[0] as Buffer).buffer).toBe(body.buffer);
  });

  it('decodes v5 QUERY flags as an [int] with names, keyspace and now_in_seconds', () => {
    const body = Buffer.concat([
      lstr('SELECT :a'),
      params(5, 0x01 | 0x40 | 0x80 | 0x100, [short(1), str('a'), int(1), Buffer.from([1]), str('ks'), int(77)]),
    ]);
    const q = decodeQuery(new ByteReader(body), 5);
    expect(q.options.names).toEqual(['a']);
    expect(q.options.keyspace).toBe('ks');
    expect(q.options.nowInSeconds).toBe(77);
    expect(q.options.pageSize).toBeLessThanOrEqual(0);
  });

  it('decodes EXECUTE with the v5 result metadata id, and PREPARE with a v5 keyspace', () => {
    const id = Buffer.from([1, 2, 3]);
    const md = Buffer.from([4, 5]);
    const v5 = decodeExecute(new ByteReader(Buffer.concat([short(3), id, short(2), md, params(5, 0, [])])), 5);
    expect([...v5.id]).toEqual([1, 2, 3]);
    expect([...v5.resultMetadataId!]).toEqual([4, 5]);
    const v4 = decodeExecute(new ByteReader(Buffer.concat([short(3), id, params(4, 0, [])])), 4);
    expect(v4.resultMetadataId).toBeUndefined();
    expect(decodePrepare(new ByteReader(Buffer.concat([lstr('SELECT 1'), int(1), str('ks')])), 5)).toEqual({
      query: 'SELECT 1',
      keyspace: 'ks',
    });
    expect(decodePrepare(new ByteReader(lstr('SELECT 1')), 4).keyspace).toBeUndefined();
  });

  it('decodes BATCH of queries and prepared ids', () => {
    const body = Buffer.concat([
      Buffer.from([1]),
      short(2),
      Buffer.from([0]),
      lstr('INSERT'),
      short(1),
      int(1),
      Buffer.from([9]),
      Buffer.from([1]),
      short(2),
      Buffer.from([0xab, 0xcd]),
      short(0),
      params(4, 0x20, [bytesOf((w) => w.long(5n))]),
    ]);
    const b = decodeBatch(new ByteReader(body), 4);
    expect(b.type).toBe('UNLOGGED');
    expect(b.statements[0]!.query).toBe('INSERT');
    expect(b.statements[1]!.id!.toString('hex')).toBe('abcd');
    expect(b.timestamp).toBe(5n);
    expect(() => decodeBatch(new ByteReader(Buffer.from([7, 0, 0])), 4)).toThrow(/Invalid BATCH message type/);
  });
});

describe('responses', () => {
  it('writes Rows metadata flags and a v5 Prepared', () => {
    const col = { keyspace: 'ks', table: 't', name: 'v', type: native('int') };
    let r = new ByteReader(
      bytesOf((w) =>
        writeResult(
          w,
          {
            kind: 'rows',
            metadata: { columns: [col], pagingState: Buffer.from([1]), newMetadataId: Buffer.from([2]) },
            rows: [[Buffer.from([0, 0, 0, 1])], [null]],
          },
          5,
        ),
      ),
    );
    expect([r.int(), r.int(), r.int()]).toEqual([2, 0x01 | 0x02 | 0x08, 1]);
    expect([...r.bytes()!]).toEqual([1]);
    expect([...r.shortBytes()]).toEqual([2]);
    expect([r.string(), r.string(), r.string(), r.short(), r.int()]).toEqual(['ks', 't', 'v', 9, 2]);
    expect([...r.bytes()!]).toEqual([0, 0, 0, 1]);
    expect(r.bytes()).toBeNull();

    r = new ByteReader(
      bytesOf((w) =>
        writeResult(
          w,
          {
            kind: 'prepared',
            id: Buffer.from([7]),
            resultMetadataId: Buffer.from([8]),
            bindMetadata: { columns: [col], partitionKeyIndices: [0] },
            resultMetadata: { columns: [] },
          },
          5,
        ),
      ),
    );
    expect(r.int()).toBe(4);
    expect([...r.shortBytes(), ...r.shortBytes()]).toEqual([7, 8]);
    expect([r.int(), r.int(), r.int(), r.short()]).toEqual([1, 1, 1, 0]);
    expect([r.string(), r.string(), r.string(), r.short()]).toEqual(['ks', 't', 'v', 9]);
    expect([r.int(), r.int(), r.remaining]).toEqual([0x04, 0, 0]);
  });

  it('compresses a frame body and sets the flag', () => {
    const w = new ByteWriter(16);
    const mark = beginFrame(w, 4, 3, 0x08);
    w.raw(Buffer.alloc(500, 1));
    endFrame(w, mark, lz4CompressBody);
    const out = w.take();
    expect(out[0]).toBe(0x84);
    expect(out[1]).toBe(0x01);
    expect(out.readInt16BE(2)).toBe(3);
    expect(out.readInt32BE(5)).toBe(out.length - 9);
    expect(lz4DecompressBody(out.subarray(9), 1000).equals(Buffer.alloc(500, 1))).toBe(true);
  });
});
