// What a file in tooling/bench/scenarios/<server>.ts exports (default export): how to bench one server.

/** A tools/call request. */
export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface SeedContext {
  /** The scenario's data dir, passed to the server as --data-dir. */
  dataDir: string;
  /** The repository root. */
  root: string;
  /** True under --smoke: seed a small amount, the harness is only being checked. */
  smoke: boolean;
}

export interface PostgresSeedContext {
  /** The scenario's own fresh database (it may hold a password: never print it). */
  databaseUrl: string;
  /** The repository root. */
  root: string;
  /** True under --smoke: seed a small amount. */
  smoke: boolean;
}

/** An in-process reference timed against the server's calls, e.g. the same query as a plain SQL scan. */
export interface Reference {
  label: string;
  /** Called once the data dir is seeded; `run` is timed once per server call, with that call. */
  open(context: SeedContext): { run(call: ToolCall): unknown; close(): void };
}

export interface Scenario {
  /** The row's label in the results, e.g. '`create_ticket`'. */
  name: string;
  /** Fills the scenario's own data dir before the server starts on it. */
  seed?(context: SeedContext): void | Promise<void>;
  /**
   * Fills the scenario's fresh PostgreSQL database before the server starts on it (with --database-url).
   * A scenario with `seed` but without this one is skipped on PostgreSQL.
   */
  seedPostgres?(context: PostgresSeedContext): Promise<void>;
  /** Calls made once, untimed, after the server starts (e.g. create the project tickets go into). */
  setup?: ToolCall[];
  /** The timed calls, taken in turn. A call that fails stops the bench: a broken call is never timed. */
  calls: ToolCall[];
  /** What the calls are compared with. Default: the baseline server's echo over stdio. */
  reference?: Reference;
  /** Timed calls per side; default --calls. For slow references such as a full scan. */
  runs?: number;
  /** The p50 ratio the server aims for; printed beside the figure, never asserted. */
  target?: number;
}

/** Calls per second over HTTP, on PostgreSQL, with one replica and with two on the same database. */
export interface Throughput {
  /** The row's label, e.g. '`get_ticket`'. */
  name: string;
  /** Calls made once, untimed, through the first session (e.g. create the ticket the clients read). */
  setup?: ToolCall[];
  /** The call every client repeats; a function gets the setup calls' results (e.g. to read an id). */
  call: ToolCall | ((setupResults: unknown[]) => ToolCall);
}

export interface ServerBench {
  /** The cold-start ratio the server aims for; printed, never asserted. */
  coldStartTarget?: number;
  scenarios: Scenario[];
  /** Measured only with --database-url. */
  throughput?: Throughput;
}

/** Identity, for types: `export default defineBench({ ... })`. */
export const defineBench = (bench: ServerBench): ServerBench => bench;
