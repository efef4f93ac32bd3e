// The in-flight request data budgets (native_transport_max_request_data_in_flight and ..._per_ip)
// in process: a connection pipelining large requests stops being read once the budget is
// used up and resumes when answers free it; a connection with nothing in flight always gets one
// request in; nothing is lost or reordered within a stream.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueryHandler, ResultMessage } from '../cql/query-handler.js';
import { ConfigError, loadConfig } from '../server/config.js';
import { InFlightBudget } from '../server/connection.js';
import { NativeServer, type NativeServerLimits } from '../server/native-server.js';
import { Op, queryBody, RawClient } from './support/fuzz-wire.js';

const logger = pino({ level: 'silent' });
const KiB = 1024;

/** Holds every query until release(); counts what reached it. */
class HoldingHandler implements QueryHandler {
  received = 0;
  private held: (() => void)[] = [];
  query(): Promise<ResultMessage> {
    this.received++;
    return new Promise((resolve) => this.held.push(() => resolve({ kind: 'void' })));
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
  onEvent(): void {}
  release(): void {
    const h = this.held;
    this.held = [];
    for (const f of h) f();
  }
}

let server: NativeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(handler: QueryHandler, limits: NativeServerLimits): Promise<NativeServer> {
  server = new NativeServer({ handler, logger, host: '127.0.0.1', port: 0, limits });
  await server.listen();
  return server;
}

const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

describe('in-flight request data budgets', () => {
  it('are configured with Cassandra 5.0 names', () => {
    const defaults = loadConfig({ env: {} });
    expect(defaults.native_transport_max_request_data_in_flight).toBe(256 * 1024 * 1024);
    expect(defaults.native_transport_max_request_data_in_flight_per_ip).toBe(64 * 1024 * 1024);
    const c = loadConfig({
      env: {
        PMEMCQL_NATIVE_TRANSPORT_MAX_REQUEST_DATA_IN_FLIGHT: '1GiB',
        PMEMCQL_NATIVE_TRANSPORT_MAX_REQUEST_DATA_IN_FLIGHT_PER_IP: '16MiB',
      },
    });
    expect(c.native_transport_max_request_data_in_flight).toBe(1024 ** 3);
    expect(c.native_transport_max_request_data_in_flight_per_ip).toBe(16 * 1024 * 1024);
    expect(() => loadConfig({ flags: { native_transport_max_request_data_in_flight: 'lots' } })).toThrow(ConfigError);
  });

  it('InFlightBudget wakes its waiters once when it is no longer used up', () => {
    const b = new InFlightBudget(100);
    let woken = 0;
    b.acquire(60);
    b.acquire(60);
    expect(b.exhausted).toBe(true);
    b.wait(() => woken++);
    b.release(10);
    expect(woken).toBe(0);
    b.release(60);
    expect(woken).toBe(1);
    b.acquire(100);
    b.release(100);
    expect(woken).toBe(1);
    expect(b.used).toBe(50);
  });

  it('per client address: pipelined large requests are read only as the budget allows', async () => {
    const handler = new HoldingHandler();
    const s = await start(handler, {
      maxRequestDataInFlightPerIp: 1024 * KiB,
      maxRequestDataInFlight: 64 * 1024 * KiB,
    });
    const a = await RawClient.ready('127.0.0.1', s.address().port);
    const big = Buffer.alloc(300 * KiB, 0x61);
    for (let i = 1; i <= 10; i++) a.send(4, i, Op.QUERY, queryBody(4, `q${i}`, [big]));
    await settle();
    // 3 x 300 KiB < 1 MiB, the 4th uses the budget up: reading stops there.
    expect(handler.received).toBe(4);
    // Another connection from the same address with nothing in flight still gets one request in.
    const b = await RawClient.ready('127.0.0.1', s.address().port);
    b.send(4, 1, Op.QUERY, queryBody(4, 'other', [big]));
    await settle();
    expect(handler.received).toBe(5);
    // Answers free the budget; everything is eventually served.
    const answered: number[] = [];
    for (let round = 0; round < 10 && answered.length < 10; round++) {
      handler.release();
      await settle(50);
      for (let i = 1; i <= 10; i++) {
        if (answered.includes(i)) continue;
        const f = await a.response(i, 200).catch(() => undefined);
        if (f) {
          expect(f.opcode).toBe(Op.RESULT);
          answered.push(i);
        }
      }
    }
    expect(answered.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await b.response(1)).opcode).toBe(Op.RESULT);
    expect(handler.received).toBe(11);
    a.close();
    b.close();
  });

  it('the server-wide budget pauses every connection, and a closed connection frees its share', async () => {
    const handler = new HoldingHandler();
    const s = await start(handler, { maxRequestDataInFlightPerIp: 64 * 1024 * KiB, maxRequestDataInFlight: 512 * KiB });
    const big = Buffer.alloc(200 * KiB, 0x62);
    const clients = await Promise.all([1, 2, 3].map(() => RawClient.ready('127.0.0.1', s.address().port)));
    for (const c of clients) for (let i = 1; i <= 5; i++) c.send(4, i, Op.QUERY, queryBody(4, `q${i}`, [big]));
    await settle();
    // Each connection gets at least one request in; beyond the budget, none gets more than that.
    expect(handler.received).toBeGreaterThanOrEqual(3);
    expect(handler.received).toBeLessThanOrEqual(5);
    // A client going away with requests in flight: once answered, its bytes are released, and the
    // others' remaining requests are read and served (the handler answers every 20 ms from now on).
    clients[0]!.close();
    const releaser = setInterval(() => handler.release(), 20);
    try {
      for (const c of clients.slice(1)) {
        for (let i = 1; i <= 5; i++) expect((await c.response(i)).opcode).toBe(Op.RESULT);
        c.close();
      }
    } finally {
      clearInterval(releaser);
    }
    expect(handler.received).toBeGreaterThanOrEqual(11);
  });
});
