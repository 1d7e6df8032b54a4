/** Flaky commits over commits seen, to 3 decimals (0 when it was never seen). */
export function flipRate(flaky: number, seen: number): number {
  return seen > 0 ? Math.round((flaky / seen) * 1000) / 1000 : 0;
}
