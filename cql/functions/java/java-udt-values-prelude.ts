// Sandbox prelude: Cassandra's TupleValue and UDTValue (global `$jt`). Like the classes UDFs see in Cassandra
// (AbstractData), a value holds its fields serialized: getters decode, setters encode, so a collection read from a
// field is a fresh copy. Getters check the field's CQL type against the Java type asked for (CodecNotFoundException),
// and UDT fields are found by name as the driver does (lower-cased unless double-quoted).
// Self-contained: shipped as `(${javaUdtValuesPrelude})(globalThis)`.

import type { CqlType } from '../../types/cql-type.js';

export function javaUdtValuesPrelude(g: Record<string, unknown>): void {
  // biome-ignore lint/suspicious/noExplicitAny: the other preludes' helpers
  const any = g as any;
  const jl = any.$jl;
  const jc = any.$jc;
  const fail = jl.fail as (name: string, message?: string | null) => never;

  type Composite = Extract<CqlType, { kind: 'tuple' | 'udt' }>;

  class TupleValue {
    readonly udt: boolean;
    constructor(
      readonly type: Composite,
      readonly values: (Uint8Array | null)[],
    ) {
      this.udt = type.kind === 'udt';
    }
    get $cls(): string {
      return this.udt
        ? 'org.apache.cassandra.cql3.functions.types.UDTValue'
        : 'org.apache.cassandra.cql3.functions.types.TupleValue';
    }
    private types(): readonly CqlType[] {
      return this.type.kind === 'tuple' ? this.type.elements : this.type.fields.map((f) => f.type);
    }
    /** A field's position from an index or (UDT) a name. */
    index(i: number | string): number {
      if (typeof i === 'number') {
        const n = this.values.length;
        return i >= 0 && i < n ? i : fail('IndexOutOfBoundsException', `Index ${i} out of bounds for length ${n}`);
      }
      if (i === null) return jl.npe();
      if (this.type.kind !== 'udt')
        return fail('IllegalArgumentException', `${i} is not a field defined in this tuple`);
      const name =
        i.length > 1 && i.startsWith('"') && i.endsWith('"') ? i.slice(1, -1).replaceAll('""', '"') : i.toLowerCase();
      const k = this.type.fields.findIndex((f) => f.name === name);
      return k >= 0 ? k : fail('IllegalArgumentException', `${i} is not a field defined in this UDT`);
    }
    fieldType(i: number | string): CqlType {
      return this.types()[this.index(i)]!;
    }
    /** The field's CQL type, checked against the Java class the getter or setter deals in. */
    private checked(i: number | string, javaClass: string): [number, CqlType] {
      const k = this.index(i);
      const t = this.types()[k]!;
      if (!classMatches(t, javaClass))
        fail('CodecNotFoundException', `Codec not found for requested operation: [${jc.typeText(t)} <-> ${javaClass}]`);
      return [k, t];
    }
    /** Getter: the decoded field, or `dflt` for null (primitive getters return 0/false). */
    get(i: number | string, javaClass: string, dflt: unknown = null): unknown {
      const [k, t] = this.checked(i, javaClass);
      const b = this.values[k]!;
      if (
        b === null ||
        (b.length === 0 && !(t.kind === 'native' && (t.name === 'text' || t.name === 'ascii' || t.name === 'blob')))
      )
        return dflt === 'empty' ? jc.dec(t, new Uint8Array([0, 0, 0, 0])) : dflt;
      return jc.dec(t, b);
    }
    /** getList/getSet/getMap(i, Class...): the element classes must match too. */
    getCollection(i: number | string, kind: string, ...elementClasses: string[]): unknown {
      const k = this.index(i);
      const t = this.types()[k]!;
      const elements =
        t.kind === 'list' || t.kind === 'set'
          ? [t.element]
          : t.kind === 'map'
            ? [t.key, t.value]
            : t.kind === 'vector'
              ? [t.element]
              : [];
      const ok =
        (t.kind === kind || (kind === 'list' && t.kind === 'vector')) &&
        elements.every((e, n) => elementClasses[n] === undefined || classMatches(e, elementClasses[n]!));
      if (!ok) {
        const javaType =
          kind === 'map'
            ? `java.util.Map<${elementClasses.join(', ')}>`
            : `java.util.${kind === 'list' ? 'List' : 'Set'}<${elementClasses[0]}>`;
        fail('CodecNotFoundException', `Codec not found for requested operation: [${jc.typeText(t)} <-> ${javaType}]`);
      }
      const b = this.values[k]!;
      if (b === null || b.length === 0) return jc.dec(t, new Uint8Array([0, 0, 0, 0]));
      return jc.dec(t, b);
    }
    getObject(i: number | string): unknown {
      const k = this.index(i);
      return jc.dec(this.types()[k]!, this.values[k]!);
    }
    getBytesUnsafe(i: number | string): unknown {
      const b = this.values[this.index(i)]!;
      return b === null ? null : new any.$jv.JByteBuffer(b.slice());
    }
    isNull(i: number | string): boolean {
      return this.values[this.index(i)] === null;
    }
    set(i: number | string, javaClass: string, v: unknown): TupleValue {
      const [k, t] = this.checked(i, javaClass);
      this.values[k] = jc.enc(t, v);
      return this;
    }
    setCollection(i: number | string, kind: string, v: unknown): TupleValue {
      const k = this.index(i);
      const t = this.types()[k]!;
      if (t.kind !== kind && !(kind === 'list' && t.kind === 'vector'))
        fail(
          'CodecNotFoundException',
          `Codec not found for requested operation: [${jc.typeText(t)} <-> ${jl.className(v)}]`,
        );
      this.values[k] = jc.enc(t, v);
      return this;
    }
    setToNull(i: number | string): TupleValue {
      this.values[this.index(i)] = null;
      return this;
    }
    setBytesUnsafe(i: number | string, v: { contents(): Uint8Array } | null): TupleValue {
      this.values[this.index(i)] = v === null ? null : v.contents().slice();
      return this;
    }
    getType(): string {
      return jc.typeText(this.type);
    }
    equals(o: unknown): boolean {
      if (!(o instanceof TupleValue) || o.values.length !== this.values.length) return false;
      if (jc.typeText(o.type) !== jc.typeText(this.type)) return false;
      const types = this.types();
      return this.values.every((b, i) => jl.oeq(jc.dec(types[i]!, b), jc.dec(types[i]!, o.values[i]!)));
    }
    hashCode(): number {
      const types = this.types();
      let h = 31;
      this.values.forEach((b, i) => {
        h = (h + (b === null ? 1 : jl.hash(jc.dec(types[i]!, b)))) | 0;
      });
      return h;
    }
    toString(): string {
      return jc.format(this.type, jc.enc(this.type, this));
    }
  }

  /** Whether a CQL type's codec deals in the Java class named. */
  const classMatches = (t: CqlType, javaClass: string): boolean => {
    if (javaClass === 'java.lang.Object') return true;
    const c = jc.javaClass(t);
    if (c === javaClass) return true;
    return (
      (javaClass === 'java.util.Collection' && (c === 'java.util.List' || c === 'java.util.Set')) ||
      (javaClass === 'java.lang.Number' &&
        [
          'java.lang.Integer',
          'java.lang.Long',
          'java.lang.Short',
          'java.lang.Byte',
          'java.lang.Float',
          'java.lang.Double',
          'java.math.BigInteger',
          'java.math.BigDecimal',
        ].includes(c))
    );
  };

  /** A value of a tuple or UDT type with every field null (udfContext.new...Value). */
  const newValue = (t: CqlType, what: string): TupleValue => {
    if (t.kind !== 'tuple' && t.kind !== 'udt') {
      const name = jc.typeText(t);
      return what === 'udt'
        ? fail('IllegalStateException', `Function argument is not a UDT but a ${name}`)
        : fail('IllegalStateException', `Function argument is not a tuple type but a ${name}`);
    }
    if ((what === 'udt') !== (t.kind === 'udt'))
      return what === 'udt'
        ? fail('IllegalStateException', `Function argument is not a UDT but a ${jc.typeText(t)}`)
        : fail('IllegalStateException', `Function argument is not a tuple type but a ${jc.typeText(t)}`);
    const n = t.kind === 'tuple' ? t.elements.length : t.fields.length;
    return new TupleValue(t, new Array<Uint8Array | null>(n).fill(null));
  };

  g.$jt = { TupleValue, newValue };
}
