// Cassandra's FunctionResolver over native functions: which overload a call means, given what each argument can be
// assigned to and (for terms) the type receiving the result, with Cassandra's error messages.

import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from '../types/cql-type.js';
import type { Assignability } from '../types/literal-parser.js';

export interface ResolvableFunction {
  /** Name without keyspace (e.g. `todate`, `cast_as_int`; a user function's as created). */
  readonly name: string;
  /** A user function's keyspace; native functions are `system`'s. */
  readonly keyspace?: string;
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
}

/** One provided argument as the resolver sees it (Cassandra's AssignmentTestable). */
export interface ProvidedArg {
  /** How Cassandra prints the argument in "Type error" messages. */
  readonly text: string;
  /** Assignability to a parameter type; undefined for a bind marker, which fits any type. */
  assignable(type: CqlType): Assignability | undefined;
}

/** Type equality ignoring a top-level frozen (functions take and return no frozen distinction). */
function sameType(a: CqlType, b: CqlType): boolean {
  if (a.kind === 'native' && b.kind === 'native') return a.name === b.name;
  const text = (t: CqlType) => {
    const s = cqlTypeToString(t);
    return s.startsWith('frozen<') ? s.slice(7, -1) : s;
  };
  return a === b || text(a) === text(b);
}

/** AbstractType.isValueCompatibleWith: can `receiver` read a value serialized as `value`? */
export function valueCompatible(receiver: CqlType, value: CqlType): boolean {
  if (sameType(receiver, value)) return true;
  if (receiver.kind !== 'native' || value.kind !== 'native')
    return receiver.kind === 'native' && receiver.name === 'blob';
  const v = value.name;
  switch (receiver.name) {
    case 'blob':
      return true;
    case 'text':
      return v === 'ascii';
    case 'bigint':
    case 'timestamp':
      return v === 'bigint' || v === 'timestamp';
    case 'varint':
      return v === 'int' || v === 'bigint' || v === 'timestamp';
    case 'uuid':
      return v === 'timeuuid';
    default:
      return false;
  }
}

/** AbstractType.testAssignment of a value of type `value` to `receiver`. */
export function typeAssignability(value: CqlType, receiver: CqlType): Assignability {
  if (sameType(value, receiver)) return 'exact';
  return valueCompatible(receiver, value) ? 'weak' : 'no';
}

/** `system.todate`, `ks.f`: FunctionName.toString. */
function qualifiedName(f: ResolvableFunction): string {
  return `${f.keyspace ?? 'system'}.${f.name}`;
}

/** `system.todate : (timeuuid) -> date`, as AbstractFunction.toString prints a candidate. */
export function signatureText(f: ResolvableFunction): string {
  return `${qualifiedName(f)} : (${f.argTypes.map(cqlTypeToString).join(', ')}) -> ${cqlTypeToString(f.returnType)}`;
}

function matchArguments(f: ResolvableFunction, args: readonly ProvidedArg[]): Assignability {
  if (args.length !== f.argTypes.length) return 'no';
  let result: Assignability = 'exact';
  for (let i = 0; i < args.length; i++) {
    const r = args[i]!.assignable(f.argTypes[i]!);
    if (r === 'no') return 'no';
    if (r !== 'exact') result = 'weak';
  }
  return result;
}

/**
 * FunctionResolver.get: undefined when there is no candidate; a single candidate is validated argument by argument;
 * several are matched by arguments and (when a type receives the result) return type.
 * @param calledName the name as written (`todate`, `system.todate`), for the messages that quote the call
 */
export function pickFunction<F extends ResolvableFunction>(
  calledName: string,
  candidates: readonly F[],
  args: readonly ProvidedArg[],
  receiver: CqlType | undefined,
): F | undefined {
  if (candidates.length === 0) return undefined;
  if (candidates.length === 1) {
    const f = candidates[0]!;
    if (args.length !== f.argTypes.length) {
      throw new InvalidRequest(
        `Invalid number of arguments in call to function ${qualifiedName(f)}: ${f.argTypes.length} required but ${args.length} provided`,
      );
    }
    for (let i = 0; i < args.length; i++) {
      const type = f.argTypes[i]!;
      if (args[i]!.assignable(type) === 'no') {
        throw new InvalidRequest(
          `Type error: ${args[i]!.text} cannot be passed as argument ${i} of function ${qualifiedName(f)} of type ${cqlTypeToString(type)}`,
        );
      }
    }
    return f;
  }
  const compatibles: F[] = [];
  for (const f of candidates) {
    if (receiver && typeAssignability(f.returnType, receiver) === 'no') continue;
    const r = matchArguments(f, args);
    if (r === 'exact') return f;
    if (r === 'weak') compatibles.push(f);
  }
  if (compatibles.length === 0) {
    throw new InvalidRequest(
      `Invalid call to function ${calledName}, none of its type signatures match (known type signatures: ${candidates.map(signatureText).join(', ')})`,
    );
  }
  if (compatibles.length > 1) {
    throw new InvalidRequest(
      `Ambiguous call to function ${calledName} (can be matched by following signatures: ${compatibles.map(signatureText).join(', ')}): use type casts to disambiguate`,
    );
  }
  return compatibles[0];
}
