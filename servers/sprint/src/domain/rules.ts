import { Conflict, InvalidInput, NotFound, named } from '@shipyard/core';
import type { Sprint } from './model.js';

export const sprintNotFound = (key: string) =>
  new NotFound(`No sprint ${named(key)}`, { hint: 'Call list_sprints for the sprint keys, e.g. S-12' });

export const storyNotFound = (key: string) =>
  new NotFound(`No story ${named(key)}`, {
    hint: 'Call get_backlog or get_sprint for story keys, e.g. ST-42',
  });

/** expected_version, when given, must be the stored version. */
export function checkVersion(
  key: string,
  version: number,
  expected: number | undefined,
  reread: string,
): void {
  if (expected !== undefined && expected !== version) {
    throw new Conflict(`${key} is at version ${version}, not ${expected}: it changed since you read it`, {
      hint: `Read it again (${reread}), check the change, then retry with expected_version ${version}`,
    });
  }
}

/** A sprint starts from planned, while no other sprint of its team is active. */
export function checkStart(sprint: Sprint, active: string | undefined): void {
  if (sprint.status !== 'planned') {
    throw new Conflict(`${sprint.key} is ${sprint.status}; only a planned sprint can start`, {
      hint: 'Call list_sprints with status planned, or create_sprint for a new one',
    });
  }
  if (active !== undefined) {
    throw new Conflict(`Team ${sprint.team} already has an active sprint, ${active}`, {
      hint: `Close ${active} with close_sprint first`,
    });
  }
}

/** Only an active sprint closes; its unfinished stories go to a planned sprint of the same team. */
export function checkCarryTarget(sprint: Sprint, target: Sprint | null): void {
  if (sprint.status !== 'active') {
    throw new Conflict(`${sprint.key} is ${sprint.status}; only an active sprint can close`, {
      hint:
        sprint.status === 'planned'
          ? `Start it with start_sprint first, or leave it planned`
          : 'A closed sprint stays closed; read it with get_sprint',
    });
  }
  if (target && (target.status !== 'planned' || target.team !== sprint.team)) {
    throw new InvalidInput(
      `${target.key} is ${target.status} in team ${target.team}; unfinished stories go to a planned sprint of team ${sprint.team}`,
      {
        hint: 'Pass a planned sprint of the same team as carry_to (list_sprints), or leave it out for the backlog',
      },
    );
  }
}

/** Stories of a closed sprint are its record: they do not change. */
export function checkEditable(story: string, sprint: Sprint | null): void {
  if (sprint?.status === 'closed') {
    throw new Conflict(`${story} belongs to closed sprint ${sprint.key}, which is read-only`, {
      hint: 'Create a new story for further work (create_story)',
    });
  }
}

/** A story moves into a planned or active sprint of its own team. */
export function checkMoveTarget(target: Sprint, team: string): void {
  if (target.status === 'closed') {
    throw new Conflict(`${target.key} is closed and read-only`, {
      hint: 'Move the story to a planned or active sprint (list_sprints), or to the backlog',
    });
  }
  if (target.team !== team) {
    throw new InvalidInput(`${target.key} belongs to team ${target.team}, the story to team ${team}`, {
      hint: 'Pick a sprint of the same team (list_sprints with team)',
    });
  }
}
