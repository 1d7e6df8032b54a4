// Small statistics over arrays of numbers (milliseconds, KiB, ...).

/** @param {number[]} values */
function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/**
 * Median (mean of the two middle values for an even count).
 * @param {number[]} values
 */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Percentile by the nearest-rank method: the smallest value with at least p% of the samples at or below it.
 * @param {number[]} values
 * @param {number} p  0-100
 */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1];
}

/**
 * @param {number[]} values
 * @returns {{n: number, min: number, p25: number, median: number, p75: number, max: number}}
 */
export function summary(values) {
  const s = sorted(values);
  return {
    n: s.length,
    min: s[0],
    p25: percentile(s, 25),
    median: median(s),
    p75: percentile(s, 75),
    max: s[s.length - 1],
  };
}

/**
 * @param {number[]} values
 * @returns {{n: number, p50: number, p95: number, p99: number, min: number, max: number, mean: number}}
 */
export function latencySummary(values) {
  const s = sorted(values);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    min: s[0],
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

/** @param {number} a @param {number} b */
export function ratio(a, b) {
  return b > 0 && Number.isFinite(a) ? a / b : Number.NaN;
}
