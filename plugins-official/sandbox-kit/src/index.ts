// Shared parts of factorly's script engines, all in one import. Named exports only; each group is
// also its own entry point: ./supervisor (host side), ./child (child side), ./prelude, ./source.
export { GUEST_PRELUDE, RUN_EPILOGUE } from './prelude.js';
export { formatDiagnostic, MAX_SOURCE_CHARS, prepareSource } from './prepare-source.js';
export type { PreparedSource } from './prepare-source.js';
export * from './supervisor.js';
