// Clustering bounds over byte-comparable keys: a bound is a prefix of whole components and compares with a
// key on the key's first prefix.length bytes (so `c1 = 5` as an inclusive start and end covers every
// (5, *) row). Also turns bounds into the native map's [start, end) scan options.

import type { ClusteringBound } from './mutation.js';

/** Sign of (first prefix.length bytes of key) - prefix; a key shorter than the prefix and equal so far is less. */
export function compareToPrefix(key: Buffer, prefix: Buffer): number {
  return key.compare(prefix, 0, prefix.length, 0, Math.min(key.length, prefix.length));
}

export function afterStart(key: Buffer, start: ClusteringBound | undefined): boolean {
  if (!start || start.prefix.length === 0) return true;
  const c = compareToPrefix(key, start.prefix);
  return start.inclusive ? c >= 0 : c > 0;
}

export function beforeEnd(key: Buffer, end: ClusteringBound | undefined): boolean {
  if (!end || end.prefix.length === 0) return true;
  const c = compareToPrefix(key, end.prefix);
  return end.inclusive ? c <= 0 : c < 0;
}

export function inSlice(key: Buffer, start: ClusteringBound | undefined, end: ClusteringBound | undefined): boolean {
  return afterStart(key, start) && beforeEnd(key, end);
}

/** The smallest byte string greater than every string starting with `prefix` (undefined: none, all 0xff). */
export function prefixSuccessor(prefix: Buffer): Buffer | undefined {
  let i = prefix.length - 1;
  while (i >= 0 && prefix[i] === 0xff) i--;
  if (i < 0) return undefined;
  const out = Buffer.from(prefix.subarray(0, i + 1));
  out[i]!++;
  return out;
}

export interface KeyRange {
  /** Inclusive lower key (undefined: unbounded). */
  start: Buffer | undefined;
  /** Exclusive upper key (undefined: unbounded). */
  end: Buffer | undefined;
  /** The range is provably empty. */
  empty: boolean;
}

/**
 * Map keys covered by [start, end] when every stored key is `tag` followed by the clustering:
 * a half-open key range [start, end) suitable for the native scan.
 */
export function sliceToKeyRange(
  tag: Buffer,
  start: ClusteringBound | undefined,
  end: ClusteringBound | undefined,
): KeyRange {
  let lo: Buffer | undefined = tag;
  if (start && start.prefix.length > 0) {
    const p = Buffer.concat([tag, start.prefix]);
    lo = start.inclusive ? p : prefixSuccessor(p);
  }
  let hi: Buffer | undefined = prefixSuccessor(tag);
  if (end && end.prefix.length > 0) {
    const p = Buffer.concat([tag, end.prefix]);
    hi = end.inclusive ? prefixSuccessor(p) : p;
  }
  const empty = lo === undefined || (hi !== undefined && Buffer.compare(lo, hi) >= 0);
  return { start: lo, end: hi, empty };
}
