// Sandbox prelude: Java's Throwable hierarchy as JS classes (global `$jx`). A thrown Java exception reaches the user
// as String(thrown), so toString() is Java's Throwable.toString(): "java.lang.ArithmeticException: / by zero".
// Self-contained: the function references nothing outside its body; the table is passed in as JSON.

/** The names (simple → [qualified, parent simple name, checked]) of the throwables a UDF can see. */
export const JAVA_THROWABLES: Readonly<Record<string, readonly [string, string | null, boolean]>> = {
  Throwable: ['java.lang.Throwable', null, true],
  Exception: ['java.lang.Exception', 'Throwable', true],
  Error: ['java.lang.Error', 'Throwable', false],
  RuntimeException: ['java.lang.RuntimeException', 'Exception', false],
  ArithmeticException: ['java.lang.ArithmeticException', 'RuntimeException', false],
  ArrayStoreException: ['java.lang.ArrayStoreException', 'RuntimeException', false],
  ClassCastException: ['java.lang.ClassCastException', 'RuntimeException', false],
  IllegalArgumentException: ['java.lang.IllegalArgumentException', 'RuntimeException', false],
  NumberFormatException: ['java.lang.NumberFormatException', 'IllegalArgumentException', false],
  IllegalStateException: ['java.lang.IllegalStateException', 'RuntimeException', false],
  IndexOutOfBoundsException: ['java.lang.IndexOutOfBoundsException', 'RuntimeException', false],
  ArrayIndexOutOfBoundsException: ['java.lang.ArrayIndexOutOfBoundsException', 'IndexOutOfBoundsException', false],
  StringIndexOutOfBoundsException: ['java.lang.StringIndexOutOfBoundsException', 'IndexOutOfBoundsException', false],
  NegativeArraySizeException: ['java.lang.NegativeArraySizeException', 'RuntimeException', false],
  NullPointerException: ['java.lang.NullPointerException', 'RuntimeException', false],
  UnsupportedOperationException: ['java.lang.UnsupportedOperationException', 'RuntimeException', false],
  SecurityException: ['java.lang.SecurityException', 'RuntimeException', false],
  NoSuchElementException: ['java.util.NoSuchElementException', 'RuntimeException', false],
  ConcurrentModificationException: ['java.util.ConcurrentModificationException', 'RuntimeException', false],
  IllegalFormatException: ['java.util.IllegalFormatException', 'IllegalArgumentException', false],
  UnknownFormatConversionException: ['java.util.UnknownFormatConversionException', 'IllegalFormatException', false],
  MissingFormatArgumentException: ['java.util.MissingFormatArgumentException', 'IllegalFormatException', false],
  IllegalFormatConversionException: ['java.util.IllegalFormatConversionException', 'IllegalFormatException', false],
  PatternSyntaxException: ['java.util.regex.PatternSyntaxException', 'IllegalArgumentException', false],
  BufferUnderflowException: ['java.nio.BufferUnderflowException', 'RuntimeException', false],
  BufferOverflowException: ['java.nio.BufferOverflowException', 'RuntimeException', false],
  AssertionError: ['java.lang.AssertionError', 'Error', false],
  CloneNotSupportedException: ['java.lang.CloneNotSupportedException', 'Exception', true],
  InterruptedException: ['java.lang.InterruptedException', 'Exception', true],
  IOException: ['java.io.IOException', 'Exception', true],
  InvalidTypeException: [
    'org.apache.cassandra.cql3.functions.types.exceptions.InvalidTypeException',
    'IllegalArgumentException',
    false,
  ],
  CodecNotFoundException: [
    'org.apache.cassandra.cql3.functions.types.exceptions.CodecNotFoundException',
    'RuntimeException',
    false,
  ],
};

/** Shipped as `(${javaExceptionsPrelude})(globalThis, ${JSON.stringify(JAVA_THROWABLES)})`. */
export function javaExceptionsPrelude(
  g: Record<string, unknown>,
  table: Readonly<Record<string, readonly [string, string | null, boolean]>>,
): void {
  class Throwable {
    readonly $message: string | null;
    readonly $cause: Throwable | null;
    constructor(message?: string | null, cause?: Throwable | null) {
      this.$message = message ?? null;
      this.$cause = cause ?? null;
    }
    get $cls(): string {
      return 'java.lang.Throwable';
    }
    getMessage(): string | null {
      return this.$message;
    }
    getLocalizedMessage(): string | null {
      return this.$message;
    }
    getCause(): Throwable | null {
      return this.$cause;
    }
    toString(): string {
      return this.$message === null ? this.$cls : `${this.$cls}: ${this.$message}`;
    }
    equals(o: unknown): boolean {
      return this === o;
    }
    hashCode(): number {
      return 0;
    }
  }

  const classes: Record<string, typeof Throwable> = { Throwable };
  for (const [name, [qualified, parent]] of Object.entries(table)) {
    if (parent === null) continue;
    const base = classes[parent]!;
    // A named class per throwable, so that `catch` can test with instanceof.
    const sub = class extends base {
      override get $cls(): string {
        return qualified;
      }
    };
    Object.defineProperty(sub, 'name', { value: name });
    classes[name] = sub;
  }

  /** `new X(cause)`: Java takes the cause's toString() as the message. */
  const withCause = (name: string, cause: Throwable | null): Throwable =>
    new classes[name]!(cause === null ? null : cause.toString(), cause);

  g.$jx = {
    ...classes,
    withCause,
    isJava: (e: unknown): boolean => e instanceof Throwable,
  };
}
