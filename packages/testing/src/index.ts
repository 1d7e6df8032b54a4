export type { Connected, ConnectOptions, SpawnOptions } from './connect.js';
export { connect, spawnServer } from './connect.js';
export type { ToolErrorBody } from './results.js';
export { callError, callOk, expectRpcError, expectToolError, expectToolOk } from './results.js';
