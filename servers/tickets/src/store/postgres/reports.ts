/** A project's status and labels, and the known people. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type ReportsPart = Pick<
  TicketsStore,
  'projectStatus' | 'projectLabels' | 'projectReport' | 'knownNames' | 'listPeople'
>;

export function reportsPart(_access: PgAccess): ReportsPart {
  return {
    projectStatus: notYet('projectStatus'),
    projectLabels: notYet('projectLabels'),
    projectReport: notYet('projectReport'),
    knownNames: notYet('knownNames'),
    listPeople: notYet('listPeople'),
  };
}
