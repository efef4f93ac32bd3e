// Cassandra's FunctionFactory and FunctionParameter: functions built per call for the types of its arguments
// (collection and masking functions), with the parameters' type inference, validation and error messages.

import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString, type NativeTypeName, native } from '../types/cql-type.js';
import { typeAssignability } from './function-resolver.js';
import type { NativeFunction } from './native-function.js';

export interface FunctionParameter {
  /** FunctionParameter.toString, as FunctionFactory.toString prints it. */
  readonly text: string;
  readonly optional?: boolean;
  /**
   * inferType: the parameter's type given the argument's own type (undefined for a literal or marker) and, on the
   * second pass, the types inferred for all the arguments.
   */
  infer(
    own: CqlType | undefined,
    inferred: readonly (CqlType | undefined)[] | undefined,
    receiver: CqlType | undefined,
  ): CqlType | undefined;
  /** validateType; `fn` is the function's name without keyspace. */
  validate(fn: string, argText: string, type: CqlType): void;
}

export interface FunctionFactory {
  /** Lower-case name without keyspace. */
  readonly name: string;
  readonly parameters: readonly FunctionParameter[];
  /** doGetOrCreateFunction. */
  make(argTypes: readonly CqlType[]): NativeFunction;
}

/** FunctionFactory.toString: `system.map_keys(map)`. */
export function factorySignature(f: FunctionFactory): string {
  return `system.${f.name}(${f.parameters.map((p) => p.text).join(', ')})`;
}

/** FunctionFactory.getOrCreateFunction over the arguments' own types (undefined: a literal or marker). */
export function factoryFunction(
  f: FunctionFactory,
  args: readonly { text: string; type: CqlType | undefined }[],
  receiver?: CqlType,
): NativeFunction {
  const mandatory = f.parameters.filter((p) => !p.optional).length;
  if (args.length < mandatory || args.length > f.parameters.length) {
    throw new InvalidRequest(`Invalid number of arguments for function ${factorySignature(f)}`);
  }
  const first = args.map((a, i) => f.parameters[i]!.infer(a.type, undefined, receiver));
  const types: CqlType[] = [];
  args.forEach((a, i) => {
    const p = f.parameters[i]!;
    const t = p.infer(a.type, first, receiver);
    if (!t) {
      throw new InvalidRequest(
        `Cannot infer type of argument ${a.text} in call to function ${factorySignature(f)}: use type casts to disambiguate`,
      );
    }
    p.validate(f.name, a.text, t);
    types.push(t);
  });
  return f.make(types);
}

function typeError(fn: string, what: string, argText: string, t: CqlType): InvalidRequest {
  return new InvalidRequest(
    `Function system.${fn} requires ${what} argument, but found argument ${argText} of type ${cqlTypeToString(t)}`,
  );
}

export const parameters = {
  /** FunctionParameter.anyType(inferFromReceiver): any known type (or the receiver's, for a literal). */
  any(inferFromReceiver = false): FunctionParameter {
    return {
      text: 'any',
      infer: (own, _i, receiver) => own ?? (inferFromReceiver ? receiver : undefined),
      validate: () => {},
    };
  },
  /** FunctionParameter.sameAsFirst(). */
  sameAsFirst(): FunctionParameter {
    return { text: 'same', infer: (_own, inferred) => inferred?.[0], validate: () => {} };
  },
  /** FunctionParameter.fixed(types): the argument's type, or the first type for a literal. */
  fixed(...names: (NativeTypeName | 'varchar')[]): FunctionParameter {
    const types = names.map((n) => native(n === 'varchar' ? 'text' : n));
    const text = names.length === 1 ? names[0]! : `[${names.join('|')}]`;
    return {
      text,
      infer: (own) => own ?? types[0],
      validate(fn, argText, t) {
        if (types.every((r) => typeAssignability(t, r) === 'no')) {
          throw new InvalidRequest(
            `Function system.${fn} requires an argument of type ${text}, but found argument ${argText} of type ${cqlTypeToString(t)}`,
          );
        }
      },
    };
  },
  optional(p: FunctionParameter): FunctionParameter {
    return { ...p, text: `[${p.text}]`, optional: true };
  },
  anyCollection(): FunctionParameter {
    return {
      text: 'collection',
      infer: (own) => own,
      validate(fn, argText, t) {
        if (t.kind !== 'map' && t.kind !== 'set' && t.kind !== 'list') throw typeError(fn, 'a collection', argText, t);
      },
    };
  },
  setOrList(): FunctionParameter {
    return {
      // sic: FunctionParameter.setOrList prints as numeric_set_or_list in Cassandra
      text: 'numeric_set_or_list',
      infer: (own) => own,
      validate(fn, argText, t) {
        if (t.kind !== 'set' && t.kind !== 'list') throw typeError(fn, 'a set or list', argText, t);
      },
    };
  },
  numericSetOrList(isNumeric: (t: CqlType) => boolean): FunctionParameter {
    return {
      text: 'numeric_set_or_list',
      infer: (own) => own,
      validate(fn, argText, t) {
        if ((t.kind !== 'set' && t.kind !== 'list') || !isNumeric(t.element))
          throw typeError(fn, 'a numeric set/list', argText, t);
      },
    };
  },
  anyMap(): FunctionParameter {
    return {
      text: 'map',
      infer: (own) => own,
      validate(fn, argText, t) {
        if (t.kind !== 'map') throw typeError(fn, 'a map', argText, t);
      },
    };
  },
};
