// The Arrow shape of a table's columnar twin (docs/arrow-twins.md): which Arrow type each CQL type
// becomes, and the field order of a segment: `_token`, partition key columns, clustering columns, static and
// regular columns (by column id), `_writetime`, `_expires`. Field metadata carries the CQL type and column id so a
// segment is self-describing (an exported file read by pyarrow/DuckDB still says what the columns were in CQL).

import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  IntervalMonthDayNano,
  List,
  Map_,
  Schema,
  Struct,
  TimeNanosecond,
  TimestampMillisecond,
  Utf8,
} from 'apache-arrow';
import { type CqlType, cqlTypeToString } from '../../cql/types/cql-type.js';

export type TwinColumnKind = 'partition_key' | 'clustering' | 'regular' | 'static';

/** What the twin needs to know of a table column (a subset of cql/schema's ColumnMetadata). */
export interface TwinColumn {
  readonly name: string;
  readonly id: number;
  readonly kind: TwinColumnKind;
  readonly type: CqlType;
  /** Position within the partition key or clustering key; ignored for regular and static columns. */
  readonly position: number;
  /** A clustering column in DESC order (only used to sort rows that come without a byte-comparable key). */
  readonly descending?: boolean | undefined;
}

export const TOKEN_FIELD = '_token';
/** `_token`'s place: the first field of every layout. */
export const TOKEN_FIELD_INDEX = 0;
export const WRITETIME_FIELD = '_writetime';
export const EXPIRES_FIELD = '_expires';

/** Field metadata keys. */
export const META_CQL_TYPE = 'pmemcql.cql_type';
export const META_COLUMN_ID = 'pmemcql.column_id';
export const META_COLUMN_KIND = 'pmemcql.kind';
/** Count of empty (zero-length, non-null) values a fixed-width column had; they are stored as null. */
export const META_EMPTY_VALUES = 'pmemcql.empty_values';
export const META_FORMAT = 'pmemcql.twin_format';
export const TWIN_FORMAT_VERSION = '1';

/** The Arrow type a CQL type maps to (see docs/arrow-twins.md for the why of each). */
export function arrowTypeOf(t: CqlType): DataType {
  switch (t.kind) {
    case 'native':
      switch (t.name) {
        case 'ascii':
        case 'text':
          return new Utf8();
        case 'bigint':
        case 'counter':
          return new Int64();
        case 'blob':
        case 'inet':
          return new Binary();
        case 'boolean':
          return new Bool();
        case 'date':
          return new DateDay();
        // Arbitrary precision with a per-value scale: no fixed Arrow decimal holds it; the canonical Java text
        // (BigDecimal.toString / BigInteger.toString) is lossless and readable by every Arrow consumer.
        case 'decimal':
        case 'varint':
          return new Utf8();
        case 'double':
          return new Float64();
        case 'duration':
          return new IntervalMonthDayNano();
        case 'float':
          return new Float32();
        case 'int':
          return new Int32();
        case 'smallint':
          return new Int16();
        case 'tinyint':
          return new Int8();
        case 'time':
          return new TimeNanosecond();
        case 'timestamp':
          return new TimestampMillisecond('UTC');
        case 'uuid':
        case 'timeuuid':
          return new FixedSizeBinary(16);
      }
      break;
    case 'list':
    case 'set':
      return new List(new Field('item', arrowTypeOf(t.element), true));
    case 'map':
      return new Map_(
        new Field(
          'entries',
          new Struct<{ key: DataType; value: DataType }>([
            new Field('key', arrowTypeOf(t.key), false),
            new Field('value', arrowTypeOf(t.value), true),
          ] as never),
          false,
        ),
        true,
      );
    case 'tuple':
      return new Struct(t.elements.map((e, i) => new Field(String(i), arrowTypeOf(e), true)));
    case 'udt':
      return new Struct(t.fields.map((f) => new Field(f.name, arrowTypeOf(f.type), true)));
    case 'vector':
      return new FixedSizeList(t.dimension, new Field('item', arrowTypeOf(t.element), false));
    case 'custom':
      return new Binary();
  }
  throw new Error(`no Arrow mapping for ${cqlTypeToString(t)}`);
}

/** Column order in a segment and where each piece lives. */
export interface TwinLayout {
  readonly schema: Schema;
  /** User columns in field order (field index = 1 + index here). */
  readonly columns: readonly TwinColumn[];
  readonly partitionKey: readonly TwinColumn[];
  readonly clustering: readonly TwinColumn[];
  /** Field indexes of the hidden columns. */
  readonly tokenField: number;
  readonly writetimeField: number;
  readonly expiresField: number;
  /** Column id -> field index. */
  readonly fieldOfColumn: ReadonlyMap<number, number>;
}

function byPosition(a: TwinColumn, b: TwinColumn): number {
  return a.position - b.position;
}

/** A name no user column has (quoted CQL identifiers may be anything, even `_token`). */
function hiddenName(base: string, taken: ReadonlySet<string>): string {
  let name = base;
  while (taken.has(name)) name = `_${name}`;
  return name;
}

export function twinLayout(columns: readonly TwinColumn[]): TwinLayout {
  const partitionKey = columns.filter((c) => c.kind === 'partition_key').sort(byPosition);
  const clustering = columns.filter((c) => c.kind === 'clustering').sort(byPosition);
  const others = columns.filter((c) => c.kind === 'regular' || c.kind === 'static').sort((a, b) => a.id - b.id);
  const ordered = [...partitionKey, ...clustering, ...others];
  const taken = new Set(columns.map((c) => c.name));

  const fields: Field[] = [new Field(hiddenName(TOKEN_FIELD, taken), new Int64(), false)];
  const fieldOfColumn = new Map<number, number>();
  for (const c of ordered) {
    fieldOfColumn.set(c.id, fields.length);
    const meta = new Map([
      [META_CQL_TYPE, cqlTypeToString(c.type)],
      [META_COLUMN_ID, String(c.id)],
      [META_COLUMN_KIND, c.kind],
    ]);
    // Key columns are never null in a row, but a partition with only a static row has null clustering values.
    fields.push(new Field(c.name, arrowTypeOf(c.type), c.kind !== 'partition_key', meta));
  }
  const writetimeField = fields.length;
  fields.push(new Field(hiddenName(WRITETIME_FIELD, taken), new Int64(), false));
  const expiresField = fields.length;
  fields.push(new Field(hiddenName(EXPIRES_FIELD, taken), new Int32(), true));
  const schema = new Schema(fields, new Map([[META_FORMAT, TWIN_FORMAT_VERSION]]));
  return {
    schema,
    columns: ordered,
    partitionKey,
    clustering,
    tokenField: 0,
    writetimeField,
    expiresField,
    fieldOfColumn,
  };
}
