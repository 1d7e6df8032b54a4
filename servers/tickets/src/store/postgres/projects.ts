/** Projects: create, update, list, keys, completion. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type ProjectsPart = Pick<
  TicketsStore,
  'createProject' | 'updateProject' | 'listProjects' | 'projectKeys' | 'getProject' | 'completeProjects'
>;

export function projectsPart(_access: PgAccess): ProjectsPart {
  return {
    createProject: notYet('createProject'),
    updateProject: notYet('updateProject'),
    listProjects: notYet('listProjects'),
    projectKeys: notYet('projectKeys'),
    getProject: notYet('getProject'),
    completeProjects: notYet('completeProjects'),
  };
}
