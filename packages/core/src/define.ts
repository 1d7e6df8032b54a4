import type { z } from 'zod';
import type { ServerSetting } from './config.js';
import type { ShipyardError } from './errors.js';
import type { WithImages } from './images.js';
import type { Logger } from './logger.js';

/** A zod raw shape: the fields of an object schema. */
export type Shape = Record<string, z.ZodType>;
export type Infer<S extends Shape> = z.output<z.ZodObject<S>>;
export type InferInput<S extends Shape> = z.input<z.ZodObject<S>>;

/** All four hints are required: the linter and hosts rely on them being explicit. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface BaseContext<Deps> {
  /** The dependencies the server was created with (a database, a client…). */
  deps: Deps;
  /** Logs to stderr; in a tool call, also to the calling client (MCP logging, at or above its level). */
  log: Logger;
  /** The configured user (`--user` / `SHIPYARD_USER`), if any. */
  user: string | undefined;
}

export interface ToolContext<Deps = unknown> extends BaseContext<Deps> {
  /** Tell subscribed clients that these resources changed (`notifications/resources/updated`). */
  changed(...uris: string[]): void;
  /** Report progress of long work; a no-op when the client sent no progress token. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Aborted when the client cancels the request or the server shuts down. */
  signal: AbortSignal;
  /**
   * The root URIs the client offers (`file:///home/ana/project`), asked of the client at each call;
   * undefined when the client does not declare the roots capability.
   */
  roots(): Promise<string[] | undefined>;
}

export interface ToolDefinition<I extends Shape = Shape, O extends Shape = Shape, Deps = any> {
  /** snake_case, verb first, unique across all Shipyard servers. */
  name: string;
  /**
   * What hosts show for the tool. Leave it out only where it would say the name in words: hosts show the name
   * then, and tools/list is the shorter for it (a server's contract test names such tools `untitled`).
   */
  title?: string;
  /** What it does, its inputs, what it returns and when to use it (see the lint rules). */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /**
   * Names other tools give an argument of this one (`tags` for `labels`): an unknown argument so named is
   * answered with "did you mean", as a near name is. Not accepted in its place, and not in tools/list.
   */
  aliases?: Readonly<Partial<Record<string, keyof I & string>>>;
  /**
   * What to tell a caller who passes an argument this tool does not take, by the argument's name, where the
   * hint core would give (the other tools that take an argument so named) sends them the wrong way: a
   * `comment` given to an update tool belongs to the comment tool, whose argument is named otherwise, and
   * not to the status tool that also takes one. One sentence each, naming the tool to call or saying why it
   * cannot be done. Keys in lower case; an argument matches in any case, as an alias does. A key the tool
   * takes is a mistake in the definition, refused at start-up.
   */
  elsewhere?: Readonly<Record<string, string>>;
  /** The tool may attach images to its answer: the handler returns `withImages(structured, images)`. */
  images?: boolean;
  handler(
    input: Infer<I>,
    ctx: ToolContext<Deps>,
  ): ToolAnswer<InferInput<O>> | Promise<ToolAnswer<InferInput<O>>>;
}

/** What a handler returns: the structured content, or it with images (`withImages`, for `images: true`). */
export type ToolAnswer<T> = T | WithImages<T>;

/** A tool of any shapes, as the runtime holds them. */
export type AnyTool = ToolDefinition<any, any, unknown>;

/**
 * Completion values: all of them (core sends the first 100 and counts the rest), or the first ones with the
 * count of all, for a completer that stops early.
 */
export type Completion = string[] | { values: string[]; total: number };

export type CompleteFn<Deps> = (
  value: string,
  ctx: BaseContext<Deps> & { arguments: Record<string, string> },
) => Completion | Promise<Completion>;

export interface VariableDefinition<Deps> {
  description: string;
  /** Values that start with (or contain) what the user typed; core caps the answer at 100. */
  complete?: CompleteFn<Deps>;
}

export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceDefinition<Deps = any> {
  /** A static URI (`tickets://projects`) or an RFC 6570 template (`tickets://{key}`). */
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType: string;
  /** `read` returns bytes (a Uint8Array or Buffer), sent base64 as `blob`; `mimeType` says what they are. */
  binary?: boolean;
  /** One entry per template variable: its description and completion. */
  variables?: Record<string, VariableDefinition<Deps>>;
  /** Concrete resources a template expands to, for resources/list (keep it bounded). */
  list?(ctx: BaseContext<Deps>): ResourceListing[] | Promise<ResourceListing[]>;
  /**
   * Return text, text with its own MIME type ({@link ResourceText}, for a template whose resources differ in
   * type), or a value that core serialises as compact JSON; bytes for a `binary` resource. Throw NotFound
   * when missing.
   */
  read(params: Record<string, string>, ctx: BaseContext<Deps> & { uri: string }): unknown;
  /**
   * For a template whose variables have several spellings of one resource (`ship-2`, `SHIP-2`): the one
   * spelling, so a subscription under any of them hears of changes announced under the canonical URI.
   */
  canonical?(params: Record<string, string>): Record<string, string>;
}

/** Resource text whose MIME type is its own rather than the definition's (a snippet's language). */
export class ResourceText {
  constructor(
    readonly text: string,
    readonly mimeType: string,
  ) {}
}

export interface PromptArgument<Deps> {
  description: string;
  required?: boolean;
  complete?: CompleteFn<Deps>;
}

/**
 * One message of a prompt: text, or a resource of this server (a URI its resources answer), which the runtime
 * reads when the prompt is rendered and sends embedded, so a model sees it even in a host that does not let
 * it read resources.
 */
export type PromptMessageDefinition =
  | { role: 'user' | 'assistant'; text: string }
  | { role: 'user' | 'assistant'; resource: string };

export interface PromptDefinition<Deps = any> {
  /** kebab-case, e.g. `triage-ticket`. */
  name: string;
  title?: string;
  description: string;
  args: Record<string, PromptArgument<Deps>>;
  /**
   * The tools the workflow calls. The prompt is offered only while all of them are (not under --read-only
   * when one of them writes, nor when --tools leaves one out), so it never sends a model to a missing tool.
   * Lint checks the list against the tools the rendered text names.
   */
  uses?: readonly string[];
  /**
   * Check the arguments against the server's data before `messages` (an unknown key, a date that is not
   * one): throw InvalidInput or NotFound with a hint, which the client gets as -32602. Lint renders
   * `messages` with placeholder values and does not call it.
   */
  check?(args: Record<string, string>, ctx: BaseContext<Deps>): void | Promise<void>;
  /** The workflow; name the tools to call in backticks. A string is one user message. */
  messages(
    args: Record<string, string>,
    ctx: BaseContext<Deps>,
  ): string | PromptMessageDefinition[] | Promise<string | PromptMessageDefinition[]>;
}

export interface ServerDefinition<Deps = any> {
  /** Short name, e.g. `tickets`; used in logs and as the MCP implementation name `shipyard-<name>`. */
  name: string;
  version: string;
  title?: string;
  /**
   * Sent to the client at initialize: how the tools fit together. A function is given the names of the
   * tools this run offers (after --tools and --read-only), so it names no tool that is not there.
   */
  instructions?: string | ((offered: ReadonlySet<string>) => string);
  deps: Deps;
  tools: ToolDefinition<any, any, Deps>[];
  resources?: ResourceDefinition<Deps>[];
  prompts?: PromptDefinition<Deps>[];
  /**
   * Prepare what deps open lazily (the database), once, after the first client has initialized: the
   * `initialize` answer, which a host waits for at every session start, does not wait for it. Under
   * runServer an error here is logged and stops the server.
   */
  warmUp?(): void | Promise<void>;
  /** Release what deps hold (close the database). Called once on shutdown. */
  close?(): void | Promise<void>;
  /**
   * Watch for changes made outside this process (another process on the same data) and report the URIs
   * they touch through `changed`, which notifies the subscribers. Started when a client first subscribes
   * to something, stopped (by calling what it returns) when no subscription is left or on shutdown.
   * `changedAll` reports every subscribed URI as changed, for when changes may have been missed (a lost
   * connection to the database's notices, a notice too large to say which).
   */
  watch?(changed: (...uris: string[]) => void, changedAll: () => void): () => void;
  /**
   * Turn an error a handler threw that is not a ShipyardError into one the caller is told (a database lock
   * timeout into a Conflict to retry), logged as a warning; undefined leaves it an internal error.
   */
  mapError?(error: unknown): ShipyardError | undefined;
  /** Stores in PostgreSQL when given `--database-url`; without it, runServer refuses a database URL. */
  postgres?: boolean;
  /** Token budget for tools/list checked by the linter (default 3,500). */
  tokenBudget?: number;
  /** The server's own flags and environment variables, for the generated README (pass them to runServer too). */
  settings?: readonly ServerSetting[];
}

export function defineTool<I extends Shape, O extends Shape, Deps = any>(
  definition: ToolDefinition<I, O, Deps>,
): ToolDefinition<I, O, Deps> {
  return definition;
}

export function defineResource<Deps = any>(definition: ResourceDefinition<Deps>): ResourceDefinition<Deps> {
  return definition;
}

export function definePrompt<Deps = any>(definition: PromptDefinition<Deps>): PromptDefinition<Deps> {
  return definition;
}

export function defineServer<Deps>(definition: ServerDefinition<Deps>): ServerDefinition<Deps> {
  return definition;
}
