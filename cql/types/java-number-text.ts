// Java's Double.toString / Float.toString, which Cassandra uses to print float and double values.

function shortestDigits(x: number, isFloat: boolean): { digits: string; exp: number } {
  // exp is the decimal exponent of the first digit: x = d.ddd * 10^exp.
  let s: string;
  if (isFloat) {
    s = '';
    for (let p = 1; p <= 9; p++) {
      s = x.toExponential(p - 1);
      if (Math.fround(Number(s)) === x) break;
    }
  } else {
    s = x.toExponential();
  }
  const [mant, e] = s.split('e');
  let digits = mant!.replace('.', '').replace('-', '');
  digits = digits.replace(/0+$/, '') || '0';
  return { digits, exp: Number(e) };
}

export function javaFloatingToString(x: number, isFloat: boolean): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(Math.abs(x), isFloat);
  const ax = Math.abs(x);
  if (ax >= 1e-3 && ax < 1e7) {
    if (exp >= 0) {
      const intPart = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits + '0'.repeat(exp + 1 - digits.length);
      const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
      return `${sign}${intPart}.${frac}`;
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  const frac = digits.length > 1 ? digits.slice(1) : '0';
  return `${sign}${digits[0]}.${frac}E${exp}`;
}
