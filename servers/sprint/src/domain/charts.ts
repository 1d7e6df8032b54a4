import type { ChartInput } from '@shipyard/charts';
import type { Burndown, VelocityRow } from './metrics.js';

const signed = (points: number) => (points > 0 ? `+${points}` : String(points));

/** One marker per day with a change of scope, each change named: a day whose changes net to zero shows too. */
function scopeMarkers(data: Burndown) {
  const byDay = new Map<string, string[]>();
  for (const change of data.scope_changes) {
    const labels = byDay.get(change.date) ?? [];
    labels.push(signed(change.points));
    byDay.set(change.date, labels);
  }
  const first = data.days[0]?.date ?? '';
  const markers = new Map<string, string[]>();
  for (const [date, labels] of byDay) {
    // A change before the first day shows on it.
    let day = date;
    if (day < first) day = first;
    markers.set(day, [...(markers.get(day) ?? []), ...labels]);
  }
  return [...markers].map(([x, labels]) => ({ x, label: `Scope ${labels.join(' ')}` }));
}

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
    markers: scopeMarkers(data),
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
