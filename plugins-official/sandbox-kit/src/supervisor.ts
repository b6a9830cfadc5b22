// The host side of an engine: a SandboxEngine whose guest runs in supervised, killable child processes.
export { ProcessPool } from './process-pool.js';
export type { PoolOptions } from './process-pool.js';
export { childEntry, dependencyVersion, ProcessEngine } from './process-engine.js';
export type { GuestOutcome } from './protocol.js';
