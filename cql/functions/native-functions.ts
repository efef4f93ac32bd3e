// Cassandra's built-in scalar functions usable in terms and selections: time/uuid generators,
// time conversions, the blob conversion family (intAsBlob, blobAsInt, ...), the floor functions (floor-functions.ts)
// and the math functions (math-functions.ts); and the resolution of a call in a term to one of them
// (FunctionCall.Raw.prepare). Functions built per call for their argument types (collection and masking functions)
// are in function-factories.ts.

import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import { toLiteral } from '../execution/term-literal.js';
import type { Term } from '../parser/ast.js';
import { termText } from '../parser/term-text.js';
import { type CqlType, cqlTypeToString, NATIVE_TYPE_NAMES, type NativeTypeName, native } from '../types/cql-type.js';
import { testAssignment } from '../types/literal-parser.js';
import { validateValue } from '../types/value-validator.js';
import { floorFunctions } from './floor-functions.js';
import { functionFactory } from './function-factories.js';
import { factoryFunction } from './function-parameter.js';
import { type ProvidedArg, pickFunction, typeAssignability } from './function-resolver.js';
import { mathFunctions } from './math-functions.js';
import type { NativeFunction } from './native-function.js';
import { boundTimeUuid, newTimeUuid, timeUuidMillis } from './timeuuid-generator.js';

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

/** blobAsType: the blob's bytes, validated as the type (BytesConversionFcts.FromBlobFunction). */
function fromBlob(fnName: string, type: NativeTypeName, typeName: string): NativeFunction {
  return fn(fnName, [T('blob')], T(type), ([a]) => {
    if (!a) return null;
    try {
      validateValue(T(type), a);
    } catch (e) {
      if (!(e instanceof InvalidRequest)) throw e;
      throw new InvalidRequest(
        `In call to function system.${fnName}, value 0x${a.toString('hex')} is not a valid binary representation for type ${typeName}`,
      );
    }
    return a;
  });
}

// typeAsBlob / blobAsType for every native type except blob itself (varchar is text), under the old names and
// Cassandra 5.0's snake_case ones (CASSANDRA-18037).
for (const name of [...NATIVE_TYPE_NAMES, 'varchar' as const]) {
  if (name === 'blob') continue;
  const type = name === 'varchar' ? 'text' : name;
  for (const [toBlob, blobTo] of [
    [`${name}asblob`, `blobas${name}`],
    [`${name}_as_blob`, `blob_as_${name}`],
  ] as const) {
    FUNCTIONS.push(fn(toBlob, [T(type)], T('blob'), ([a]) => a ?? null));
    FUNCTIONS.push(fromBlob(blobTo, type, name));
  }
}
const SNAKE_CASE: Record<string, string> = {
  currenttimeuuid: 'current_timeuuid',
  currenttimestamp: 'current_timestamp',
  currentdate: 'current_date',
  currenttime: 'current_time',
  totimestamp: 'to_timestamp',
  todate: 'to_date',
  tounixtimestamp: 'to_unix_timestamp',
  mintimeuuid: 'min_timeuuid',
  maxtimeuuid: 'max_timeuuid',
};
for (const f of [...FUNCTIONS]) {
  const snake = SNAKE_CASE[f.name];
  if (snake) FUNCTIONS.push({ ...f, name: snake });
}

FUNCTIONS.push(...floorFunctions(), ...mathFunctions());

const BY_NAME = new Map<string, NativeFunction[]>();
for (const f of FUNCTIONS) {
  const list = BY_NAME.get(f.name) ?? [];
  list.push(f);
  BY_NAME.set(f.name, list);
}

export function functionOverloads(name: string): readonly NativeFunction[] {
  return BY_NAME.get(name.toLowerCase()) ?? [];
}

/** A term argument as the resolver sees it (Term.Raw.testAssignment). */
export function termArg(t: Term): ProvidedArg {
  const text = termText(t);
  switch (t.kind) {
    case 'marker':
      return { text, assignable: () => undefined };
    case 'function':
      return {
        text,
        // FunctionCall.Raw.testAssignment: a call that does not resolve is weakly assignable (its own error comes later).
        assignable(type) {
          try {
            const f =
              t.keyspace === undefined || t.keyspace === 'system'
                ? pickFunction(t.name, functionOverloads(t.name), t.args.map(termArg), type)
                : undefined;
            return f ? typeAssignability(f.returnType, type) : 'weak';
          } catch (e) {
            if (e instanceof InvalidRequest) return 'weak';
            throw e;
          }
        },
      };
    case 'typeHint':
      return {
        text,
        assignable: (type) => (t.type.kind === 'native' ? typeAssignability(t.type, type) : 'weak'),
      };
    case 'cast':
      return { text, assignable: (type) => typeAssignability(native(t.type), type) };
    default: {
      const literal = toLiteral(t);
      return { text, assignable: (type) => (literal ? testAssignment(type, literal) : 'weak') };
    }
  }
}

/** The type receiving a function's result, with the name Cassandra quotes when the result does not fit. */
export interface FunctionReceiver {
  readonly name: string;
  readonly type: CqlType;
}

/** Resolves a function call in a term (FunctionCall.Raw.prepare) for what receives its result. */
export function resolveFunction(name: string, args: readonly Term[], receiver: FunctionReceiver): NativeFunction {
  const lower = name.toLowerCase();
  const factory = functionFactory(lower);
  const f = factory
    ? factoryFunction(
        factory,
        // Only a type hint or a cast gives a term a type of its own.
        args.map((a) => ({
          text: termText(a),
          type:
            a.kind === 'typeHint' && a.type.kind === 'native'
              ? (a.type as CqlType)
              : a.kind === 'cast'
                ? native(a.type)
                : undefined,
        })),
        receiver.type,
      )
    : pickFunction(lower, functionOverloads(lower), args.map(termArg), receiver.type);
  if (!f) throw new InvalidRequest(`Unknown function ${lower} called`);
  if (typeAssignability(f.returnType, receiver.type) === 'no') {
    throw new InvalidRequest(
      `Type error: cannot assign result of function system.${f.name} (type ${cqlTypeToString(f.returnType)}) to ${receiver.name} (type ${cqlTypeToString(receiver.type)})`,
    );
  }
  return f;
}

export function callFunction(f: NativeFunction, args: readonly (Buffer | null)[]): Buffer | null {
  return f.call(args);
}
