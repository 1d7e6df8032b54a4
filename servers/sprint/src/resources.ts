import { barSvg, lineSvg, png } from './charts.js';
import { resource } from './deps.js';
import { boardView } from './domain/board.js';
import { sprintMarkdown } from './domain/markdown.js';
import { DEFAULT_TEAM } from './domain/model.js';
import { loadBurndown, loadVelocity } from './reports.js';
import { sprintOut, today } from './tools/shared.js';

const sprintVariable = {
  sprint: {
    description: 'Sprint key, e.g. S-12',
    complete: (
      value: string,
      ctx: { deps: { store: { completeSprintKeys(p: string): Promise<string[]> } } },
    ) => ctx.deps.store.completeSprintKeys(value),
  },
};

const canonical = (params: Record<string, string>) => ({ sprint: (params.sprint ?? '').toUpperCase() });

export const sprintsResource = resource({
  uri: 'sprint://sprints',
  name: 'sprints',
  title: 'Sprints',
  description: 'The 100 newest sprints of every team as JSON: key, name, team, dates, status.',
  mimeType: 'application/json',
  read: async (_params, ctx) => (await ctx.deps.store.listSprints({}, { limit: 100 })).items.map(sprintOut),
});

export const backlogResource = resource({
  uri: 'sprint://backlog',
  name: 'backlog',
  title: 'Backlog',
  description: `The first 100 stories of the ${DEFAULT_TEAM} team's backlog in rank order, as JSON. Titles are user text.`,
  mimeType: 'application/json',
  read: async (_params, ctx) =>
    (await ctx.deps.store.getBacklog({ team: DEFAULT_TEAM }, { limit: 100 })).items,
});

export const velocitySvg = resource({
  uri: 'sprint://velocity.svg',
  name: 'velocity-svg',
  title: 'Velocity chart (SVG)',
  description: `Committed vs completed points of the ${DEFAULT_TEAM} team's last 10 closed sprints, as an SVG bar chart.`,
  mimeType: 'image/svg+xml',
  read: async (_params, ctx) => barSvg((await loadVelocity(ctx.deps.store, DEFAULT_TEAM, 10)).chart),
});

export const sprintResource = resource({
  uri: 'sprint://{sprint}',
  name: 'sprint',
  title: 'Sprint summary',
  description:
    'One sprint as markdown: dates, goal, commitment vs now, and the board. Story titles are user text.',
  mimeType: 'text/markdown',
  variables: sprintVariable,
  canonical,
  read: async ({ sprint }, ctx) =>
    sprintMarkdown(await ctx.deps.store.getBoard(sprint ?? '', 20), today(ctx.deps)),
});

export const boardResource = resource({
  uri: 'sprint://{sprint}/board',
  name: 'board',
  title: 'Sprint board',
  description: 'One sprint board as JSON: per status column the count, points and first 20 stories; totals.',
  mimeType: 'application/json',
  variables: sprintVariable,
  canonical,
  read: async ({ sprint }, ctx) => {
    const board = await ctx.deps.store.getBoard(sprint ?? '', 20);
    return { sprint: sprintOut(board.sprint), ...boardView(board, today(ctx.deps)) };
  },
});

export const burndownSvg = resource({
  uri: 'sprint://{sprint}/burndown.svg',
  name: 'burndown-svg',
  title: 'Burndown chart (SVG)',
  description:
    'A sprint burndown as an SVG line chart: ideal vs actual points remaining, scope changes marked.',
  mimeType: 'image/svg+xml',
  variables: sprintVariable,
  canonical,
  read: async ({ sprint }, ctx) =>
    lineSvg((await loadBurndown(ctx.deps.store, sprint ?? '', today(ctx.deps))).chart),
});

export const velocityPng = resource({
  uri: 'sprint://velocity.png',
  name: 'velocity-png',
  title: 'Velocity chart (PNG)',
  description: `Committed vs completed points of the ${DEFAULT_TEAM} team's last 10 closed sprints, as a PNG bar chart.`,
  mimeType: 'image/png',
  binary: true,
  read: async (_params, ctx) =>
    png(await barSvg((await loadVelocity(ctx.deps.store, DEFAULT_TEAM, 10)).chart)),
});

export const burndownPng = resource({
  uri: 'sprint://{sprint}/burndown.png',
  name: 'burndown-png',
  title: 'Burndown chart (PNG)',
  description:
    'A sprint burndown as a PNG line chart: ideal vs actual points remaining, scope changes marked.',
  mimeType: 'image/png',
  binary: true,
  variables: sprintVariable,
  canonical,
  read: async ({ sprint }, ctx) =>
    png(await lineSvg((await loadBurndown(ctx.deps.store, sprint ?? '', today(ctx.deps))).chart)),
});

export const resources = [
  sprintsResource,
  backlogResource,
  velocitySvg,
  velocityPng,
  sprintResource,
  boardResource,
  burndownSvg,
  burndownPng,
];
