// Which of a table's segments may hold a token, without asking every segment's filter (docs/arrow-twins.md, "Token
// filters"). Segment ids are grouped into aligned blocks of 4, 16, 64 and 256 ids; once every id of a block is taken
// (ids only grow: a compaction's rows come back in a later flush, under a new id), the twin's worker builds one
// token filter over all its members' tokens, one member a step. A write probes the largest built blocks covering
// the ids taken, and descends into a block's sub-blocks, then its segments, only where a filter says maybe: at
// 10 M rows (153 segments) ~7 probes for a fresh token instead of 153.
//
// Segments may leave a block (compaction): its filter then holds tokens no member has, which costs a false positive
// now and then, never a miss. A block whose build met a segment without bytes (a damaged twin) gets no filter: its
// sub-blocks and segments are probed instead, down to that segment, which the caller searches anyway.

import type { LiveSegment } from './live-segment.js';
import { TokenFilter } from './token-filter.js';

/** Ids per block at level L: 4^L (level 0: one segment). */
const FANOUT = 4;
const LEVELS = 4;

function blockSize(level: number): number {
  return FANOUT ** level;
}

/** A block with a filter (its children: sub-blocks with filters, or segments), or a segment. */
interface Node {
  readonly filter: TokenFilter | undefined;
  readonly children: readonly Node[];
  readonly segment: LiveSegment | undefined;
}

/** The twin's view of its segments that this needs. */
export interface SegmentSource {
  liveSegments(): Iterable<LiveSegment>;
  /** Ids below this are taken (committed, or skipped by a failed commit). */
  pendingSegmentId(): number;
  /** A block's filter can be built (the twin's worker schedules a FilterBuild). */
  onFilterWork: (() => void) | undefined;
}

interface Layout {
  readonly roots: readonly Node[];
  /** Complete blocks without a filter, smallest first ([level, index]). */
  readonly unbuilt: readonly [number, number][];
  readonly blockFilters: number;
}

const blockKey = (level: number, index: number) => `${level}:${index}`;

export class SegmentFilterTree {
  /** Built filters by block key. */
  private readonly built = new Map<string, TokenFilter>();
  /** Blocks whose build met a segment without bytes: not retried. */
  private readonly failed = new Set<string>();
  private building: string | undefined;
  /** Bumped by clear(): a build started before it must not store its filter. */
  private generation = 0;
  private layout: Layout | undefined;

  constructor(private readonly source: SegmentSource) {}

  /** Segments came or went, or an id was taken. */
  changed(): void {
    this.layout = undefined;
  }

  /** TRUNCATE / DROP: no segment is left. */
  clear(): void {
    this.built.clear();
    this.failed.clear();
    this.generation++;
    this.building = undefined;
    this.layout = undefined;
  }

  /**
   * Fills `out` with the segments that may hold the token (signed high, low halves): every filter on the way says
   * maybe, or the segment has no filter (its bytes are missing: the caller decides).
   */
  candidates(hi: number, lo: number, out: LiveSegment[]): LiveSegment[] {
    out.length = 0;
    const roots = (this.layout ?? this.relayout()).roots;
    for (let i = 0; i < roots.length; i++) visit(roots[i]!, hi, lo, out);
    return out;
  }

  /** Block filters in use (tests, system tables). */
  get blockFilters(): number {
    return (this.layout ?? this.relayout()).blockFilters;
  }

  /** The next complete block without a filter, as a build job; undefined when none is. */
  startBuild(): FilterBuild | undefined {
    if (this.building !== undefined) return undefined;
    const next = (this.layout ?? this.relayout()).unbuilt[0];
    if (!next) return undefined;
    this.building = blockKey(next[0], next[1]);
    return new FilterBuild(this, next[0], next[1], this.generation);
  }

  /** Live members of a block, in id order. */
  membersOf(level: number, index: number): LiveSegment[] {
    const size = blockSize(level);
    const out: LiveSegment[] = [];
    for (const seg of this.source.liveSegments()) if (Math.floor(seg.id / size) === index) out.push(seg);
    return out.sort((a, b) => a.id - b.id);
  }

  /** A build finished (`filter`), met a damaged segment (`failed`), or was stopped. */
  buildEnded(level: number, index: number, generation: number, filter: TokenFilter | undefined, failed: boolean): void {
    if (generation !== this.generation) return;
    const key = blockKey(level, index);
    if (this.building === key) this.building = undefined;
    if (failed) this.failed.add(key);
    if (filter) this.built.set(key, filter);
    if (failed || filter) this.layout = undefined;
  }

  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  private relayout(): Layout {
    const taken = this.source.pendingSegmentId();
    // Live segments by id: blocks are id ranges.
    const byId = new Map<number, LiveSegment>();
    for (const seg of this.source.liveSegments()) byId.set(seg.id, seg);
    const ids = [...byId.keys()].sort((a, b) => a - b);
    const unbuilt: [number, number][] = [];
    const usedKeys = new Set<string>();
    let blockFilters = 0;

    // Live ids in [from, to): a slice of the sorted ids.
    const liveIn = (from: number, to: number): number[] => {
      let a = 0;
      while (a < ids.length && ids[a]! < from) a++;
      let b = a;
      while (b < ids.length && ids[b]! < to) b++;
      return ids.slice(a, b);
    };
    // The nodes standing for the complete block (level, index): itself when built, else its sub-blocks'.
    const nodesOf = (level: number, index: number): Node[] => {
      const size = blockSize(level);
      const live = liveIn(index * size, (index + 1) * size);
      if (live.length === 0) return [];
      if (level === 0) return [{ filter: undefined, children: [], segment: byId.get(live[0]!) }];
      const children: Node[] = [];
      for (let c = 0; c < FANOUT; c++) children.push(...nodesOf(level - 1, index * FANOUT + c));
      const key = blockKey(level, index);
      const filter = this.built.get(key);
      if (filter) {
        usedKeys.add(key);
        blockFilters++;
        return [{ filter, children, segment: undefined }];
      }
      if (live.length > 1 && !this.failed.has(key)) unbuilt.push([level, index]);
      return children;
    };

    // The taken ids [0, taken) as the largest aligned complete blocks, then the segments past the last one.
    const roots: Node[] = [];
    let at = 0;
    for (let level = LEVELS; level >= 0; level--) {
      const size = blockSize(level);
      while (at + size <= taken) {
        roots.push(...nodesOf(level, at / size));
        at += size;
      }
    }
    // Filters of blocks left out of the layout go (all their members left); those of sub-blocks under a built
    // block stay (descent goes through them: usedKeys has them).
    for (const key of this.built.keys()) if (!usedKeys.has(key)) this.built.delete(key);
    unbuilt.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.layout = { roots, unbuilt, blockFilters };
    if (unbuilt.length > 0 && this.building === undefined) this.source.onFilterWork?.();
    return this.layout;
  }
}

function visit(n: Node, hi: number, lo: number, out: LiveSegment[]): void {
  const seg = n.segment;
  if (seg) {
    const f = seg.tokenFilter();
    if (!f || f.mayContain(hi, lo)) out.push(seg);
    return;
  }
  if (!n.filter!.mayContain(hi, lo)) return;
  const c = n.children;
  for (let i = 0; i < c.length; i++) visit(c[i]!, hi, lo, out);
}

/** Builds one block's filter, one member segment a step. */
export class FilterBuild {
  private members: LiveSegment[] | undefined;
  private filter: TokenFilter | undefined;
  private at = 0;
  private ended = false;

  constructor(
    private readonly tree: SegmentFilterTree,
    readonly level: number,
    readonly index: number,
    private readonly generation: number,
  ) {}

  /** True when done. Each step reads one segment's token column, synchronously (its bytes stay mapped). */
  step(): boolean {
    if (this.ended) return true;
    if (!this.tree.isCurrent(this.generation)) return this.end(undefined, false);
    if (!this.members) {
      this.members = this.tree.membersOf(this.level, this.index);
      let rows = 0;
      for (const m of this.members) rows += m.record.rows;
      this.filter = new TokenFilter(rows);
      return false;
    }
    const seg = this.members[this.at++];
    if (seg && !seg.addTokensTo(this.filter!)) return this.end(undefined, true);
    if (this.at < this.members.length) return false;
    return this.end(this.filter, false);
  }

  /** Stopped before the end (the worker's abandon). */
  cancel(): void {
    if (!this.ended) this.end(undefined, false);
  }

  private end(filter: TokenFilter | undefined, failed: boolean): boolean {
    this.ended = true;
    this.tree.buildEnded(this.level, this.index, this.generation, filter, failed);
    return true;
  }
}
