// Drawing: vega, vega-lite and resvg are imported on the first chart drawn, never at start-up.
import { type ChartInput, type ChartKind, chartSpec } from './spec.js';

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');
type ResvgModule = typeof import('@resvg/resvg-js');

let vegaModules: Promise<[Vega, VegaLite]> | undefined;
let resvgModule: Promise<ResvgModule> | undefined;

function loadVega(): Promise<[Vega, VegaLite]> {
  vegaModules ??= Promise.all([import('vega'), import('vega-lite')]).catch((error: unknown) => {
    vegaModules = undefined;
    throw error;
  });
  return vegaModules;
}

function loadResvg(): Promise<ResvgModule> {
  resvgModule ??= import('@resvg/resvg-js').catch((error: unknown) => {
    resvgModule = undefined;
    throw error;
  });
  return resvgModule;
}

/** The SVG of a chart. The same input gives the same bytes. */
export async function renderSvg(kind: ChartKind, input: ChartInput): Promise<string> {
  const spec = chartSpec(kind, input);
  const [vega, vegaLite] = await loadVega();
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Lines: one per series, e.g. a burndown (ideal vs actual) or p50/p95 durations per day. */
export function lineChart(input: ChartInput): Promise<string> {
  return renderSvg('line', input);
}

/** Bars side by side: one per series in each x category, e.g. committed vs completed per sprint. */
export function barChart(input: ChartInput): Promise<string> {
  return renderSvg('bar', input);
}

/** Bars stacked: the series of each x category on top of each other, in the order given. */
export function stackedBarChart(input: ChartInput): Promise<string> {
  return renderSvg('stackedBar', input);
}

export interface PngOptions {
  /** Width of the PNG in pixels; the height keeps the SVG's proportions. Default: the SVG's own width. */
  width?: number;
  /** Font files to use besides the system's, for a machine without fonts. */
  fontFiles?: string[];
}

/**
 * The font the SVG's generic 'sans-serif' is drawn with when the system has it (Debian: fonts-dejavu-core).
 * resvg-js draws every family it cannot find with its default family, and ignores `sansSerifFamily`.
 */
export const SANS_SERIF_FONT = 'DejaVu Sans';

/** SVG to PNG, off the main thread. Text is drawn with the system's fonts (and `fontFiles`). */
export async function svgToPng(svg: string, options: PngOptions = {}): Promise<Uint8Array> {
  const { width, fontFiles } = options;
  if (width !== undefined && (!Number.isInteger(width) || width < 1 || width > 8192))
    throw new RangeError(`width must be a whole number of pixels from 1 to 8192, got ${width}`);
  const { renderAsync } = await loadResvg();
  const image = await renderAsync(svg, {
    fitTo: width === undefined ? { mode: 'original' } : { mode: 'width', value: width },
    font: {
      loadSystemFonts: true,
      defaultFontFamily: SANS_SERIF_FONT,
      sansSerifFamily: SANS_SERIF_FONT,
      ...(fontFiles ? { fontFiles } : {}),
    },
    logLevel: 'off',
  });
  const png = image.asPng();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** A chart as SVG and as PNG (of the chart's own size unless `png.width` says otherwise). */
export async function renderChart(
  kind: ChartKind,
  input: ChartInput,
  png: PngOptions = {},
): Promise<{ svg: string; png: Uint8Array }> {
  const svg = await renderSvg(kind, input);
  return { svg, png: await svgToPng(svg, png) };
}
