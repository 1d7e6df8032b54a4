// Plain chart data to a Vega-Lite spec. Pure and synchronous: nothing here loads vega.
import type { Config, TopLevelSpec } from 'vega-lite';

export type ChartKind = 'line' | 'bar' | 'stackedBar';
export type XType = 'temporal' | 'ordinal' | 'quantitative';

export interface Point {
  /** A day 'YYYY-MM-DD' (or an ISO time with a zone) for temporal, a label for ordinal, a number for quantitative. */
  x: string | number;
  y: number;
}

export interface Series {
  name: string;
  points: Point[];
  /** Dashed line (line charts), e.g. the ideal line of a burndown. */
  dashed?: boolean;
}

export interface Marker {
  x: string | number;
  label: string;
}

export interface ChartInput {
  title: string;
  x: { title: string; type?: XType };
  y: { title: string };
  series: Series[];
  /** Vertical rules with a label at the top, e.g. scope changes. */
  markers?: Marker[];
  /** Of the whole chart, in pixels: default 600. */
  width?: number;
  /** Of the whole chart, in pixels: default 300. */
  height?: number;
}

export const DEFAULT_WIDTH = 600;
export const DEFAULT_HEIGHT = 300;
const MAX_SIZE = 4096;

/** Okabe-Ito: told apart with each kind of colour blindness; yellow last, as it is faint on white. */
export const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#000000',
  '#F0E442',
] as const;

/** A generic family: the SVG names no font file, and svgToPng maps it to a font the system has. */
export const FONT_FAMILY = 'sans-serif';

export const NO_DATA = 'No data';

/** The house style: the same for every chart, readable at the default 600x300. */
const config: Config = {
  background: 'white',
  font: FONT_FAMILY,
  padding: 8,
  title: { fontSize: 16, fontWeight: 'bold', anchor: 'start', color: '#222222', offset: 10 },
  axis: {
    labelFontSize: 12,
    titleFontSize: 13,
    titleFontWeight: 'normal',
    labelColor: '#333333',
    titleColor: '#333333',
    gridColor: '#e6e6e6',
    domainColor: '#888888',
    tickColor: '#888888',
  },
  legend: {
    labelFontSize: 12,
    titleFontSize: 12,
    orient: 'bottom',
    direction: 'horizontal',
    symbolSize: 120,
  },
  view: { stroke: null },
  range: { category: [...PALETTE] },
};

class ChartInputError extends TypeError {
  override name = 'ChartInputError';
}

function fail(message: string): never {
  throw new ChartInputError(message);
}

function size(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 50 || value > MAX_SIZE)
    fail(`${name} must be a whole number of pixels from 50 to ${MAX_SIZE}, got ${value}`);
  return value;
}

const ISO_DAY_OR_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

function checkX(x: unknown, type: XType, where: string): string | number {
  if (type === 'quantitative') {
    if (typeof x !== 'number' || !Number.isFinite(x)) fail(`${where}: x must be a finite number`);
    return x;
  }
  if (type === 'temporal') {
    // A time without a zone would be read in the machine's own: it must say which.
    if (typeof x !== 'string' || !ISO_DAY_OR_TIME.test(x) || Number.isNaN(Date.parse(x)))
      fail(`${where}: x must be a day such as '2026-01-31', or an ISO time with Z or an offset`);
    return x;
  }
  if (typeof x === 'number' && Number.isFinite(x)) return String(x);
  if (typeof x !== 'string') fail(`${where}: x must be a string or a number`);
  return x;
}

/** The rows Vega-Lite reads, checked: one per point, in the order given. */
function rows(input: ChartInput, type: XType) {
  const names = new Set<string>();
  const data: { series: string; x: string | number; y: number; order: number }[] = [];
  if (!Array.isArray(input.series)) fail('series must be an array');
  input.series.forEach((series, order) => {
    if (typeof series?.name !== 'string' || series.name === '') fail(`series[${order}] needs a name`);
    if (names.has(series.name)) fail(`two series are named '${series.name}'`);
    names.add(series.name);
    if (!Array.isArray(series.points)) fail(`series '${series.name}': points must be an array`);
    series.points.forEach((point, index) => {
      const where = `series '${series.name}' point ${index}`;
      const x = checkX(point?.x, type, where);
      if (typeof point.y !== 'number' || !Number.isFinite(point.y))
        fail(`${where}: y must be a finite number`);
      data.push({ series: series.name, x, y: point.y, order });
    });
  });
  return data;
}

/** A temporal x is a day or time in UTC, so the chart is the same in every time zone. */
function xEncoding(input: ChartInput, type: XType, domain: (string | number)[], discrete: boolean) {
  const title = input.x.title;
  if (type === 'temporal') {
    const axis = { format: '%b %d', labelAngle: 0 };
    return discrete
      ? { field: 'x', type: 'ordinal', timeUnit: 'utcyearmonthdate', title, axis }
      : { field: 'x', type: 'temporal', scale: { type: 'utc' }, title, axis: { ...axis, tickCount: 8 } };
  }
  if (type === 'quantitative') {
    return discrete
      ? { field: 'x', type: 'ordinal', sort: 'ascending', title, axis: { labelAngle: 0 } }
      : { field: 'x', type: 'quantitative', title };
  }
  // Categories keep the order of their first appearance ("Sprint 9" before "Sprint 10").
  return { field: 'x', type: 'ordinal', sort: domain, title, axis: { labelAngle: 0 } };
}

function markersLayer(markers: Marker[], type: XType, discrete: boolean) {
  const values = markers.map((marker, index) => {
    if (typeof marker?.label !== 'string') fail(`markers[${index}] needs a label`);
    return { x: checkX(marker.x, type, `markers[${index}]`), label: marker.label };
  });
  const x =
    type === 'temporal'
      ? discrete
        ? { field: 'x', type: 'ordinal', timeUnit: 'utcyearmonthdate' }
        : { field: 'x', type: 'temporal', scale: { type: 'utc' } }
      : { field: 'x', type: discrete ? 'ordinal' : 'quantitative' };
  return {
    data: { values },
    layer: [
      { mark: { type: 'rule', color: '#555555', strokeDash: [4, 3], strokeWidth: 1.5 }, encoding: { x } },
      {
        mark: { type: 'text', color: '#333333', fontSize: 11, align: 'left', baseline: 'top', dx: 4, y: 2 },
        encoding: { x, text: { field: 'label' } },
      },
    ],
  };
}

/**
 * The Vega-Lite spec of a chart. Its size is the whole chart's (title, axes and legend inside it), and a
 * chart with no point at all says "No data".
 */
export function chartSpec(kind: ChartKind, input: ChartInput): TopLevelSpec {
  if (!['line', 'bar', 'stackedBar'].includes(kind)) fail(`unknown chart kind '${kind}'`);
  if (typeof input?.title !== 'string') fail('title must be a string');
  if (typeof input.x?.title !== 'string' || typeof input.y?.title !== 'string')
    fail('x.title and y.title must be strings');
  const type: XType = input.x.type ?? (kind === 'line' ? 'quantitative' : 'ordinal');
  if (!['temporal', 'ordinal', 'quantitative'].includes(type)) fail(`unknown x type '${type}'`);
  const width = size(input.width, DEFAULT_WIDTH, 'width');
  const height = size(input.height, DEFAULT_HEIGHT, 'height');
  const data = rows(input, type);
  const markers = input.markers ?? [];
  if (!Array.isArray(markers)) fail('markers must be an array');

  const base = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: input.title,
    width,
    height,
    autosize: { type: 'fit', contains: 'padding' },
    config,
  } as const;

  if (data.length === 0) {
    return {
      ...base,
      data: { values: [{}] },
      mark: { type: 'text', fontSize: 16, color: '#666666' },
      encoding: { text: { value: NO_DATA } },
    } as TopLevelSpec;
  }

  const discrete = kind !== 'line';
  const domain = [...new Set(data.map((row) => row.x))];
  const names = input.series.map((series) => series.name);
  const color = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: { domain: names, range: names.map((_, index) => PALETTE[index % PALETTE.length]) },
  };
  const y = { field: 'y', type: 'quantitative', title: input.y.title };
  const x = xEncoding(input, type, domain, discrete);

  let chart: object;
  if (kind === 'line') {
    const dashed = input.series.map((series) => (series.dashed ? [6, 4] : [1, 0]));
    chart = {
      mark: { type: 'line', point: { size: 30 }, strokeWidth: 2 },
      encoding: {
        x,
        y,
        color: { ...color, legend: { symbolType: 'stroke', symbolStrokeWidth: 2.5, symbolSize: 300 } },
        strokeDash: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: { domain: names, range: dashed },
        },
      },
    };
  } else {
    const stacked = kind === 'stackedBar';
    chart = {
      mark: { type: 'bar' },
      encoding: {
        x,
        y: { ...y, stack: stacked ? 'zero' : null },
        color,
        ...(stacked
          ? { order: { field: 'order', type: 'quantitative' } }
          : { xOffset: { field: 'series', sort: names } }),
      },
    };
  }

  if (markers.length === 0) return { ...base, data: { values: data }, ...chart } as TopLevelSpec;
  return {
    ...base,
    layer: [{ data: { values: data }, ...chart }, markersLayer(markers, type, discrete)],
  } as TopLevelSpec;
}

export { ChartInputError };
