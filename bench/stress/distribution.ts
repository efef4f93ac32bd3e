// cassandra-stress's distribution specs, with its semantics: FIXED(v), UNIFORM(min..max),
// GAUSSIAN(min..max[,stdvrng]) or GAUSSIAN(min..max,mean,stdev), EXP(min..max), EXTREME(min..max,shape)
// (Weibull), QEXTREME(min..max,shape,quantas), SEQ(min..max); aliases gauss, normal, norm, extr,
// weibull, qextr; a leading ~ inverts one (max - (v - min)). Ratio specs add a divisor:
// uniform(1..10)/10. Used for -pop, -col, -insert and the columnspec and insert entries of a profile.
// A distribution draws from a random source that can be re-seeded, so a profile's generated values
// are a function of their seed.

import { SeededRandom } from './seeded-random.js';

export interface Distribution {
  /** The spec, normalised, for printing. */
  readonly spec: string;
  /** inverseCumProb(0) and inverseCumProb(1). */
  readonly min: number;
  readonly max: number;
  /** The next value, an integer within [min, max]. */
  next(): number;
  /** The next value without truncation to an integer (floats and doubles, ratios). */
  nextDouble(): number;
  inverseCumProb(p: number): number;
  /** Restarts the draws from this seed (a sequence: its position). */
  setSeed(seed: number): void;
}

/** Makes a fresh instance, with its own random source, each call. */
export type DistributionFactory = (random?: RandomSource) => Distribution;

/** What a distribution draws from: Math.random-like, and re-seedable when it is a SeededRandom. */
export type RandomSource = (() => number) | SeededRandom;

export class StressArgError extends Error {}

export function parseCount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kmb])?$/i.exec(text.trim());
  if (!m) throw new StressArgError(`not a count: ${text}`);
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  return Math.round(Number(m[1]) * scale);
}

/** cassandra-stress's average of a distribution: the mean of its inverse CDF at 0, 0.02, ..., 1. */
export function averageOf(d: Distribution): number {
  let sum = 0;
  let p = 0;
  for (let i = 0; i < 51; i++) {
    sum += d.inverseCumProb(Math.min(1, p));
    p += 0.02;
  }
  return Math.trunc(sum / 51);
}

/** The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  if (p <= 0) return Number.NEGATIVE_INFINITY;
  if (p >= 1) return Number.POSITIVE_INFINITY;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const x =
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
    return p < low ? x : -x;
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

interface Source {
  next(): number;
  setSeed(seed: number): void;
}

function sourceOf(random: RandomSource | Source | undefined): Source {
  if (random === undefined) return new SeededRandom();
  if (typeof random === 'function') return { next: random, setSeed: () => {} };
  return random;
}

const clamp = (min: number, max: number, v: number) => Math.min(max, Math.max(min, v));

/**
 * A continuous distribution made discrete as cassandra-stress does: `bound` truncates a sample and
 * clamps it to [min, max] (uniform, gaussian); `offset` adds min to a sample clamped to [0, max-min]
 * (exp, extreme).
 */
function continuous(
  spec: string,
  min: number,
  max: number,
  mode: 'bound' | 'offset',
  sample: (u: () => number) => number,
  quantile: (p: number) => number,
  source: Source,
): Distribution {
  const delta = max - min;
  const toLong =
    mode === 'bound'
      ? (v: number) => clamp(min, max, Math.trunc(v))
      : (v: number) => min + clamp(0, delta, Math.trunc(v));
  const toDouble = mode === 'bound' ? (v: number) => clamp(min, max, v) : (v: number) => min + clamp(0, delta, v);
  const u = () => source.next();
  return {
    spec,
    min,
    max,
    next: () => toLong(sample(u)),
    nextDouble: () => toDouble(sample(u)),
    inverseCumProb: (p) => toLong(quantile(p)),
    setSeed: (seed) => source.setSeed(seed),
  };
}

function fixed(v: number): Distribution {
  return {
    spec: `FIXED(${v})`,
    min: v,
    max: v,
    next: () => v,
    nextDouble: () => v,
    inverseCumProb: () => v,
    setSeed() {},
  };
}

function sequence(spec: string, min: number, max: number): Distribution {
  const count = max - min + 1;
  let position = 0;
  return {
    spec,
    min,
    max,
    next: () => min + (position++ % count),
    nextDouble: () => min + (position++ % count),
    inverseCumProb: (p) => Math.trunc(min + (count - 1) * p),
    setSeed: (seed) => {
      position = Math.abs(Math.trunc(seed));
    },
  };
}

function inverted(d: Distribution): Distribution {
  const { min, max } = d;
  return {
    spec: `~${d.spec}`,
    min,
    max,
    next: () => max - (d.next() - min),
    nextDouble: () => max - (d.nextDouble() - min),
    inverseCumProb: (p) => max - (d.inverseCumProb(p) - min),
    setSeed: (seed) => d.setSeed(seed),
  };
}

/** QEXTREME: the extreme distribution's range cut into quantas of equal probability, uniform within each. */
function quantized(d: Distribution, quantas: number, source: Source): Distribution {
  const bounds: number[] = [d.min];
  for (let i = 1; i < quantas; i++) bounds.push(d.inverseCumProb(i / quantas));
  bounds.push(d.max + 1);
  const quanta = (v: number) => {
    let i = 0;
    while (i < quantas - 1 && bounds[i + 1]! <= v) i++;
    return i;
  };
  return {
    spec: d.spec,
    min: d.min,
    max: d.max,
    next: () => {
      const q = quanta(d.next());
      return bounds[q]! + Math.trunc(source.next() * (bounds[q + 1]! - bounds[q]!));
    },
    nextDouble: () => {
      const q = quanta(d.next());
      return bounds[q]! + source.next() * (bounds[q + 1]! - bounds[q]!);
    },
    inverseCumProb: (p) => d.inverseCumProb(p),
    setSeed: (seed) => {
      d.setSeed(seed);
      source.setSeed(seed ^ 0x5bd1e995);
    },
  };
}

const ALIASES: Record<string, string> = {
  GAUSS: 'GAUSSIAN',
  NORMAL: 'GAUSSIAN',
  NORM: 'GAUSSIAN',
  EXPONENTIAL: 'EXP',
  EXTR: 'EXTREME',
  WEIBULL: 'EXTREME',
  QEXTR: 'QEXTREME',
  SEQUENCE: 'SEQ',
};

function numberParam(kind: string, text: string | undefined, spec: string): number {
  const v = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(v)) {
    throw new StressArgError(`bad ${kind} parameter in ${spec}`);
  }
  return v;
}

/** The factory for a distribution spec (a bare number is FIXED(number)). */
export function distributionFactory(text: string): DistributionFactory {
  const spec = text.trim();
  if (/^\d+(\.\d+)?[kmb]?$/i.test(spec)) {
    const v = parseCount(spec);
    return () => fixed(v);
  }
  const m = /^(~?)([A-Za-z]+)\((.*)\)$/.exec(spec);
  if (!m) throw new StressArgError(`not a distribution: ${text} (e.g. FIXED(34), UNIFORM(1..100), GAUSSIAN(1..1M,5))`);
  const invert = m[1] === '~';
  const raw = m[2]!.toUpperCase();
  const kind = ALIASES[raw] ?? raw;
  const parts = m[3]!.split(',').map((p) => p.trim());
  const wrap = (make: DistributionFactory): DistributionFactory => (invert ? (random) => inverted(make(random)) : make);
  if (kind === 'FIXED') {
    if (parts.length !== 1) throw new StressArgError(`FIXED takes one value: ${text}`);
    const v = parseCount(parts[0]!);
    return wrap(() => fixed(v));
  }
  const range = /^(\d+(?:\.\d+)?[kmb]?)\.\.+(\d+(?:\.\d+)?[kmb]?)$/i.exec(parts[0] ?? '');
  if (!range) throw new StressArgError(`${kind} needs a range min..max: ${text}`);
  const min = parseCount(range[1]!);
  const max = parseCount(range[2]!);
  if (max < min) throw new StressArgError(`empty range in ${text}`);
  const extra = parts.length > 1 ? `,${parts.slice(1).join(',')}` : '';
  const name = `${kind}(${min}..${max}${extra})`;
  const fixedIfEmpty = (make: DistributionFactory): DistributionFactory =>
    min === max && kind !== 'SEQ' ? wrap(() => fixed(min)) : make;
  switch (kind) {
    case 'UNIFORM':
      if (parts.length !== 1) throw new StressArgError(`UNIFORM takes only a range: ${text}`);
      return fixedIfEmpty(
        wrap((random) =>
          continuous(
            name,
            min,
            max,
            'bound',
            (u) => min + u() * (max + 1 - min),
            (p) => min + clamp(0, 1, p) * (max + 1 - min),
            sourceOf(random),
          ),
        ),
      );
    case 'GAUSSIAN': {
      if (parts.length > 3) throw new StressArgError(`GAUSSIAN takes a range and at most two numbers: ${text}`);
      let mean = (min + max) / 2;
      let stdev = (max - min) / 2 / 3;
      if (parts.length === 2) stdev = (max - min) / 2 / numberParam(kind, parts[1], text);
      else if (parts.length === 3) {
        mean = numberParam(kind, parts[1], text);
        stdev = numberParam(kind, parts[2], text);
      }
      return fixedIfEmpty(
        wrap((random) => {
          const source = sourceOf(random);
          return continuous(
            name,
            min,
            max,
            'bound',
            (u) => {
              // Box–Muller.
              let r = 0;
              while (r === 0) r = u();
              return mean + stdev * Math.sqrt(-2 * Math.log(r)) * Math.cos(2 * Math.PI * u());
            },
            (p) => mean + stdev * normalQuantile(p),
            source,
          );
        }),
      );
    }
    case 'EXP': {
      if (parts.length !== 1) throw new StressArgError(`EXP takes only a range: ${text}`);
      // As cassandra-stress: the mean such that the top of the range has a probability of about
      // sqrt(1/(max-min)), so every value can come up without the distribution going flat.
      const mean = (max - min) / (-Math.log(Math.sqrt(1 / Math.max(1, max - min))) || 1);
      return fixedIfEmpty(
        wrap((random) =>
          continuous(
            name,
            min,
            max,
            'offset',
            (u) => -mean * Math.log(1 - u()),
            (p) => -mean * Math.log(1 - clamp(0, 1, p)),
            sourceOf(random),
          ),
        ),
      );
    }
    case 'EXTREME':
    case 'QEXTREME': {
      const expected = kind === 'EXTREME' ? 2 : 3;
      if (parts.length !== expected) {
        throw new StressArgError(
          kind === 'EXTREME'
            ? `EXTREME takes a range and a shape: ${text}`
            : `QEXTREME takes a range, a shape and quantas: ${text}`,
        );
      }
      const shape = numberParam(kind, parts[1], text);
      if (shape <= 0) throw new StressArgError(`${kind}'s shape must be positive: ${text}`);
      const scale = (max - min) / (-Math.log(Math.sqrt(1 / Math.max(1, max - min))) || 1) ** (1 / shape);
      const weibull = (random: RandomSource | Source | undefined) =>
        continuous(
          name,
          min,
          max,
          'offset',
          (u) => scale * (-Math.log(1 - u())) ** (1 / shape),
          (p) => scale * (-Math.log(1 - clamp(0, 1, p))) ** (1 / shape),
          sourceOf(random),
        );
      if (kind === 'EXTREME') return fixedIfEmpty(wrap(weibull));
      const quantas = Math.trunc(numberParam(kind, parts[2], text));
      if (quantas < 1) throw new StressArgError(`QEXTREME needs at least one quanta: ${text}`);
      return fixedIfEmpty(
        wrap((random) => {
          const source = sourceOf(random);
          return quantized(weibull(source), quantas, source);
        }),
      );
    }
    case 'SEQ':
      if (parts.length !== 1) throw new StressArgError(`SEQ takes only a range: ${text}`);
      return wrap(() => sequence(name, min, max));
    default:
      throw new StressArgError(
        `unknown distribution ${m[2]} (FIXED, UNIFORM, GAUSSIAN, EXP, EXTREME, QEXTREME, SEQ; ~ inverts)`,
      );
  }
}

/** Parses a distribution spec into one instance (drawing from Math.random unless given a source). */
export function parseDistribution(text: string, random: RandomSource = Math.random): Distribution {
  return distributionFactory(text)(random);
}

/** cassandra-stress's ratio distribution (`uniform(1..10)/10`): a distribution's draws divided, within 0..1. */
export interface RatioDistribution {
  readonly spec: string;
  /** The smallest and largest ratio it yields. */
  readonly min: number;
  readonly max: number;
  next(): number;
}

export function ratioDistributionFactory(text: string): (random?: RandomSource) => RatioDistribution {
  const m = /^(.*)\/(\d+[kmb]?)$/i.exec(text.trim());
  if (!m) throw new StressArgError(`not a ratio distribution: ${text} (e.g. fixed(1)/1, uniform(1..10)/10)`);
  const make = distributionFactory(m[1]!);
  const divisor = parseCount(m[2]!);
  if (divisor <= 0) throw new StressArgError(`the divisor must be positive: ${text}`);
  return (random) => {
    const d = make(random);
    return {
      spec: `${d.spec}/${divisor}`,
      min: Math.min(1, d.min / divisor),
      max: Math.min(1, d.max / divisor),
      next: () => clamp(0, 1, d.nextDouble() / divisor),
    };
  };
}
