import { randomUUID } from 'node:crypto';
import { type CallToolResult, ErrorCode, InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { isShipyardError, ShipyardError } from './errors.js';
import { type Logger, stackOf } from './logger.js';
import { describeIssues } from './validation.js';

/** JSON-RPC error code for a resource that does not exist (MCP spec). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error with a clean message. (The SDK's McpError prefixes its own message with
 * "MCP error <code>:", and the client adds that prefix again.)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Turns an error that is not a ShipyardError into one (a data layer's lock timeout into a Conflict), or not. */
export type ErrorMapper = (error: unknown) => ShipyardError | undefined;

/** An error's message followed by its hint, for answers that carry one text. */
export const withHint = (error: { message: string; hint?: string | undefined }) =>
  error.hint ? `${error.message}${/[.?!]$/.test(error.message) ? '' : '.'} ${error.hint}` : error.message;

/** A tool result carrying a Shipyard error as compact JSON. */
export function errorResult(error: ShipyardError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: error.toJSON() }) }] };
}

/** One of the SDK's request schemas: a method literal and its params. */
export type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string>; params?: z.ZodType }>;

/**
 * A request checked against the SDK's schema for its method. Bad params are Invalid params (-32602) naming the
 * field as a client writes it (`uri`, not `params.uri`), where the SDK's own check answers them as a -32603
 * internal error carrying a raw zod dump.
 */
export function checkRequest<S extends RequestSchema>(schema: S, request: unknown): z.output<S> {
  const parsed = parseQuoting(schema, request);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) =>
    issue.path[0] === 'params' && issue.path.length > 1 ? { ...issue, path: issue.path.slice(1) } : issue,
  );
  throw new RpcError(
    ErrorCode.InvalidParams,
    `Invalid params for ${schema.shape.method.value}: ${describeIssues(issues, [])}`,
  );
}

/**
 * zod's parse of a value; when it fails, again with each issue's input, which the messages quote
 * (`reportInput` on every parse would take zod off its fast path).
 */
export function parseQuoting<T extends z.ZodType>(
  schema: T,
  value: unknown,
): z.ZodSafeParseResult<z.output<T>> {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed : schema.safeParse(value, { reportInput: true });
}

/**
 * Turns unexpected errors into ones that leak nothing: the real error goes to the log with its stack, the
 * caller gets a reference. The definition's `mapError` may first claim an error as a ShipyardError.
 */
export class Faults {
  /** Set once warm-up has failed: the failure's code (`EACCES`, `SQLITE_NOTADB`) when it has one, else ''. */
  warmUpFailed: string | undefined;

  constructor(
    private readonly log: Logger,
    private readonly mapError: ErrorMapper | undefined,
  ) {}

  /** An error a handler threw, as the ShipyardError the caller is told (mapped, or internal). */
  internal(where: string, error: unknown): ShipyardError {
    const mapped = this.mapped(error);
    if (mapped) {
      // The caller is told what to do (retry, say), and the log keeps a warning, or an error for an internal
      // one (a damaged file); the cause's message (which may name paths) goes to the log only.
      const cause = mapped.cause instanceof Error ? { cause: mapped.cause.message } : undefined;
      this.log[mapped.code === 'internal' ? 'error' : 'warn'](`${where}: ${mapped.message}`, cause);
      return mapped;
    }
    const ref = randomUUID().slice(0, 8);
    if (this.warmUpFailed !== undefined) {
      // What the call needs could not be opened at start-up (a data directory, say): nothing to retry. The
      // failure's code tells the user what to look for; its message stays in the log (it names paths), where
      // warm-up wrote it with its stack: the call's own failure (the same, tried again) is one line.
      this.log.error(
        `${where} cannot run, as start-up failed (ref ${ref}): ${error instanceof Error ? error.message : String(error)}`,
      );
      const code = this.warmUpFailed ? ` (${this.warmUpFailed})` : '';
      return new ShipyardError(
        'internal',
        `${where} cannot run: the server could not start${code} and is stopping; its log says why (ref ${ref})`,
        { hint: 'Restart the server once what its log names is fixed' },
      );
    }
    this.log.error(`internal error in ${where} (ref ${ref})\n${stackOf(error)}`);
    return new ShipyardError(
      'internal',
      `Internal error in ${where}; the server log has the details (ref ${ref})`,
      { hint: 'This is a server fault, not a problem with the arguments; retrying may not help' },
    );
  }

  /** A handler's answer; an error that is not already a JSON-RPC or Shipyard error is logged and hidden. */
  async answer(method: string, run: () => unknown): Promise<unknown> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof RpcError) throw error;
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error));
      throw new RpcError(ErrorCode.InternalError, this.internal(method, error).message);
    }
  }

  /** The definition's mapping of an error, if any; a mapper that throws maps nothing. */
  private mapped(error: unknown): ShipyardError | undefined {
    if (!this.mapError) return undefined;
    try {
      const mapped = this.mapError(error);
      return isShipyardError(mapped) ? mapped : undefined;
    } catch {
      return undefined;
    }
  }
}

/** What is wrong with a body that is an `initialize` request with bad params, or undefined. */
export function initializeProblem(body: unknown): { code: number; message: string } | undefined {
  if ((body as { method?: unknown } | null)?.method !== 'initialize') return undefined;
  try {
    checkRequest(InitializeRequestSchema, body);
    return undefined;
  } catch (error) {
    return error instanceof RpcError ? { code: error.code, message: error.message } : undefined;
  }
}
