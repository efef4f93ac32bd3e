// Where the twin buffer's records (and the rows a flush reads from the row store) live in memory: slabs of
// SharedArrayBuffer, so that the flush thread (flush-thread.ts) reads a flush's rows where they are instead of the
// event loop copying them out row by row (that copy cost as much as reading the rows). A record's bytes never
// change once committed; the thread only reads bytes of committed records while the event loop appends new ones
// elsewhere in the slab. A slab is freed by GC once no record in it (nor a flush job) refers to it.

const SLAB_BYTES = 1 << 20;
/** Larger records get a slab of their own (a slab's tail would be mostly waste). */
const OWN_SLAB_BYTES = SLAB_BYTES >>> 2;

/** A slab, tagged with its process-wide id (the flush thread keeps the slabs of a job by id). */
interface Slab extends SharedArrayBuffer {
  slabId?: number;
}

let nextSlabId = 1;
let current: Slab | undefined;
let used = 0;

function newSlab(bytes: number): Slab {
  const s: Slab = new SharedArrayBuffer(bytes);
  s.slabId = nextSlabId++;
  return s;
}

/** A copy of `src[from, to)` in a slab. */
export function arenaCopy(src: Uint8Array, from = 0, to = src.length): Buffer {
  const n = to - from;
  let slab: Slab;
  let at: number;
  if (n >= OWN_SLAB_BYTES) {
    slab = newSlab(Math.max(n, 8));
    at = 0;
  } else {
    if (!current || used + n > SLAB_BYTES) {
      current = newSlab(SLAB_BYTES);
      used = 0;
    }
    slab = current;
    at = used;
    // 8-byte steps keep every record's first byte aligned (cheap, and int reads stay within one word).
    used += (n + 7) & ~7;
  }
  const out = Buffer.from(slab, at, n);
  out.set(src.subarray(from, to));
  return out;
}

/** The id of the slab `b` lives in (0: not in a slab). */
export function slabIdOf(b: Uint8Array): number {
  return (b.buffer as Slab).slabId ?? 0;
}

/** The slab `b` lives in (undefined: not in a slab). */
export function slabOf(b: Uint8Array): SharedArrayBuffer | undefined {
  return (b.buffer as Slab).slabId === undefined ? undefined : (b.buffer as SharedArrayBuffer);
}
