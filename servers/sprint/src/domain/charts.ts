import type { ChartInput } from '@shipyard/charts';
import type { Burndown, VelocityRow } from './metrics.js';

const signed = (points: number) => (points > 0 ? `+${points}` : String(points));

/** A burndown as a line chart: ideal (dashed) and actual remaining per day, scope changes as markers. */
export function burndownChartInput(title: string, data: Burndown): ChartInput {
  return {
    title,
    x: { title: 'Day', type: 'temporal' },
    y: { title: 'Points remaining' },
    series: [
      { name: 'Ideal', dashed: true, points: data.days.map((day) => ({ x: day.date, y: day.ideal })) },
      {
        name: 'Actual',
        points: data.days.flatMap((day) => (day.actual === null ? [] : [{ x: day.date, y: day.actual }])),
      },
    ],
    markers: data.days
      .filter((day) => day.scope_change !== 0)
      .map((day) => ({ x: day.date, label: `Scope ${signed(day.scope_change)}` })),
  };
}

/** Velocity as bars: committed and completed points per sprint, oldest first. */
export function velocityChartInput(title: string, rows: readonly VelocityRow[]): ChartInput {
  return {
    title,
    x: { title: 'Sprint', type: 'ordinal' },
    y: { title: 'Points' },
    series: [
      { name: 'Committed', points: rows.map((row) => ({ x: row.sprint, y: row.committed })) },
      { name: 'Completed', points: rows.map((row) => ({ x: row.sprint, y: row.completed })) },
    ],
  };
}
