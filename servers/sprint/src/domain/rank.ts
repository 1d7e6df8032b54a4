/**
 * Fractional ranks: strings over base-36 digits that sort in backlog order, so a story moves between two
 * neighbours by taking a new rank between theirs, rewriting one row. A rank never ends in `0`, so there is
 * always room before it.
 */
const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A rank strictly between `before` ('' for the start) and `after` (null for the end). */
export function rankBetween(before: string, after: string | null): string {
  if (after !== null && before >= after) {
    throw new RangeError(`rank ${before} is not before ${after}`);
  }
  return midpoint(before, after);
}

function midpoint(a: string, b: string | null): string {
  if (b !== null) {
    // The common prefix stays; the midpoint is taken after it.
    let n = 0;
    while ((a[n] ?? '0') === b[n]) n++;
    if (n > 0) return b.slice(0, n) + midpoint(a.slice(n), b.slice(n));
  }
  const digitA = a ? DIGITS.indexOf(a[0] as string) : 0;
  const digitB = b !== null ? DIGITS.indexOf(b[0] as string) : DIGITS.length;
  if (digitB - digitA > 1) return DIGITS[Math.round((digitA + digitB) / 2)] as string;
  // Adjacent digits: b's first digit alone lies between when b is longer; else extend a.
  if (b !== null && b.length > 1) return b.slice(0, 1);
  return (DIGITS[digitA] as string) + midpoint(a.slice(1), null);
}
