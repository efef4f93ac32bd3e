#!/usr/bin/env node
// Container health check: the CQL port must answer a native-protocol v4 OPTIONS frame with
// SUPPORTED. An open TCP port alone would also pass while the server is wedged, so we ask it a
// real question. No dependencies: it runs from the runtime image with only node.
//
// Usage: node docker/healthcheck.mjs [port] [host]
//   port: argv[2], else PMEMCQL_NATIVE_TRANSPORT_PORT (the server's own setting), else 9042
//   host: argv[3], else PMEMCQL_HEALTHCHECK_HOST, else 127.0.0.1
//   timeout: PMEMCQL_HEALTHCHECK_TIMEOUT_MS, else 3000
// Exit code 0 = healthy, 1 = not (the reason is printed; `docker inspect` shows it).
import { connect } from 'node:net';

const port = Number(process.argv[2] ?? process.env.PMEMCQL_NATIVE_TRANSPORT_PORT ?? 9042);
const host = process.argv[3] ?? process.env.PMEMCQL_HEALTHCHECK_HOST ?? '127.0.0.1';
const timeoutMs = Number(process.env.PMEMCQL_HEALTHCHECK_TIMEOUT_MS ?? 3000);

const VERSION_V4_REQUEST = 0x04;
const VERSION_V4_RESPONSE = 0x84;
const OPCODE_ERROR = 0x00;
const OPCODE_OPTIONS = 0x05;
const OPCODE_SUPPORTED = 0x06;
const HEADER_LENGTH = 9;
const STREAM = 1;

function fail(reason) {
  console.error(`unhealthy: ${host}:${port}: ${reason}`);
  process.exit(1);
}

/** Reads a [string multimap] (SUPPORTED's body) into a Map, throwing on malformed bytes. */
function readStringMultimap(body) {
  let at = 0;
  const u16 = () => {
    if (at + 2 > body.length) throw new Error('truncated SUPPORTED body');
    const v = body.readUInt16BE(at);
    at += 2;
    return v;
  };
  const str = () => {
    const n = u16();
    if (at + n > body.length) throw new Error('truncated SUPPORTED body');
    const s = body.toString('utf8', at, at + n);
    at += n;
    return s;
  };
  const map = new Map();
  for (let keys = u16(); keys > 0; keys--) {
    const key = str();
    const values = [];
    for (let n = u16(); n > 0; n--) values.push(str());
    map.set(key, values);
  }
  return map;
}

if (!Number.isInteger(port) || port <= 0 || port > 65535) fail(`invalid port ${JSON.stringify(process.argv[2])}`);

const options = Buffer.alloc(HEADER_LENGTH);
options.writeUInt8(VERSION_V4_REQUEST, 0);
options.writeUInt8(0, 1); // flags
options.writeInt16BE(STREAM, 2);
options.writeUInt8(OPCODE_OPTIONS, 4);
options.writeInt32BE(0, 5); // empty body

const socket = connect({ host, port });
const timer = setTimeout(() => {
  socket.destroy();
  fail(`no SUPPORTED response within ${timeoutMs} ms`);
}, timeoutMs);
let received = Buffer.alloc(0);

socket.once('connect', () => socket.write(options));
socket.on('error', (e) => {
  clearTimeout(timer);
  fail(e.code ?? e.message);
});
socket.on('close', () => {
  clearTimeout(timer);
  fail('connection closed before a complete response');
});
socket.on('data', (chunk) => {
  received = Buffer.concat([received, chunk]);
  if (received.length < HEADER_LENGTH) return;
  const version = received.readUInt8(0);
  const stream = received.readInt16BE(2);
  const opcode = received.readUInt8(4);
  const length = received.readInt32BE(5);
  if (version !== VERSION_V4_RESPONSE) fail(`not a CQL v4 response (first byte 0x${version.toString(16)})`);
  if (stream !== STREAM) fail(`unexpected stream ${stream}`);
  // A SUPPORTED body is a few hundred bytes; anything huge is not a CQL server.
  if (length < 0 || length > 1 << 20) fail(`implausible body length ${length}`);
  if (received.length < HEADER_LENGTH + length) return;
  clearTimeout(timer);
  socket.removeAllListeners('close');
  socket.destroy();
  const body = received.subarray(HEADER_LENGTH, HEADER_LENGTH + length);
  if (opcode === OPCODE_ERROR) fail(`ERROR response: ${body.subarray(6).toString('utf8')}`);
  if (opcode !== OPCODE_SUPPORTED) fail(`unexpected opcode 0x${opcode.toString(16)}`);
  let supported;
  try {
    supported = readStringMultimap(body);
  } catch (e) {
    fail(e.message);
  }
  if (!supported.has('CQL_VERSION')) fail('SUPPORTED lacks CQL_VERSION');
  console.log(`healthy: ${host}:${port} CQL_VERSION ${supported.get('CQL_VERSION').join(',')}`);
  process.exit(0);
});
