// Small statistics over arrays of numbers (milliseconds, KiB).

const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b);

/** Median: the mean of the two middle values for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Nearest-rank percentile: the smallest value with at least p% of the samples at or below it. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1] as number;
}

export interface Latency {
  n: number;
  p50: number;
  p95: number;
}

export const latency = (values: readonly number[]): Latency => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
});

/** a / b, or NaN when either is missing or b is not positive. */
export const ratio = (a: number | null, b: number | null): number =>
  a !== null && b !== null && b > 0 && Number.isFinite(a) ? a / b : Number.NaN;
