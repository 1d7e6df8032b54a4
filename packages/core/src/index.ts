export { z } from 'zod';
export type { ServerConfig, ServerSetting, TransportKind } from './config.js';
export {
  asShown,
  BIDI_CONTROLS,
  DEFAULT_HOST,
  DEFAULT_PORT,
  MAX_NAME_CHARS,
  parseConfig,
  personName,
  UsageError,
} from './config.js';
export { SETTINGS, settingRow } from './config-help.js';
export type {
  BaseContext,
  CompleteFn,
  Completion,
  Infer,
  PromptArgument,
  PromptDefinition,
  PromptMessageDefinition,
  ResourceDefinition,
  ResourceListing,
  ServerDefinition,
  Shape,
  ToolAnnotations,
  ToolAnswer,
  ToolContext,
  ToolDefinition,
  VariableDefinition,
} from './define.js';
export { definePrompt, defineResource, defineServer, defineTool, ResourceText } from './define.js';
export type { Definers } from './define-for.js';
export { defineFor } from './define-for.js';
export type { ErrorCode, ErrorOptions } from './errors.js';
export {
  Conflict,
  Forbidden,
  InvalidInput,
  isShipyardError,
  NotFound,
  ShipyardError,
  Upstream,
} from './errors.js';
export type { ErrorMapper } from './faults.js';
export type { HttpHandle, HttpOptions } from './http.js';
export type { ToolImage, WithImages } from './images.js';
export { withImages } from './images.js';
export type { Logger, LogLevel } from './logger.js';
export { createLogger } from './logger.js';
export type { Page, PageRequest, PageWindow, SortKey } from './pagination.js';
export {
  badCursor,
  DEFAULT_LIMIT,
  decodeCursor,
  encodeCursor,
  MAX_LIMIT,
  pageWindow,
  paginate,
  paginationInput,
  paginationOutput,
  toPage,
} from './pagination.js';
export type {
  BackupData,
  BackupRequest,
  DataFileRequest,
  RunningServer,
  RunOptions,
  ServerFactory,
} from './run.js';
export { runServer, startHttp } from './run.js';
export type { RuntimeOptions } from './runtime.js';
export { ConfigError, RESOURCE_NOT_FOUND, RpcError, Runtime } from './runtime.js';
export { listedByType, listedWithoutBounds, shapeToJsonSchema } from './schema.js';
export { named, quoteText } from './validation.js';
