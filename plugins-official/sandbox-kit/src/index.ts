// Shared parts of factorly's script engines. Named exports only.
export { GUEST_PRELUDE, RUN_EPILOGUE } from './prelude.js';
export { formatDiagnostic, MAX_SOURCE_CHARS, prepareSource } from './prepare-source.js';
export type { PreparedSource } from './prepare-source.js';
export { ProcessPool } from './process-pool.js';
export type { PoolOptions } from './process-pool.js';
export { childEntry, dependencyVersion, ProcessEngine } from './process-engine.js';
export type { GuestOutcome } from './protocol.js';
