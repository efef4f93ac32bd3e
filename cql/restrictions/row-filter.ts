// WHERE relations evaluated on a row in memory: every relation of a virtual-table query, and the
// ones a storage read cannot use as key bounds (ALLOW FILTERING on regular columns).

import { InvalidRequest } from '../errors.js';
import { type BindSpecs, type BoundTerm, prepareTerm, type Receiver } from '../execution/bound-term.js';
import type { Relation } from '../parser/ast.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { type CqlType, referencesDuration } from '../types/cql-type.js';
import { readCollectionElements, readMapEntries } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';

export interface ColumnPredicate {
  readonly columnIndex: number;
  readonly op: string;
  /** One term, or the terms of an IN list. */
  readonly terms: readonly BoundTerm[];
  /** `IN ?`: one marker holding a list. */
  readonly inMarker: BoundTerm | undefined;
  readonly type: CqlType;
}

function test(type: CqlType, op: string, value: Buffer | null, bound: Buffer): boolean {
  if (value === null) return false;
  switch (op) {
    case 'CONTAINS': {
      if (type.kind === 'map') return readMapEntries(value).some(([, v]) => compareValues(type.value, v, bound) === 0);
      if (type.kind === 'list' || type.kind === 'set') {
        return readCollectionElements(value).some((e) => compareValues(type.element, e, bound) === 0);
      }
      return false;
    }
    case 'CONTAINS KEY':
      return type.kind === 'map' && readMapEntries(value).some(([k]) => compareValues(type.key, k, bound) === 0);
  }
  const c = compareValues(type, value, bound);
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    default:
      return false;
  }
}

export function preparePredicate(table: TableMetadata, relation: Relation, specs: BindSpecs): ColumnPredicate {
  if (relation.kind !== 'single') throw new InvalidRequest('Unsupported restriction for filtering');
  const columnIndex = table.columns.findIndex((c) => c.name === relation.column);
  if (columnIndex < 0) throw new InvalidRequest(`Undefined column name ${relation.column}`);
  const col = table.columns[columnIndex]!;
  const base = { keyspace: table.keyspace, table: table.name };
  let elementType: CqlType = col.type;
  if (relation.op === 'CONTAINS') {
    if (col.type.kind === 'map') elementType = col.type.value;
    else if (col.type.kind === 'list' || col.type.kind === 'set') elementType = col.type.element;
    else throw new InvalidRequest(`Cannot use CONTAINS on non-collection column ${col.name}`);
  } else if (relation.op === 'CONTAINS KEY') {
    if (col.type.kind !== 'map') throw new InvalidRequest(`Cannot use CONTAINS KEY on non-map column ${col.name}`);
    elementType = col.type.key;
  }
  const receiver: Receiver = { ...base, name: col.name, type: elementType };
  if (relation.op === 'IN') {
    const inValues = relation.in!;
    if (inValues.kind === 'marker') {
      const listType: CqlType = { kind: 'list', element: col.type, frozen: false };
      return {
        columnIndex,
        op: 'IN',
        terms: [],
        inMarker: prepareTerm(inValues.marker, { ...base, name: `in(${col.name})`, type: listType }, specs),
        type: col.type,
      };
    }
    return {
      columnIndex,
      op: 'IN',
      terms: inValues.terms.map((t) => prepareTerm(t, receiver, specs)),
      inMarker: undefined,
      type: col.type,
    };
  }
  if (!relation.value) throw new InvalidRequest(`Unsupported restriction ${relation.op} on ${col.name}`);
  if (
    (relation.op === '<' || relation.op === '<=' || relation.op === '>' || relation.op === '>=') &&
    referencesDuration(col.type)
  )
    throw new InvalidRequest('Slice restrictions are not supported on duration columns');
  return {
    columnIndex,
    op: relation.op,
    terms: [prepareTerm(relation.value, receiver, specs)],
    inMarker: undefined,
    type: col.type,
  };
}

/** The bound values of a predicate (IN lists expanded); null/unset values are rejected as Cassandra does. */
export function predicateValues(p: ColumnPredicate, values: readonly BoundValue[], columnName: string): Buffer[] {
  if (p.inMarker) {
    const list = p.inMarker.value(values);
    if (list === null || list === UNSET)
      throw new InvalidRequest(`Invalid null value for IN restriction on ${columnName}`);
    return readCollectionElements(list);
  }
  return p.terms.map((t) => {
    const v = t.value(values);
    if (v === UNSET) throw new InvalidRequest(`Invalid unset value for column ${columnName}`);
    if (v === null) throw new InvalidRequest(`Invalid null value for column ${columnName}`);
    return v;
  });
}

/** A row predicate with its bound values resolved for one execution. */
export function bindPredicate(
  p: ColumnPredicate,
  values: readonly BoundValue[],
  columnName: string,
): (row: SelectedRow) => boolean {
  const bound = predicateValues(p, values, columnName);
  const i = p.columnIndex;
  if (p.op === 'IN') return (row) => bound.some((b) => test(p.type, '=', row.values[i] ?? null, b));
  const b = bound[0]!;
  return (row) => test(p.type, p.op, row.values[i] ?? null, b);
}
