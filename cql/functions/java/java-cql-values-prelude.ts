// Sandbox prelude: the Java classes of CQL values other than collections, tuples and UDTs (global `$jv`):
// java.util.UUID, java.util.Date, Cassandra's LocalDate and Duration, java.net.InetAddress, java.nio.ByteBuffer,
// java.math.BigInteger and java.math.BigDecimal, each with Java's equals, hashCode and toString.
// Self-contained: shipped as `(${javaCqlValuesPrelude})(globalThis)`.

export function javaCqlValuesPrelude(g: Record<string, unknown>): void {
  // biome-ignore lint/suspicious/noExplicitAny: the java.lang prelude's helpers
  const jl = g.$jl as any;
  const fail = jl.fail as (name: string, message?: string | null) => never;
  const nn = jl.nn as <T>(x: T | null) => T;
  const longHash = jl.longHash as (x: bigint) => number;
  const npe = jl.npe as () => never;

  const uN = jl.uN as (bits: number, x: bigint) => bigint;
  const hex = (v: bigint, digits: number): string =>
    uN(digits * 4, v)
      .toString(16)
      .padStart(digits, '0');

  // ---- UUID ----

  class JUUID {
    constructor(
      readonly hi: bigint,
      readonly lo: bigint,
    ) {}
    get $cls(): string {
      return 'java.util.UUID';
    }
    getMostSignificantBits(): bigint {
      return this.hi;
    }
    getLeastSignificantBits(): bigint {
      return this.lo;
    }
    version(): number {
      return Number((this.hi >> 12n) & 0xfn);
    }
    variant(): number {
      const lsb = uN(64, this.lo);
      return Number((lsb >> (64n - (lsb >> 62n))) & (lsb >> 63n));
    }
    timestamp(): bigint {
      if (this.version() !== 1) fail('UnsupportedOperationException', 'Not a time-based UUID');
      const h = uN(64, this.hi);
      return BigInt.asIntN(64, ((h & 0x0fffn) << 48n) | (((h >> 16n) & 0xffffn) << 32n) | (h >> 32n));
    }
    clockSequence(): number {
      if (this.version() !== 1) fail('UnsupportedOperationException', 'Not a time-based UUID');
      return Number((uN(64, this.lo) & 0x3fff000000000000n) >> 48n);
    }
    node(): bigint {
      if (this.version() !== 1) fail('UnsupportedOperationException', 'Not a time-based UUID');
      return uN(64, this.lo) & 0xffffffffffffn;
    }
    toString(): string {
      const h = hex(this.hi, 16);
      const l = hex(this.lo, 16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12)}-${l.slice(0, 4)}-${l.slice(4)}`;
    }
    equals(o: unknown): boolean {
      return o instanceof JUUID && o.hi === this.hi && o.lo === this.lo;
    }
    hashCode(): number {
      return longHash(this.hi ^ this.lo);
    }
    compareTo(o: JUUID): number {
      nn(o);
      if (this.hi !== o.hi) return this.hi < o.hi ? -1 : 1;
      if (this.lo !== o.lo) return this.lo < o.lo ? -1 : 1;
      return 0;
    }
  }
  /** UUID.fromString, as lenient as Java's (1-8, 1-4, 1-4, 1-4, 1-12 hex digits). */
  const uuidFromString = (s: string | null): JUUID => {
    if (s === null) return npe();
    const parts = s.split('-');
    const limits = [8, 4, 4, 4, 12];
    if (
      s.length > 36 ||
      parts.length !== 5 ||
      parts.some((p, i) => p.length === 0 || p.length > limits[i]! || !/^[0-9a-fA-F]+$/.test(p))
    )
      return fail('IllegalArgumentException', `Invalid UUID string: ${s}`);
    const [a, b, c, d, e] = parts.map((p) => BigInt(`0x${p}`)) as [bigint, bigint, bigint, bigint, bigint];
    return new JUUID(BigInt.asIntN(64, (a << 32n) | (b << 16n) | c), BigInt.asIntN(64, (d << 48n) | e));
  };
  const uuidFromText = (text: string): JUUID => {
    const h = text.replaceAll('-', '');
    return new JUUID(BigInt.asIntN(64, BigInt(`0x${h.slice(0, 16)}`)), BigInt.asIntN(64, BigInt(`0x${h.slice(16)}`)));
  };
  const randomUUID = (): JUUID => {
    const r = (): bigint => BigInt(Math.floor(Math.random() * 2 ** 32));
    let hi = (r() << 32n) | r();
    let lo = (r() << 32n) | r();
    hi = (hi & ~0xf000n) | 0x4000n;
    lo = (lo & 0x3fffffffffffffffn) | 0x8000000000000000n;
    return new JUUID(BigInt.asIntN(64, hi), BigInt.asIntN(64, lo));
  };

  // ---- Date (java.util.Date, printed in UTC) ----

  const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  // The server's calendar (cql/types/temporal.ts), shipped by the host as __calendar.
  const calendar = g.__calendar as {
    civilFromDays(days: number): [number, number, number];
    daysFromCivil(y: number, m: number, d: number): number;
  };
  const civil = (days: number): { y: number; m: number; d: number } => {
    const [y, m, d] = calendar.civilFromDays(days);
    return { y, m, d };
  };
  const daysFromCivil = calendar.daysFromCivil;
  const pad2 = (n: number): string => String(n).padStart(2, '0');

  class JDate {
    constructor(readonly t: bigint) {}
    get $cls(): string {
      return 'java.util.Date';
    }
    getTime(): bigint {
      return this.t;
    }
    before(o: JDate): boolean {
      return this.t < nn(o).t;
    }
    after(o: JDate): boolean {
      return this.t > nn(o).t;
    }
    compareTo(o: JDate): number {
      return this.t < nn(o).t ? -1 : this.t > o.t ? 1 : 0;
    }
    equals(o: unknown): boolean {
      return o instanceof JDate && o.t === this.t;
    }
    hashCode(): number {
      return longHash(this.t);
    }
    toString(): string {
      const ms = this.t;
      const days = Number(ms >= 0n ? ms / 86400000n : (ms - 86399999n) / 86400000n);
      const rem = Number(ms - BigInt(days) * 86400000n);
      const { y, m, d } = civil(days);
      const dow = DAYS[(((days + 4) % 7) + 7) % 7]!;
      const hh = Math.floor(rem / 3600000);
      const mm = Math.floor((rem % 3600000) / 60000);
      const ss = Math.floor((rem % 60000) / 1000);
      return `${dow} ${MONTHS[m - 1]} ${pad2(d)} ${pad2(hh)}:${pad2(mm)}:${pad2(ss)} UTC ${y}`;
    }
  }
  const now = (): JDate => new JDate(BigInt(Date.now()));

  // ---- LocalDate (org.apache.cassandra.cql3.functions.types.LocalDate) ----

  class LocalDate {
    constructor(readonly days: number) {}
    get $cls(): string {
      return 'org.apache.cassandra.cql3.functions.types.LocalDate';
    }
    getDaysSinceEpoch(): number {
      return this.days;
    }
    getMillisSinceEpoch(): bigint {
      return BigInt(this.days) * 86400000n;
    }
    getYear(): number {
      return civil(this.days).y;
    }
    getMonth(): number {
      return civil(this.days).m;
    }
    getDay(): number {
      return civil(this.days).d;
    }
    /** add(Calendar field, amount): YEAR (1), MONTH (2), DAY_OF_MONTH/DATE (5), DAY_OF_YEAR (6), WEEK (3, 4). */
    add(field: number, amount: number): LocalDate {
      const { y, m, d } = civil(this.days);
      const dim = (yy: number, mm: number): number =>
        daysFromCivil(mm === 12 ? yy + 1 : yy, mm === 12 ? 1 : mm + 1, 1) - daysFromCivil(yy, mm, 1);
      switch (field) {
        case 1: {
          const ny = y + amount;
          return fromDays(daysFromCivil(ny, m, Math.min(d, dim(ny, m))));
        }
        case 2: {
          const total = y * 12 + (m - 1) + amount;
          const ny = Math.floor(total / 12);
          const nm = total - ny * 12 + 1;
          return fromDays(daysFromCivil(ny, nm, Math.min(d, dim(ny, nm))));
        }
        case 3:
        case 4:
          return fromDays(this.days + 7 * amount);
        case 5:
        case 6:
        case 7:
          return fromDays(this.days + amount);
        default:
          return fail('IllegalArgumentException', `unsupported Calendar field ${field}`);
      }
    }
    equals(o: unknown): boolean {
      return o instanceof LocalDate && o.days === this.days;
    }
    hashCode(): number {
      return this.days;
    }
    toString(): string {
      const { y, m, d } = civil(this.days);
      return `${y}-${pad2(m)}-${pad2(d)}`;
    }
  }
  const fromDays = (days: number): LocalDate => new LocalDate(days | 0);
  const fromMillis = (ms: bigint): LocalDate => {
    const days = ms / 86400000n;
    if (days < -2147483648n || days > 2147483647n)
      fail('IllegalArgumentException', 'Date should be in the range [-5877641-06-23; 5881580-07-11]');
    return new LocalDate(Number(days));
  };

  // ---- Duration (org.apache.cassandra.cql3.functions.types.Duration) ----

  class Duration {
    constructor(
      readonly months: number,
      readonly days: number,
      readonly nanos: bigint,
    ) {
      if ((months < 0 || days < 0 || nanos < 0n) && (months > 0 || days > 0 || nanos > 0n))
        fail(
          'IllegalArgumentException',
          `All values must be either negative or positive, got ${months} months, ${days} days, ${nanos} nanoseconds`,
        );
    }
    get $cls(): string {
      return 'org.apache.cassandra.cql3.functions.types.Duration';
    }
    getMonths(): number {
      return this.months;
    }
    getDays(): number {
      return this.days;
    }
    getNanoseconds(): bigint {
      return this.nanos;
    }
    equals(o: unknown): boolean {
      return o instanceof Duration && o.months === this.months && o.days === this.days && o.nanos === this.nanos;
    }
    hashCode(): number {
      let h = 1;
      for (const x of [this.days, this.months, longHash(this.nanos)]) h = (Math.imul(31, h) + x) | 0;
      return h;
    }
    toString(): string {
      let s = this.months < 0 || this.days < 0 || this.nanos < 0n ? '-' : '';
      const part = (v: bigint, unit: bigint, name: string): bigint => {
        const q = v / unit;
        if (q !== 0n) s += `${q}${name}`;
        return v % unit;
      };
      const abs = (v: bigint): bigint => (v < 0n ? -v : v);
      const rm = part(abs(BigInt(this.months)), 12n, 'y');
      part(rm, 1n, 'mo');
      part(abs(BigInt(this.days)), 1n, 'd');
      if (this.nanos !== 0n) {
        let r = part(abs(this.nanos), 3600000000000n, 'h');
        r = part(r, 60000000000n, 'm');
        r = part(r, 1000000000n, 's');
        r = part(r, 1000000n, 'ms');
        r = part(r, 1000n, 'us');
        part(r, 1n, 'ns');
      }
      return s;
    }
  }

  // ---- InetAddress ----

  class JInet {
    constructor(readonly bytes: Uint8Array) {}
    get $cls(): string {
      return this.bytes.length === 4 ? 'java.net.Inet4Address' : 'java.net.Inet6Address';
    }
    getHostAddress(): string {
      const b = this.bytes;
      if (b.length === 4) return Array.from(b).join('.');
      const groups: string[] = [];
      for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
      return groups.join(':');
    }
    getAddress(): Int8Array {
      return Int8Array.from(this.bytes, (x) => (x << 24) >> 24);
    }
    isLoopbackAddress(): boolean {
      const b = this.bytes;
      return b.length === 4 ? b[0] === 127 : b.every((x, i) => x === (i === 15 ? 1 : 0));
    }
    isAnyLocalAddress(): boolean {
      return this.bytes.every((x) => x === 0);
    }
    isMulticastAddress(): boolean {
      return this.bytes.length === 4 ? (this.bytes[0]! & 0xf0) === 0xe0 : this.bytes[0] === 0xff;
    }
    equals(o: unknown): boolean {
      return o instanceof JInet && o.bytes.length === this.bytes.length && o.bytes.every((x, i) => x === this.bytes[i]);
    }
    hashCode(): number {
      const b = this.bytes;
      if (b.length === 4) return (b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]! | 0;
      let h = 0;
      for (let i = 0; i < 16; i += 4) h = (h + ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!)) | 0;
      return h;
    }
    toString(): string {
      return `/${this.getHostAddress()}`;
    }
  }

  // ---- ByteBuffer (heap, big-endian) ----

  class JByteBuffer {
    pos = 0;
    lim: number;
    readonly cap: number;
    readonly view: DataView;
    constructor(
      readonly b: Uint8Array,
      pos = 0,
      lim: number = b.length,
    ) {
      this.cap = b.length;
      this.pos = pos;
      this.lim = lim;
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    get $cls(): string {
      return 'java.nio.HeapByteBuffer';
    }
    private at(i: number, n: number): number {
      return i >= 0 && i + n <= this.lim
        ? i
        : fail('IndexOutOfBoundsException', `Index ${i} out of bounds for length ${this.lim}`);
    }
    private next(n: number): number {
      const p = this.pos;
      if (this.lim - p < n) fail('BufferUnderflowException');
      this.pos = p + n;
      return p;
    }
    private nextPut(n: number): number {
      const p = this.pos;
      if (this.lim - p < n) fail('BufferOverflowException');
      this.pos = p + n;
      return p;
    }
    remaining(): number {
      return this.lim - this.pos;
    }
    hasRemaining(): boolean {
      return this.pos < this.lim;
    }
    position(p?: number): number | JByteBuffer {
      if (p === undefined) return this.pos;
      if (p < 0 || p > this.lim) fail('IllegalArgumentException', `newPosition > limit: (${p} > ${this.lim})`);
      this.pos = p;
      return this;
    }
    limit(l?: number): number | JByteBuffer {
      if (l === undefined) return this.lim;
      if (l < 0 || l > this.cap) fail('IllegalArgumentException', `newLimit > capacity: (${l} > ${this.cap})`);
      this.lim = l;
      if (this.pos > l) this.pos = l;
      return this;
    }
    capacity(): number {
      return this.cap;
    }
    flip(): JByteBuffer {
      this.lim = this.pos;
      this.pos = 0;
      return this;
    }
    rewind(): JByteBuffer {
      this.pos = 0;
      return this;
    }
    clear(): JByteBuffer {
      this.pos = 0;
      this.lim = this.cap;
      return this;
    }
    get(i?: number): number {
      return this.view.getInt8(i === undefined ? this.next(1) : this.at(i, 1));
    }
    getShort(i?: number): number {
      return this.view.getInt16(i === undefined ? this.next(2) : this.at(i, 2));
    }
    getChar(i?: number): number {
      return this.view.getUint16(i === undefined ? this.next(2) : this.at(i, 2));
    }
    getInt(i?: number): number {
      return this.view.getInt32(i === undefined ? this.next(4) : this.at(i, 4));
    }
    getLong(i?: number): bigint {
      return this.view.getBigInt64(i === undefined ? this.next(8) : this.at(i, 8));
    }
    getFloat(i?: number): number {
      return this.view.getFloat32(i === undefined ? this.next(4) : this.at(i, 4));
    }
    getDouble(i?: number): number {
      return this.view.getFloat64(i === undefined ? this.next(8) : this.at(i, 8));
    }
    getBytes(dst: Int8Array): JByteBuffer {
      const p = this.next(nn(dst).length);
      for (let k = 0; k < dst.length; k++) dst[k] = this.view.getInt8(p + k);
      return this;
    }
    put(x: number, i?: number): JByteBuffer {
      this.view.setInt8(i === undefined ? this.nextPut(1) : this.at(i, 1), x);
      return this;
    }
    putBytes(src: Int8Array): JByteBuffer {
      const p = this.nextPut(nn(src).length);
      for (let k = 0; k < src.length; k++) this.view.setInt8(p + k, src[k]!);
      return this;
    }
    /** put(ByteBuffer): the source's remaining bytes, advancing both. */
    putBuffer(src: JByteBuffer): JByteBuffer {
      if (nn(src) === this) fail('IllegalArgumentException', 'The source buffer is this buffer');
      const bytes = src.contents();
      const p = this.nextPut(bytes.length);
      this.b.set(bytes, p);
      src.pos = src.lim;
      return this;
    }
    putShort(x: number, i?: number): JByteBuffer {
      this.view.setInt16(i === undefined ? this.nextPut(2) : this.at(i, 2), x);
      return this;
    }
    putInt(x: number, i?: number): JByteBuffer {
      this.view.setInt32(i === undefined ? this.nextPut(4) : this.at(i, 4), x);
      return this;
    }
    putLong(x: bigint, i?: number): JByteBuffer {
      this.view.setBigInt64(i === undefined ? this.nextPut(8) : this.at(i, 8), x);
      return this;
    }
    putFloat(x: number, i?: number): JByteBuffer {
      this.view.setFloat32(i === undefined ? this.nextPut(4) : this.at(i, 4), x);
      return this;
    }
    putDouble(x: number, i?: number): JByteBuffer {
      this.view.setFloat64(i === undefined ? this.nextPut(8) : this.at(i, 8), x);
      return this;
    }
    array(): Int8Array {
      return new Int8Array(this.b.buffer, this.b.byteOffset, this.b.byteLength);
    }
    arrayOffset(): number {
      return 0;
    }
    hasArray(): boolean {
      return true;
    }
    duplicate(): JByteBuffer {
      return new JByteBuffer(this.b, this.pos, this.lim);
    }
    slice(): JByteBuffer {
      return new JByteBuffer(this.b.subarray(this.pos, this.lim));
    }
    /** The bytes between position and limit (what Cassandra serializes). */
    contents(): Uint8Array {
      return this.b.subarray(this.pos, this.lim);
    }
    equals(o: unknown): boolean {
      if (!(o instanceof JByteBuffer) || o.remaining() !== this.remaining()) return false;
      const a = this.contents();
      const b = o.contents();
      return a.every((x, i) => x === b[i]);
    }
    hashCode(): number {
      let h = 1;
      for (let i = this.lim - 1; i >= this.pos; i--) h = (Math.imul(31, h) + this.view.getInt8(i)) | 0;
      return h;
    }
    compareTo(o: JByteBuffer): number {
      const a = this.contents();
      const b = nn(o).contents();
      const n = Math.min(a.length, b.length);
      for (let i = 0; i < n; i++) {
        const d = ((a[i]! << 24) >> 24) - ((b[i]! << 24) >> 24);
        if (d !== 0) return d;
      }
      return a.length - b.length;
    }
    toString(): string {
      return `java.nio.HeapByteBuffer[pos=${this.pos} lim=${this.lim} cap=${this.cap}]`;
    }
  }
  const allocate = (n: number): JByteBuffer =>
    n < 0 ? fail('IllegalArgumentException', `capacity < 0: (${n} < 0)`) : new JByteBuffer(new Uint8Array(n));
  const wrap = (a: Int8Array, off?: number, len?: number): JByteBuffer => {
    nn(a);
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    if (off === undefined) return new JByteBuffer(bytes);
    if (off < 0 || len! < 0 || off + len! > a.length) fail('IndexOutOfBoundsException');
    return new JByteBuffer(bytes, off, off + len!);
  };

  // ---- BigInteger ----

  const magnitudeHash = (v: bigint): number => {
    const sign = v < 0n ? -1 : v > 0n ? 1 : 0;
    let m = v < 0n ? -v : v;
    const words: number[] = [];
    while (m > 0n) {
      words.unshift(Number(m & 0xffffffffn));
      m >>= 32n;
    }
    let h = 0;
    for (const w of words) h = (Math.imul(31, h) + w) | 0;
    return Math.imul(h, sign);
  };

  class BigInteger {
    constructor(readonly v: bigint) {}
    get $cls(): string {
      return 'java.math.BigInteger';
    }
    toBigInt(): bigint {
      return this.v;
    }
    add(o: BigInteger): BigInteger {
      return new BigInteger(this.v + nn(o).v);
    }
    subtract(o: BigInteger): BigInteger {
      return new BigInteger(this.v - nn(o).v);
    }
    multiply(o: BigInteger): BigInteger {
      return new BigInteger(this.v * nn(o).v);
    }
    divide(o: BigInteger): BigInteger {
      if (nn(o).v === 0n) fail('ArithmeticException', 'BigInteger divide by zero');
      return new BigInteger(this.v / o.v);
    }
    remainder(o: BigInteger): BigInteger {
      if (nn(o).v === 0n) fail('ArithmeticException', 'BigInteger divide by zero');
      return new BigInteger(this.v % o.v);
    }
    mod(o: BigInteger): BigInteger {
      if (nn(o).v <= 0n) fail('ArithmeticException', 'BigInteger: modulus not positive');
      const r = this.v % o.v;
      return new BigInteger(r < 0n ? r + o.v : r);
    }
    pow(n: number): BigInteger {
      if (n < 0) fail('ArithmeticException', 'Negative exponent');
      return new BigInteger(this.v ** BigInt(n));
    }
    negate(): BigInteger {
      return new BigInteger(-this.v);
    }
    abs(): BigInteger {
      return this.v < 0n ? new BigInteger(-this.v) : this;
    }
    signum(): number {
      return this.v > 0n ? 1 : this.v < 0n ? -1 : 0;
    }
    gcd(o: BigInteger): BigInteger {
      let a = this.v < 0n ? -this.v : this.v;
      let b = nn(o).v < 0n ? -o.v : o.v;
      while (b !== 0n) [a, b] = [b, a % b];
      return new BigInteger(a);
    }
    min(o: BigInteger): BigInteger {
      return this.v <= nn(o).v ? this : o;
    }
    max(o: BigInteger): BigInteger {
      return this.v >= nn(o).v ? this : o;
    }
    sqrt(): BigInteger {
      if (this.v < 0n) fail('ArithmeticException', 'Negative BigInteger');
      if (this.v < 2n) return this;
      let x = BigInt(Math.floor(Math.sqrt(Number(this.v))));
      while (x * x > this.v) x--;
      while ((x + 1n) * (x + 1n) <= this.v) x++;
      return new BigInteger(x);
    }
    shiftLeft(n: number): BigInteger {
      return new BigInteger(n >= 0 ? this.v << BigInt(n) : this.v >> BigInt(-n));
    }
    shiftRight(n: number): BigInteger {
      return new BigInteger(n >= 0 ? this.v >> BigInt(n) : this.v << BigInt(-n));
    }
    and(o: BigInteger): BigInteger {
      return new BigInteger(this.v & nn(o).v);
    }
    or(o: BigInteger): BigInteger {
      return new BigInteger(this.v | nn(o).v);
    }
    xor(o: BigInteger): BigInteger {
      return new BigInteger(this.v ^ nn(o).v);
    }
    not(): BigInteger {
      return new BigInteger(~this.v);
    }
    testBit(n: number): boolean {
      if (n < 0) fail('ArithmeticException', 'Negative bit address');
      return ((this.v >> BigInt(n)) & 1n) === 1n;
    }
    bitLength(): number {
      const x = this.v < 0n ? ~this.v : this.v;
      return x === 0n ? 0 : x.toString(2).length;
    }
    intValue(): number {
      return Number(BigInt.asIntN(32, this.v));
    }
    longValue(): bigint {
      return BigInt.asIntN(64, this.v);
    }
    doubleValue(): number {
      return Number(this.v);
    }
    intValueExact(): number {
      if (BigInt.asIntN(32, this.v) !== this.v) fail('ArithmeticException', 'BigInteger out of int range');
      return Number(this.v);
    }
    longValueExact(): bigint {
      if (BigInt.asIntN(64, this.v) !== this.v) fail('ArithmeticException', 'BigInteger out of long range');
      return this.v;
    }
    compareTo(o: BigInteger): number {
      return this.v < nn(o).v ? -1 : this.v > o.v ? 1 : 0;
    }
    equals(o: unknown): boolean {
      return o instanceof BigInteger && o.v === this.v;
    }
    hashCode(): number {
      return magnitudeHash(this.v);
    }
    toString(radix?: number): string {
      return this.v.toString(radix === undefined || radix < 2 || radix > 36 ? 10 : radix);
    }
  }
  const bigIntegerOf = (s: string | null, radix = 10): BigInteger => {
    if (s === null) return npe();
    const m = /^([+-]?)([0-9a-zA-Z]+)$/.exec(s);
    if (!m) return fail('NumberFormatException', s === '' ? 'Zero length BigInteger' : `For input string: "${s}"`);
    let v = 0n;
    for (const ch of m[2]!.toLowerCase()) {
      const d = parseInt(ch, 36);
      if (d >= radix) return fail('NumberFormatException', `For input string: "${s}"`);
      v = v * BigInt(radix) + BigInt(d);
    }
    return new BigInteger(m[1] === '-' ? -v : v);
  };

  // ---- BigDecimal ----

  const pow10 = (n: number): bigint => 10n ** BigInt(n);
  const absBig = (v: bigint): bigint => (v < 0n ? -v : v);
  const digitCount = (v: bigint): number => (v === 0n ? 1 : absBig(v).toString().length);

  /** Rounds unscaled/10^drop by a RoundingMode name. */
  const roundDiv = (num: bigint, den: bigint, mode: string): bigint => {
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const q = num / den;
    const r = num % den;
    if (r === 0n) return q;
    const sign = num < 0n ? -1n : 1n;
    const twice = absBig(r) * 2n;
    const away = q + sign;
    switch (mode) {
      case 'UP':
        return away;
      case 'DOWN':
        return q;
      case 'CEILING':
        return sign > 0n ? away : q;
      case 'FLOOR':
        return sign < 0n ? away : q;
      case 'HALF_UP':
        return twice >= den ? away : q;
      case 'HALF_DOWN':
        return twice > den ? away : q;
      case 'HALF_EVEN':
        return twice > den || (twice === den && (q & 1n) !== 0n) ? away : q;
      default:
        return fail('ArithmeticException', 'Rounding necessary');
    }
  };

  class BigDecimal {
    constructor(
      readonly u: bigint,
      readonly s: number,
    ) {}
    get $cls(): string {
      return 'java.math.BigDecimal';
    }
    private aligned(o: BigDecimal): [bigint, bigint, number] {
      nn(o);
      const s = Math.max(this.s, o.s);
      return [this.u * pow10(s - this.s), o.u * pow10(s - o.s), s];
    }
    add(o: BigDecimal): BigDecimal {
      const [a, b, s] = this.aligned(o);
      return new BigDecimal(a + b, s);
    }
    subtract(o: BigDecimal): BigDecimal {
      const [a, b, s] = this.aligned(o);
      return new BigDecimal(a - b, s);
    }
    multiply(o: BigDecimal): BigDecimal {
      return new BigDecimal(this.u * nn(o).u, this.s + o.s);
    }
    divide(o: BigDecimal, a?: number | string, b?: string): BigDecimal {
      nn(o);
      if (o.u === 0n) fail('ArithmeticException', this.u === 0n ? 'Division undefined' : 'Division by zero');
      if (typeof a === 'number') return this.divideToScale(o, a, b ?? 'UNNECESSARY');
      if (typeof a === 'string') return this.divideToScale(o, this.s, a);
      // Exact quotient, preferred scale this.scale - divisor.scale.
      const preferred = this.s - o.s;
      if (this.u === 0n) return new BigDecimal(0n, Math.max(Math.min(preferred, 2147483647), -2147483648));
      let num = this.u;
      const den = o.u;
      let scale = preferred;
      // Strip factors 2 and 5 from the divisor to know whether the expansion terminates.
      let d = absBig(den) / gcdBig(absBig(num), absBig(den));
      let twos = 0;
      let fives = 0;
      while (d % 2n === 0n) {
        d /= 2n;
        twos++;
      }
      while (d % 5n === 0n) {
        d /= 5n;
        fives++;
      }
      if (d !== 1n)
        fail('ArithmeticException', 'Non-terminating decimal expansion; no exact representable decimal result.');
      const extra = Math.max(twos, fives);
      num *= pow10(extra);
      scale += extra;
      let q = num / den;
      // Reduce towards the preferred scale.
      while (scale > preferred && q % 10n === 0n) {
        q /= 10n;
        scale--;
      }
      return new BigDecimal(q, scale);
    }
    private divideToScale(o: BigDecimal, scale: number, mode: string): BigDecimal {
      // this/o = (u1/10^s1)/(u2/10^s2); result unscaled = u1 * 10^(scale - s1 + s2) / u2
      const shiftBy = scale - this.s + o.s;
      let num = this.u;
      let den = o.u;
      if (shiftBy >= 0) num *= pow10(shiftBy);
      else den *= pow10(-shiftBy);
      return new BigDecimal(roundDiv(num, den, mode), scale);
    }
    setScale(scale: number, mode = 'UNNECESSARY'): BigDecimal {
      if (scale >= this.s) return new BigDecimal(this.u * pow10(scale - this.s), scale);
      return new BigDecimal(roundDiv(this.u, pow10(this.s - scale), mode), scale);
    }
    remainder(o: BigDecimal): BigDecimal {
      const [a, b, s] = this.aligned(o);
      if (b === 0n) fail('ArithmeticException', 'Division by zero');
      return new BigDecimal(a % b, s);
    }
    negate(): BigDecimal {
      return new BigDecimal(-this.u, this.s);
    }
    abs(): BigDecimal {
      return this.u < 0n ? this.negate() : this;
    }
    signum(): number {
      return this.u > 0n ? 1 : this.u < 0n ? -1 : 0;
    }
    scale(): number {
      return this.s;
    }
    precision(): number {
      return digitCount(this.u);
    }
    unscaledValue(): BigInteger {
      return new BigInteger(this.u);
    }
    stripTrailingZeros(): BigDecimal {
      if (this.u === 0n) return new BigDecimal(0n, 0);
      let u = this.u;
      let s = this.s;
      while (u % 10n === 0n) {
        u /= 10n;
        s--;
      }
      return new BigDecimal(u, s);
    }
    movePointLeft(n: number): BigDecimal {
      const r = new BigDecimal(this.u, this.s + n);
      return r.s < 0 ? r.setScale(0) : r;
    }
    movePointRight(n: number): BigDecimal {
      const r = new BigDecimal(this.u, this.s - n);
      return r.s < 0 ? r.setScale(0) : r;
    }
    pow(n: number): BigDecimal {
      if (n < 0 || n > 999999999) fail('ArithmeticException', 'Invalid operation');
      return new BigDecimal(this.u ** BigInt(n), this.s * n);
    }
    min(o: BigDecimal): BigDecimal {
      return this.compareTo(o) <= 0 ? this : o;
    }
    max(o: BigDecimal): BigDecimal {
      return this.compareTo(o) >= 0 ? this : o;
    }
    compareTo(o: BigDecimal): number {
      const [a, b] = this.aligned(o);
      return a < b ? -1 : a > b ? 1 : 0;
    }
    equals(o: unknown): boolean {
      return o instanceof BigDecimal && o.u === this.u && o.s === this.s;
    }
    hashCode(): number {
      return (Math.imul(31, magnitudeHash(this.u)) + this.s) | 0;
    }
    doubleValue(): number {
      return Number(this.toString());
    }
    intValue(): number {
      return Number(BigInt.asIntN(32, this.toBigIntTruncated()));
    }
    longValue(): bigint {
      return BigInt.asIntN(64, this.toBigIntTruncated());
    }
    toBigInteger(): BigInteger {
      return new BigInteger(this.toBigIntTruncated());
    }
    private toBigIntTruncated(): bigint {
      return this.s <= 0 ? this.u * pow10(-this.s) : this.u / pow10(this.s);
    }
    /** Java's BigDecimal.toString: scientific notation when the exponent is < -6 or the scale negative. */
    toString(): string {
      const digits = absBig(this.u).toString();
      const sign = this.u < 0n ? '-' : '';
      const adjusted = -this.s + (digits.length - 1);
      if (this.s >= 0 && adjusted >= -6) {
        if (this.s === 0) return sign + digits;
        const padded = digits.padStart(this.s + 1, '0');
        return `${sign}${padded.slice(0, padded.length - this.s)}.${padded.slice(padded.length - this.s)}`;
      }
      const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
      return `${sign}${mant}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
    }
    toPlainString(): string {
      const digits = absBig(this.u).toString();
      const sign = this.u < 0n ? '-' : '';
      if (this.s <= 0) return sign + digits + (this.u === 0n ? '' : '0'.repeat(-this.s));
      const padded = digits.padStart(this.s + 1, '0');
      return `${sign}${padded.slice(0, padded.length - this.s)}.${padded.slice(padded.length - this.s)}`;
    }
  }
  function gcdBig(a: bigint, b: bigint): bigint {
    while (b !== 0n) [a, b] = [b, a % b];
    return a === 0n ? 1n : a;
  }
  const bigDecimalOf = (s: string | null): BigDecimal => {
    if (s === null) return npe();
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    if (!m || (m[2] === '' && (m[3] === undefined || m[3] === '')))
      return fail(
        'NumberFormatException',
        `Character ${s === '' ? "array is missing \"exponent\" mark 'e' or 'E'." : 'x is neither a decimal digit number, decimal point, nor "e" notation exponential mark.'}`,
      );
    const frac = m[3] ?? '';
    const u = BigInt((m[2] || '0') + frac) * (m[1] === '-' ? -1n : 1n);
    const scale = frac.length - (m[4] === undefined ? 0 : Number(m[4]));
    return new BigDecimal(u, scale);
  };
  /** new BigDecimal(double): the exact binary value. */
  const bigDecimalOfDouble = (d: number): BigDecimal => {
    if (!Number.isFinite(d)) return fail('NumberFormatException', 'Infinite or NaN');
    if (d === 0) return new BigDecimal(0n, 0);
    let m = d;
    let e = 0;
    while (!Number.isInteger(m)) {
      m *= 2;
      e++;
    }
    const u = BigInt(m);
    if (e === 0) return new BigDecimal(u, 0);
    // u / 2^e = u * 5^e / 10^e
    return new BigDecimal(u * 5n ** BigInt(e), e);
  };
  /** BigDecimal.valueOf(double): from Double.toString. */
  const bigDecimalValueOf = (d: number): BigDecimal => {
    if (!Number.isFinite(d)) return fail('NumberFormatException', 'Infinite or NaN');
    return bigDecimalOf(jl.dstr(d));
  };

  g.$jv = {
    JUUID,
    uuidFromString,
    uuidFromText,
    randomUUID,
    JDate,
    now,
    LocalDate,
    fromDays,
    fromMillis,
    civil,
    daysFromCivil,
    Duration,
    JInet,
    JByteBuffer,
    allocate,
    wrap,
    BigInteger,
    bigIntegerOf,
    BigDecimal,
    bigDecimalOf,
    bigDecimalOfDouble,
    bigDecimalValueOf,
  };
}
