// Canonical form of collection values: Cassandra keeps set elements and map keys sorted and unique (a frozen set
// bound by a client in any order is stored sorted), so equal sets have equal bytes.
import type { CqlType } from './cql-type.js';
import {
  buildCollection,
  buildTuple,
  buildVector,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
  readVectorElements,
} from './serialized-layout.js';
import { compareValues } from './value-comparator.js';

function needsWork(t: CqlType): boolean {
  switch (t.kind) {
    case 'set':
    case 'map':
      return true;
    case 'list':
      return needsWork(t.element);
    case 'tuple':
      return t.elements.some(needsWork);
    case 'udt':
      return t.fields.some((f) => needsWork(f.type));
    case 'vector':
      return needsWork(t.element);
    default:
      return false;
  }
}

/** Sorted, de-duplicated sets and maps (last value wins for a repeated key), recursively; other values as is. */
export function normalizeValue(t: CqlType, v: Buffer): Buffer {
  if (v.length === 0 || !needsWork(t)) return v;
  switch (t.kind) {
    case 'list':
      return buildCollection(
        v.readInt32BE(0),
        readCollectionElements(v).map((e) => normalizeValue(t.element, e)),
      );
    case 'set': {
      const els = readCollectionElements(v).map((e) => normalizeValue(t.element, e));
      els.sort((a, b) => compareValues(t.element, a, b));
      const out = els.filter((e, i) => i === 0 || compareValues(t.element, els[i - 1]!, e) !== 0);
      return buildCollection(out.length, out);
    }
    case 'map': {
      const entries = readMapEntries(v).map(([k, x], i) => ({
        k: normalizeValue(t.key, k),
        x: normalizeValue(t.value, x),
        i,
      }));
      // Stable by original position, so the last of equal keys can be kept.
      entries.sort((a, b) => compareValues(t.key, a.k, b.k) || a.i - b.i);
      const out: Buffer[] = [];
      let count = 0;
      for (let i = 0; i < entries.length; i++) {
        const next = entries[i + 1];
        if (next && compareValues(t.key, entries[i]!.k, next.k) === 0) continue;
        out.push(entries[i]!.k, entries[i]!.x);
        count++;
      }
      return buildCollection(count, out);
    }
    case 'tuple':
    case 'udt':
      return buildTuple(
        readTupleFields(v).map((f, i) =>
          f === null ? null : normalizeValue(t.kind === 'tuple' ? t.elements[i]! : t.fields[i]!.type, f),
        ),
      );
    case 'vector':
      return buildVector(
        t,
        readVectorElements(t, v).map((e) => normalizeValue(t.element, e)),
      );
    default:
      return v;
  }
}
