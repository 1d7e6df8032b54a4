import { type CompleteRequestSchema, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { BaseContext, CompleteFn } from './define.js';
import { type Faults, RpcError } from './faults.js';
import type { Prompts } from './prompts.js';
import type { Resources } from './resources.js';
import { named } from './validation.js';

const MAX_COMPLETIONS = 100;
/** A completion value longer than this completes to nothing (no key or name is that long; SQLite's LIKE
 * refuses patterns over 50,000 bytes). */
const MAX_COMPLETION_VALUE = 1_000;

/** completion/complete for a prompt's argument or a resource template's variable. */
export async function complete(
  params: z.infer<typeof CompleteRequestSchema>['params'],
  {
    prompts,
    resources,
    faults,
    base,
  }: {
    prompts: Prompts;
    resources: Resources;
    faults: Faults;
    base(): BaseContext<unknown>;
  },
) {
  const { ref, argument } = params;
  let completeFn: CompleteFn<unknown> | undefined;
  if (ref.type === 'ref/prompt') {
    completeFn = prompts.find(ref.name).args[argument.name]?.complete;
  } else {
    const resource = resources.byUri(ref.uri);
    if (!resource) {
      // A bad parameter, as an unknown prompt is (-32602), with the templates that complete.
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown resource template: ${named(ref.uri)}. Templates: ${resources.templateUris().join(', ') || 'none'}`,
      );
    }
    completeFn = resource.variables?.[argument.name]?.complete;
  }
  if (!completeFn || argument.value.length > MAX_COMPLETION_VALUE)
    return { completion: { values: [], total: 0, hasMore: false } };
  let values: string[] = [];
  let total = 0;
  try {
    const result = await completeFn(
      argument.value,
      Object.assign(base(), { arguments: params.context?.arguments ?? {} }),
    );
    values = (Array.isArray(result) ? result : result.values).slice(0, MAX_COMPLETIONS);
    total = Array.isArray(result) ? result.length : Math.max(result.total, values.length);
  } catch (error) {
    // A failing completion is logged and completes to nothing.
    faults.internal(`completion of ${argument.name}`, error);
  }
  return { completion: { values, total, hasMore: total > values.length } };
}
