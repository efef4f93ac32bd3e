// Java semantics of UDF bodies, checked against what Java itself prints: each expression below was evaluated by
// OpenJDK 17 as `String.valueOf(<expression>)` (java.util.* and java.math.* imported), and a UDF body returning
// that string must give exactly the same text. Covers int/long overflow, integer division and remainder, shifts,
// narrowing casts, float vs double, string conversion of every primitive, Math, boxing, String methods and
// String.format, hash codes, HashSet/HashMap iteration order, TreeSet, BigInteger/BigDecimal, UUID and Date.
import { describe, expect, it } from 'vitest';
import { asText, call } from './support/java-udf-runner.js';

/** [Java expression, String.valueOf of its value as OpenJDK 17 printed it]. */
const JAVA_PRINTED: readonly (readonly [string, string])[] = [
  ['2147483647 + 1', '-2147483648'],
  ['-2147483648 - 1', '2147483647'],
  ['46341 * 46341', '-2147479015'],
  ['Long.MAX_VALUE + 1', '-9223372036854775808'],
  ['Long.MIN_VALUE / -1', '-9223372036854775808'],
  ['Integer.MIN_VALUE / -1', '-2147483648'],
  ['-7 / 2', '-3'],
  ['-7 % 2', '-1'],
  ['7 % -3', '1'],
  ['-7L / 2L', '-3'],
  ['-7L % 3L', '-1'],
  ['5.5 % 2', '1.5'],
  ['-5.5 % 2', '-1.5'],
  ['1 << 33', '2'],
  ['1L << 65', '2'],
  ['-1 >>> 28', '15'],
  ['-1L >>> 60', '15'],
  ['-16 >> 2', '-4'],
  ['(byte) 200', '-56'],
  ['(short) 70000', '4464'],
  ['(char) 65601', 'A'],
  ['(int) 3.9e10', '2147483647'],
  ['(long) -1e30', '-9223372036854775808'],
  ['(int) Double.NaN', '0'],
  ['(int) -2.7', '-2'],
  ['(long) 2.9f', '2'],
  ['(float) 1e40', 'Infinity'],
  ['(byte) -129.7', '127'],
  ['0.1f + 0.2f', '0.3'],
  ['0.1 + 0.2', '0.30000000000000004'],
  ['100.0 / 3', '33.333333333333336'],
  ['1.0f / 3', '0.33333334'],
  ['(double) 0.1f', '0.10000000149011612'],
  ['1e7', '1.0E7'],
  ['1e-3', '0.001'],
  ['9999999.0', '9999999.0'],
  ['0.001f', '0.001'],
  ['1.0E-4f', '1.0E-4'],
  ['-0.0', '-0.0'],
  ['1.0 / 0', 'Infinity'],
  ['-1.0 / 0', '-Infinity'],
  ['0.0 / 0', 'NaN'],
  ['Double.MIN_VALUE', '4.9E-324'],
  ['Double.MAX_VALUE', '1.7976931348623157E308'],
  ['Float.MAX_VALUE', '3.4028235E38'],
  ['Float.MIN_VALUE', '1.4E-45'],
  ['(double) Long.MAX_VALUE', '9.223372036854776E18'],
  ['(float) Long.MAX_VALUE', '9.223372E18'],
  ["'a' + 1", '98'],
  ["(char) ('a' + 1)", 'b'],
  ["\"\" + 'a' + 'b'", 'ab'],
  ["'a' + 'b' + \"\"", '195'],
  ['1 + 2 + "x" + 1 + 2', '3x12'],
  ['"x" + null', 'xnull'],
  ['"x" + 1.0f + 2.5 + \'c\' + true + 10L', 'x1.02.5ctrue10'],
  [
    'Math.round(2.5) + "," + Math.round(-2.5) + "," + Math.round(0.49999999999999994) + "," + Math.round(-0.5f)',
    '3,-2,0,0',
  ],
  ['Math.rint(2.5) + "," + Math.rint(3.5) + "," + Math.rint(-2.5)', '2.0,4.0,-2.0'],
  ['Math.floorDiv(-7, 2) + "," + Math.floorMod(-7, 2) + "," + Math.floorMod(7, -2)', '-4,1,-1'],
  ['Math.abs(Integer.MIN_VALUE) + "," + Math.abs(-5L) + "," + Math.abs(-0.0)', '-2147483648,5,0.0'],
  ['Math.max(1, 2L) + "," + Math.min(1.5f, 2) + "," + Math.max(-0.0, 0.0)', '2,1.5,0.0'],
  ['Math.pow(2, 10) + "," + Math.sqrt(2) + "," + Math.cbrt(27)', '1024.0,1.4142135623730951,3.0'],
  ['Math.floor(-1.5) + "," + Math.ceil(-1.5) + "," + Math.signum(-3.0)', '-2.0,-1.0,-1.0'],
  ['Math.hypot(3, 4) + "," + Math.toDegrees(Math.PI) + "," + Math.log10(1000)', '5.0,180.0,3.0'],
  [
    'Integer.toHexString(-1) + "," + Integer.toBinaryString(10) + "," + Long.toHexString(-1L) + "," + Integer.toString(255, 16)',
    'ffffffff,1010,ffffffffffffffff,ff',
  ],
  ['Integer.parseInt("-123") + Integer.valueOf("77") + Long.parseLong("9000000000")', '8999999954'],
  ['Double.parseDouble("1.5e3") + "," + Double.valueOf(" 2.5 ") + "," + Float.parseFloat("0.1")', '1500.0,2.5,0.1'],
  [
    'Integer.MAX_VALUE + "," + Integer.MIN_VALUE + "," + Long.MIN_VALUE + "," + Short.MAX_VALUE + "," + Byte.MIN_VALUE',
    '2147483647,-2147483648,-9223372036854775808,32767,-128',
  ],
  [
    'Integer.compare(3, 5) + "," + Long.compare(5, 3) + "," + Double.compare(0.0, -0.0) + "," + Boolean.compare(true, false)',
    '-1,1,1,1',
  ],
  [
    'Integer.bitCount(255) + "," + Integer.numberOfLeadingZeros(1) + "," + Integer.highestOneBit(100) + "," + Integer.reverse(1)',
    '8,31,64,-2147483648',
  ],
  [
    "Character.isDigit('5') + \",\" + Character.isLetter('x') + \",\" + Character.toUpperCase('q') + \",\" + Character.isWhitespace(' ') + \",\" + Character.getNumericValue('7')",
    'true,true,Q,true,7',
  ],
  [
    '"hello".toUpperCase() + "hello".substring(1, 3) + "hello".indexOf(\'l\') + "hello".lastIndexOf("l") + "hello".charAt(1)',
    'HELLOel23e',
  ],
  [
    '"  pad  ".trim() + "|" + "a,b,,c,,".split(",").length + "|" + "abc".contains("bc") + "|" + "abc".startsWith("ab")',
    'pad|4|true|true',
  ],
  [
    '"Hello".equalsIgnoreCase("hELLO") + "," + "apple".compareTo("banana") + "," + "a".compareTo("ab") + "," + "B".compareToIgnoreCase("a")',
    'true,-1,-1,1',
  ],
  [
    '"hello".replace(\'l\', \'L\') + "," + "a.b.c".replace(".", "::") + "," + "a1b22c".replaceAll("[0-9]+", "#") + "," + "aaa".replaceFirst("a", "b")',
    'heLLo,a::b::c,a#b#c,baa',
  ],
  [
    'String.join("-", "a", "b", "c") + "," + String.join("+", Arrays.asList("x", "y")) + "," + "ab".repeat(3)',
    'a-b-c,x+y,ababab',
  ],
  [
    'String.format("%.1f %.2f %5.1f|%-6d|%06.2f|%,d|%x|%e|%10s|%b|%c|%o|%+d", 0.15, 1.005, 2.25, 42, 3.14159, 1234567, 255, 12345.678, "hi", null, \'x\', 8, 5)',
    '0.2 1.01   2.3|42    |003.14|1,234,567|ff|1.234568e+04|        hi|false|x|10|+5',
  ],
  ['String.format("%s=%d (%08.3f) %%", "k", -42L, -3.5)', 'k=-42 (-003.500) %'],
  [
    "String.valueOf(1.0f) + String.valueOf('c') + String.valueOf(true) + String.valueOf(10L) + String.valueOf((Object) null)",
    '1.0ctrue10null',
  ],
  [
    '"hello world".hashCode() + "," + "".hashCode() + "," + Long.valueOf(-5).hashCode() + "," + Double.valueOf(1.5).hashCode() + "," + Boolean.TRUE.hashCode() + "," + Float.valueOf(2.5f).hashCode()',
    '1794106052,0,4,1073217536,1231,1075838976',
  ],
  [
    'Arrays.asList(1, 2, 3).hashCode() + "," + new HashSet<>(Arrays.asList("a", "b")).hashCode() + "," + Objects.hash(1, "a", null)',
    '30817,195,33759',
  ],
  ['"abc".matches("[a-c]+") + "," + "x1".matches("\\\\d")', 'true,false'],
  [
    'Arrays.toString("a1b22c".split("\\\\d+")) + Arrays.toString(",a,,b".split(",")) + Arrays.toString("abc".split("")) + Arrays.toString("a:b:c".split(":", 2))',
    '[a, b, c][, a, , b][a, b, c][a, b:c]',
  ],
  [
    'new HashSet<>(Arrays.asList("banana", "apple", "cherry", "date", "elderberry", "fig", "grape"))',
    '[banana, date, apple, cherry, fig, grape, elderberry]',
  ],
  ['new HashSet<>(Arrays.asList(1.5, 2.0, -3.25, 100.0, 0.1))', '[2.0, 0.1, 1.5, 100.0, -3.25]'],
  ['new HashSet<>(Arrays.asList(100, 5, 17, 33, 64, -1))', '[64, -1, 17, 33, 100, 5]'],
  ['new HashSet<>(Arrays.asList(1L, 100L, -5L, 1000000000000L))', '[1, 100, -5, 1000000000000]'],
  ['new TreeSet<>(Arrays.asList("b", "a", "C", "c"))', '[C, a, b, c]'],
  ['new TreeMap<>(Collections.singletonMap(3, "x"))', '{3=x}'],
  ['new LinkedHashSet<>(Arrays.asList(3, 1, 2))', '[3, 1, 2]'],
  [
    'Arrays.asList(3, 1, 2) + "," + Collections.max(Arrays.asList(3, 1, 2)) + "," + Collections.min(Arrays.asList("b", "a"))',
    '[3, 1, 2],3,a',
  ],
  [
    'new ArrayList<>(Arrays.asList(1, 2)).equals(Arrays.asList(1, 2)) + "," + new HashSet<>(Arrays.asList(1, 2)).equals(new TreeSet<>(Arrays.asList(2, 1)))',
    'true,true',
  ],
  [
    'new BigDecimal("1.50").add(new BigDecimal("2")) + "," + new BigDecimal("1E+3") + "," + new BigDecimal("0.00000012") + "," + BigDecimal.valueOf(1.0) + "," + new BigDecimal(0.1)',
    '3.50,1E+3,1.2E-7,1.0,0.1000000000000000055511151231257827021181583404541015625',
  ],
  [
    'new BigDecimal("10").divide(new BigDecimal("4")) + "," + new BigDecimal("1").divide(new BigDecimal("8")) + "," + new BigDecimal("2.50").multiply(new BigDecimal("4.0"))',
    '2.5,0.125,10.000',
  ],
  [
    'new BigDecimal("2.345").setScale(2, RoundingMode.HALF_UP) + "," + new BigDecimal("2.345").setScale(2, RoundingMode.HALF_EVEN) + "," + new BigDecimal("-2.5").setScale(0, RoundingMode.HALF_DOWN) + "," + new BigDecimal("10").divide(new BigDecimal("3"), 4, RoundingMode.HALF_UP)',
    '2.35,2.34,-2,3.3333',
  ],
  [
    'new BigDecimal("1.10").equals(new BigDecimal("1.1")) + "," + new BigDecimal("1.10").compareTo(new BigDecimal("1.1")) + "," + new BigDecimal("1.10").hashCode() + "," + new BigDecimal("100").stripTrailingZeros()',
    'false,0,3412,1E+2',
  ],
  [
    'BigInteger.valueOf(3).pow(40) + "," + new BigInteger("-123456789012345678901234567890").hashCode() + "," + BigInteger.TEN.negate().mod(BigInteger.valueOf(3)) + "," + new BigInteger("ff", 16)',
    '12157665459056928801,-1915528825,2,255',
  ],
  [
    'UUID.fromString("123e4567-e89b-12d3-a456-426614174000").timestamp() + "," + UUID.fromString("123e4567-e89b-12d3-a456-426614174000").hashCode() + "," + UUID.fromString("1-2-3-4-5")',
    '203762160885450087,1256478162,00000001-0002-0003-0004-000000000005',
  ],
  [
    'new Date(1234567890123L) + "," + new Date(-1L) + "," + new Date(0).hashCode()',
    'Fri Feb 13 23:31:30 UTC 2009,Wed Dec 31 23:59:59 UTC 1969,0',
  ],
  ['Arrays.toString("a-b,c".split("\\\\-|,")) + "a.b".replaceAll("\\\\.", "\\\\$")', '[a, b, c]a$b'],
  ['Integer.valueOf(127) == Integer.valueOf(127)', 'true'],
  ['Integer.valueOf(128) == Integer.valueOf(128)', 'false'],
  ['Objects.equals(null, null) + "," + Objects.toString(null, "d") + "," + Objects.hashCode(null)', 'true,d,0'],
];

describe('Java UDF expressions print as Java prints them', () => {
  it.each(JAVA_PRINTED)('%s', async (expression, printed) => {
    // The UDF template does not import java.math: its classes are written qualified, as a UDF must.
    const body = `return String.valueOf(${expression.replace(/\b(BigDecimal|BigInteger|RoundingMode)\b/g, 'java.math.$1')});`;
    expect(asText(await call({ returns: 'text', body }))).toBe(printed);
  });
});
