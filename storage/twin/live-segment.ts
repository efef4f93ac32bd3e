// One committed segment of a table's Arrow twin: its record, deletion vector (loaded lazily), opened Arrow data,
// token filter and key index (cached). What it needs of its twin is SegmentHome, so that the twin's helpers (the
// filter tree, compaction) can name segments without importing the twin.

import { TOKEN_FIELD_INDEX } from '../arrow/arrow-schema.js';
import type { DeletionVector as DV } from '../arrow/deletion-vector.js';
import { type OpenSegment, openSegment } from '../arrow/segment-reader.js';
import type { MapHandle, NativePool } from '../native-pool.js';
import { SegmentKeyIndex } from './segment-key-index.js';
import { TokenFilter } from './token-filter.js';
import { keyIndexKey, type SegmentRecord, segmentBytesKey } from './twin-keys.js';

/** The twin a segment belongs to, as far as the segment reads through it. */
export interface SegmentHome {
  readonly pool: NativePool;
  readonly handles: { readonly segments: MapHandle };
  readonly tableHex: string;
  loadDeletions(record: SegmentRecord): DV;
}

/** One committed segment: its record, deletion vector (loaded lazily) and opened Arrow data (cached). */
export class LiveSegment {
  private dv: DV | undefined;
  private data: OpenSegment | undefined;
  private tokens: TokenFilter | undefined;
  private keys: SegmentKeyIndex | null | undefined;
  /** Set when the twin drops the segment (its bytes are freed in the same step). */
  removed = false;

  constructor(
    private readonly twin: SegmentHome,
    readonly record: SegmentRecord,
    dv?: DV,
    data?: OpenSegment,
    keys?: SegmentKeyIndex,
    tokens?: TokenFilter,
  ) {
    this.dv = dv;
    this.data = data;
    this.keys = keys;
    this.tokens = tokens;
  }

  get id(): number {
    return this.record.id;
  }

  deletions(): DV {
    this.dv ??= this.twin.loadDeletions(this.record);
    return this.dv;
  }

  /**
   * The segment's Arrow data, read in place from the mapped pool (`view`: no copy; see docs/arrow-twins.md
   * "Zero copy"). The view lives as long as this object, which the twin drops in the same step that frees the
   * segment's bytes (compaction, truncate, drop); readers use it within one synchronous step.
   */
  open(): OpenSegment {
    if (!this.data) {
      const bytes = this.twin.pool.view(this.twin.handles.segments, segmentBytesKey(this.id));
      if (!bytes) throw new Error(`Arrow segment ${this.id} of table ${this.twin.tableHex} is missing`);
      this.data = openSegment(bytes);
    }
    return this.data;
  }

  /**
   * Bloom filter of the segment's tokens (write path: skip the key-index search for a row it cannot hold). Built
   * from the segment's bytes in place. Undefined when the bytes are missing (a damaged twin; `checkTwin` reports
   * it): the write path then searches the key index anyway rather than fail the write.
   */
  tokenFilter(): TokenFilter | undefined {
    if (!this.tokens) {
      const data = this.dataIfPresent();
      if (!data) return undefined;
      this.tokens = TokenFilter.ofSegment(data, TOKEN_FIELD_INDEX);
    }
    return this.tokens;
  }

  /** Adds the segment's tokens to a block's filter; false when its bytes are missing. A dropped one adds none. */
  addTokensTo(filter: TokenFilter): boolean {
    if (this.removed) return true;
    const data = this.dataIfPresent();
    if (!data) return false;
    filter.addSegment(data, TOKEN_FIELD_INDEX);
    return true;
  }

  /** The Arrow data, opened in place without caching it (open() caches); undefined when the bytes are missing. */
  private dataIfPresent(): OpenSegment | undefined {
    if (this.data) return this.data;
    const bytes = this.twin.pool.view(this.twin.handles.segments, segmentBytesKey(this.id));
    return bytes ? openSegment(bytes) : undefined;
  }

  /**
   * Which key each row holds (loaded on first use: a write whose token may be in this segment; compaction; the
   * check). Null when the index is missing (a damaged twin; `checkTwin` reports it).
   */
  keyIndex(): SegmentKeyIndex | null {
    if (this.keys === undefined) {
      // In place too: the index lives as long as this object (see open()).
      const bytes = this.twin.pool.view(this.twin.handles.segments, keyIndexKey(this.id));
      this.keys = bytes ? SegmentKeyIndex.decode(bytes) : null;
    }
    return this.keys;
  }

  get cached(): boolean {
    return this.data !== undefined;
  }
}
