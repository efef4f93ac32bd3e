// A term of a statement (literal, bind marker, function call) prepared against the type that receives
// it. Constants are converted to bytes once, at prepare time; markers pick the client's bytes out of
// the bound values without copying them.

import { FunctionFailure, InvalidRequest } from '../errors.js';
import type { NativeFunction } from '../functions/native-function.js';
import { callFunction, resolveFunction } from '../functions/native-functions.js';
import type { Term } from '../parser/ast.js';
import { type BoundValue, type ColumnSpec, UNSET } from '../query-handler.js';
import { type CqlType, cqlTypeToString, native } from '../types/cql-type.js';
import { jsonToBytes } from '../types/json-codec.js';
import { parseJson } from '../types/json-text.js';
import { literalToBytes } from '../types/literal-parser.js';
import { buildCollection, buildTuple, buildVector } from '../types/serialized-layout.js';
import { normalizeValue } from '../types/value-normalizer.js';
import { validateValue } from '../types/value-validator.js';
import { toLiteral } from './term-literal.js';

export type TermValue = Buffer | null | typeof UNSET;

/** Where prepare puts the spec of each bind marker it meets (index = marker position). */
export class BindSpecs {
  readonly specs: (ColumnSpec | undefined)[] = [];
  constructor(count: number) {
    this.specs.length = count;
  }
  set(index: number, spec: ColumnSpec): void {
    this.specs[index] = spec;
  }
  /** All specs, failing on a marker no receiver was found for. */
  complete(): ColumnSpec[] {
    return this.specs.map((s, i) => {
      if (!s) throw new InvalidRequest(`Cannot infer the type of bind marker ${i}`);
      return s;
    });
  }
}

export interface Receiver {
  keyspace: string;
  table: string;
  /** The name Cassandra shows for the receiver (column name, `[limit]`, `value(m)`...). */
  name: string;
  type: CqlType;
}

export abstract class BoundTerm {
  /** True when the value does not depend on bound values or the clock. */
  abstract readonly isConstant: boolean;
  abstract value(values: readonly BoundValue[]): TermValue;
}

export class ConstantTerm extends BoundTerm {
  readonly isConstant = true;
  constructor(readonly bytes: Buffer | null) {
    super();
  }
  value(): TermValue {
    return this.bytes;
  }
}

export class MarkerTerm extends BoundTerm {
  readonly isConstant = false;
  /** Bound collections are re-serialized sorted and de-duplicated, as Cassandra stores sets and maps. */
  private readonly normalize: boolean;
  constructor(
    readonly index: number,
    readonly receiver: Receiver,
  ) {
    super();
    this.normalize = receiver.type.kind !== 'native' && receiver.type.kind !== 'custom';
  }
  value(values: readonly BoundValue[]): TermValue {
    const v = values[this.index];
    if (v === undefined) throw new InvalidRequest(`No value bound for marker ${this.index}`);
    if (v !== null && v !== UNSET) {
      try {
        validateValue(this.receiver.type, v);
      } catch (e) {
        // Cassandra passes the type's own message on (the column-name prefix is ScyllaDB's).
        throw new InvalidRequest((e as Error).message);
      }
      if (this.normalize) return normalizeValue(this.receiver.type, v);
    }
    return v;
  }
}

export class FunctionTerm extends BoundTerm {
  readonly isConstant = false;
  constructor(
    readonly fn: NativeFunction,
    readonly args: readonly BoundTerm[],
  ) {
    super();
  }
  value(values: readonly BoundValue[]): TermValue {
    const args = this.args.map((a) => {
      const v = a.value(values);
      return v === UNSET ? null : v;
    });
    return callFunction(this.fn, args);
  }
}

export class FromJsonTerm extends BoundTerm {
  readonly isConstant = false;
  constructor(
    private readonly json: BoundTerm,
    private readonly receiver: Receiver,
  ) {
    super();
  }
  value(values: readonly BoundValue[]): TermValue {
    const text = this.json.value(values);
    if (text === null || text === UNSET) return text;
    // Any failure is the function's (FromJsonFct: a FunctionExecutionException naming system.fromjson).
    try {
      return jsonToBytes(this.receiver.type, parseJson(text.toString('utf8')));
    } catch (e) {
      if (!(e instanceof InvalidRequest)) throw e;
      throw new FunctionFailure(`execution of 'system.fromjson[text]' failed: ${e.message}`, 'system', 'fromjson', [
        'text',
      ]);
    }
  }
}

/** Prepares `term` for `receiver`, registering the specs of the markers it holds. */
export function prepareTerm(term: Term, receiver: Receiver, specs: BindSpecs): BoundTerm {
  if (term.kind === 'marker') {
    specs.set(term.index, {
      keyspace: receiver.keyspace,
      table: receiver.table,
      name: term.name ?? receiver.name,
      type: receiver.type,
    });
    return new MarkerTerm(term.index, receiver);
  }
  if (
    term.kind === 'function' &&
    term.name.toLowerCase() === 'tojson' &&
    (term.keyspace === undefined || term.keyspace === 'system')
  ) {
    // toJson takes any argument type, so it exists only where selectors know theirs (FunctionResolver).
    throw new InvalidRequest('toJson() may only be used within the selection clause of SELECT statements');
  }
  if (term.kind === 'function' && term.name.toLowerCase() === 'fromjson' && term.args.length === 1) {
    // fromJson(text) takes the type of what receives it.
    const json = prepareTerm(
      term.args[0]!,
      { ...receiver, name: `fromjson(${receiver.name})`, type: native('text') },
      specs,
    );
    return new FromJsonTerm(json, receiver);
  }
  if (term.kind === 'function') {
    const fn = resolveFunction(term.name, term.args, receiver);
    const args = term.args.map((a, i) =>
      prepareTerm(a, { ...receiver, name: `${fn.name}(${i})`, type: fn.argTypes[i]! }, specs),
    );
    return new FunctionTerm(fn, args);
  }
  const literal = toLiteral(term);
  if (!literal) {
    const composite = prepareComposite(term, receiver, specs);
    if (composite) return composite;
    throw new InvalidRequest(`Invalid value for ${receiver.name} of type ${cqlTypeToString(receiver.type)}`);
  }
  return new ConstantTerm(literalToBytes(receiver.type, literal, receiver.name));
}

/** A collection, tuple or UDT literal with bind markers (or functions) inside: serialized per execution. */
class CompositeTerm extends BoundTerm {
  readonly isConstant = false;
  constructor(
    private readonly receiver: Receiver,
    private readonly parts: readonly (BoundTerm | undefined)[],
    private readonly build: (values: (Buffer | null)[]) => Buffer,
  ) {
    super();
  }
  value(values: readonly BoundValue[]): TermValue {
    const parts = this.parts.map((p) => {
      const v = p ? p.value(values) : null;
      return v === UNSET ? null : v;
    });
    return normalizeValue(this.receiver.type, this.build(parts));
  }
}

function prepareComposite(term: Term, receiver: Receiver, specs: BindSpecs): BoundTerm | undefined {
  const t = receiver.type;
  const sub = (x: Term, name: string, type: CqlType) => prepareTerm(x, { ...receiver, name, type }, specs);
  const nonNull = (v: Buffer | null, what: string): Buffer => {
    if (v === null) throw new InvalidRequest(`null is not supported inside collections (${what} of ${receiver.name})`);
    return v;
  };
  if ((term.kind === 'list' || term.kind === 'set') && (t.kind === 'list' || t.kind === 'set')) {
    const parts = term.elements.map((e) => sub(e, `value(${receiver.name})`, t.element));
    return new CompositeTerm(receiver, parts, (v) =>
      buildCollection(
        v.length,
        v.map((x) => nonNull(x, 'element')),
      ),
    );
  }
  if (term.kind === 'list' && t.kind === 'vector') {
    const parts = term.elements.map((e) => sub(e, `value(${receiver.name})`, t.element));
    return new CompositeTerm(receiver, parts, (v) =>
      buildVector(
        t,
        v.map((x) => nonNull(x, 'element')),
      ),
    );
  }
  if (term.kind === 'map' && t.kind === 'map') {
    const parts = term.entries.flatMap(([k, v]) => [
      sub(k, `key(${receiver.name})`, t.key),
      sub(v, `value(${receiver.name})`, t.value),
    ]);
    return new CompositeTerm(receiver, parts, (v) =>
      buildCollection(
        v.length / 2,
        v.map((x) => nonNull(x, 'entry')),
      ),
    );
  }
  if (term.kind === 'tuple' && t.kind === 'tuple') {
    if (term.elements.length > t.elements.length) {
      throw new InvalidRequest(
        `Invalid tuple literal for ${receiver.name}: too many elements. Type ${cqlTypeToString(t)} expects ${t.elements.length} but got ${term.elements.length}`,
      );
    }
    const parts = term.elements.map((e, i) => sub(e, `${receiver.name}[${i}]`, t.elements[i]!));
    return new CompositeTerm(receiver, parts, (v) => buildTuple(v));
  }
  if ((term.kind === 'udt' || term.kind === 'set' || term.kind === 'map') && t.kind === 'udt') {
    const fields = term.kind === 'udt' ? term.fields : [];
    const parts = t.fields.map((f) => {
      const given = fields.find((x) => x.name === f.name);
      return given ? sub(given.value, `${receiver.name}.${f.name}`, f.type) : undefined;
    });
    for (const g of fields) {
      if (!t.fields.some((f) => f.name === g.name))
        throw new InvalidRequest(`Unknown field '${g.name}' in value of user defined type ${t.name}`);
    }
    return new CompositeTerm(receiver, parts, (v) => buildTuple(v));
  }
  return undefined;
}
