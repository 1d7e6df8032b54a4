import { listOf } from './model.js';

/** Keys a refusal or an answer names, at most this many of each kind. */
export const NAMED = 20;

export interface DeletedTicket {
  key: string;
  title: string;
  /** The children that lost their parent (they stay, at the top level), the first 20. */
  children: string[];
  /** How many links went with the ticket. */
  links: number;
}

export const namedKeys = (keys: readonly string[], total: number) =>
  total > keys.length ? `${keys.join(', ')} and ${total - keys.length} more` : listOf(keys);
