/** Marks a tool's answer that carries images beside its structured content. */
const IMAGES = Symbol.for('shipyard.images');

/** An image a tool attaches to its answer: the bytes (a PNG) and their MIME type. */
export interface ToolImage {
  data: Uint8Array;
  /** `image/png`, `image/jpeg`, `image/gif`, `image/webp`… */
  mimeType: string;
}

/** A tool's answer with images; see {@link withImages}. */
export interface WithImages<T> {
  readonly structured: T;
  readonly [IMAGES]: readonly ToolImage[];
}

/**
 * The answer of a tool declared with `images: true`: `structured` is checked against the output schema and
 * sent as `structuredContent` with its JSON text copy, then each image as an image block.
 */
export function withImages<T>(structured: T, images: readonly ToolImage[]): WithImages<T> {
  return { structured, [IMAGES]: images };
}

export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * A handler's return value split into its structured part and its images. Throws, as a bug in the server,
 * for images from a tool not declared with `images: true` and for an image that is not bytes of an image type.
 */
export function takeImages(
  value: unknown,
  tool: { name: string; images?: boolean | undefined },
): { structured: unknown; images: readonly ToolImage[] } {
  if (value === null || typeof value !== 'object' || !(IMAGES in value))
    return { structured: value, images: [] };
  const answer = value as WithImages<unknown>;
  const images = answer[IMAGES];
  if (!tool.images) {
    throw new Error(`${tool.name} returned images, but its definition does not declare images: true`);
  }
  if (!Array.isArray(images)) throw new Error(`${tool.name} returned images that are not a list`);
  for (const [index, image] of images.entries()) {
    const { data, mimeType } = (image ?? {}) as Partial<ToolImage>;
    if (!(data instanceof Uint8Array) || data.byteLength === 0) {
      throw new Error(`image ${index} of ${tool.name} has no bytes (data must be a non-empty Uint8Array)`);
    }
    if (typeof mimeType !== 'string' || !/^image\/[\w.+-]+$/.test(mimeType)) {
      throw new Error(`image ${index} of ${tool.name} has mimeType ${JSON.stringify(mimeType)}, not image/…`);
    }
  }
  return { structured: answer.structured, images };
}

/** One image block per image, then a text block saying what is attached, for clients that show only text. */
export function imageContent(
  images: readonly ToolImage[],
): Array<{ type: 'image'; data: string; mimeType: string } | { type: 'text'; text: string }> {
  if (images.length === 0) return [];
  const types = [...new Set(images.map((image) => image.mimeType))].join(', ');
  return [
    ...images.map((image) => ({
      type: 'image' as const,
      data: base64(image.data),
      mimeType: image.mimeType,
    })),
    { type: 'text', text: `${images.length} image${images.length === 1 ? '' : 's'} attached (${types})` },
  ];
}
