// Where a twin buffer's records (and the rows a flush reads from the row store) live in memory: slabs of
// SharedArrayBuffer, so that the flush thread (flush-thread.ts) reads a flush's rows where they are instead of the
// event loop copying them out row by row (that copy cost as much as reading the rows). A record's bytes never
// change once committed; the thread only reads bytes of committed records while the event loop appends new ones
// elsewhere in the slab. A slab is freed by GC once no record in it (nor a flush job) refers to it.
//
// One arena per table's buffer, so that a slab holds one table's records, which its flushes consume together: a
// table written rarely does not pin slabs that other tables filled. Slabs start small and double (4 KiB to 1 MiB),
// so a table holding a few rows holds a few KiB. A slab is fresh memory, whose every page the first write faults in
// (~15 µs each on a VM): from 64 KiB up the arena allocates the next slab ahead and has a background thread fault it
// in (populateLater), so the event loop's copies do not.

import { populateLater } from '../native-binding.js';
import { idleThreadsFromEnv } from './twin-options-env.js';

const FIRST_SLAB_BYTES = 4 << 10;
const MAX_SLAB_BYTES = 1 << 20;
/** Slabs from this size up are allocated ahead and faulted in off the event loop. */
const SPARE_MIN_BYTES = 64 << 10;
/** The faulting thread under SCHED_IDLE, like the server's other background threads (PMEMCQL_IDLE_THREADS). */
const IDLE_THREAD = idleThreadsFromEnv(process.env);

/** A slab, tagged with its process-wide id (the flush thread keeps the slabs of a job by id). */
interface Slab extends SharedArrayBuffer {
  slabId?: number;
}

let nextSlabId = 1;

export class RecordArena {
  private current: Slab | undefined;
  private used = 0;
  private nextBytes = FIRST_SLAB_BYTES;
  /** The next slab, allocated ahead (see SPARE_MIN_BYTES). */
  private spare: Slab | undefined;

  /** A copy of `src[from, to)` in a slab. */
  copy(src: Uint8Array, from = 0, to = src.length): Buffer {
    const n = to - from;
    if (!this.current || this.used + n > this.current.byteLength) {
      // Larger than a slab would be: a slab of its own, the current one stays current.
      if (n > this.nextBytes / 4 && n > FIRST_SLAB_BYTES) return placed(newSlab(n), 0, src, from, to);
      // The spare, when there is one, was allocated at this very nextBytes (it only changes below).
      this.current = this.spare ?? newSlab(this.nextBytes);
      this.used = 0;
      this.nextBytes = Math.min(MAX_SLAB_BYTES, this.nextBytes * 2);
      this.spare = undefined;
      if (this.nextBytes >= SPARE_MIN_BYTES) {
        this.spare = newSlab(this.nextBytes);
        populateLater(Buffer.from(this.spare), IDLE_THREAD);
      }
    }
    const at = this.used;
    // No padding: records copied one after the other lie back to back, and the twin buffer keeps such a run as
    // one record (twin-buffer.ts LogRecord).
    this.used += n;
    return placed(this.current, at, src, from, to);
  }
}

function newSlab(bytes: number): Slab {
  const s: Slab = new SharedArrayBuffer(Math.max(bytes, 8));
  s.slabId = nextSlabId++;
  return s;
}

function placed(slab: Slab, at: number, src: Uint8Array, from: number, to: number): Buffer {
  const out = Buffer.from(slab, at, to - from);
  out.set(src.subarray(from, to));
  return out;
}

/** The id of the slab `b` lives in (0: not in a slab). */
export function slabIdOf(b: Uint8Array): number {
  return (b.buffer as Slab).slabId ?? 0;
}

/**
 * Names the slabs buffers live in, each once, for sharing them with the flush thread: a flush sends a slab the
 * first time one of its buffers is in it.
 */
export class SlabNames {
  private readonly named = new Set<number>();
  private last = 0;
  private fresh: [number, SharedArrayBuffer][] = [];

  /** The id of the slab `b` lives in (named now if it is new). */
  name(b: Uint8Array): number {
    const id = slabIdOf(b);
    if (id === 0) throw new Error('twin buffer record outside the record arena');
    // Neighbouring rows often share a record's slab.
    if (id === this.last) return id;
    this.last = id;
    if (!this.named.has(id)) {
      this.named.add(id);
      this.fresh.push([id, b.buffer as SharedArrayBuffer]);
    }
    return id;
  }

  /** [id, slab] of each slab named since the last call. */
  take(): [number, SharedArrayBuffer][] {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }
}
