import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolResult,
  ErrorCode,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AnyTool, BaseContext, ToolContext } from './define.js';
import { Forbidden, isShipyardError, ShipyardError } from './errors.js';
import { errorResult, type Faults, parseQuoting, RpcError } from './faults.js';
import { imageContent, type ToolImage, takeImages } from './images.js';
import type { Logger } from './logger.js';
import { toolListing } from './schema.js';
import { checkElsewhere, optionalKeys, refusal } from './tool-hints.js';
import { easeEnumValues, named } from './validation.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * tools/call with `arguments` of any type. The SDK's own schema rejects non-object arguments before the
 * handler runs, as a -32603 internal error carrying a raw zod dump; with this one `call` answers them like
 * any other bad input (an `invalid_input` result in plain words).
 */
export const ToolCallRequestSchema = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional() }),
});

/** Thrown when start-up options do not fit the definition (unknown --tools name). */
export class ConfigError extends Error {}

interface CompiledTool {
  def: AnyTool;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Arguments a caller may leave out; read on the first refusal. */
  optional?: string[];
}

/** What a tool call needs from the runtime around it. */
export interface ToolScope {
  faults: Faults;
  log: Logger;
  base(): BaseContext<unknown>;
  /** Aborted when the runtime closes. */
  shutdown: AbortSignal;
  changed(...uris: string[]): void;
}

/** The tools a run offers (after --read-only and --tools): their listing, calls and refusals. */
export class Tools {
  private readonly tools = new Map<string, CompiledTool>();
  private readonly hiddenByReadOnly = new Set<string>();
  /** Tools --tools leaves out that --read-only would hide too (they change data). */
  private readonly writersLeftOut = new Set<string>();
  private readonly all: AnyTool[];
  private listing: Tool[] | undefined;

  constructor(
    definitions: readonly AnyTool[],
    options: { readOnly?: boolean | undefined; tools?: readonly string[] | undefined },
    private readonly scope: ToolScope,
  ) {
    this.all = [...definitions];
    const all = new Map(definitions.map((tool) => [tool.name, tool]));
    const allowed = options.tools && options.tools.length > 0 ? new Set(options.tools) : undefined;
    const unknown = [...(allowed ?? [])].filter((name) => !all.has(name));
    if (unknown.length > 0) {
      throw new ConfigError(
        `Unknown tool${unknown.length > 1 ? 's' : ''} in --tools (SHIPYARD_TOOLS): ${unknown.join(', ')}. ` +
          `This server has: ${[...all.keys()].join(', ')}`,
      );
    }
    for (const tool of all.values()) {
      checkElsewhere(tool);
      const writer = options.readOnly && !tool.annotations.readOnlyHint;
      if (allowed && !allowed.has(tool.name)) {
        if (writer) this.writersLeftOut.add(tool.name);
        continue;
      }
      if (writer) {
        this.hiddenByReadOnly.add(tool.name);
        continue;
      }
      this.tools.set(tool.name, {
        def: tool,
        input: z.strictObject(tool.input),
        output: z.object(tool.output),
      });
    }
    if (this.tools.size === 0 && all.size > 0) {
      // Allowed (the server still answers, and refuses the hidden tools as forbidden), but worth saying.
      scope.log.warn('no tool is offered: --read-only hides every tool --tools allows', {
        hidden: [...this.hiddenByReadOnly],
      });
    }
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Why a tool of the definition is not offered: `read-only` (hidden), `both` (left out, a writer), or `left-out`. */
  whyHidden(name: string): 'read-only' | 'both' | 'left-out' {
    if (this.hiddenByReadOnly.has(name)) return 'read-only';
    return this.writersLeftOut.has(name) ? 'both' : 'left-out';
  }

  list(): Tool[] {
    // Built on the first tools/list, not at start-up: JSON Schema conversion is not on the initialize path.
    this.listing ??= [...this.tools.values()].map((tool) => toolListing(tool.def));
    return this.listing;
  }

  /** `log` is the handler's ctx.log (the runtime's logger without it). */
  async call(name: unknown, args: unknown, extra?: Extra, log?: Logger): Promise<CallToolResult> {
    const names = this.names;
    if (typeof name !== 'string') {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `tools/call needs params.name, one of: ${names.join(', ')}`,
      );
    }
    const tool = this.tools.get(name);
    if (!tool) {
      if (this.hiddenByReadOnly.has(name)) {
        return errorResult(
          new Forbidden(`${name} changes data and this server runs with --read-only`, {
            hint:
              names.length > 0
                ? `Use one of the read-only tools: ${names.join(', ')}`
                : 'No tool is offered: --tools names none that only reads; start the server without --read-only to change data',
          }),
        );
      }
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${named(name)}. Available tools: ${names.join(', ') || 'none'}`,
      );
    }
    let parsed = parseQuoting(tool.input, args ?? {});
    // An enum value off only in case or separators (`High`, `In Progress`) is taken as the value it names.
    const eased = parsed.success ? undefined : easeEnumValues(args, parsed.error.issues);
    if (eased !== undefined) parsed = tool.input.safeParse(eased, { reportInput: true });
    if (!parsed.success) {
      tool.optional ??= optionalKeys(tool.def.input);
      const offered = { offered: () => [...this.tools.values()].map((t) => t.def), all: this.all };
      const { problems, hint } = refusal(tool.def, tool.optional, parsed.error.issues, offered);
      return errorResult(
        new ShipyardError('invalid_input', `Invalid arguments for ${name}: ${problems}`, {
          hint: hint ?? 'Fix the arguments named above and call the tool again',
        }),
      );
    }
    let value: unknown;
    try {
      value = await tool.def.handler(parsed.data, this.context(extra, log));
    } catch (error) {
      if (isShipyardError(error)) return errorResult(error);
      return errorResult(this.scope.faults.internal(`tool ${name}`, error));
    }
    let images: readonly ToolImage[];
    try {
      ({ structured: value, images } = takeImages(value, tool.def));
    } catch (error) {
      return errorResult(this.scope.faults.internal(`tool ${name}`, error));
    }
    // The answer as its output schema has it: unknown keys stripped, a mismatch an internal error.
    const output = tool.output.safeParse(value);
    if (!output.success) {
      const error = new Error(`output of ${name} does not match its schema: ${output.error.message}`);
      return errorResult(this.scope.faults.internal(`tool ${name}`, error));
    }
    const data = output.data as Record<string, unknown>;
    return {
      content: [{ type: 'text', text: JSON.stringify(data) }, ...imageContent(images)],
      structuredContent: data,
    };
  }

  /** A handler's context: the base one, with the call's signal, progress and `changed`. */
  private context(extra: Extra | undefined, callLog: Logger | undefined): ToolContext<unknown> {
    const progressToken = extra?._meta?.progressToken;
    const shutdown = this.scope.shutdown;
    let signal: AbortSignal | undefined;
    const { deps, log, user } = this.scope.base();
    // Written out, not Object.assign: that would read the lazy `signal` getter at once.
    return {
      deps,
      log: callLog ?? log,
      user,
      // Combined on first use: most handlers never look at it.
      get signal() {
        signal ??= extra ? AbortSignal.any([extra.signal, shutdown]) : shutdown;
        return signal;
      },
      changed: (...uris: string[]) => this.scope.changed(...uris),
      progress: async (progress: number, total?: number, message?: string) => {
        if (progressToken === undefined || !extra) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message ? { message } : {}),
          },
        });
      },
    };
  }
}
