// The native-protocol TCP server: accepts sockets, gives each a Connection, fans server events
// out to registered connections, and shuts down gracefully (stop accepting, let in-flight
// requests answer, close).

import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { QueryHandler, ServerEvent } from '../cql/query-handler.js';
import { AllowAllAuthenticator, type Authenticator } from './authenticator.js';
import { Connection, type ConnectionInfo, InFlightBudget } from './connection.js';
import { TlsAcceptor, type TlsSettings } from './tls-options.js';

export interface NativeServerLimits {
  /** Largest request envelope, header included (Cassandra 5.0 native_transport_max_frame_size: 16 MiB). */
  maxFrameBytes?: number;
  /** Requests awaiting an asynchronous result before the connection stops reading. */
  maxInFlightPerConnection?: number;
  /** Further connections are closed at once (Cassandra: native_transport_max_concurrent_connections). */
  maxConnections?: number;
  /** Further connections from one client address are closed at once (..._per_ip in Cassandra). */
  maxConnectionsPerIp?: number;
  /** Bytes of requests in flight over all connections before reading pauses. */
  maxRequestDataInFlight?: number;
  /** The same for the connections of one client address. */
  maxRequestDataInFlightPerIp?: number;
}

export interface NativeServerOptions {
  handler: QueryHandler;
  logger: Logger;
  host: string;
  port: number;
  authenticator?: Authenticator;
  limits?: NativeServerLimits;
  /** Client encryption (client_encryption_options); plain only when undefined. */
  tls?: TlsSettings | undefined;
}

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION = 1024;
/** Cassandra's defaults are heap/10 and heap/40; these suit a server holding data outside its heap. */
export const DEFAULT_MAX_REQUEST_DATA_IN_FLIGHT = 256 * 1024 * 1024;
export const DEFAULT_MAX_REQUEST_DATA_IN_FLIGHT_PER_IP = 64 * 1024 * 1024;

/** How long close() waits for in-flight requests before dropping connections. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

export class NativeServer {
  private readonly handler: QueryHandler;
  private readonly log: Logger;
  private readonly host: string;
  private readonly port: number;
  private readonly authenticator: Authenticator;
  private readonly maxFrameBytes: number;
  private readonly maxInFlight: number;
  private readonly maxConnections: number;
  private readonly maxConnectionsPerIp: number;
  // Request bytes in flight, for the whole server and per client address.
  private readonly inFlightBudget: InFlightBudget;
  private readonly maxRequestDataInFlightPerIp: number;
  private readonly ipBudgets = new Map<string, InFlightBudget>();
  private readonly server: Server;
  private readonly tls: TlsAcceptor | undefined;
  private readonly live = new Set<Connection>();
  private nextId = 1;
  private listening = false;
  private stopped = false;

  constructor(options: NativeServerOptions) {
    this.handler = options.handler;
    this.log = options.logger;
    this.host = options.host;
    this.port = options.port;
    this.authenticator = options.authenticator ?? new AllowAllAuthenticator();
    const limits = options.limits ?? {};
    this.maxFrameBytes = limits.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxInFlight = limits.maxInFlightPerConnection ?? DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION;
    this.maxConnections = limits.maxConnections ?? Number.POSITIVE_INFINITY;
    this.maxConnectionsPerIp = limits.maxConnectionsPerIp ?? Number.POSITIVE_INFINITY;
    this.inFlightBudget = new InFlightBudget(limits.maxRequestDataInFlight ?? DEFAULT_MAX_REQUEST_DATA_IN_FLIGHT);
    this.maxRequestDataInFlightPerIp = limits.maxRequestDataInFlightPerIp ?? DEFAULT_MAX_REQUEST_DATA_IN_FLIGHT_PER_IP;
    this.tls =
      options.tls &&
      new TlsAcceptor(
        options.tls,
        (s) => (this.stopped ? s.destroy() : this.open(s)),
        (e) => this.log.debug({ err: e }, 'TLS handshake failed'),
      );
    this.server = createServer({ noDelay: true }, this.accept);
    // Before listening, an error (the port is taken) is listen()'s to report, as the start-up failure it is.
    this.server.on('error', (e) => {
      if (this.listening) this.log.error({ err: e }, 'native transport server error');
    });
    this.handler.onEvent(this.broadcast);
  }

  /** Live connections, for system_views.clients. */
  get connections(): readonly ConnectionInfo[] {
    return [...this.live];
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.server.once('error', onError);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError);
        this.listening = true;
        this.log.info({ address: this.address() }, 'native transport listening');
        resolve();
      });
    });
  }

  /** The bound address (the actual port when 0 was asked for). */
  address(): { host: string; port: number } {
    const a = this.server.address();
    if (a !== null && typeof a === 'object') return { host: a.address, port: a.port };
    return { host: this.host, port: this.port };
  }

  /** Stops accepting, lets in-flight requests finish (bounded), closes every connection. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const serverClosed = this.listening
      ? new Promise<void>((resolve) => this.server.close(() => resolve()))
      : Promise.resolve();
    const drained = Promise.all([...this.live].map((c) => c.shutdown()));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        for (const c of this.live) c.destroy();
        resolve();
      }, SHUTDOWN_TIMEOUT_MS);
    });
    await Promise.race([drained, timeout]);
    clearTimeout(timer);
    await serverClosed;
    this.log.info('native transport closed');
  }

  private readonly accept = (socket: Socket): void => {
    try {
      if (this.stopped) {
        socket.destroy();
        return;
      }
      if (this.live.size >= this.maxConnections) {
        this.log.warn(
          { limit: this.maxConnections, remote: socket.remoteAddress },
          'Exceeded maximum native connection limit; closing the new connection',
        );
        socket.on('error', () => {});
        socket.destroy();
        return;
      }
      if (Number.isFinite(this.maxConnectionsPerIp)) {
        let fromIp = 0;
        for (const c of this.live) if (c.remoteAddress === socket.remoteAddress) fromIp++;
        if (fromIp >= this.maxConnectionsPerIp) {
          this.log.warn(
            { limit: this.maxConnectionsPerIp, remote: socket.remoteAddress },
            'Exceeded maximum native connection limit per IP; closing the new connection',
          );
          socket.on('error', () => {});
          socket.destroy();
          return;
        }
      }
      if (this.tls !== undefined) {
        // TLS: the first byte tells a TLS handshake from a CQL frame (optional: both on one port).
        this.tls.accept(socket, (s) => this.open(s));
        return;
      }
      this.open(socket);
    } catch (e) {
      this.log.error({ err: e }, 'cannot accept a connection');
      socket.destroy();
    }
  };

  private open(socket: Socket): void {
    try {
      const ip = socket.remoteAddress ?? '';
      let ipBudget = this.ipBudgets.get(ip);
      if (ipBudget === undefined) {
        ipBudget = new InFlightBudget(this.maxRequestDataInFlightPerIp);
        this.ipBudgets.set(ip, ipBudget);
      }
      const connection = new Connection({
        id: this.nextId++,
        socket,
        handler: this.handler,
        authenticator: this.authenticator,
        logger: this.log,
        maxFrameBytes: this.maxFrameBytes,
        maxInFlight: this.maxInFlight,
        budgets: [this.inFlightBudget, ipBudget],
        onClose: this.forget,
      });
      this.live.add(connection);
    } catch (e) {
      this.log.error({ err: e }, 'cannot accept a connection');
      socket.destroy();
    }
  }

  private readonly forget = (connection: Connection): void => {
    this.live.delete(connection);
    // Drop the address's budget with its last connection (late releases go to the old object).
    const ip = connection.remoteAddress;
    for (const c of this.live) if (c.remoteAddress === ip) return;
    this.ipBudgets.delete(ip);
  };

  private readonly broadcast = (event: ServerEvent): void => {
    if (this.stopped) return;
    for (const c of this.live) c.pushEvent(event);
  };
}
