// Shared pieces of the in-process fuzz tests (test/fuzz-*.test.ts): run counts (CI vs long mode),
// byte mutators for fast-check, a fake socket that drives a real server/Connection synchronously,
// and valid request bodies of every opcode to mutate.
//
// Long mode: FUZZ_RUNS=1000000 npx vitest run test/fuzz-*.test.ts (or scripts/fuzz-long.mjs).
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import pino from 'pino';
import { CqlError } from '../../cql/errors.js';
import type { ClientState, QueryHandler, ResultMessage, ServerEvent } from '../../cql/query-handler.js';
import { native } from '../../cql/types/cql-type.js';
import { AllowAllAuthenticator } from '../../server/authenticator.js';
import { Connection } from '../../server/connection.js';
import type { EnvelopeReader } from '../../server/envelope-reader.js';
import { decodeSegment } from '../../server/segment-codec.js';
import { int, longStr, short, startupBody, str, stringList } from './fuzz-wire.js';

/** Inputs per fast-check property: small in CI, FUZZ_RUNS in long mode. */
export function fuzzRuns(ci: number): number {
  const env = Number(process.env.FUZZ_RUNS);
  return Number.isFinite(env) && env > 0 ? env : ci;
}

/** True when FUZZ_RUNS is set (long mode): timeouts are lifted. */
export const LONG_MODE = Number(process.env.FUZZ_RUNS) > 0;

/** A vitest timeout fitting the run count. */
export const FUZZ_TIMEOUT = LONG_MODE ? 24 * 3600_000 : 60_000;

/** fast-check parameters: a fixed seed unless FUZZ_SEED asks for another (or 'random'). */
export function fuzzParams(ci: number): fc.Parameters<unknown> {
  const seedEnv = process.env.FUZZ_SEED;
  const seed = seedEnv === 'random' ? Date.now() % 2 ** 31 : seedEnv ? Number(seedEnv) : 0x5eed;
  return { numRuns: fuzzRuns(ci), seed, endOnFailure: true };
}

/** Counts every input a target saw; the long-mode script prints them. */
export const fuzzCounts = new Map<string, number>();
export function count(target: string, n = 1): void {
  fuzzCounts.set(target, (fuzzCounts.get(target) ?? 0) + n);
}
export function reportCounts(file: string): void {
  if (!LONG_MODE) return;
  const lines = [...fuzzCounts].map(([k, v]) => `  ${k}: ${v}`);
  console.log(`[fuzz] ${file} inputs:\n${lines.join('\n')}`);
}

// ---- byte mutations

/** Values that break length fields: negative, huge, off by one, unset/null markers. */
export const INTERESTING_INTS = [
  0,
  1,
  -1,
  -2,
  -3,
  0x7f,
  0x80,
  0xff,
  0x7fff,
  0x8000,
  0xffff,
  0x10000,
  0x7fffffff,
  -0x80000000,
  0x1ffff,
  0x20000,
  16 * 1024 * 1024,
  16 * 1024 * 1024 + 1,
];

type Mutation =
  | { k: 'set'; at: number; v: number }
  | { k: 'flip'; at: number; bit: number }
  | { k: 'int'; at: number; v: number; w: 1 | 2 | 4 }
  | { k: 'insert'; at: number; bytes: Uint8Array }
  | { k: 'delete'; at: number; n: number }
  | { k: 'truncate'; at: number }
  | { k: 'dup'; at: number; n: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ k: fc.constant('set' as const), at: fc.nat(), v: fc.nat(255) }),
  fc.record({ k: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({
    k: fc.constant('int' as const),
    at: fc.nat(),
    v: fc.oneof(fc.constantFrom(...INTERESTING_INTS), fc.integer()),
    w: fc.constantFrom(1 as const, 2 as const, 4 as const),
  }),
  fc.record({ k: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ k: fc.constant('delete' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 16 }) }),
  fc.record({ k: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ k: fc.constant('dup' as const), at: fc.nat(), n: fc.integer({ min: 1, max: 32 }) }),
);

function applyMutation(b: Buffer, m: Mutation): Buffer {
  if (b.length === 0) return m.k === 'insert' ? Buffer.from(m.bytes) : b;
  const at = m.at % b.length;
  switch (m.k) {
    case 'set': {
      const out = Buffer.from(b);
      out[at] = m.v;
      return out;
    }
    case 'flip': {
      const out = Buffer.from(b);
      out[at] = out[at]! ^ (1 << m.bit);
      return out;
    }
    case 'int': {
      const out = Buffer.from(b);
      const start = Math.min(at, Math.max(0, out.length - m.w));
      const w = Math.min(m.w, out.length - start);
      const v = m.v & (w === 4 ? 0xffffffff : w === 2 ? 0xffff : 0xff);
      out.writeUIntBE(w === 4 ? v >>> 0 : v, start, w);
      return out;
    }
    case 'insert':
      return Buffer.concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
    case 'delete':
      return Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + m.n))]);
    case 'truncate':
      return b.subarray(0, at);
    case 'dup':
      return Buffer.concat([b.subarray(0, at + 1), b.subarray(at, Math.min(b.length, at + m.n)), b.subarray(at + 1)]);
  }
}

/** Applies 1..max random mutations to a valid input. */
export function mutate(base: Buffer, max = 4): fc.Arbitrary<Buffer> {
  return fc.array(mutationArb, { minLength: 1, maxLength: max }).map((ms) => ms.reduce(applyMutation, base));
}

/** Mutations of one of several valid inputs; sometimes plain random bytes. */
export function mutatedOrRandom(bases: readonly Buffer[], maxRandom = 256): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...bases).chain((b) => mutate(b)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: maxRandom }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.constantFrom(...bases) },
  );
}

/** Splits `bytes` at random points (TCP may cut anywhere). */
export function chunked(bytes: fc.Arbitrary<Buffer>): fc.Arbitrary<Buffer[]> {
  return fc.tuple(bytes, fc.array(fc.nat(), { maxLength: 4 })).map(([b, cuts]) => {
    const points = [...new Set(cuts.map((c) => (b.length === 0 ? 0 : c % b.length)))].sort((x, y) => x - y);
    const out: Buffer[] = [];
    let prev = 0;
    for (const p of points) {
      if (p > prev) out.push(b.subarray(prev, p));
      prev = Math.max(prev, p);
    }
    out.push(b.subarray(prev));
    return out;
  });
}

/** True for the errors decoders may throw on bad input (a CqlError of a client-facing kind). */
export function isTypedError(e: unknown): boolean {
  return e instanceof CqlError && e.code !== 0x0000;
}

// ---- valid request bodies

export function valueBytes(v: Buffer | null | 'unset'): Buffer {
  if (v === null) return int(-1);
  if (v === 'unset') return int(-2);
  return Buffer.concat([int(v.length), v]);
}

/** <consistency><flags>[values][page_size][paging_state][serial][timestamp][keyspace][now]. */
export function queryParams(version: number, all: boolean, named = false): Buffer {
  const values = [Buffer.from([0, 0, 0, 1]), null, ...(version >= 4 ? ['unset' as const] : [])];
  const flags = all ? 0x01 | 0x04 | 0x08 | 0x10 | 0x20 | (named ? 0x40 : 0) | (version >= 5 ? 0x80 | 0x100 : 0) : 0;
  const parts = [short(1), version >= 5 ? int(flags) : Buffer.from([flags])];
  if (all) {
    parts.push(short(values.length));
    values.forEach((v, i) => {
      if (named) parts.push(str(`v${i}`));
      parts.push(valueBytes(v));
    });
    parts.push(int(100), valueBytes(Buffer.from('paging-state')), short(9));
    const ts = Buffer.alloc(8);
    ts.writeBigInt64BE(1_700_000_000_000_000n);
    parts.push(ts);
    if (version >= 5) parts.push(str('ks'), int(1_700_000_000));
  }
  return Buffer.concat(parts);
}

/** Valid bodies of every request opcode for `version`, as [opcode, body]. */
export function validBodies(version: number): [number, Buffer][] {
  const id = Buffer.from('0123456789abcdef');
  const out: [number, Buffer][] = [
    [0x05, Buffer.alloc(0)],
    [0x01, startupBody()],
    [0x01, startupBody({ COMPRESSION: 'lz4' })],
    [0x07, Buffer.concat([longStr('SELECT * FROM ks.t WHERE k = ?'), queryParams(version, false)])],
    [0x07, Buffer.concat([longStr('SELECT * FROM ks.t WHERE k = ?'), queryParams(version, true)])],
    [0x07, Buffer.concat([longStr('INSERT INTO ks.t (k, v) VALUES (:a, :b)'), queryParams(version, true, true)])],
    [0x09, Buffer.concat([longStr('SELECT * FROM ks.t'), ...(version >= 5 ? [int(1), str('ks')] : [])])],
    [
      0x0a,
      Buffer.concat([
        short(id.length),
        id,
        ...(version >= 5 ? [short(id.length), id] : []),
        queryParams(version, true),
      ]),
    ],
    [0x0b, stringList(['SCHEMA_CHANGE', 'STATUS_CHANGE', 'TOPOLOGY_CHANGE'])],
    [0x0f, valueBytes(Buffer.from('\0cassandra\0cassandra'))],
    [
      0x0d,
      Buffer.concat([
        Buffer.from([1]),
        short(2),
        Buffer.from([0]),
        longStr('INSERT INTO ks.t (k) VALUES (?)'),
        short(1),
        valueBytes(Buffer.from([0, 0, 0, 7])),
        Buffer.from([1]),
        short(id.length),
        id,
        short(0),
        short(1),
        version >= 5 ? int(0x10 | 0x20) : Buffer.from([0x10 | 0x20]),
        short(9),
        Buffer.alloc(8, 1),
      ]),
    ],
  ];
  return out;
}

// ---- a Connection on a fake socket

const VOID: ResultMessage = { kind: 'void' };
const ROWS: ResultMessage = {
  kind: 'rows',
  metadata: { columns: [{ keyspace: 'ks', table: 't', name: 'v', type: native('text') }] },
  rows: [[Buffer.from('x')]],
};

/** Answers everything at once; counts what reached it. */
export class StubHandler implements QueryHandler {
  calls = 0;
  query(_s: ClientState, cql: string): ResultMessage {
    this.calls++;
    return cql.startsWith('USE') ? { kind: 'set_keyspace', keyspace: 'ks' } : ROWS;
  }
  prepare(): ResultMessage {
    this.calls++;
    return VOID;
  }
  execute(): ResultMessage {
    this.calls++;
    return ROWS;
  }
  batch(): ResultMessage {
    this.calls++;
    return VOID;
  }
  onEvent(_l: (e: ServerEvent) => void): void {}
}

/** Just enough of net.Socket for Connection: records writes, never blocks. */
export class FakeSocket extends EventEmitter {
  remoteAddress = '127.0.0.1';
  remotePort = 40000;
  written: Buffer[] = [];
  writtenBytes = 0;
  ended = false;
  destroyed = false;
  setNoDelay(): this {
    return this;
  }
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }
  write(data: Buffer): boolean {
    this.written.push(data);
    this.writtenBytes += data.length;
    return true;
  }
  end(): this {
    this.ended = true;
    return this;
  }
  destroy(): this {
    if (!this.destroyed) {
      this.destroyed = true;
      this.emit('close');
    }
    return this;
  }
}

export interface FedConnection {
  socket: FakeSocket;
  connection: Connection;
  /** error-level log lines: a bug reached a catch-all (never expected). */
  errors: string[];
  /** Private buffers' sizes after the last chunk (bounded memory). */
  buffered(): number;
}

const errorLines: string[] = [];
const errorLogger = pino({ level: 'error' }, { write: (line: string) => errorLines.push(line) });

/** A Connection on a FakeSocket; feed it with socket.emit('data', chunk). */
export function fakeConnection(maxFrameBytes = 256 * 1024): FedConnection {
  errorLines.length = 0;
  const socket = new FakeSocket();
  const connection = new Connection({
    id: 1,
    socket: socket as never,
    handler: new StubHandler(),
    authenticator: new AllowAllAuthenticator(),
    logger: errorLogger,
    maxFrameBytes,
    maxInFlight: 1024,
    onClose: () => {},
  });
  const input = (connection as unknown as { input: EnvelopeReader }).input;
  return {
    socket,
    connection,
    errors: errorLines,
    buffered: () => input.buffered(),
  };
}

type ResponseFrame = { version: number; stream: number; opcode: number; body: Buffer };

/**
 * Cuts frames out of what the server wrote; throws on a malformed one. After the READY (or AUTHENTICATE)
 * answering a v5 STARTUP, the server writes v5 segments (plain or lz4, as negotiated): their payloads are
 * decoded and parsed as frames in turn.
 */
export function parseResponseFrames(bytes: Buffer, inSegments = false): ResponseFrame[] {
  const out: ResponseFrame[] = [];
  let at = 0;
  while (at < bytes.length) {
    const version = bytes[at]! & 0x7f;
    const hl = version <= 2 ? 8 : 9;
    if (bytes.length - at < hl) throw new Error('truncated response header');
    const len = bytes.readInt32BE(at + hl - 4);
    if (len < 0 || at + hl + len > bytes.length) throw new Error('bad response length');
    const opcode = bytes[at + hl - 5]!;
    out.push({
      version,
      stream: version <= 2 ? bytes.readInt8(at + 2) : bytes.readInt16BE(at + 2),
      opcode,
      body: bytes.subarray(at + hl, at + hl + len),
    });
    at += hl + len;
    if (!inSegments && version >= 5 && (opcode === 0x02 || opcode === 0x03)) {
      out.push(...parseResponseSegments(bytes.subarray(at)));
      break;
    }
  }
  return out;
}

function parseResponseSegments(bytes: Buffer): ResponseFrame[] {
  let failure: unknown;
  for (const lz4 of [false, true]) {
    try {
      const payloads: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const s = decodeSegment(bytes, at, lz4, 'fuzz');
        if (typeof s === 'number') throw new Error('truncated response segment');
        payloads.push(s.payload);
        at += s.wireLength;
      }
      return parseResponseFrames(Buffer.concat(payloads), true);
    } catch (e) {
      failure = e;
    }
  }
  throw failure;
}
