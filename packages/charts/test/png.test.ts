import { describe, expect, it } from 'vitest';
import { barChart, lineChart, renderChart, svgToPng } from '../src/index.js';
import { burndown, velocity } from './fixtures/data.js';
import { pngSize } from './helpers.js';

describe('svgToPng', () => {
  it('draws the chart at its own size', async () => {
    const png = await svgToPng(await lineChart(burndown));
    expect(pngSize(png)).toEqual({ width: 600, height: 300 });
  });

  it('scales to the width asked for, keeping the proportions', async () => {
    const png = await svgToPng(await barChart(velocity), { width: 1200 });
    expect(pngSize(png)).toEqual({ width: 1200, height: 600 });
  });

  it('draws the text: a chart with labels is larger than the same chart without any', async () => {
    const svg = await barChart(velocity);
    const withText = await svgToPng(svg);
    const withoutText = await svgToPng(svg.replace(/<text\b[^>]*>[^<]*<\/text>/g, ''));
    expect(withText.byteLength).toBeGreaterThan(withoutText.byteLength + 2000);
  });

  it('refuses a width that is not a whole number of pixels', async () => {
    await expect(svgToPng('<svg xmlns="http://www.w3.org/2000/svg"/>', { width: 0.5 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe('renderChart', () => {
  it('gives the SVG and the PNG of one chart', async () => {
    const { svg, png } = await renderChart('stackedBar', { ...velocity, width: 400, height: 200 });
    expect(svg).toContain('width="400" height="200"');
    expect(pngSize(png)).toEqual({ width: 400, height: 200 });
  });
});
