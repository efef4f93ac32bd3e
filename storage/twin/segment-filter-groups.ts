// Which of a table's segments may hold a token, without asking each segment's filter: segments are grouped by id
// (GROUP_SIZE consecutive ids), and a group whose ids are all taken gets one token filter over all its members'
// tokens. A write (markLiveCopy) then probes one filter per group plus the segments of groups without one: at
// 10 M rows, 9 + up to 15 probes instead of 153 (docs/arrow-twins.md, "Token filters").
//
// Ids only grow (a compaction's rows come back in a later flush, under a new id), so once a group's last id is
// taken no segment joins it. Segments may leave it (compaction): its filter then holds tokens no member has,
// which costs a false positive now and then, never a miss. A group's filter is built off the request path, one
// member per step (TwinWorker); until it is ready its members are probed one by one.

import type { LiveSegment } from './table-twin.js';
import { TokenFilter } from './token-filter.js';

export const GROUP_SIZE = 16;

interface Group {
  readonly filter: TokenFilter;
  readonly members: LiveSegment[];
}

/** The twin's view of its segments that this needs. */
export interface SegmentSource {
  liveSegments(): Iterable<LiveSegment>;
  /** Ids below this are taken (committed, or skipped by a failed commit). */
  pendingSegmentId(): number;
  /** A group's filter can be built (the twin's worker schedules a FilterBuild). */
  onFilterWork: (() => void) | undefined;
}

export class SegmentFilterGroups {
  /** Built filters by group number. */
  private readonly built = new Map<number, TokenFilter>();
  private building: number | undefined;
  /** Groups whose build met a segment without bytes (a damaged twin): probed one by one, not retried. */
  private readonly failed = new Set<number>();
  /** Bumped by clear(): a build started before it must not store its filter. */
  private generation = 0;
  private layout: { groups: Group[]; singles: LiveSegment[]; unbuilt: number[] } | undefined;

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
   * Fills `out` with the segments that may hold the token (signed high, low halves): the group filter or the
   * segment's own says maybe, or the segment has no filter (its bytes are missing: the caller decides).
   */
  candidates(hi: number, lo: number, out: LiveSegment[]): LiveSegment[] {
    out.length = 0;
    const l = this.layout ?? this.relayout();
    for (const g of l.groups) {
      if (!g.filter.mayContain(hi, lo)) continue;
      for (const seg of g.members) {
        const f = seg.tokenFilter();
        if (!f || f.mayContain(hi, lo)) out.push(seg);
      }
    }
    for (const seg of l.singles) {
      const f = seg.tokenFilter();
      if (!f || f.mayContain(hi, lo)) out.push(seg);
    }
    return out;
  }

  /** Groups probed as one filter (for tests and system tables). */
  get groupFilters(): number {
    return (this.layout ?? this.relayout()).groups.length;
  }

  /** The next group whose filter is missing, as a build job; undefined when none is. */
  startBuild(): FilterBuild | undefined {
    const l = this.layout ?? this.relayout();
    const group = l.unbuilt.find((g) => g !== this.building);
    if (group === undefined) return undefined;
    this.building = group;
    return new FilterBuild(this, group, this.generation);
  }

  /** Members of group `g` now, in id order. */
  membersOf(g: number): LiveSegment[] {
    const out: LiveSegment[] = [];
    for (const seg of this.source.liveSegments()) if (Math.floor(seg.id / GROUP_SIZE) === g) out.push(seg);
    return out.sort((a, b) => a.id - b.id);
  }

  /** A build finished (`filter`), met a damaged segment (`failed`), or was stopped. */
  buildEnded(group: number, generation: number, filter: TokenFilter | undefined, failed = false): void {
    if (generation !== this.generation) return;
    if (this.building === group) this.building = undefined;
    if (failed) this.failed.add(group);
    if (filter) {
      this.built.set(group, filter);
      this.layout = undefined;
    }
  }

  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  private relayout(): { groups: Group[]; singles: LiveSegment[]; unbuilt: number[] } {
    const taken = this.source.pendingSegmentId();
    const byGroup = new Map<number, LiveSegment[]>();
    for (const seg of this.source.liveSegments()) {
      const g = Math.floor(seg.id / GROUP_SIZE);
      const m = byGroup.get(g);
      if (m) m.push(seg);
      else byGroup.set(g, [seg]);
    }
    const groups: Group[] = [];
    const singles: LiveSegment[] = [];
    const unbuilt: number[] = [];
    for (const [g, members] of byGroup) {
      const filter = this.built.get(g);
      if (filter) groups.push({ filter, members });
      else {
        singles.push(...members);
        // Complete (no id of it left to take) and worth a filter.
        if ((g + 1) * GROUP_SIZE <= taken && members.length > 1 && !this.failed.has(g)) unbuilt.push(g);
      }
    }
    // Groups whose members all left.
    for (const g of this.built.keys()) if (!byGroup.has(g)) this.built.delete(g);
    this.layout = { groups, singles, unbuilt };
    if (unbuilt.length > 0 && this.building === undefined) this.source.onFilterWork?.();
    return this.layout;
  }
}

/** Builds one group's filter, one member segment a step. */
export class FilterBuild {
  private members: LiveSegment[] | undefined;
  private filter: TokenFilter | undefined;
  private at = 0;
  private ended = false;

  constructor(
    private readonly groups: SegmentFilterGroups,
    readonly group: number,
    private readonly generation: number,
  ) {}

  /** True when done. Each step reads one segment's token column, synchronously (its bytes stay mapped). */
  step(): boolean {
    if (this.ended) return true;
    if (!this.groups.isCurrent(this.generation)) return this.end(undefined);
    if (!this.members) {
      this.members = this.groups.membersOf(this.group);
      let rows = 0;
      for (const m of this.members) rows += m.record.rows;
      this.filter = new TokenFilter(rows);
      return false;
    }
    const seg = this.members[this.at++];
    if (seg && !seg.addTokensTo(this.filter!)) return this.end(undefined, true);
    if (this.at < this.members.length) return false;
    return this.end(this.filter);
  }

  /** Stopped before the end (the worker's abandon). */
  cancel(): void {
    if (!this.ended) this.end(undefined);
  }

  private end(filter: TokenFilter | undefined, failed = false): boolean {
    this.ended = true;
    this.groups.buildEnded(this.group, this.generation, filter, failed);
    return true;
  }
}
