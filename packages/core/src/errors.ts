/**
 * Errors a tool can throw on purpose. Core turns each into an `isError` tool result whose text is
 * compact JSON `{"error":{"code","message","hint"?}}`: a stable `code` a client can branch on, a message a
 * model can act on, and an optional hint naming the tool to call next.
 */
export type ErrorCode = 'not_found' | 'invalid_input' | 'conflict' | 'forbidden' | 'upstream' | 'internal';

export interface ErrorOptions {
  /** What to do next, e.g. "Call search_tickets to find the key". */
  hint?: string;
  /** Extra machine-readable facts (allowed values, current version…). Never secrets or internals. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ShipyardError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toJSON(): { code: ErrorCode; message: string; hint?: string; details?: Record<string, unknown> } {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** The thing asked for does not exist (unknown key, id, project). */
export class NotFound extends ShipyardError {
  constructor(message: string, options?: ErrorOptions) {
    super('not_found', message, options);
  }
}

/** The arguments are well-typed but not acceptable (bad transition, self-link, bad cursor). */
export class InvalidInput extends ShipyardError {
  constructor(message: string, options?: ErrorOptions) {
    super('invalid_input', message, options);
  }
}

/** The change collides with the current state (stale expected_version, duplicate key). */
export class Conflict extends ShipyardError {
  constructor(message: string, options?: ErrorOptions) {
    super('conflict', message, options);
  }
}

/** The caller may not do this here (read-only mode, missing permission). */
export class Forbidden extends ShipyardError {
  constructor(message: string, options?: ErrorOptions) {
    super('forbidden', message, options);
  }
}

/** A service the server depends on failed or timed out. */
export class Upstream extends ShipyardError {
  constructor(message: string, options?: ErrorOptions) {
    super('upstream', message, options);
  }
}

export function isShipyardError(error: unknown): error is ShipyardError {
  return error instanceof ShipyardError;
}
