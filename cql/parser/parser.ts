// parseStatement(): one CQL statement (Parser.g cqlStatement, with Cql.g's `(';')* EOF`) into the raw
// AST of ast.ts. Syntax errors are SyntaxError with Cassandra's messages; the few checks Cassandra's
// grammar actions make with InvalidRequest (duplicate columns, several PRIMARY KEYs) throw that.

import { SyntaxError } from '../errors.js';
import type {
  AlterKeyspaceStatement,
  AlterRoleStatement,
  AlterTableOperation,
  AlterTableStatement,
  AlterTypeStatement,
  AlterViewStatement,
  Attributes,
  BatchStatement,
  BindMarker,
  ColumnDefinition,
  ColumnMask,
  Condition,
  CreateAggregateStatement,
  CreateFunctionStatement,
  CreateIndexStatement,
  CreateKeyspaceStatement,
  CreateRoleStatement,
  CreateTableStatement,
  CreateTriggerStatement,
  CreateTypeStatement,
  CreateViewStatement,
  DeleteStatement,
  Deletion,
  DescribeStatement,
  DescribeTarget,
  IndexTarget,
  ListPermissionsStatement,
  Literal,
  ModificationStatement,
  Operation,
  OrderingClause,
  Permission,
  PropertyValue,
  RawType,
  Relation,
  Resource,
  RoleOptions,
  Selectable,
  SelectStatement,
  Statement,
  Term,
  UpdateStatement,
} from './ast.js';
import { ALL_PERMISSIONS } from './ast.js';
import { ParserBase, qualifiedNameToString } from './parser-base.js';
import { K, T } from './token.js';

/**
 * Parses one statement (an optional trailing `;` allowed). Throws SyntaxError (or InvalidRequest for
 * what Cassandra rejects while parsing). Every statement node carries its bind markers, in order.
 */
export function parseStatement(cql: string): Statement {
  try {
    return new StatementParser(cql).query();
  } catch (e) {
    // Absurdly deep nesting ("((((...") exhausts the stack; report it like Cassandra reports parser
    // failures that are not ANTLR errors, instead of letting a RangeError escape.
    if (e instanceof RangeError) {
      const text = cql.length > 200 ? `${cql.slice(0, 200)}...` : cql;
      throw new SyntaxError(`Failed parsing statement: [${text}] reason: StackOverflowError null`);
    }
    throw e;
  }
}

const COMPACT_STORAGE_MESSAGE =
  'Guardrail compact_tables violated: Creation of new COMPACT STORAGE tables is not allowed';

const PERMISSION_KEYWORDS: ReadonlyMap<number, Permission> = new Map([
  [K.CREATE, 'CREATE'],
  [K.ALTER, 'ALTER'],
  [K.DROP, 'DROP'],
  [K.SELECT, 'SELECT'],
  [K.MODIFY, 'MODIFY'],
  [K.AUTHORIZE, 'AUTHORIZE'],
  [K.DESCRIBE, 'DESCRIBE'],
  [K.EXECUTE, 'EXECUTE'],
  [K.UNMASK, 'UNMASK'],
  [K.SELECT_MASKED, 'SELECT_MASKED'],
]);

/** IResource.applicablePermissions(), keyed by resource kind. */
const APPLICABLE: Record<Resource['kind'], { type: string; perms: readonly Permission[] }> = {
  allKeyspaces: {
    type: 'DataResource',
    perms: ['CREATE', 'ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'],
  },
  keyspace: {
    type: 'DataResource',
    perms: ['CREATE', 'ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'],
  },
  allTablesInKeyspace: {
    type: 'DataResource',
    perms: ['ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'],
  },
  table: { type: 'DataResource', perms: ['ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'] },
  allRoles: { type: 'RoleResource', perms: ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'DESCRIBE'] },
  role: { type: 'RoleResource', perms: ['ALTER', 'DROP', 'AUTHORIZE'] },
  allFunctions: { type: 'FunctionResource', perms: ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'EXECUTE'] },
  allFunctionsInKeyspace: { type: 'FunctionResource', perms: ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'EXECUTE'] },
  function: { type: 'FunctionResource', perms: ['ALTER', 'DROP', 'AUTHORIZE', 'EXECUTE'] },
  allMBeans: { type: 'JMXResource', perms: ['AUTHORIZE', 'DESCRIBE', 'EXECUTE', 'MODIFY', 'SELECT'] },
  mbean: { type: 'JMXResource', perms: ['AUTHORIZE', 'DESCRIBE', 'EXECUTE', 'MODIFY', 'SELECT'] },
};

interface PermissionList {
  readonly permissions: Permission[];
  readonly all: boolean;
}

interface MutableRoleOptions {
  password?: string;
  hashedPassword?: string;
  generatedPassword?: boolean;
  login?: boolean;
  superuser?: boolean;
  options?: ReadonlyMap<string, string>;
  datacenters?: 'all' | string[];
  cidrs?: 'all' | string[];
}

class StatementParser extends ParserBase {
  /**
   * An InvalidRequest Cassandra raises after parsing (when preparing or validating the statement), so
   * any syntax error comes first.
   */
  private afterParse: string | undefined;

  query(): Statement {
    const stmt = this.statement();
    while (this.accept(T.SEMI)) {
      // Cql.g: query : cqlStatement (';')* EOF
    }
    if (this.la() !== T.EOF) this.mismatch(T.EOF);
    if (this.afterParse !== undefined) this.invalid(this.afterParse);
    return stmt;
  }

  private failAfterParse(message: string): void {
    this.afterParse ??= message;
  }

  /** Markers recorded since `from`, for a statement node. */
  private markersFrom(from: number): readonly BindMarker[] {
    return from === 0 && this.markers.length === 0 ? EMPTY : this.markers.slice(from);
  }

  private statement(): Statement {
    switch (this.la()) {
      case K.SELECT:
        return this.select();
      case K.INSERT:
        return this.insert();
      case K.UPDATE:
        return this.update();
      case K.DELETE:
        return this.delete();
      case K.BEGIN:
        return this.batch();
      case K.USE: {
        const pos = this.consume().start;
        return { kind: 'use', keyspace: this.keyspaceName(), bindMarkers: EMPTY, pos };
      }
      case K.TRUNCATE: {
        const pos = this.consume().start;
        this.accept(K.COLUMNFAMILY);
        return { kind: 'truncate', table: this.qualifiedName(), bindMarkers: EMPTY, pos };
      }
      case K.CREATE:
        return this.create();
      case K.ALTER:
        return this.alter();
      case K.DROP:
        return this.drop();
      case K.GRANT:
      case K.REVOKE:
        return this.grantOrRevoke();
      case K.LIST:
        return this.list();
      case K.DESCRIBE:
      case K.DESC:
        return this.describe();
      default:
        return this.noViable();
    }
  }

  // ------------------------------------------------------------ SELECT

  private select(): SelectStatement {
    const from = this.markers.length;
    const pos = this.expect(K.SELECT).start;
    let json = false;
    let distinct = false;
    // json and distinct are also column names: they are keywords only when a selection follows.
    if (this.la() === K.JSON && (this.startsSelector(2) || this.la(2) === K.DISTINCT)) {
      this.p++;
      json = true;
    }
    if (this.la() === K.DISTINCT && this.startsSelector(2)) {
      this.p++;
      distinct = true;
    }
    const selectors = this.selectors();
    this.expect(K.FROM);
    const table = this.qualifiedName();
    const where = this.accept(K.WHERE) ? this.whereClause() : [];
    const groupBy: Selectable[] = [];
    if (this.la() === K.GROUP) {
      this.p++;
      this.expect(K.BY);
      groupBy.push(this.unaliasedSelector());
      while (this.accept(T.COMMA)) groupBy.push(this.unaliasedSelector());
    }
    const orderBy: OrderingClause[] = [];
    if (this.la() === K.ORDER) {
      this.p++;
      this.expect(K.BY);
      orderBy.push(this.ordering());
      while (this.accept(T.COMMA)) orderBy.push(this.ordering());
    }
    let perPartitionLimit: Term | undefined;
    if (this.la() === K.PER) {
      this.p++;
      this.expect(K.PARTITION);
      this.expect(K.LIMIT);
      perPartitionLimit = this.intValue();
    }
    const limit = this.accept(K.LIMIT) ? this.intValue() : undefined;
    let allowFiltering = false;
    if (this.la() === K.ALLOW) {
      this.p++;
      this.expect(K.FILTERING);
      allowFiltering = true;
    }
    return {
      kind: 'select',
      table,
      json,
      distinct,
      selectors,
      where,
      groupBy,
      orderBy,
      perPartitionLimit,
      limit,
      allowFiltering,
      bindMarkers: this.markersFrom(from),
      pos,
    };
  }

  private ordering(): OrderingClause {
    const column = this.cident();
    let ann: Term | undefined;
    if (this.la() === K.ANN) {
      this.p++;
      this.expect(K.OF);
      ann = this.term();
    }
    let descending = false;
    if (this.accept(K.DESC)) descending = true;
    else this.accept(K.ASC);
    return { column, descending, ann };
  }

  // ------------------------------------------------------------ INSERT / UPDATE / DELETE / BATCH

  private usingClause(attrs: { timestamp?: Term; ttl?: Term }): void {
    if (!this.accept(K.USING)) return;
    do {
      if (this.accept(K.TIMESTAMP)) attrs.timestamp = this.intValue();
      else if (this.accept(K.TTL)) attrs.ttl = this.intValue();
      else this.noViable();
    } while (this.accept(K.AND));
  }

  private attributes(a: { timestamp?: Term; ttl?: Term }): Attributes {
    return { timestamp: a.timestamp, ttl: a.ttl };
  }

  private insert(): ModificationStatement {
    const from = this.markers.length;
    const pos = this.expect(K.INSERT).start;
    this.expect(K.INTO);
    const table = this.qualifiedName();
    const attrs: { timestamp?: Term; ttl?: Term } = {};
    if (this.accept(K.JSON)) {
      const t = this.la();
      let json: Literal | BindMarker;
      if (t === T.STRING_LITERAL) json = this.constant();
      else if (t === T.QMARK || t === T.COLON) json = this.marker('json');
      else this.noViable();
      let defaultUnset = false;
      if (this.accept(K.DEFAULT)) {
        if (this.accept(K.UNSET)) defaultUnset = true;
        else if (!this.accept(K.NULL)) this.noViable();
      }
      const ifNotExists = this.ifNotExists();
      this.usingClause(attrs);
      return {
        kind: 'insertJson',
        table,
        json,
        defaultUnset,
        ifNotExists,
        attrs: this.attributes(attrs),
        bindMarkers: this.markersFrom(from),
        pos,
      };
    }
    if (this.la() !== T.LPAREN) this.noViable();
    this.p++;
    const columns = [this.cident()];
    while (this.accept(T.COMMA)) columns.push(this.cident());
    this.expect(T.RPAREN);
    this.expect(K.VALUES);
    this.expect(T.LPAREN);
    const values = [this.term()];
    while (this.accept(T.COMMA)) values.push(this.term());
    this.expect(T.RPAREN);
    const ifNotExists = this.ifNotExists();
    this.usingClause(attrs);
    return {
      kind: 'insert',
      table,
      columns,
      values,
      ifNotExists,
      attrs: this.attributes(attrs),
      bindMarkers: this.markersFrom(from),
      pos,
    };
  }

  private update(): UpdateStatement {
    const from = this.markers.length;
    const pos = this.expect(K.UPDATE).start;
    const table = this.qualifiedName();
    const attrs: { timestamp?: Term; ttl?: Term } = {};
    this.usingClause(attrs);
    this.expect(K.SET);
    const operations: Operation[] = [];
    this.columnOperation(operations);
    while (this.accept(T.COMMA)) this.columnOperation(operations);
    this.expect(K.WHERE);
    const where = this.whereClause();
    const { ifExists, conditions } = this.ifClause();
    return {
      kind: 'update',
      table,
      attrs: this.attributes(attrs),
      operations,
      where,
      ifExists,
      conditions,
      bindMarkers: this.markersFrom(from),
      pos,
    };
  }

  private ifClause(): { ifExists: boolean; conditions: Condition[] } {
    if (!this.accept(K.IF)) return { ifExists: false, conditions: [] };
    // EXISTS is also a column name: IF exists = 1 is a condition.
    if (this.la() === K.EXISTS) {
      const n = this.la(2);
      if (n !== T.EQ && n !== T.LT && n !== T.LTE && n !== T.GT && n !== T.GTE && n !== T.NEQ) {
        if (n !== K.IN && n !== T.LBRACKET && n !== T.DOT && n !== K.CONTAINS) {
          this.p++;
          return { ifExists: true, conditions: [] };
        }
      }
    }
    return { ifExists: false, conditions: this.conditions() };
  }

  private columnOperation(ops: Operation[]): void {
    const column = this.cident();
    const t = this.lt(1);
    switch (t.type) {
      case T.EQ:
        this.p++;
        this.normalColumnOperation(ops, column);
        return;
      case T.PLUS_EQ:
      case T.MINUS_EQ: {
        this.p++;
        const value = this.term();
        this.addOperation(ops, { kind: t.type === T.PLUS_EQ ? 'add' : 'subtract', column, value });
        return;
      }
      case T.LBRACKET: {
        this.p++;
        const key = this.term();
        this.expect(T.RBRACKET);
        this.expect(T.EQ);
        this.addOperation(ops, { kind: 'setElement', column, key, value: this.term() });
        return;
      }
      case T.DOT: {
        this.p++;
        const field = this.ident();
        this.expect(T.EQ);
        this.addOperation(ops, { kind: 'setField', column, field, value: this.term() });
        return;
      }
      default:
        this.noViable();
    }
  }

  /** After `c =`: a value, `c + v`, `c - v`, `c -3` (INTEGER), or `v + c` (prepend). */
  private normalColumnOperation(ops: Operation[], column: string): void {
    const t = this.la();
    if (this.isIdent(t) || t === T.EMPTY_QUOTED_NAME) {
      const n = this.la(2);
      if (n === T.PLUS || n === T.MINUS) {
        const other = this.cident();
        const sig = this.consume().text;
        const value = this.term();
        if (other !== column) this.recognitionError(`Only expressions of the form X = X ${sig}<value> are supported.`);
        this.addOperation(ops, { kind: sig === '+' ? 'add' : 'subtract', column, value });
        return;
      }
      if (n === T.INTEGER) {
        const other = this.cident();
        const i = this.constant();
        if (other !== column) {
          const s = i.text.charAt(0) === '-' ? '-' : '+';
          this.recognitionError(`Only expressions of the form X = X ${s} <value> are supported.`);
        }
        this.addOperation(ops, { kind: 'add', column, value: i });
        return;
      }
      if (n !== T.LPAREN && n !== T.DOT) this.noViable(2);
    }
    const value = this.term();
    if (this.la() === T.PLUS) {
      this.p++;
      const other = this.cident();
      if (other !== column) this.recognitionError('Only expressions of the form X = <value> + X are supported.');
      this.addOperation(ops, { kind: 'prepend', column, value });
      return;
    }
    this.addOperation(ops, { kind: 'set', column, value });
  }

  /** Parser.g addRawUpdate: two updates of one column must be compatible. */
  private addOperation(ops: Operation[], op: Operation): void {
    for (const o of ops) {
      if (o.column === op.column && !compatible(o, op)) {
        this.recognitionError(`Multiple incompatible setting of column ${op.column}`);
      }
    }
    ops.push(op);
  }

  private delete(): DeleteStatement {
    const from = this.markers.length;
    const pos = this.expect(K.DELETE).start;
    const deletions: Deletion[] = [];
    if (this.la() !== K.FROM) {
      deletions.push(this.deleteOp());
      while (this.accept(T.COMMA)) deletions.push(this.deleteOp());
    }
    this.expect(K.FROM);
    const table = this.qualifiedName();
    const attrs: { timestamp?: Term; ttl?: Term } = {};
    if (this.accept(K.USING)) {
      this.expect(K.TIMESTAMP);
      attrs.timestamp = this.intValue();
    }
    this.expect(K.WHERE);
    const where = this.whereClause();
    const { ifExists, conditions } = this.ifClause();
    return {
      kind: 'delete',
      table,
      deletions,
      attrs: this.attributes(attrs),
      where,
      ifExists,
      conditions,
      bindMarkers: this.markersFrom(from),
      pos,
    };
  }

  private deleteOp(): Deletion {
    const column = this.cident();
    if (this.accept(T.LBRACKET)) {
      const key = this.term();
      this.expect(T.RBRACKET);
      return { kind: 'element', column, key };
    }
    if (this.accept(T.DOT)) return { kind: 'field', column, field: this.ident() };
    return { kind: 'column', column };
  }

  private batch(): BatchStatement {
    const from = this.markers.length;
    const pos = this.expect(K.BEGIN).start;
    let type: BatchStatement['type'] = 'LOGGED';
    if (this.accept(K.UNLOGGED)) type = 'UNLOGGED';
    else if (this.accept(K.COUNTER)) type = 'COUNTER';
    this.expect(K.BATCH);
    const attrs: { timestamp?: Term; ttl?: Term } = {};
    this.usingClause(attrs);
    const statements: ModificationStatement[] = [];
    for (;;) {
      const t = this.la();
      if (t === K.INSERT) statements.push(this.insert());
      else if (t === K.UPDATE) statements.push(this.update());
      else if (t === K.DELETE) statements.push(this.delete());
      else break;
      this.accept(T.SEMI);
    }
    this.expect(K.APPLY);
    this.expect(K.BATCH);
    return { kind: 'batch', type, attrs: this.attributes(attrs), statements, bindMarkers: this.markersFrom(from), pos };
  }

  // ------------------------------------------------------------ CREATE

  private create(): Statement {
    const n = this.la(2);
    switch (n) {
      case K.KEYSPACE:
      case K.SCHEMA:
        return this.createKeyspace();
      case K.COLUMNFAMILY:
        return this.createTable();
      case K.CUSTOM:
      case K.INDEX:
        return this.createIndex();
      case K.TYPE:
        return this.createType();
      case K.MATERIALIZED:
        return this.createView();
      case K.TRIGGER:
        return this.createTrigger();
      case K.FUNCTION:
        return this.createFunction(false);
      case K.AGGREGATE:
        return this.createAggregate(false);
      case K.USER:
        return this.createUser();
      case K.ROLE:
        return this.createRole();
      case K.OR: {
        if (this.la(3) !== K.REPLACE) this.noViable(3);
        const what = this.la(4);
        if (what === K.FUNCTION) return this.createFunction(true);
        if (what === K.AGGREGATE) return this.createAggregate(true);
        return this.noViable(4);
      }
      default:
        return this.noViable(2);
    }
  }

  private createKeyspace(): CreateKeyspaceStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const keyspace = this.keyspaceName();
    this.expect(K.WITH);
    const props = new Map<string, PropertyValue>();
    this.properties(props);
    return { kind: 'createKeyspace', keyspace, ifNotExists, properties: props, bindMarkers: EMPTY, pos };
  }

  private createTable(): CreateTableStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const table = this.qualifiedName();
    const tableName = qualifiedNameToString(table);
    const columns: ColumnDefinition[] = [];
    const seen = new Set<string>();
    let partitionKey: string[] | undefined;
    const clustering: string[] = [];
    const setPartitionKey = (cols: string[]) => {
      if (partitionKey !== undefined) {
        this.invalid(`Multiple PRIMARY KEY specified for table '${tableName}' (exactly one required)`);
      }
      partitionKey = cols;
    };
    this.expect(T.LPAREN);
    const tableColumns = () => {
      if (this.la() === K.PRIMARY) {
        this.p++;
        this.expect(K.KEY);
        this.expect(T.LPAREN);
        setPartitionKey(this.partitionKeyColumns());
        while (this.accept(T.COMMA)) clustering.push(this.ident());
        this.expect(T.RPAREN);
        return;
      }
      if (!this.isIdent(this.la())) this.noViable();
      const def = this.columnDefinition();
      if (seen.has(def.name)) this.invalid(`Duplicate column '${def.name}' declaration for table '${tableName}'`);
      seen.add(def.name);
      columns.push(def);
      if (this.la() === K.PRIMARY) {
        this.p++;
        this.expect(K.KEY);
        setPartitionKey([def.name]);
      }
    };
    tableColumns();
    while (this.accept(T.COMMA)) {
      if (this.la() !== T.RPAREN) tableColumns();
    }
    this.expect(T.RPAREN);
    const props = new Map<string, PropertyValue>();
    const clusteringOrder: { column: string; descending: boolean }[] = [];
    if (this.accept(K.WITH)) {
      do {
        this.tableProperty(props, clusteringOrder, tableName, false);
      } while (this.accept(K.AND));
    }
    if (partitionKey === undefined) {
      this.failAfterParse(`No PRIMARY KEY specifed for table '${tableName}' (exactly one required)`);
    }
    return {
      kind: 'createTable',
      table,
      ifNotExists,
      columns,
      partitionKey: partitionKey ?? [],
      clustering,
      clusteringOrder,
      properties: props,
      bindMarkers: EMPTY,
      pos,
    };
  }

  private partitionKeyColumns(): string[] {
    if (this.accept(T.LPAREN)) {
      const cols = [this.ident()];
      while (this.accept(T.COMMA)) cols.push(this.ident());
      this.expect(T.RPAREN);
      return cols;
    }
    return [this.ident()];
  }

  /** `name type [STATIC] [MASKED WITH ...]`. */
  private columnDefinition(): ColumnDefinition {
    const name = this.ident();
    const type = this.comparatorType();
    const isStatic = this.accept(K.STATIC);
    const mask = this.la() === K.MASKED ? this.columnMask() : undefined;
    return { name, type, isStatic, mask };
  }

  private columnMask(): ColumnMask {
    this.expect(K.MASKED);
    this.expect(K.WITH);
    if (this.accept(K.DEFAULT)) return { function: { keyspace: undefined, name: 'mask_default' }, args: [] };
    const fn = this.functionName();
    this.expect(T.LPAREN);
    const args: Term[] = [];
    if (this.la() !== T.RPAREN) {
      args.push(this.term());
      while (this.accept(T.COMMA)) args.push(this.term());
    }
    this.expect(T.RPAREN);
    return { function: fn, args };
  }

  /** Parser.g tableProperty / viewProperty. */
  private tableProperty(
    props: Map<string, PropertyValue>,
    order: { column: string; descending: boolean }[],
    tableName: string,
    view: boolean,
  ): void {
    const t = this.la();
    if (t === K.COMPACT && this.la(2) === K.STORAGE) {
      if (view) this.recognitionError('COMPACT STORAGE tables are not allowed starting with version 4.0');
      this.p += 2;
      this.failAfterParse(COMPACT_STORAGE_MESSAGE);
      return;
    }
    if (t === K.CLUSTERING && this.la(2) === K.ORDER) {
      this.p += 2;
      this.expect(K.BY);
      this.expect(T.LPAREN);
      do {
        const column = this.ident();
        let descending = false;
        if (this.accept(K.DESC)) descending = true;
        else if (!this.accept(K.ASC)) this.noViable();
        if (order.some((o) => o.column === column)) {
          const what = view ? 'view' : 'table';
          this.invalid(`Duplicate column '${column}' in CLUSTERING ORDER BY clause for ${what} '${tableName}'`);
        }
        order.push({ column, descending });
      } while (this.accept(T.COMMA));
      this.expect(T.RPAREN);
      return;
    }
    this.property(props);
  }

  private createIndex(): CreateIndexStatement {
    const pos = this.consume().start;
    const custom = this.accept(K.CUSTOM);
    this.expect(K.INDEX);
    const ifNotExists = this.ifNotExists();
    let name: string | undefined;
    if (this.la() !== K.ON) {
      if (this.la() === T.QMARK) this.recognitionError('Bind variables cannot be used for index names');
      name = this.ident();
    }
    this.expect(K.ON);
    const table = this.qualifiedName();
    this.expect(T.LPAREN);
    const targets: IndexTarget[] = [];
    if (this.la() !== T.RPAREN) {
      targets.push(this.indexTarget());
      while (this.accept(T.COMMA)) targets.push(this.indexTarget());
    }
    this.expect(T.RPAREN);
    let using: string | undefined;
    if (this.accept(K.USING)) using = this.expect(T.STRING_LITERAL).text;
    const props = new Map<string, PropertyValue>();
    if (this.accept(K.WITH)) this.properties(props);
    return {
      kind: 'createIndex',
      table,
      name,
      ifNotExists,
      custom,
      targets,
      using,
      properties: props,
      bindMarkers: EMPTY,
      pos,
    };
  }

  private indexTarget(): IndexTarget {
    const t = this.la();
    if (this.la(2) === T.LPAREN) {
      let kind: IndexTarget['kind'] | undefined;
      if (t === K.VALUES) kind = 'values';
      else if (t === K.KEYS) kind = 'keys';
      else if (t === K.ENTRIES) kind = 'entries';
      else if (t === K.FULL) kind = 'full';
      if (kind !== undefined) {
        this.p += 2;
        const column = this.cident();
        this.expect(T.RPAREN);
        return { column, kind };
      }
    }
    return { column: this.cident(), kind: 'simple' };
  }

  private createType(): CreateTypeStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const type = this.userTypeName();
    this.expect(T.LPAREN);
    const fields: { name: string; type: RawType }[] = [];
    const field = () => {
      const name = this.ident();
      fields.push({ name, type: this.comparatorType() });
    };
    field();
    while (this.accept(T.COMMA)) {
      if (this.la() !== T.RPAREN) field();
    }
    this.expect(T.RPAREN);
    return { kind: 'createType', type, ifNotExists, fields, bindMarkers: EMPTY, pos };
  }

  private createView(): CreateViewStatement {
    const pos = this.consume().start;
    this.expect(K.MATERIALIZED);
    this.expect(K.VIEW);
    const ifNotExists = this.ifNotExists();
    const view = this.qualifiedName();
    this.expect(K.AS);
    this.expect(K.SELECT);
    const selectors = this.selectors();
    this.expect(K.FROM);
    const baseTable = this.qualifiedName();
    const where: Relation[] = this.accept(K.WHERE) ? this.whereClause() : [];
    this.expect(K.PRIMARY);
    this.expect(K.KEY);
    this.expect(T.LPAREN);
    const partitionKey = this.partitionKeyColumns();
    const clustering: string[] = [];
    while (this.accept(T.COMMA)) clustering.push(this.ident());
    this.expect(T.RPAREN);
    const props = new Map<string, PropertyValue>();
    const clusteringOrder: { column: string; descending: boolean }[] = [];
    if (this.accept(K.WITH)) {
      do {
        this.tableProperty(props, clusteringOrder, qualifiedNameToString(view), true);
      } while (this.accept(K.AND));
    }
    return {
      kind: 'createView',
      view,
      ifNotExists,
      baseTable,
      selectors,
      where,
      partitionKey,
      clustering,
      clusteringOrder,
      properties: props,
      bindMarkers: this.markersFrom(0),
      pos,
    };
  }

  private createTrigger(): CreateTriggerStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const name = this.ident();
    this.expect(K.ON);
    const table = this.qualifiedName();
    this.expect(K.USING);
    const className = this.expect(T.STRING_LITERAL).text;
    return { kind: 'createTrigger', name, table, ifNotExists, className, bindMarkers: EMPTY, pos };
  }

  private typeList(): RawType[] {
    this.expect(T.LPAREN);
    const types: RawType[] = [];
    if (this.la() !== T.RPAREN) {
      types.push(this.comparatorType());
      while (this.accept(T.COMMA)) types.push(this.comparatorType());
    }
    this.expect(T.RPAREN);
    return types;
  }

  private createFunction(orReplace: boolean): CreateFunctionStatement {
    const pos = this.consume().start;
    if (orReplace) this.p += 2;
    this.expect(K.FUNCTION);
    const ifNotExists = this.ifNotExists();
    const fn = this.functionName();
    this.expect(T.LPAREN);
    const args: { name: string; type: RawType }[] = [];
    if (this.la() !== T.RPAREN) {
      do {
        const name = this.ident();
        args.push({ name, type: this.comparatorType() });
      } while (this.accept(T.COMMA));
    }
    this.expect(T.RPAREN);
    let calledOnNullInput = false;
    if (this.accept(K.CALLED)) calledOnNullInput = true;
    else if (this.accept(K.RETURNS)) this.expect(K.NULL);
    else this.noViable();
    this.expect(K.ON);
    this.expect(K.NULL);
    this.expect(K.INPUT);
    this.expect(K.RETURNS);
    const returnType = this.comparatorType();
    this.expect(K.LANGUAGE);
    const language = this.expect(T.IDENT).text.toLowerCase();
    this.expect(K.AS);
    const body = this.expect(T.STRING_LITERAL).text;
    return {
      kind: 'createFunction',
      function: fn,
      orReplace,
      ifNotExists,
      args,
      calledOnNullInput,
      returnType,
      language,
      body,
      bindMarkers: EMPTY,
      pos,
    };
  }

  private createAggregate(orReplace: boolean): CreateAggregateStatement {
    const from = this.markers.length;
    const pos = this.consume().start;
    if (orReplace) this.p += 2;
    this.expect(K.AGGREGATE);
    const ifNotExists = this.ifNotExists();
    const aggregate = this.functionName();
    const argTypes = this.typeList();
    this.expect(K.SFUNC);
    const stateFunction = this.allowedFunctionName();
    this.expect(K.STYPE);
    const stateType = this.comparatorType();
    const finalFunction = this.accept(K.FINALFUNC) ? this.allowedFunctionName() : undefined;
    const initCondition = this.accept(K.INITCOND) ? this.term() : undefined;
    return {
      kind: 'createAggregate',
      aggregate,
      orReplace,
      ifNotExists,
      argTypes,
      stateFunction,
      stateType,
      finalFunction,
      initCondition,
      bindMarkers: this.markersFrom(from),
      pos,
    };
  }

  // ------------------------------------------------------------ ALTER

  private alter(): Statement {
    switch (this.la(2)) {
      case K.KEYSPACE:
      case K.SCHEMA:
        return this.alterKeyspace();
      case K.COLUMNFAMILY:
        return this.alterTable();
      case K.TYPE:
        return this.alterType();
      case K.MATERIALIZED:
        return this.alterView();
      case K.USER:
        return this.alterUser();
      case K.ROLE:
        return this.alterRole();
      default:
        return this.noViable(2);
    }
  }

  private alterKeyspace(): AlterKeyspaceStatement {
    const pos = this.consume().start;
    this.p++;
    const ifExists = this.ifExists();
    const keyspace = this.keyspaceName();
    this.expect(K.WITH);
    const props = new Map<string, PropertyValue>();
    this.properties(props);
    return { kind: 'alterKeyspace', keyspace, ifExists, properties: props, bindMarkers: EMPTY, pos };
  }

  private alterTable(): AlterTableStatement {
    const pos = this.consume().start;
    this.p++;
    const ifExists = this.ifExists();
    const table = this.qualifiedName();
    let operation: AlterTableOperation;
    switch (this.la()) {
      case K.ALTER: {
        this.p++;
        const colIfExists = this.ifExists();
        const column = this.cident();
        if (!colIfExists && this.accept(K.TYPE)) {
          operation = { kind: 'alterColumnType', column, type: this.comparatorType() };
        } else if (this.la() === K.MASKED) {
          operation = { kind: 'mask', ifExists: colIfExists, column, mask: this.columnMask() };
        } else if (this.la() === K.DROP) {
          this.p++;
          this.expect(K.MASKED);
          operation = { kind: 'mask', ifExists: colIfExists, column, mask: undefined };
        } else this.noViable();
        break;
      }
      case K.ADD: {
        this.p++;
        const colIfNotExists = this.ifNotExists();
        const columns: ColumnDefinition[] = [];
        if (this.accept(T.LPAREN)) {
          columns.push(this.columnDefinition());
          while (this.accept(T.COMMA)) columns.push(this.columnDefinition());
          this.expect(T.RPAREN);
        } else columns.push(this.columnDefinition());
        operation = { kind: 'add', ifNotExists: colIfNotExists, columns };
        break;
      }
      case K.DROP: {
        this.p++;
        if (this.la() === K.COMPACT && this.la(2) === K.STORAGE) {
          this.p += 2;
          operation = { kind: 'dropCompactStorage' };
          break;
        }
        const colIfExists = this.ifExists();
        const columns: string[] = [];
        if (this.accept(T.LPAREN)) {
          columns.push(this.ident());
          while (this.accept(T.COMMA)) columns.push(this.ident());
          this.expect(T.RPAREN);
        } else columns.push(this.ident());
        let timestamp: bigint | undefined;
        if (this.accept(K.USING)) {
          this.expect(K.TIMESTAMP);
          timestamp = BigInt(this.expect(T.INTEGER).text);
        }
        operation = { kind: 'drop', ifExists: colIfExists, columns, timestamp };
        break;
      }
      case K.RENAME: {
        this.p++;
        const colIfExists = this.ifExists();
        operation = { kind: 'rename', ifExists: colIfExists, renames: this.renames() };
        break;
      }
      case K.WITH: {
        this.p++;
        const props = new Map<string, PropertyValue>();
        this.properties(props);
        operation = { kind: 'with', properties: props };
        break;
      }
      default:
        this.noViable();
    }
    return { kind: 'alterTable', table, ifExists, operation, bindMarkers: this.markersFrom(0), pos };
  }

  private renames(): { from: string; to: string }[] {
    const out: { from: string; to: string }[] = [];
    do {
      const from = this.ident();
      this.expect(K.TO);
      out.push({ from, to: this.ident() });
    } while (this.accept(K.AND));
    return out;
  }

  private alterType(): AlterTypeStatement {
    const pos = this.consume().start;
    this.p++;
    const ifExists = this.ifExists();
    const type = this.userTypeName();
    let operation: AlterTypeStatement['operation'];
    if (this.accept(K.ALTER)) {
      const field = this.ident();
      this.expect(K.TYPE);
      operation = { kind: 'alter', field, type: this.comparatorType() };
    } else if (this.accept(K.ADD)) {
      const fieldIfNotExists = this.ifNotExists();
      const field = this.ident();
      operation = { kind: 'add', ifNotExists: fieldIfNotExists, field, type: this.comparatorType() };
    } else if (this.accept(K.RENAME)) {
      const fieldIfExists = this.ifExists();
      operation = { kind: 'rename', ifExists: fieldIfExists, renames: this.renames() };
    } else this.noViable();
    return { kind: 'alterType', type, ifExists, operation, bindMarkers: EMPTY, pos };
  }

  private alterView(): AlterViewStatement {
    const pos = this.consume().start;
    this.p++;
    this.expect(K.VIEW);
    const ifExists = this.ifExists();
    const view = this.qualifiedName();
    this.expect(K.WITH);
    const props = new Map<string, PropertyValue>();
    this.properties(props);
    return { kind: 'alterView', view, ifExists, properties: props, bindMarkers: EMPTY, pos };
  }

  // ------------------------------------------------------------ DROP

  private drop(): Statement {
    const pos = this.lt(1).start;
    const what = this.la(2);
    switch (what) {
      case K.KEYSPACE:
      case K.SCHEMA: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropKeyspace', keyspace: this.keyspaceName(), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.COLUMNFAMILY: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropTable', table: this.qualifiedName(), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.INDEX: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropIndex', index: this.qualifiedName('index'), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.TYPE: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropType', type: this.userTypeName(), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.MATERIALIZED: {
        this.p += 2;
        this.expect(K.VIEW);
        const ifExists = this.ifExists();
        return { kind: 'dropView', view: this.qualifiedName(), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.TRIGGER: {
        this.p += 2;
        const ifExists = this.ifExists();
        const name = this.ident();
        this.expect(K.ON);
        return { kind: 'dropTrigger', name, table: this.qualifiedName(), ifExists, bindMarkers: EMPTY, pos };
      }
      case K.FUNCTION:
      case K.AGGREGATE: {
        this.p += 2;
        const ifExists = this.ifExists();
        const fn = this.functionName();
        const argTypes = this.la() === T.LPAREN ? this.typeList() : undefined;
        if (what === K.FUNCTION) {
          return { kind: 'dropFunction', function: fn, ifExists, argTypes, bindMarkers: EMPTY, pos };
        }
        return { kind: 'dropAggregate', aggregate: fn, ifExists, argTypes, bindMarkers: EMPTY, pos };
      }
      case K.USER: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropRole', role: this.username(), user: true, ifExists, bindMarkers: EMPTY, pos };
      }
      case K.ROLE: {
        this.p += 2;
        const ifExists = this.ifExists();
        return { kind: 'dropRole', role: this.roleName(), user: false, ifExists, bindMarkers: EMPTY, pos };
      }
      default:
        return this.noViable(2);
    }
  }

  // ------------------------------------------------------------ roles and permissions

  /** Parser.g username (CREATE/ALTER/DROP USER): IDENT keeps its case. */
  private username(): string {
    const t = this.lt(1);
    if (t.type === T.IDENT || t.type === T.STRING_LITERAL) {
      this.p++;
      return t.text;
    }
    if (t.type === T.QUOTED_NAME) {
      this.recognitionError(
        'Quoted strings are are not supported for user names and USER is deprecated, please use ROLE',
      );
    }
    return this.noViable();
  }

  private setRoleOption<Key extends keyof MutableRoleOptions>(
    o: MutableRoleOptions,
    key: Key,
    name: string,
    value: MutableRoleOptions[Key],
  ): void {
    if (o[key] !== undefined) this.recognitionError(`Multiple definition for property '${name}'`);
    o[key] = value;
  }

  /** CREATE/ALTER USER's `WITH [HASHED] PASSWORD 'x'` / `WITH GENERATED PASSWORD` (no '='). */
  private userPassword(o: MutableRoleOptions): void {
    if (this.accept(K.PASSWORD)) this.setRoleOption(o, 'password', 'PASSWORD', this.expect(T.STRING_LITERAL).text);
    else if (this.accept(K.HASHED)) {
      this.expect(K.PASSWORD);
      this.setRoleOption(o, 'hashedPassword', 'HASHED_PASSWORD', this.expect(T.STRING_LITERAL).text);
    } else if (this.accept(K.GENERATED)) {
      this.expect(K.PASSWORD);
      this.setRoleOption(o, 'generatedPassword', 'GENERATED_PASSWORD', true);
    } else this.noViable();
  }

  private roleOptions(o: MutableRoleOptions): void {
    do {
      const t = this.la();
      if (t === K.PASSWORD) {
        this.p++;
        this.expect(T.EQ);
        this.setRoleOption(o, 'password', 'PASSWORD', this.expect(T.STRING_LITERAL).text);
      } else if (t === K.HASHED) {
        this.p++;
        this.expect(K.PASSWORD);
        this.expect(T.EQ);
        this.setRoleOption(o, 'hashedPassword', 'HASHED_PASSWORD', this.expect(T.STRING_LITERAL).text);
      } else if (t === K.GENERATED) {
        this.p++;
        this.expect(K.PASSWORD);
        this.setRoleOption(o, 'generatedPassword', 'GENERATED_PASSWORD', true);
      } else if (t === K.OPTIONS) {
        this.p++;
        this.expect(T.EQ);
        this.setRoleOption(o, 'options', 'OPTIONS', this.propertyMap());
      } else if (t === K.SUPERUSER || t === K.LOGIN) {
        this.p++;
        this.expect(T.EQ);
        const b = this.expect(T.BOOLEAN).text.toLowerCase() === 'true';
        if (t === K.SUPERUSER) this.setRoleOption(o, 'superuser', 'SUPERUSER', b);
        else this.setRoleOption(o, 'login', 'LOGIN', b);
      } else if (t === K.ACCESS) {
        this.p++;
        if (this.accept(K.TO)) {
          if (this.accept(K.ALL)) {
            this.expect(K.DATACENTERS);
            o.datacenters = 'all';
          } else {
            this.expect(K.DATACENTERS);
            o.datacenters = this.stringSet();
          }
        } else if (this.accept(K.FROM)) {
          if (this.accept(K.ALL)) {
            this.expect(K.CIDRS);
            o.cidrs = 'all';
          } else {
            this.expect(K.CIDRS);
            o.cidrs = this.stringSet();
          }
        } else this.noViable();
      } else this.noViable();
    } while (this.accept(K.AND));
  }

  private stringSet(): string[] {
    this.expect(T.LBRACE);
    const out = [this.expect(T.STRING_LITERAL).text];
    while (this.accept(T.COMMA)) out.push(this.expect(T.STRING_LITERAL).text);
    this.expect(T.RBRACE);
    return out;
  }

  private finishRoleOptions(o: MutableRoleOptions): RoleOptions {
    if (o.password !== undefined && o.hashedPassword !== undefined) {
      this.recognitionError("Options 'password' and 'hashed password' are mutually exclusive");
    }
    if (o.password !== undefined && o.generatedPassword) {
      this.recognitionError("Options 'password' and 'generated password' are mutually exclusive");
    }
    if (o.hashedPassword !== undefined && o.generatedPassword) {
      this.recognitionError("Options 'hashed password' and 'generated password' are mutually exclusive");
    }
    return {
      password: o.password,
      hashedPassword: o.hashedPassword,
      generatedPassword: o.generatedPassword ?? false,
      login: o.login,
      superuser: o.superuser,
      options: o.options,
      datacenters: o.datacenters,
      cidrs: o.cidrs,
    };
  }

  private createUser(): CreateRoleStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const role = this.username();
    const o: MutableRoleOptions = { login: true };
    if (this.accept(K.WITH)) this.userPassword(o);
    if (this.accept(K.SUPERUSER)) o.superuser = true;
    else {
      this.accept(K.NOSUPERUSER);
      o.superuser = false;
    }
    const options = this.finishRoleOptions(o);
    return { kind: 'createRole', role, user: true, ifNotExists, options, bindMarkers: EMPTY, pos };
  }

  private alterUser(): AlterRoleStatement {
    const pos = this.consume().start;
    this.p++;
    const ifExists = this.ifExists();
    const role = this.username();
    const o: MutableRoleOptions = {};
    if (this.accept(K.WITH)) this.userPassword(o);
    if (this.accept(K.SUPERUSER)) o.superuser = true;
    else if (this.accept(K.NOSUPERUSER)) o.superuser = false;
    const options = this.finishRoleOptions(o);
    return { kind: 'alterRole', role, user: true, ifExists, options, bindMarkers: EMPTY, pos };
  }

  private createRole(): CreateRoleStatement {
    const pos = this.consume().start;
    this.p++;
    const ifNotExists = this.ifNotExists();
    const role = this.roleName();
    const o: MutableRoleOptions = {};
    if (this.accept(K.WITH)) this.roleOptions(o);
    o.login ??= false;
    o.superuser ??= false;
    const options = this.finishRoleOptions(o);
    return { kind: 'createRole', role, user: false, ifNotExists, options, bindMarkers: EMPTY, pos };
  }

  private alterRole(): AlterRoleStatement {
    const pos = this.consume().start;
    this.p++;
    const ifExists = this.ifExists();
    const role = this.roleName();
    const o: MutableRoleOptions = {};
    if (this.accept(K.WITH)) this.roleOptions(o);
    const options = this.finishRoleOptions(o);
    return { kind: 'alterRole', role, user: false, ifExists, options, bindMarkers: EMPTY, pos };
  }

  /** Is the token after GRANT/REVOKE/LIST the start of a permission list (vs a role name)? */
  private startsPermissions(): boolean {
    const t = this.la(2);
    if (PERMISSION_KEYWORDS.has(t)) return true;
    if (t === K.ALL) {
      const n = this.la(3);
      return n === K.PERMISSIONS || n === K.ON || n === K.OF || n === K.NORECURSIVE || n === T.EOF || n === T.SEMI;
    }
    return false;
  }

  private grantOrRevoke(): Statement {
    const grant = this.la() === K.GRANT;
    const isPermissions = this.startsPermissions();
    const pos = this.consume().start;
    const link = grant ? K.TO : K.FROM;
    if (isPermissions) {
      const perms = this.permissionOrAll();
      this.expect(K.ON);
      const resource = this.resource();
      this.expect(link);
      const role = this.roleName();
      const permissions = this.filterPermissions(perms.permissions, resource);
      if (grant) {
        return {
          kind: 'grantPermissions',
          permissions,
          all: perms.all,
          resource,
          grantee: role,
          bindMarkers: EMPTY,
          pos,
        };
      }
      return {
        kind: 'revokePermissions',
        permissions,
        all: perms.all,
        resource,
        revokee: role,
        bindMarkers: EMPTY,
        pos,
      };
    }
    if (!this.isIdent(this.la()) && this.la() !== T.STRING_LITERAL && this.la() !== T.QMARK) this.noViable();
    const role = this.roleName();
    this.expect(link);
    const other = this.roleName();
    if (grant) return { kind: 'grantRole', role, grantee: other, bindMarkers: EMPTY, pos };
    return { kind: 'revokeRole', role, revokee: other, bindMarkers: EMPTY, pos };
  }

  private filterPermissions(perms: readonly Permission[], resource: Resource): Permission[] {
    const applicable = APPLICABLE[resource.kind];
    const out = perms.filter((p) => applicable.perms.includes(p));
    if (out.length === 0) {
      this.recognitionError(`Resource type ${applicable.type} does not support any of the requested permissions`);
    }
    return out;
  }

  private permission(): Permission {
    const p = PERMISSION_KEYWORDS.get(this.la());
    if (p === undefined) this.noViable();
    this.p++;
    this.accept(K.PERMISSION);
    return p;
  }

  private permissionOrAll(): PermissionList {
    if (this.accept(K.ALL)) {
      this.accept(K.PERMISSIONS);
      return { permissions: [...ALL_PERMISSIONS], all: true };
    }
    const permissions = [this.permission()];
    while (this.accept(T.COMMA)) {
      const p = this.permission();
      if (!permissions.includes(p)) permissions.push(p);
    }
    return { permissions, all: false };
  }

  private resource(): Resource {
    const t = this.la();
    const n = this.la(2);
    if (t === K.ALL) {
      switch (n) {
        case K.KEYSPACES:
          this.p += 2;
          return { kind: 'allKeyspaces' };
        case K.ROLES:
          this.p += 2;
          return { kind: 'allRoles' };
        case K.MBEANS:
          this.p += 2;
          return { kind: 'allMBeans' };
        case K.FUNCTIONS:
          this.p += 2;
          if (this.accept(K.IN)) {
            this.expect(K.KEYSPACE);
            return { kind: 'allFunctionsInKeyspace', keyspace: this.keyspaceName() };
          }
          return { kind: 'allFunctions' };
        case K.TABLES:
          this.p += 2;
          this.expect(K.IN);
          this.expect(K.KEYSPACE);
          return { kind: 'allTablesInKeyspace', keyspace: this.keyspaceName() };
      }
    }
    if (t === K.KEYSPACE) {
      this.p++;
      return { kind: 'keyspace', keyspace: this.keyspaceName() };
    }
    if (t === K.ROLE && (this.isIdent(n) || n === T.STRING_LITERAL || n === T.QMARK) && this.la(3) !== T.DOT) {
      this.p++;
      return { kind: 'role', role: this.roleName() };
    }
    if (t === K.FUNCTION && this.isFunctionNameToken(n) && (this.la(3) === T.LPAREN || this.la(3) === T.DOT)) {
      this.p++;
      const fn = this.functionName();
      return { kind: 'function', function: fn, argTypes: this.typeList() };
    }
    if ((t === K.MBEAN || t === K.MBEANS) && n === T.STRING_LITERAL) {
      this.p++;
      const name = this.consume().text;
      if (name === '') this.recognitionError('Empty JMX object name supplied');
      if (name === '*:*') this.recognitionError('Please use ALL MBEANS instead of wildcard pattern');
      return { kind: 'mbean', name, pattern: t === K.MBEANS };
    }
    this.accept(K.COLUMNFAMILY);
    return { kind: 'table', table: this.qualifiedName() };
  }

  private list(): Statement {
    const pos = this.lt(1).start;
    const n = this.la(2);
    if (n === K.ROLES) {
      this.p += 2;
      const role = this.accept(K.OF) ? this.roleName() : undefined;
      const recursive = !this.accept(K.NORECURSIVE);
      return { kind: 'listRoles', role, recursive, bindMarkers: EMPTY, pos };
    }
    if (n === K.USERS) {
      this.p += 2;
      return { kind: 'listUsers', bindMarkers: EMPTY, pos };
    }
    if (n === K.SUPERUSERS) {
      this.p += 2;
      return { kind: 'listSuperUsers', bindMarkers: EMPTY, pos };
    }
    if (!PERMISSION_KEYWORDS.has(n) && n !== K.ALL) this.noViable(2);
    this.p++;
    const perms = this.permissionOrAll();
    const resource = this.accept(K.ON) ? this.resource() : undefined;
    const role = this.accept(K.OF) ? this.roleName() : undefined;
    const recursive = !this.accept(K.NORECURSIVE);
    const stmt: ListPermissionsStatement = {
      kind: 'listPermissions',
      permissions: perms.permissions,
      all: perms.all,
      resource,
      role,
      recursive,
      bindMarkers: EMPTY,
      pos,
    };
    return stmt;
  }

  // ------------------------------------------------------------ DESCRIBE

  private describe(): DescribeStatement {
    const pos = this.consume().start;
    const t = this.la();
    const n = this.la(2);
    // Listing keywords are unreserved: `DESCRIBE types` lists types, as ANTLR's predicates decide.
    const endsHere = n === T.EOF || n === T.SEMI || n === K.WITH;
    let target: DescribeTarget;
    switch (t) {
      case K.CLUSTER:
        this.p++;
        target = { kind: 'cluster' };
        break;
      case K.FULL:
        this.p++;
        this.expect(K.SCHEMA);
        target = { kind: 'schema', full: true };
        break;
      case K.SCHEMA:
        this.p++;
        target = { kind: 'schema', full: false };
        break;
      case K.KEYSPACES:
        this.p++;
        target = { kind: 'keyspaces' };
        break;
      case K.TABLES:
        this.p++;
        target = { kind: 'tables' };
        break;
      case K.TYPES:
        this.p++;
        target = { kind: 'types' };
        break;
      case K.FUNCTIONS:
        this.p++;
        target = { kind: 'functions' };
        break;
      case K.AGGREGATES:
        this.p++;
        target = { kind: 'aggregates' };
        break;
      case K.KEYSPACE: {
        this.p++;
        const keyspace = this.isIdent(this.la()) || this.la() === T.QMARK ? this.keyspaceName() : undefined;
        target = { kind: 'keyspace', keyspace, only: false };
        break;
      }
      case K.COLUMNFAMILY:
        this.p++;
        target = { kind: 'table', name: this.qualifiedName() };
        break;
      case K.INDEX:
        this.p++;
        target = { kind: 'index', name: this.qualifiedName() };
        break;
      case K.MATERIALIZED:
        this.p++;
        this.expect(K.VIEW);
        target = { kind: 'materializedView', name: this.qualifiedName() };
        break;
      default:
        if (t === K.ONLY && n === K.KEYSPACE) {
          this.p += 2;
          const keyspace = this.isIdent(this.la()) || this.la() === T.QMARK ? this.keyspaceName() : undefined;
          target = { kind: 'keyspace', keyspace, only: true };
        } else if (t === K.TYPE && !endsHere && n !== T.DOT) {
          this.p++;
          target = { kind: 'type', name: this.userTypeName() };
        } else if ((t === K.FUNCTION || t === K.AGGREGATE) && !endsHere && n !== T.DOT) {
          this.p++;
          const name = this.functionName();
          target = t === K.FUNCTION ? { kind: 'function', name } : { kind: 'aggregate', name };
        } else {
          if (!this.isIdent(t)) this.noViable();
          let keyspace: string | undefined;
          if (n === T.DOT) {
            keyspace = this.ident();
            this.p++;
          }
          target = { kind: 'generic', name: { keyspace, name: this.ident() } };
        }
    }
    let withInternals = false;
    if (this.la() === K.WITH) {
      this.p++;
      this.expect(K.INTERNALS);
      withInternals = true;
    }
    return { kind: 'describe', target, withInternals, bindMarkers: EMPTY, pos };
  }
}

const EMPTY: readonly BindMarker[] = Object.freeze([]);

/** Operation.isCompatibleWith: a plain `c = v` conflicts with anything; so does one field set twice. */
function compatible(a: Operation, b: Operation): boolean {
  if (a.kind === 'set' || b.kind === 'set') return false;
  return !(a.kind === 'setField' && b.kind === 'setField' && a.field === b.field);
}
