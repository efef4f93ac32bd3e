// cassandra-stress's distribution specs: FIXED(v), UNIFORM(min..max), GAUSSIAN(min..max[,stdvrng])
// or GAUSSIAN(min..max,mean,stdev), EXP(min..max), SEQ(min..max) — used for -pop (which partition
// each operation touches) and -col (how many columns, how large each value is).

export interface Distribution {
  /** The spec as given, normalised, for printing. */
  readonly spec: string;
  readonly min: number;
  readonly max: number;
  next(): number;
}

export class StressArgError extends Error {}

function bounded(min: number, max: number, v: number): number {
  return Math.min(max, Math.max(min, Math.round(v)));
}

function gaussian(random: () => number): number {
  // Box–Muller.
  let u = 0;
  while (u === 0) u = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

export function parseCount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kmb])?$/i.exec(text.trim());
  if (!m) throw new StressArgError(`not a count: ${text}`);
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  return Math.round(Number(m[1]) * scale);
}

/** Parses a distribution spec; a bare number is FIXED(number). */
export function parseDistribution(text: string, random: () => number = Math.random): Distribution {
  const spec = text.trim();
  if (/^\d+[kmb]?$/i.test(spec)) {
    const v = parseCount(spec);
    return { spec: `FIXED(${v})`, min: v, max: v, next: () => v };
  }
  const m = /^(\w+)\((.*)\)$/.exec(spec);
  if (!m) throw new StressArgError(`not a distribution: ${text} (e.g. FIXED(34), UNIFORM(1..100), GAUSSIAN(1..1M,5))`);
  const kind = m[1]!.toUpperCase();
  const parts = m[2]!.split(',').map((p) => p.trim());
  if (kind === 'FIXED') {
    const v = parseCount(parts[0] ?? '');
    return { spec: `FIXED(${v})`, min: v, max: v, next: () => v };
  }
  const range = /^(\d+[kmb]?)\.\.(\d+[kmb]?)$/i.exec(parts[0] ?? '');
  if (!range) throw new StressArgError(`${kind} needs a range min..max: ${text}`);
  const min = parseCount(range[1]!);
  const max = parseCount(range[2]!);
  if (max < min) throw new StressArgError(`empty range in ${text}`);
  const name = `${kind}(${min}..${max}${parts.length > 1 ? `,${parts.slice(1).join(',')}` : ''})`;
  switch (kind) {
    case 'UNIFORM':
      return { spec: name, min, max, next: () => min + Math.floor(random() * (max - min + 1)) };
    case 'GAUSSIAN':
    case 'NORMAL':
    case 'GAUSS': {
      let mean = (min + max) / 2;
      let stdev = (mean - min) / 3;
      if (parts.length === 2) stdev = (mean - min) / Number(parts[1]);
      else if (parts.length >= 3) {
        mean = Number(parts[1]);
        stdev = Number(parts[2]);
      }
      if (!Number.isFinite(mean) || !Number.isFinite(stdev))
        throw new StressArgError(`bad GAUSSIAN parameters: ${text}`);
      return { spec: name, min, max, next: () => bounded(min, max, mean + stdev * gaussian(random)) };
    }
    case 'EXP':
    case 'EXPONENTIAL': {
      // As cassandra-stress: mean such that ~99.9 % of values fall in the range.
      const lambda = Math.log(1000) / Math.max(1, max - min);
      return { spec: name, min, max, next: () => bounded(min, max, min - Math.log(1 - random()) / lambda) };
    }
    case 'SEQ': {
      let next = min;
      return {
        spec: name,
        min,
        max,
        next: () => {
          const v = next;
          next = next >= max ? min : next + 1;
          return v;
        },
      };
    }
    default:
      throw new StressArgError(`unknown distribution ${kind} (FIXED, UNIFORM, GAUSSIAN, EXP, SEQ)`);
  }
}
