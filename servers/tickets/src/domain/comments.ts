import { chars, clip } from './model.js';

/** Most characters a comment may have. */
export const MAX_COMMENT_CHARS = 10_000;

export interface Comment {
  id: number;
  author: string | null;
  body: string;
  created_at: string;
}

/**
 * Comments (oldest first) fitted to `budget` characters of bodies: the newest are whole while their bodies
 * add up to the budget, older ones are cut to `clipTo` (a cut body ends with `… (N characters)`).
 */
export function fitComments(list: readonly Comment[], budget: number, clipTo: number): Comment[] {
  let left = budget;
  return list
    .toReversed()
    .map((comment) => {
      left -= chars(comment.body);
      return left >= 0 ? comment : Object.assign({}, comment, { body: clip(comment.body, clipTo) });
    })
    .reverse();
}
