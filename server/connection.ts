// One client socket: takes the envelopes its EnvelopeReader cuts out of the bytes (frames, or v5 segments after
// STARTUP), runs the connection state machine (OPTIONS/STARTUP -> [AUTH_RESPONSE...] -> requests),
// hands requests to the QueryHandler and writes every response produced in one event-loop
// turn with a single socket write. Responses may leave out of order (per stream id).

import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { AuthenticationError, CqlError, InvalidRequest, ProtocolError, ServerError } from '../cql/errors.js';
import type { ClientState, QueryHandler, ResultMessage, ServerEvent } from '../cql/query-handler.js';
import type { Authenticator, SaslNegotiator, SaslStep } from './authenticator.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { EnvelopeReader, type EnvelopeSink } from './envelope-reader.js';
import { writeError } from './error-encoder.js';
import {
  type BodyCompressor,
  beginFrame,
  beginV2Frame,
  endFrame,
  endV2Frame,
  HEADER_LENGTH,
  HeaderFlag,
} from './frame-codec.js';
import { lz4CompressBody, lz4DecompressBody } from './lz4-compression.js';
import { isRequestOpcode, Opcode, opcodeName } from './opcode.js';
import { PROTOCOL_VERSION_DESCRIPTIONS, refusalVersion, unsupportedVersionMessage } from './protocol-version.js';
import {
  decodeAuthResponse,
  decodeBatch,
  decodeExecute,
  decodePrepare,
  decodeQuery,
  decodeRegister,
  decodeStartup,
} from './request-decoder.js';
import { writeAuthenticate, writeAuthToken, writeEvent, writeResult, writeSupported } from './response-encoder.js';
import { encodeSegments } from './segment-codec.js';
import { snappyCompressBody, snappyDecompressBody } from './snappy-compression.js';

/** What system_views.clients shows about a connection. */
export interface ConnectionInfo {
  readonly id: number;
  readonly remoteAddress: string;
  readonly remotePort: number;
  /** Undefined until STARTUP. */
  readonly protocolVersion: number | undefined;
  readonly driverName: string | undefined;
  readonly driverVersion: string | undefined;
  readonly compression: string | undefined;
  readonly keyspace: string | undefined;
  readonly user: string | undefined;
  readonly requests: number;
  readonly connectedAt: Date;
  /** The STARTUP options the client sent (undefined before STARTUP). */
  readonly startupOptions: ReadonlyMap<string, string> | undefined;
  /** The negotiated TLS cipher and protocol, undefined on a plain connection. */
  readonly tls: { readonly cipher: string; readonly protocol: string } | undefined;
}

export interface ConnectionOptions {
  id: number;
  socket: Socket;
  handler: QueryHandler;
  authenticator: Authenticator;
  logger: Logger;
  maxFrameBytes: number;
  maxInFlight: number;
  /**
   * Bytes of requests in flight, shared with other connections (the server's total and this client
   * address's): reading stops while one is used up (Cassandra's native_transport_max_request_data_in_flight
   * and ..._per_ip), so a flood of large requests cannot hold unbounded memory.
   */
  budgets?: readonly InFlightBudget[];
  onClose: (connection: Connection) => void;
}

/**
 * A byte budget for requests in flight (robustness). A connection with nothing in flight may
 * always read one more request, so no client starves and a request larger than the budget still runs.
 */
export class InFlightBudget {
  used = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly limit: number) {}

  get exhausted(): boolean {
    return this.used >= this.limit;
  }

  acquire(bytes: number): void {
    this.used += bytes;
  }

  release(bytes: number): void {
    const was = this.exhausted;
    this.used -= bytes;
    if (was && !this.exhausted && this.waiting.size > 0) {
      const waiting = [...this.waiting];
      this.waiting.clear();
      for (const resume of waiting) resume();
    }
  }

  /** Calls `resume` once when the budget is no longer used up. */
  wait(resume: () => void): void {
    this.waiting.add(resume);
  }

  forget(resume: () => void): void {
    this.waiting.delete(resume);
  }
}

const Stage = { INITIAL: 0, AUTHENTICATING: 1, READY: 2 } as const;
type StageValue = (typeof Stage)[keyof typeof Stage];

export const SUPPORTED_OPTIONS: ReadonlyMap<string, readonly string[]> = new Map([
  ['CQL_VERSION', ['3.4.7']],
  ['COMPRESSION', ['lz4', 'snappy']],
  ['PROTOCOL_VERSIONS', PROTOCOL_VERSION_DESCRIPTIONS],
]);

/** Grace period for a peer to read our last bytes before the socket is destroyed. */
const CLOSE_GRACE_MS = 2000;
/** Encoded scan pages from this size on are written as their own chunk instead of being copied into `out`. */
const UNCOPIED_CELLS_MIN = 64 * 1024;
const NO_CELLS = Buffer.alloc(0);

type Decompressor = (body: Buffer, maxLength: number) => Buffer;

export class Connection implements ConnectionInfo {
  readonly id: number;
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly connectedAt = new Date();
  driverName: string | undefined;
  driverVersion: string | undefined;
  compression: string | undefined;
  startupOptions: ReadonlyMap<string, string> | undefined;
  requests = 0;

  private readonly socket: Socket;
  private readonly handler: QueryHandler;
  private readonly authenticator: Authenticator;
  private readonly log: Logger;
  private readonly maxFrameBytes: number;
  private readonly maxInFlight: number;
  private readonly budgets: readonly InFlightBudget[];
  private readonly onCloseCallback: (connection: Connection) => void;

  private stage: StageValue = Stage.INITIAL;
  /** Negotiated by STARTUP; 0 before. */
  private version = 0;
  private state: ClientState | undefined;
  private negotiator: SaslNegotiator | undefined;
  private readonly events = new Set<string>();

  // Input: envelopes cut out of the bytes (envelope-reader.ts); v5 segments and compression as STARTUP chose.
  private readonly input: EnvelopeReader;
  private segments = false;
  private lz4Segments = false;
  private compressBody: BodyCompressor | undefined;
  private decompressBody: Decompressor | undefined;
  private readonly reader = new ByteReader(Buffer.alloc(0));

  // Output: frames of this turn, written once by flush().
  private readonly out = new ByteWriter();
  /**
   * Bytes of this turn that go before `out`'s, in order: large encoded scan pages are sent as their own chunk
   * rather than copied into `out` (plain v3/v4 framing only).
   */
  private readonly chunks: Buffer[] = [];
  private readonly envelopeEnds: number[] = [];
  private flushScheduled = false;

  // Flow control and lifecycle.
  private inFlight = 0;
  /** Size of the request being dispatched, and of those in flight. */
  private requestBytes = 0;
  private inFlightBytes = 0;
  private readPaused = false;
  private writeBlocked = false;
  /** No more input is processed (fatal error or server shutdown). */
  private closing = false;
  private ended = false;
  private closed = false;
  private shutdownWaiters: (() => void)[] = [];

  constructor(o: ConnectionOptions) {
    this.id = o.id;
    this.socket = o.socket;
    this.handler = o.handler;
    this.authenticator = o.authenticator;
    this.maxFrameBytes = o.maxFrameBytes;
    this.maxInFlight = o.maxInFlight;
    this.budgets = o.budgets ?? [];
    this.onCloseCallback = o.onClose;
    this.remoteAddress = o.socket.remoteAddress ?? '';
    this.remotePort = o.socket.remotePort ?? 0;
    this.log = o.logger.child({ conn: o.id, remote: `${this.remoteAddress}:${this.remotePort}` });
    this.input = new EnvelopeReader(this.envelopeSink(), o.maxFrameBytes, `[conn ${o.id}]`);
    o.socket.setNoDelay(true);
    o.socket.on('data', this.onData);
    o.socket.on('drain', this.onDrain);
    o.socket.on('error', this.onError);
    o.socket.on('close', this.onSocketClose);
  }

  get protocolVersion(): number | undefined {
    return this.version === 0 ? undefined : this.version;
  }

  get keyspace(): string | undefined {
    return this.state?.keyspace;
  }

  get tls(): { cipher: string; protocol: string } | undefined {
    const s = this.socket as Partial<TLSSocket>;
    if (typeof s.getCipher !== 'function') return undefined;
    return { cipher: s.getCipher().standardName, protocol: s.getProtocol?.() ?? '' };
  }

  get user(): string | undefined {
    return this.state?.user;
  }

  /** Pushes a server event if this connection REGISTERed for its type (stream id -1). */
  pushEvent(event: ServerEvent): void {
    if (this.closing || this.closed || !this.events.has(event.type)) return;
    try {
      const mark = beginFrame(this.out, this.version, -1, Opcode.EVENT);
      writeEvent(this.out, event);
      this.finishFrame(mark);
      this.scheduleFlush();
    } catch (e) {
      this.log.error({ err: e }, 'cannot encode event');
    }
  }

  /** Stops reading, lets in-flight requests finish and their responses go out, then closes. */
  shutdown(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.shutdownWaiters.push(resolve));
    this.closing = true;
    this.socket.pause();
    if (this.inFlight === 0) this.endSocket();
    return done;
  }

  /** Closes at once, dropping unsent responses. */
  destroy(): void {
    this.closing = true;
    this.socket.destroy();
  }

  // ---- socket events (bound once; every handler is guarded so a bad client cannot crash us)

  private readonly onData = (chunk: Buffer): void => {
    if (this.closing) return;
    try {
      this.input.receive(chunk);
      this.flush();
    } catch (e) {
      this.log.error({ err: e }, 'unexpected error while reading from the client; closing');
      this.socket.destroy();
    }
  };

  private readonly onDrain = (): void => {
    this.writeBlocked = false;
    this.updateReading();
  };

  private readonly onError = (e: Error): void => {
    this.log.debug({ err: e }, 'socket error');
  };

  private readonly onSocketClose = (): void => {
    this.closed = true;
    this.closing = true;
    for (const b of this.budgets) b.forget(this.onBudget);
    this.log.debug('connection closed');
    try {
      this.onCloseCallback(this);
    } finally {
      for (const w of this.shutdownWaiters) w();
      this.shutdownWaiters = [];
    }
  };

  private readonly onBudget = (): void => {
    this.updateReading();
  };

  private readonly flushNow = (): void => {
    this.flushScheduled = false;
    try {
      this.flush();
    } catch (e) {
      this.log.error({ err: e }, 'flush failed');
      this.socket.destroy();
    }
  };

  /** What the envelope reader hands back: envelopes to handle, and the answers to broken input. */
  private envelopeSink(): EnvelopeSink {
    const conn = this;
    return {
      get closing() {
        return conn.closing;
      },
      envelope: (version, flags, stream, opcode, buf, bodyStart, bodyEnd, fromServer) =>
        this.handleEnvelope(version, flags, stream, opcode, buf, bodyStart, bodyEnd, fromServer),
      // Cassandra's answer: InvalidRequest on the envelope's stream (the reader then skips its body).
      tooBig: (stream, version, total) =>
        this.sendError(
          stream,
          this.version || version,
          new InvalidRequest(
            `Request is too big: length ${total} exceeds maximum allowed length ${this.maxFrameBytes}.`,
          ),
        ),
      unsupportedVersion: (version, stream) => this.refuseVersion(version, stream),
      corruptSegment: (e) => {
        this.log.warn({ err: e }, 'corrupt segment; closing');
        this.sendError(0, this.version, e);
        if (!this.closing) this.fatal(undefined);
      },
      fatal: (e) => this.fatal(e),
    };
  }

  // ---- requests

  private handleEnvelope(
    version: number,
    flags: number,
    stream: number,
    opcode: number,
    buf: Buffer,
    bodyStart: number,
    bodyEnd: number,
    fromServer: boolean,
  ): void {
    this.requests++;
    const replyVersion = this.version || version;
    try {
      if (this.version !== 0 && version !== this.version) {
        throw new ProtocolError(
          `Invalid message version. Got v${version} but previous messages on this connection had version v${this.version}`,
        );
      }
      if (fromServer || !isRequestOpcode(opcode)) throw wrongOpcode(opcode, fromServer);
      const r = this.reader.reset(buf, bodyStart, bodyEnd);
      this.requestBytes = HEADER_LENGTH + bodyEnd - bodyStart;
      if (flags & HeaderFlag.COMPRESSION && !this.segments) {
        if (this.decompressBody === undefined) {
          throw new ProtocolError('Received a compressed frame but no compression was negotiated');
        }
        r.reset(this.decompressBody(buf.subarray(bodyStart, bodyEnd), this.maxFrameBytes));
        this.requestBytes += r.end;
      }
      if (flags & HeaderFlag.CUSTOM_PAYLOAD) {
        if (version < 4)
          throw new ProtocolError('Received frame with CUSTOM_PAYLOAD flag for native protocol version < 4');
        r.skipBytesMap();
      }
      this.checkStage(opcode);
      this.dispatch(version, stream, opcode, r, (flags & HeaderFlag.TRACING) !== 0);
    } catch (e) {
      this.sendError(stream, replyVersion, e);
    }
  }

  private checkStage(opcode: number): void {
    const stage = this.stage;
    if (stage === Stage.READY) {
      if (opcode === Opcode.STARTUP) {
        throw new ProtocolError('Unexpected message STARTUP, the connection is already initialized');
      }
      if (opcode === Opcode.AUTH_RESPONSE) {
        throw new ProtocolError('Unexpected message AUTH_RESPONSE, the connection is already authenticated');
      }
    } else if (stage === Stage.INITIAL) {
      if (opcode !== Opcode.STARTUP && opcode !== Opcode.OPTIONS) {
        throw new ProtocolError(`Unexpected message ${opcodeName(opcode)}, expecting STARTUP or OPTIONS`);
      }
    } else if (opcode !== Opcode.AUTH_RESPONSE && opcode !== Opcode.OPTIONS) {
      throw new ProtocolError(`Unexpected message ${opcodeName(opcode)}, expecting SASL_RESPONSE`);
    }
  }

  private dispatch(version: number, stream: number, opcode: number, r: ByteReader, tracing: boolean): void {
    switch (opcode) {
      case Opcode.QUERY: {
        const q = decodeQuery(r, version);
        if (tracing) q.options.tracing = true;
        this.complete(stream, this.handler.query(this.state!, q.query, q.options));
        return;
      }
      case Opcode.EXECUTE: {
        const x = decodeExecute(r, version);
        if (tracing) x.options.tracing = true;
        this.complete(stream, this.handler.execute(this.state!, x.id, x.resultMetadataId, x.options));
        return;
      }
      case Opcode.PREPARE: {
        const p = decodePrepare(r, version);
        this.complete(stream, this.handler.prepare(this.state!, p.query, p.keyspace));
        return;
      }
      case Opcode.BATCH: {
        const batch = decodeBatch(r, version);
        if (tracing) batch.tracing = true;
        this.complete(stream, this.handler.batch(this.state!, batch));
        return;
      }
      case Opcode.OPTIONS: {
        const mark = beginFrame(this.out, version, stream, Opcode.SUPPORTED);
        writeSupported(this.out, SUPPORTED_OPTIONS);
        this.finishFrame(mark);
        return;
      }
      case Opcode.STARTUP:
        this.startup(version, stream, r);
        return;
      case Opcode.REGISTER: {
        for (const t of decodeRegister(r)) this.events.add(t);
        const mark = beginFrame(this.out, version, stream, Opcode.READY);
        this.finishFrame(mark);
        return;
      }
      case Opcode.AUTH_RESPONSE:
        this.authResponse(stream, decodeAuthResponse(r));
        return;
    }
  }

  private startup(version: number, stream: number, r: ByteReader): void {
    const options = decodeStartup(r);
    if (options.get('CQL_VERSION') === undefined) {
      throw new ProtocolError('Missing value CQL_VERSION in STARTUP message');
    }
    let compression = options.get('COMPRESSION')?.toLowerCase();
    if (compression === '') compression = undefined;
    if (compression === 'snappy') {
      if (version >= 5) throw new ProtocolError('Snappy compression is not supported in protocol V5');
    } else if (compression !== undefined && compression !== 'lz4') {
      throw new ProtocolError(`Unknown compression algorithm: ${compression}`);
    }
    this.version = version;
    this.compression = compression;
    this.startupOptions = options;
    this.driverName = options.get('DRIVER_NAME');
    this.driverVersion = options.get('DRIVER_VERSION');
    this.state = {
      keyspace: undefined,
      user: undefined,
      protocolVersion: version,
      remoteAddress: this.remoteAddress,
      remotePort: this.remotePort,
    };
    let mark: number;
    if (this.authenticator.requireAuthentication()) {
      this.negotiator = this.authenticator.newSaslNegotiator(this);
      this.stage = Stage.AUTHENTICATING;
      mark = beginFrame(this.out, version, stream, Opcode.AUTHENTICATE);
      writeAuthenticate(this.out, this.authenticator.className);
    } else {
      this.stage = Stage.READY;
      mark = beginFrame(this.out, version, stream, Opcode.READY);
    }
    // The STARTUP response itself is neither compressed nor in a segment.
    endFrame(this.out, mark);
    if (version >= 5) {
      this.flush();
      this.segments = true;
      this.lz4Segments = compression === 'lz4';
      this.input.useSegments(this.lz4Segments);
    } else if (compression === 'lz4') {
      this.compressBody = lz4CompressBody;
      this.decompressBody = lz4DecompressBody;
    } else if (compression === 'snappy') {
      this.compressBody = snappyCompressBody;
      this.decompressBody = snappyDecompressBody;
    }
    this.log.debug({ version, compression, driver: this.driverName }, 'startup');
  }

  private authResponse(stream: number, token: Buffer | null): void {
    const negotiator = this.negotiator ?? this.authenticator.newSaslNegotiator(this);
    this.negotiator = negotiator;
    let step: SaslStep | Promise<SaslStep>;
    try {
      step = negotiator.evaluateResponse(token);
    } catch (e) {
      this.authFailed(stream, e);
      return;
    }
    if (step instanceof Promise) {
      this.inFlight++;
      this.updateReading();
      step.then(
        (s) => this.asyncAuthDone(stream, s, undefined),
        (e) => this.asyncAuthDone(stream, undefined, e ?? new AuthenticationError('Authentication failed')),
      );
    } else {
      this.authStep(stream, step);
    }
  }

  private asyncAuthDone(stream: number, step: SaslStep | undefined, err: unknown): void {
    this.inFlight--;
    try {
      if (!this.closed) {
        if (step !== undefined) this.authStep(stream, step);
        else this.authFailed(stream, err);
        this.scheduleFlush();
      }
      this.afterAsync();
    } catch (e) {
      this.onAsyncFailure(e);
    }
  }

  private authStep(stream: number, step: SaslStep): void {
    if ('challenge' in step) {
      const mark = beginFrame(this.out, this.version, stream, Opcode.AUTH_CHALLENGE);
      writeAuthToken(this.out, step.challenge);
      this.finishFrame(mark);
      return;
    }
    this.state!.user = step.user;
    this.stage = Stage.READY;
    this.negotiator = undefined;
    const mark = beginFrame(this.out, this.version, stream, Opcode.AUTH_SUCCESS);
    writeAuthToken(this.out, step.token);
    this.finishFrame(mark);
  }

  private authFailed(stream: number, e: unknown): void {
    // A fresh negotiator for the next attempt.
    this.negotiator = undefined;
    this.sendError(stream, this.version, e);
  }

  private complete(stream: number, result: ResultMessage | Promise<ResultMessage>): void {
    if (result instanceof Promise) {
      this.inFlight++;
      // The request's bytes count against the in-flight budgets until it is answered.
      const bytes = this.requestBytes;
      this.inFlightBytes += bytes;
      for (const b of this.budgets) b.acquire(bytes);
      this.updateReading();
      result.then(
        (res) => this.asyncDone(stream, res, undefined, bytes),
        (e) => this.asyncDone(stream, undefined, e ?? new ServerError('request failed'), bytes),
      );
    } else {
      this.writeResult(stream, result);
    }
  }

  private asyncDone(stream: number, result: ResultMessage | undefined, err: unknown, bytes: number): void {
    this.inFlight--;
    this.inFlightBytes -= bytes;
    for (const b of this.budgets) b.release(bytes);
    try {
      if (!this.closed) {
        if (result !== undefined) this.writeResult(stream, result);
        else this.sendError(stream, this.version, err);
        this.scheduleFlush();
      }
      this.afterAsync();
    } catch (e) {
      this.onAsyncFailure(e);
    }
  }

  // A promise callback must never throw: an unhandled rejection would end the process.
  private onAsyncFailure(e: unknown): void {
    this.log.error({ err: e }, 'unexpected error while answering a request; closing');
    this.socket.destroy();
  }

  private afterAsync(): void {
    if (this.closing) {
      if (this.inFlight === 0 && !this.ended) this.endSocket();
    } else {
      this.updateReading();
    }
  }

  // ---- output

  private writeResult(stream: number, result: ResultMessage): void {
    const warnings = result.warnings && result.warnings.length > 0 && this.version >= 4 ? result.warnings : undefined;
    const flags = (result.tracingId ? HeaderFlag.TRACING : 0) | (warnings ? HeaderFlag.WARNING : 0);
    const cells = this.uncopiedCells(result);
    const mark = beginFrame(this.out, this.version, stream, Opcode.RESULT, flags);
    try {
      // The body starts with the tracing session id, then the warnings (spec section 2.2).
      if (result.tracingId) this.out.raw(result.tracingId);
      if (warnings) this.out.stringList(warnings);
      writeResult(this.out, cells ? withoutCells(result) : result, this.version);
    } catch (e) {
      this.out.truncate(mark);
      this.sendError(stream, this.version, e);
      return;
    }
    if (result.kind === 'set_keyspace') this.state!.keyspace = result.keyspace;
    if (cells) {
      // The frame's body ends with the cells, sent after the bytes written so far.
      this.out.patchInt(mark + 5, this.out.mark - (mark + HEADER_LENGTH) + cells.length);
      this.chunks.push(this.out.take(), cells);
      return;
    }
    this.finishFrame(mark);
  }

  /** A large encoded scan page's cells, when the framing lets them go out as they are (no compression, no v5). */
  private uncopiedCells(result: ResultMessage): Buffer | undefined {
    if (result.kind !== 'rows' || !result.encoded || this.segments || this.compressBody !== undefined) return undefined;
    const bytes = result.encoded.bytes;
    return bytes.length >= UNCOPIED_CELLS_MIN ? bytes : undefined;
  }

  private sendError(stream: number, version: number, err: unknown): void {
    let e: CqlError;
    if (err instanceof CqlError) {
      e = err;
    } else {
      const message = err instanceof Error ? err.message : String(err);
      this.log.error({ err }, 'unexpected error while serving a request');
      e = new ServerError(message);
    }
    const mark = beginFrame(this.out, version, stream, Opcode.ERROR);
    writeError(this.out, e, version);
    this.finishFrame(mark);
    if (e instanceof ProtocolError && e.fatal) this.fatal(undefined);
  }

  /** Refuses an unsupported version in a framing the client can read, then closes. */
  private refuseVersion(version: number, stream: number): void {
    const replyVersion = refusalVersion(version);
    const e = new ProtocolError(unsupportedVersionMessage(version), true);
    this.log.debug({ version }, 'unsupported protocol version');
    if (replyVersion < 3) {
      const mark = beginV2Frame(this.out, replyVersion, stream, Opcode.ERROR);
      writeError(this.out, e, replyVersion);
      endV2Frame(this.out, mark);
    } else {
      const mark = beginFrame(this.out, replyVersion, stream, Opcode.ERROR);
      writeError(this.out, e, replyVersion);
      endFrame(this.out, mark);
    }
    this.fatal(undefined);
  }

  /** The byte stream cannot be trusted any more: send what is queued (plus `e`), then close. */
  private fatal(e: ProtocolError | undefined): void {
    if (e !== undefined) {
      this.sendError(0, this.version, e);
      return; // sendError comes back here for the fatal error
    }
    this.closing = true;
    this.input.discard();
    this.endSocket();
  }

  private finishFrame(mark: number): void {
    endFrame(this.out, mark, this.segments ? undefined : this.compressBody);
    if (this.segments) this.envelopeEnds.push(this.out.mark);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flushNow);
  }

  private flush(): void {
    if (this.closed || this.ended || (this.out.length === 0 && this.chunks.length === 0)) return;
    if (this.chunks.length > 0) {
      if (this.out.length > 0) this.chunks.push(this.out.take());
      // One writev for the turn, as one write of `out` would be.
      this.socket.cork();
      let drained = true;
      for (const c of this.chunks) drained = this.socket.write(c) && drained;
      this.socket.uncork();
      this.chunks.length = 0;
      if (!drained) {
        this.writeBlocked = true;
        this.updateReading();
      }
      return;
    }
    let data: Buffer;
    if (this.segments) {
      data = encodeSegments(this.out.view(0, this.out.mark), this.envelopeEnds, this.lz4Segments);
      this.out.reset();
      this.envelopeEnds.length = 0;
    } else {
      data = this.out.take();
    }
    if (!this.socket.write(data)) {
      this.writeBlocked = true;
      this.updateReading();
    }
  }

  private endSocket(): void {
    if (this.ended) return;
    this.flush();
    this.ended = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Reads only while in-flight requests are under the limits and the socket drains. */
  private updateReading(): void {
    if (this.closing) return;
    // A used-up byte budget pauses reading, unless nothing of ours is in flight.
    let overBudget = false;
    if (this.inFlightBytes > 0) {
      for (const b of this.budgets) {
        if (b.exhausted) {
          overBudget = true;
          b.wait(this.onBudget);
        }
      }
    }
    const pause = this.inFlight >= this.maxInFlight || this.writeBlocked || overBudget;
    if (pause && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    } else if (!pause && this.readPaused) {
      this.readPaused = false;
      this.socket.resume();
    }
  }
}

/** The result with its encoded cells left out (the row count stays): they are sent separately. */
function withoutCells(result: ResultMessage): ResultMessage {
  if (result.kind !== 'rows' || !result.encoded) return result;
  return { ...result, encoded: { count: result.encoded.count, bytes: NO_CELLS } };
}

function wrongOpcode(opcode: number, fromServer: boolean): ProtocolError {
  const name = opcodeName(opcode);
  if (name === undefined) return new ProtocolError(`Unknown opcode ${opcode}`);
  const expected = isRequestOpcode(opcode) ? 'REQUEST' : 'RESPONSE';
  const got = fromServer ? 'RESPONSE' : 'REQUEST';
  return new ProtocolError(
    `Wrong protocol direction (expected ${expected}, got ${got}) for opcode ${opcode} (${name})`,
  );
}
