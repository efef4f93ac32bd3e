// Which secondary index a SELECT can use, and what it reads: the WHERE relations an index serves (EQ on any
// index; ranges on SAI; CONTAINS / CONTAINS KEY / m[k] = v on collection indexes), the one chosen to drive the
// read (as a slice of the index partition), and whether what remains still needs ALLOW FILTERING — as
// Cassandra decides it: a legacy index serves one relation, SAI indexes serve every relation they cover.

import type { ClusteringBound } from '../../storage/mutation.js';
import { InvalidRequest } from '../errors.js';
import { type BindSpecs, type BoundTerm, prepareTerm } from '../execution/bound-term.js';
import type { Relation } from '../parser/ast.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import { ALLOW_FILTERING_MESSAGE, type KeyRestrictions } from '../restrictions/key-restrictions.js';
import { type ColumnPredicate, predicateValues, preparePredicate } from '../restrictions/row-filter.js';
import { isSai } from '../schema/index-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { encodeKeyComponent } from '../types/byte-comparable.js';
import type { CqlType } from '../types/cql-type.js';
import { readMapEntries } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';
import { IndexTerms } from './index-entries.js';

type ElementRelation = Relation & { kind: 'element' };
const RANGE_OPS = new Set(['<', '<=', '>', '>=']);

/** `m[k] = v`: a row filter, and the term of an entries() index. */
interface ElementFilter {
  columnIndex: number;
  type: CqlType & { kind: 'map' };
  key: BoundTerm;
  value: BoundTerm;
}

interface Candidate {
  terms: IndexTerms;
  /** '=' for EQ / CONTAINS / CONTAINS KEY / m[k] = v; 'range' for SAI slices. */
  kind: 'eq' | 'range';
  predicates: ColumnPredicate[];
  element: ElementFilter | undefined;
}

export interface IndexRange {
  start: ClusteringBound | undefined;
  end: ClusteringBound | undefined;
}

function bound(t: BoundTerm, values: readonly BoundValue[], name: string): Buffer {
  const v = t.value(values);
  if (v === UNSET) throw new InvalidRequest(`Invalid unset value for column ${name}`);
  if (v === null) throw new InvalidRequest(`Invalid null value for column ${name}`);
  return v;
}

export class IndexQuery {
  /** Relations the key restrictions should see (element relations are handled here). */
  readonly keyRelations: Relation[];
  readonly elementFilters: ElementFilter[] = [];
  private readonly candidates: Candidate[] = [];
  /** The index driving the read when the partition key is not restricted. */
  readonly chosen: Candidate | undefined;

  constructor(
    readonly table: TableMetadata,
    relations: readonly Relation[],
    specs: BindSpecs,
  ) {
    this.keyRelations = relations.filter((r) => r.kind !== 'element');
    const indexes = (table.indexes ?? [])
      .filter((i) => table.columns.some((c) => c.name === i.column))
      .map((i) => new IndexTerms(table, i))
      .filter((t) => t.keepsEntries);
    for (const r of relations) {
      if (r.kind !== 'element') continue;
      this.elementFilters.push(this.elementFilter(r, specs));
    }
    if (indexes.length === 0) return;
    for (const terms of indexes) {
      const col = terms.column;
      const target = terms.index.target;
      const rels = this.keyRelations.filter(
        (r): r is Relation & { kind: 'single' } => r.kind === 'single' && r.column === col.name,
      );
      const eq = rels.find(
        (r) =>
          (r.op === '=' && (target === 'simple' || target === 'full')) ||
          (r.op === 'CONTAINS' && target === 'values') ||
          (r.op === 'CONTAINS KEY' && target === 'keys'),
      );
      if (eq) {
        this.candidates.push({
          terms,
          kind: 'eq',
          predicates: [preparePredicate(table, eq, specs)],
          element: undefined,
        });
        continue;
      }
      const ranges = rels.filter((r) => RANGE_OPS.has(r.op));
      if (ranges.length > 0 && isSai(terms.index) && target === 'simple') {
        this.candidates.push({
          terms,
          kind: 'range',
          predicates: ranges.map((r) => preparePredicate(table, r, specs)),
          element: undefined,
        });
        continue;
      }
      if (target === 'entries') {
        // Each m[k] = v is served (SAI ANDs them; the first drives the read).
        for (const e of this.elementFilters.filter((f) => f.columnIndex === terms.columnIndex))
          this.candidates.push({ terms, kind: 'eq', predicates: [], element: e });
      }
    }
    // EQ first (fewest entries), legacy before SAI only as a tie-break.
    this.chosen = this.candidates.find((c) => c.kind === 'eq') ?? this.candidates[0];
  }

  get hasCandidates(): boolean {
    return this.candidates.length > 0;
  }

  /** Table column indices the index path reads (to re-check entries against the row). */
  get columnsNeeded(): number[] {
    return [...this.candidates.map((c) => c.terms.columnIndex), ...this.elementFilters.map((f) => f.columnIndex)];
  }

  private elementFilter(r: ElementRelation, specs: BindSpecs): ElementFilter {
    const columnIndex = this.table.columns.findIndex((c) => c.name === r.column);
    if (columnIndex < 0) throw new InvalidRequest(`Undefined column name ${r.column}`);
    const col = this.table.columns[columnIndex]!;
    if (col.type.kind !== 'map' || r.op !== '=') {
      throw new InvalidRequest(`Unsupported restriction ${r.column}[...] ${r.op} on column ${col.name}`);
    }
    const base = { keyspace: this.table.keyspace, table: this.table.name };
    return {
      columnIndex,
      type: col.type,
      key: prepareTerm(r.key, { ...base, name: `key(${col.name})`, type: col.type.key }, specs),
      value: prepareTerm(r.value, { ...base, name: `value(${col.name})`, type: col.type.value }, specs),
    };
  }

  /**
   * Throws when the query still needs ALLOW FILTERING: a relation on a non-key column that no index serves
   * (a legacy index serves only the relation it drives the read with).
   */
  checkFiltering(where: KeyRestrictions, allowFiltering: boolean): void {
    if (allowFiltering) return;
    if (!this.hasCandidates) {
      if (this.elementFilters.length > 0) throw new InvalidRequest(ALLOW_FILTERING_MESSAGE);
      return;
    }
    const served = (columnIndex: number, op: string) =>
      this.candidates.some(
        (c) =>
          c.terms.columnIndex === columnIndex &&
          (c === this.chosen || isSai(c.terms.index)) &&
          c.predicates.some((p) => p.op === op),
      );
    for (const f of where.filters) {
      const col = this.table.columns[f.columnIndex]!;
      if (col.kind === 'partition_key' || col.kind === 'clustering') continue;
      if (!served(f.columnIndex, f.op)) throw new InvalidRequest(ALLOW_FILTERING_MESSAGE);
    }
    for (const e of this.elementFilters) {
      const ok = this.candidates.some((c) => c.element === e && (c === this.chosen || isSai(c.terms.index)));
      if (!ok) throw new InvalidRequest(ALLOW_FILTERING_MESSAGE);
    }
  }

  /** Row filters for the element relations (`m[k] = v`). */
  bindElementFilters(values: readonly BoundValue[]): ((row: SelectedRow) => boolean)[] {
    return this.elementFilters.map((f) => {
      const k = bound(f.key, values, this.table.columns[f.columnIndex]!.name);
      const v = bound(f.value, values, this.table.columns[f.columnIndex]!.name);
      return (row: SelectedRow) => {
        const m = row.values[f.columnIndex];
        if (!m) return false;
        return readMapEntries(m).some(
          ([mk, mv]) => compareValues(f.type.key, mk, k) === 0 && compareValues(f.type.value, mv, v) === 0,
        );
      };
    });
  }

  /** The slices of the chosen index's partition to read, in order. */
  ranges(values: readonly BoundValue[]): IndexRange[] {
    const c = this.chosen!;
    const name = c.terms.column.name;
    if (c.element) {
      const type = c.element.type;
      const term = Buffer.concat([
        encodeKeyComponent(type.key, bound(c.element.key, values, name)),
        encodeKeyComponent(type.value, bound(c.element.value, values, name)),
      ]);
      return [{ start: { prefix: term, inclusive: true }, end: { prefix: term, inclusive: true } }];
    }
    const col = c.terms.column.type;
    const termType = (op: string): CqlType => {
      if (op === 'CONTAINS') return col.kind === 'map' ? col.value : (col as { element: CqlType }).element;
      if (op === 'CONTAINS KEY') return (col as { key: CqlType }).key;
      return col;
    };
    if (c.kind === 'eq') {
      const p = c.predicates[0]!;
      const terms = predicateValues(p, values, name).map((v) => encodeKeyComponent(termType(p.op), v));
      // In term order without duplicates: paging resumes by comparing with the last entry.
      terms.sort(Buffer.compare);
      return terms
        .filter((t, i) => i === 0 || !t.equals(terms[i - 1]!))
        .map((t) => ({ start: { prefix: t, inclusive: true }, end: { prefix: t, inclusive: true } }));
    }
    let start: ClusteringBound | undefined;
    let end: ClusteringBound | undefined;
    for (const p of c.predicates) {
      const v = predicateValues(p, values, name)[0]!;
      const t = encodeKeyComponent(col, v);
      const b = { prefix: t, inclusive: p.op === '>=' || p.op === '<=' };
      if (p.op === '>' || p.op === '>=') {
        if (!start || compareBound(b, start, 'start') > 0) start = b;
      } else if (!end || compareBound(b, end, 'end') < 0) end = b;
    }
    if (
      start &&
      end &&
      (Buffer.compare(start.prefix, end.prefix) > 0 ||
        (start.prefix.equals(end.prefix) && !(start.inclusive && end.inclusive)))
    ) {
      return [];
    }
    return [{ start, end }];
  }

  /** The entry's term is still among the row's current terms (else the entry is stale). */
  isCurrent(row: SelectedRow, term: Buffer): boolean {
    const c = this.chosen!;
    for (const t of c.terms.termsOfValue(row.values[c.terms.columnIndex] ?? null)) if (t.equals(term)) return true;
    return false;
  }
}

/** Orders two bounds on the same side: the tighter one compares greater (start) / smaller (end). */
function compareBound(a: ClusteringBound, b: ClusteringBound, side: 'start' | 'end'): number {
  const c = Buffer.compare(a.prefix, b.prefix);
  if (c !== 0) return c;
  if (a.inclusive === b.inclusive) return 0;
  // An exclusive start is tighter (greater); an exclusive end is tighter (smaller).
  return side === 'start' ? (a.inclusive ? -1 : 1) : a.inclusive ? 1 : -1;
}
