import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import { checkRequest } from './faults.js';
import type { Extra } from './tools.js';

/**
 * Set on globalThis once an `initialize` has been answered. The bin's loader (tooling/build/loader.cjs) saves
 * its code cache only from such a run: `--help` or a start that no client talked to has compiled too little.
 */
const SERVED = Symbol.for('shipyard.served');

const methodSchemas = new Map<string, z.ZodType<{ method: string }>>();
/**
 * A schema that only names the method (built once per method, not per session): core checks each request
 * itself (checkRequest), so the SDK's registration has nothing more to parse.
 */
export function methodOnly(method: string): z.ZodType<{ method: string }> {
  const known = methodSchemas.get(method);
  if (known) return known;
  const schema = z.looseObject({ method: z.literal(method) });
  methodSchemas.set(method, schema);
  return schema;
}

type Handler = (request: unknown, extra: Extra) => unknown;

/**
 * The SDK's server, with its own `initialize` handler checked as core checks every other request (the SDK
 * registers that one in its constructor), and tools/call registered as Protocol registers any method: the
 * Server's own registration parses tools/call against the SDK's schema first, which refuses non-object
 * arguments with a raw zod dump where core answers them as a tool's bad input.
 */
export class SessionServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<Server['setRequestHandler']>): void {
    if (schema === InitializeRequestSchema) {
      const initialize = handler as unknown as Handler;
      super.setRequestHandler(methodOnly('initialize'), (request, extra) => {
        const result = initialize(checkRequest(InitializeRequestSchema, request), extra);
        (globalThis as Record<symbol, unknown>)[SERVED] = true;
        return result as ReturnType<typeof handler>;
      });
    } else if (schema === methodOnly('tools/call')) {
      const register = Protocol.prototype.setRequestHandler as (
        this: Server,
        schema: z.ZodType<{ method: string }>,
        handler: Handler,
      ) => void;
      register.call(this, schema as z.ZodType<{ method: string }>, handler as unknown as Handler);
    } else {
      super.setRequestHandler(schema, handler);
    }
  }
}

/**
 * The SDK's Server builds an Ajv instance for every session to validate elicitation answers, which Shipyard
 * never requests. One lazily built validator per runtime keeps that off start-up and off each new session.
 */
export class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private inner: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType) {
    this.inner ??= new AjvJsonSchemaValidator();
    return this.inner.getValidator<T>(schema);
  }
}

/** The client's root URIs, or undefined when it does not declare the roots capability. */
export async function clientRoots(server: Server, extra: Extra): Promise<string[] | undefined> {
  if (!server.getClientCapabilities()?.roots) return undefined;
  const { roots } = await server.listRoots(undefined, { signal: extra.signal });
  return roots.map((root) => root.uri);
}

export interface ServeOptions {
  /**
   * Offer tools only (no resources, prompts, completions, logging), and ask the client nothing: for a
   * protocol server that answers one request and is gone (HTTP --stateless).
   */
  toolsOnly?: boolean;
}
