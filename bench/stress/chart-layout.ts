// How the HTML report draws one metric of one operation type: a line per run, and the y-axis
// range. An interval shorter than half the run's nominal one (a run shorter than an interval, or a
// run's last, partial interval) holds few operations, so its rates are noisy and its latencies can
// be one cold outlier: such points are drawn (a run of one point as a visible marker), but the axis
// is sized by the full intervals, and a partial point above it sits on the top edge as a triangle
// whose tooltip tells its value. When no run has a full interval, the axis takes every point.
// The page runs this same function (its source is embedded), so it must stay self-contained.

export interface ChartPoint {
  x: number;
  /** Where it is drawn: the value, or the top of the axis when clipped. */
  y: number;
  value: number;
  /** From an interval shorter than half the nominal one. */
  partial: boolean;
  /** Above the axis: drawn on its top edge. */
  clipped: boolean;
}

export interface ChartLine {
  run: number;
  label: string;
  points: ChartPoint[];
}

export interface ChartLayout {
  lines: ChartLine[];
  /** The axis maximum, when partial points must not set it; undefined: the chart's own. */
  yMax?: number;
}

interface SeriesLike {
  time: number[];
  seconds?: number[];
  [metric: string]: number[] | undefined;
}

interface RunLike {
  revision: string;
  intervalSeconds?: number;
  series: Record<string, SeriesLike | undefined>;
}

export function chartLayout(runs: RunLike[], op: string, metric: string): ChartLayout {
  // 1, 2, 2.5 or 5 times a power of ten, at or above v.
  function niceCeil(v: number): number {
    if (!(v > 0)) return 1;
    const p = 10 ** Math.floor(Math.log10(v));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v * (1 - 1e-12)) return m * p;
    return 10 * p;
  }
  const lines: ChartLine[] = [];
  let fullMax = Number.NEGATIVE_INFINITY;
  let partialMax = Number.NEGATIVE_INFINITY;
  runs.forEach((run, i) => {
    const s = run.series[op];
    const values = s?.[metric];
    if (!s || !values) return;
    const seconds = s.seconds;
    const nominal = run.intervalSeconds ?? (seconds && seconds.length > 0 ? Math.max(...seconds) : 1);
    const points: ChartPoint[] = s.time.map((t, k) => {
      const length = seconds?.[k];
      const partial = length !== undefined && length < nominal / 2;
      const value = values[k] ?? 0;
      if (partial) partialMax = Math.max(partialMax, value);
      else fullMax = Math.max(fullMax, value);
      return { x: t, y: value, value, partial, clipped: false };
    });
    lines.push({ run: i, label: run.revision, points });
  });
  if (fullMax === Number.NEGATIVE_INFINITY || partialMax <= fullMax) return { lines };
  const yMax = niceCeil(fullMax * 1.05);
  for (const line of lines) {
    for (const p of line.points) {
      if (p.value > yMax) {
        p.y = yMax;
        p.clipped = true;
      }
    }
  }
  return { lines, yMax };
}
