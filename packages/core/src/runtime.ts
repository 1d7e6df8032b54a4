import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';
import type {
  BaseContext,
  CompleteFn,
  PromptDefinition,
  ResourceDefinition,
  ServerDefinition,
  ToolContext,
  ToolDefinition,
} from './define.js';
import { databaseBusy, Forbidden, isShipyardError, NotFound, ShipyardError } from './errors.js';
import { createLogger, type Logger, stackOf } from './logger.js';
import { compileOutputCheck, type OutputCheck } from './output.js';
import { toolListing } from './schema.js';
import {
  describeIssues,
  easeEnumValues,
  named,
  namesShown,
  type Suggestion,
  suggestArguments,
} from './validation.js';

/** JSON-RPC error code for a resource that does not exist (MCP spec). */
export const RESOURCE_NOT_FOUND = -32002;
const MAX_COMPLETIONS = 100;
/** A completion value longer than this completes to nothing (no key or name is that long; SQLite's LIKE
 * refuses patterns over 50,000 bytes). */
const MAX_COMPLETION_VALUE = 1_000;
const MAX_PROMPT_ARG_CHARS = 10_000;
/** A resource URI longer than this is refused before any template sees it (the usual URL limit). */
const MAX_URI_CHARS = 2_048;
/** Subscriptions one session may hold, counting each spelling: each is kept in memory until unsubscribed. */
export const MAX_SUBSCRIPTIONS = 1_000;

/** An error's message followed by its hint, for answers that carry one text. */
const withHint = (error: { message: string; hint?: string | undefined }) =>
  error.hint ? `${error.message}${/[.?!]$/.test(error.message) ? '' : '.'} ${error.hint}` : error.message;

/**
 * tools/call with `arguments` of any type. The SDK's own schema rejects non-object arguments before the
 * handler runs, as a -32603 internal error carrying a raw zod dump; with this one `callTool` answers them
 * like any other bad input (an `invalid_input` result in plain words).
 */
const ToolCallRequestSchema = z.object({
  method: z.literal('tools/call'),
  params: z.looseObject({ name: z.unknown().optional(), arguments: z.unknown().optional() }),
});

/**
 * A request checked against the SDK's schema for its method. Bad params are Invalid params (-32602) naming the
 * field as a client writes it (`uri`, not `params.uri`), where the SDK's own registration answers them as a
 * -32603 internal error carrying a raw zod dump.
 */
function checkRequest<S extends RequestSchema>(schema: S, request: unknown): z.output<S> {
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
 * zod's parse of a value; when it fails, again with each issue's input, which the messages quote. Asked of
 * every parse, `reportInput` costs zod's fast path for objects (3 µs a call's arguments become 7).
 */
function parseQuoting<T extends z.ZodType>(schema: T, value: unknown): z.ZodSafeParseResult<z.output<T>> {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed : schema.safeParse(value, { reportInput: true });
}

/**
 * Set on globalThis once an `initialize` has been answered. The bin's loader (tooling/build/loader.cjs) saves
 * its code cache only from such a run: `--help` or a start that no client talked to has compiled too little.
 */
const SERVED = Symbol.for('shipyard.served');

/**
 * The SDK's server with its own `initialize` handler checked as core checks every other request: the SDK
 * registers that one in its constructor, where core cannot reach it otherwise.
 */
class SessionServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<Server['setRequestHandler']>): void {
    if (schema !== InitializeRequestSchema) {
      super.setRequestHandler(schema, handler);
      return;
    }
    const initialize = handler as (request: unknown, extra: Extra) => ReturnType<typeof handler>;
    super.setRequestHandler(methodOnly('initialize'), (request, extra) => {
      const result = initialize(checkRequest(InitializeRequestSchema, request), extra);
      (globalThis as Record<symbol, unknown>)[SERVED] = true;
      return result;
    });
  }
}

/**
 * The SDK's dispatch asks zod schemas what each message is, in turn: a result, an error, a request. For a
 * request the first two fail and build their issues, which cost about 20 µs of a 0.55 ms tools/call over
 * stdio (the bin measured both ways, alternating). On a transport that has already checked its requests as
 * those schemas would, a message with a string method and an id goes straight to the protocol's request
 * handling; the rest (notifications, and responses to the server's own requests) still go through the
 * dispatch. `_onrequest` is the SDK's own, not public: where it is missing, every message goes through the
 * dispatch.
 */
function takeRequestsDirectly(server: Server, transport: Transport): void {
  const dispatch = transport.onmessage;
  const onrequest = (server as unknown as { _onrequest?: unknown })._onrequest;
  if (!dispatch || typeof onrequest !== 'function') return;
  transport.onmessage = (message, extra) => {
    // A string method: a response with a method member of another type was passed on as a response.
    if ('id' in message && typeof (message as { method?: unknown }).method === 'string')
      onrequest.call(server, message, extra);
    else dispatch(message, extra);
  };
}

const methodSchemas = new Map<string, z.ZodType<{ method: string }>>();
/** A schema that only names the method (built once per method, not per session). */
function methodOnly(method: string): z.ZodType<{ method: string }> {
  const known = methodSchemas.get(method);
  if (known) return known;
  const schema = z.looseObject({ method: z.literal(method) });
  methodSchemas.set(method, schema);
  return schema;
}

/** One of the SDK's request schemas: a method literal and its params. */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string>; params?: z.ZodType }>;

export interface RuntimeOptions {
  /** List and allow only tools whose annotations say readOnlyHint. */
  readOnly?: boolean;
  /** Allow-list of tool names; an unknown name throws at construction. */
  tools?: readonly string[];
  logger?: Logger;
  user?: string;
  /** Called when the definition's warmUp fails (runServer exits); without it the error is only logged. */
  onWarmUpError?: (error: unknown) => void;
  /**
   * Parse every answer the lean output check (output.ts) passes with zod as well, and fail the call when the two
   * disagree (an internal error naming the tool). For tests: the testing package's `connect` turns it on.
   */
  crossCheckOutputs?: boolean;
}

type AnyTool = ToolDefinition<any, any, unknown>;
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

interface CompiledTool {
  def: AnyTool;
  input: z.ZodObject;
  output: z.ZodObject;
  /** Arguments a caller may leave out. */
  optional: string[];
  /** The lean check of its answers (output.ts), built on its first call; null where there is none. */
  check?: OutputCheck | null;
}

interface CompiledResource {
  def: ResourceDefinition<unknown>;
  template: UriTemplate | undefined;
  /** The template with its one variable matching any text; see {@link looseTemplate}. */
  loose: LooseTemplate | undefined;
}

interface LooseTemplate {
  pattern: RegExp;
  name: string;
}

/**
 * A template of one plain `{name}` variable as a pattern in which the variable matches any text, `/` and `,`
 * too, which RFC 6570 matching refuses in a variable's value. A URI read that no template matches as RFC 6570
 * reads it is matched with these, so the resource's own `read` says what is wrong with the value
 * (`tickets://SHIP-1,SHIP-2`: one key a read) instead of a bare "not found". Undefined for a template with
 * other expressions or more variables (whose patterns would backtrack a long time on a long URI).
 */
function looseTemplate(uri: string): LooseTemplate | undefined {
  const expressions = [...uri.matchAll(/\{([^}]*)\}/g)];
  const [only] = expressions;
  if (expressions.length !== 1 || !only || !/^\w+$/.test(only[1] ?? '')) return undefined;
  const before = escapeRegExp(uri.slice(0, only.index));
  const after = escapeRegExp(uri.slice(only.index + only[0].length));
  return { pattern: new RegExp(`^${before}(.+)${after}$`, 's'), name: only[1] ?? '' };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Session {
  server: Server;
  /** Subscribed URIs as the client spelt them, by their canonical form (see {@link Runtime.canonicalUri}). */
  subscriptions: Map<string, Set<string>>;
}

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

/**
 * The SDK's Server builds an Ajv instance for every session (10-20 ms) to validate elicitation answers,
 * which Shipyard never requests. One lazily built validator per runtime keeps that off start-up and off
 * each new HTTP session.
 */
class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private inner: AjvJsonSchemaValidator | undefined;

  getValidator<T>(schema: JsonSchemaType) {
    this.inner ??= new AjvJsonSchemaValidator();
    return this.inner.getValidator<T>(schema);
  }
}

/** Thrown when start-up options do not fit the definition (unknown --tools name). */
export class ConfigError extends Error {}

/**
 * The protocol side of a server definition: validates, dispatches, converts errors, tracks subscriptions
 * and in-flight calls. One Runtime serves any number of sessions (one per stdio process, one per HTTP client).
 */
export class Runtime {
  readonly definition: ServerDefinition<unknown>;
  readonly log: Logger;
  private readonly options: RuntimeOptions;
  private readonly tools = new Map<string, CompiledTool>();
  private readonly hiddenByReadOnly = new Set<string>();
  /** Tools --tools leaves out that --read-only would hide too (they change data). */
  private readonly writersLeftOut = new Set<string>();
  /** The definition's instructions for the tools this run offers. */
  private readonly instructions: string | undefined;
  private readonly resources: CompiledResource[];
  private readonly prompts = new Map<string, PromptDefinition<unknown>>();
  /** Prompts of the definition not offered, with the tools they call that are not. */
  private readonly hiddenPrompts = new Map<string, string[]>();
  private readonly sessions = new Set<Session>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();
  private readonly validator = new LazyJsonSchemaValidator();
  private toolListing: Tool[] | undefined;
  private warmedUp: Promise<void> | undefined;
  /** Set once warm-up has failed: the failure's code (`EACCES`, `SQLITE_NOTADB`) when it has one, else ''. */
  private warmUpFailed: string | undefined;
  private closed = false;
  /** Stops the definition's watch while it runs (some session has a subscription). */
  private stopWatching: (() => void) | undefined;

  constructor(definition: ServerDefinition<any>, options: RuntimeOptions = {}) {
    this.definition = definition;
    this.options = options;
    this.log = options.logger ?? createLogger(definition.name);

    const all = new Map(definition.tools.map((tool) => [tool.name, tool as AnyTool]));
    if (options.tools && options.tools.length > 0) {
      const unknown = options.tools.filter((name) => !all.has(name));
      if (unknown.length > 0) {
        throw new ConfigError(
          `Unknown tool${unknown.length > 1 ? 's' : ''} in --tools (SHIPYARD_TOOLS): ${unknown.join(', ')}. ` +
            `This server has: ${[...all.keys()].join(', ')}`,
        );
      }
    }
    const allowed = options.tools && options.tools.length > 0 ? new Set(options.tools) : undefined;
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
      this.tools.set(tool.name, compileTool(tool));
    }
    this.instructions =
      typeof definition.instructions === 'function'
        ? definition.instructions(new Set(this.tools.keys()))
        : definition.instructions;
    if (this.tools.size === 0 && all.size > 0) {
      // Allowed (the server still answers, and refuses the hidden tools as forbidden), but worth saying.
      this.log.warn('no tool is offered: --read-only hides every tool --tools allows', {
        hidden: [...this.hiddenByReadOnly],
      });
    }
    this.resources = (definition.resources ?? []).map((def) => ({
      def,
      template: UriTemplate.isTemplate(def.uri) ? new UriTemplate(def.uri) : undefined,
      loose: looseTemplate(def.uri),
    }));
    for (const prompt of definition.prompts ?? []) {
      // A workflow whose tools are not all offered would fail part way: it is not offered either.
      const missing = (prompt.uses ?? []).filter((name) => !this.tools.has(name));
      if (missing.length === 0) this.prompts.set(prompt.name, prompt);
      else this.hiddenPrompts.set(prompt.name, missing);
    }
  }

  /** Why a prompt of the definition is not offered (the tools it calls that are not), or undefined. */
  private promptHidden(name: string): string | undefined {
    const missing = this.hiddenPrompts.get(name);
    if (!missing) return undefined;
    const readOnly = missing.filter((tool) => this.hiddenByReadOnly.has(tool));
    const both = missing.filter((tool) => this.writersLeftOut.has(tool));
    const left = missing.filter((tool) => !this.hiddenByReadOnly.has(tool) && !this.writersLeftOut.has(tool));
    const reasons = [
      ...(readOnly.length > 0 ? [`${readOnly.join(', ')}, which --read-only hides`] : []),
      ...(left.length > 0 ? [`${left.join(', ')}, which --tools (SHIPYARD_TOOLS) leaves out`] : []),
      ...(both.length > 0
        ? [`${both.join(', ')}, which --tools (SHIPYARD_TOOLS) leaves out and --read-only would hide`]
        : []),
    ];
    return `Prompt ${name} is not offered: it calls ${reasons.join(', and ')}`;
  }

  /** The error for a prompt name that is not offered: hidden (and why), or unknown. */
  private unknownPrompt(name: string): RpcError {
    const available = `Available prompts: ${[...this.prompts.keys()].join(', ') || 'none'}`;
    return new RpcError(
      ErrorCode.InvalidParams,
      `${this.promptHidden(name) ?? `Unknown prompt: ${named(name)}`}. ${available}`,
    );
  }

  /**
   * What is wrong with a body that is an `initialize` request with bad params, as the -32602 error that
   * names them; undefined for anything else. (For HTTP, which must answer it before any session exists. A
   * method here, not an import, keeps the HTTP chunk from pulling the runtime into a shared chunk, which
   * cost cold start.)
   */
  initializeProblem(body: unknown): { code: number; message: string } | undefined {
    if ((body as { method?: unknown } | null)?.method !== 'initialize') return undefined;
    try {
      checkRequest(InitializeRequestSchema, body);
      return undefined;
    } catch (error) {
      return error instanceof RpcError ? { code: error.code, message: error.message } : undefined;
    }
  }

  /** Names of the tools this runtime exposes after --read-only and --tools. */
  get toolNames(): string[] {
    return [...this.tools.keys()];
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Create a protocol server for one client and connect it to a transport. With `requestsChecked`, the
   * transport promises that every message with a string method and an id it hands over is a request as
   * JSON-RPC and MCP have it (core's stdio and HTTP transports check each with `refusal`, messages.ts), and
   * such messages skip the SDK's dispatch (see {@link takeRequestsDirectly}).
   */
  async connect(transport: Transport, options: { requestsChecked?: boolean } = {}): Promise<Server> {
    const server = this.createServer();
    const before = transport.onmessage;
    await server.connect(transport);
    if (options.requestsChecked && !before) takeRequestsDirectly(server, transport);
    return server;
  }

  /** A protocol server for one session, not yet connected. */
  createServer(): Server {
    const def = this.definition;
    const server = new SessionServer(
      { name: `shipyard-${def.name}`, version: def.version, ...(def.title ? { title: def.title } : {}) },
      {
        capabilities: {
          tools: {},
          resources: { subscribe: true },
          prompts: {},
          completions: {},
        },
        ...(this.instructions ? { instructions: this.instructions } : {}),
        jsonSchemaValidator: this.validator,
      },
    );
    const session: Session = { server, subscriptions: new Map() };
    this.sessions.add(session);
    server.oninitialized = () => {
      this.warmUp().catch(() => {});
    };
    const previousOnClose = server.onclose;
    server.onclose = () => {
      this.sessions.delete(session);
      this.watchWhileSubscribed();
      previousOnClose?.();
    };
    this.registerHandlers(session);
    return server;
  }

  /** Run the definition's warmUp once (the first initialized session triggers it). */
  warmUp(): Promise<void> {
    this.warmedUp ??= (async () => {
      try {
        await this.definition.warmUp?.();
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        this.warmUpFailed = typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : '';
        this.log.error(`warm-up failed\n${stackOf(error)}`);
        this.options.onWarmUpError?.(error);
        throw error;
      }
    })();
    return this.warmedUp;
  }

  /**
   * Notify every session subscribed to one of these URIs (once per URI, under each spelling the client
   * subscribed with: `tickets://ship-2` hears of `tickets://SHIP-2`). Never throws.
   */
  changed(...uris: string[]): void {
    const watched = [...this.sessions].filter((session) => session.subscriptions.size > 0);
    if (watched.length === 0) return;
    for (const canonical of new Set(uris.map((uri) => this.canonicalUriOr(uri)))) {
      for (const session of watched) {
        for (const uri of session.subscriptions.get(canonical) ?? []) {
          session.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
            this.log.warn('could not send resources/updated', { uri, error });
          });
        }
      }
    }
  }

  /** Run the definition's watch exactly while some session has a subscription (and not after close). */
  private watchWhileSubscribed(): void {
    const wanted = !this.closed && [...this.sessions].some((session) => session.subscriptions.size > 0);
    if (wanted && !this.stopWatching && this.definition.watch) {
      // Subscriptions still hear of this process's changes when watching for other processes fails.
      try {
        this.stopWatching = this.definition.watch((...uris) => this.changed(...uris));
      } catch (error) {
        this.internal('watch', error);
      }
    } else if (!wanted && this.stopWatching) {
      this.stopWatching();
      this.stopWatching = undefined;
    }
  }

  /**
   * The one spelling of a resource URI that subscriptions are kept and matched under: the template expanded
   * with the resource's `canonical` variables (e.g. keys upper-cased), or the URI itself. -32002 when no
   * resource matches.
   */
  private canonicalUri(uri: string): string {
    const { resource, params } = this.matchResource(uri);
    if (!resource.template || !resource.def.canonical) return uri;
    return resource.template.expand(resource.def.canonical(params));
  }

  /**
   * The refusal of a subscription whose URI {@link canonicalUri} refused with `error`. Where no template takes
   * the URI as it stands but a read would (a value with a `/`, such as a ticket's page spelt with a path it
   * does not have), the -32002 carries the resource's own answer to that read, which says what was meant; a
   * read that succeeds or fails otherwise leaves `error` (such a spelling never changes: there is nothing to
   * subscribe to), a fault in the read logged.
   */
  private async refusedSubscription(uri: string, error: unknown): Promise<never> {
    if (!(error instanceof RpcError) || error.code !== RESOURCE_NOT_FOUND) throw error;
    let match: ReturnType<Runtime['matchResource']>;
    try {
      match = this.matchResource(uri, { loose: true });
    } catch {
      throw error;
    }
    try {
      await this.resourceContents(uri, match);
    } catch (refusal) {
      if (isShipyardError(refusal)) throw new RpcError(RESOURCE_NOT_FOUND, withHint(refusal), { uri });
      // A fault in the read: logged as a read's is, and not told.
      this.internal(`resource ${match.resource.def.name}`, refusal);
    }
    throw error;
  }

  /** {@link canonicalUri}, or the URI itself when no resource matches it. */
  private canonicalUriOr(uri: string): string {
    try {
      return this.canonicalUri(uri);
    } catch {
      return uri;
    }
  }

  /** Wait for in-flight tool calls to finish (bounded), then close sessions and the definition. */
  async close({ drainMs = 10_000 }: { drainMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchWhileSubscribed();
    if (this.inflight.size > 0) {
      this.log.info('waiting for in-flight calls', { count: this.inflight.size });
      let timer: NodeJS.Timeout | undefined;
      let expired = false;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          expired = true;
          resolve();
        }, drainMs);
      });
      // Calls that arrive while draining are waited for too, until the deadline.
      while (this.inflight.size > 0 && !expired) {
        await Promise.race([Promise.allSettled([...this.inflight]), deadline]);
      }
      clearTimeout(timer);
    }
    this.shutdown.abort();
    await Promise.allSettled([...this.sessions].map((session) => session.server.close()));
    this.sessions.clear();
    await this.definition.close?.();
  }

  /**
   * What every handler's context holds. Callers add to it with Object.assign, not a spread: on Node 20 each
   * property written after a spread costs about a microsecond (V8 11.3; measured with the tickets server).
   * callTool writes these fields out instead, as Object.assign would read its lazy `signal` getter at once.
   */
  private baseContext(): BaseContext<unknown> {
    return { deps: this.definition.deps, log: this.log, user: this.options.user };
  }

  /**
   * Handle requests for the method of `schema` (registered through Protocol, as tools/call is). The request is
   * checked against the SDK's schema here, so bad params get Invalid params (-32602) naming the field, where
   * the SDK's registration answers them as a -32603 internal error carrying a raw zod dump. Every request is
   * tracked for the drain at close, and an unexpected error is logged and answered with its reference only.
   */
  private onRequest<S extends RequestSchema>(
    server: Server,
    schema: S,
    handler: (request: z.output<S>, extra: Extra) => unknown,
    /** The request as the schema would give it, when a check cheaper than zod's can tell it is one. */
    quick?: (request: Record<string, unknown>) => z.output<S> | undefined,
  ): void {
    const method = schema.shape.method.value;
    const run = (request: unknown, extra: Extra) => {
      const checked = quick?.(request as Record<string, unknown>) ?? checkRequest(schema, request);
      return this.track(this.answer(method, () => handler(checked, extra)));
    };
    // The SDK's registration parses each request against a schema before the handler, which checkRequest
    // does again: the handler goes into the SDK's map of them directly (its own, not public; where it is
    // missing, through the registration with a schema that only names the method).
    const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
    if (handlers instanceof Map) {
      (
        server as unknown as { assertRequestHandlerCapability(method: string): void }
      ).assertRequestHandlerCapability(method);
      handlers.set(method, (request: unknown, extra: Extra) => Promise.resolve(run(request, extra)));
      return;
    }
    const setProtocolHandler = Protocol.prototype.setRequestHandler as (
      this: Server,
      schema: z.ZodType<{ method: string }>,
      handler: (request: unknown, extra: Extra) => unknown,
    ) => void;
    setProtocolHandler.call(server, methodOnly(method), run);
  }

  /** A handler's answer; an error that is not already a JSON-RPC or Shipyard error is logged and hidden. */
  private async answer(method: string, run: () => unknown): Promise<unknown> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof RpcError) throw error;
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error));
      throw new RpcError(ErrorCode.InternalError, this.internal(method, error).message);
    }
  }

  private registerHandlers(session: Session): void {
    const { server } = session;
    this.onRequest(server, ListToolsRequestSchema, () => ({ tools: this.listTools() }));
    // A loose schema: callTool answers bad arguments itself, as a tool result.
    this.onRequest(
      server,
      ToolCallRequestSchema,
      (request, extra) => this.callTool(request.params.name, request.params.arguments, extra),
      // All the schema asks: params is an object (zod took 20-60 µs a call to say so, with cold caches).
      (request) => {
        const { params } = request;
        return typeof params === 'object' && params !== null && !Array.isArray(params)
          ? (request as z.output<typeof ToolCallRequestSchema>)
          : undefined;
      },
    );
    this.onRequest(server, ListResourcesRequestSchema, () => this.listResources());
    this.onRequest(server, ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: this.resources
        .filter((r) => r.template)
        .map(({ def }) => ({
          uriTemplate: def.uri,
          name: def.name,
          ...(def.title ? { title: def.title } : {}),
          description: def.description,
          mimeType: def.mimeType,
        })),
    }));
    this.onRequest(server, ReadResourceRequestSchema, (request) => this.readResource(request.params.uri));
    // Synchronous up to the subscription kept: a request sent right after it (an unsubscribe, a change) is
    // handled after it, as sent. Only a refusal waits, for the read that explains it.
    this.onRequest(server, SubscribeRequestSchema, (request) => {
      const { uri } = request.params;
      this.refuseQuery(uri, 'subscribe to');
      let canonical: string;
      try {
        canonical = this.canonicalUri(uri);
      } catch (error) {
        return this.refusedSubscription(uri, error);
      }
      const spellings = session.subscriptions.get(canonical) ?? new Set();
      let held = 0;
      for (const set of session.subscriptions.values()) held += set.size;
      if (!spellings.has(uri) && held >= MAX_SUBSCRIPTIONS) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          `This session holds ${held} subscriptions, the most it may; unsubscribe from some first`,
        );
      }
      session.subscriptions.set(canonical, spellings.add(uri));
      this.watchWhileSubscribed();
      return {};
    });
    // Unsubscribing under any spelling ends the subscription to the resource, whatever spellings it had.
    this.onRequest(server, UnsubscribeRequestSchema, (request) => {
      session.subscriptions.delete(this.canonicalUriOr(request.params.uri));
      this.watchWhileSubscribed();
      return {};
    });
    this.onRequest(server, ListPromptsRequestSchema, () => ({
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
    }));
    this.onRequest(server, GetPromptRequestSchema, (request) =>
      this.getPrompt(request.params.name, request.params.arguments ?? {}),
    );
    this.onRequest(server, CompleteRequestSchema, (request) => this.complete(request.params));
  }

  /**
   * For arguments a tool does not take and that mean none it takes (`meant`), the offered tools that take
   * them (`status` given to an update tool names the tool that changes status), or undefined when no unknown
   * argument has one. An argument the message already pairs with a missing one (`comment` for a comment
   * tool's `body`) names no other tool: the hint would send the model to a tool that does something else
   * (changing a status, to leave a comment).
   */
  private elsewhere(
    called: AnyTool,
    issues: readonly z.core.$ZodIssue[],
    meant: ReadonlyMap<string, Suggestion>,
  ): string | undefined {
    const unknown = issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys : []));
    /**
     * What the tool's definition says of an argument (its `elsewhere`), in place of the tools that take it;
     * nothing, where that names a tool this session does not offer (--tools, --read-only).
     */
    const told: string[] = [];
    const notes = unknown.flatMap((key) => {
      if (meant.has(key)) return [];
      // In any case, as aliases are looked up (`Comment` is `comment`).
      const lower = key.toLowerCase();
      if (called.elsewhere && Object.hasOwn(called.elsewhere, lower)) {
        const note = called.elsewhere[lower] as string;
        if (!this.namesHiddenTool(note)) told.push(note);
        return [];
      }
      const named = this.takers(called, key);
      return named.length > 0 ? [`\`${key}\` is an argument of ${named.map((t) => t.name).join(', ')}`] : [];
    });
    const hints = [...(notes.length > 0 ? [`${notes.join('; ')}: call that tool for it`] : []), ...told];
    return hints.length > 0 ? hints.join('. ') : undefined;
  }

  /** Whether `text` names, as a word, a tool of the definition this session does not offer. */
  private namesHiddenTool(text: string): boolean {
    const words = new Set(text.match(/\w+/g));
    return this.definition.tools.some((tool) => !this.tools.has(tool.name) && words.has(tool.name));
  }

  /**
   * The offered tools other than `called` that take argument `key`: those that change data like it does (or
   * only read, like it), or when none does, the others; but a tool that only reads names no tool that
   * changes data (a filter it lacks, such as `resolution` for a search, is not a reason to change a ticket).
   */
  private takers(called: AnyTool, key: string): AnyTool[] {
    const reads = (def: AnyTool) => def.annotations?.readOnlyHint === true;
    const takers = [...this.tools.values()]
      .map((tool) => tool.def)
      .filter((def) => def !== called && Object.hasOwn(def.input, key));
    const alike = takers.filter((def) => reads(def) === reads(called));
    return alike.length > 0 || reads(called) ? alike : takers;
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inflight.add(promise);
    const done = () => this.inflight.delete(promise);
    promise.then(done, done);
    return promise;
  }

  private listTools(): Tool[] {
    // Built on the first tools/list, not at start-up: JSON Schema conversion is not on the initialize path.
    this.toolListing ??= [...this.tools.values()].map((tool) => toolListing(tool.def));
    return this.toolListing;
  }

  async callTool(name: unknown, args: unknown, extra?: Extra): Promise<CallToolResult> {
    if (typeof name !== 'string') {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `tools/call needs params.name, one of: ${this.toolNames.join(', ')}`,
      );
    }
    const tool = this.tools.get(name);
    if (!tool) {
      if (this.hiddenByReadOnly.has(name)) {
        return errorResult(
          new Forbidden(`${name} changes data and this server runs with --read-only`, {
            hint:
              this.toolNames.length > 0
                ? `Use one of the read-only tools: ${this.toolNames.join(', ')}`
                : 'No tool is offered: --tools names none that only reads; start the server without --read-only to change data',
          }),
        );
      }
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${named(name)}. Available tools: ${this.toolNames.join(', ') || 'none'}`,
      );
    }
    let parsed = parseQuoting(tool.input, args ?? {});
    // An enum value off only in case or separators (`High`, `In Progress`) is taken as the value it names.
    const eased = parsed.success ? undefined : easeEnumValues(args, parsed.error.issues);
    if (eased !== undefined) parsed = tool.input.safeParse(eased, { reportInput: true });
    if (!parsed.success) {
      const { issues } = parsed.error;
      const keys = Object.keys(tool.def.input);
      const meant = suggestArguments(issues, keys, tool.def.aliases, tool.def.elsewhere);
      const problems = describeIssues(issues, keys, {
        optionalKeys: tool.optional,
        // Those whose description offers "none" as a value (see DescribeOptions): looked up on a refusal
        // only, not for every tool at start-up.
        noneKeys: tool.optional.filter((key) => describedAs(tool.def.input[key]).includes('"none"')),
        meant,
      });
      return errorResult(
        new ShipyardError('invalid_input', `Invalid arguments for ${name}: ${problems}`, {
          hint:
            this.elsewhere(tool.def, issues, meant) ??
            'Fix the arguments named above and call the tool again',
        }),
      );
    }
    const progressToken = extra?._meta?.progressToken;
    let signal: AbortSignal | undefined;
    const shutdown = this.shutdown.signal;
    const ctx: ToolContext<unknown> = {
      deps: this.definition.deps,
      log: this.log,
      user: this.options.user,
      // Combined on first use: most handlers never look at it, and AbortSignal.any costs on every call.
      get signal() {
        signal ??= extra ? AbortSignal.any([extra.signal, shutdown]) : shutdown;
        return signal;
      },
      changed: (...uris) => this.changed(...uris),
      progress: async (progress, total, message) => {
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
    let value: unknown;
    try {
      value = await tool.def.handler(parsed.data, ctx);
    } catch (error) {
      if (isShipyardError(error)) return errorResult(error);
      return errorResult(this.internal(`tool ${name}`, error));
    }
    let data: Record<string, unknown>;
    try {
      data = this.checkOutput(tool, value);
    } catch (error) {
      return errorResult(this.internal(`tool ${name}`, error));
    }
    return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
  }

  /** A handler's answer as its output schema has it; throws when it does not match. */
  private checkOutput(tool: CompiledTool, value: unknown): Record<string, unknown> {
    if (tool.check === undefined) {
      try {
        tool.check = compileOutputCheck(tool.def.output) ?? null;
      } catch {
        tool.check = null; // zod alone, as before
      }
    }
    const checked = tool.check?.(value) === true;
    if (checked && !this.options.crossCheckOutputs) return value as Record<string, unknown>;
    const output = tool.output.safeParse(value);
    const name = tool.def.name;
    if (!output.success)
      throw new Error(
        `output of ${name} does not match its schema: ${output.error.message}${checked ? ' (the lean check passed it)' : ''}`,
      );
    if (!checked) return output.data as Record<string, unknown>;
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(output.data)), JSON.parse(JSON.stringify(value))))
      throw new Error(`output of ${name}: the lean check passed what zod changes`);
    // What the check passed goes out as it is, as without the cross-check: the tests see what is sent.
    return value as Record<string, unknown>;
  }

  /**
   * Log the real error with its stack; return one that leaks nothing but a reference. A database lock that
   * outlasted busy_timeout is not a fault: it comes back as a Conflict to retry (and a warning in the log).
   */
  private internal(where: string, error: unknown): ShipyardError {
    const busy = databaseBusy(error);
    if (busy) {
      this.log.warn(`${where}: ${busy.message}`);
      return busy;
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
      {
        hint: 'This is a server fault, not a problem with the arguments; retrying may not help',
      },
    );
  }

  private async listResources() {
    const resources: Array<Record<string, unknown> & { uri: string; name: string }> = [];
    for (const { def, template } of this.resources) {
      if (!template) {
        resources.push({
          uri: def.uri,
          name: def.name,
          ...(def.title ? { title: def.title } : {}),
          description: def.description,
          mimeType: def.mimeType,
        });
      } else if (def.list) {
        for (const entry of await def.list(this.baseContext())) {
          resources.push({ mimeType: def.mimeType, ...entry });
        }
      }
    }
    return { resources };
  }

  /**
   * The resource a URI names and its variables; `loose` (for a read) also tries each template's
   * {@link looseTemplate}. A subscription is matched strictly: a value no template takes never changes.
   */
  private matchResource(
    uri: string,
    { loose = false } = {},
  ): { resource: CompiledResource; params: Record<string, string> } {
    if (uri.length > MAX_URI_CHARS) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `A resource URI has at most ${MAX_URI_CHARS} characters; this one has ${uri.length}`,
      );
    }
    for (const resource of this.resources) {
      if (!resource.template) {
        if (resource.def.uri === uri) return { resource, params: {} };
        continue;
      }
      const vars = resource.template.match(uri);
      if (vars) {
        const params: Record<string, string> = {};
        for (const [key, value] of Object.entries(vars))
          params[key] = Array.isArray(value) ? value.join(',') : value;
        return { resource, params };
      }
    }
    for (const resource of loose ? this.resources : []) {
      const value = resource.loose && uri.match(resource.loose.pattern)?.[1];
      if (resource.loose && value !== undefined)
        return { resource, params: { [resource.loose.name]: value } };
    }
    throw new RpcError(RESOURCE_NOT_FOUND, `Resource not found: ${named(uri)}`, { uri });
  }

  /**
   * A URI with a query or a fragment (`tickets://SHIP-1?x=1`) that names a resource without it: the answer
   * names that one. A template variable would otherwise take the rest as its value (`SHIP-1?x=1`), and its
   * error would not say what was wrong. Only where no resource URI has a query or fragment of its own.
   * `verb` is what the request does with the URI (read, subscribe to).
   */
  private refuseQuery(uri: string, verb = 'read'): void {
    const cut = uri.search(/[?#]/);
    if (cut < 0 || this.resources.some((r) => /[?#]|\{[?&#]/.test(r.def.uri))) return;
    const bare = uri.slice(0, cut);
    try {
      this.matchResource(bare);
    } catch {
      return;
    }
    throw new RpcError(
      RESOURCE_NOT_FOUND,
      `This server's resource URIs take no query or fragment: ${verb} ${named(bare)}`,
      { uri },
    );
  }

  /** A resource's contents as resources/read answers them; errors as the resource's read throws them. */
  private async resourceContents(
    uri: string,
    { resource, params } = this.matchResource(uri, { loose: true }),
  ) {
    const value = await resource.def.read(params, Object.assign(this.baseContext(), { uri }));
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return { uri, mimeType: resource.def.mimeType, text };
  }

  private async readResource(uri: string) {
    this.refuseQuery(uri);
    const match = this.matchResource(uri, { loose: true });
    try {
      return { contents: [await this.resourceContents(uri, match)] };
    } catch (error) {
      // The hint goes with the message: a resource error has no other field a model is sure to see.
      if (error instanceof NotFound) throw new RpcError(RESOURCE_NOT_FOUND, withHint(error), { uri });
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error), { uri });
      const safe = this.internal(`resource ${match.resource.def.name}`, error);
      throw new RpcError(ErrorCode.InternalError, safe.message);
    }
  }

  private async getPrompt(name: string, args: Record<string, string>) {
    const prompt = this.prompts.get(name);
    if (!prompt) throw this.unknownPrompt(name);
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
      const ctx = this.baseContext();
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
                : { type: 'resource' as const, resource: await this.resourceContents(m.resource) },
          })),
        ),
      };
    } catch (error) {
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error));
      throw new RpcError(ErrorCode.InternalError, this.internal(`prompt ${name}`, error).message);
    }
  }

  private async complete(params: z.infer<typeof CompleteRequestSchema>['params']) {
    const { ref, argument } = params;
    let complete: CompleteFn<unknown> | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = this.prompts.get(ref.name);
      if (!prompt) throw this.unknownPrompt(ref.name);
      complete = prompt.args[argument.name]?.complete;
    } else {
      const resource = this.resources.find((r) => r.def.uri === ref.uri);
      if (!resource) {
        // A bad parameter, as an unknown prompt is (-32602), with the templates that complete.
        const templates = this.resources.filter((r) => r.template).map((r) => r.def.uri);
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Unknown resource template: ${named(ref.uri)}. Templates: ${templates.join(', ') || 'none'}`,
        );
      }
      complete = resource.def.variables?.[argument.name]?.complete;
    }
    if (!complete || argument.value.length > MAX_COMPLETION_VALUE)
      return { completion: { values: [], total: 0, hasMore: false } };
    let values: string[] = [];
    let total = 0;
    try {
      const result = await complete(
        argument.value,
        Object.assign(this.baseContext(), { arguments: params.context?.arguments ?? {} }),
      );
      values = (Array.isArray(result) ? result : result.values).slice(0, MAX_COMPLETIONS);
      total = Array.isArray(result) ? result.length : Math.max(result.total, values.length);
    } catch (error) {
      this.internal(`completion of ${argument.name}`, error);
    }
    return { completion: { values, total, hasMore: total > values.length } };
  }
}

/** A definition's `elsewhere` may name only arguments the tool does not take. */
function checkElsewhere(def: AnyTool): void {
  const taken = Object.keys(def.elsewhere ?? {}).filter((key) => Object.hasOwn(def.input, key));
  if (taken.length > 0) {
    throw new Error(
      `Tool ${def.name}: elsewhere names ${taken.map((key) => `\`${key}\``).join(', ')}, which it takes; ` +
        'elsewhere is for arguments the tool does not take',
    );
  }
}

function compileTool(def: AnyTool): CompiledTool {
  // zod's own mark of a field an object may lack (optional, or with a default): read, not probed by parsing
  // undefined, which would run the field's transforms.
  const optional = Object.keys(def.input).filter(
    (key) => (def.input[key] as z.ZodType | undefined)?._zod.optin === 'optional',
  );
  return { def, input: z.strictObject(def.input), output: z.object(def.output), optional };
}

/** A field's description, looked up through the wrappers that carry none of their own (`.optional()`). */
function describedAs(schema: z.ZodType | undefined): string {
  for (let at = schema; at; at = (at._zod.def as { innerType?: z.ZodType }).innerType) {
    if (at.description) return at.description;
  }
  return '';
}

function errorResult(error: ShipyardError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: error.toJSON() }) }] };
}
