export type { BadInputCase, BadInputsSummary, CheckBadInputsOptions } from './badInputs.js';
export { badInputs, badValues, checkBadInputs } from './badInputs.js';
export { backupWithoutDataFile, loadsPostgresDriver } from './bin.js';
export type { Connected, ConnectOptions, HttpServerProcess, SpawnOptions } from './connect.js';
export { connect, connectHttp, spawnHttpServer, spawnServer, watchResourceUpdates } from './connect.js';
export type { ContractExpectation, ContractOptions } from './contract.js';
export { assertContract, snapshotToolSchemas } from './contract.js';
export type { CrashRound, CrashSafetyAdapter, CrashSafetyOptions } from './crashSafety.js';
export { checkCrashSafety, crashSafetyTitle } from './crashSafety.js';
export type { CrashItem, RecoveryState, StoredItem } from './recovery.js';
export { recoveryProblems } from './recovery.js';
export type { ToolErrorBody } from './results.js';
export {
  callAllPages,
  callError,
  callOk,
  expectRpcError,
  expectToolError,
  expectToolOk,
  promptText,
  readText,
} from './results.js';
export type { BinRun } from './storage.js';
export { damageTable, pageLimitOptions, runBin, togglePageLimit, waitFor } from './storage.js';
