import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '@shipyard/core';

export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

function textOf(result: CallToolResult): string {
  const first = result.content?.[0];
  if (first?.type !== 'text') throw new Error(`Expected a text content block, got ${JSON.stringify(result)}`);
  return first.text;
}

/** Assert a tool result is an error with this code; returns the parsed error body. */
export function expectToolError(result: unknown, code: ErrorCode): ToolErrorBody {
  const r = result as CallToolResult;
  if (!r.isError)
    throw new Error(`Expected an isError result with code ${code}, got success: ${JSON.stringify(r)}`);
  let body: { error?: ToolErrorBody };
  try {
    body = JSON.parse(textOf(r)) as { error?: ToolErrorBody };
  } catch {
    throw new Error(`Error result text is not JSON: ${textOf(r)}`);
  }
  if (!body.error || body.error.code !== code) {
    throw new Error(`Expected error code ${code}, got ${JSON.stringify(body.error)}`);
  }
  if (typeof body.error.message !== 'string' || body.error.message.length === 0) {
    throw new Error('Error result has no message');
  }
  return body.error;
}

/** Assert a tool result is a success whose text copy equals its structured content; returns the content. */
export function expectToolOk<T = Record<string, unknown>>(result: unknown): T {
  const r = result as CallToolResult;
  if (r.isError) throw new Error(`Expected success, got error: ${textOf(r)}`);
  if (!r.structuredContent) throw new Error(`Expected structuredContent, got ${JSON.stringify(r)}`);
  const text = textOf(r);
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(r.structuredContent)) {
    throw new Error('The text copy differs from structuredContent');
  }
  if (text !== JSON.stringify(JSON.parse(text))) throw new Error('The text copy is not compact JSON');
  return r.structuredContent as T;
}

/** Call a tool and return its structured content, failing on an error result. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  return expectToolOk<T>(await client.callTool({ name, arguments: args }));
}

/** Call a paged list tool (`items`, `next_cursor`) page after page; returns every item, in order. */
export async function callAllPages<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await callOk<{ items: T[]; next_cursor: string | null }>(client, name, {
      ...args,
      ...(cursor ? { cursor } : {}),
    });
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/** Call a tool and assert it fails with this code. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: ErrorCode,
): Promise<ToolErrorBody> {
  return expectToolError(await client.callTool({ name, arguments: args }), code);
}

/** Assert a promise rejects with a JSON-RPC error of this code (e.g. -32002 for a missing resource). */
export async function expectRpcError(
  promise: Promise<unknown>,
  code: number,
): Promise<Error & { code: number }> {
  try {
    await promise;
  } catch (error) {
    const e = error as Error & { code?: number };
    if (e.code !== code) throw new Error(`Expected JSON-RPC error ${code}, got ${e.code}: ${e.message}`);
    return e as Error & { code: number };
  }
  throw new Error(`Expected JSON-RPC error ${code}, but the request succeeded`);
}

/** Read a resource and return its text (fails on a binary or empty answer). */
export async function readText(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri });
  const first = contents[0];
  if (!first || !('text' in first) || typeof first.text !== 'string') {
    throw new Error(`Expected text contents for ${uri}, got ${JSON.stringify(contents)}`);
  }
  return first.text;
}

/** Render a prompt and return the text of all its messages, joined by newlines. */
export async function promptText(
  client: Client,
  name: string,
  args: Record<string, string> = {},
): Promise<string> {
  const { messages } = await client.getPrompt({ name, arguments: args });
  return messages.map((message) => (message.content.type === 'text' ? message.content.text : '')).join('\n');
}
