import { createRequire } from 'node:module';
import type { ChartInput } from '@shipyard/charts';

type Charts = typeof import('@shipyard/charts');

// The bundle is a script that cannot import(): the chart library is required, on the first chart drawn
// (it loads vega and resvg in turn), never at start.
const load = createRequire(import.meta.url);
let charts: Charts | undefined;
const library = () => {
  charts ??= load('@shipyard/charts') as Charts;
  return charts;
};

/** A line chart as SVG. */
export function lineSvg(input: ChartInput): Promise<string> {
  return library().lineChart(input);
}

/** A bar chart as SVG. */
export function barSvg(input: ChartInput): Promise<string> {
  return library().barChart(input);
}

/** An SVG as PNG. */
export function png(svg: string): Promise<Uint8Array> {
  return library().svgToPng(svg);
}
