// Java UDF bodies from Cassandra's own tests (UFTest, UFJavaTest, UFTypesTest, AggregationTest) and the kinds of
// bodies users write, run in the sandbox on CQL-serialized arguments; results are compared byte for byte with what
// Cassandra returns (or, for a thrown exception, with the FunctionFailure detail: Java's Throwable.toString()).
import { describe, expect, it } from 'vitest';
import type { CqlType } from '../cql/types/cql-type.js';
import { parseTypeString } from '../cql/types/type-parser.js';
import {
  asBigint,
  asDouble,
  asInt,
  asText,
  bigint,
  call,
  double,
  elements,
  entries,
  int,
  load,
  text,
} from './support/java-udf-runner.js';

const bool = (b: boolean): Uint8Array => Uint8Array.of(b ? 1 : 0);

describe('arguments, results and nulls', () => {
  it('CALLED ON NULL INPUT gets boxed parameters that may be null (UFJavaTest.testJavaFunction)', async () => {
    const f = await load({
      args: [['val', 'double']],
      returns: 'double',
      calledOnNullInput: true,
      body: '\n  // parameter val is of type java.lang.Double\n  /* return type is of type java.lang.Double */\n  if (val == null) {\n    return null;\n  }\n  return Math.sin(val);\n',
    });
    expect(asDouble(f(double(1)))).toBe(Math.sin(1));
    expect(f(null)).toBeNull();
  });

  it('RETURNS NULL ON NULL INPUT gets primitives', async () => {
    expect(
      asDouble(await call({ args: [['val', 'double']], returns: 'double', body: 'return Math.sin(val);' }, double(2))),
    ).toBe(Math.sin(2));
  });

  it('a function without parameters (testJavaFunctionNoParameters)', async () => {
    expect(asBigint(await call({ returns: 'bigint', body: '\n  return 1L;\n' }))).toBe(1n);
  });

  it('counter arguments are Long (testJavaFunctionCounter), and unboxing null throws NullPointerException', async () => {
    const f = await load({
      args: [['val', 'counter']],
      returns: 'bigint',
      calledOnNullInput: true,
      body: 'return val + 1;',
    });
    expect(asBigint(f(bigint(4)))).toBe(5n);
    expect(f(null)).toEqual({ throws: 'java.lang.NullPointerException' });
  });

  it('Double.valueOf(val) over a double argument (testJavaFunctionArgumentTypeMismatch body)', async () => {
    expect(
      asDouble(
        await call({ args: [['val', 'double']], returns: 'double', body: 'return Double.valueOf(val);' }, double(3)),
      ),
    ).toBe(3);
  });

  it('string concatenation with Java double text (testJavaDollarQuotedFunction)', async () => {
    const body =
      "\n  // parameter val is of type java.lang.Double\n  /* return type is of type java.lang.Double */\n  if (input == null) {\n    return null;\n  }\n  return \"'\"+Math.sin(input)+'\\'';\n";
    const f = await load({ args: [['input', 'double']], returns: 'text', calledOnNullInput: true, body });
    expect(asText(f(double(1)))).toBe(`'${Math.sin(1)}'`);
    expect(asText(f(double(0)))).toBe("'0.0'");
  });

  it('StringBuilder in a loop (UFTest.testFunctionExecution) and v + v', async () => {
    const repeat = {
      args: [
        ['v', 'text'],
        ['n', 'int'],
      ] as const,
      returns: 'text',
      body: 'StringBuilder sb = new StringBuilder();\n    for (int i = 0; i < n; i++)\n        sb.append(v);\n    return sb.toString();',
    };
    expect(asText(await call(repeat, text('a'), int(3)))).toBe('aaa');
    expect(asText(await call({ args: [['v', 'text']], returns: 'text', body: 'return v + v;' }, text('ab')))).toBe(
      'abab',
    );
  });

  it('empty text and blob are values, an empty blob result is not null (UFTest.testEmptyString)', async () => {
    expect(
      await call({ args: [['val', 'text']], returns: 'text', calledOnNullInput: true, body: 'return val;' }, text('')),
    ).toEqual(Buffer.alloc(0));
    expect(
      await call(
        { args: [['val', 'blob']], returns: 'blob', calledOnNullInput: true, body: 'return ByteBuffer.allocate(0);' },
        null,
      ),
    ).toEqual(Buffer.alloc(0));
    expect(await call({ args: [['val', 'blob']], returns: 'blob', body: 'return val;' }, Uint8Array.of(1, 2))).toEqual(
      Buffer.from([1, 2]),
    );
  });

  it('every native type round-trips through `return val;` (UFTypesTest.testTypesWithAndWithoutNulls)', async () => {
    const samples: [string, Uint8Array][] = [
      ['timestamp', bigint(1234567890123)],
      ['date', Uint8Array.of(0x80, 0, 0x30, 0x39)],
      ['time', bigint(12345)],
      ['uuid', Buffer.from('123e4567e89b12d3a456426614174000', 'hex')],
      ['timeuuid', Buffer.from('a4a70900244811e5b8e1a5bd0a0b9f1b', 'hex')],
      ['tinyint', Uint8Array.of(42)],
      ['smallint', Uint8Array.of(0, 43)],
      ['int', int(44)],
      ['bigint', bigint(45)],
      ['float', Buffer.from([0x42, 0x38, 0, 0])],
      ['double', double(47)],
      ['boolean', bool(true)],
      ['ascii', text('tqbfjutld')],
      ['text', text('k\u00f6lsche jung')],
      ['varint', Uint8Array.of(0xff, 0x00, 0x01)],
      ['decimal', Uint8Array.of(0, 0, 0, 2, 0x04, 0xd2)],
      ['inet', Uint8Array.of(127, 0, 0, 1)],
      ['blob', Uint8Array.of(0xca, 0xfe)],
      ['duration', Uint8Array.of(2, 4, 6)],
      ['tuple<int, text>', elements([int(1), text('foo')], true)],
    ];
    for (const [type, value] of samples) {
      const f = await load({ args: [['val', type]], returns: type, calledOnNullInput: true, body: 'return val;' });
      expect(f(value), type).toEqual(Buffer.from(value));
      expect(f(null), type).toBeNull();
    }
  });
});

describe('collections (java.util)', () => {
  const list = elements([double(1), double(2), double(3)]);
  const set = elements([text('one'), text('three'), text('two')]);
  const map = entries([
    [int(1), bool(true)],
    [int(2), bool(false)],
    [int(3), bool(true)],
  ]);

  it('lists, sets and maps come back as they went in (testJavaSimpleCollections)', async () => {
    expect(await call({ args: [['lst', 'list<double>']], returns: 'list<double>', body: 'return lst;' }, list)).toEqual(
      Buffer.from(list),
    );
    expect(await call({ args: [['st', 'set<text>']], returns: 'set<text>', body: 'return st;' }, set)).toEqual(
      Buffer.from(set),
    );
    expect(
      await call({ args: [['mp', 'map<int, boolean>']], returns: 'map<int, boolean>', body: 'return mp;' }, map),
    ).toEqual(Buffer.from(map));
  });

  it('sums a set through Object and a cast (UFTypesTest frozen collections)', async () => {
    const body = 'int sum = 0; for (Object value : values) {sum += ((Integer) value);} return sum;';
    const f = await load({ args: [['values', 'set<int>']], returns: 'int', calledOnNullInput: true, body });
    expect(asInt(f(elements([int(1), int(2), int(3)])))).toBe(6);
    expect(asInt(f(elements([])))).toBe(0);
    const mapBody = 'int sum = 0; for (Object value : values.values()) {sum += ((Integer) value);} return sum;';
    expect(
      asInt(
        await call(
          { args: [['values', 'map<int, int>']], returns: 'int', calledOnNullInput: true, body: mapBody },
          entries([
            [int(7), int(7)],
            [int(8), int(8)],
          ]),
        ),
      ),
    ).toBe(15);
  });

  it('updates a map state (AggregationTest albumCountByCountry)', async () => {
    const body =
      '\n   if(state.containsKey(country)) {\n       Long newCount = (Long)state.get(country) + 1;\n       state.put(country, newCount);\n   } else {\n       state.put(country, 1L);\n   }\n   return state;\n ';
    const f = await load({
      args: [
        ['state', 'map<text,bigint>'],
        ['country', 'text'],
        ['album_title', 'text'],
      ],
      returns: 'map<text,bigint>',
      body,
    });
    const once = f(entries([]), text('fr'), text('x')) as Buffer;
    expect(once).toEqual(Buffer.from(entries([[text('fr'), bigint(1)]])));
    expect(f(once, text('fr'), text('y'))).toEqual(Buffer.from(entries([[text('fr'), bigint(2)]])));
  });

  it('adds to a set state when the value is not null (AggregationTest)', async () => {
    const f = await load({
      args: [
        ['s', 'set<text>'],
        ['i', 'int'],
      ],
      returns: 'set<text>',
      calledOnNullInput: true,
      body: 'if (i != null) s.add(String.valueOf(i)); return s;',
    });
    expect(f(elements([text('1')]), int(7))).toEqual(Buffer.from(elements([text('1'), text('7')])));
    expect(f(elements([text('1')]), null)).toEqual(Buffer.from(elements([text('1')])));
  });

  it('a HashSet result is serialized in Java HashSet iteration order', async () => {
    const body =
      'Set<String> s = new HashSet<>(); for (String x : new String[]{"banana", "apple", "cherry", "date", "elderberry", "fig", "grape"}) s.add(x); return s;';
    expect(await call({ returns: 'set<text>', body })).toEqual(
      Buffer.from(elements(['banana', 'date', 'apple', 'cherry', 'fig', 'grape', 'elderberry'].map(text))),
    );
  });

  it('iterates entrySet, keySet and values of a map argument in its order', async () => {
    const body =
      "StringBuilder sb = new StringBuilder(); for (Map.Entry<Integer, Boolean> e : mp.entrySet()) sb.append(e.getKey()).append('=').append(e.getValue()).append(' '); for (int k : mp.keySet()) sb.append(k); for (boolean v : mp.values()) sb.append(v ? 'T' : 'F'); return sb.toString();";
    expect(asText(await call({ args: [['mp', 'map<int, boolean>']], returns: 'text', body }, map))).toBe(
      '1=true 2=false 3=true 123TFT',
    );
  });

  it('modifying a list while iterating it throws ConcurrentModificationException as Java does', async () => {
    const body =
      'List<Integer> l = new ArrayList<>(Arrays.asList(1, 2, 3)); for (Integer x : l) l.remove(x); return l.size();';
    expect(await call({ returns: 'int', body })).toEqual({ throws: 'java.util.ConcurrentModificationException' });
  });

  it('a raw list with a wrong element is refused when the result is serialized', async () => {
    const body = 'List l = new ArrayList(); l.add("x"); return l;';
    expect(await call({ returns: 'list<int>', body })).toEqual({
      throws:
        'org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException: Invalid type for list<int> element, expecting java.lang.Integer but got class java.lang.String',
    });
  });

  it('null elements cannot be serialized', async () => {
    expect(
      await call({ returns: 'list<int>', body: 'List<Integer> l = new ArrayList<>(); l.add(null); return l;' }),
    ).toEqual({
      throws: 'java.lang.NullPointerException: Collection elements cannot be null',
    });
  });
});

describe('TupleValue and UDTValue', () => {
  const tupleType = 'tuple<double, list<double>, set<text>, map<int, boolean>>';
  const tuple = elements(
    [
      double(1),
      elements([double(1), double(2), double(3)]),
      elements([text('one'), text('three'), text('two')]),
      entries([
        [int(1), bool(true)],
        [int(2), bool(false)],
      ]),
    ],
    true,
  );

  it('getters by index with Class arguments (testJavaTupleTypeCollection)', async () => {
    const arg = [['tup', tupleType]] as const;
    expect(
      await call({ args: arg, returns: tupleType, calledOnNullInput: true, body: 'return \n       tup;' }, tuple),
    ).toEqual(Buffer.from(tuple));
    expect(
      asDouble(
        await call(
          { args: arg, returns: 'double', calledOnNullInput: true, body: 'return Double.valueOf(tup.getDouble(0));' },
          tuple,
        ),
      ),
    ).toBe(1);
    expect(
      await call({ args: arg, returns: 'list<double>', body: 'return tup.getList(1, Double.class);' }, tuple),
    ).toEqual(Buffer.from(elements([double(1), double(2), double(3)])));
    expect(await call({ args: arg, returns: 'set<text>', body: 'return tup.getSet(2, String.class);' }, tuple)).toEqual(
      Buffer.from(elements([text('one'), text('three'), text('two')])),
    );
    expect(
      await call(
        { args: arg, returns: 'map<int, boolean>', body: 'return tup.getMap(3, Integer.class, Boolean.class);' },
        tuple,
      ),
    ).toEqual(
      Buffer.from(
        entries([
          [int(1), bool(true)],
          [int(2), bool(false)],
        ]),
      ),
    );
  });

  it('asking a field for the wrong Java type throws CodecNotFoundException', async () => {
    expect(
      await call({ args: [['tup', tupleType]], returns: 'text', body: 'return tup.getString(0);' }, tuple),
    ).toEqual({
      throws:
        'org.apache.cassandra.cql3.functions.types.exceptions.CodecNotFoundException: Codec not found for requested operation: [double <-> java.lang.String]',
    });
  });

  it('setters on an argument tuple (AggregationTest state function)', async () => {
    const f = await load({
      args: [
        ['a', 'tuple<bigint, int>'],
        ['b', 'int'],
      ],
      returns: 'tuple<bigint, int>',
      calledOnNullInput: true,
      body: 'a.setLong(0, a.getLong(0) + b.intValue());a.setInt(1, a.getInt(1) + 1);return a;',
    });
    expect(f(elements([bigint(5), int(1)], true), int(10))).toEqual(Buffer.from(elements([bigint(15), int(2)], true)));
  });

  it('toString prints the CQL literal, NULL for null fields (UFTypesTest)', async () => {
    const f = await load({
      args: [['values', 'tuple<int, int>']],
      returns: 'text',
      calledOnNullInput: true,
      body: 'return values.toString();',
    });
    expect(asText(f(elements([int(1), int(2)], true)))).toBe('(1,2)');
    expect(asText(f(elements([null, null], true)))).toBe('(NULL,NULL)');
  });

  const udt: CqlType = {
    kind: 'udt',
    keyspace: 'ks',
    name: 'person',
    fields: [
      { name: 'txt', type: parseTypeString('text') },
      { name: 'i', type: parseTypeString('int') },
    ],
    frozen: true,
  };
  const one = elements([text('one'), int(1)], true);

  it('UDT getters by field name (testJavaUserType), and an unknown field', async () => {
    const args = [['udt', 'person']] as const;
    const userTypes = { person: udt };
    expect(
      asText(await call({ args, userTypes, returns: 'text', body: 'return \n     udt.getString("txt");' }, one)),
    ).toBe('one');
    expect(
      asInt(
        await call(
          {
            args,
            userTypes,
            returns: 'int',
            calledOnNullInput: true,
            body: 'return Integer.valueOf(udt.getInt("i"));',
          },
          one,
        ),
      ),
    ).toBe(1);
    expect(
      await call(
        {
          args,
          userTypes,
          returns: 'double',
          calledOnNullInput: true,
          body: 'return Double.valueOf(udt.getDouble("added"));',
        },
        one,
      ),
    ).toEqual({
      throws: 'java.lang.IllegalArgumentException: added is not a field defined in this UDT',
    });
    expect(asText(await call({ args, userTypes, returns: 'text', body: 'return udt.toString();' }, one))).toBe(
      "{txt:'one',i:1}",
    );
  });

  it('UDTs inside collections, cast with the driver package name (testJavaUTCollections)', async () => {
    const userTypes = { person: udt };
    const three = elements([text('three'), int(1)], true);
    const body =
      '     org.apache.cassandra.cql3.functions.types.UDTValue udtVal = (com.datastax.driver.core.UDTValue)lst.get(1);     return udtVal.getString("txt");';
    expect(
      asText(
        await call(
          { args: [['lst', 'list<frozen<person>>']], userTypes, returns: 'text', body },
          elements([one, three, one]),
        ),
      ),
    ).toBe('three');
    const setBody =
      '     com.datastax.driver.core.UDTValue udtVal = (org.apache.cassandra.cql3.functions.types.UDTValue)st.iterator().next();     return udtVal.getString("txt");';
    expect(
      asText(
        await call(
          { args: [['st', 'set<frozen<person>>']], userTypes, returns: 'text', body: setBody },
          elements([one, three]),
        ),
      ),
    ).toBe('one');
  });

  it('udfContext creates return, argument and named values', async () => {
    const userTypes = { person: udt };
    expect(
      await call({
        userTypes,
        returns: 'person',
        body: 'UDTValue u = udfContext.newReturnUDTValue(); u.setString("txt", "x"); u.setInt("i", 5); return u;',
      }),
    ).toEqual(Buffer.from(elements([text('x'), int(5)], true)));
    expect(
      await call({
        returns: 'tuple<int, text>',
        body: 'TupleValue t = udfContext.newTupleValue("tuple<int, text>"); t.setInt(0, 7); return t;',
      }),
    ).toEqual(Buffer.from(elements([int(7), null], true)));
    expect(
      await call(
        {
          args: [['p', 'person']],
          userTypes,
          returns: 'text',
          body: 'UDTValue u = udfContext.newArgUDTValue("p"); return u.toString() + udfContext.newUDTValue("person").isNull(0);',
        },
        one,
      ),
    ).toEqual(Buffer.from('{txt:NULL,i:NULL}true'));
  });
});

describe('exceptions', () => {
  it('a thrown exception reaches the user as Throwable.toString() (testJavaRuntimeException)', async () => {
    expect(
      await call(
        { args: [['val', 'double']], returns: 'double', body: '\n  throw new RuntimeException("oh no!");\n' },
        double(1),
      ),
    ).toEqual({
      throws: 'java.lang.RuntimeException: oh no!',
    });
    expect(await call({ returns: 'int', body: 'throw new RuntimeException();' })).toEqual({
      throws: 'java.lang.RuntimeException',
    });
  });

  it('integer division by zero, array bounds, casts and string indexes throw Java exceptions', async () => {
    const f = async (body: string) => call({ args: [['a', 'int']], returns: 'int', body }, int(0));
    expect(await f('return 7 / a;')).toEqual({ throws: 'java.lang.ArithmeticException: / by zero' });
    expect(await f('return 7 % a;')).toEqual({ throws: 'java.lang.ArithmeticException: / by zero' });
    expect(await f('long x = 7L / a; return (int) x;')).toEqual({ throws: 'java.lang.ArithmeticException: / by zero' });
    expect(await f('int[] x = new int[3]; return x[a + 3];')).toEqual({
      throws: 'java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3',
    });
    expect(await f('Object o = "s"; return (Integer) o;')).toEqual({
      throws:
        "java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer (java.lang.String and java.lang.Integer are in module java.base of loader 'bootstrap')",
    });
    expect(await f('return (int) "abc".charAt(5);')).toEqual({
      throws: 'java.lang.StringIndexOutOfBoundsException: String index out of range: 5',
    });
    expect(await f('return Integer.parseInt("12x");')).toEqual({
      throws: 'java.lang.NumberFormatException: For input string: "12x"',
    });
    expect(await f('return Math.addExact(Integer.MAX_VALUE, 1);')).toEqual({
      throws: 'java.lang.ArithmeticException: integer overflow',
    });
    expect(await f('return new ArrayList<Integer>().get(0);')).toEqual({
      throws: 'java.lang.IndexOutOfBoundsException: Index 0 out of bounds for length 0',
    });
  });

  it('try/catch/finally catch by Java type and run finally blocks in order', async () => {
    const body =
      'StringBuilder sb = new StringBuilder(); try { try { sb.append("a"); int x = 1 / a; } finally { sb.append("f"); } } catch (IllegalStateException | ArithmeticException e) { sb.append(e.getMessage()); } catch (RuntimeException e) { sb.append("no"); } return sb.toString();';
    expect(asText(await call({ args: [['a', 'int']], returns: 'text', body }, int(0)))).toBe('af/ by zero');
  });

  it('an exception with a cause prints the cause as its message', async () => {
    const body =
      'try { Object o = null; o.hashCode(); return "no"; } catch (Exception e) { throw new RuntimeException(e); }';
    expect(await call({ returns: 'text', body })).toEqual({
      throws: 'java.lang.RuntimeException: java.lang.NullPointerException',
    });
  });
});

describe('evaluation order', () => {
  it('receiver and arguments are evaluated once, left to right, whatever the member becomes', async () => {
    const body =
      'int i = 0; int c = Integer.compare(i++, 5); int j = 2; int k = "hello".lastIndexOf("l", j++ + 1); StringBuilder sb = new StringBuilder(); sb.append(i++).append(i++); return c * 10000 + k * 1000 + j * 100 + Integer.parseInt(sb.toString()) + i;';
    // compare(0, 5) = -1; lastIndexOf("l", 3) = 3 with j then 3; "12" and i = 3
    expect(asInt(await call({ returns: 'int', body }))).toBe(-10000 + 3000 + 300 + 12 + 3);
  });
});

describe('boxing', () => {
  it('== on boxed integers follows the Integer cache, equals() compares values', async () => {
    const body = 'Integer x = a, y = a; return (x == y) + "," + x.equals(y);';
    const f = await load({ args: [['a', 'int']], returns: 'text', body });
    expect(asText(f(int(100)))).toBe('true,true');
    expect(asText(f(int(1000)))).toBe('false,true');
  });

  it('boxed values keep their Java class through Object', async () => {
    const body =
      'Object[] os = {1, 1L, 1.0, 1.0f, (short) 1, (byte) 1, \'1\', true, "1"}; StringBuilder sb = new StringBuilder(); for (Object o : os) sb.append(o).append(o instanceof Integer ? "I" : o instanceof Long ? "L" : o instanceof Double ? "D" : o instanceof Float ? "F" : o instanceof Short ? "S" : o instanceof Byte ? "B" : o instanceof Character ? "C" : o instanceof Boolean ? "Z" : "T").append(\' \'); return sb.toString() + Integer.valueOf(1).equals(1L) + new HashSet<Object>(Arrays.asList(1, 1L, 1.0)).size();';
    expect(asText(await call({ returns: 'text', body }))).toBe('1I 1L 1.0D 1.0F 1S 1B 1C trueZ 1T false3');
  });
});

describe("the Cassandra documentation's and the drivers' examples", () => {
  it('avgState / avgFinal over a tuple<int,bigint> state', async () => {
    const state = await load({
      args: [
        ['state', 'tuple<int,bigint>'],
        ['val', 'int'],
      ],
      returns: 'tuple<int,bigint>',
      calledOnNullInput: true,
      body: 'if (val != null) { state.setInt(0, state.getInt(0)+1); state.setLong(1, state.getLong(1)+val.intValue()); } return state;',
    });
    const final = await load({
      args: [['state', 'tuple<int,bigint>']],
      returns: 'double',
      calledOnNullInput: true,
      body: 'double r = 0; if (state.getInt(0) == 0) return null; r = state.getLong(1); r/= state.getInt(0); return Double.valueOf(r);',
    });
    let s = Buffer.from(elements([int(0), bigint(0)], true));
    for (const v of [1, 2, null, 4]) s = state(s, v === null ? null : int(v)) as Buffer;
    expect(s).toEqual(Buffer.from(elements([int(3), bigint(7)], true)));
    expect(asDouble(final(s))).toBe(7 / 3);
    expect(final(elements([int(0), bigint(0)], true))).toBeNull();
  });

  it('fLog, plus and stringify', async () => {
    expect(
      asDouble(
        await call(
          {
            args: [['input', 'double']],
            returns: 'double',
            calledOnNullInput: true,
            body: 'return Double.valueOf(Math.log(input.doubleValue()));',
          },
          double(Math.E),
        ),
      ),
    ).toBe(1);
    const plus = [
      ['s', 'bigint'],
      ['v', 'bigint'],
    ] as const;
    expect(
      asBigint(
        await call({ args: plus, returns: 'bigint', body: 'return s+v;' }, bigint(2n ** 62n), bigint(2n ** 62n)),
      ),
    ).toBe(-(2n ** 63n));
    const div = [
      ['dividend', 'int'],
      ['divisor', 'int'],
    ] as const;
    expect(
      asInt(
        await call(
          { args: div, returns: 'int', calledOnNullInput: true, body: 'return dividend / divisor;' },
          int(-7),
          int(2),
        ),
      ),
    ).toBe(-3);
    expect(
      asText(
        await call({ args: [['i', 'int']], returns: 'text', body: 'return Integer.toString(i) + "hello";' }, int(12)),
      ),
    ).toBe('12hello');
  });
});

describe('the Java classes of CQL values', () => {
  const date12345 = Uint8Array.of(0x80, 0, 0x30, 0x39); // 12345 days after the epoch

  it('date is LocalDate, timestamp is Date, timeuuid is UUID', async () => {
    expect(
      asText(
        await call(
          {
            args: [['d', 'date']],
            returns: 'text',
            body: 'return d.getYear() + "-" + d.getMonth() + "-" + d.getDay() + " " + d + " " + d.getDaysSinceEpoch() + " " + d.add(java.util.Calendar.MONTH, 1);',
          },
          date12345,
        ),
      ),
    ).toBe('2003-10-20 2003-10-20 12345 2003-11-20');
    expect(
      await call(
        {
          args: [['d', 'date']],
          returns: 'date',
          body: 'return org.apache.cassandra.cql3.functions.types.LocalDate.fromDaysSinceEpoch(d.getDaysSinceEpoch() + 1);',
        },
        date12345,
      ),
    ).toEqual(Buffer.from([0x80, 0, 0x30, 0x3a]));
    expect(
      asText(
        await call(
          { args: [['t', 'timestamp']], returns: 'text', body: 'return t.getTime() + " " + t;' },
          bigint(1234567890123),
        ),
      ),
    ).toBe('1234567890123 Fri Feb 13 23:31:30 UTC 2009');
    expect(
      asText(
        await call(
          { args: [['u', 'timeuuid']], returns: 'text', body: 'return u + " " + u.version() + " " + u.timestamp();' },
          Buffer.from('a4a70900244811e5b8e1a5bd0a0b9f1b', 'hex'),
        ),
      ),
    ).toBe('a4a70900-2448-11e5-b8e1-a5bd0a0b9f1b 1 136555258123323648');
    expect(
      await call(
        { args: [['u', 'uuid']], returns: 'timeuuid', body: 'return u;' },
        Buffer.from('123e4567e89b42d3a456426614174000', 'hex'),
      ),
    ).toEqual({
      throws:
        'org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException: 123e4567-e89b-42d3-a456-426614174000 is not a Type 1 (time-based) UUID',
    });
  });

  it('inet, duration, varint, decimal and blob', async () => {
    const inet = {
      args: [['i', 'inet']] as const,
      returns: 'text',
      body: 'return i.getHostAddress() + " " + i + " " + i.getAddress().length;',
    };
    expect(asText(await call(inet, Uint8Array.of(10, 0, 0, 255)))).toBe('10.0.0.255 /10.0.0.255 4');
    expect(asText(await call(inet, Uint8Array.of(0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)))).toBe(
      '2001:db8:0:0:0:0:0:1 /2001:db8:0:0:0:0:0:1 16',
    );
    expect(
      asText(
        await call(
          {
            args: [['d', 'duration']],
            returns: 'text',
            body: 'return d + " " + d.getMonths() + " " + d.getDays() + " " + d.getNanoseconds();',
          },
          Uint8Array.of(2, 4, 6),
        ),
      ),
    ).toBe('1mo2d3ns 1 2 3');
    expect(
      asText(
        await call(
          {
            args: [
              ['v', 'varint'],
              ['d', 'decimal'],
            ],
            returns: 'text',
            body: 'return v + " " + d + " " + v.multiply(v) + " " + d.multiply(new java.math.BigDecimal(v)) + " " + d.setScale(1, java.math.RoundingMode.HALF_EVEN);',
          },
          Uint8Array.of(0xff, 0x00, 0x01),
          Uint8Array.of(0, 0, 0, 2, 0x04, 0xd2),
        ),
      ),
    ).toBe('-65535 12.34 4294836225 -808701.90 12.3');
    expect(
      asText(
        await call(
          {
            args: [['b', 'blob']],
            returns: 'text',
            body: 'return b.remaining() + " " + b.get(0) + " " + b.getShort(0) + " " + b;',
          },
          Uint8Array.of(0xca, 0xfe),
        ),
      ),
    ).toBe('2 -54 -13570 java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]');
    expect(
      await call(
        {
          args: [['b', 'blob']],
          returns: 'blob',
          body: 'java.nio.ByteBuffer o = java.nio.ByteBuffer.allocate(b.remaining() + 4); o.putInt(42); o.put(b); o.flip(); return o;',
        },
        Uint8Array.of(0xca, 0xfe),
      ),
    ).toEqual(Buffer.from([0, 0, 0, 42, 0xca, 0xfe]));
  });

  it('small integers, floats and ascii results', async () => {
    const small = [
      ['a', 'smallint'],
      ['b', 'tinyint'],
    ] as const;
    expect(
      await call(
        { args: small, returns: 'smallint', body: 'return (short) (a + b);' },
        Uint8Array.of(0x7f, 0xff),
        Uint8Array.of(1),
      ),
    ).toEqual(Buffer.from([0x80, 0]));
    expect(
      asText(
        await call(
          { args: [['f', 'float']], returns: 'text', body: 'return f + " " + (double) f + " " + (f * 3);' },
          Buffer.from([0x3d, 0xcc, 0xcc, 0xcd]),
        ),
      ),
    ).toBe('0.1 0.10000000149011612 0.3');
    expect(await call({ args: [['a', 'ascii']], returns: 'ascii', body: 'return a + "\u00e9";' }, text('x'))).toEqual({
      throws:
        'org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException: x\u00e9 is not a valid ASCII String',
    });
  });

  it('nested collections and vectors', async () => {
    expect(
      asInt(
        await call(
          {
            args: [['l', 'list<frozen<list<int>>>']],
            returns: 'int',
            body: 'int s = 0; for (List<Integer> x : l) for (int y : x) s += y; return s;',
          },
          elements([elements([int(1), int(2)]), elements([int(3)])]),
        ),
      ),
    ).toBe(6);
    const body =
      'Map<String, Set<Integer>> r = new TreeMap<>(); for (Map.Entry<String, Set<Integer>> e : m.entrySet()) { Set<Integer> s = new TreeSet<>(e.getValue()); s.add(0); r.put(e.getKey().toUpperCase(), s); } return r;';
    expect(
      await call(
        { args: [['m', 'map<text, frozen<set<int>>>']], returns: 'map<text, frozen<set<int>>>', body },
        entries([
          [text('b'), elements([int(5)])],
          [text('a'), elements([int(2), int(1)])],
        ]),
      ),
    ).toEqual(
      Buffer.from(
        entries([
          [text('A'), elements([int(0), int(1), int(2)])],
          [text('B'), elements([int(0), int(5)])],
        ]),
      ),
    );
    expect(
      asText(
        await call(
          {
            args: [['v', 'vector<float, 3>']],
            returns: 'text',
            body: 'float s = 0; for (float x : v) s += x; return v + " " + s;',
          },
          Buffer.from([0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0x40, 0x40, 0, 0]),
        ),
      ),
    ).toBe('[1.0, 2.0, 3.0] 6.0');
  });
});
