// The raw AST the parser produces: what the statement says, before any schema is consulted. Names are
// already case-folded (unquoted identifiers lower-cased, quoted ones kept). Offsets (`pos`) point into
// the statement text; turn them into line:column with lexer.ts lineCol().

import { checkCollectionElement } from '../types/collection-element-rules.js';
import type { CqlType, NativeTypeName } from '../types/cql-type.js';

// ---------------------------------------------------------------- names

/** `[keyspace.]name`; keyspace is undefined when the statement did not say it. */
export interface QualifiedName {
  readonly keyspace: string | undefined;
  readonly name: string;
}

// ---------------------------------------------------------------- types

/** A user type referenced by name, resolved against the schema later. */
export interface UserTypeRef {
  readonly kind: 'userType';
  readonly keyspace: string | undefined;
  readonly name: string;
  readonly frozen: boolean;
}

/**
 * A type as written. Without user type references it is already a valid CqlType (see isResolvedType);
 * with them, nested nodes may be UserTypeRef.
 */
export type RawType =
  | Extract<CqlType, { kind: 'native' | 'custom' }>
  | { readonly kind: 'list'; readonly element: RawType; readonly frozen: boolean }
  | { readonly kind: 'set'; readonly element: RawType; readonly frozen: boolean }
  | { readonly kind: 'map'; readonly key: RawType; readonly value: RawType; readonly frozen: boolean }
  | { readonly kind: 'tuple'; readonly elements: readonly RawType[] }
  | { readonly kind: 'vector'; readonly element: RawType; readonly dimension: number }
  | UserTypeRef;

// ---------------------------------------------------------------- terms

export type LiteralKind = 'string' | 'integer' | 'float' | 'boolean' | 'uuid' | 'hex' | 'duration';

export interface Literal {
  readonly kind: 'literal';
  readonly type: LiteralKind;
  /**
   * Cassandra's raw text: the unescaped content for strings, the source text otherwise
   * (NaN / Infinity / -Infinity for those keywords).
   */
  readonly text: string;
  readonly pos: number;
}

export interface NullLiteral {
  readonly kind: 'null';
  readonly pos: number;
}

export type MarkerRole = 'value' | 'in' | 'json';

/** `?` or `:name`. `index` is the 0-based position among all markers of the whole statement. */
export interface BindMarker {
  readonly kind: 'marker';
  readonly index: number;
  /** Name of a `:name` marker (case-folded), undefined for `?`. */
  readonly name: string | undefined;
  /** 'in' for a marker standing for a whole IN list, 'json' for INSERT JSON ?. */
  readonly role: MarkerRole;
  readonly pos: number;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '%';

export type Term =
  | Literal
  | NullLiteral
  | BindMarker
  | { readonly kind: 'list'; readonly elements: readonly Term[]; readonly pos: number }
  /** `{}` parses as an empty set; the receiver's type decides whether it is a map. */
  | { readonly kind: 'set'; readonly elements: readonly Term[]; readonly pos: number }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [Term, Term])[]; readonly pos: number }
  | {
      readonly kind: 'udt';
      readonly fields: readonly { readonly name: string; readonly value: Term }[];
      readonly pos: number;
    }
  | { readonly kind: 'tuple'; readonly elements: readonly Term[]; readonly pos: number }
  | {
      readonly kind: 'function';
      readonly keyspace: string | undefined;
      readonly name: string;
      readonly args: readonly Term[];
      readonly pos: number;
    }
  /** `(type) term`: a type hint. */
  | { readonly kind: 'typeHint'; readonly type: RawType; readonly term: Term; readonly pos: number }
  /** `CAST(term AS type)` inside a term. */
  | { readonly kind: 'cast'; readonly term: Term; readonly type: NativeTypeName; readonly pos: number }
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Term; readonly right: Term; readonly pos: number }
  | { readonly kind: 'negate'; readonly term: Term; readonly pos: number };

// ---------------------------------------------------------------- selectors

export type Selectable =
  | { readonly kind: 'column'; readonly name: string; readonly pos: number }
  /** A literal, NULL or bind marker in a selection. */
  | { readonly kind: 'term'; readonly term: Literal | NullLiteral | BindMarker; readonly pos: number }
  | { readonly kind: 'countRows'; readonly pos: number }
  | {
      readonly kind: 'writetime' | 'maxwritetime' | 'ttl';
      /** The column, possibly with field / element selection (`writetime(m[1])`). */
      readonly target: Selectable;
      readonly pos: number;
    }
  | { readonly kind: 'cast'; readonly arg: Selectable; readonly type: NativeTypeName; readonly pos: number }
  | {
      readonly kind: 'function';
      readonly keyspace: string | undefined;
      readonly name: string;
      readonly args: readonly Selectable[];
      readonly pos: number;
    }
  | { readonly kind: 'field'; readonly arg: Selectable; readonly field: string; readonly pos: number }
  | { readonly kind: 'element'; readonly arg: Selectable; readonly key: Term; readonly pos: number }
  | {
      readonly kind: 'slice';
      readonly arg: Selectable;
      readonly from: Term | undefined;
      readonly to: Term | undefined;
      readonly pos: number;
    }
  | {
      readonly kind: 'binary';
      readonly op: BinaryOp;
      readonly left: Selectable;
      readonly right: Selectable;
      readonly pos: number;
    }
  | { readonly kind: 'negate'; readonly arg: Selectable; readonly pos: number }
  | { readonly kind: 'typeHint'; readonly type: RawType; readonly arg: Selectable; readonly pos: number }
  /** `(a)` is a one-element tuple selector, which means plain `a`. */
  | { readonly kind: 'tuple'; readonly elements: readonly Selectable[]; readonly pos: number }
  | { readonly kind: 'list'; readonly elements: readonly Selectable[]; readonly pos: number }
  | { readonly kind: 'set'; readonly elements: readonly Selectable[]; readonly pos: number }
  /** `{k: v}`: a map, or a UDT when the keys are field names (decided with the receiver type). */
  | {
      readonly kind: 'mapOrUdt';
      readonly entries: readonly (readonly [Selectable, Selectable])[];
      readonly pos: number;
    };

export interface Selector {
  readonly selectable: Selectable;
  readonly alias: string | undefined;
}

// ---------------------------------------------------------------- relations / conditions

export type RelationOp = '=' | '<' | '<=' | '>' | '>=' | '!=' | 'IN' | 'CONTAINS' | 'CONTAINS KEY' | 'LIKE' | 'IS NOT';

/** The right side of IN: a list of terms `(a, b)` or one marker for the whole list (`IN ?`). */
export type InValues =
  | { readonly kind: 'terms'; readonly terms: readonly Term[] }
  | { readonly kind: 'marker'; readonly marker: BindMarker };

export type Relation =
  /** `c op term`; for IN, `in` is set and `value` undefined; IS NOT NULL has a null value. */
  | {
      readonly kind: 'single';
      readonly column: string;
      readonly op: RelationOp;
      readonly value: Term | undefined;
      readonly in: InValues | undefined;
      readonly pos: number;
    }
  /** `m[key] op term`. */
  | {
      readonly kind: 'element';
      readonly column: string;
      readonly key: Term;
      readonly op: RelationOp;
      readonly value: Term;
      readonly pos: number;
    }
  /** `token(a, b) op term`. */
  | {
      readonly kind: 'token';
      readonly columns: readonly string[];
      readonly op: RelationOp;
      readonly value: Term;
      readonly pos: number;
    }
  /** `(a, b) op (1, 2)` / `(a, b) op ?`; IN has `in` (terms are tuples or markers). */
  | {
      readonly kind: 'multi';
      readonly columns: readonly string[];
      readonly op: RelationOp;
      readonly value: Term | undefined;
      readonly in: InValues | undefined;
      readonly pos: number;
    }
  /** `expr(index_name, term)`. */
  | { readonly kind: 'customIndex'; readonly index: QualifiedName; readonly value: Term; readonly pos: number };

export type ConditionOp = '=' | '<' | '<=' | '>' | '>=' | '!=' | 'IN' | 'CONTAINS' | 'CONTAINS KEY';

/** One IF condition: `c op v`, `c[e] op v` or `c.f op v`. */
export interface Condition {
  readonly column: string;
  readonly element: Term | undefined;
  readonly field: string | undefined;
  readonly op: ConditionOp;
  readonly value: Term | undefined;
  readonly in: InValues | undefined;
  readonly pos: number;
}

// ---------------------------------------------------------------- DML

/** USING TIMESTAMP / TTL; each an INTEGER literal or a marker. */
export interface Attributes {
  readonly timestamp: Term | undefined;
  readonly ttl: Term | undefined;
}

export type Operation =
  | { readonly kind: 'set'; readonly column: string; readonly value: Term }
  /** `c = c + v`, `c += v`, and `c = c -3` (lexed as an INTEGER). */
  | { readonly kind: 'add'; readonly column: string; readonly value: Term }
  | { readonly kind: 'subtract'; readonly column: string; readonly value: Term }
  /** `c = v + c`. */
  | { readonly kind: 'prepend'; readonly column: string; readonly value: Term }
  | { readonly kind: 'setElement'; readonly column: string; readonly key: Term; readonly value: Term }
  | { readonly kind: 'setField'; readonly column: string; readonly field: string; readonly value: Term };

export type Deletion =
  | { readonly kind: 'column'; readonly column: string }
  | { readonly kind: 'element'; readonly column: string; readonly key: Term }
  | { readonly kind: 'field'; readonly column: string; readonly field: string };

export interface OrderingClause {
  readonly column: string;
  readonly descending: boolean;
  /** ORDER BY v ANN OF term. */
  readonly ann: Term | undefined;
}

// ---------------------------------------------------------------- DDL pieces

export type PropertyValue =
  | { readonly kind: 'simple'; readonly value: string }
  | { readonly kind: 'map'; readonly entries: ReadonlyMap<string, string> };

/** `WITH a = 1 AND b = {...}`: property names case-folded, values as Cassandra's raw text. */
export type Properties = ReadonlyMap<string, PropertyValue>;

export interface ColumnDefinition {
  readonly name: string;
  readonly type: RawType;
  readonly isStatic: boolean;
  /** MASKED WITH fn(args) / MASKED WITH DEFAULT (dynamic data masking). */
  readonly mask: ColumnMask | undefined;
}

export interface ColumnMask {
  readonly function: { readonly keyspace: string | undefined; readonly name: string };
  readonly args: readonly Term[];
}

export type IndexTargetKind = 'simple' | 'keys' | 'values' | 'entries' | 'full';

export interface IndexTarget {
  readonly column: string;
  readonly kind: IndexTargetKind;
}

export interface FunctionName {
  readonly keyspace: string | undefined;
  readonly name: string;
}

export type Permission =
  | 'CREATE'
  | 'ALTER'
  | 'DROP'
  | 'SELECT'
  | 'MODIFY'
  | 'AUTHORIZE'
  | 'DESCRIBE'
  | 'EXECUTE'
  | 'UNMASK'
  | 'SELECT_MASKED';

export const ALL_PERMISSIONS: readonly Permission[] = [
  'CREATE',
  'ALTER',
  'DROP',
  'SELECT',
  'MODIFY',
  'AUTHORIZE',
  'DESCRIBE',
  'EXECUTE',
  'UNMASK',
  'SELECT_MASKED',
];

export type Resource =
  | { readonly kind: 'allKeyspaces' }
  | { readonly kind: 'keyspace'; readonly keyspace: string }
  | { readonly kind: 'table'; readonly table: QualifiedName }
  | { readonly kind: 'allTablesInKeyspace'; readonly keyspace: string }
  | { readonly kind: 'allRoles' }
  | { readonly kind: 'role'; readonly role: string }
  | { readonly kind: 'allFunctions' }
  | { readonly kind: 'allFunctionsInKeyspace'; readonly keyspace: string }
  | { readonly kind: 'function'; readonly function: FunctionName; readonly argTypes: readonly RawType[] }
  | { readonly kind: 'allMBeans' }
  | { readonly kind: 'mbean'; readonly name: string; readonly pattern: boolean };

export interface RoleOptions {
  readonly password: string | undefined;
  readonly hashedPassword: string | undefined;
  readonly generatedPassword: boolean;
  readonly login: boolean | undefined;
  readonly superuser: boolean | undefined;
  readonly options: ReadonlyMap<string, string> | undefined;
  /** undefined: not given; 'all': ACCESS TO ALL DATACENTERS; else the listed datacenters. */
  readonly datacenters: 'all' | readonly string[] | undefined;
  readonly cidrs: 'all' | readonly string[] | undefined;
}

// ---------------------------------------------------------------- statements

interface Base {
  /** Markers inside this statement, in order (for a batch: all markers of all its statements). */
  readonly bindMarkers: readonly BindMarker[];
  /** Offset of the statement's first token. */
  readonly pos: number;
}

export interface SelectStatement extends Base {
  readonly kind: 'select';
  readonly table: QualifiedName;
  readonly json: boolean;
  readonly distinct: boolean;
  /** Empty for `*`. */
  readonly selectors: readonly Selector[];
  readonly where: readonly Relation[];
  readonly groupBy: readonly Selectable[];
  readonly orderBy: readonly OrderingClause[];
  readonly perPartitionLimit: Term | undefined;
  readonly limit: Term | undefined;
  readonly allowFiltering: boolean;
}

export interface InsertStatement extends Base {
  readonly kind: 'insert';
  readonly table: QualifiedName;
  readonly columns: readonly string[];
  readonly values: readonly Term[];
  readonly ifNotExists: boolean;
  readonly attrs: Attributes;
}

export interface InsertJsonStatement extends Base {
  readonly kind: 'insertJson';
  readonly table: QualifiedName;
  /** The JSON string literal, or a marker with role 'json'. */
  readonly json: Literal | BindMarker;
  readonly defaultUnset: boolean;
  readonly ifNotExists: boolean;
  readonly attrs: Attributes;
}

export interface UpdateStatement extends Base {
  readonly kind: 'update';
  readonly table: QualifiedName;
  readonly attrs: Attributes;
  readonly operations: readonly Operation[];
  readonly where: readonly Relation[];
  readonly ifExists: boolean;
  readonly conditions: readonly Condition[];
}

export interface DeleteStatement extends Base {
  readonly kind: 'delete';
  readonly table: QualifiedName;
  /** Empty: the whole row / partition. */
  readonly deletions: readonly Deletion[];
  readonly attrs: Attributes;
  readonly where: readonly Relation[];
  readonly ifExists: boolean;
  readonly conditions: readonly Condition[];
}

export type ModificationStatement = InsertStatement | InsertJsonStatement | UpdateStatement | DeleteStatement;

export interface BatchStatement extends Base {
  readonly kind: 'batch';
  readonly type: 'LOGGED' | 'UNLOGGED' | 'COUNTER';
  readonly attrs: Attributes;
  readonly statements: readonly ModificationStatement[];
}

export interface UseStatement extends Base {
  readonly kind: 'use';
  readonly keyspace: string;
}

export interface TruncateStatement extends Base {
  readonly kind: 'truncate';
  readonly table: QualifiedName;
}

export interface CreateKeyspaceStatement extends Base {
  readonly kind: 'createKeyspace';
  readonly keyspace: string;
  readonly ifNotExists: boolean;
  readonly properties: Properties;
}

export interface AlterKeyspaceStatement extends Base {
  readonly kind: 'alterKeyspace';
  readonly keyspace: string;
  readonly ifExists: boolean;
  readonly properties: Properties;
}

export interface DropKeyspaceStatement extends Base {
  readonly kind: 'dropKeyspace';
  readonly keyspace: string;
  readonly ifExists: boolean;
}

export interface CreateTableStatement extends Base {
  readonly kind: 'createTable';
  readonly table: QualifiedName;
  readonly ifNotExists: boolean;
  readonly columns: readonly ColumnDefinition[];
  readonly partitionKey: readonly string[];
  readonly clustering: readonly string[];
  /** As written in CLUSTERING ORDER BY; columns not named there are ascending. */
  readonly clusteringOrder: readonly { readonly column: string; readonly descending: boolean }[];
  readonly properties: Properties;
}

export type AlterTableOperation =
  | {
      readonly kind: 'add';
      readonly ifNotExists: boolean;
      readonly columns: readonly ColumnDefinition[];
    }
  | {
      readonly kind: 'drop';
      readonly ifExists: boolean;
      readonly columns: readonly string[];
      readonly timestamp: bigint | undefined;
    }
  | {
      readonly kind: 'rename';
      readonly ifExists: boolean;
      readonly renames: readonly { readonly from: string; readonly to: string }[];
    }
  | { readonly kind: 'with'; readonly properties: Properties }
  | {
      readonly kind: 'mask';
      readonly ifExists: boolean;
      readonly column: string;
      /** undefined: DROP MASKED. */
      readonly mask: ColumnMask | undefined;
    }
  | { readonly kind: 'dropCompactStorage' }
  /** ALTER col TYPE t: parsed so the table is resolved first; the executor must then throw ALTER_COLUMN_TYPE_MESSAGE. */
  | { readonly kind: 'alterColumnType'; readonly column: string; readonly type: RawType };

/** Cassandra 5's InvalidRequest for ALTER TABLE ... ALTER c TYPE t (after the table is found). */
export const ALTER_COLUMN_TYPE_MESSAGE = 'Altering column types is no longer supported';
/** Cassandra 5's InvalidRequest for ALTER TYPE ... ALTER f TYPE t (after the type is found). */
export const ALTER_FIELD_TYPE_MESSAGE = 'Altering field types is no longer supported';

export interface AlterTableStatement extends Base {
  readonly kind: 'alterTable';
  readonly table: QualifiedName;
  readonly ifExists: boolean;
  readonly operation: AlterTableOperation;
}

export interface DropTableStatement extends Base {
  readonly kind: 'dropTable';
  readonly table: QualifiedName;
  readonly ifExists: boolean;
}

export interface CreateIndexStatement extends Base {
  readonly kind: 'createIndex';
  readonly table: QualifiedName;
  /** undefined when not named (Cassandra derives `<table>_<column>_idx`). */
  readonly name: string | undefined;
  readonly ifNotExists: boolean;
  readonly custom: boolean;
  readonly targets: readonly IndexTarget[];
  readonly using: string | undefined;
  readonly properties: Properties;
}

export interface DropIndexStatement extends Base {
  readonly kind: 'dropIndex';
  readonly index: QualifiedName;
  readonly ifExists: boolean;
}

export interface CreateTypeStatement extends Base {
  readonly kind: 'createType';
  readonly type: QualifiedName;
  readonly ifNotExists: boolean;
  readonly fields: readonly { readonly name: string; readonly type: RawType }[];
}

export type AlterTypeOperation =
  | { readonly kind: 'add'; readonly ifNotExists: boolean; readonly field: string; readonly type: RawType }
  | {
      readonly kind: 'rename';
      readonly ifExists: boolean;
      readonly renames: readonly { readonly from: string; readonly to: string }[];
    }
  /** ALTER f TYPE t: parsed so the type is resolved first; the executor must then throw ALTER_FIELD_TYPE_MESSAGE. */
  | { readonly kind: 'alter'; readonly field: string; readonly type: RawType };

export interface AlterTypeStatement extends Base {
  readonly kind: 'alterType';
  readonly type: QualifiedName;
  readonly ifExists: boolean;
  readonly operation: AlterTypeOperation;
}

export interface DropTypeStatement extends Base {
  readonly kind: 'dropType';
  readonly type: QualifiedName;
  readonly ifExists: boolean;
}

export interface CreateViewStatement extends Base {
  readonly kind: 'createView';
  readonly view: QualifiedName;
  readonly ifNotExists: boolean;
  readonly baseTable: QualifiedName;
  readonly selectors: readonly Selector[];
  readonly where: readonly Relation[];
  readonly partitionKey: readonly string[];
  readonly clustering: readonly string[];
  readonly clusteringOrder: readonly { readonly column: string; readonly descending: boolean }[];
  readonly properties: Properties;
}

export interface AlterViewStatement extends Base {
  readonly kind: 'alterView';
  readonly view: QualifiedName;
  readonly ifExists: boolean;
  readonly properties: Properties;
}

export interface DropViewStatement extends Base {
  readonly kind: 'dropView';
  readonly view: QualifiedName;
  readonly ifExists: boolean;
}

export interface CreateFunctionStatement extends Base {
  readonly kind: 'createFunction';
  readonly function: FunctionName;
  readonly orReplace: boolean;
  readonly ifNotExists: boolean;
  readonly args: readonly { readonly name: string; readonly type: RawType }[];
  readonly calledOnNullInput: boolean;
  readonly returnType: RawType;
  /** Lower-cased. */
  readonly language: string;
  readonly body: string;
}

export interface DropFunctionStatement extends Base {
  readonly kind: 'dropFunction';
  readonly function: FunctionName;
  readonly ifExists: boolean;
  /** undefined when no argument list was given. */
  readonly argTypes: readonly RawType[] | undefined;
}

export interface CreateAggregateStatement extends Base {
  readonly kind: 'createAggregate';
  readonly aggregate: FunctionName;
  readonly orReplace: boolean;
  readonly ifNotExists: boolean;
  readonly argTypes: readonly RawType[];
  readonly stateFunction: string;
  readonly stateType: RawType;
  readonly finalFunction: string | undefined;
  readonly initCondition: Term | undefined;
}

export interface DropAggregateStatement extends Base {
  readonly kind: 'dropAggregate';
  readonly aggregate: FunctionName;
  readonly ifExists: boolean;
  readonly argTypes: readonly RawType[] | undefined;
}

export interface CreateTriggerStatement extends Base {
  readonly kind: 'createTrigger';
  readonly name: string;
  readonly table: QualifiedName;
  readonly ifNotExists: boolean;
  readonly className: string;
}

export interface DropTriggerStatement extends Base {
  readonly kind: 'dropTrigger';
  readonly name: string;
  readonly table: QualifiedName;
  readonly ifExists: boolean;
}

/** CREATE ROLE, and CREATE USER (user: true; LOGIN defaults to true there). */
export interface CreateRoleStatement extends Base {
  readonly kind: 'createRole';
  readonly role: string;
  readonly user: boolean;
  readonly ifNotExists: boolean;
  readonly options: RoleOptions;
}

export interface AlterRoleStatement extends Base {
  readonly kind: 'alterRole';
  readonly role: string;
  readonly user: boolean;
  readonly ifExists: boolean;
  readonly options: RoleOptions;
}

export interface DropRoleStatement extends Base {
  readonly kind: 'dropRole';
  readonly role: string;
  readonly user: boolean;
  readonly ifExists: boolean;
}

export interface GrantRoleStatement extends Base {
  readonly kind: 'grantRole';
  readonly role: string;
  readonly grantee: string;
}

export interface RevokeRoleStatement extends Base {
  readonly kind: 'revokeRole';
  readonly role: string;
  readonly revokee: string;
}

export interface GrantPermissionsStatement extends Base {
  readonly kind: 'grantPermissions';
  /** ALL [PERMISSIONS] is the full list; the executor keeps those the resource supports. */
  readonly permissions: readonly Permission[];
  readonly all: boolean;
  readonly resource: Resource;
  readonly grantee: string;
}

export interface RevokePermissionsStatement extends Base {
  readonly kind: 'revokePermissions';
  readonly permissions: readonly Permission[];
  readonly all: boolean;
  readonly resource: Resource;
  readonly revokee: string;
}

export interface ListPermissionsStatement extends Base {
  readonly kind: 'listPermissions';
  readonly permissions: readonly Permission[];
  readonly all: boolean;
  readonly resource: Resource | undefined;
  readonly role: string | undefined;
  readonly recursive: boolean;
}

export interface ListRolesStatement extends Base {
  readonly kind: 'listRoles';
  readonly role: string | undefined;
  readonly recursive: boolean;
}

export interface ListUsersStatement extends Base {
  readonly kind: 'listUsers';
}

export interface ListSuperUsersStatement extends Base {
  readonly kind: 'listSuperUsers';
}

export type DescribeTarget =
  | { readonly kind: 'cluster' }
  | { readonly kind: 'schema'; readonly full: boolean }
  | { readonly kind: 'keyspaces' }
  | { readonly kind: 'keyspace'; readonly keyspace: string | undefined; readonly only: boolean }
  | { readonly kind: 'tables' }
  | { readonly kind: 'table'; readonly name: QualifiedName }
  | { readonly kind: 'index'; readonly name: QualifiedName }
  | { readonly kind: 'materializedView'; readonly name: QualifiedName }
  | { readonly kind: 'types' }
  | { readonly kind: 'type'; readonly name: QualifiedName }
  | { readonly kind: 'functions' }
  | { readonly kind: 'function'; readonly name: QualifiedName }
  | { readonly kind: 'aggregates' }
  | { readonly kind: 'aggregate'; readonly name: QualifiedName }
  /** `DESCRIBE name` / `DESCRIBE ks.name`: keyspace, table, view, index, type, function... */
  | { readonly kind: 'generic'; readonly name: QualifiedName };

export interface DescribeStatement extends Base {
  readonly kind: 'describe';
  readonly target: DescribeTarget;
  readonly withInternals: boolean;
}

export type Statement =
  | SelectStatement
  | InsertStatement
  | InsertJsonStatement
  | UpdateStatement
  | DeleteStatement
  | BatchStatement
  | UseStatement
  | TruncateStatement
  | CreateKeyspaceStatement
  | AlterKeyspaceStatement
  | DropKeyspaceStatement
  | CreateTableStatement
  | AlterTableStatement
  | DropTableStatement
  | CreateIndexStatement
  | DropIndexStatement
  | CreateTypeStatement
  | AlterTypeStatement
  | DropTypeStatement
  | CreateViewStatement
  | AlterViewStatement
  | DropViewStatement
  | CreateFunctionStatement
  | DropFunctionStatement
  | CreateAggregateStatement
  | DropAggregateStatement
  | CreateTriggerStatement
  | DropTriggerStatement
  | CreateRoleStatement
  | AlterRoleStatement
  | DropRoleStatement
  | GrantRoleStatement
  | RevokeRoleStatement
  | GrantPermissionsStatement
  | RevokePermissionsStatement
  | ListPermissionsStatement
  | ListRolesStatement
  | ListUsersStatement
  | ListSuperUsersStatement
  | DescribeStatement;

export type StatementKind = Statement['kind'];

/** True when a RawType holds no user type reference, i.e. it already is a CqlType. */
export function isResolvedType(t: RawType): t is RawType & CqlType {
  switch (t.kind) {
    case 'native':
    case 'custom':
      return true;
    case 'userType':
      return false;
    case 'list':
    case 'set':
    case 'vector':
      return isResolvedType(t.element);
    case 'map':
      return isResolvedType(t.key) && isResolvedType(t.value);
    case 'tuple':
      return t.elements.every(isResolvedType);
  }
}

/**
 * Turns a RawType into a CqlType, asking `resolveUdt` for each user type (it should throw Cassandra's
 * "Unknown type ks.name" InvalidRequest when there is none).
 */
export function resolveType(
  t: RawType,
  resolveUdt: (keyspace: string | undefined, name: string, frozen: boolean) => CqlType,
): CqlType {
  switch (t.kind) {
    case 'native':
    case 'custom':
      return t;
    case 'userType':
      return resolveUdt(t.keyspace, t.name, t.frozen);
    case 'list':
    case 'set': {
      const c = { kind: t.kind, element: resolveType(t.element, resolveUdt), frozen: t.frozen };
      checkCollectionElement(c, c.element, 'element');
      return c;
    }
    case 'map': {
      const m = {
        kind: 'map',
        key: resolveType(t.key, resolveUdt),
        value: resolveType(t.value, resolveUdt),
        frozen: t.frozen,
      } as const;
      checkCollectionElement(m, m.key, 'key');
      checkCollectionElement(m, m.value, 'value');
      return m;
    }
    case 'tuple':
      return { kind: 'tuple', elements: t.elements.map((e) => resolveType(e, resolveUdt)) };
    case 'vector':
      return { kind: 'vector', element: resolveType(t.element, resolveUdt), dimension: t.dimension };
  }
}
