import type { ServerDefinition } from '../define.js';
import { toolListing } from '../schema.js';

export { toolListing };

export interface ToolSize {
  name: string;
  chars: number;
  tokens: number;
}

export interface ToolsListSize {
  chars: number;
  tokens: number;
  perTool: ToolSize[];
}

export type ToolListing = ReturnType<typeof toolListing>;

/** The rough token count the linter uses: one token per four characters. */
export const charsToTokens = (chars: number): number => Math.ceil(chars / 4);

/** Size of the JSON a tools/list request returns (`{ tools: [...] }`). */
export function listingSize(listings: ToolListing[]): ToolsListSize {
  const chars = JSON.stringify({ tools: listings }).length;
  const perTool = listings.map((listing) => {
    const toolChars = JSON.stringify(listing).length;
    return { name: listing.name, chars: toolChars, tokens: charsToTokens(toolChars) };
  });
  return { chars, tokens: charsToTokens(chars), perTool };
}

/** Size of a server's whole tools/list answer, and of each tool in it. */
export function toolsListSize(definition: ServerDefinition): ToolsListSize {
  return listingSize(definition.tools.map(toolListing));
}
