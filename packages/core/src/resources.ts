import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type BaseContext, type ResourceDefinition, ResourceText } from './define.js';
import { isShipyardError, NotFound } from './errors.js';
import { type Faults, RESOURCE_NOT_FOUND, RpcError, withHint } from './faults.js';
import { base64 } from './images.js';
import { named } from './validation.js';

/** A resource URI longer than this is refused before any template sees it (the usual URL limit). */
const MAX_URI_CHARS = 2_048;
/** Subscriptions one session may hold, counting each spelling: each is kept in memory until unsubscribed. */
export const MAX_SUBSCRIPTIONS = 1_000;

/** Subscribed URIs as the client spelt them, by their canonical form (see {@link Resources.canonicalUri}). */
export type Subscriptions = Map<string, Set<string>>;

interface CompiledResource {
  def: ResourceDefinition<unknown>;
  template: UriTemplate | undefined;
  /** The template with its one variable matching any text; see {@link looseTemplate}. */
  loose: LooseTemplate | undefined;
  /** For a template ending in a query expression (`{?offset,limit}`), see {@link queryTemplate}. */
  query: QueryTemplate | undefined;
}

interface QueryTemplate {
  path: UriTemplate;
  names: string[];
}

/**
 * A template ending in `{?a,b}` as its path template and query names. RFC 6570 matching (the SDK's) takes a
 * URI only with every query variable, in order; a read may give some, none, or them in any order.
 */
function queryTemplate(uri: string): QueryTemplate | undefined {
  const query = /\{\?([\w,]+)\}$/.exec(uri);
  if (!query) return undefined;
  return { path: new UriTemplate(uri.slice(0, query.index)), names: (query[1] ?? '').split(',') };
}

interface LooseTemplate {
  pattern: RegExp;
  name: string;
}

type Match = { resource: CompiledResource; params: Record<string, string> };

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

/** A URI against a query template: the path's variables, and those of the query it names (others ignored). */
function matchQuery(
  template: QueryTemplate | undefined,
  uri: string,
): Record<string, string | string[]> | null {
  if (!template) return null;
  const cut = uri.indexOf('?');
  const vars = template.path.match(cut < 0 ? uri : uri.slice(0, cut));
  if (!vars || uri.includes('#')) return null;
  const search = new URLSearchParams(cut < 0 ? '' : uri.slice(cut + 1));
  for (const name of template.names) {
    const value = search.get(name);
    if (value !== null) vars[name] = value;
  }
  return vars;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The definition's resources: listing, templates, matching, reads, canonical URIs and subscriptions. */
export class Resources {
  private readonly resources: CompiledResource[];

  constructor(
    definitions: readonly ResourceDefinition<unknown>[],
    private readonly scope: { faults: Faults; base(): BaseContext<unknown> },
  ) {
    this.resources = definitions.map((def) => ({
      def,
      template: UriTemplate.isTemplate(def.uri) ? new UriTemplate(def.uri) : undefined,
      loose: looseTemplate(def.uri),
      query: queryTemplate(def.uri),
    }));
  }

  async list() {
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
        for (const entry of await def.list(this.scope.base())) {
          resources.push({ mimeType: def.mimeType, ...entry });
        }
      }
    }
    return { resources };
  }

  templates() {
    return {
      resourceTemplates: this.resources
        .filter((r) => r.template)
        .map(({ def }) => ({
          uriTemplate: def.uri,
          name: def.name,
          ...(def.title ? { title: def.title } : {}),
          description: def.description,
          mimeType: def.mimeType,
        })),
    };
  }

  /** The resource whose URI or template is exactly `uri` (a completion's ref), if any. */
  byUri(uri: string): ResourceDefinition<unknown> | undefined {
    return this.resources.find((r) => r.def.uri === uri)?.def;
  }

  /** The URIs of the templates. */
  templateUris(): string[] {
    return this.resources.filter((r) => r.template).map((r) => r.def.uri);
  }

  async read(uri: string) {
    this.refuseQuery(uri);
    const match = this.match(uri, { loose: true });
    try {
      return { contents: [await this.contents(uri, match)] };
    } catch (error) {
      // The hint goes with the message: a resource error has no other field a model is sure to see.
      if (error instanceof NotFound) throw new RpcError(RESOURCE_NOT_FOUND, withHint(error), { uri });
      if (isShipyardError(error)) throw new RpcError(ErrorCode.InvalidParams, withHint(error), { uri });
      const safe = this.scope.faults.internal(`resource ${match.resource.def.name}`, error);
      throw new RpcError(ErrorCode.InternalError, safe.message);
    }
  }

  /** A resource's contents as resources/read answers them; errors as the resource's read throws them. */
  async contents(uri: string, { resource, params }: Match = this.match(uri, { loose: true })) {
    const { def } = resource;
    const value = await def.read(params, Object.assign(this.scope.base(), { uri }));
    // A read that returns the other kind is a bug in the server, answered as an internal error.
    if (def.binary) {
      if (!(value instanceof Uint8Array)) {
        throw new Error(
          `binary resource ${def.name} read ${typeof value === 'string' ? 'text' : typeof value}, not bytes`,
        );
      }
      return { uri, mimeType: def.mimeType, blob: base64(value) };
    }
    if (value instanceof Uint8Array) {
      throw new Error(`resource ${def.name} read bytes, but its definition does not declare binary: true`);
    }
    if (value instanceof ResourceText) return { uri, mimeType: value.mimeType, text: value.text };
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return { uri, mimeType: def.mimeType, text };
  }

  /**
   * Keep a subscription, under the resource's canonical URI. Synchronous up to the subscription kept: a
   * request sent right after it (an unsubscribe, a change) is handled after it, as sent. Only a refusal
   * waits, for the read that explains it.
   */
  subscribe(subscriptions: Subscriptions, uri: string): Promise<never> | undefined {
    this.refuseQuery(uri, 'subscribe to');
    let canonical: string;
    try {
      canonical = this.canonicalUri(uri);
    } catch (error) {
      return this.refusedSubscription(uri, error);
    }
    const spellings = subscriptions.get(canonical) ?? new Set();
    let held = 0;
    for (const set of subscriptions.values()) held += set.size;
    if (!spellings.has(uri) && held >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `This session holds ${held} subscriptions, the most it may; unsubscribe from some first`,
      );
    }
    subscriptions.set(canonical, spellings.add(uri));
    return undefined;
  }

  /** Unsubscribing under any spelling ends the subscription to the resource, whatever spellings it had. */
  /**
   * Tell every session subscribed to one of these URIs (once per URI, under each spelling the client
   * subscribed with: `tickets://ship-2` hears of `tickets://SHIP-2`). Never throws.
   */
  notify(
    sessions: readonly { server: Server; subscriptions: Subscriptions }[],
    uris: readonly string[],
    failed: (uri: string, error: unknown) => void,
  ): void {
    const watched = sessions.filter((session) => session.subscriptions.size > 0);
    if (watched.length === 0) return;
    for (const canonical of new Set(uris.map((uri) => this.canonicalUriOr(uri)))) {
      for (const session of watched) {
        for (const uri of session.subscriptions.get(canonical) ?? []) {
          session.server.sendResourceUpdated({ uri }).catch((error: unknown) => failed(uri, error));
        }
      }
    }
  }

  unsubscribe(subscriptions: Subscriptions, uri: string): void {
    subscriptions.delete(this.canonicalUriOr(uri));
  }

  /** {@link canonicalUri}, or the URI itself when no resource matches it. */
  canonicalUriOr(uri: string): string {
    try {
      return this.canonicalUri(uri);
    } catch {
      return uri;
    }
  }

  /**
   * The one spelling of a resource URI that subscriptions are kept and matched under: the template expanded
   * with the resource's `canonical` variables (e.g. keys upper-cased), or the URI itself. -32002 when no
   * resource matches.
   */
  private canonicalUri(uri: string): string {
    const { resource, params } = this.match(uri);
    if (!resource.template || !resource.def.canonical) return uri;
    return resource.template.expand(resource.def.canonical(params));
  }

  /**
   * The refusal of a subscription whose URI {@link canonicalUri} refused with `error`. Where no template takes
   * the URI as it stands but a read would (a value with a `/`), the -32002 carries the resource's own answer
   * to that read, which says what was meant; a read that succeeds or fails otherwise leaves `error` (such a
   * spelling never changes: there is nothing to subscribe to), a fault in the read logged.
   */
  private async refusedSubscription(uri: string, error: unknown): Promise<never> {
    if (!(error instanceof RpcError) || error.code !== RESOURCE_NOT_FOUND) throw error;
    let match: Match;
    try {
      match = this.match(uri, { loose: true });
    } catch {
      throw error;
    }
    try {
      await this.contents(uri, match);
    } catch (refusal) {
      if (isShipyardError(refusal)) throw new RpcError(RESOURCE_NOT_FOUND, withHint(refusal), { uri });
      // A fault in the read: logged as a read's is, and not told.
      this.scope.faults.internal(`resource ${match.resource.def.name}`, refusal);
    }
    throw error;
  }

  /**
   * The resource a URI names and its variables; `loose` (for a read) also tries each template's
   * {@link looseTemplate}. A subscription is matched strictly: a value no template takes never changes.
   */
  private match(uri: string, { loose = false } = {}): Match {
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
      const vars = resource.template.match(uri) ?? matchQuery(resource.query, uri);
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
      this.match(bare);
    } catch {
      return;
    }
    throw new RpcError(
      RESOURCE_NOT_FOUND,
      `This server's resource URIs take no query or fragment: ${verb} ${named(bare)}`,
      { uri },
    );
  }
}
