// Byte order of twin keys and small copies, without a native call per key: keys start with 8 sortable token
// bytes (hashes), so comparing them as two numbers decides almost every comparison; Buffer.compare / copy cost
// a builtin call each (~0.1 µs), which a flush paid several times per row.

/** Byte order of the 8 token bytes at a[ao..] and b[bo..] (0: equal; compare the rest then). */
export function compareTokenBytes(a: Uint8Array, ao: number, b: Uint8Array, bo: number): number {
  const ah = ((a[ao]! << 24) | (a[ao + 1]! << 16) | (a[ao + 2]! << 8) | a[ao + 3]!) >>> 0;
  const bh = ((b[bo]! << 24) | (b[bo + 1]! << 16) | (b[bo + 2]! << 8) | b[bo + 3]!) >>> 0;
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = ((a[ao + 4]! << 24) | (a[ao + 5]! << 16) | (a[ao + 6]! << 8) | a[ao + 7]!) >>> 0;
  const bl = ((b[bo + 4]! << 24) | (b[bo + 5]! << 16) | (b[bo + 6]! << 8) | b[bo + 7]!) >>> 0;
  return al === bl ? 0 : al < bl ? -1 : 1;
}

/** Copies `src[from, to)` to `dst` at `at` (a loop for short ranges, `set` for long ones). */
export function copyBytes(src: Uint8Array, dst: Uint8Array, at: number, from = 0, to = src.length): void {
  const n = to - from;
  if (n > 32) dst.set(src.subarray(from, to), at);
  else for (let i = 0; i < n; i++) dst[at + i] = src[from + i]!;
}
