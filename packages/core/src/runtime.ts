import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { clientLog, severity } from './client-log.js';
import { complete } from './completion.js';
import type { AnyTool, BaseContext, ServerDefinition } from './define.js';
import { checkRequest, type ErrorMapper, Faults, initializeProblem, type RequestSchema } from './faults.js';
import { Inflight } from './inflight.js';
import { createLogger, type Logger, type Redactor, redactor, stackOf } from './logger.js';
import { Prompts } from './prompts.js';
import { Resources, type Subscriptions } from './resources.js';
import type { ServeOptions } from './session-server.js';
import { clientRoots, LazyJsonSchemaValidator, methodOnly, SessionServer } from './session-server.js';
import { type Extra, ToolCallRequestSchema, Tools } from './tools.js';

export { RESOURCE_NOT_FOUND, RpcError } from './faults.js';
export { MAX_SUBSCRIPTIONS } from './resources.js';
export { ConfigError } from './tools.js';

export interface RuntimeOptions {
  /** List and allow only tools whose annotations say readOnlyHint. */
  readOnly?: boolean;
  /** Allow-list of tool names; an unknown name throws at construction. */
  tools?: readonly string[];
  logger?: Logger;
  user?: string;
  /** Called when the definition's warmUp fails (runServer exits); without it the error is only logged. */
  onWarmUpError?: (error: unknown) => void;
  /** Values never sent to a client in a log message (the HTTP token). */
  secrets?: readonly (string | undefined)[];
}

interface Session {
  server: Server;
  subscriptions: Subscriptions;
  /** The least severity of the log messages this session's client is sent (`logging/setLevel`). */
  logSeverity: number;
}

/**
 * The protocol side of a server definition: owns the sessions, registers the handlers of the tools,
 * resources and prompts on each, tracks in-flight requests and runs warm-up, watch and close. One Runtime
 * serves any number of sessions (one per stdio process, one per HTTP client).
 */
export class Runtime {
  readonly definition: ServerDefinition<unknown>;
  readonly log: Logger;
  private readonly options: RuntimeOptions;
  private readonly faults: Faults;
  private readonly tools: Tools;
  private readonly resources: Resources;
  private readonly prompts: Prompts;
  /** The definition's instructions for the tools this run offers. */
  private readonly instructions: string | undefined;
  private readonly sessions = new Set<Session>();
  private readonly inflight = new Inflight();
  private readonly shutdown = new AbortController();
  private readonly validator = new LazyJsonSchemaValidator();
  private readonly hide: Redactor;
  private warmedUp: Promise<void> | undefined;
  private closed = false;
  /** Stops the definition's watch while it runs (some session has a subscription). */
  private stopWatching: (() => void) | undefined;

  constructor(definition: ServerDefinition<any>, options: RuntimeOptions = {}) {
    this.definition = definition;
    this.options = options;
    this.log = options.logger ?? createLogger(definition.name, { secrets: options.secrets ?? [] });
    this.hide = redactor(options.secrets);
    const mapError = definition.mapError as ErrorMapper | undefined;
    this.faults = new Faults(this.log, mapError && ((error) => mapError.call(definition, error)));
    const base = () => this.baseContext();
    this.tools = new Tools(definition.tools as AnyTool[], options, {
      faults: this.faults,
      log: this.log,
      base,
      shutdown: this.shutdown.signal,
      changed: (...uris) => this.changed(...uris),
    });
    this.instructions =
      typeof definition.instructions === 'function'
        ? definition.instructions(new Set(this.tools.names))
        : definition.instructions;
    this.resources = new Resources(definition.resources ?? [], { faults: this.faults, base });
    this.prompts = new Prompts(definition.prompts ?? [], this.tools, this.resources, {
      faults: this.faults,
      base,
    });
  }

  /**
   * What is wrong with a body that is an `initialize` request with bad params, as the -32602 error that
   * names them; undefined for anything else. (For HTTP, which must answer it before any session exists; a
   * method, so the HTTP module imports nothing of the runtime's and stays in its own bundle chunk.)
   */
  initializeProblem(body: unknown): { code: number; message: string } | undefined {
    return initializeProblem(body);
  }

  /** Names of the tools this runtime exposes after --read-only and --tools. */
  get toolNames(): string[] {
    return this.tools.names;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Create a protocol server for one client and connect it to a transport. */
  async connect(transport: Transport, options: ServeOptions = {}): Promise<Server> {
    const server = this.createServer(options);
    await server.connect(transport);
    return server;
  }

  /** A protocol server for one session, not yet connected. */
  createServer(options: ServeOptions = {}): Server {
    const def = this.definition;
    const server = new SessionServer(
      { name: `shipyard-${def.name}`, version: def.version, ...(def.title ? { title: def.title } : {}) },
      {
        capabilities: options.toolsOnly
          ? { tools: {} }
          : { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} },
        ...(this.instructions ? { instructions: this.instructions } : {}),
        jsonSchemaValidator: this.validator,
      },
    );
    // Until the client sets a level, it hears what stderr shows.
    const session: Session = {
      server,
      subscriptions: new Map(),
      // Without the logging capability, a client is sent no log message.
      logSeverity: severity(options.toolsOnly ? 'silent' : (this.log.level ?? 'info')),
    };
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
    this.registerHandlers(session, options.toolsOnly ?? false);
    return server;
  }

  /** Run the definition's warmUp once (the first initialized session triggers it). */
  warmUp(): Promise<void> {
    this.warmedUp ??= (async () => {
      try {
        await this.definition.warmUp?.();
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        this.faults.warmUpFailed =
          typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : '';
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
    this.resources.notify([...this.sessions], uris, (uri, error) =>
      this.log.warn('could not send resources/updated', { uri, error }),
    );
  }

  /** A tools/call as a session would answer it (for callers without a client). */
  callTool(name: unknown, args: unknown, extra?: Extra): Promise<CallToolResult> {
    return this.tools.call(name, args, extra);
  }

  /** Wait for in-flight requests to finish (bounded), then close sessions and the definition. */
  async close({ drainMs = 10_000 }: { drainMs?: number } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watchWhileSubscribed();
    await this.inflight.drain(drainMs, this.log);
    this.shutdown.abort();
    await Promise.allSettled([...this.sessions].map((session) => session.server.close()));
    this.sessions.clear();
    await this.definition.close?.();
  }

  /** Run the definition's watch exactly while some session has a subscription (and not after close). */
  private watchWhileSubscribed(): void {
    const wanted = !this.closed && [...this.sessions].some((session) => session.subscriptions.size > 0);
    if (wanted && !this.stopWatching && this.definition.watch) {
      // Subscriptions still hear of this process's changes when watching for other processes fails.
      try {
        this.stopWatching = this.definition.watch(
          (...uris) => this.changed(...uris),
          () => this.changed(...new Set([...this.sessions].flatMap((s) => [...s.subscriptions.keys()]))),
        );
      } catch (error) {
        this.faults.internal('watch', error);
      }
    } else if (!wanted && this.stopWatching) {
      this.stopWatching();
      this.stopWatching = undefined;
    }
  }

  /** What every handler's context holds; callers add to it with Object.assign. */
  private baseContext(): BaseContext<unknown> {
    return { deps: this.definition.deps, log: this.log, user: this.options.user };
  }

  /**
   * Handle requests for the method of `schema`, registered with a schema that only names the method: the
   * request is checked here (checkRequest), so bad params get -32602 naming the field. Every request is
   * tracked for the drain at close, and an unexpected error is logged and answered with its reference only.
   */
  private onRequest<S extends RequestSchema>(
    server: Server,
    schema: S,
    handler: (request: z.output<S>, extra: Extra) => unknown,
  ): void {
    const method = schema.shape.method.value;
    server.setRequestHandler(
      methodOnly(method) as never,
      ((request: unknown, extra: Extra) =>
        this.inflight.track(
          this.faults.answer(method, () => handler(checkRequest(schema, request), extra)),
        )) as never,
    );
  }

  private registerHandlers(session: Session, toolsOnly: boolean): void {
    const { server } = session;
    const { tools, resources, prompts } = this;
    this.onRequest(server, ListToolsRequestSchema, () => ({ tools: tools.list() }));
    // Bad arguments are answered as a tool result. Tools only, no roots asked: the answer would go elsewhere.
    this.onRequest(server, ToolCallRequestSchema, (request, extra) =>
      tools.call(request.params.name, request.params.arguments, extra, this.callLog(session, extra), () =>
        toolsOnly ? Promise.resolve(undefined) : clientRoots(server, extra),
      ),
    );
    if (toolsOnly) return;
    // Replaces the SDK's own handler, which takes a level it does not know without a word.
    this.onRequest(server, SetLevelRequestSchema, (request) => {
      session.logSeverity = severity(request.params.level);
      return {};
    });
    this.onRequest(server, ListResourcesRequestSchema, () => resources.list());
    this.onRequest(server, ListResourceTemplatesRequestSchema, () => resources.templates());
    this.onRequest(server, ReadResourceRequestSchema, (request) => resources.read(request.params.uri));
    this.onRequest(server, SubscribeRequestSchema, (request) => {
      const refused = resources.subscribe(session.subscriptions, request.params.uri);
      if (refused) return refused;
      this.watchWhileSubscribed();
      return {};
    });
    this.onRequest(server, UnsubscribeRequestSchema, (request) => {
      resources.unsubscribe(session.subscriptions, request.params.uri);
      this.watchWhileSubscribed();
      return {};
    });
    this.onRequest(server, ListPromptsRequestSchema, () => prompts.list());
    this.onRequest(server, GetPromptRequestSchema, (request) =>
      prompts.get(request.params.name, request.params.arguments ?? {}),
    );
    this.onRequest(server, CompleteRequestSchema, (request) =>
      complete(request.params, { prompts, resources, faults: this.faults, base: () => this.baseContext() }),
    );
  }

  /** A tool call's ctx.log: stderr, and the calling session at or above its level. */
  private callLog(session: Session, extra: Extra): Logger {
    return clientLog(this.log, extra, {
      logger: this.definition.name,
      minimum: () => session.logSeverity,
      hide: this.hide,
      failed: (error) => this.log.debug('could not send a log message to the client', { error }),
    });
  }
}
