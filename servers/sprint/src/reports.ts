import { burndownChartInput, velocityChartInput } from './domain/charts.js';
import { burndown, type VelocityRow, velocitySummary } from './domain/metrics.js';
import type { SprintStore } from './store/types.js';

/** The burndown of a sprint, and its chart's input. */
export async function loadBurndown(store: SprintStore, key: string, today: string) {
  const { sprint, times, events } = await store.sprintEvents(key);
  const data = burndown(times, events, today);
  return { sprint, data, chart: burndownChartInput(`${sprint.key} ${sprint.name} burndown`, data) };
}

/** The velocity of a team's last closed sprints, oldest first, with the summary and the chart's input. */
export async function loadVelocity(store: SprintStore, team: string, last: number) {
  const history = await store.closedSprints(team, last);
  const rows: VelocityRow[] = history.map(({ sprint, velocity }) => ({
    sprint: sprint.key,
    name: sprint.name,
    ...velocity,
  }));
  return { rows, summary: velocitySummary(rows), chart: velocityChartInput(`Velocity, team ${team}`, rows) };
}
