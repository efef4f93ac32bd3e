// Client encryption (Cassandra's client_encryption_options) with PEM files and Node's tls module. The native
// server accepts TLS on its usual port: with `optional: true` a connection whose first byte is 0x16 (a TLS
// handshake record) is wrapped in TLS and any other (a CQL frame header starts with the version byte, 0x03-0x05
// or 0x83-0x85 never 0x16) stays plain, as Cassandra's optional encryption does.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { TLSSocket, TlsOptions, Server as TlsServer } from 'node:tls';
import type { ClientEncryptionOptions } from './config.js';

/** Node's tls module, required only when client encryption is on (loading it costs every start-up a few ms). */
const tls = (): typeof import('node:tls') => createRequire(import.meta.url)('node:tls');

/** First byte of a TLS record carrying a handshake (ClientHello). */
export const TLS_HANDSHAKE_BYTE = 0x16;

export interface TlsSettings {
  readonly options: TlsOptions;
  readonly optional: boolean;
  readonly requireClientAuth: boolean;
}

/** Reads the PEM files into the server's TLS options; throws a readable error naming the setting. */
export function tlsSettings(o: ClientEncryptionOptions): TlsSettings | undefined {
  if (!o.enabled) return undefined;
  const read = (what: string, path: string): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`client_encryption_options.${what}: cannot read ${path}: ${(e as Error).message}`);
    }
  };
  const keystore = read('keystore', o.keystore!);
  const options: TlsOptions = {
    cert: keystore,
    key: o.private_key ? read('private_key', o.private_key) : keystore,
    ...(o.keystore_password !== undefined ? { passphrase: o.keystore_password } : {}),
    ...(o.truststore ? { ca: read('truststore', o.truststore) } : {}),
    minVersion: o.protocol,
    requestCert: o.require_client_auth,
    rejectUnauthorized: o.require_client_auth,
  };
  // Fail at start-up (not at the first client) when the PEM files do not make a usable context.
  tls().createServer(options).close();
  return { options, optional: o.optional, requireClientAuth: o.require_client_auth };
}

/**
 * Accepts sockets of the native port: a connection whose first byte starts a TLS handshake goes through a
 * (never listening) tls.Server, which verifies client certificates as configured and hands on the TLSSocket;
 * a plain one is handed on as it is when plain connections are allowed, and closed otherwise.
 */
export class TlsAcceptor {
  private readonly server: TlsServer;

  constructor(
    private readonly settings: TlsSettings,
    onSecure: (socket: TLSSocket) => void,
    onHandshakeError: (e: Error) => void,
  ) {
    this.server = tls().createServer(settings.options, onSecure);
    this.server.on('tlsClientError', (e, socket) => {
      onHandshakeError(e);
      socket.destroy();
    });
  }

  accept(socket: Socket, onPlain: (socket: Socket) => void): void {
    const onEnd = (): void => {
      socket.removeListener('readable', onReadable);
      socket.destroy();
    };
    const onReadable = (): void => {
      const first = socket.read(1) as Buffer | null;
      if (first === null) return; // wait for more
      socket.removeListener('readable', onReadable);
      socket.removeListener('error', onEnd);
      socket.removeListener('end', onEnd);
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE_BYTE) {
        this.server.emit('connection', socket);
      } else if (this.settings.optional) {
        onPlain(socket);
        socket.resume();
      } else {
        socket.destroy();
      }
    };
    socket.on('error', onEnd);
    socket.on('end', onEnd);
    socket.on('readable', onReadable);
  }
}
