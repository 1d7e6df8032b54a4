import { Conflict, quoteText } from '@shipyard/core';
import type { NamedProject } from './keys.js';
import { listOf } from './model.js';

export interface Project {
  key: string;
  name: string;
  description: string;
  archived: boolean;
  created_at: string;
}

/** A new project's key is taken: Conflict naming the project that has it. */
export const projectExists = (key: string, name: string) =>
  new Conflict(`Project ${key} already exists (${quoteText(name)})`, {
    hint: 'Use that project, or choose another key',
  });

/**
 * One name a project: a name then tells a key (see projectNotFound), and no team splits in two. Conflict
 * when `twins`, the other projects with the name (as projectNameKey compares), are any.
 */
export function checkNameTaken(twins: readonly NamedProject[]): void {
  const keys = twins.map((project) => project.key);
  const [first] = twins;
  if (first) {
    throw new Conflict(
      keys.length > 1
        ? `Projects ${listOf(keys)} already have the name ${quoteText(first.name)}`
        : `Project ${first.key} already has the name ${quoteText(first.name)}`,
      { hint: `Use ${listOf(keys, 'or')}, or choose another name` },
    );
  }
}
