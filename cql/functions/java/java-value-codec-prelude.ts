// Sandbox prelude: CQL bytes <-> Java values by CQL type (global `$jc`), as Cassandra's TypeCodecs do for UDF
// arguments and results: int → Integer, bigint/counter/time → Long, double → Double (boxed), list → ArrayList,
// set → LinkedHashSet, map → LinkedHashMap, tuple → TupleValue, udt → UDTValue... Encoding checks the Java class
// of what the function returns (a raw collection can hold anything) with Cassandra's messages.
// Also CQL literal text of a value (TypeCodec.format), for TupleValue/UDTValue.toString().
// Self-contained: shipped as `(${javaValueCodecPrelude})(globalThis)`.

import type { CqlType } from '../../types/cql-type.js';

export function javaValueCodecPrelude(g: Record<string, unknown>): void {
  // biome-ignore lint/suspicious/noExplicitAny: the other preludes' helpers
  const any = g as any;
  const cql = any.__cql;
  const jl = any.$jl;
  const ju = any.$ju;
  const jv = any.$jv;
  const fail = jl.fail as (name: string, message?: string | null) => never;

  /** CQL type text as the driver's DataType prints it (in codec messages and formats). */
  const typeText = (t: CqlType): string => {
    switch (t.kind) {
      case 'native':
        return t.name === 'text' ? 'varchar' : t.name;
      case 'list':
      case 'set':
        return `${t.kind}<${typeText(t.element)}>`;
      case 'map':
        return `map<${typeText(t.key)}, ${typeText(t.value)}>`;
      case 'tuple':
        return `frozen<tuple<${t.elements.map(typeText).join(', ')}>>`;
      case 'udt':
        return `frozen<${t.keyspace}.${t.name}>`;
      case 'vector':
        return `vector<${typeText(t.element)}, ${t.dimension}>`;
      case 'custom':
        return `'${t.className}'`;
    }
  };

  /** The Java class Cassandra's codec produces for a CQL type. */
  const javaClass = (t: CqlType): string => {
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'ascii':
          case 'text':
            return 'java.lang.String';
          case 'bigint':
          case 'counter':
          case 'time':
            return 'java.lang.Long';
          case 'int':
            return 'java.lang.Integer';
          case 'smallint':
            return 'java.lang.Short';
          case 'tinyint':
            return 'java.lang.Byte';
          case 'float':
            return 'java.lang.Float';
          case 'double':
            return 'java.lang.Double';
          case 'boolean':
            return 'java.lang.Boolean';
          case 'varint':
            return 'java.math.BigInteger';
          case 'decimal':
            return 'java.math.BigDecimal';
          case 'blob':
            return 'java.nio.ByteBuffer';
          case 'timestamp':
            return 'java.util.Date';
          case 'date':
            return 'org.apache.cassandra.cql3.functions.types.LocalDate';
          case 'uuid':
          case 'timeuuid':
            return 'java.util.UUID';
          case 'inet':
            return 'java.net.InetAddress';
          case 'duration':
            return 'org.apache.cassandra.cql3.functions.types.Duration';
        }
        return 'java.lang.Object';
      case 'list':
      case 'vector':
        return 'java.util.List';
      case 'set':
        return 'java.util.Set';
      case 'map':
        return 'java.util.Map';
      case 'tuple':
        return 'org.apache.cassandra.cql3.functions.types.TupleValue';
      case 'udt':
        return 'org.apache.cassandra.cql3.functions.types.UDTValue';
      case 'custom':
        return 'java.nio.ByteBuffer';
    }
  };

  /** Whether a runtime value is of the Java class the codec for `t` expects. */
  const accepts = (t: CqlType, v: unknown): boolean => {
    switch (javaClass(t)) {
      case 'java.lang.String':
        return typeof v === 'string';
      case 'java.lang.Long':
        return typeof v === 'bigint';
      case 'java.lang.Integer':
        return typeof v === 'number';
      case 'java.lang.Boolean':
        return typeof v === 'boolean';
      case 'java.lang.Short':
        return v instanceof jl.JShort;
      case 'java.lang.Byte':
        return v instanceof jl.JByte;
      case 'java.lang.Float':
        return v instanceof jl.JFloat;
      case 'java.lang.Double':
        return v instanceof jl.JDouble;
      case 'java.math.BigInteger':
        return v instanceof jv.BigInteger;
      case 'java.math.BigDecimal':
        return v instanceof jv.BigDecimal;
      case 'java.nio.ByteBuffer':
        return v instanceof jv.JByteBuffer;
      case 'java.util.Date':
        return v instanceof jv.JDate;
      case 'org.apache.cassandra.cql3.functions.types.LocalDate':
        return v instanceof jv.LocalDate;
      case 'java.util.UUID':
        return v instanceof jv.JUUID;
      case 'java.net.InetAddress':
        return v instanceof jv.JInet;
      case 'org.apache.cassandra.cql3.functions.types.Duration':
        return v instanceof jv.Duration;
      case 'java.util.List':
        return v instanceof ju.JList;
      case 'java.util.Set':
        return ju.isSet(v);
      case 'java.util.Map':
        return v instanceof ju.JMap;
      case 'org.apache.cassandra.cql3.functions.types.TupleValue':
        return v instanceof any.$jt.TupleValue && !(v as { udt: boolean }).udt;
      case 'org.apache.cassandra.cql3.functions.types.UDTValue':
        return v instanceof any.$jt.TupleValue && (v as { udt: boolean }).udt;
      default:
        return false;
    }
  };

  const dec = (t: CqlType, b: Uint8Array | null): unknown => {
    if (b === null) return null;
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'ascii':
          case 'text':
            return cql.utf8(b);
          case 'bigint':
          case 'counter':
          case 'time':
            return b.length === 0 ? null : cql.int64(b);
          case 'int':
            return b.length === 0 ? null : cql.int32(b);
          case 'smallint':
            return b.length === 0 ? null : jl.S(cql.int16(b));
          case 'tinyint':
            return b.length === 0 ? null : jl.B(cql.int8(b));
          case 'float':
            return b.length === 0 ? null : jl.F(cql.float32(b));
          case 'double':
            return b.length === 0 ? null : jl.D(cql.float64(b));
          case 'boolean':
            return b.length === 0 ? null : cql.bool(b);
          case 'varint':
            return b.length === 0 ? null : new jv.BigInteger(cql.varint(b));
          case 'decimal': {
            if (b.length === 0) return null;
            const d = cql.decimal(b);
            return new jv.BigDecimal(d.unscaled, d.scale);
          }
          case 'blob':
            return new jv.JByteBuffer(b.slice());
          case 'timestamp':
            return b.length === 0 ? null : new jv.JDate(cql.int64(b));
          case 'date':
            return b.length === 0 ? null : jv.fromDays(cql.date(b));
          case 'uuid':
          case 'timeuuid':
            return b.length === 0 ? null : jv.uuidFromText(cql.uuid(b));
          case 'inet':
            return b.length === 0 ? null : new jv.JInet(b.slice());
          case 'duration': {
            const d = cql.duration(b);
            return new jv.Duration(d.months, d.days, d.nanoseconds);
          }
        }
        return null;
      case 'list':
        return ju.arrayList(cql.elements(b).map((x: Uint8Array | null) => dec(t.element, x)));
      case 'vector': {
        const items = cql.vectorElements(b, t.dimension, fixedSize(t.element));
        return ju.arrayList(items.map((x: Uint8Array | null) => dec(t.element, x)));
      }
      case 'set':
        return ju.hashSet(
          1,
          16,
          cql.elements(b).map((x: Uint8Array | null) => dec(t.element, x)),
        );
      case 'map': {
        const m = ju.hashMap(1);
        for (const [k, v] of cql.entries(b)) m.put(dec(t.key, k), dec(t.value, v));
        return m;
      }
      case 'tuple':
      case 'udt': {
        const fields = cql.fields(b);
        const n = t.kind === 'tuple' ? t.elements.length : t.fields.length;
        while (fields.length < n) fields.push(null);
        return new any.$jt.TupleValue(t, fields.slice(0, n));
      }
      case 'custom':
        return new jv.JByteBuffer(b.slice());
    }
  };

  const fixedSize = (t: CqlType): number => {
    if (t.kind !== 'native') return 0;
    const sizes: Record<string, number> = {
      bigint: 8,
      counter: 8,
      time: 8,
      timestamp: 8,
      double: 8,
      int: 4,
      float: 4,
      date: 4,
      boolean: 1,
      uuid: 16,
      timeuuid: 16,
    };
    return sizes[t.name] ?? 0;
  };

  /** Encodes a Java value for `t`; `where` names the containing collection for element type errors. */
  const enc = (t: CqlType, v: unknown, where?: string): Uint8Array | null => {
    if (v === null || v === undefined) return null;
    if (!accepts(t, v)) {
      if (where !== undefined)
        return fail(
          'InvalidTypeException',
          `Invalid type for ${where}, expecting ${javaClass(t)} but got class ${jl.className(v)}`,
        );
      return fail('InvalidTypeException', `Invalid value for CQL type ${typeText(t)}`);
    }
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'ascii': {
            const s = v as string;
            if (!/^[\x00-\x7f]*$/.test(s)) return fail('InvalidTypeException', `${s} is not a valid ASCII String`);
            return cql.fromUtf8(s);
          }
          case 'text':
            return cql.fromUtf8(v as string);
          case 'bigint':
          case 'counter':
          case 'time':
            return cql.fromInt64(v as bigint);
          case 'int':
            return cql.fromInt32(v as number);
          case 'smallint':
            return cql.fromInt16((v as { v: number }).v);
          case 'tinyint':
            return cql.fromInt8((v as { v: number }).v);
          case 'float':
            return cql.fromFloat32((v as { v: number }).v);
          case 'double':
            return cql.fromFloat64((v as { v: number }).v);
          case 'boolean':
            return cql.fromBool(v as boolean);
          case 'varint':
            return cql.fromVarint((v as { v: bigint }).v);
          case 'decimal': {
            const d = v as { u: bigint; s: number };
            return cql.fromDecimal(d.u, d.s);
          }
          case 'blob':
            return (v as { contents(): Uint8Array }).contents().slice();
          case 'timestamp':
            return cql.fromInt64((v as { t: bigint }).t);
          case 'date':
            return cql.fromDate((v as { days: number }).days);
          case 'uuid':
            return cql.fromUuid(String(v));
          case 'timeuuid':
            if ((v as { version(): number }).version() !== 1)
              return fail('InvalidTypeException', `${String(v)} is not a Type 1 (time-based) UUID`);
            return cql.fromUuid(String(v));
          case 'inet':
            return (v as { bytes: Uint8Array }).bytes.slice();
          case 'duration': {
            const d = v as { months: number; days: number; nanos: bigint };
            return cql.fromDuration(d.months, d.days, d.nanos);
          }
        }
        return null;
      case 'list':
      case 'set': {
        const items = (v as { toArray(): unknown[] }).toArray();
        const label = `${typeText(t)} element`;
        return cql.fromElements(
          items.map((x) => {
            if (x === null) return fail('NullPointerException', 'Collection elements cannot be null');
            return enc(t.element, x, label);
          }),
        );
      }
      case 'vector': {
        const items = (v as { toArray(): unknown[] }).toArray();
        if (items.length !== t.dimension)
          return fail('InvalidTypeException', `Expected ${t.dimension} elements, but got ${items.length}`);
        return cql.fromVectorElements(
          items.map((x) => enc(t.element, x, `${typeText(t)} element`)),
          fixedSize(t.element),
        );
      }
      case 'map': {
        const entries = (v as { entries(): { key: unknown; value: unknown }[] }).entries();
        return cql.fromEntries(
          entries.map((e) => {
            if (e.key === null) return fail('NullPointerException', 'Map keys cannot be null');
            if (e.value === null) return fail('NullPointerException', 'Map values cannot be null');
            return [enc(t.key, e.key, `${typeText(t)} key`), enc(t.value, e.value, `${typeText(t)} value`)];
          }),
        );
      }
      case 'tuple':
      case 'udt':
        return cql.fromFields((v as { values: (Uint8Array | null)[] }).values);
      case 'custom':
        return (v as { contents(): Uint8Array }).contents().slice();
    }
  };

  const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;
  const pad = (n: bigint, w: number): string => String(n).padStart(w, '0');

  /** TypeCodec.format: the CQL literal text of a value's bytes. */
  const format = (t: CqlType, b: Uint8Array | null): string => {
    if (b === null) return 'NULL';
    const v = dec(t, b);
    if (v === null) return 'NULL';
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'ascii':
          case 'text':
            return quote(v as string);
          case 'blob':
            return `0x${Array.from((v as { contents(): Uint8Array }).contents(), (x) => x.toString(16).padStart(2, '0')).join('')}`;
          case 'timestamp':
            return String((v as { t: bigint }).t);
          case 'date':
            return quote(String(v));
          case 'time': {
            const n = v as bigint;
            return quote(
              `${pad(n / 3600000000000n, 2)}:${pad((n / 60000000000n) % 60n, 2)}:${pad((n / 1000000000n) % 60n, 2)}.${pad(n % 1000000000n, 9)}`,
            );
          }
          case 'inet':
            return quote((v as { getHostAddress(): string }).getHostAddress());
          default:
            return jl.str(v);
        }
      case 'list':
      case 'vector':
      case 'set': {
        const open = t.kind === 'set' ? '{' : '[';
        const close = t.kind === 'set' ? '}' : ']';
        const items = t.kind === 'vector' ? cql.vectorElements(b, t.dimension, fixedSize(t.element)) : cql.elements(b);
        return open + items.map((x: Uint8Array | null) => format(t.element, x)).join(',') + close;
      }
      case 'map':
        return `{${cql
          .entries(b)
          .map(([k, x]: [Uint8Array | null, Uint8Array | null]) => `${format(t.key, k)}:${format(t.value, x)}`)
          .join(',')}}`;
      case 'tuple': {
        const fields = (v as { values: (Uint8Array | null)[] }).values;
        return `(${t.elements.map((e, i) => format(e, fields[i] ?? null)).join(',')})`;
      }
      case 'udt': {
        const fields = (v as { values: (Uint8Array | null)[] }).values;
        return `{${t.fields.map((f, i) => `${fieldName(f.name)}:${format(f.type, fields[i] ?? null)}`).join(',')}}`;
      }
      case 'custom':
        return jl.str(v);
    }
  };
  /** Metadata.quoteIfNecessary: a field name that is not a lower-case identifier is quoted. */
  const fieldName = (n: string): string => (/^[a-z][a-z0-9_]*$/.test(n) ? n : `"${n.replaceAll('"', '""')}"`);

  g.$jc = { dec, enc, format, javaClass, typeText, accepts };
}
