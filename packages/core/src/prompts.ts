import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { BaseContext, PromptDefinition } from './define.js';
import { isShipyardError } from './errors.js';
import { type Faults, RpcError, withHint } from './faults.js';
import type { Resources } from './resources.js';
import type { Tools } from './tools.js';
import { named, namesShown } from './validation.js';

const MAX_PROMPT_ARG_CHARS = 10_000;

/** The prompts a run offers: a prompt whose tools are not all offered is not offered either. */
export class Prompts {
  private readonly prompts = new Map<string, PromptDefinition<unknown>>();
  /** Prompts of the definition not offered, with the tools they call that are not. */
  private readonly hidden = new Map<string, string[]>();

  constructor(
    definitions: readonly PromptDefinition<unknown>[],
    private readonly tools: Tools,
    private readonly resources: Resources,
    private readonly scope: { faults: Faults; base(): BaseContext<unknown> },
  ) {
    for (const prompt of definitions) {
      // A workflow whose tools are not all offered would fail part way.
      const missing = (prompt.uses ?? []).filter((name) => !tools.has(name));
      if (missing.length === 0) this.prompts.set(prompt.name, prompt);
      else this.hidden.set(prompt.name, missing);
    }
  }

  list() {
    return {
      prompts: [...this.prompts.values()].map((prompt) => ({
        name: prompt.name,
        ...(prompt.title ? { title: prompt.title } : {}),
        description: prompt.description,
        arguments: Object.entries(prompt.args).map(([name, arg]) => ({
          name,
          description: arg.description,
          required: arg.required ?? false,
        })),
      })),
    };
  }

  /** The offered prompt of this name; an unknown or hidden one is a -32602 saying which and why. */
  find(name: string): PromptDefinition<unknown> {
    const prompt = this.prompts.get(name);
    if (prompt) return prompt;
    const available = `Available prompts: ${[...this.prompts.keys()].join(', ') || 'none'}`;
    throw new RpcError(
      ErrorCode.InvalidParams,
      `${this.whyHidden(name) ?? `Unknown prompt: ${named(name)}`}. ${available}`,
    );
  }

  async get(name: string, args: Record<string, string>) {
    const prompt = this.find(name);
    const allowed = Object.keys(prompt.args);
    const unknown = Object.keys(args).filter((key) => !Object.hasOwn(prompt.args, key));
    const missing = allowed.filter((key) => prompt.args[key]?.required && !args[key]?.trim());
    const tooLong = Object.keys(args).filter((key) => (args[key]?.length ?? 0) > MAX_PROMPT_ARG_CHARS);
    // Names a client sent are cut, escaped and counted past a few (namesShown): the answer stays small.
    const problems = [
      ...(unknown.length > 0
        ? [
            `unknown argument${unknown.length > 1 ? 's' : ''} ${namesShown(unknown)} (allowed: ${allowed.join(', ') || 'none'})`,
          ]
        : []),
      ...missing.map((key) => `\`${key}\` is required`),
      ...(tooLong.length > 0
        ? [`${namesShown(tooLong)} must have at most ${MAX_PROMPT_ARG_CHARS} characters`]
        : []),
    ];
    if (problems.length > 0) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Invalid arguments for prompt ${name}: ${problems.join('; ')}`,
      );
    }
    try {
      const ctx = this.scope.base();
      await prompt.check?.(args, ctx);
      const result = await prompt.messages(args, ctx);
      const messages = typeof result === 'string' ? [{ role: 'user' as const, text: result }] : result;
      return {
        description: prompt.description,
        // An embedded resource is read here, so a failing read is this prompt's error (a ticket gone since
        // the check is a NotFound with its hint; a URI no resource answers is a fault in the prompt).
        messages: await Promise.all(
          messages.map(async (m) => ({
            role: m.role,
            content:
              'text' in m
                ? { type: 'text' as const, text: m.text }
                : { type: 'resource' as const, resource: await this.resources.contents(m.resource) },
          })),
        ),
      };
    } catch (error) {
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error));
      throw new RpcError(
        ErrorCode.InternalError,
        this.scope.faults.internal(`prompt ${name}`, error).message,
      );
    }
  }

  /** Why a prompt of the definition is not offered (the tools it calls that are not), or undefined. */
  private whyHidden(name: string): string | undefined {
    const missing = this.hidden.get(name);
    if (!missing) return undefined;
    const by = (why: string) => missing.filter((tool) => this.tools.whyHidden(tool) === why);
    const [readOnly, left, both] = [by('read-only'), by('left-out'), by('both')];
    const reasons = [
      ...(readOnly.length > 0 ? [`${readOnly.join(', ')}, which --read-only hides`] : []),
      ...(left.length > 0 ? [`${left.join(', ')}, which --tools (SHIPYARD_TOOLS) leaves out`] : []),
      ...(both.length > 0
        ? [`${both.join(', ')}, which --tools (SHIPYARD_TOOLS) leaves out and --read-only would hide`]
        : []),
    ];
    return `Prompt ${name} is not offered: it calls ${reasons.join(', and ')}`;
  }
}
