// A flush's rows (flush-input.ts slices) -> one Arrow segment: the rows read (live values as byte ranges, write
// time, expiry) straight into the column encoders, the Arrow batch, its IPC bytes, the key index (twin key ->
// segment row) and the token filter, in bounded steps. It touches no pool and no table state, so the same steps
// run on the main thread (twin-flush.ts, paced) or in the flush thread (flush-thread.ts).

import { TOKEN_FIELD_INDEX, type TwinColumn, type TwinLayout, twinLayout } from '../arrow/arrow-schema.js';
import { SegmentBatchBuilder } from '../arrow/segment-batch-builder.js';
import {
  type BuiltSegment,
  buildSegmentBatch,
  type CellLookup,
  serializeSegment,
  type TwinRow,
} from '../arrow/segment-builder.js';
import { sortableBytesToToken } from '../murmur3-token.js';
import { deserializePartitionKey } from '../partition-key.js';
import { readClusteringValues, singleRowAt, singleRowShadowTsAt } from '../row-codec.js';
import type { ComplexValue } from '../row-projection.js';
import type { Timestamp } from '../timestamp.js';
import { type FlushSlice, ROW_DROPPED, ROW_FIELDS, ROW_PARTITION } from './flush-input.js';
import { FlushRowReader } from './flush-row-reader.js';
import { type KeyIndexParts, SegmentKeyIndexWriter } from './segment-key-index.js';
import { TokenFilter } from './token-filter.js';

/** What happened to an input row. */
export const FATE_FLUSH = 0;
/** Deleted or dead: leaves the buffer. */
export const FATE_DROP = 1;
/** Parts expiring at different seconds: stays in the buffer. */
export const FATE_KEEP = 2;

export interface AssemblerSetup {
  readonly columns: readonly TwinColumn[];
  readonly clustered: boolean;
  /** Input rows the flush will send (the buffer view's length). */
  readonly rows: number;
}

/** The value CQL returns for a multi-cell column (only tables with such columns need it; not in the thread). */
export type ComplexEncoder = (columnId: number, value: ComplexValue) => Buffer | null;

export type AssemblerPhase = 'read' | 'build' | 'serialize' | 'index' | 'filter';

export interface AssembledSegment {
  /** Per input row: FATE_*. */
  readonly fates: Uint8Array;
  /** Per flushed row (read order): its input row. */
  readonly rowKeyIndex: Uint32Array;
  /** Per flushed row (read order): its segment row. */
  readonly segmentRow: Uint32Array;
  /** Input rows of the segment's first and last rows (-1: no segment). */
  readonly firstRow: number;
  readonly lastRow: number;
  /** The segment (undefined: no row flushed). */
  readonly ipc: Uint8Array | undefined;
  readonly keyIndex: Buffer | undefined;
  readonly keyParts: KeyIndexParts | undefined;
  readonly tokenWords: Int32Array | undefined;
  /** Time per step kind (ms), wherever the steps ran. */
  readonly phaseMs: Record<AssemblerPhase, number>;
}

/** Cell values by column id (ids are small integers). */
class ArrayCells implements CellLookup {
  readonly v: (Uint8Array | undefined)[] = [];
  get(id: number): Uint8Array | null | undefined {
    return this.v[id];
  }
}

export class SegmentAssembler {
  private phase: AssemblerPhase = 'read';
  private readonly layout: TwinLayout;
  /** The arena slabs the rows are in, by id. */
  private readonly slabs = new Map<number, Buffer>();
  private readonly metas: Float64Array[] = [];
  private ended = false;
  /** Read position: slice, row within it; `row`: input rows read. */
  private slice = 0;
  private sliceRow = 0;
  private row = 0;
  private readonly fates: Uint8Array;
  /** Per flushed row (read order): input row, slab and key range (the key index copies the keys). */
  private rowKeyIndex: Uint32Array;
  private flushedSlab: Uint32Array;
  private flushedKeyAt: Uint32Array;
  private flushedKeyEnd: Uint32Array;
  private flushed = 0;
  private keyBytes = 0;
  /**
   * Rows go straight into the column encoders (the buffer's order is the row store's), except after a pair of
   * rows arrives out of the row store's order — only possible for two partitions with one token and keys of
   * different lengths: then the rows are read again as objects, sorted when the batch is built.
   */
  private builder: SegmentBatchBuilder | undefined;
  private rows: TwinRow[] = [];
  private prevBuf: Buffer | undefined;
  private prevPkStart = 0;
  private prevPkEnd = 0;
  private prevTokenHigh = 0;
  private prevTokenLow = 0;
  private readonly rowReader: FlushRowReader;
  /** For each regular column of the layout (its order), its slot in rowReader (-1: not in the schema). */
  private readonly regularSlots: Int32Array;
  private built: BuiltSegment | undefined;
  private ipc: Uint8Array | undefined;
  private keyIndex: SegmentKeyIndexWriter | undefined;
  private segmentRow: Uint32Array | undefined;
  private tokens: TokenFilter | undefined;
  result: AssembledSegment | undefined;
  readonly phaseMs: Record<AssemblerPhase, number> = { read: 0, build: 0, serialize: 0, index: 0, filter: 0 };

  constructor(
    private readonly setup: AssemblerSetup,
    private readonly complex?: ComplexEncoder,
  ) {
    this.layout = twinLayout(setup.columns);
    const regular = setup.columns.filter((c) => c.kind === 'regular');
    this.rowReader = new FlushRowReader(regular.map((c) => c.id));
    const keyColumns = this.layout.partitionKey.length + this.layout.clustering.length;
    this.regularSlots = Int32Array.from(this.layout.columns.slice(keyColumns), (c) =>
      regular.findIndex((r) => r.id === c.id),
    );
    const n = setup.rows;
    this.fates = new Uint8Array(n);
    this.rowKeyIndex = new Uint32Array(n);
    this.flushedSlab = new Uint32Array(n);
    this.flushedKeyAt = new Uint32Array(n);
    this.flushedKeyEnd = new Uint32Array(n);
    this.builder = new SegmentBatchBuilder(this.layout, Math.min(n, 1 << 16));
  }

  /** The next slice of input rows (in view order). */
  add(slice: FlushSlice): void {
    for (const [id, slab] of slice.slabs) this.slabs.set(id, Buffer.from(slab));
    this.metas.push(slice.meta);
  }

  /** No more slices: the steps after the read may run. */
  end(): void {
    this.ended = true;
  }

  get currentPhase(): AssemblerPhase | 'done' {
    return this.result ? 'done' : this.phase;
  }

  /**
   * One bounded step: reading up to `limit` of the rows received (false with nothing to do until more arrive), or
   * one build step. True once `result` is set.
   */
  step(limit: number): boolean {
    if (this.result) return true;
    const t0 = performance.now();
    const phase = this.phase;
    switch (phase) {
      case 'read':
        this.readRows(limit);
        break;
      case 'build':
        this.built = this.buildBatch();
        this.phase = 'serialize';
        break;
      case 'serialize':
        this.ipc = serializeSegment(this.built!);
        this.phase = 'index';
        break;
      case 'index':
        // Copying a key costs about what reading a few bytes of a row does.
        if (this.writeKeyIndex(limit * 8)) this.phase = 'filter';
        break;
      case 'filter': {
        const batch = this.built!.batch;
        this.tokens = TokenFilter.ofColumn(batch.data.children[TOKEN_FIELD_INDEX], batch.numRows);
        this.finish();
        break;
      }
    }
    this.phaseMs[phase] += performance.now() - t0;
    return this.result !== undefined;
  }

  private readRows(limit: number): void {
    const now = Math.floor(Date.now() / 1000);
    let budget = limit;
    while (budget > 0 && this.slice < this.metas.length) {
      const meta = this.metas[this.slice]!;
      const rows = meta.length / ROW_FIELDS;
      for (; this.sliceRow < rows && budget > 0; this.sliceRow++, budget--) {
        const fate = this.readRow(meta, this.sliceRow * ROW_FIELDS, now);
        if (fate === 'unordered') {
          this.restartUnstreamed();
          return;
        }
        this.fates[this.row++] = fate;
      }
      if (this.sliceRow < rows) return;
      this.slice++;
      this.sliceRow = 0;
    }
    if (!this.ended || this.slice < this.metas.length) return;
    if (this.flushed > 0) this.phase = 'build';
    else this.finish();
  }

  /** Reads the rows again from the start, keeping rows as objects to sort them at the end. */
  private restartUnstreamed(): void {
    this.builder = undefined;
    this.slice = 0;
    this.sliceRow = 0;
    this.row = 0;
    this.flushed = 0;
    this.keyBytes = 0;
    this.rows = [];
  }

  /** The input row described at `meta[m]` as a segment row, or why it is not one. */
  private readRow(meta: Float64Array, m: number, now: number): number | 'unordered' {
    const kind = meta[m]!;
    if (kind === ROW_DROPPED) return FATE_DROP;
    const keySlab = meta[m + 1]!;
    const key = this.slabs.get(keySlab)!;
    const keyAt = meta[m + 2]!;
    const keyEnd = meta[m + 3]!;
    const rowSlab = meta[m + 4]!;
    const buf = rowSlab === keySlab ? key : this.slabs.get(rowSlab)!;
    const rowAt = meta[m + 5]!;
    const rowEnd = meta[m + 6]!;
    let offset = rowAt;
    let shadowTs: Timestamp = meta[m + 7]!;
    if (kind === ROW_PARTITION) {
      // The buffer value is the whole single-row partition: its header says whether a deletion shadows the row.
      shadowTs = singleRowShadowTsAt(buf, rowAt);
      offset = singleRowAt(buf, rowAt);
      if (offset >= rowEnd) return FATE_DROP;
    }
    const row = this.rowReader;
    if (!row.read(buf, offset, rowEnd, shadowTs, now)) return FATE_DROP;
    // `_expires` must mean "the whole row is gone then": every live part expires at the same second, or none does.
    if (row.mixed || (row.permanent && row.expiry >= 0)) return FATE_KEEP;
    const writetime = row.writetime === Number.NEGATIVE_INFINITY ? 0 : row.writetime;
    const expires = row.expiry >= 0 ? row.expiry : null;
    const pkStart = keyAt + 10;
    const pkEnd = pkStart + ((key[keyAt + 8]! << 8) | key[keyAt + 9]!);
    if (this.builder) {
      // The sortable token bytes are the token with its sign bit flipped.
      const th = key.readInt32BE(keyAt) ^ (0x80000000 | 0);
      const tl = key.readInt32BE(keyAt + 4);
      // Same token, another partition: the row store orders the serialized keys bytewise, the buffer by length
      // first. Rows of one partition come in clustering order in both.
      const prev = this.prevBuf;
      if (prev && th === this.prevTokenHigh && tl === this.prevTokenLow) {
        if (key.compare(prev, this.prevPkStart, this.prevPkEnd, pkStart, pkEnd) < 0) return 'unordered';
      }
      this.prevBuf = key;
      this.prevPkStart = pkStart;
      this.prevPkEnd = pkEnd;
      this.prevTokenHigh = th;
      this.prevTokenLow = tl;
      this.noteFlushed(keySlab, keyAt, keyEnd);
      const b = this.builder;
      b.beginRow(th, tl, key, pkStart, pkEnd, buf, row.clusteringAt, writetime, expires);
      for (let j = 0; j < this.regularSlots.length; j++) {
        const slot = this.regularSlots[j]!;
        const start = slot < 0 ? -1 : row.starts[slot]!;
        if (start >= 0) b.cell(j).appendRange(buf, start, row.ends[slot]!);
        else b.cell(j).append(slot < 0 ? null : this.complexBytes(slot));
      }
      return FATE_FLUSH;
    }
    const cells = new ArrayCells();
    for (let slot = 0; slot < row.columns.length; slot++) {
      const start = row.starts[slot]!;
      const v = start >= 0 ? buf.subarray(start, row.ends[slot]!) : this.complexBytes(slot);
      if (v) cells.v[row.columns[slot]!] = v;
    }
    this.noteFlushed(keySlab, keyAt, keyEnd);
    this.rows.push({
      token: sortableBytesToToken(key, keyAt),
      partitionKey: deserializePartitionKey(key.subarray(pkStart, pkEnd), this.layout.partitionKey.length),
      clustering: readClusteringValues(buf, row.clusteringAt),
      // The twin key ends with the row key: a kind byte, then the byte-comparable clustering.
      clusteringKey: this.setup.clustered ? key.subarray(pkEnd + 1, keyEnd) : undefined,
      cells,
      writetime,
      expires,
    });
    return FATE_FLUSH;
  }

  private noteFlushed(slab: number, keyAt: number, keyEnd: number): void {
    const i = this.flushed++;
    this.rowKeyIndex[i] = this.row;
    this.flushedSlab[i] = slab;
    this.flushedKeyAt[i] = keyAt;
    this.flushedKeyEnd[i] = keyEnd;
    this.keyBytes += keyEnd - keyAt;
  }

  /** The value CQL returns for the complex column in `slot` of the row just read (null: none). */
  private complexBytes(slot: number): Buffer | null {
    const cv = this.rowReader.complex[slot];
    if (!cv) return null;
    if (!this.complex) throw new Error('a multi-cell column needs the schema layer: flush this table inline');
    return this.complex(this.rowReader.columns[slot]!, cv);
  }

  /** The segment's batch, and which flushed row (read order) each segment row is. */
  private buildBatch(): BuiltSegment {
    if (!this.builder) return buildSegmentBatch(this.layout, this.rows);
    const order = new Uint32Array(this.builder.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return { batch: this.builder.finish(), order };
  }

  /** Adds up to `budget` keys to the key index, in read (= key) order. True once every key is in. */
  private writeKeyIndex(budget: number): boolean {
    const n = this.flushed;
    if (!this.keyIndex) {
      const order = this.built!.order;
      const segmentRow = new Uint32Array(n);
      for (let i = 0; i < n; i++) segmentRow[order[i]!] = i;
      this.segmentRow = segmentRow;
      this.keyIndex = new SegmentKeyIndexWriter(n, this.keyBytes);
    }
    const w = this.keyIndex;
    const segmentRow = this.segmentRow!;
    const end = Math.min(n, w.count + budget);
    for (let i = w.count; i < end; i++) {
      w.add(this.slabs.get(this.flushedSlab[i]!)!, this.flushedKeyAt[i]!, this.flushedKeyEnd[i]!, segmentRow[i]!);
    }
    return w.count === n;
  }

  private finish(): void {
    const n = this.flushed;
    const order = this.built?.order;
    this.result = {
      fates: this.fates,
      rowKeyIndex: this.rowKeyIndex.subarray(0, n),
      segmentRow: this.segmentRow ?? new Uint32Array(0),
      firstRow: order && n > 0 ? this.rowKeyIndex[order[0]!]! : -1,
      lastRow: order && n > 0 ? this.rowKeyIndex[order[n - 1]!]! : -1,
      ipc: this.ipc,
      keyIndex: this.keyIndex?.bytes,
      keyParts: this.keyIndex?.parts,
      tokenWords: this.tokens?.words,
      phaseMs: this.phaseMs,
    };
    // The inputs are no longer needed (the result holds copies of everything it names).
    this.slabs.clear();
    this.metas.length = 0;
    this.built = undefined;
  }
}
