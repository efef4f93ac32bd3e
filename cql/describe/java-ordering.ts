// The orders in which Cassandra's Java collections hand out schema elements, reproduced so that
// DESCRIBE lists them exactly as Cassandra does.

function upper(c: string): string {
  const u = c.toUpperCase();
  return u.length === 1 ? u : c;
}

function lower(c: string): string {
  const l = c.toLowerCase();
  return l.length === 1 ? l : c;
}

/** String.compareToIgnoreCase (SchemaElement.NAME_COMPARATOR), per UTF-16 code unit. */
export function compareIgnoreCase(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let c1 = a[i]!;
    let c2 = b[i]!;
    if (c1 === c2) continue;
    c1 = upper(c1);
    c2 = upper(c2);
    if (c1 === c2) continue;
    c1 = lower(c1);
    c2 = lower(c2);
    if (c1 !== c2) return c1.charCodeAt(0) - c2.charCodeAt(0);
  }
  return a.length - b.length;
}

/** ByteBuffer.compareTo over UTF-8 names: bytes compared as signed values (Types keeps types in this order). */
export function compareSignedBytes(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = ((x[i]! << 24) >> 24) - ((y[i]! << 24) >> 24);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** String.hashCode. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** ByteBuffer.hashCode of a name's UTF-8 bytes (signed bytes, last to first). */
export function javaByteBufferHash(s: string): number {
  const b = Buffer.from(s, 'utf8');
  let h = 1;
  for (let i = b.length - 1; i >= 0; i--) h = (Math.imul(h, 31) + ((b[i]! << 24) >> 24)) | 0;
  return h;
}

function tableSizeFor(c: number): number {
  let n = 1;
  while (n < c) n *= 2;
  return n;
}

/** Table size of `new HashMap<>(m)` (or putAll into an empty one) for a map `m` of `size` entries. */
export function hashMapCapacityForCopy(size: number): number {
  return tableSizeFor(Math.trunc(Math.fround(size / 0.75) + 1));
}

/** Table size of a `new HashMap<>()` after `size` single puts. */
export function hashMapCapacityForPuts(size: number): number {
  let capacity = 16;
  while (size > capacity * 0.75) capacity *= 2;
  return capacity;
}

/**
 * Iteration order of a java.util.HashMap holding `keys` (given in insertion order): buckets in index
 * order, insertion order within a bucket (resizes keep it).
 */
export function javaHashMapOrder<T>(keys: readonly T[], hash: (key: T) => number, capacity: number): T[] {
  const bucket = (k: T) => {
    const h = hash(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((e) => e.k);
}
