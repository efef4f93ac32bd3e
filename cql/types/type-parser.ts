// CQL type strings ('map<text, frozen<list<int>>>', as written in DDL and stored in system_schema) to CqlType.
import { InvalidRequest } from '../errors.js';
import { checkCollectionElement } from './collection-element-rules.js';
import { type CqlType, NATIVE_TYPE_NAMES, type NativeTypeName, native } from './cql-type.js';

/** Finds a user type by (optional keyspace, name); undefined if it does not exist. */
export type UdtResolver = (keyspace: string | undefined, name: string) => (CqlType & { kind: 'udt' }) | undefined;

const NATIVES = new Set<string>(NATIVE_TYPE_NAMES);

class TypeTokens {
  private readonly tokens: string[];
  private i = 0;
  constructor(readonly source: string) {
    this.tokens = source.match(/"(?:[^"]|"")*"|'(?:[^']|'')*'|[A-Za-z0-9_]+|[<>,.]|\S/g) ?? [];
  }
  peek(): string | undefined {
    return this.tokens[this.i];
  }
  next(): string {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new InvalidRequest(`Invalid type '${this.source}'`);
    return t;
  }
  expect(t: string): void {
    if (this.next() !== t) throw new InvalidRequest(`Invalid type '${this.source}'`);
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
}

function identifier(tok: string): string {
  return tok.startsWith('"') ? tok.slice(1, -1).replaceAll('""', '"') : tok.toLowerCase();
}

function freeze(t: CqlType): CqlType {
  switch (t.kind) {
    case 'list':
    case 'set':
      return { ...t, element: freeze(t.element), frozen: true };
    case 'map':
      return { ...t, key: freeze(t.key), value: freeze(t.value), frozen: true };
    case 'udt':
      return t.frozen ? t : { ...t, frozen: true };
    case 'tuple':
      return { kind: 'tuple', elements: t.elements.map(freeze) };
    case 'vector':
      return { ...t, element: freeze(t.element) };
    default:
      return t;
  }
}

function parseOne(ts: TypeTokens, resolve: UdtResolver | undefined): CqlType {
  const tok = ts.next();
  if (tok.startsWith("'")) return { kind: 'custom', className: tok.slice(1, -1).replaceAll("''", "'") };
  const lower = tok.toLowerCase();
  const quoted = tok.startsWith('"');
  if (!quoted && ts.peek() === '<') {
    ts.expect('<');
    switch (lower) {
      case 'frozen': {
        const inner = parseOne(ts, resolve);
        ts.expect('>');
        return freeze(inner);
      }
      case 'list':
      case 'set': {
        const element = parseOne(ts, resolve);
        ts.expect('>');
        const t: Extract<CqlType, { kind: 'list' | 'set' }> = { kind: lower, element, frozen: false };
        checkCollectionElement(t, element, 'element');
        return t;
      }
      case 'map': {
        const key = parseOne(ts, resolve);
        ts.expect(',');
        const value = parseOne(ts, resolve);
        ts.expect('>');
        const t: Extract<CqlType, { kind: 'map' }> = { kind: 'map', key, value, frozen: false };
        checkCollectionElement(t, key, 'key');
        checkCollectionElement(t, value, 'value');
        return t;
      }
      case 'tuple': {
        const elements: CqlType[] = [freeze(parseOne(ts, resolve))];
        while (ts.peek() === ',') {
          ts.next();
          elements.push(freeze(parseOne(ts, resolve)));
        }
        ts.expect('>');
        return { kind: 'tuple', elements };
      }
      case 'vector': {
        const element = freeze(parseOne(ts, resolve));
        ts.expect(',');
        const dim = ts.next();
        ts.expect('>');
        const dimension = Number(dim);
        if (!/^\d+$/.test(dim) || dimension <= 0)
          throw new InvalidRequest(`vectors may only have positive dimensions; given ${dim}`);
        if (element.kind === 'native' && element.name === 'counter')
          throw new InvalidRequest('vectors may not contain counters');
        return { kind: 'vector', element, dimension };
      }
      default:
        throw new InvalidRequest(`Unknown type ${tok}`);
    }
  }
  if (!quoted && lower === 'varchar') return native('text');
  if (!quoted && NATIVES.has(lower)) return native(lower as NativeTypeName);
  let keyspace: string | undefined;
  let name = identifier(tok);
  if (ts.peek() === '.') {
    ts.next();
    keyspace = name;
    name = identifier(ts.next());
  }
  const udt = resolve?.(keyspace, name);
  if (!udt) throw new InvalidRequest(`Unknown type ${keyspace === undefined ? '' : `${keyspace}.`}${name}`);
  return { ...udt, frozen: false };
}

/** Parses a CQL type; UDT names (optionally keyspace-qualified) go through `resolve`. */
export function parseTypeString(source: string, resolve?: UdtResolver): CqlType {
  const ts = new TypeTokens(source);
  const t = parseOne(ts, resolve);
  if (!ts.done()) throw new InvalidRequest(`Invalid type '${source}'`);
  return t;
}
