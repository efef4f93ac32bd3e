// NativeServer and Connection in-process, with a scripted QueryHandler: asynchronous and
// out-of-order responses, one write per turn, in-flight backpressure, events, keyspace
// tracking, SASL authentication, error mapping, large v5 responses, limits, graceful close.
import { connect } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, InvalidRequest } from '../cql/errors.js';
import type { ClientState, QueryHandler, ResultMessage, ServerEvent } from '../cql/query-handler.js';
import { native } from '../cql/types/cql-type.js';
import type { Authenticator, SaslStep } from '../server/authenticator.js';
import { NativeServer, type NativeServerOptions } from '../server/native-server.js';
import {
  crc24 as clientCrc24,
  frameBytes,
  Op,
  parseError,
  parseRows,
  payloadCrc,
  queryBody,
  Reader,
  segmentBytes,
  startupBody,
  stringList,
  WireClient,
} from './support/wire-client.js';

const logger = pino({ level: 'silent' });
const blob = native('blob');

class ScriptedHandler implements QueryHandler {
  listener: ((e: ServerEvent) => void) | undefined;
  calls: string[] = [];
  states: ClientState[] = [];
  private held: (() => void)[] = [];

  query(state: ClientState, cql: string): ResultMessage | Promise<ResultMessage> {
    this.calls.push(cql);
    this.states.push(state);
    const [verb, arg] = cql.split(' ');
    switch (verb) {
      case 'slow':
        return new Promise((resolve) => setTimeout(() => resolve(rows(cql)), Number(arg ?? 50)));
      case 'hold':
        return new Promise((resolve) => this.held.push(() => resolve(rows(cql))));
      case 'use':
        return { kind: 'set_keyspace', keyspace: arg! };
      case 'big':
        return {
          kind: 'rows',
          metadata: { columns: [{ keyspace: 'k', table: 't', name: 'b', type: blob }] },
          rows: [[Buffer.alloc(Number(arg), 0x61)]],
        };
      case 'crash':
        throw new TypeError('handler bug');
      case 'invalid':
        throw new InvalidRequest('no such thing');
      case 'reject':
        return Promise.reject(new InvalidRequest('rejected'));
      default:
        return rows(cql);
    }
  }
  prepare(): ResultMessage {
    return { kind: 'void' };
  }
  execute(): ResultMessage {
    return { kind: 'void' };
  }
  batch(): ResultMessage {
    return { kind: 'void' };
  }
  onEvent(listener: (event: ServerEvent) => void): void {
    this.listener = listener;
  }
  release(): void {
    const h = this.held;
    this.held = [];
    for (const f of h) f();
  }
}

function rows(text: string): ResultMessage {
  return {
    kind: 'rows',
    metadata: { columns: [{ keyspace: 'k', table: 't', name: 'echo', type: native('text') }] },
    rows: [[Buffer.from(text)]],
  };
}

let server: NativeServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(handler: QueryHandler, extra: Partial<NativeServerOptions> = {}): Promise<NativeServer> {
  server = new NativeServer({ handler, logger, host: '127.0.0.1', port: 0, ...extra });
  await server.listen();
  return server;
}

async function session(s: NativeServer, version = 4): Promise<WireClient> {
  const c = await WireClient.connect('127.0.0.1', s.address().port);
  expect((await c.request(version, 0, Op.STARTUP, startupBody())).opcode).toBe(Op.READY);
  if (version >= 5) c.useSegments(false);
  return c;
}

function echo(f: { body: Buffer }): string {
  return parseRows(f.body).rows[0]![0]!.toString();
}

describe('NativeServer', () => {
  it('answers out of order: a fast request does not wait for a slow one', async () => {
    const s = await start(new ScriptedHandler());
    const c = await session(s);
    c.send(4, 1, Op.QUERY, queryBody(4, 'slow 80'));
    c.send(4, 2, Op.QUERY, queryBody(4, 'fast'));
    const first = await c.next();
    expect(first.stream).toBe(2);
    expect(echo(first)).toBe('fast');
    const second = await c.next();
    expect(second.stream).toBe(1);
    c.close();
  });

  it('writes the responses of one turn with a single socket write', async () => {
    const s = await start(new ScriptedHandler());
    const socket = connect(s.address().port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    await new Promise((r) => socket.once('connect', r));
    // Waits for the first answer, then a little longer for any further chunk (a loaded machine must not fail it).
    const answered = async () => {
      for (const until = Date.now() + 5000; chunks.length === 0 && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 100));
    };
    socket.write(frameBytes(4, 0, Op.STARTUP, startupBody()));
    await answered();
    chunks.length = 0;
    socket.write(
      Buffer.concat(Array.from({ length: 20 }, (_, i) => frameBytes(4, i + 1, Op.QUERY, queryBody(4, `q${i}`)))),
    );
    await answered();
    expect(chunks.length).toBe(1);
    let at = 0;
    let frames = 0;
    const all = Buffer.concat(chunks);
    while (at < all.length) {
      at += 9 + all.readInt32BE(at + 5);
      frames++;
    }
    expect(frames).toBe(20);
    socket.destroy();
  });

  it('stops reading above the in-flight limit and resumes below it', async () => {
    const handler = new ScriptedHandler();
    const s = await start(handler, { limits: { maxInFlightPerConnection: 2 } });
    const c = await session(s);
    c.write(Buffer.concat([1, 2, 3].map((i) => frameBytes(4, i, Op.QUERY, queryBody(4, `hold ${i}`)))));
    for (const until = Date.now() + 5000; handler.calls.length < 3 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(handler.calls.length).toBe(3);
    c.send(4, 4, Op.QUERY, queryBody(4, 'after'));
    await new Promise((r) => setTimeout(r, 100));
    expect(handler.calls.length).toBe(3);
    handler.release();
    for (const stream of [1, 2, 3, 4]) expect((await c.response(stream)).opcode).toBe(Op.RESULT);
    expect(handler.calls).toContain('after');
    c.close();
  });

  it('maps handler errors: CqlError keeps its code, anything else is a SERVER_ERROR', async () => {
    const s = await start(new ScriptedHandler());
    const c = await session(s);
    let e = parseError((await c.request(4, 1, Op.QUERY, queryBody(4, 'invalid'))).body);
    expect(e).toEqual({ code: 0x2200, message: 'no such thing' });
    e = parseError((await c.request(4, 2, Op.QUERY, queryBody(4, 'crash'))).body);
    expect(e).toEqual({ code: 0x0000, message: 'handler bug' });
    e = parseError((await c.request(4, 3, Op.QUERY, queryBody(4, 'reject'))).body);
    expect(e).toEqual({ code: 0x2200, message: 'rejected' });
    expect(echo(await c.request(4, 4, Op.QUERY, queryBody(4, 'still fine')))).toBe('still fine');
    c.close();
  });

  it('pushes events to registered connections only, on stream -1', async () => {
    const handler = new ScriptedHandler();
    const s = await start(handler);
    const registered = await session(s);
    const other = await session(s);
    const ready = await registered.request(4, 1, Op.REGISTER, stringList(['SCHEMA_CHANGE', 'STATUS_CHANGE']));
    expect(ready.opcode).toBe(Op.READY);
    handler.listener!({
      type: 'SCHEMA_CHANGE',
      change: { change: 'CREATED', target: 'TABLE', keyspace: 'ks', name: 't' },
    });
    handler.listener!({ type: 'STATUS_CHANGE', change: 'UP', address: '127.0.0.1', port: 9042 });
    handler.listener!({ type: 'TOPOLOGY_CHANGE', change: 'NEW_NODE', address: '127.0.0.1', port: 9042 });
    const e1 = await registered.next();
    expect([e1.stream, e1.opcode]).toEqual([-1, Op.EVENT]);
    const r = new Reader(e1.body);
    expect([r.string(), r.string(), r.string(), r.string(), r.string()]).toEqual([
      'SCHEMA_CHANGE',
      'CREATED',
      'TABLE',
      'ks',
      't',
    ]);
    const e2 = new Reader((await registered.next()).body);
    expect([e2.string(), e2.string()]).toEqual(['STATUS_CHANGE', 'UP']);
    await expect(registered.next(150)).rejects.toThrow(/timed out/);
    await expect(other.next(150)).rejects.toThrow(/timed out/);
    registered.close();
    other.close();
  });

  it('tracks keyspace, driver and protocol version per connection', async () => {
    const handler = new ScriptedHandler();
    const s = await start(handler);
    const c = await session(s, 5);
    c.sendSegment([frameBytes(5, 1, Op.QUERY, queryBody(5, 'use ks1'))]);
    await c.response(1);
    c.sendSegment([frameBytes(5, 2, Op.QUERY, queryBody(5, 'who'))]);
    await c.response(2);
    expect(handler.states.at(-1)!.keyspace).toBe('ks1');
    expect(handler.states.at(-1)!.protocolVersion).toBe(5);
    const [info] = s.connections;
    expect(info).toMatchObject({
      protocolVersion: 5,
      driverName: 'wire-client',
      driverVersion: '0.0.1',
      keyspace: 'ks1',
      remoteAddress: '127.0.0.1',
    });
    expect(info!.requests).toBeGreaterThanOrEqual(3);
    c.close();
  });

  it('splits a large v5 response over several segments (and lz4 ones)', async () => {
    const s = await start(new ScriptedHandler());
    for (const lz4 of [false, true]) {
      const c = await WireClient.connect('127.0.0.1', s.address().port);
      await c.request(5, 0, Op.STARTUP, startupBody(lz4 ? { COMPRESSION: 'lz4' } : {}));
      c.useSegments(lz4);
      c.sendSegment(
        [frameBytes(5, 1, Op.QUERY, queryBody(5, 'big 400000')), frameBytes(5, 2, Op.QUERY, queryBody(5, 'small'))],
        lz4,
      );
      const big = parseRows((await c.response(1)).body);
      expect(big.rows[0]![0]!.length).toBe(400_000);
      expect(echo(await c.response(2))).toBe('small');
      c.close();
    }
  });

  it('authenticates through a SASL negotiator before serving requests', async () => {
    const handler = new ScriptedHandler();
    const authenticator: Authenticator = {
      className: 'org.apache.cassandra.auth.PasswordAuthenticator',
      requireAuthentication: () => true,
      newSaslNegotiator: () => {
        let step = 0;
        return {
          evaluateResponse(token): SaslStep | Promise<SaslStep> {
            const t = token?.toString();
            if (t === 'bad') throw new AuthenticationError('Provided username and/or password are incorrect');
            if (t === 'async') return Promise.resolve({ success: true, user: 'carol' });
            if (step++ === 0 && t === 'two-step') return { challenge: Buffer.from('more') };
            return { success: true, user: t === 'two-step' ? 'bob' : 'alice' };
          },
        };
      },
    };
    const s = await start(handler, { authenticator });
    for (const version of [4, 5]) {
      const c = await WireClient.connect('127.0.0.1', s.address().port);
      const auth = await c.request(version, 0, Op.STARTUP, startupBody());
      expect(auth.opcode).toBe(Op.AUTHENTICATE);
      expect(new Reader(auth.body).string()).toBe('org.apache.cassandra.auth.PasswordAuthenticator');
      if (version === 5) c.useSegments(false);
      const send = (stream: number, opcode: number, body: Buffer) =>
        version === 5 ? c.sendSegment([frameBytes(5, stream, opcode, body)]) : c.send(4, stream, opcode, body);
      const token = (t: string) => Buffer.concat([Buffer.from([0, 0, 0, t.length]), Buffer.from(t)]);

      send(1, Op.QUERY, queryBody(version, 'too early'));
      expect(parseError((await c.response(1)).body).message).toContain('expecting SASL_RESPONSE');
      send(2, 0x0f, token('bad'));
      expect(parseError((await c.response(2)).body).code).toBe(0x0100);
      send(3, 0x0f, token('two-step'));
      const challenge = await c.response(3);
      expect(challenge.opcode).toBe(0x0e);
      send(4, 0x0f, token('two-step'));
      expect((await c.response(4)).opcode).toBe(0x10);
      send(5, Op.QUERY, queryBody(version, 'now'));
      expect(echo(await c.response(5))).toBe('now');
      expect(handler.states.at(-1)!.user).toBe('bob');
      c.close();
    }
  });

  it('refuses connections over the limit', async () => {
    const s = await start(new ScriptedHandler(), { limits: { maxConnections: 1 } });
    const a = await session(s);
    const b = await WireClient.connect('127.0.0.1', s.address().port);
    expect(await b.waitClosed(2000)).toBe(true);
    expect((await a.request(4, 5, Op.OPTIONS)).opcode).toBe(Op.SUPPORTED);
    a.close();
  });

  it('survives mutated frames and segments (including lz4 garbage behind valid CRCs)', async () => {
    // Bad input must come back as protocol errors, never as "unexpected" server errors.
    const errors: string[] = [];
    const capture = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
    const s = await start(new ScriptedHandler(), { logger: capture });
    let x = 2024;
    const rnd = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) / 2 ** 32;
    };
    for (let i = 0; i < 150; i++) {
      const mode = i % 3;
      const c = await WireClient.connect('127.0.0.1', s.address().port);
      await c.request(mode === 0 ? 4 : 5, 0, Op.STARTUP, startupBody(mode === 2 ? { COMPRESSION: 'lz4' } : {}));
      if (mode > 0) c.useSegments(mode === 2);
      const envelope = frameBytes(mode === 0 ? 4 : 5, 1, Op.QUERY, queryBody(mode === 0 ? 4 : 5, `q ${i}`));
      let bytes: Buffer;
      if (mode === 0) {
        bytes = Buffer.from(envelope);
        bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      } else if (mode === 1) {
        const mutated = Buffer.from(envelope);
        mutated[Math.floor(rnd() * mutated.length)] = Math.floor(rnd() * 256);
        bytes = segmentBytes(mutated, rnd() < 0.8);
      } else {
        // A well-formed lz4 segment header and CRCs around a random "compressed" payload.
        const payload = Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256)));
        const header = Buffer.alloc(8);
        header.writeUIntLE(payload.length + (1 + Math.floor(rnd() * 200)) * 2 ** 17 + 2 ** 34, 0, 5);
        header.writeUIntLE(clientCrc24(header.subarray(0, 5)), 5, 3);
        const trailer = Buffer.alloc(4);
        trailer.writeUInt32LE(payloadCrc(payload), 0);
        bytes = Buffer.concat([header, payload, trailer]);
      }
      c.write(bytes);
      await c.next(50).catch(() => undefined);
      c.close();
    }
    const c = await session(s);
    expect(echo(await c.request(4, 1, Op.QUERY, queryBody(4, 'alive')))).toBe('alive');
    c.close();
    expect(errors).toEqual([]);
  });

  it('closes gracefully: in-flight requests are answered first', async () => {
    const s = await start(new ScriptedHandler());
    const c = await session(s);
    c.send(4, 1, Op.QUERY, queryBody(4, 'slow 100'));
    await new Promise((r) => setTimeout(r, 20));
    const closing = s.close();
    const f = await c.response(1);
    expect(echo(f)).toBe('slow 100');
    expect(await c.waitClosed()).toBe(true);
    await closing;
    server = undefined;
  });
});
