// IF conditions of lightweight transactions (IF EXISTS / IF NOT EXISTS / IF col op value), evaluated
// against the current row, and the `[applied]` result rows Cassandra returns.

import type { ComplexValue, ReadRow } from '../../storage/row-projection.js';
import { InvalidRequest } from '../errors.js';
import { type BindSpecs, type BoundTerm, prepareTerm } from '../execution/bound-term.js';
import { complexToBytes } from '../execution/complex-value.js';
import type { Condition } from '../parser/ast.js';
import { type BoundValue, type ColumnSpec, UNSET } from '../query-handler.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { type CqlType, isMultiCell, native } from '../types/cql-type.js';
import { readCollectionElements, readMapEntries, readTupleFields } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';

export type ConditionKind = 'none' | 'ifExists' | 'ifNotExists' | 'conditions';

interface PreparedCondition {
  column: ColumnMetadata;
  element: BoundTerm | undefined;
  field: number;
  op: Condition['op'];
  terms: BoundTerm[];
  inMarker: BoundTerm | undefined;
  /** Type of the compared value (element / field type for m[k] / u.f). */
  type: CqlType;
}

export const APPLIED_SPEC = (t: TableMetadata): ColumnSpec => ({
  keyspace: t.keyspace,
  table: t.name,
  name: '[applied]',
  type: native('boolean'),
});

const TRUE = Buffer.from([1]);
const FALSE = Buffer.from([0]);

export class Conditions {
  private readonly prepared: PreparedCondition[];

  constructor(
    readonly table: TableMetadata,
    readonly kind: ConditionKind,
    conditions: readonly Condition[],
    specs: BindSpecs,
  ) {
    const base = { keyspace: table.keyspace, table: table.name };
    this.prepared = conditions.map((c) => {
      const column = table.columns.find((x) => x.name === c.column);
      if (!column) throw new InvalidRequest(`Undefined column name ${c.column}`);
      if (column.kind === 'partition_key' || column.kind === 'clustering') {
        throw new InvalidRequest(`PRIMARY KEY column '${column.name}' cannot have IF conditions`);
      }
      let type = column.type;
      let element: BoundTerm | undefined;
      let field = -1;
      if (c.element) {
        if (type.kind === 'map') {
          element = prepareTerm(c.element, { ...base, name: `key(${column.name})`, type: type.key }, specs);
          type = type.value;
        } else if (type.kind === 'list') {
          element = prepareTerm(c.element, { ...base, name: `idx(${column.name})`, type: native('int') }, specs);
          type = type.element;
        } else throw new InvalidRequest(`Invalid element access syntax for non-collection column ${column.name}`);
      } else if (c.field) {
        if (type.kind !== 'udt')
          throw new InvalidRequest(`Invalid field selection ${column.name}.${c.field} for non-UDT column`);
        field = type.fields.findIndex((f) => f.name === c.field);
        if (field < 0) throw new InvalidRequest(`Unknown field ${c.field} for column ${column.name}`);
        type = type.fields[field]!.type;
      }
      let valueType = type;
      if (c.op === 'CONTAINS') valueType = type.kind === 'map' ? type.value : (type as { element: CqlType }).element;
      if (c.op === 'CONTAINS KEY') valueType = (type as { key: CqlType }).key;
      const receiver = { ...base, name: column.name, type: valueType };
      if (c.op === 'IN') {
        const inv = c.in!;
        return {
          column,
          element,
          field,
          op: c.op,
          type,
          terms: inv.kind === 'terms' ? inv.terms.map((t) => prepareTerm(t, receiver, specs)) : [],
          inMarker:
            inv.kind === 'marker'
              ? prepareTerm(
                  inv.marker,
                  { ...receiver, name: `in(${column.name})`, type: { kind: 'list', element: type, frozen: false } },
                  specs,
                )
              : undefined,
        };
      }
      return {
        column,
        element,
        field,
        op: c.op,
        type,
        terms: [prepareTerm(c.value!, receiver, specs)],
        inMarker: undefined,
      };
    });
  }

  /** Columns whose current values the check (and a failed result) needs. */
  get columns(): ColumnMetadata[] {
    if (this.kind === 'ifNotExists')
      return this.table.columns.filter((c) => c.kind === 'regular' || c.kind === 'static');
    return [...new Set(this.prepared.map((p) => p.column))];
  }

  /** The current value of `column` in `row` (read with `ids` as the projection). */
  static current(
    column: ColumnMetadata,
    row: ReadRow | undefined,
    staticRow: ReadRow | undefined,
    slot: number,
  ): Buffer | null {
    const from = column.kind === 'static' ? staticRow : row;
    const v = from?.values[slot] ?? null;
    if (v === null) return null;
    return isMultiCell(column.type) ? complexToBytes(column.type, v as ComplexValue) : (v as Buffer);
  }

  /** Whether the conditions hold; `value(c)` gives a column's current value, `exists` whether the row lives. */
  applies(values: readonly BoundValue[], exists: boolean, value: (c: ColumnMetadata) => Buffer | null): boolean {
    if (this.kind === 'ifExists') return exists;
    if (this.kind === 'ifNotExists') return !exists;
    return this.prepared.every((p) => this.holds(p, values, value(p.column)));
  }

  private holds(p: PreparedCondition, values: readonly BoundValue[], whole: Buffer | null): boolean {
    let current = whole;
    if (p.element) {
      // Checked whether or not the row exists, as Cassandra's ElementAccessBound does.
      const t = p.column.type;
      const k = p.element.value(values);
      if (k === null || k === UNSET)
        throw new InvalidRequest(`Invalid null value for ${t.kind === 'map' ? 'map' : 'list'} element access`);
      const index = t.kind === 'map' ? -1 : k.readInt32BE(0);
      if (t.kind !== 'map' && index < 0) throw new InvalidRequest(`Invalid negative list index ${index}`);
      if (current !== null) {
        if (t.kind === 'map')
          current = readMapEntries(current).find(([mk]) => compareValues(t.key, mk, k) === 0)?.[1] ?? null;
        else current = readCollectionElements(current)[index] ?? null;
      }
    } else if (current !== null && p.field >= 0) {
      current = readTupleFields(current)[p.field] ?? null;
    }
    const bound = (t: BoundTerm) => {
      const v = t.value(values);
      if (v === UNSET) throw new InvalidRequest(`Invalid 'unset' value in condition`);
      return v;
    };
    switch (p.op) {
      case 'IN': {
        const list = p.inMarker ? p.inMarker.value(values) : undefined;
        const candidates =
          list !== undefined
            ? list === null || list === UNSET
              ? []
              : readCollectionElements(list)
            : p.terms.map(bound);
        return candidates.some((c) =>
          c === null ? current === null : current !== null && compareValues(p.type, current, c) === 0,
        );
      }
      case 'CONTAINS':
      case 'CONTAINS KEY': {
        const v = bound(p.terms[0]!);
        if (current === null || v === null) return false;
        const t = p.type;
        if (p.op === 'CONTAINS KEY' && t.kind === 'map')
          return readMapEntries(current).some(([k]) => compareValues(t.key, k, v) === 0);
        if (t.kind === 'map') return readMapEntries(current).some(([, x]) => compareValues(t.value, x, v) === 0);
        if (t.kind === 'list' || t.kind === 'set')
          return readCollectionElements(current).some((e) => compareValues(t.element, e, v) === 0);
        return false;
      }
    }
    const v = bound(p.terms[0]!);
    if (p.op === '=')
      return v === null ? current === null : current !== null && compareValues(p.type, current, v) === 0;
    if (p.op === '!=')
      return v === null ? current !== null : current === null || compareValues(p.type, current, v) !== 0;
    if (v === null) throw new InvalidRequest(`Invalid comparison with null for operator "${p.op}"`);
    if (current === null) return false;
    const c = compareValues(p.type, current, v);
    return p.op === '<' ? c < 0 : p.op === '<=' ? c <= 0 : p.op === '>' ? c > 0 : c >= 0;
  }

  /** Every condition is on a static column (Cassandra then reads the partition's first live row). */
  get onlyStaticColumns(): boolean {
    return this.kind === 'conditions' && this.prepared.every((p) => p.column.kind === 'static');
  }

  /**
   * `[applied]` result: true alone, or false with the current values Cassandra shows when its read returned a row
   * to show (`shown`).
   */
  result(
    applied: boolean,
    shown: boolean,
    rowValues: () => { specs: ColumnSpec[]; values: (Buffer | null)[] },
  ): {
    columns: ColumnSpec[];
    row: (Buffer | null)[];
  } {
    const applySpec = APPLIED_SPEC(this.table);
    if (applied || !shown) return { columns: [applySpec], row: [applied ? TRUE : FALSE] };
    const r = rowValues();
    return { columns: [applySpec, ...r.specs], row: [FALSE, ...r.values] };
  }
}
