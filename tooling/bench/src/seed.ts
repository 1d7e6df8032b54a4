// Helpers for the scenarios' seeding: the same data every run.

/** mulberry32: a small seeded PRNG, so every run seeds the same rows. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The words of a text, split on blanks. */
export const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);
