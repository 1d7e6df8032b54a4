import { Conflict, quoteText } from '@shipyard/core';
import type { NamedProject } from './keys.js';
import { listOf, nowIso } from './model.js';

export interface Project {
  key: string;
  name: string;
  description: string;
  archived: boolean;
  created_at: string;
}

/** A project as answers show it, from a stored row (either store's, camel case). */
export const toProject = (row: {
  key: string;
  name: string;
  description: string;
  archivedAt: string | null;
  createdAt: string;
}): Project => ({
  key: row.key,
  name: row.name,
  description: row.description,
  archived: row.archivedAt !== null,
  created_at: row.createdAt,
});

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

/**
 * What an update of a project writes: only what differs from it, in the order name, description, archived
 * (`archivedAt`: the time it is archived, or null when it is brought back). A store checks a new name with
 * checkNameTaken before writing it.
 */
export function projectChanges(
  row: { name: string; description: string; archivedAt: string | null },
  input: { name?: string | undefined; description?: string | undefined; archived?: boolean | undefined },
): { name?: string; description?: string; archivedAt?: string | null } {
  const set: { name?: string; description?: string; archivedAt?: string | null } = {};
  if (input.name !== undefined && input.name !== row.name) set.name = input.name;
  if (input.description !== undefined && input.description !== row.description)
    set.description = input.description;
  if (input.archived !== undefined && input.archived !== (row.archivedAt !== null))
    set.archivedAt = input.archived ? nowIso() : null;
  return set;
}

/** The fields an update changed, as update_project names them. */
export const changedFields = (set: object) =>
  Object.keys(set).map((field) => (field === 'archivedAt' ? 'archived' : field));
