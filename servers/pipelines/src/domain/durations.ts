// Durations of runs and jobs over time: percentiles per day or week, and regressions against a baseline.

export interface Timed {
  /** When it started (ISO). */
  started_at: string;
  duration_ms: number;
}

export type Bucket = 'day' | 'week';

/** The nearest-rank percentile (p in 0..100) of sorted numbers; undefined when there are none. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The day (YYYY-MM-DD, UTC) a time falls on, or the Monday of its week. */
export function bucketOf(iso: string, bucket: Bucket): string {
  const day = new Date(iso.slice(0, 10));
  if (bucket === 'week') day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

export type TrendPoint = {
  period: string;
  runs: number;
  p50_ms: number;
  p95_ms: number;
  /** p50 over the baseline's p50 by more than the threshold. */
  regression: boolean;
};

export type Trend = {
  baseline: { runs: number; p50_ms: number | null; p95_ms: number | null };
  points: TrendPoint[];
  regressions: string[];
};

/**
 * p50/p95 per period of the items started at or after `since`, and the baseline's from those started in
 * [baselineFrom, since). A period regresses when its p50 exceeds the baseline p50 by more than
 * `thresholdPct` percent.
 */
export function durationTrend(
  items: readonly Timed[],
  options: { since: string; baselineFrom: string; bucket: Bucket; thresholdPct: number },
): Trend {
  const baseline: number[] = [];
  const periods = new Map<string, number[]>();
  for (const item of items) {
    if (item.started_at >= options.since) {
      const key = bucketOf(item.started_at, options.bucket);
      const list = periods.get(key) ?? [];
      list.push(item.duration_ms);
      periods.set(key, list);
    } else if (item.started_at >= options.baselineFrom) {
      baseline.push(item.duration_ms);
    }
  }
  baseline.sort((a, b) => a - b);
  const base50 = percentile(baseline, 50);
  const limit = base50 === undefined ? undefined : base50 * (1 + options.thresholdPct / 100);
  const points = [...periods.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([period, durations]) => {
      durations.sort((a, b) => a - b);
      const p50 = percentile(durations, 50) as number;
      return {
        period,
        runs: durations.length,
        p50_ms: p50,
        p95_ms: percentile(durations, 95) as number,
        regression: limit !== undefined && p50 > limit,
      };
    });
  return {
    baseline: { runs: baseline.length, p50_ms: base50 ?? null, p95_ms: percentile(baseline, 95) ?? null },
    points,
    regressions: points.filter((p) => p.regression).map((p) => p.period),
  };
}

/** Milliseconds between two ISO times, or undefined when either is missing or they run backwards. */
export function between(from: string | null | undefined, to: string | null | undefined): number | undefined {
  if (!from || !to) return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
