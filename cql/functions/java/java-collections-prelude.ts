// Sandbox prelude: java.util collections (global `$ju`). HashMap keeps Java's bucket table (hash spreading, power-of-two
// capacity, 0.75 load factor, order-preserving resize), so a HashMap or HashSet iterates, prints and serializes in the
// order Java's does; LinkedHashMap keeps insertion order and TreeMap natural order. Iterators detect concurrent
// modification as Java's do. Self-contained: shipped as `(${javaCollectionsPrelude})(globalThis)`.

export function javaCollectionsPrelude(g: Record<string, unknown>): void {
  // biome-ignore lint/suspicious/noExplicitAny: the java.lang prelude's helpers
  const jl = g.$jl as any;
  const fail = jl.fail as (name: string, message?: string | null) => never;
  const oeq = jl.oeq as (a: unknown, b: unknown) => boolean;
  const ohash = jl.ohash as (o: unknown) => number;
  const str = jl.str as (o: unknown) => string;
  const cmp = jl.cmp as (a: unknown, b: unknown) => number;
  const npe = jl.npe as () => never;

  type Cmp = (a: unknown, b: unknown) => number;

  interface JavaIterator {
    hasNext(): boolean;
    next(): unknown;
    remove(): void;
  }
  interface JavaCollection {
    size(): number;
    toArray(): unknown[];
    contains(o: unknown): boolean;
    iterator(): JavaIterator;
  }

  const noSuchElement = (): never => fail('NoSuchElementException');
  const unsupported = (): never => fail('UnsupportedOperationException');
  const concurrent = (): never => fail('ConcurrentModificationException');
  const elementsOf = (c: JavaCollection | null): unknown[] => (c === null ? npe() : c.toArray());

  const collectionText = (self: unknown, items: readonly unknown[]): string =>
    `[${items.map((x) => (x === self ? '(this Collection)' : str(x))).join(', ')}]`;

  // ---- Comparators (no lambdas in UDFs: only natural and reverse order) ----

  class Comparator {
    constructor(readonly compare: Cmp) {}
    get $cls(): string {
      return 'java.util.Comparator';
    }
    reversed(): Comparator {
      const c = this.compare;
      return new Comparator((a, b) => c(b, a));
    }
    equals(o: unknown): boolean {
      return this === o;
    }
    hashCode(): number {
      return 0;
    }
    toString(): string {
      return 'java.util.Comparator';
    }
  }
  const naturalOrder = new Comparator(cmp);
  const reverseOrder = new Comparator((a, b) => cmp(b, a));
  const comparatorOf = (c: Comparator | null): Cmp => (c === null ? cmp : c.compare);

  /** A stable merge sort (Java sorts objects with a stable TimSort: same result). */
  const stableSort = (a: unknown[], c: Cmp): void => {
    if (a.length < 2) return;
    const tmp = a.slice();
    const merge = (lo: number, hi: number): void => {
      if (hi - lo < 2) return;
      const mid = (lo + hi) >>> 1;
      merge(lo, mid);
      merge(mid, hi);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) tmp[k++] = c(a[j], a[i]) < 0 ? a[j++] : a[i++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
      for (k = lo; k < hi; k++) a[k] = tmp[k];
    };
    merge(0, a.length);
  };

  // ---- Lists ----

  /** 0: mutable; 1: fixed size (Arrays.asList: set allowed); 2: immutable. */
  type ListMode = 0 | 1 | 2;

  class ListIter implements JavaIterator {
    private cursor = 0;
    private last = -1;
    private expected: number;
    constructor(private readonly list: JList) {
      this.expected = list.mc;
    }
    hasNext(): boolean {
      return this.cursor !== this.list.a.length;
    }
    next(): unknown {
      if (this.list.mc !== this.expected) return concurrent();
      const i = this.cursor;
      if (i >= this.list.a.length) return noSuchElement();
      this.cursor = i + 1;
      this.last = i;
      return this.list.a[i];
    }
    remove(): void {
      if (this.last < 0) fail('IllegalStateException');
      if (this.list.mc !== this.expected) concurrent();
      this.list.removeAt(this.last);
      this.cursor = this.last;
      this.last = -1;
      this.expected = this.list.mc;
    }
  }

  class JList implements JavaCollection {
    mc = 0;
    constructor(
      public a: unknown[],
      readonly mode: ListMode,
      readonly cls: string,
    ) {}
    get $cls(): string {
      return this.cls;
    }
    private mutable(): void {
      if (this.mode !== 0) unsupported();
    }
    private index(i: number): number {
      return i >= 0 && i < this.a.length
        ? i
        : fail('IndexOutOfBoundsException', `Index ${i} out of bounds for length ${this.a.length}`);
    }
    size(): number {
      return this.a.length;
    }
    isEmpty(): boolean {
      return this.a.length === 0;
    }
    get(i: number): unknown {
      if (this.mode === 1 && (i < 0 || i >= this.a.length))
        fail('ArrayIndexOutOfBoundsException', `Index ${i} out of bounds for length ${this.a.length}`);
      return this.a[this.index(i)];
    }
    set(i: number, x: unknown): unknown {
      if (this.mode === 2) unsupported();
      const k = this.index(i);
      const old = this.a[k];
      this.a[k] = x;
      return old;
    }
    add(x: unknown): boolean {
      this.mutable();
      this.a.push(x);
      this.mc++;
      return true;
    }
    addAt(i: number, x: unknown): void {
      this.mutable();
      if (i < 0 || i > this.a.length) fail('IndexOutOfBoundsException', `Index: ${i}, Size: ${this.a.length}`);
      this.a.splice(i, 0, x);
      this.mc++;
    }
    addAll(c: JavaCollection): boolean {
      const items = elementsOf(c);
      this.mutable();
      for (const x of items) this.a.push(x);
      this.mc++;
      return items.length > 0;
    }
    addAllAt(i: number, c: JavaCollection): boolean {
      const items = elementsOf(c);
      this.mutable();
      if (i < 0 || i > this.a.length) fail('IndexOutOfBoundsException', `Index: ${i}, Size: ${this.a.length}`);
      this.a.splice(i, 0, ...items);
      this.mc++;
      return items.length > 0;
    }
    removeAt(i: number): unknown {
      this.mutable();
      const k = this.index(i);
      const old = this.a[k];
      this.a.splice(k, 1);
      this.mc++;
      return old;
    }
    remove(o: unknown): boolean {
      const i = this.indexOf(o);
      if (i < 0) return false;
      this.removeAt(i);
      return true;
    }
    removeAll(c: JavaCollection): boolean {
      nullCheck(c);
      this.mutable();
      const before = this.a.length;
      this.a = this.a.filter((x) => !c.contains(x));
      this.mc++;
      return this.a.length !== before;
    }
    retainAll(c: JavaCollection): boolean {
      nullCheck(c);
      this.mutable();
      const before = this.a.length;
      this.a = this.a.filter((x) => c.contains(x));
      this.mc++;
      return this.a.length !== before;
    }
    clear(): void {
      this.mutable();
      this.a.length = 0;
      this.mc++;
    }
    indexOf(o: unknown): number {
      for (let i = 0; i < this.a.length; i++) if (oeq(o, this.a[i])) return i;
      return -1;
    }
    lastIndexOf(o: unknown): number {
      for (let i = this.a.length - 1; i >= 0; i--) if (oeq(o, this.a[i])) return i;
      return -1;
    }
    contains(o: unknown): boolean {
      return this.indexOf(o) >= 0;
    }
    containsAll(c: JavaCollection): boolean {
      return elementsOf(c).every((x) => this.contains(x));
    }
    iterator(): JavaIterator {
      return new ListIter(this);
    }
    subList(from: number, to: number): JList {
      if (from < 0) fail('IndexOutOfBoundsException', `fromIndex = ${from}`);
      if (to > this.a.length) fail('IndexOutOfBoundsException', `toIndex = ${to}`);
      if (from > to) fail('IllegalArgumentException', `fromIndex(${from}) > toIndex(${to})`);
      return new JList(this.a.slice(from, to), this.mode, 'java.util.ArrayList$SubList');
    }
    sort(c: Comparator | null): void {
      if (this.mode === 2) unsupported();
      stableSort(this.a, comparatorOf(c));
      this.mc++;
    }
    toArray(): unknown[] {
      return this.a.slice();
    }
    // LinkedList / Deque
    addFirst(x: unknown): void {
      this.addAt(0, x);
    }
    addLast(x: unknown): void {
      this.add(x);
    }
    getFirst(): unknown {
      return this.a.length === 0 ? noSuchElement() : this.a[0];
    }
    getLast(): unknown {
      return this.a.length === 0 ? noSuchElement() : this.a[this.a.length - 1];
    }
    removeFirst(): unknown {
      return this.a.length === 0 ? noSuchElement() : this.removeAt(0);
    }
    removeLast(): unknown {
      return this.a.length === 0 ? noSuchElement() : this.removeAt(this.a.length - 1);
    }
    peek(): unknown {
      return this.a.length === 0 ? null : this.a[0];
    }
    peekLast(): unknown {
      return this.a.length === 0 ? null : this.a[this.a.length - 1];
    }
    poll(): unknown {
      return this.a.length === 0 ? null : this.removeAt(0);
    }
    pollLast(): unknown {
      return this.a.length === 0 ? null : this.removeAt(this.a.length - 1);
    }
    equals(o: unknown): boolean {
      if (o === this) return true;
      if (!(o instanceof JList)) return false;
      if (o.a.length !== this.a.length) return false;
      for (let i = 0; i < this.a.length; i++) if (!oeq(this.a[i], o.a[i])) return false;
      return true;
    }
    hashCode(): number {
      let h = 1;
      for (const x of this.a) h = (Math.imul(31, h) + ohash(x)) | 0;
      return h;
    }
    toString(): string {
      return collectionText(this, this.a);
    }
  }
  const nullCheck = (x: unknown): void => {
    if (x === null || x === undefined) npe();
  };

  // ---- Maps ----

  class Entry {
    constructor(
      readonly hash: number,
      readonly key: unknown,
      public value: unknown,
      readonly owner: JMap | null,
    ) {}
    get $cls(): string {
      return 'java.util.HashMap$Node';
    }
    getKey(): unknown {
      return this.key;
    }
    getValue(): unknown {
      return this.value;
    }
    setValue(v: unknown): unknown {
      if (this.owner?.readOnly) unsupported();
      const old = this.value;
      this.value = v;
      return old;
    }
    equals(o: unknown): boolean {
      return o instanceof Entry && oeq(this.key, o.key) && oeq(this.value, o.value);
    }
    hashCode(): number {
      return ohash(this.key) ^ ohash(this.value);
    }
    toString(): string {
      return `${str(this.key)}=${str(this.value)}`;
    }
  }

  const spread = (key: unknown): number => {
    if (key === null) return 0;
    const h = ohash(key);
    return h ^ (h >>> 16);
  };
  const tableSizeFor = (c: number): number => {
    let n = 1;
    while (n < c) n *= 2;
    return Math.max(1, Math.min(n, 1 << 30));
  };

  /** HashMap (kind 0), LinkedHashMap (1) or TreeMap (2). */
  class JMap {
    mc = 0;
    n = 0;
    table: Entry[][] | null = null;
    cap: number;
    /** LinkedHashMap: iteration order. */
    order: Set<Entry> | null;
    /** TreeMap: entries sorted by key. */
    sorted: Entry[] | null;
    readOnly = false;
    constructor(
      readonly kind: 0 | 1 | 2,
      initialCapacity: number,
      readonly comparator: Cmp = cmp,
    ) {
      if (initialCapacity < 0) fail('IllegalArgumentException', `Illegal initial capacity: ${initialCapacity}`);
      this.cap = tableSizeFor(initialCapacity);
      this.order = kind === 1 ? new Set() : null;
      this.sorted = kind === 2 ? [] : null;
    }
    get $cls(): string {
      return this.kind === 0 ? 'java.util.HashMap' : this.kind === 1 ? 'java.util.LinkedHashMap' : 'java.util.TreeMap';
    }
    private writable(): void {
      if (this.readOnly) unsupported();
    }
    /** TreeMap: index of key, or -(insertion point) - 1. */
    private search(key: unknown): number {
      const s = this.sorted!;
      if (key === null) npe();
      let lo = 0;
      let hi = s.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const c = this.comparator(s[mid]!.key, key);
        if (c < 0) lo = mid + 1;
        else if (c > 0) hi = mid - 1;
        else return mid;
      }
      return -(lo + 1);
    }
    findEntry(key: unknown): Entry | null {
      if (this.sorted !== null) {
        const i = this.search(key);
        return i >= 0 ? this.sorted[i]! : null;
      }
      if (this.table === null) return null;
      const h = spread(key);
      const bucket = this.table[h & (this.table.length - 1)]!;
      for (const e of bucket) if (e.hash === h && (e.key === key || (key !== null && oeq(key, e.key)))) return e;
      return null;
    }
    private resize(): void {
      const old = this.table;
      const newCap = old === null ? this.cap : old.length * 2;
      const t: Entry[][] = new Array(newCap);
      for (let i = 0; i < newCap; i++) t[i] = [];
      if (old !== null) for (const bucket of old) for (const e of bucket) t[e.hash & (newCap - 1)]!.push(e);
      this.table = t;
      this.cap = newCap;
    }
    size(): number {
      return this.n;
    }
    isEmpty(): boolean {
      return this.n === 0;
    }
    get(key: unknown): unknown {
      const e = this.findEntry(key);
      return e === null ? null : e.value;
    }
    getOrDefault(key: unknown, dflt: unknown): unknown {
      const e = this.findEntry(key);
      return e === null ? dflt : e.value;
    }
    containsKey(key: unknown): boolean {
      return this.findEntry(key) !== null;
    }
    containsValue(v: unknown): boolean {
      return this.entries().some((e) => oeq(v, e.value));
    }
    put(key: unknown, value: unknown): unknown {
      this.writable();
      if (this.sorted !== null) {
        if (this.sorted.length === 0) this.comparator(key, key); // type (and null) check, as TreeMap does
        const i = this.search(key);
        if (i >= 0) {
          const e = this.sorted[i]!;
          const old = e.value;
          e.value = value;
          return old;
        }
        this.sorted.splice(-i - 1, 0, new Entry(0, key, value, this));
        this.n++;
        this.mc++;
        return null;
      }
      const existing = this.findEntry(key);
      if (existing !== null) {
        const old = existing.value;
        existing.value = value;
        return old;
      }
      if (this.table === null) this.resize();
      const h = spread(key);
      const e = new Entry(h, key, value, this);
      this.table![h & (this.table!.length - 1)]!.push(e);
      this.order?.add(e);
      this.mc++;
      if (++this.n > this.cap * 0.75) this.resize();
      return null;
    }
    putIfAbsent(key: unknown, value: unknown): unknown {
      const e = this.findEntry(key);
      if (e !== null && e.value !== null) return e.value;
      if (e !== null) {
        e.value = value;
        return null;
      }
      return this.put(key, value);
    }
    putAll(m: JMap): void {
      if (m === null) npe();
      for (const e of m.entries()) this.put(e.key, e.value);
    }
    remove(key: unknown): unknown {
      this.writable();
      const e = this.findEntry(key);
      if (e === null) return null;
      this.removeEntry(e);
      return e.value;
    }
    removeEntry(e: Entry): void {
      if (this.sorted !== null) this.sorted.splice(this.sorted.indexOf(e), 1);
      else {
        const bucket = this.table![e.hash & (this.table!.length - 1)]!;
        bucket.splice(bucket.indexOf(e), 1);
        this.order?.delete(e);
      }
      this.n--;
      this.mc++;
    }
    clear(): void {
      this.writable();
      if (this.table !== null) for (const b of this.table) b.length = 0;
      this.order?.clear();
      if (this.sorted !== null) this.sorted.length = 0;
      this.n = 0;
      this.mc++;
    }
    /** The entries in iteration order. */
    entries(): Entry[] {
      if (this.sorted !== null) return this.sorted.slice();
      if (this.order !== null) return [...this.order];
      const out: Entry[] = [];
      if (this.table !== null) for (const b of this.table) for (const e of b) out.push(e);
      return out;
    }
    keySet(): MapView {
      return new MapView(this, 0);
    }
    values(): MapView {
      return new MapView(this, 1);
    }
    entrySet(): MapView {
      return new MapView(this, 2);
    }
    // TreeMap navigation
    private edge(first: boolean): Entry | null {
      const s = this.sorted!;
      return s.length === 0 ? null : first ? s[0]! : s[s.length - 1]!;
    }
    firstKey(): unknown {
      const e = this.edge(true);
      return e === null ? noSuchElement() : e.key;
    }
    lastKey(): unknown {
      const e = this.edge(false);
      return e === null ? noSuchElement() : e.key;
    }
    firstEntry(): Entry | null {
      return this.edge(true);
    }
    lastEntry(): Entry | null {
      return this.edge(false);
    }
    pollFirstEntry(): Entry | null {
      const e = this.edge(true);
      if (e !== null) this.removeEntry(e);
      return e;
    }
    pollLastEntry(): Entry | null {
      const e = this.edge(false);
      if (e !== null) this.removeEntry(e);
      return e;
    }
    /** The entry nearest `key`: floor (<=), ceiling (>=), lower (<), higher (>). */
    near(key: unknown, which: 'floor' | 'ceiling' | 'lower' | 'higher'): Entry | null {
      const s = this.sorted!;
      const i = this.search(key);
      const ins = i >= 0 ? i : -i - 1;
      let k: number;
      if (which === 'floor') k = i >= 0 ? i : ins - 1;
      else if (which === 'ceiling') k = i >= 0 ? i : ins;
      else if (which === 'lower') k = ins - 1;
      else k = i >= 0 ? i + 1 : ins;
      return k >= 0 && k < s.length ? s[k]! : null;
    }
    nearKey(key: unknown, which: 'floor' | 'ceiling' | 'lower' | 'higher'): unknown {
      const e = this.near(key, which);
      return e === null ? null : e.key;
    }
    /** headMap / tailMap / subMap as copies (Java returns views). */
    range(from: unknown, fromInclusive: boolean, to: unknown, toInclusive: boolean): JMap {
      const out = new JMap(2, 16, this.comparator);
      for (const e of this.sorted!) {
        if (from !== undefined) {
          const c = this.comparator(e.key, from);
          if (c < 0 || (c === 0 && !fromInclusive)) continue;
        }
        if (to !== undefined) {
          const c = this.comparator(e.key, to);
          if (c > 0 || (c === 0 && !toInclusive)) continue;
        }
        out.put(e.key, e.value);
      }
      return out;
    }
    descendingMap(): JMap {
      const c = this.comparator;
      const out = new JMap(2, 16, (a, b) => c(b, a));
      for (const e of this.sorted!) out.put(e.key, e.value);
      return out;
    }
    equals(o: unknown): boolean {
      if (o === this) return true;
      if (!(o instanceof JMap) || o.n !== this.n) return false;
      for (const e of this.entries()) {
        const other = o.findEntry(e.key);
        if (other === null || !oeq(e.value, other.value)) return false;
      }
      return true;
    }
    hashCode(): number {
      let h = 0;
      for (const e of this.entries()) h = (h + e.hashCode()) | 0;
      return h;
    }
    toString(): string {
      const parts = this.entries().map(
        (e) => `${e.key === this ? '(this Map)' : str(e.key)}=${e.value === this ? '(this Map)' : str(e.value)}`,
      );
      return `{${parts.join(', ')}}`;
    }
  }

  class MapIter implements JavaIterator {
    private readonly items: Entry[];
    private i = 0;
    private expected: number;
    private last: Entry | null = null;
    constructor(
      private readonly map: JMap,
      private readonly part: 0 | 1 | 2,
    ) {
      this.items = map.entries();
      this.expected = map.mc;
    }
    hasNext(): boolean {
      return this.i < this.items.length;
    }
    next(): unknown {
      if (this.map.mc !== this.expected) return concurrent();
      if (this.i >= this.items.length) return noSuchElement();
      const e = this.items[this.i++]!;
      this.last = e;
      return this.part === 0 ? e.key : this.part === 1 ? e.value : e;
    }
    remove(): void {
      if (this.last === null) fail('IllegalStateException');
      if (this.map.mc !== this.expected) concurrent();
      if (this.map.readOnly) unsupported();
      this.map.removeEntry(this.last!);
      this.last = null;
      this.expected = this.map.mc;
    }
  }

  /** keySet() (0), values() (1), entrySet() (2): live views of a map. */
  class MapView implements JavaCollection {
    constructor(
      readonly map: JMap,
      readonly part: 0 | 1 | 2,
    ) {}
    get $cls(): string {
      return this.part === 0
        ? 'java.util.HashMap$KeySet'
        : this.part === 1
          ? 'java.util.HashMap$Values'
          : 'java.util.HashMap$EntrySet';
    }
    size(): number {
      return this.map.n;
    }
    isEmpty(): boolean {
      return this.map.n === 0;
    }
    toArray(): unknown[] {
      const es = this.map.entries();
      return this.part === 0 ? es.map((e) => e.key) : this.part === 1 ? es.map((e) => e.value) : es;
    }
    contains(o: unknown): boolean {
      if (this.part === 0) return this.map.containsKey(o);
      if (this.part === 1) return this.map.containsValue(o);
      if (!(o instanceof Entry)) return false;
      const e = this.map.findEntry(o.key);
      return e !== null && oeq(e.value, o.value);
    }
    containsAll(c: JavaCollection): boolean {
      return elementsOf(c).every((x) => this.contains(x));
    }
    iterator(): JavaIterator {
      return new MapIter(this.map, this.part);
    }
    remove(o: unknown): boolean {
      if (this.map.readOnly) unsupported();
      if (this.part === 0) {
        const had = this.map.containsKey(o);
        this.map.remove(o);
        return had;
      }
      for (const e of this.map.entries()) {
        if (this.part === 1 ? oeq(o, e.value) : o instanceof Entry && oeq(o.key, e.key) && oeq(o.value, e.value)) {
          this.map.removeEntry(e);
          return true;
        }
      }
      return false;
    }
    removeAll(c: JavaCollection): boolean {
      let changed = false;
      for (const x of elementsOf(c)) while (this.remove(x)) changed = true;
      return changed;
    }
    retainAll(c: JavaCollection): boolean {
      nullCheck(c);
      let changed = false;
      for (const x of this.toArray()) if (!c.contains(x)) changed = this.remove(x) || changed;
      return changed;
    }
    clear(): void {
      this.map.clear();
    }
    add(): boolean {
      return unsupported();
    }
    addAll(): boolean {
      return unsupported();
    }
    equals(o: unknown): boolean {
      if (this.part === 1) return o === this;
      return setEquals(this, o);
    }
    hashCode(): number {
      let h = 0;
      for (const x of this.toArray()) h = (h + ohash(x)) | 0;
      return h;
    }
    toString(): string {
      return collectionText(this, this.toArray());
    }
  }

  // ---- Sets: a map's keys, as Java's HashSet/LinkedHashSet/TreeSet are ----

  class JSet implements JavaCollection {
    readonly m: JMap;
    readOnly = false;
    constructor(kind: 0 | 1 | 2, capacity: number, comparator?: Cmp) {
      this.m = new JMap(kind, capacity, comparator);
    }
    get $cls(): string {
      return this.m.kind === 0
        ? 'java.util.HashSet'
        : this.m.kind === 1
          ? 'java.util.LinkedHashSet'
          : 'java.util.TreeSet';
    }
    private writable(): void {
      if (this.readOnly) unsupported();
    }
    size(): number {
      return this.m.n;
    }
    isEmpty(): boolean {
      return this.m.n === 0;
    }
    add(x: unknown): boolean {
      this.writable();
      if (this.m.containsKey(x)) return false;
      this.m.put(x, true);
      return true;
    }
    addAll(c: JavaCollection): boolean {
      let changed = false;
      for (const x of elementsOf(c)) changed = this.add(x) || changed;
      return changed;
    }
    contains(o: unknown): boolean {
      return this.m.containsKey(o);
    }
    containsAll(c: JavaCollection): boolean {
      return elementsOf(c).every((x) => this.contains(x));
    }
    remove(o: unknown): boolean {
      this.writable();
      const e = this.m.findEntry(o);
      if (e === null) return false;
      this.m.removeEntry(e);
      return true;
    }
    removeAll(c: JavaCollection): boolean {
      let changed = false;
      for (const x of elementsOf(c)) changed = this.remove(x) || changed;
      return changed;
    }
    retainAll(c: JavaCollection): boolean {
      nullCheck(c);
      let changed = false;
      for (const x of this.toArray()) if (!c.contains(x)) changed = this.remove(x) || changed;
      return changed;
    }
    clear(): void {
      this.writable();
      this.m.clear();
    }
    iterator(): JavaIterator {
      const it = new MapIter(this.m, 0);
      if (!this.readOnly) return it;
      return { hasNext: () => it.hasNext(), next: () => it.next(), remove: unsupported };
    }
    toArray(): unknown[] {
      return this.m.entries().map((e) => e.key);
    }
    first(): unknown {
      return this.m.firstKey();
    }
    last(): unknown {
      return this.m.lastKey();
    }
    pollFirst(): unknown {
      const e = this.m.pollFirstEntry();
      return e === null ? null : e.key;
    }
    pollLast(): unknown {
      const e = this.m.pollLastEntry();
      return e === null ? null : e.key;
    }
    nearKey(key: unknown, which: 'floor' | 'ceiling' | 'lower' | 'higher'): unknown {
      return this.m.nearKey(key, which);
    }
    range(from: unknown, fromInclusive: boolean, to: unknown, toInclusive: boolean): JSet {
      const out = new JSet(2, 16, this.m.comparator);
      for (const e of this.m.range(from, fromInclusive, to, toInclusive).entries()) out.add(e.key);
      return out;
    }
    descendingSet(): JSet {
      const c = this.m.comparator;
      const out = new JSet(2, 16, (a, b) => c(b, a));
      out.addAll(this);
      return out;
    }
    equals(o: unknown): boolean {
      return setEquals(this, o);
    }
    hashCode(): number {
      let h = 0;
      for (const x of this.toArray()) h = (h + ohash(x)) | 0;
      return h;
    }
    toString(): string {
      return collectionText(this, this.toArray());
    }
  }

  const isSet = (o: unknown): o is JavaCollection => o instanceof JSet || (o instanceof MapView && o.part !== 1);
  const setEquals = (a: JavaCollection, o: unknown): boolean => {
    if (a === o) return true;
    if (!isSet(o) || o.size() !== a.size()) return false;
    return o.toArray().every((x) => a.contains(x));
  };

  // ---- constructors and java.util statics ----

  const arrayList = (items?: unknown[]): JList => new JList(items ?? [], 0, 'java.util.ArrayList');
  const linkedList = (items?: unknown[]): JList => new JList(items ?? [], 0, 'java.util.LinkedList');
  const fromCollection = (c: JavaCollection): unknown[] => elementsOf(c);
  const capacityFor = (n: number): number => Math.max(Math.trunc(n / 0.75) + 1, 16);

  const hashSet = (kind: 0 | 1 | 2, capacity = 16, items?: unknown[], comparator?: Cmp): JSet => {
    const s = new JSet(kind, capacity, comparator);
    if (items !== undefined) for (const x of items) s.add(x);
    return s;
  };
  const hashMap = (kind: 0 | 1 | 2, capacity = 16, from?: JMap | null, comparator?: Cmp): JMap => {
    if (from === null) return npe();
    const m = new JMap(kind, from === undefined ? capacity : capacityFor(from.n), comparator ?? from?.comparator);
    if (from !== undefined) m.putAll(from);
    return m;
  };
  const readOnlySet = (items: unknown[]): JSet => {
    const s = hashSet(1, 16, items);
    s.readOnly = true;
    s.m.readOnly = true;
    return s;
  };
  const readOnlyMap = (entries: [unknown, unknown][]): JMap => {
    const m = new JMap(1, 16);
    for (const [k, v] of entries) m.put(k, v);
    m.readOnly = true;
    return m;
  };
  const listOf = (items: unknown[]): JList => {
    for (const x of items) nullCheck(x);
    return new JList(items, 2, 'java.util.ImmutableCollections$ListN');
  };
  const setOf = (items: unknown[]): JSet => {
    for (const x of items) nullCheck(x);
    const s = readOnlySet([]);
    s.readOnly = false;
    s.m.readOnly = false;
    for (const x of items) if (!s.add(x)) fail('IllegalArgumentException', `duplicate element: ${str(x)}`);
    s.readOnly = true;
    s.m.readOnly = true;
    return s;
  };
  const mapOf = (kv: unknown[]): JMap => {
    const m = new JMap(1, 16);
    for (let i = 0; i < kv.length; i += 2) {
      nullCheck(kv[i]);
      nullCheck(kv[i + 1]);
      if (m.containsKey(kv[i])) fail('IllegalArgumentException', `duplicate key: ${str(kv[i])}`);
      m.put(kv[i], kv[i + 1]);
    }
    m.readOnly = true;
    return m;
  };

  const unmodifiable = (c: unknown): unknown => {
    if (c === null) return npe();
    if (c instanceof JList) return new JList(c.a, 2, 'java.util.Collections$UnmodifiableRandomAccessList');
    if (c instanceof JMap) {
      const m = Object.create(c) as JMap;
      m.readOnly = true;
      return m;
    }
    if (c instanceof JSet) {
      const s = Object.create(c) as JSet;
      s.readOnly = true;
      return s;
    }
    return c;
  };

  const extreme = (c: JavaCollection, comparator: Comparator | null, sign: 1 | -1): unknown => {
    const items = elementsOf(c);
    if (items.length === 0) return noSuchElement();
    const compare = comparatorOf(comparator);
    let best = items[0];
    for (let i = 1; i < items.length; i++) if (sign * compare(items[i], best) > 0) best = items[i];
    return best;
  };

  const Collections = {
    sort: (l: JList, c: Comparator | null = null): void => nn(l).sort(c),
    reverse: (l: JList): void => {
      nn(l).a.reverse();
      l.mc++;
    },
    max: (c: JavaCollection, comparator: Comparator | null = null): unknown => extreme(c, comparator, 1),
    min: (c: JavaCollection, comparator: Comparator | null = null): unknown => extreme(c, comparator, -1),
    frequency: (c: JavaCollection, o: unknown): number => elementsOf(c).filter((x) => oeq(o, x)).length,
    swap: (l: JList, i: number, j: number): void => {
      const a = nn(l).a;
      if (i < 0 || i >= a.length || j < 0 || j >= a.length)
        fail(
          'IndexOutOfBoundsException',
          `Index ${i < 0 || i >= a.length ? i : j} out of bounds for length ${a.length}`,
        );
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    },
    nCopies: (n: number, x: unknown): JList => {
      if (n < 0) fail('IllegalArgumentException', `List length = ${n}`);
      return new JList(new Array(n).fill(x), 2, 'java.util.Collections$CopiesList');
    },
    emptyList: (): JList => new JList([], 2, 'java.util.Collections$EmptyList'),
    emptySet: (): JSet => readOnlySet([]),
    emptyMap: (): JMap => readOnlyMap([]),
    singletonList: (x: unknown): JList => new JList([x], 2, 'java.util.Collections$SingletonList'),
    singleton: (x: unknown): JSet => readOnlySet([x]),
    singletonMap: (k: unknown, v: unknown): JMap => readOnlyMap([[k, v]]),
    unmodifiable,
    addAll: (c: { add(x: unknown): boolean }, items: unknown[]): boolean => {
      let changed = false;
      for (const x of items) changed = nn(c).add(x) || changed;
      return changed;
    },
  };
  function nn<T>(x: T | null): T {
    return x === null ? npe() : x;
  }

  /** The Java iterator of any Iterable value (collections, map views). */
  const iter = (c: JavaCollection | null): JavaIterator => nn(c).iterator();

  g.$ju = {
    JList,
    JMap,
    JSet,
    MapView,
    Entry,
    Comparator,
    naturalOrder,
    reverseOrder,
    arrayList,
    linkedList,
    fromCollection,
    hashSet,
    hashMap,
    capacityFor,
    asList: (items: unknown[]): JList => new JList(items, 1, 'java.util.Arrays$ArrayList'),
    listOf,
    setOf,
    mapOf,
    Collections,
    iter,
    isSet,
    stableSort,
  };
}
