import { Forbidden, NotFound, quoteText } from '@shipyard/core';
import { chars, clip } from './model.js';
import { foldName } from './people.js';

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

/**
 * Only its author may edit or delete a comment (names compared as foldName compares), so a server with no
 * configured user may change none: NotFound when ticket `key` has no comment `id` (`comment` undefined),
 * Forbidden when `user` did not write it.
 */
export function checkOwnComment(
  key: string,
  id: number,
  comment: { author: string | null } | undefined,
  user: string | undefined,
  change: 'edit' | 'delete',
): asserts comment is { author: string | null } {
  if (!comment) {
    throw new NotFound(`${key} has no comment ${id}`, {
      hint: `Call get_ticket for ${key} to see its comments and their ids`,
    });
  }
  if (user === undefined) {
    throw new Forbidden(`Only a comment's author may ${change} it, and this server has no configured user`, {
      hint: 'Start the server with --user / SHIPYARD_USER to change your own comments',
    });
  }
  if (comment.author === null || foldName(comment.author) !== foldName(user)) {
    const by = comment.author === null ? 'no named author' : quoteText(comment.author);
    throw new Forbidden(`Comment ${id} on ${key} is by ${by}; only its author may ${change} it`, {
      hint: 'Add a comment of your own with add_ticket_comment instead',
    });
  }
}
