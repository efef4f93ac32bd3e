// Cassandra 5.0's dynamic data masking functions (cql3/functions/masking/): mask_null, mask_default, mask_replace,
// mask_inner, mask_outer and mask_hash, built per call by FunctionFactory like Cassandra's MaskingFunction.Factory.

import { createHash, getHashes } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString, native } from '../types/cql-type.js';
import { decimalToBytes } from '../types/decimal-text.js';
import { durationToBytes } from '../types/duration.js';
import { buildCollection, buildTuple, buildVector } from '../types/serialized-layout.js';
import { type FunctionFactory, parameters } from './function-parameter.js';
import type { NativeFunction } from './native-function.js';
import { boundTimeUuid } from './timeuuid-generator.js';

function fixed(bytes: number[] | Buffer): Buffer {
  return Buffer.from(bytes);
}

/** AbstractType.getMaskedValue: `****` for text, zero for numbers, the epoch for times, empty collections... */
function maskedValue(t: CqlType): Buffer {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'ascii':
        case 'text':
          return Buffer.from('****');
        case 'boolean':
        case 'tinyint':
          return fixed([0]);
        case 'smallint':
          return fixed([0, 0]);
        case 'int':
        case 'float':
          return Buffer.alloc(4);
        case 'bigint':
        case 'counter':
        case 'double':
        case 'timestamp':
        case 'time':
          return Buffer.alloc(8);
        case 'varint':
          return fixed([0]);
        case 'decimal':
          return decimalToBytes({ unscaled: 0n, scale: 0 });
        case 'date':
          return fixed([0x80, 0, 0, 0]);
        case 'uuid':
          return Buffer.alloc(16);
        case 'timeuuid':
          return boundTimeUuid(0n, false);
        case 'inet':
          return Buffer.alloc(4);
        case 'duration':
          return durationToBytes({ months: 0, days: 0, nanoseconds: 0n });
        default:
          // blob
          return Buffer.alloc(0);
      }
    case 'list':
    case 'set':
    case 'map':
      return buildCollection(0, []);
    case 'tuple':
      return buildTuple(t.elements.map(maskedValue));
    case 'udt':
      return buildTuple(t.fields.map((f) => maskedValue(f.type)));
    case 'vector':
      return buildVector(
        t,
        Array.from({ length: t.dimension }, () => maskedValue(t.element)),
      );
    default:
      throw new InvalidRequest(`There isn't a defined masked value for type ${cqlTypeToString(t)}`);
  }
}

function scalar(name: string, argTypes: CqlType[], returnType: CqlType, call: NativeFunction['call']): NativeFunction {
  return { name, argTypes, returnType, call, deterministic: true };
}

/** Java's MessageDigest algorithm names (case-insensitive) as node's. */
function digestName(algorithm: string): string | undefined {
  const upper = algorithm.toUpperCase();
  const known: Record<string, string> = {
    MD5: 'md5',
    'SHA-1': 'sha1',
    SHA: 'sha1',
    SHA1: 'sha1',
    'SHA-224': 'sha224',
    'SHA-256': 'sha256',
    'SHA-384': 'sha384',
    'SHA-512': 'sha512',
    'SHA-512/224': 'sha512-224',
    'SHA-512/256': 'sha512-256',
    'SHA3-224': 'sha3-224',
    'SHA3-256': 'sha3-256',
    'SHA3-384': 'sha3-384',
    'SHA3-512': 'sha3-512',
  };
  const n = known[upper];
  return n && getHashes().includes(n) ? n : undefined;
}

function partial(kind: 'inner' | 'outer'): FunctionFactory {
  const name = `mask_${kind}`;
  return {
    name,
    parameters: [
      parameters.fixed('text', 'varchar', 'ascii'),
      parameters.fixed('int'),
      parameters.fixed('int'),
      parameters.optional(parameters.fixed('text')),
    ],
    make(argTypes) {
      const input = argTypes[0]!;
      const withPadding = argTypes.length === 4;
      const types = [input, native('int'), native('int'), ...(withPadding ? [native('text')] : [])];
      return scalar(name, types, input, ([value, begin, end, pad]) => {
        // The padding is checked when the arguments are deserialized, before the value.
        let padding = '*';
        if (withPadding && pad) {
          const p = pad.toString('utf8');
          if (p.length !== 1) {
            throw new InvalidRequest(
              `The padding argument for function system.${name} should be single-character, but '${p}' has ${p.length} characters.`,
            );
          }
          padding = p;
        }
        if (!value) return null;
        const s = value.toString(input.kind === 'native' && input.name === 'ascii' ? 'latin1' : 'utf8');
        if (s.length === 0) return value;
        const b = begin && begin.length > 0 ? begin.readInt32BE(0) : 0;
        const e = s.length - 1 - (end && end.length > 0 ? end.readInt32BE(0) : 0);
        let out = '';
        for (let i = 0; i < s.length; i++) {
          const inside = i >= b && i <= e;
          out += (kind === 'inner' ? inside : !inside) ? padding : s[i];
        }
        return Buffer.from(out, 'utf8');
      });
    },
  };
}

export const MASKING_FACTORIES: readonly FunctionFactory[] = [
  {
    name: 'mask_null',
    parameters: [parameters.any()],
    make: ([t]) => scalar('mask_null', [t!], t!, () => null),
  },
  {
    name: 'mask_default',
    parameters: [parameters.any()],
    make: ([t]) => {
      const masked = maskedValue(t!);
      return scalar('mask_default', [t!], t!, () => masked);
    },
  },
  {
    name: 'mask_replace',
    parameters: [parameters.any(true), parameters.sameAsFirst()],
    make: ([t]) => scalar('mask_replace', [t!, t!], t!, (args) => args[1] ?? null),
  },
  partial('inner'),
  partial('outer'),
  {
    name: 'mask_hash',
    parameters: [parameters.any(), parameters.optional(parameters.fixed('text'))],
    make: (argTypes) =>
      scalar('mask_hash', [...argTypes], native('blob'), ([value, algorithm]) => {
        let digest = 'sha256';
        if (argTypes.length === 2 && algorithm) {
          const requested = algorithm.toString('utf8');
          const n = digestName(requested);
          if (!n) throw new InvalidRequest(`Hash algorithm not found: ${requested}`);
          digest = n;
        }
        if (!value) return null;
        return createHash(digest).update(value).digest();
      }),
  },
];
