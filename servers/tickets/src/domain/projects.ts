import { Conflict, quoteText } from '@shipyard/core';
import { listOf, nowIso } from './model.js';

export interface Project {
  key: string;
  name: string;
  description: string;
  archived: boolean;
  created_at: string;
}

/** Refuse a new project whose key is taken, naming the project that has it. */
export const projectExists = (key: string, name: string) =>
  new Conflict(`Project ${key} already exists (${quoteText(name)})`, {
    hint: 'Use that project, or choose another key',
  });

/**
 * Refuse a name other projects have (`twins`: those named alike, compared as projectNameKey compares, in
 * key order), naming them; undefined when there are none. One name a project: a name then tells a key
 * (see projectNotFound), and no team splits in two.
 */
export function nameTaken(twins: readonly { key: string; name: string }[]): Conflict | undefined {
  const keys = twins.map((project) => project.key);
  const [first] = twins;
  if (!first) return undefined;
  return new Conflict(
    keys.length > 1
      ? `Projects ${listOf(keys)} already have the name ${quoteText(first.name)}`
      : `Project ${first.key} already has the name ${quoteText(first.name)}`,
    { hint: `Use ${listOf(keys, 'or')}, or choose another name` },
  );
}

/**
 * What an update of a project writes: only what differs from it, in the order name, description, archived
 * (`archivedAt`: the time it is archived, or null when it is brought back). A store checks a new name with
 * nameTaken before writing it.
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
