// SELECT's selectors compiled against a table: which columns come out, with which types and
// names, and how each is computed from a row (plain column, writetime/ttl, function, aggregate).

import { murmur3Token } from '../../storage/murmur3-token.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import { InvalidRequest } from '../errors.js';
import { type BindSpecs, prepareTerm } from '../execution/bound-term.js';
import { toLiteral } from '../execution/term-literal.js';
import { numericAggregator } from '../functions/aggregate-functions.js';
import { applyArithmetic, arithmeticType, isNumeric } from '../functions/arithmetic.js';
import { castOverloads } from '../functions/cast-function.js';
import { functionFactory } from '../functions/function-factories.js';
import { type FunctionFactory, factoryFunction } from '../functions/function-parameter.js';
import { type ProvidedArg, pickFunction, typeAssignability } from '../functions/function-resolver.js';
import type { NativeFunction } from '../functions/native-function.js';
import { callFunction, functionOverloads, termArg } from '../functions/native-functions.js';
import { startAggregate } from '../functions/user-aggregate-state.js';
import type { UserAggregateMetadata, UserFunctionMetadata } from '../functions/user-function-metadata.js';
import type { UserFunctionRuntime } from '../functions/user-function-runtime.js';
import {
  decodeFloatVector,
  type SimilarityFunction,
  similarity,
  similarityFunctionOf,
} from '../index/vector-search.js';
import type { Selectable, Selector, Term } from '../parser/ast.js';
import { resolveType } from '../parser/ast.js';
import { type ColumnSpec, UNSET } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { encodeKeyComponent } from '../types/byte-comparable.js';
import { type CqlType, cqlTypeToString, isMultiCell, native } from '../types/cql-type.js';
import { decimalFromBytes, decimalToBytes } from '../types/decimal-text.js';
import { toJsonValue } from '../types/json-codec.js';
import { literalToBytes } from '../types/literal-parser.js';
import {
  buildCollection,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
} from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';
import { complexTimestamps, selectedCellTimestamps } from './cell-timestamps.js';
import type { SelectedRow } from './selected-row.js';

/** The aggregates of one group, fed a row at a time (Selection.group). */
export interface GroupAggregate {
  add(row: SelectedRow): void;
  /** The group's first row (undefined: none yet). */
  first(): SelectedRow | undefined;
  result(): (Buffer | null)[];
}

export interface Aggregator {
  add(row: SelectedRow): void;
  result(): Buffer | null;
}

export interface CompiledSelector {
  readonly spec: ColumnSpec;
  /** Table column indices this selector reads. */
  readonly columns: readonly number[];
  /** Non-aggregate: the value for one row. */
  readonly value?: (row: SelectedRow) => Buffer | null;
  /** Aggregate: a fresh accumulator. */
  readonly aggregate?: () => Aggregator;
}

function long(v: bigint | number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(v));
  return b;
}

function int(v: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(v);
  return b;
}

function columnIndex(table: TableMetadata, name: string): number {
  const i = table.columns.findIndex((c) => c.name === name);
  if (i < 0) throw new InvalidRequest(`Undefined column name ${name} in selection clause`);
  return i;
}

/** Cassandra's default result column name for a selectable (e.g. `writetime(v)`, `system.count(*)`). */
function defaultName(s: Selectable): string {
  switch (s.kind) {
    case 'column':
      return s.name;
    case 'countRows':
      return 'count';
    case 'writetime':
    case 'maxwritetime':
    case 'ttl':
      return `${s.kind}(${defaultName(s.target)})`;
    case 'function':
      // COUNT(1) is count(*) to Cassandra, named "count".
      if (s.name.toLowerCase() === 'count' && s.args.length === 1 && s.args[0]!.kind === 'term') return 'count';
      return `system.${s.name}(${s.args.map(defaultName).join(', ')})`;
    case 'cast':
      return `cast(${defaultName(s.arg)} as ${s.type})`;
    case 'term':
      return s.term.kind === 'literal'
        ? s.term.type === 'string'
          ? `'${s.term.text}'`
          : s.term.text
        : s.term.kind === 'null'
          ? 'null'
          : '?';
    case 'binary':
      return `${defaultName(s.left)} ${s.op} ${defaultName(s.right)}`;
    case 'negate':
      return `-${defaultName(s.arg)}`;
    case 'typeHint':
      return `(${cqlTypeToString(resolveType(s.type, () => native('blob')))})${defaultName(s.arg)}`;
    case 'field':
      return `${defaultName(s.arg)}.${s.field}`;
    case 'element':
      return `${defaultName(s.arg)}[${s.key.kind !== 'literal' ? '?' : s.key.type === 'string' ? `'${s.key.text}'` : s.key.text}]`;
    default:
      return 'expr';
  }
}

interface Compiled {
  type: CqlType;
  /** The result column's name when it is not the selectable's default name. */
  name?: string;
  columns: number[];
  value?: (row: SelectedRow) => Buffer | null;
  aggregate?: () => Aggregator;
}

function compileSelectable(scope: SelectionScope, s: Selectable): Compiled {
  const table = scope.table;
  switch (s.kind) {
    case 'column': {
      const i = columnIndex(table, s.name);
      return { type: table.columns[i]!.type, columns: [i], value: (row) => row.values[i] ?? null };
    }
    case 'tuple':
      if (s.elements.length === 1) return compileSelectable(scope, s.elements[0]!);
      break;
    case 'countRows':
      return {
        type: native('bigint'),
        columns: [],
        aggregate: () => {
          let n = 0n;
          return {
            add: () => {
              n++;
            },
            result: () => long(n),
          };
        },
      };
    case 'writetime':
    case 'maxwritetime':
    case 'ttl': {
      if (s.target.kind === 'element' || s.target.kind === 'slice')
        return compileElementTimestamps(scope, s.kind, s.target);
      if (s.target.kind !== 'column') break;
      const i = columnIndex(table, s.target.name);
      const col = table.columns[i]!;
      if (col.kind === 'partition_key' || col.kind === 'clustering') {
        throw new InvalidRequest(`Cannot use selection function ${s.kind} on PRIMARY KEY part ${col.name}`);
      }
      if (isMultiCell(col.type)) {
        const kind = s.kind;
        const element = kind === 'ttl' ? native('int') : native('bigint');
        return {
          type: kind === 'maxwritetime' ? element : { kind: 'list', element, frozen: false },
          columns: [i],
          value: (row) => complexTimestamps(col.type, row.cells?.(i) ?? null, kind),
        };
      }
      if (s.kind === 'ttl') {
        return {
          type: native('int'),
          columns: [i],
          value: (row) => {
            const t = row.ttl?.(i) ?? null;
            return t === null ? null : int(t);
          },
        };
      }
      return {
        type: native('bigint'),
        columns: [i],
        value: (row) => {
          const t = row.writetime?.(i) ?? null;
          return t === null ? null : long(t);
        },
      };
    }
    case 'field': {
      const inner = compileSelectable(scope, s.arg);
      const t = inner.type;
      if (t.kind !== 'udt' || inner.aggregate)
        throw new InvalidRequest(`Invalid field selection: ${defaultName(s.arg)} of type ${t.kind} is not a user type`);
      const i = t.fields.findIndex((f) => f.name === s.field);
      if (i < 0) throw new InvalidRequest(`${defaultName(s.arg)} of type ${t.name} has no field ${s.field}`);
      return {
        type: t.fields[i]!.type,
        columns: inner.columns,
        value: (row) => {
          const v = inner.value!(row);
          return v === null ? null : (readTupleFields(v)[i] ?? null);
        },
      };
    }
    case 'element':
    case 'slice': {
      const inner = compileSelectable(scope, s.arg);
      const t = inner.type;
      if (inner.aggregate || (t.kind !== 'map' && t.kind !== 'set' && t.kind !== 'list')) {
        throw new InvalidRequest(`Element selection is only allowed on collections (${defaultName(s.arg)})`);
      }
      const keyType = t.kind === 'map' ? t.key : t.kind === 'set' ? t.element : native('int');
      const constant = (term: Term | undefined): Buffer | undefined => {
        if (!term) return undefined;
        const l = toLiteral(term);
        if (!l) throw new InvalidRequest('Only constant element keys are supported in selections');
        return literalToBytes(keyType, l, `key(${defaultName(s.arg)})`) ?? undefined;
      };
      if (s.kind === 'element') {
        const key = constant(s.key)!;
        const resultType = t.kind === 'map' ? t.value : t.kind === 'set' ? t.element : t.element;
        return {
          type: resultType,
          columns: inner.columns,
          value: (row) => {
            const v = inner.value!(row);
            if (v === null) return null;
            if (t.kind === 'map')
              return readMapEntries(v).find(([k]) => compareValues(keyType, k, key) === 0)?.[1] ?? null;
            if (t.kind === 'set')
              return readCollectionElements(v).find((e) => compareValues(keyType, e, key) === 0) ?? null;
            return readCollectionElements(v)[key.readInt32BE(0)] ?? null;
          },
        };
      }
      if (t.kind === 'list') throw new InvalidRequest('Slice selection is not supported on lists');
      const from = constant(s.from);
      const to = constant(s.to);
      const inRange = (k: Buffer) =>
        (!from || compareValues(keyType, k, from) >= 0) && (!to || compareValues(keyType, k, to) <= 0);
      // A frozen collection is one value: its slice is a collection, maybe empty. A non-frozen one is cells: no
      // cell in the slice reads as null (ElementsSelector.SliceSelector over a value or over cells).
      const none = t.frozen ? buildCollection(0, []) : null;
      return {
        type: t,
        columns: inner.columns,
        value: (row) => {
          const v = inner.value!(row);
          if (v === null) return null;
          if (t.kind === 'set') {
            const kept = readCollectionElements(v).filter(inRange);
            return kept.length === 0 ? none : buildCollection(kept.length, kept);
          }
          const kept = readMapEntries(v).filter(([k]) => inRange(k));
          return kept.length === 0 ? none : buildCollection(kept.length, kept.flat());
        },
      };
    }
    case 'cast': {
      const inner = compileSelectable(scope, s.arg);
      if (inner.type.kind !== 'native') break;
      // A cast to the value's own type is ignored, name included (Selectable.WithCast).
      if (inner.type.name === s.type) return { ...inner, name: inner.name ?? defaultName(s.arg) };
      const argType = inner.type;
      const f = pickFunction(
        `system.cast_as_${s.type}`,
        castOverloads(s.type),
        [{ text: defaultName(s.arg), assignable: (t) => typeAssignability(argType, t) }],
        undefined,
      );
      if (!f) {
        const first = inner.columns[0];
        const what = first === undefined ? defaultName(s.arg) : table.columns[first]!.name;
        throw new InvalidRequest(`${what} cannot be cast to ${s.type}`);
      }
      return applyScalar(f.returnType, [inner], ([v]) => f.call([v ?? null]));
    }
    case 'function': {
      const name = s.name.toLowerCase();
      const isNative = s.keyspace === undefined || s.keyspace === 'system';
      // fromJson needs the type receiving its result, which a selection does not have (FunctionResolver).
      if (name === 'fromjson' && isNative)
        throw new InvalidRequest('fromJson() cannot be used in the selection clause of a SELECT statement');
      // A keyspace-qualified name is a user function or aggregate: only unqualified (or system.) names are native.
      if (!isNative) return compileUserCall(scope, s);
      if (name === 'token') return compileToken(table, s.args);
      if (name === 'tojson' && s.args.length === 1) {
        const inner = compileSelectable(scope, s.args[0]!);
        return applyScalar(native('text'), [inner], ([v]) =>
          Buffer.from(v == null ? 'null' : toJsonValue(inner.type, v), 'utf8'),
        );
      }
      const sim = similarityFunctionOf(name);
      if (sim) return compileSimilarity(scope, sim, name, s.args);
      if (
        (name === 'count' || name === 'min' || name === 'max' || name === 'sum' || name === 'avg') &&
        s.args.length === 1
      ) {
        return compileAggregate(scope, name, s.args[0]!);
      }
      const factory = isNative ? functionFactory(name) : undefined;
      if (factory) {
        const call = compileFactoryCall(scope, s, factory);
        if (!call) break;
        return call;
      }
      const overloads = isNative ? functionOverloads(name) : [];
      if (overloads.length > 0) {
        const call = compileNativeCall(scope, s, overloads);
        if (!call) break;
        return call;
      }
      return compileUserCall(scope, s);
    }
    case 'term':
    case 'typeHint':
      return compileConstant(s);
    case 'negate': {
      const inner = compileSelectable(scope, s.arg);
      if (!isNumeric(inner.type)) break;
      // DecimalType.negate keeps the scale: 0 - 1E+400 would widen it.
      if (inner.type.name === 'decimal') {
        return applyScalar(inner.type, [inner], ([v]) => {
          if (v == null || v.length === 0) return null;
          const d = decimalFromBytes(v);
          return decimalToBytes({ unscaled: -d.unscaled, scale: d.scale });
        });
      }
      const zero = Buffer.alloc(inner.type.name === 'float' ? 4 : inner.type.name === 'double' ? 8 : 1);
      return applyScalar(inner.type, [inner], ([v]) =>
        applyArithmetic('-', native('tinyint'), zero, inner.type, v ?? null, inner.type),
      );
    }
    case 'binary': {
      // Cassandra's operators are functions (_add, ...): over aggregates too (`max(v) + 1`, `sum(v) / count(*)`).
      const left = compileSelectable(scope, s.left);
      const right = compileSelectable(scope, s.right);
      const type = arithmeticType(left.type, right.type);
      return applyScalar(type, [left, right], ([l, r]) =>
        applyArithmetic(s.op, left.type, l ?? null, right.type, r ?? null, type),
      );
    }
    default:
      break;
  }
  throw new InvalidRequest(`Unsupported selector ${defaultName(s)}`);
}

/**
 * writetime / maxwritetime / ttl of an element or slice of a set or map column (Selectable.WritetimeOrTTL over an
 * element selector): per matching cell of a non-frozen collection; a frozen one is one cell, whose timestamp counts
 * when the selection finds something in it. Lists are refused (their elements are not addressed by value).
 */
function compileElementTimestamps(
  scope: SelectionScope,
  kind: 'writetime' | 'maxwritetime' | 'ttl',
  target: Selectable & { kind: 'element' | 'slice' },
): Compiled {
  const table = scope.table;
  if (target.arg.kind !== 'column') throw new InvalidRequest(`Unsupported selector ${defaultName(target)}`);
  const i = columnIndex(table, target.arg.name);
  const col = table.columns[i]!;
  if (col.kind === 'partition_key' || col.kind === 'clustering') {
    throw new InvalidRequest(`Cannot use selection function ${kind} on PRIMARY KEY part ${col.name}`);
  }
  const t = col.type;
  const what = target.kind === 'element' ? 'Element' : 'Slice';
  if (t.kind === 'list')
    throw new InvalidRequest(`${what} selection is only allowed on sets and maps, but ${col.name} is a list`);
  if (t.kind !== 'set' && t.kind !== 'map') throw new InvalidRequest(`Unsupported selector ${defaultName(target)}`);
  const single = kind === 'ttl' ? native('int') : native('bigint');
  if (!isMultiCell(t)) {
    // One cell: its timestamp when the element (or some element of the slice) is there.
    const selected = compileSelectable(scope, target);
    return {
      type: single,
      columns: [i],
      value: (row) => {
        const v = selected.value!(row);
        if (v === null || (target.kind === 'slice' && v.readInt32BE(0) === 0)) return null;
        const ts = kind === 'ttl' ? (row.ttl?.(i) ?? null) : (row.writetime?.(i) ?? null);
        return ts === null ? null : kind === 'ttl' ? int(Number(ts)) : long(ts);
      },
    };
  }
  const keyType = t.kind === 'map' ? t.key : t.element;
  const key = (term: Term | undefined): Buffer | undefined => {
    if (!term) return undefined;
    const l = toLiteral(term);
    if (!l) throw new InvalidRequest('Only constant element keys are supported in selections');
    const b = literalToBytes(keyType, l, `key(${col.name})`);
    return b ? encodeKeyComponent(keyType, b) : undefined;
  };
  let matches: (path: Buffer) => boolean;
  if (target.kind === 'element') {
    const k = key(target.key);
    matches = (p) => k !== undefined && p.equals(k);
  } else {
    const from = key(target.from);
    const to = key(target.to);
    matches = (p) => (!from || Buffer.compare(p, from) >= 0) && (!to || Buffer.compare(p, to) <= 0);
  }
  const element = target.kind === 'element';
  return {
    type: element || kind === 'maxwritetime' ? single : { kind: 'list', element: single, frozen: false },
    columns: [i],
    value: (row) => selectedCellTimestamps(row.cells?.(i) ?? null, kind, matches, element),
  };
}

/** The CQL type a literal has when nothing receives it (`SELECT 1, 'a', 2.5 FROM t`). */
function literalType(l: { type: string; text: string }): CqlType {
  switch (l.type) {
    case 'integer': {
      const v = BigInt(l.text);
      return native(
        v >= -(2n ** 31n) && v < 2n ** 31n ? 'int' : v >= -(2n ** 63n) && v < 2n ** 63n ? 'bigint' : 'varint',
      );
    }
    case 'float':
      return native('double');
    case 'boolean':
      return native('boolean');
    case 'uuid':
      return native(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-1/.test(l.text) ? 'timeuuid' : 'uuid');
    case 'hex':
      return native('blob');
    case 'duration':
      return native('duration');
    default:
      return native('text');
  }
}

/** A constant selector: a literal (typed by its form, or by a `(type)` hint). */
function compileConstant(s: Selectable & { kind: 'term' | 'typeHint' }): Compiled {
  const term = s.kind === 'term' ? s.term : undefined;
  const hinted = s.kind === 'typeHint' ? s : undefined;
  const inner = hinted ? (hinted.arg.kind === 'term' ? hinted.arg.term : undefined) : term;
  if (!inner || inner.kind === 'marker')
    throw new InvalidRequest(
      `Cannot infer type for term ${defaultName(s)} in selection clause (try using a cast to force a type)`,
    );
  const literal = toLiteral(inner);
  if (!literal) throw new InvalidRequest(`Unsupported selector ${defaultName(s)}`);
  const type: CqlType = hinted
    ? resolveType(hinted.type, () => {
        throw new InvalidRequest('User types cannot be used as type hints in selections');
      })
    : inner.kind === 'literal'
      ? literalType(inner)
      : native('text');
  const bytes = inner.kind === 'null' ? null : literalToBytes(type, literal, defaultName(s));
  return { type, columns: [], value: () => bytes };
}

/** token(pk columns): the Murmur3 token of the row's partition key. */
function compileToken(table: TableMetadata, args: readonly Selectable[]): Compiled {
  const names = table.partitionKey.map((c) => c.name);
  if (args.length !== names.length || args.some((a, i) => a.kind !== 'column' || a.name !== names[i])) {
    throw new InvalidRequest(`Invalid arguments for token(): the partition key is (${names.join(', ')})`);
  }
  const idx = table.partitionKey.map((c) => table.columns.indexOf(c));
  return {
    type: native('bigint'),
    columns: idx,
    value: (row) => {
      const parts = idx.map((i) => row.values[i]);
      if (parts.some((p) => !p)) return null;
      return long(murmur3Token(serializePartitionKey(parts as Buffer[])));
    },
  };
}

/** An aggregate's argument, which must not aggregate itself (AbstractFunctionSelector.newFactory). */
function aggregateArgument(scope: SelectionScope, arg: Selectable): Compiled {
  const inner = compileSelectable(scope, arg);
  if (inner.aggregate) throw new InvalidRequest(NESTED_AGGREGATE);
  return inner;
}

const NESTED_AGGREGATE = 'aggregate functions cannot be used as arguments of aggregate functions';

function compileAggregate(scope: SelectionScope, name: string, arg: Selectable): Compiled {
  if (name === 'count') {
    // count(1), count(*)-like literal, or count(column): counts rows where the value is not null.
    if (arg.kind === 'term') return compileSelectable(scope, { kind: 'countRows', pos: arg.pos });
    const inner = aggregateArgument(scope, arg);
    return {
      type: native('bigint'),
      columns: inner.columns,
      aggregate: () => {
        let n = 0n;
        return {
          add: (row) => {
            if (inner.value!(row) !== null) n++;
          },
          result: () => long(n),
        };
      },
    };
  }
  const inner = aggregateArgument(scope, arg);
  if (name === 'sum' || name === 'avg') {
    const op = name;
    numericAggregator(op, inner.type); // validates the argument type at prepare time
    return {
      type: inner.type,
      columns: inner.columns,
      aggregate: () => {
        const acc = numericAggregator(op, inner.type);
        return {
          add: (row) => {
            const v = inner.value!(row);
            if (v !== null) acc.add(v);
          },
          result: () => acc.result(),
        };
      },
    };
  }
  const max = name === 'max';
  return {
    type: inner.type,
    columns: inner.columns,
    aggregate: () => {
      let best: Buffer | null = null;
      return {
        add: (row) => {
          const v = inner.value!(row);
          if (v === null) return;
          if (best === null) best = v;
          else {
            const c = compareValues(inner.type, v, best);
            if (max ? c > 0 : c < 0) best = v;
          }
        },
        result: () => best,
      };
    },
  };
}

function usesCellMetadata(s: Selectable): boolean {
  switch (s.kind) {
    case 'writetime':
    case 'maxwritetime':
    case 'ttl':
      return true;
    case 'function':
      return s.args.some(usesCellMetadata);
    case 'cast':
    case 'field':
    case 'element':
    case 'slice':
    case 'negate':
    case 'typeHint':
      return usesCellMetadata(s.arg);
    case 'binary':
      return usesCellMetadata(s.left) || usesCellMetadata(s.right);
    case 'tuple':
    case 'list':
    case 'set':
      return s.elements.some(usesCellMetadata);
    default:
      return false;
  }
}

/** What a selection can see besides the table: user-defined functions and aggregates. */
export interface UserFunctionResolver {
  /** Runs the functions it resolves. */
  readonly runtime: UserFunctionRuntime;
  /** Every user function and aggregate called `name` (all overloads). */
  overloads(keyspace: string | undefined, name: string): readonly (UserFunctionMetadata | UserAggregateMetadata)[];
  /** An aggregate's state and final functions (undefined if its state function is gone). */
  aggregateFunctions(
    aggregate: UserAggregateMetadata,
  ): { state: UserFunctionMetadata; final: UserFunctionMetadata | undefined } | undefined;
}

export interface SelectionScope {
  table: TableMetadata;
  functions?: UserFunctionResolver | undefined;
  /** User functions the selection calls (aggregates' state and final functions included), collected as compiled. */
  used?: UserFunctionMetadata[];
  /** Bind markers in selectors (`similarity_cosine(v, ?)`); absent: markers are not allowed. */
  specs?: BindSpecs | undefined;
}

/** A selectable that is a constant or a bind marker, as a Term (undefined when it reads columns). */
function selectableTerm(s: Selectable): Term | undefined {
  if (s.kind === 'term') return s.term;
  if (s.kind === 'list' || s.kind === 'set' || s.kind === 'tuple') {
    const elements = s.elements.map(selectableTerm);
    if (elements.some((e) => e === undefined)) return undefined;
    return { kind: s.kind, elements: elements as Term[], pos: s.pos };
  }
  return undefined;
}

/** similarity_cosine / _euclidean / _dot_product(vector, vector): float (cql/index/vector-search.ts). */
function compileSimilarity(
  scope: SelectionScope,
  f: SimilarityFunction,
  name: string,
  args: readonly Selectable[],
): Compiled {
  if (args.length !== 2)
    throw new InvalidRequest(
      `Invalid number of arguments in call to function system.${name}: 2 required but ${args.length} provided`,
    );
  const columnArgs = args.map((a) => (selectableTerm(a) ? undefined : compileSelectable(scope, a)));
  const vectorType = columnArgs.find((c) => c?.type.kind === 'vector')?.type;
  if (!vectorType) throw new InvalidRequest(`Function system.${name} requires a float vector argument`);
  const compiled = args.map((a, i) => {
    const c = columnArgs[i];
    if (c) {
      if (c.type.kind !== 'vector') throw new InvalidRequest(`Function system.${name} requires float vector arguments`);
      return c;
    }
    if (!scope.specs) throw new InvalidRequest(`Unsupported selector ${defaultName(a)}`);
    const receiver = {
      keyspace: scope.table.keyspace,
      table: scope.table.name,
      name: `${name}_arg${i}`,
      type: vectorType,
    };
    const term = prepareTerm(selectableTerm(a)!, receiver, scope.specs);
    return {
      type: vectorType,
      columns: [],
      value: (row: SelectedRow) => {
        const v = term.value(row.params ?? []);
        return v === UNSET ? null : v;
      },
    };
  });
  return {
    type: native('float'),
    columns: compiled.flatMap((c) => c.columns),
    value: (row) => {
      const a = compiled[0]!.value!(row);
      const b = compiled[1]!.value!(row);
      if (a === null || b === null) return null;
      const out = Buffer.allocUnsafe(4);
      out.writeFloatBE(similarity(f, decodeFloatVector(vectorType, a), decodeFloatVector(vectorType, b)));
      return out;
    },
  };
}

/** A selector argument that is a constant or marker, as a Term (its type comes from the parameter it fills). */
function constantArg(a: Selectable): Term | undefined {
  if (a.kind === 'term') return a.term;
  if (a.kind === 'typeHint' && a.arg.kind === 'term')
    return { kind: 'typeHint', type: a.type, term: a.arg.term, pos: a.pos };
  if (a.kind === 'negate' && a.arg.kind === 'term') return { kind: 'negate', term: a.arg.term, pos: a.pos };
  return undefined;
}

/** A native function call resolved as Cassandra's FunctionResolver does (undefined: an unsupported mix of aggregates). */
function compileNativeCall(
  scope: SelectionScope,
  s: Selectable & { kind: 'function' },
  overloads: readonly NativeFunction[],
): Compiled | undefined {
  const constants = s.args.map(constantArg);
  const compiled = s.args.map((a, i) => (constants[i] ? undefined : compileSelectable(scope, a)));
  const provided: ProvidedArg[] = s.args.map((a, i) => {
    const c = compiled[i];
    if (!c) return termArg(constants[i]!);
    return { text: defaultName(a), assignable: (t) => typeAssignability(c.type, t) };
  });
  const calledName = `${s.keyspace ? `${s.keyspace}.` : ''}${s.name.toLowerCase()}`;
  const f = pickFunction(calledName, overloads, provided, undefined)!;
  const args = compileArguments(scope, s.args, constants, compiled, f.argTypes);
  return applyScalar(f.returnType, args, (values) => callFunction(f, values));
}

/** A function's arguments: the compiled selectors, and constants or markers typed by their parameter. */
function compileArguments(
  scope: SelectionScope,
  selectables: readonly Selectable[],
  constants: readonly (Term | undefined)[],
  compiled: readonly (Compiled | undefined)[],
  argTypes: readonly CqlType[],
): Compiled[] {
  return selectables.map((a, i): Compiled => {
    const c = compiled[i];
    if (c) return c;
    const term = constants[i]!;
    if (term.kind === 'typeHint') return compileConstant(a as Selectable & { kind: 'typeHint' });
    const type = argTypes[i]!;
    if (term.kind === 'marker') {
      if (!scope.specs)
        throw new InvalidRequest(
          `Cannot infer type for term ${defaultName(a)} in selection clause (try using a cast to force a type)`,
        );
      const receiver = { keyspace: scope.table.keyspace, table: scope.table.name, name: '[selection]', type };
      const bound = prepareTerm(term, receiver, scope.specs);
      return {
        type,
        columns: [],
        value: (row) => {
          const v = bound.value(row.params ?? []);
          return v === UNSET ? null : v;
        },
      };
    }
    const bytes = literalToBytes(type, toLiteral(term)!, '[selection]');
    return { type, columns: [], value: () => bytes };
  });
}

/**
 * A scalar function over compiled arguments: per row, or, when some argument is an aggregate
 * (`intAsBlob(max(v))`), an aggregate computing the function on the aggregates' results. Other arguments of such a
 * call must be constants (a column's value has no meaning for a group).
 */
function applyScalar(type: CqlType, args: readonly Compiled[], call: (values: (Buffer | null)[]) => Buffer | null) {
  const columns = args.flatMap((a) => a.columns);
  if (!args.some((a) => a.aggregate)) {
    return {
      type,
      columns,
      value: (row: SelectedRow) => call(args.map((a) => a.value!(row))),
    } satisfies Compiled;
  }
  // Over aggregates, a plain argument takes its value from the first row (Cassandra's SimpleSelector keeps the first).
  return {
    type,
    columns,
    aggregate: (): Aggregator => {
      const accs = args.map((a) => a.aggregate?.());
      let first: SelectedRow | undefined;
      return {
        add: (row) => {
          first ??= row;
          for (const acc of accs) acc?.add(row);
        },
        result: () => {
          const row: SelectedRow = first ?? { values: [] };
          return call(args.map((a, i) => (accs[i] ? accs[i]!.result() : a.value!(row))));
        },
      };
    },
  } satisfies Compiled;
}

/** A call to a function built for its arguments' types (FunctionFactory): the collection and masking functions. */
function compileFactoryCall(scope: SelectionScope, s: Selectable & { kind: 'function' }, factory: FunctionFactory) {
  // A literal or marker has no type of its own (a type hint does).
  const constants = s.args.map((a) => (a.kind === 'typeHint' ? undefined : (constantArg(a) ?? selectableTerm(a))));
  const compiled = s.args.map((a, i) => (constants[i] ? undefined : compileSelectable(scope, a)));
  const f = factoryFunction(
    factory,
    s.args.map((a, i) => ({ text: defaultName(a), type: compiled[i]?.type })),
  );
  const args = compileArguments(scope, s.args, constants, compiled, f.argTypes);
  return applyScalar(f.returnType, args, (values) => callFunction(f, values));
}

/** A call of a user-defined function or aggregate, its overload resolved as Cassandra's FunctionResolver does. */
function compileUserCall(scope: SelectionScope, s: Selectable & { kind: 'function' }): Compiled {
  const calledName = `${s.keyspace ? `${s.keyspace}.` : ''}${s.name}`;
  const candidates = scope.functions?.overloads(s.keyspace, s.name) ?? [];
  if (candidates.length === 0) throw new InvalidRequest(`Unknown function '${calledName}'`);
  const constants = s.args.map(constantArg);
  const compiled = s.args.map((a, i) => (constants[i] ? undefined : compileSelectable(scope, a)));
  const provided: ProvidedArg[] = s.args.map((a, i) => {
    const c = compiled[i];
    if (!c) return termArg(constants[i]!);
    return { text: defaultName(a), assignable: (t) => typeAssignability(c.type, t) };
  });
  const f = pickFunction(calledName, candidates, provided, undefined)!;
  const args = compileArguments(scope, s.args, constants, compiled, f.argTypes);
  const runtime = scope.functions!.runtime;
  if ('stateFunction' in f) {
    if (args.some((a) => a.aggregate)) throw new InvalidRequest(NESTED_AGGREGATE);
    const functions = scope.functions!.aggregateFunctions(f);
    if (!functions) throw new InvalidRequest(`Unknown function '${calledName}'`);
    scope.used?.push(functions.state, ...(functions.final ? [functions.final] : []));
    return compileUserAggregate(runtime, { aggregate: f, ...functions }, args);
  }
  scope.used?.push(f);
  return applyScalar(f.returnType, args, (values) => runtime.call(f, values));
}

function compileUserAggregate(
  runtime: UserFunctionRuntime,
  uda: { aggregate: UserAggregateMetadata; state: UserFunctionMetadata; final: UserFunctionMetadata | undefined },
  args: Compiled[],
): Compiled {
  return {
    type: uda.aggregate.returnType,
    columns: args.flatMap((a) => a.columns),
    aggregate: () => {
      const acc = startAggregate(runtime, uda.aggregate, uda.state, uda.final);
      return {
        add: (row) => acc.add(args.map((a) => a.value!(row))),
        result: () => acc.result(),
      };
    },
  };
}

export class Selection {
  readonly selectors: readonly CompiledSelector[];
  readonly isAggregate: boolean;
  readonly isWildcard: boolean;
  /** Some selector reads cell timestamps or TTLs (writetime/ttl). */
  readonly needsCellMetadata: boolean;
  /** The user-defined functions it calls, to be made ready before it runs. */
  readonly userFunctions: readonly UserFunctionMetadata[];

  constructor(
    readonly table: TableMetadata,
    selectors: readonly Selector[],
    functions?: UserFunctionResolver,
    specs?: BindSpecs,
  ) {
    const used: UserFunctionMetadata[] = [];
    const scope: SelectionScope = { table, functions, specs, used };
    this.userFunctions = used;
    this.isWildcard = selectors.length === 0;
    if (this.isWildcard) {
      this.selectors = table.columns.map((c, i) => ({
        spec: { keyspace: table.keyspace, table: table.name, name: c.name, type: c.type },
        columns: [i],
        value: (row: SelectedRow) => row.values[i] ?? null,
      }));
    } else {
      this.selectors = selectors.map((sel) => {
        const c = compileSelectable(scope, sel.selectable);
        return {
          spec: {
            keyspace: table.keyspace,
            table: table.name,
            name: sel.alias ?? c.name ?? defaultName(sel.selectable),
            type: c.type,
          },
          columns: c.columns,
          value: c.value,
          aggregate: c.aggregate,
        };
      });
    }
    this.needsCellMetadata = selectors.some((sel) => usesCellMetadata(sel.selectable));
    // Plain columns beside aggregates are allowed: they take the value of the group's first row.
    this.isAggregate = this.selectors.some((s) => s.aggregate);
  }

  /**
   * The result columns: one frozen array for the statement's life, so the response encoder can reuse their
   * encoded form (server/column-specs-cache.ts) instead of writing names and types again for every response.
   */
  get specs(): ColumnSpec[] {
    this.frozenSpecs ??= Object.freeze(this.selectors.map((s) => s.spec)) as ColumnSpec[];
    return this.frozenSpecs;
  }

  private frozenSpecs: ColumnSpec[] | undefined;

  /** One output row for one input row (non-aggregate selections). */
  project(row: SelectedRow): (Buffer | null)[] {
    const out = new Array<Buffer | null>(this.selectors.length);
    for (let i = 0; i < out.length; i++) out[i] = this.selectors[i]!.value!(row);
    return out;
  }

  /** Output row of a group (aggregate selections); plain columns take the group's first row. */
  aggregate(rows: Iterable<SelectedRow>): (Buffer | null)[] {
    const group = this.group();
    for (const row of rows) group.add(row);
    return group.result();
  }

  /** aggregate() one row at a time: a group's rows need not be held. */
  group(): GroupAggregate {
    const aggs = this.selectors.map((s) => s.aggregate?.());
    let first: SelectedRow | undefined;
    return {
      add: (row) => {
        if (!first) first = row;
        for (const a of aggs) a?.add(row);
      },
      first: () => first,
      result: () => this.selectors.map((s, i) => (aggs[i] ? aggs[i]!.result() : first ? s.value!(first) : null)),
    };
  }
}
