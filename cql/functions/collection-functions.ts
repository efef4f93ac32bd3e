// Cassandra 5.0's collection functions (CollectionFcts, built per call by a FunctionFactory): map_keys, map_values,
// collection_count, collection_min/max/sum/avg. min/max/sum/avg aggregate the elements like the row aggregates do
// (AggregateFcts): sum and avg keep the element type, avg of nothing is 0.

import { type CqlType, native } from '../types/cql-type.js';
import { intBytes } from '../types/java-integers.js';
import { buildCollection, readCollectionElements, readMapEntries } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';
import { numericAggregator } from './aggregate-functions.js';
import { isNumeric } from './arithmetic.js';
import { type FunctionFactory, type FunctionParameter, parameters } from './function-parameter.js';

function factory(
  name: string,
  parameter: FunctionParameter,
  build: (t: CqlType) => { returnType: CqlType; call: (v: Buffer) => Buffer | null },
): FunctionFactory {
  return {
    name,
    parameters: [parameter],
    make([argType]) {
      const { returnType, call } = build(argType!);
      return {
        name,
        argTypes: [argType!],
        returnType,
        deterministic: true,
        call: ([a]) => (a === null || a === undefined ? null : call(a)),
      };
    },
  };
}

function elementType(t: CqlType): CqlType {
  return t.kind === 'set' || t.kind === 'list' ? t.element : native('blob');
}

function extreme(t: CqlType, max: boolean): (v: Buffer) => Buffer | null {
  const e = elementType(t);
  return (v) => {
    let best: Buffer | null = null;
    for (const x of readCollectionElements(v)) {
      if (best === null) best = x;
      else {
        const c = compareValues(e, x, best);
        if (max ? c > 0 : c < 0) best = x;
      }
    }
    return best;
  };
}

function numeric(t: CqlType, op: 'sum' | 'avg'): (v: Buffer) => Buffer | null {
  const e = elementType(t);
  return (v) => {
    const acc = numericAggregator(op, e);
    for (const x of readCollectionElements(v)) acc.add(x);
    return acc.result();
  };
}

const numericElement = (t: CqlType) => isNumeric(t) && t.name !== 'counter';

export const COLLECTION_FACTORIES: readonly FunctionFactory[] = [
  factory('map_keys', parameters.anyMap(), (t) => {
    const m = t as CqlType & { kind: 'map' };
    return {
      returnType: { kind: 'set', element: m.key, frozen: false },
      call: (v) => {
        const keys = readMapEntries(v).map(([k]) => k);
        return buildCollection(keys.length, keys);
      },
    };
  }),
  factory('map_values', parameters.anyMap(), (t) => {
    const m = t as CqlType & { kind: 'map' };
    return {
      returnType: { kind: 'list', element: m.value, frozen: false },
      call: (v) => {
        const values = readMapEntries(v).map(([, x]) => x);
        return buildCollection(values.length, values);
      },
    };
  }),
  factory('collection_count', parameters.anyCollection(), () => ({
    returnType: native('int'),
    call: (v) => intBytes(32, BigInt(v.length === 0 ? 0 : v.readInt32BE(0))),
  })),
  factory('collection_min', parameters.setOrList(), (t) => ({ returnType: elementType(t), call: extreme(t, false) })),
  factory('collection_max', parameters.setOrList(), (t) => ({ returnType: elementType(t), call: extreme(t, true) })),
  factory('collection_sum', parameters.numericSetOrList(numericElement), (t) => ({
    returnType: elementType(t),
    call: numeric(t, 'sum'),
  })),
  factory('collection_avg', parameters.numericSetOrList(numericElement), (t) => ({
    returnType: elementType(t),
    call: numeric(t, 'avg'),
  })),
];
