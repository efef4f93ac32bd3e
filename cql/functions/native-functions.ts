// Cassandra's built-in scalar functions usable in terms and selections: time/uuid generators,
// time conversions, and the blob conversion family (intAsBlob, blobAsInt, ...).

import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import type { Term } from '../parser/ast.js';
import { type CqlType, NATIVE_TYPE_NAMES, type NativeTypeName, native } from '../types/cql-type.js';
import { validateValue } from '../types/value-validator.js';
import { boundTimeUuid, newTimeUuid, timeUuidMillis } from './timeuuid-generator.js';

export interface NativeFunction {
  /** Lower-case name as Cassandra reports it (e.g. `totimestamp`). */
  readonly name: string;
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  /** Pure functions with constant args may be folded at prepare time. */
  readonly deterministic: boolean;
  readonly call: (args: readonly (Buffer | null)[]) => Buffer | null;
}

const DAY_MS = 86_400_000n;
/** The `date` type stores days with 2^31 as the epoch. */
const DATE_EPOCH = 2n ** 31n;

function long(v: bigint): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(v);
  return b;
}

function dateBytes(days: bigint): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(Number(days + DATE_EPOCH));
  return b;
}

function dateDays(b: Buffer): bigint {
  return BigInt(b.readUInt32BE(0)) - DATE_EPOCH;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

const T = (n: NativeTypeName) => native(n);

function fn(
  name: string,
  argTypes: CqlType[],
  returnType: CqlType,
  call: NativeFunction['call'],
  deterministic = true,
): NativeFunction {
  return { name, argTypes, returnType, call, deterministic };
}

const FUNCTIONS: NativeFunction[] = [
  fn('now', [], T('timeuuid'), () => newTimeUuid(), false),
  fn('currenttimeuuid', [], T('timeuuid'), () => newTimeUuid(), false),
  fn('uuid', [], T('uuid'), () => Buffer.from(randomUUID().replace(/-/g, ''), 'hex'), false),
  fn('currenttimestamp', [], T('timestamp'), () => long(BigInt(Date.now())), false),
  fn('currentdate', [], T('date'), () => dateBytes(floorDiv(BigInt(Date.now()), DAY_MS)), false),
  fn(
    'currenttime',
    [],
    T('time'),
    () => {
      const ms = BigInt(Date.now());
      return long((((ms % DAY_MS) + DAY_MS) % DAY_MS) * 1_000_000n);
    },
    false,
  ),
  fn('totimestamp', [T('timeuuid')], T('timestamp'), ([a]) => (a ? long(timeUuidMillis(a)) : null)),
  fn('totimestamp', [T('date')], T('timestamp'), ([a]) => (a ? long(dateDays(a) * DAY_MS) : null)),
  fn('todate', [T('timeuuid')], T('date'), ([a]) => (a ? dateBytes(floorDiv(timeUuidMillis(a), DAY_MS)) : null)),
  fn('todate', [T('timestamp')], T('date'), ([a]) => (a ? dateBytes(floorDiv(a.readBigInt64BE(0), DAY_MS)) : null)),
  fn('tounixtimestamp', [T('timeuuid')], T('bigint'), ([a]) => (a ? long(timeUuidMillis(a)) : null)),
  fn('tounixtimestamp', [T('timestamp')], T('bigint'), ([a]) => (a ? long(a.readBigInt64BE(0)) : null)),
  fn('tounixtimestamp', [T('date')], T('bigint'), ([a]) => (a ? long(dateDays(a) * DAY_MS) : null)),
  fn('mintimeuuid', [T('timestamp')], T('timeuuid'), ([a]) => (a ? boundTimeUuid(a.readBigInt64BE(0), false) : null)),
  fn('maxtimeuuid', [T('timestamp')], T('timeuuid'), ([a]) => (a ? boundTimeUuid(a.readBigInt64BE(0), true) : null)),
];

// typeAsBlob / blobAsType for every native type except blob itself.
for (const name of NATIVE_TYPE_NAMES) {
  if (name === 'blob' || name === 'counter') continue;
  FUNCTIONS.push(fn(`${name}asblob`, [T(name)], T('blob'), ([a]) => a ?? null));
  FUNCTIONS.push(
    fn(`blobas${name}`, [T('blob')], T(name), ([a]) => {
      if (a) validateValue(T(name), a);
      return a ?? null;
    }),
  );
}
// varchar is an alias of text.
for (const f of [...FUNCTIONS]) {
  if (f.name === 'textasblob') FUNCTIONS.push({ ...f, name: 'varcharasblob' });
  if (f.name === 'blobastext') FUNCTIONS.push({ ...f, name: 'blobasvarchar' });
}

const BY_NAME = new Map<string, NativeFunction[]>();
for (const f of FUNCTIONS) {
  const list = BY_NAME.get(f.name) ?? [];
  list.push(f);
  BY_NAME.set(f.name, list);
}

export function functionOverloads(name: string): readonly NativeFunction[] {
  return BY_NAME.get(name.toLowerCase()) ?? [];
}

function sameType(a: CqlType, b: CqlType): boolean {
  return a.kind === 'native' && b.kind === 'native' ? a.name === b.name : a === b;
}

/** A receiver takes a function's result when the types are the same. */
function acceptable(receiver: CqlType | undefined, ret: CqlType): boolean {
  return !receiver || sameType(receiver, ret);
}

/** Infers what type a constant argument term could be (for overload choice). */
function argKind(t: Term): string | undefined {
  if (t.kind === 'literal') return t.type;
  if (t.kind === 'function') return `fn:${t.name}`;
  return undefined;
}

/** Picks the overload of `name` for these argument terms and (optionally) the type receiving the result. */
export function resolveFunction(name: string, args: readonly Term[], receiver: CqlType | undefined): NativeFunction {
  const overloads = functionOverloads(name).filter((f) => f.argTypes.length === args.length);
  if (overloads.length === 0) {
    if (functionOverloads(name).length === 0) throw new InvalidRequest(`Unknown function '${name.toLowerCase()}'`);
    throw new InvalidRequest(
      `Invalid number of arguments in call to function ${name.toLowerCase()}: ${functionOverloads(name)[0]!.argTypes.length} required but ${args.length} provided`,
    );
  }
  const fitting = overloads.filter((f) => acceptable(receiver, f.returnType));
  const candidates = fitting.length > 0 ? fitting : overloads;
  if (candidates.length === 1) return candidates[0]!;
  // Choose by argument shape: a nested now() is a timeuuid, a string literal a timestamp/date, etc.
  for (const f of candidates) {
    const ok = args.every((a, i) => {
      const k = argKind(a);
      const t = f.argTypes[i]!;
      if (t.kind !== 'native') return false;
      if (k === 'fn:now' || k === 'fn:currenttimeuuid') return t.name === 'timeuuid';
      if (k === 'fn:currenttimestamp') return t.name === 'timestamp';
      if (k === 'fn:currentdate') return t.name === 'date';
      if (k === 'integer') return t.name === 'timestamp' || t.name === 'bigint' || t.name === 'int';
      if (k === 'string') return t.name === 'timestamp' || t.name === 'date' || t.name === 'text';
      return true;
    });
    if (ok) return f;
  }
  throw new InvalidRequest(
    `Ambiguous call to function ${name.toLowerCase()} (can be matched by following signatures: ${candidates.map((f) => `${f.name}(${f.argTypes.map((t) => (t.kind === 'native' ? t.name : t.kind)).join(', ')})`).join(', ')}): use type casts to disambiguate`,
  );
}

export function callFunction(f: NativeFunction, args: readonly (Buffer | null)[]): Buffer | null {
  return f.call(args);
}
