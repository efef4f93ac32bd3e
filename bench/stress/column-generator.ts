// A profile column's value generator, as cassandra-stress's generate/values: a value is a function
// of its "identity", drawn from the column's population distribution seeded by the row's (or the
// partition's) seed, so the same seed gives the same value again and a population of N gives at
// most N distinct values. Text and blobs take their length from the size distribution seeded by the
// identity; collections their element count. Values are kept in a canonical form (number, string,
// Buffer or array) that hashes into child seeds and compares for uniqueness, and are converted to
// what the driver binds only when bound.

import cassandra from 'cassandra-driver';
import { type Distribution, distributionFactory, StressArgError } from './distribution.js';
import { hashString, mix32, SeededRandom, seedOf } from './seeded-random.js';

export type Canonical = number | string | Buffer | Canonical[];

/** A column's entry in the profile's columnspec. */
export interface ColumnSpec {
  population?: string;
  size?: string;
  cluster?: string;
}

/** The driver's description of a CQL type. */
export interface ColumnType {
  code: number;
  info?: unknown;
  options?: { frozen?: boolean };
}

const T = cassandra.types.dataTypes;
const { Long, Uuid, TimeUuid, InetAddress, LocalDate, LocalTime } = cassandra.types;

const DEFAULT_POPULATION = 'uniform(1..100B)';
const DEFAULT_SIZE = 'uniform(4..8)';
const DEFAULT_CLUSTER = 'fixed(1)';
// Timestamps (and time UUIDs) default to any millisecond of the 50 years after the epoch.
const DEFAULT_TIMESTAMP_POPULATION = `uniform(1..${50 * 365 * 24 * 60 * 60 * 1000})`;
const NANOS_PER_DAY = 86_400_000_000_000;
const UUID_EPOCH_OFFSET = 0x01b21dd213814000n; // 100 ns intervals from 1582-10-15 to 1970-01-01

/** The seed of a child derived from its parent's seed and a generated value (cassandra-stress's PartitionIterator.seed). */
export function childSeed(parent: number, value: Canonical): number {
  if (typeof value === 'number') return mix32((Math.imul(parent, 31) + seedOf(value)) | 0);
  if (typeof value === 'string') return hashString(value, parent);
  if (Buffer.isBuffer(value)) {
    let h = parent | 0;
    for (let i = 0; i < value.length; i++) h = (Math.imul(h, 31) + value[i]!) | 0;
    return mix32(h);
  }
  let h = parent;
  for (const v of value) h = childSeed(h, v);
  return mix32(h ^ value.length);
}

/** A string key that is equal for equal values: clustering values are unique within their parent. */
export function valueKey(value: Canonical): string {
  if (typeof value === 'number') return `n${value}`;
  if (typeof value === 'string') return `s${value}`;
  if (Buffer.isBuffer(value)) return `b${value.toString('hex')}`;
  return `[${value.map(valueKey).join(',')}]`;
}

const wrapSigned = (v: number, bits: number): number => {
  const range = 2 ** bits;
  let r = v % range;
  if (r < 0) r += range;
  return r >= range / 2 ? r - range : r;
};

function int64Bytes(v: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt.asIntN(64, BigInt(Math.trunc(v))));
  return b;
}

/** What makes one CQL type's values out of an identity. */
interface ValueKind {
  /** The default population, when the columnspec gives none. */
  population?: string;
  /** Whether the size distribution is used (text, blob, collections). */
  sized?: boolean;
  make(g: ColumnGenerator): Canonical;
  toDriver(v: Canonical): unknown;
}

const PRINTABLE_FIRST = 33; // '!'
const PRINTABLE_COUNT = 94; // '!'..'~'

function bytesOf(g: ColumnGenerator, printable: boolean): Buffer {
  const identity = g.identity.next();
  g.size.setSeed(identity);
  g.bytes.setSeed(~seedOf(identity));
  const size = Math.max(0, g.size.next());
  const out = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; ) {
    let v = g.bytes.nextUint32();
    for (let n = Math.min(4, size - i); n > 0; n--, v >>>= 8) {
      out[i++] = printable ? PRINTABLE_FIRST + ((v & 0xff) % PRINTABLE_COUNT) : v & 0xff;
    }
  }
  return out;
}

const asNumber = (v: Canonical) => v as number;

function scalarKind(code: number, name: string): ValueKind {
  switch (code) {
    case T.ascii:
    case T.text:
    case T.varchar:
      return { sized: true, make: (g) => bytesOf(g, true).toString('latin1'), toDriver: (v) => v };
    case T.blob:
      return { sized: true, make: (g) => bytesOf(g, false), toDriver: (v) => v };
    case T.bigint:
    case T.counter:
      return { make: (g) => g.identity.next(), toDriver: (v) => Long.fromNumber(asNumber(v)) };
    case T.int:
      return { make: (g) => wrapSigned(g.identity.next(), 32), toDriver: (v) => v };
    case T.smallint:
      return { make: (g) => wrapSigned(g.identity.next(), 16), toDriver: (v) => v };
    case T.tinyint:
      return { make: (g) => wrapSigned(g.identity.next(), 8), toDriver: (v) => v };
    case T.varint:
    case T.decimal:
      return { make: (g) => g.identity.next(), toDriver: (v) => v };
    case T.boolean:
      return { make: (g) => (g.identity.next() % 2 === 0 ? 1 : 0), toDriver: (v) => v === 1 };
    case T.double:
      return { make: (g) => g.identity.nextDouble(), toDriver: (v) => v };
    case T.float:
      return { make: (g) => Math.fround(g.identity.nextDouble()), toDriver: (v) => v };
    case T.timestamp:
      return {
        population: DEFAULT_TIMESTAMP_POPULATION,
        make: (g) => g.identity.next(),
        toDriver: (v) => new Date(asNumber(v)),
      };
    case T.date:
      // Days since the epoch, any int as cassandra-stress (the driver takes days beyond JavaScript's Date range).
      return {
        make: (g) => wrapSigned(g.identity.next(), 32),
        toDriver: (v) => new (LocalDate as unknown as new (days: number) => unknown)(asNumber(v)),
      };
    case T.time:
      return {
        make: (g) => g.identity.next() % NANOS_PER_DAY,
        toDriver: (v) => new LocalTime(Long.fromNumber(asNumber(v))),
      };
    case T.uuid:
      return {
        make: (g) => g.identity.next(),
        toDriver: (v) => new Uuid(Buffer.concat([int64Bytes(asNumber(v)), int64Bytes(asNumber(v))])),
      };
    case T.timeuuid:
      return {
        population: DEFAULT_TIMESTAMP_POPULATION,
        make: (g) => g.identity.next(),
        toDriver: (v) => timeUuid(asNumber(v), 0),
      };
    case T.inet:
      return {
        make: (g) => wrapSigned(g.identity.next(), 32),
        toDriver: (v) => {
          const b = Buffer.alloc(4);
          b.writeInt32BE(asNumber(v));
          return new InetAddress(b);
        },
      };
    default:
      throw new StressArgError(
        `column ${name}: cassandra-stress generates no values of this type (code ${code}); ` +
          'text, ascii, varchar, blob, int, bigint, varint, decimal, float, double, boolean, uuid, timeuuid, ' +
          'timestamp, date, time, inet, smallint, tinyint, counter and list, set, map of them are supported',
      );
  }
}

/** A version-1 UUID at a millisecond, with clock sequence and node bits from the column's salt. */
function timeUuid(millis: number, salt: number): cassandra.types.TimeUuid {
  const ticks = BigInt(Math.trunc(millis)) * 10_000n + UUID_EPOCH_OFFSET;
  const b = Buffer.alloc(16);
  b.writeUInt32BE(Number(ticks & 0xffffffffn), 0);
  b.writeUInt16BE(Number((ticks >> 32n) & 0xffffn), 4);
  b.writeUInt16BE(Number((ticks >> 48n) & 0x0fffn) | 0x1000, 6);
  b.writeUInt32BE(mix32(salt) >>> 0, 8);
  b.writeUInt32BE(mix32(salt ^ 0x27d4eb2f) >>> 0, 12);
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  return new TimeUuid(b);
}

export class ColumnGenerator {
  readonly identity: Distribution;
  readonly size: Distribution;
  /** How many distinct values this (clustering) column takes under each parent. */
  readonly clustering: Distribution;
  readonly bytes = new SeededRandom(0);
  readonly salt: number;
  private readonly kind: ValueKind;
  private readonly elements: ColumnGenerator[] = [];
  private readonly collection: 'list' | 'set' | 'map' | undefined;

  constructor(
    readonly name: string,
    readonly type: ColumnType,
    spec: ColumnSpec = {},
  ) {
    this.salt = hashString(`seed for stress${name}`);
    const code = type.code;
    if (code === T.list || code === T.set || code === T.map) {
      this.collection = code === T.list ? 'list' : code === T.set ? 'set' : 'map';
      const infos = (code === T.map ? type.info : [type.info]) as ColumnType[];
      // The elements share the column's population; the count comes from its size distribution.
      for (const info of infos) this.elements.push(new ColumnGenerator(name, info, { population: spec.population }));
      this.kind = { sized: true, make: () => this.makeCollection(), toDriver: (v) => this.collectionToDriver(v) };
    } else {
      this.kind = scalarKind(code, name);
      if (code === T.timeuuid) {
        const salt = this.salt;
        this.kind = { ...this.kind, toDriver: (v) => timeUuid(asNumber(v), salt) };
      }
    }
    this.identity = distributionFactory(spec.population ?? this.kind.population ?? DEFAULT_POPULATION)(
      new SeededRandom(0),
    );
    this.size = distributionFactory(spec.size ?? DEFAULT_SIZE)(new SeededRandom(0));
    this.clustering = distributionFactory(spec.cluster ?? DEFAULT_CLUSTER)(new SeededRandom(0));
    if (this.size.min < 0) throw new StressArgError(`column ${name}: size must not be negative`);
  }

  setSeed(seed: number): void {
    this.identity.setSeed(seed ^ this.salt);
    this.clustering.setSeed(seed ^ ~this.salt);
    if (this.collection) {
      this.size.setSeed(seed ^ 0x68e31da4);
      this.elements[0]!.setSeed(Math.imul(seed, 31));
      this.elements[1]?.setSeed(Math.imul(seed, 37));
    }
  }

  generate(): Canonical {
    return this.kind.make(this);
  }

  /** The value as the driver binds it. */
  toDriver(value: Canonical): unknown {
    return this.kind.toDriver(value);
  }

  private makeCollection(): Canonical {
    const count = Math.max(0, this.size.next());
    const out: Canonical[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) {
      const element = this.elements[0]!.generate();
      if (this.collection === 'list') out.push(element);
      else if (!seen.has(valueKey(element))) {
        seen.add(valueKey(element));
        out.push(this.collection === 'map' ? [element, this.elements[1]!.generate()] : element);
      }
    }
    return out;
  }

  private collectionToDriver(value: Canonical): unknown {
    const items = value as Canonical[];
    if (this.collection === 'map') {
      const [k, v] = this.elements as [ColumnGenerator, ColumnGenerator];
      return new Map(
        items.map((pair) => [k.toDriver((pair as Canonical[])[0]!), v.toDriver((pair as Canonical[])[1]!)]),
      );
    }
    const element = this.elements[0]!;
    return items.map((v) => element.toDriver(v));
  }
}
