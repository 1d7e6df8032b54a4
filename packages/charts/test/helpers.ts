import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** Parses the SVG as XML (throwing when it is not well-formed) and returns its root element. */
export function parseSvg(svg: string): Record<string, unknown> {
  const valid = XMLValidator.validate(svg);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const document = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg);
  return document.svg;
}

/** Every text node of the SVG, in order. */
export function texts(svg: string): string[] {
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((match) => decode(match[1] ?? ''));
}

function decode(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, after checking the PNG signature. */
export function pngSize(png: Uint8Array): { width: number; height: number } {
  if (!SIGNATURE.every((byte, index) => png[index] === byte)) throw new Error('not a PNG signature');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const type = new TextDecoder().decode(png.subarray(12, 16));
  if (type !== 'IHDR') throw new Error(`first chunk is ${type}, not IHDR`);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
