// WHERE relations of a user-table statement, sorted by what storage can use: partition key values
// (EQ/IN), token bounds, a clustering prefix (EQ/IN) with an optional slice on the next column, and
// the rest, which only ALLOW FILTERING may evaluate row by row. Validation follows Cassandra's rules
// and messages (StatementRestrictions).

import type { ClusteringBound } from '../../storage/mutation.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import { InvalidRequest } from '../errors.js';
import { type BindSpecs, type BoundTerm, prepareTerm } from '../execution/bound-term.js';
import { prepareTokenTerm } from '../execution/token-term.js';
import type { Relation, Term } from '../parser/ast.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { clusteringPrefixBound, clusteringSliceBounds } from '../types/byte-comparable.js';
import { type CqlType, native } from '../types/cql-type.js';
import { readCollectionElements, readTupleFields } from '../types/serialized-layout.js';
import { compareValues } from '../types/value-comparator.js';
import { type ColumnPredicate, preparePredicate } from './row-filter.js';

export const ALLOW_FILTERING_MESSAGE =
  'Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. ' +
  'If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING';

/** Values for one key column: a single EQ term, an IN list of terms, or one marker for the whole IN list. */
interface KeyValues {
  terms: BoundTerm[];
  listMarker: BoundTerm | undefined;
}

interface SliceSide {
  term: BoundTerm;
  inclusive: boolean;
}

interface ClusteringSlice {
  /** Position of the sliced clustering column. */
  position: number;
  lower: SliceSide | undefined;
  upper: SliceSide | undefined;
}

export type StatementKind = 'select' | 'update' | 'delete';

export interface ClusteringRange {
  start: ClusteringBound | undefined;
  end: ClusteringBound | undefined;
}

type SingleRelation = Relation & { kind: 'single' };

const EMPTY_RANGE: ClusteringRange = { start: undefined, end: undefined };

function sameBound(a: ClusteringBound | undefined, b: ClusteringBound | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.inclusive === b.inclusive && a.prefix.equals(b.prefix));
}

function sameRange(a: ClusteringRange, b: ClusteringRange): boolean {
  return sameBound(a.start, b.start) && sameBound(a.end, b.end);
}

function bindKeyValues(kv: KeyValues, values: readonly BoundValue[], column: ColumnMetadata): Buffer[] {
  let out: Buffer[];
  if (kv.listMarker) {
    const list = kv.listMarker.value(values);
    if (list === null || list === UNSET)
      throw new InvalidRequest(`Invalid null value for IN restriction on ${column.name}`);
    out = readCollectionElements(list);
  } else {
    out = kv.terms.map((t) => {
      const v = t.value(values);
      if (v === UNSET) throw new InvalidRequest(`Invalid unset value for column ${column.name}`);
      if (v === null) throw new InvalidRequest(`Invalid null value in condition for column ${column.name}`);
      return v;
    });
  }
  return out;
}

function product(lists: Buffer[][]): Buffer[][] {
  let acc: Buffer[][] = [[]];
  for (const list of lists) {
    const next: Buffer[][] = [];
    for (const prefix of acc) for (const v of list) next.push([...prefix, v]);
    acc = next;
  }
  return acc;
}

export class KeyRestrictions {
  private readonly partition: (KeyValues | undefined)[];
  private readonly clusteringEq: KeyValues[] = [];
  private slice: ClusteringSlice | undefined;
  private tokenLower: SliceSide | undefined;
  private tokenUpper: SliceSide | undefined;
  readonly filters: ColumnPredicate[] = [];
  /** Bind indices of the partition key when each component is one `= ?`. */
  readonly partitionKeyIndices: number[] = [];
  /** Positions of the clustering columns restricted by `=` (single or multi-column; IN is not EQ). */
  private readonly clusteringEqPositions = new Set<number>();

  constructor(
    readonly table: TableMetadata,
    relations: readonly Relation[],
    specs: BindSpecs,
    readonly kind: StatementKind,
    allowFiltering: boolean,
  ) {
    this.partition = table.partitionKey.map(() => undefined);
    const ckRelations = new Map<number, SingleRelation[]>();
    const pkMarkers: (number | undefined)[] = table.partitionKey.map(() => undefined);
    let needsFiltering = false;

    for (const r of relations) {
      if (r.kind === 'token') {
        this.addToken(r.columns, r.op, r.value, specs);
        continue;
      }
      if (r.kind === 'multi') {
        this.addMulti(r, specs);
        continue;
      }
      if (r.kind !== 'single') throw new InvalidRequest('Unsupported restriction');
      const col = table.columns.find((c) => c.name === r.column);
      if (!col) throw new InvalidRequest(`Undefined column name ${r.column}`);
      if (col.kind === 'partition_key') {
        if (r.op !== '=' && r.op !== 'IN') {
          if (kind !== 'select')
            throw new InvalidRequest(
              `Only EQ and IN relation are supported on the partition key (unless you use the token() function)`,
            );
          this.filters.push(preparePredicate(table, r, specs));
          needsFiltering = true;
          continue;
        }
        if (this.partition[col.position])
          throw new InvalidRequest(
            `${col.name} cannot be restricted by more than one relation if it includes an Equal`,
          );
        this.partition[col.position] = this.keyValues(r, col, specs);
        if (r.op === '=' && r.value?.kind === 'marker') pkMarkers[col.position] = r.value.index;
      } else if (col.kind === 'clustering') {
        if (r.op === '=') this.clusteringEqPositions.add(col.position);
        const list = ckRelations.get(col.position) ?? [];
        list.push(r);
        ckRelations.set(col.position, list);
      } else {
        if (kind !== 'select') throw new InvalidRequest(`Non PRIMARY KEY columns found in where clause: ${col.name} `);
        this.filters.push(preparePredicate(table, r, specs));
        needsFiltering = true;
      }
    }

    // Clustering: EQ/IN on a prefix, then at most one slice; anything after needs filtering.
    let broken: string | undefined;
    for (const ck of table.clustering) {
      const rels = ckRelations.get(ck.position);
      if (!rels) {
        if (broken === undefined) broken = ck.name;
        continue;
      }
      const eq = rels.filter((r) => r.op === '=' || r.op === 'IN');
      const ranges = rels.filter((r) => ['<', '<=', '>', '>='].includes(r.op));
      const other = rels.filter((r) => !eq.includes(r) && !ranges.includes(r));
      const usable = broken === undefined && this.slice === undefined && other.length === 0;
      if (eq.length > 1 || (eq.length === 1 && ranges.length > 0)) {
        throw new InvalidRequest(`${ck.name} cannot be restricted by more than one relation if it includes an Equal`);
      }
      if (usable && eq.length === 1) {
        if (this.clusteringEq.length !== ck.position)
          throw new InvalidRequest(`Clustering column "${ck.name}" cannot be restricted`);
        this.clusteringEq.push(this.keyValues(eq[0]!, ck, specs));
      } else if (usable && ranges.length > 0) {
        this.slice = { position: ck.position, lower: undefined, upper: undefined };
        for (const r of ranges) this.addSliceSide(r, ck, specs);
      } else {
        if (kind !== 'select') {
          if (broken !== undefined)
            throw new InvalidRequest(
              `PRIMARY KEY column "${ck.name}" cannot be restricted as preceding column "${broken}" is not restricted`,
            );
          throw new InvalidRequest(
            `Clustering column "${ck.name}" cannot be restricted (preceding column "${table.clustering[this.slice?.position ?? 0]!.name}" is restricted by a non-EQ relation)`,
          );
        }
        if (!allowFiltering && broken !== undefined && other.length === 0) {
          throw new InvalidRequest(
            `PRIMARY KEY column "${ck.name}" cannot be restricted as preceding column "${broken}" is not restricted`,
          );
        }
        for (const r of rels) this.filters.push(preparePredicate(table, r, specs));
        needsFiltering = true;
      }
    }

    const restrictedPk = this.partition.filter((p) => p !== undefined).length;
    if (restrictedPk > 0 && restrictedPk < this.partition.length) {
      if (kind !== 'select') {
        const missing = table.partitionKey.filter((_, i) => !this.partition[i]).map((c) => c.name);
        throw new InvalidRequest(`Some partition key parts are missing: ${missing.join(', ')}`);
      }
      // Partial partition key: evaluate as filters over a scan.
      table.partitionKey.forEach((c, i) => {
        const kv = this.partition[i];
        if (kv) this.filters.push(this.asPredicate(c, kv));
        this.partition[i] = undefined;
      });
      needsFiltering = true;
    }
    if (kind !== 'select') {
      if (restrictedPk === 0) {
        throw new InvalidRequest(
          `Some partition key parts are missing: ${table.partitionKey.map((c) => c.name).join(', ')}`,
        );
      }
      if (kind === 'update' && this.clusteringEq.length < table.clustering.length && table.clustering.length > 0) {
        const missing = table.clustering.slice(this.clusteringEq.length).map((c) => c.name);
        throw new InvalidRequest(`Some clustering keys are missing: ${missing.join(', ')}`);
      }
    }
    if (kind === 'select' && !this.hasPartitionKey && (this.clusteringEq.length > 0 || this.slice)) {
      // Clustering restrictions without a partition need a scan of every partition.
      needsFiltering = true;
    }
    if (needsFiltering && !allowFiltering) throw new InvalidRequest(ALLOW_FILTERING_MESSAGE);
    if (pkMarkers.every((m) => m !== undefined)) this.partitionKeyIndices.push(...(pkMarkers as number[]));
  }

  /** Every partition key component is restricted by EQ/IN: a read of known partitions. */
  get hasPartitionKey(): boolean {
    return this.partition.every((p) => p !== undefined);
  }

  /**
   * The partition key is restricted by IN (StatementRestrictions.keyIsInRelation): an IN list of several (or no)
   * values, or one marker for the whole list. A literal one-value IN is an EQ, as Cassandra prepares it.
   */
  get keyIsInRelation(): boolean {
    return this.hasPartitionKey && this.singleKeyTerms() === null;
  }

  /** The clustering column at `position` is restricted by `=` (StatementRestrictions.isColumnRestrictedByEq). */
  isClusteringRestrictedByEq(position: number): boolean {
    return this.clusteringEqPositions.has(position);
  }

  get hasTokenRestrictions(): boolean {
    return this.tokenLower !== undefined || this.tokenUpper !== undefined;
  }

  get hasClusteringRestrictions(): boolean {
    return (
      this.clusteringEq.length > 0 ||
      this.slice !== undefined ||
      this.multiSlice !== undefined ||
      this.multiIn !== undefined
    );
  }

  /** The clustering of the single row addressed (all clustering columns EQ), per bound combination. */
  get clusteringIsComplete(): boolean {
    return this.clusteringEq.length + (this.multiIn?.width ?? 0) === this.table.clustering.length;
  }

  private keyValues(r: SingleRelation, col: ColumnMetadata, specs: BindSpecs): KeyValues {
    const base = { keyspace: this.table.keyspace, table: this.table.name };
    if (r.op === '=')
      return {
        terms: [prepareTerm(r.value!, { ...base, name: col.name, type: col.type }, specs)],
        listMarker: undefined,
      };
    const inValues = r.in!;
    if (inValues.kind === 'marker') {
      const listType: CqlType = { kind: 'list', element: col.type, frozen: false };
      return {
        terms: [],
        listMarker: prepareTerm(inValues.marker, { ...base, name: `in(${col.name})`, type: listType }, specs),
      };
    }
    return {
      terms: inValues.terms.map((t) => prepareTerm(t, { ...base, name: col.name, type: col.type }, specs)),
      listMarker: undefined,
    };
  }

  private asPredicate(col: ColumnMetadata, kv: KeyValues): ColumnPredicate {
    return {
      columnIndex: this.table.columns.indexOf(col),
      op: 'IN',
      terms: kv.terms,
      inMarker: kv.listMarker,
      type: col.type,
    };
  }

  private addSliceSide(r: SingleRelation, col: ColumnMetadata, specs: BindSpecs): void {
    const term = prepareTerm(
      r.value!,
      { keyspace: this.table.keyspace, table: this.table.name, name: col.name, type: col.type },
      specs,
    );
    const side = { term, inclusive: r.op === '<=' || r.op === '>=' };
    const s = this.slice!;
    if (r.op === '>' || r.op === '>=') {
      if (s.lower) throw new InvalidRequest(`More than one restriction was found for the start bound on ${col.name}`);
      s.lower = side;
    } else {
      if (s.upper) throw new InvalidRequest(`More than one restriction was found for the end bound on ${col.name}`);
      s.upper = side;
    }
  }

  private addToken(columns: readonly string[], op: string, value: Term, specs: BindSpecs): void {
    const names = this.table.partitionKey.map((c) => c.name);
    if (columns.length !== names.length || columns.some((c, i) => c !== names[i])) {
      throw new InvalidRequest(`The token function arguments must be in the partition key order: ${names.join(', ')}`);
    }
    const term =
      prepareTokenTerm(value, this.table, specs) ??
      prepareTerm(
        value,
        { keyspace: this.table.keyspace, table: this.table.name, name: 'partition key token', type: native('bigint') },
        specs,
      );
    if (op === '=') {
      this.tokenLower = { term, inclusive: true };
      this.tokenUpper = { term, inclusive: true };
    } else if (op === '>' || op === '>=') {
      this.tokenLower = { term, inclusive: op === '>=' };
    } else if (op === '<' || op === '<=') {
      this.tokenUpper = { term, inclusive: op === '<=' };
    } else {
      throw new InvalidRequest(`Unsupported "${op}" relation: token(${columns.join(', ')}) ${op}`);
    }
  }

  private addMulti(r: Relation & { kind: 'multi' }, specs: BindSpecs): void {
    const cols = r.columns.map((name, i) => {
      const c = this.table.columns.find((x) => x.name === name);
      if (!c) throw new InvalidRequest(`Undefined column name ${name}`);
      if (c.kind !== 'clustering')
        throw new InvalidRequest(
          `Multi-column relations can only be applied to clustering columns but was applied to: ${name}`,
        );
      if (c.position !== this.clusteringEq.length + i) {
        throw new InvalidRequest(
          `Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (${r.columns.join(', ')})`,
        );
      }
      return c;
    });
    const base = { keyspace: this.table.keyspace, table: this.table.name };
    const tupleOf = (t: Term | undefined): BoundTerm[] => {
      if (t && t.kind === 'tuple' && t.elements.length === cols.length) {
        return t.elements.map((e, i) => prepareTerm(e, { ...base, name: cols[i]!.name, type: cols[i]!.type }, specs));
      }
      throw new InvalidRequest(
        `Expected ${cols.length} elements in value tuple, but got ${t?.kind === 'tuple' ? t.elements.length : 1}: ${r.columns.join(', ')}`,
      );
    };
    if (r.op === '=') for (const c of cols) this.clusteringEqPositions.add(c.position);
    const tupleType: CqlType = { kind: 'tuple', elements: cols.map((c) => c.type) };
    const tupleName = `(${r.columns.join(',')})`;
    if (r.op === '=' && r.value?.kind === 'marker') {
      // (a, b) = ?: one bound tuple.
      this.multiIn = {
        tuples: [],
        marker: prepareTerm(r.value, { ...base, name: tupleName, type: tupleType }, specs),
        list: false,
        width: cols.length,
      };
      return;
    }
    if (r.op === '=') {
      tupleOf(r.value).forEach((term) => {
        this.clusteringEq.push({ terms: [term], listMarker: undefined });
      });
      return;
    }
    if (r.op === 'IN') {
      const inv = r.in!;
      this.multiIn =
        inv.kind === 'marker'
          ? {
              tuples: [],
              marker: prepareTerm(
                inv.marker,
                { ...base, name: `in${tupleName}`, type: { kind: 'list', element: tupleType, frozen: false } },
                specs,
              ),
              list: true,
              width: cols.length,
            }
          : { tuples: inv.terms.map((t) => tupleOf(t)), marker: undefined, list: false, width: cols.length };
      return;
    }
    if (!['<', '<=', '>', '>='].includes(r.op)) {
      throw new InvalidRequest(`Multi-column ${r.op} relations are not supported yet`);
    }
    // A tuple slice is a slice on the last column of the tuple with the others as its prefix.
    const terms = tupleOf(r.value);
    const last = cols[cols.length - 1]!;
    this.multiSlice ??= {
      position: last.position,
      prefix: terms.slice(0, -1),
      lower: undefined,
      upper: undefined,
    };
    const s = this.multiSlice;
    const side = {
      term: terms[terms.length - 1]!,
      inclusive: r.op === '<=' || r.op === '>=',
      prefix: terms.slice(0, -1),
    };
    if (r.op === '>' || r.op === '>=') s.lower = side;
    else s.upper = side;
  }

  private multiSlice:
    | {
        position: number;
        prefix: BoundTerm[];
        lower: (SliceSide & { prefix: BoundTerm[] }) | undefined;
        upper: (SliceSide & { prefix: BoundTerm[] }) | undefined;
      }
    | undefined;

  // ---- execution ----------------------------------------------------------------------------

  /**
   * Serialized partition keys in key order (component by component with each column's type comparator) and without
   * duplicates by that order, as Cassandra's MultiCBuilder builds the set of keys a read visits in turn.
   */
  partitionKeys(values: readonly BoundValue[]): Buffer[] {
    const eq = this.singleKeyTerms();
    if (eq) return [this.singleKey(eq, values)];
    const pk = this.table.partitionKey;
    const lists = pk.map((c, i) => bindKeyValues(this.partition[i]!, values, c));
    const seen = new Set<string>();
    const keys: { key: Buffer; components: Buffer[] }[] = [];
    for (const components of product(lists)) {
      const key = serializePartitionKey(components);
      if (key.length === 0) throw new InvalidRequest('Key may not be empty');
      const id = key.toString('latin1');
      if (seen.has(id)) continue;
      seen.add(id);
      keys.push({ key, components });
    }
    const compare = (a: { components: Buffer[] }, b: { components: Buffer[] }) => {
      for (let i = 0; i < pk.length; i++) {
        const c = compareValues(pk[i]!.type, a.components[i]!, b.components[i]!);
        if (c !== 0) return c;
      }
      return 0;
    };
    // A stable sort, then one key per comparator-equal run (1.0 and 1.00): the first given, as BTreeSet keeps it.
    keys.sort(compare);
    return keys.filter((k, i) => i === 0 || compare(keys[i - 1]!, k) !== 0).map((k) => k.key);
  }

  /**
   * The partition key's terms when each of its columns has one EQ term (a point query or write): one key, with
   * no cartesian product and no duplicate check. Null for IN, undefined until first asked.
   */
  private eqTerms: BoundTerm[] | null | undefined;

  private singleKeyTerms(): BoundTerm[] | null {
    if (this.eqTerms === undefined) {
      const single = this.partition.every((kv) => kv !== undefined && !kv.listMarker && kv.terms.length === 1);
      this.eqTerms = single ? this.partition.map((kv) => kv!.terms[0]!) : null;
    }
    return this.eqTerms;
  }

  /** partitionKeys for the single-key shape: the same checks and messages, in the same order. */
  private singleKey(terms: BoundTerm[], values: readonly BoundValue[]): Buffer {
    const components = new Array<Buffer>(terms.length);
    for (let i = 0; i < terms.length; i++) {
      const v = terms[i]!.value(values);
      const column = this.table.partitionKey[i]!;
      if (v === UNSET) throw new InvalidRequest(`Invalid unset value for column ${column.name}`);
      if (v === null) throw new InvalidRequest(`Invalid null value in condition for column ${column.name}`);
      components[i] = v;
    }
    const key = serializePartitionKey(components);
    if (key.length === 0) throw new InvalidRequest('Key may not be empty');
    return key;
  }

  /** Token bounds (token() restrictions), undefined when none. */
  tokenBounds(values: readonly BoundValue[]): {
    start?: { token: bigint; inclusive: boolean };
    end?: { token: bigint; inclusive: boolean };
  } {
    const read = (s: SliceSide | undefined) => {
      if (!s) return undefined;
      const v = s.term.value(values);
      if (v === null || v === UNSET) throw new InvalidRequest('Invalid null value for partition key token');
      return { token: v.readBigInt64BE(0), inclusive: s.inclusive };
    };
    return { start: read(this.tokenLower), end: read(this.tokenUpper) };
  }

  /** Clustering EQ values (cartesian product over IN lists): each a full or partial prefix. */
  clusteringPrefixes(values: readonly BoundValue[]): Buffer[][] {
    const lists = this.clusteringEq.map((kv, i) => bindKeyValues(kv, values, this.table.clustering[i]!));
    const prefixes = product(lists);
    const m = this.multiIn;
    if (!m) return prefixes;
    // Multi-column EQ/IN: each tuple extends every prefix of the single-column EQs before it.
    let tuples: Buffer[][];
    if (m.marker) {
      const v = m.marker.value(values);
      if (v === null || v === UNSET) throw new InvalidRequest('Invalid null value for multi-column restriction');
      const items = m.list ? readCollectionElements(v) : [v];
      tuples = items.map((t) => readTupleFields(t).map((f) => f ?? Buffer.alloc(0)));
    } else {
      tuples = m.tuples.map((t) =>
        t.map((term) => {
          const v = term.value(values);
          if (v === null || v === UNSET) throw new InvalidRequest('Invalid null value in multi-column restriction');
          return v;
        }),
      );
    }
    const seen = new Set<string>();
    const out: Buffer[][] = [];
    for (const p of prefixes) {
      for (const t of tuples) {
        const full = [...p, ...t];
        const id = full.map((b) => b.toString('hex')).join(':');
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(full);
      }
    }
    return out;
  }

  /** `(a, b) IN (...)`, `(a, b) IN ?` or `(a, b) = ?` on the clustering columns after the EQ prefix. */
  private multiIn: { tuples: BoundTerm[][]; marker: BoundTerm | undefined; list: boolean; width: number } | undefined;

  /**
   * `(c1..ck) > (v1..vk)` is the union over i of `c1 = v1 .. c(i-1) = v(i-1) AND ci > vi` (the last
   * component with the relation's own inclusiveness); both sides given: the pairwise intersections.
   * Ranges are [start, end) over byte-comparable keys; undefined is unbounded within `prefix`.
   */
  private multiSliceRanges(
    values: readonly BoundValue[],
    prefix: readonly Buffer[],
    types: readonly CqlType[],
    desc: readonly boolean[],
  ): { start: Buffer | undefined; end: Buffer | undefined }[] {
    const m = this.multiSlice!;
    const whole = {
      start: prefix.length > 0 ? clusteringPrefixBound(types, desc, [...prefix], 'before') : undefined,
      end: prefix.length > 0 ? clusteringPrefixBound(types, desc, [...prefix], 'after') : undefined,
    };
    const sideRanges = (side: (SliceSide & { prefix: BoundTerm[] }) | undefined, greater: boolean) => {
      if (!side) return [whole];
      const tuple = [...side.prefix, side.term].map((t, i) => {
        const v = t.value(values);
        if (v === null || v === UNSET) {
          throw new InvalidRequest(
            `Invalid null value in condition for column ${this.table.clustering[prefix.length + i]!.name}`,
          );
        }
        return v;
      });
      return tuple.map((_, i) => {
        const last = i === tuple.length - 1;
        const op = greater ? (last && side.inclusive ? '>=' : '>') : last && side.inclusive ? '<=' : '<';
        return clusteringSliceBounds(types, desc, [...prefix, ...tuple.slice(0, i + 1)], op);
      });
    };
    const lower = sideRanges(m.lower, true);
    const upper = sideRanges(m.upper, false);
    const out: { start: Buffer | undefined; end: Buffer | undefined }[] = [];
    for (const a of lower) {
      for (const b of upper) {
        const start = !a.start
          ? b.start
          : !b.start
            ? a.start
            : Buffer.compare(a.start, b.start) >= 0
              ? a.start
              : b.start;
        const end = !a.end ? b.end : !b.end ? a.end : Buffer.compare(a.end, b.end) <= 0 ? a.end : b.end;
        if (start && end && Buffer.compare(start, end) >= 0) continue;
        out.push({ start, end });
      }
    }
    return out;
  }

  /** Storage ranges covering the clustering restrictions, in clustering order. */
  clusteringRanges(values: readonly BoundValue[]): ClusteringRange[] {
    const cks = this.table.clustering;
    if (cks.length === 0) return [EMPTY_RANGE];
    const types = cks.map((c) => c.type);
    const desc = cks.map((c) => c.clusteringOrder === 'desc');
    const prefixes = this.clusteringPrefixes(values);
    const ranges: ClusteringRange[] = [];
    for (const prefix of prefixes) {
      let start: Buffer | undefined =
        prefix.length > 0 ? clusteringPrefixBound(types, desc, prefix, 'before') : undefined;
      let end: Buffer | undefined = prefix.length > 0 ? clusteringPrefixBound(types, desc, prefix, 'after') : undefined;
      const applySide = (side: SliceSide | undefined, op: '<' | '<=' | '>' | '>=', basePrefix: Buffer[]) => {
        if (!side) return;
        const v = side.term.value(values);
        if (v === UNSET) return;
        if (v === null)
          throw new InvalidRequest(`Invalid null value in condition for column ${cks[basePrefix.length]!.name}`);
        const b = clusteringSliceBounds(types, desc, [...basePrefix, v], op);
        if (!start || Buffer.compare(b.start, start) > 0) start = b.start;
        if (!end || Buffer.compare(b.end, end) < 0) end = b.end;
      };
      if (this.slice) {
        applySide(this.slice.lower, this.slice.lower?.inclusive ? '>=' : '>', prefix);
        applySide(this.slice.upper, this.slice.upper?.inclusive ? '<=' : '<', prefix);
      }
      if (this.multiSlice) {
        // A tuple comparison is a union of ranges, one per component (correct for any clustering order).
        for (const r of this.multiSliceRanges(values, prefix, types, desc)) {
          const st = start && (!r.start || Buffer.compare(start, r.start) > 0) ? start : r.start;
          const en = end && (!r.end || Buffer.compare(end, r.end) < 0) ? end : r.end;
          if (st && en && Buffer.compare(st, en) >= 0) continue;
          ranges.push({
            start: st ? { prefix: st, inclusive: true } : undefined,
            end: en ? { prefix: en, inclusive: false } : undefined,
          });
        }
        continue;
      }
      if (start && end && Buffer.compare(start, end) >= 0) continue;
      ranges.push({
        start: start ? { prefix: start, inclusive: true } : undefined,
        end: end ? { prefix: end, inclusive: false } : undefined,
      });
    }
    // Unbounded starts first; the rest in key order.
    ranges.sort((a, b) =>
      !a.start ? (b.start ? -1 : 0) : !b.start ? 1 : Buffer.compare(a.start.prefix, b.start.prefix),
    );
    // A value repeated in an IN selects its rows once (the clusterings form a set, as MultiCBuilder builds them).
    return ranges.filter((r, i) => i === 0 || !sameRange(r, ranges[i - 1]!));
  }
}
