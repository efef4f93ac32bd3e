// What CREATE FUNCTION ... LANGUAGE java refuses, with Cassandra's messages: ECJ's compile problems (as checked
// against ECJ itself for the same body in Cassandra's template), the byte-code verifier's findings
// (UFVerifierTest, UFSecurityTest), what the sandbox cannot offer (System, threads, reflection, I/O), and
// constructs this compiler does not support. Nothing here may reach call time.
import { describe, expect, it } from 'vitest';
import { asInt, call, type JavaFunction, refusal } from './support/java-udf-runner.js';

const doubleFn = (body: string, calledOnNullInput = false): JavaFunction => ({
  args: [['val', 'double']],
  returns: 'double',
  calledOnNullInput,
  body,
});
const compileFailed = (...lines: string[]): string =>
  `Java source compilation failed:\n${lines.map((l) => `${l}\n`).join('')}`;

describe('compile problems, as ECJ reports them', () => {
  it('syntax errors (UFJavaTest.testJavaFunctionInvalidBodies)', () => {
    const f = (body: string): JavaFunction => ({ returns: 'bigint', body });
    expect(refusal(f('\nfoobarbaz\n'))).toBe(
      compileFailed(
        'Line 2: Syntax error, insert "VariableDeclarators" to complete LocalVariableDeclaration',
        'Line 2: Syntax error, insert ";" to complete BlockStatements',
      ),
    );
    expect(refusal(f('\nfoobarbaz;\n'))).toContain('foobarbaz cannot be resolved');
  });

  it('type mismatches (UFJavaTest.testJavaFunctionInvalidReturn) and several problems at once', () => {
    expect(refusal(doubleFn('return 1L;'))).toBe(
      compileFailed('Line 1: Type mismatch: cannot convert from long to Double'),
    );
    expect(refusal({ args: [['a', 'int']], returns: 'int', body: 'int x = "a";\nreturn y;' })).toBe(
      compileFailed(
        'Line 1: Type mismatch: cannot convert from String to int',
        'Line 2: y cannot be resolved to a variable',
      ),
    );
    expect(refusal({ returns: 'int', body: 'Integer i = 1L; return i;' })).toBe(
      compileFailed('Line 1: Type mismatch: cannot convert from long to Integer'),
    );
  });

  it('operators, methods and variables that do not exist', () => {
    const f = (body: string): string | undefined =>
      refusal({ args: [['a', 'int']], returns: 'int', calledOnNullInput: true, body });
    expect(f('int sum = 0; Object value = 1; sum += value; return sum;')).toBe(
      compileFailed('Line 1: The operator += is undefined for the argument type(s) int, Object'),
    );
    expect(f('String s = "x"; return s - 1;')).toBe(
      compileFailed('Line 1: The operator - is undefined for the argument type(s) String, int'),
    );
    expect(f('return Math.foo(1);')).toBe(compileFailed('Line 1: The method foo(int) is undefined for the type Math'));
    expect(f('return "x".substring("a");')).toBe(
      compileFailed(
        'Line 1: The method substring(int) in the type String is not applicable for the arguments (String)',
      ),
    );
    expect(f('return new java.util.ArrayList<String>().foo();')).toBe(
      compileFailed('Line 1: The method foo() is undefined for the type ArrayList<String>'),
    );
    expect(f('int x = 1; x.foo(); return 1;')).toBe(
      compileFailed('Line 1: Cannot invoke foo() on the primitive type int'),
    );
    expect(f('String s = "x"; return s.constructor;')).toBe(
      compileFailed('Line 1: constructor cannot be resolved or is not a field'),
    );
    expect(f('Integer b = a; if (b == "x") return 1; return 0;')).toBe(
      compileFailed('Line 1: Incompatible operand types Integer and String'),
    );
    expect(f('Integer b = a; return (String) b;')).toBe(compileFailed('Line 1: Cannot cast from Integer to String'));
  });

  it('flow: unreachable code, uninitialized locals, duplicates, finals, unhandled checked exceptions', () => {
    const f = (body: string): string | undefined => refusal({ args: [['a', 'int']], returns: 'int', body });
    expect(f('return 1; int x = 2;')).toBe(compileFailed('Line 1: Unreachable code'));
    expect(f('int x; return x;')).toBe(compileFailed('Line 1: The local variable x may not have been initialized'));
    expect(f('int a = 1; return a;')).toBe(compileFailed('Line 1: Duplicate local variable a'));
    expect(f('final int x = 1; x = 2; return x;')).toBe(
      compileFailed(
        'Line 1: The final local variable x cannot be assigned. It must be blank and not using a compound assignment',
      ),
    );
    expect(f('throw new Exception("x");')).toBe(compileFailed('Line 1: Unhandled exception type Exception'));
    expect(f('try { throw new Exception("x"); } catch (Exception e) { return 1; }')).toBeUndefined();
    expect(f('for (;;) { break; }')).toMatch(/This method must return a result of type Integer/);
  });

  it('a body that can end without returning: reported in the generated source, as Cassandra does', () => {
    expect(refusal({ args: [['a', 'int']], returns: 'int', body: 'if (a > 0) return 1;' })).toMatch(
      /^Java source compilation failed:\nGENERATED SOURCE ERROR: line 37 \(in generated source\): This method must return a result of type Integer\n/,
    );
  });
});

describe("Cassandra's byte-code verifier findings (UFVerifierTest)", () => {
  const invalid = (body: string): string | undefined => refusal(doubleFn(body, true));

  it('Object methods: clone, finalize, notify, wait', () => {
    expect(
      invalid(
        'try\n{\n    clone();\n}\ncatch (CloneNotSupportedException e)\n{\n    throw new RuntimeException(e);\n}\nreturn 0d;',
      ),
    ).toBe('Java UDF validation failed: [call to java.lang.Object.clone()]');
    expect(
      invalid('try\n{\n    finalize();\n}\ncatch (Throwable e)\n{\n    throw new RuntimeException(e);\n}\nreturn 0d;'),
    ).toBe('Java UDF validation failed: [call to java.lang.Object.finalize()]');
  });

  it('synchronized, with notify/notifyAll/wait', () => {
    expect(invalid('synchronized (this)\n{\n    Math.sin(1d);\n}\nreturn 0d;')).toBe(
      'Java UDF validation failed: [use of synchronized]',
    );
    expect(invalid('synchronized (this)\n{\n    notify();\n}\nreturn 0d;')).toBe(
      'Java UDF validation failed: [call to java.lang.Object.notify(), use of synchronized]',
    );
    expect(invalid('synchronized (this)\n{\n    notifyAll();\n}\nreturn 0d;')).toBe(
      'Java UDF validation failed: [call to java.lang.Object.notifyAll(), use of synchronized]',
    );
    expect(
      invalid(
        'synchronized (this)\n{\n    try\n    {\n        wait(1000L, 100);\n    }\n    catch (InterruptedException e)\n    {\n        throw new RuntimeException(e);\n    }\n}\nreturn 0d;',
      ),
    ).toBe('Java UDF validation failed: [call to java.lang.Object.wait(), use of synchronized]');
  });

  it('fields, initializers and static initializers declared after closing the method early', () => {
    expect(invalid('\nreturn 0d;\n    }\n\n    Object field;\n\n    {')).toBe(
      'Java UDF validation failed: [field declared: field]',
    );
    expect(invalid('\nreturn 0d;\n    }\n\n    final Object field;\n\n    {\nfield = new Object();')).toBe(
      'Java UDF validation failed: [field declared: field, initializer declared]',
    );
    expect(invalid('\nreturn 0d;\n    }\n\n    Object field = new Object();\n\n    {\nMath.sin(1d);')).toBe(
      'Java UDF validation failed: [field declared: field, initializer declared]',
    );
    expect(invalid('\nreturn 0d;\n    }\n\n    {\nMath.sin(1d);')).toBe(
      'Java UDF validation failed: [initializer declared]',
    );
    expect(invalid('\nreturn 0d;\n    }\n\n    static\n    {\nMath.sin(1d);')).toBe(
      'Java UDF validation failed: [static initializer declared]',
    );
  });

  it('network and direct-memory calls', () => {
    const wrapped = (stmt: string) =>
      `try {     ${stmt} return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`;
    expect(invalid(wrapped('java.nio.ByteBuffer.allocateDirect(123);'))).toBe(
      'Java UDF validation failed: [call to java.nio.ByteBuffer.allocateDirect()]',
    );
    expect(invalid(wrapped('java.net.InetAddress.getLocalHost();'))).toBe(
      'Java UDF validation failed: [call to java.net.InetAddress.getLocalHost()]',
    );
    expect(invalid(wrapped('java.net.InetAddress.getAllByName("localhost");'))).toBe(
      'Java UDF validation failed: [call to java.net.InetAddress.getAllByName()]',
    );
    expect(invalid(wrapped('java.net.Inet4Address.getByName("127.0.0.1");'))).toBe(
      'Java UDF validation failed: [call to java.net.Inet4Address.getByName()]',
    );
    expect(invalid(wrapped('java.net.Inet6Address.getByAddress(new byte[]{127,0,0,1});'))).toBe(
      'Java UDF validation failed: [call to java.net.Inet6Address.getByAddress()]',
    );
    expect(invalid(wrapped('java.net.NetworkInterface.getNetworkInterfaces();'))).toBe(
      'Java UDF validation failed: [call to java.net.NetworkInterface.getNetworkInterfaces()]',
    );
  });
});

describe('what the sandbox cannot reach (UFSecurityTest)', () => {
  const invalid = (body: string): string | undefined => refusal(doubleFn(body));

  it('Class.forName', () => {
    for (const cls of ['org.apache.cassandra.cql3.functions.UDHelper', 'sun.misc.Unsafe'])
      expect(
        invalid(`try { Class.forName("${cls}"); } catch (Exception e) { throw new RuntimeException(e); } return 0d;`),
      ).toBe('Java UDF validation failed: [call to java.lang.Class.forName()]');
  });

  it('System, Runtime, Thread, files, sockets and the server itself cannot be resolved', () => {
    const wrapped = (stmt: string) =>
      `try {     ${stmt} return 0d;} catch (Exception t) {     throw new RuntimeException(t);}`;
    const cases: [string, string][] = [
      ['System.getProperty("foo.bar.baz"); return 0d;', 'System cannot be resolved'],
      ['long t = System.currentTimeMillis(); return 0d;', 'System cannot be resolved'],
      ['sun.misc.Unsafe.getUnsafe(); return 0d;', 'sun.misc.Unsafe cannot be resolved'],
      [wrapped('java.nio.file.FileSystems.getDefault();'), 'java.nio.file.FileSystems cannot be resolved'],
      [wrapped('new java.io.FileInputStream("./foobar").close();'), 'java.io.FileInputStream cannot be resolved'],
      [wrapped('java.lang.Runtime.getRuntime();'), 'java.lang.Runtime cannot be resolved'],
      [
        wrapped(
          'org.apache.cassandra.service.StorageService v = org.apache.cassandra.service.StorageService.instance; v.isShutdown();',
        ),
        'org.apache.cassandra.service.StorageService cannot be resolved',
      ],
      [wrapped('new java.net.ServerSocket().bind();'), 'java.net.ServerSocket cannot be resolved'],
      [wrapped('new java.io.FileOutputStream(".foo");'), 'java.io.FileOutputStream cannot be resolved'],
      ['Thread.sleep(10); return 0d;', 'Thread cannot be resolved'],
      ['Thread t = new Thread(); return 0d;', 'Thread cannot be resolved to a type'],
      ['Runnable r = null; return 0d;', 'Runnable cannot be resolved to a type'],
      ['java.lang.reflect.Method m = null; return 0d;', 'java.lang.reflect.Method cannot be resolved to a type'],
      ['java.util.concurrent.ConcurrentHashMap<String, String> m = null; return 0d;', 'cannot be resolved to a type'],
    ];
    for (const [body, message] of cases) expect(invalid(body), body).toContain(message);
  });

  it('constructs the compiler refuses at CREATE time, saying so', () => {
    const cases: [string, string][] = [
      [
        'java.util.List<Integer> l = new java.util.ArrayList<>(); l.sort((x, y) -> x - y); return 0d;',
        'Lambda expressions are not supported',
      ],
      [
        'java.util.List<Integer> l = new java.util.ArrayList<>(); l.forEach(System.out::println); return 0d;',
        'not supported',
      ],
      ['Object o = new Object() { }; return 0d;', 'Anonymous classes are not supported'],
      ['class X { } return 0d;', 'Local classes are not supported'],
      ['return (double) getClass().hashCode();', 'getClass() is not supported'],
      ['return (double) "x".getClass().hashCode();', 'getClass() is not supported'],
      ['java.util.Random r = new java.util.Random(); return 0d;', 'java.util.Random is not supported'],
      ['return (double) this.hashCode();', "'this' is not supported"],
      ['return (double) "abc".chars().count();', 'The method chars() is undefined for the type String'],
      ['return "a1".matches("\\\\p{Alpha}\\\\d") ? 1d : 0d;', 'uses syntax not supported in Java UDFs'],
      ['return (double) "aaa".split("a++").length;', 'uses syntax not supported in Java UDFs'],
    ];
    for (const [body, message] of cases) {
      const m = invalid(body);
      expect(m, body).toMatch(/^Java (source compilation|UDF validation) failed/);
      expect(m, body).toContain(message);
    }
  });

  it('no Java identifier reaches a JS name: locals named like JS globals and internals are ordinary locals', async () => {
    const body =
      'int constructor = 1, __proto__ = 2, eval = 3, globalThis = 4, $jl = 5, undefined = 6, arguments = 7; return constructor + __proto__ + eval + globalThis + $jl + undefined + arguments;';
    expect(asInt(await call({ returns: 'int', body }))).toBe(28);
  });
});
