import type { JsonValue } from '../events/catalog.js';

/** A place in the user's source (1-based line, 1-based column). */
export interface SourceDiagnostic {
  message: string;
  line: number;
  column: number;
}

/** A script an engine accepted. Opaque to callers except for the digest of the user's source. */
export interface CompiledScript {
  readonly engine: string;
  /** sha256 (hex) of the source as the user wrote it. */
  readonly sourceSha: string;
  /** Engine-private form (prepared text, bytecode, ...). */
  readonly body: unknown;
}

export type CompileResult = { ok: true; script: CompiledScript } | { ok: false; diagnostics: SourceDiagnostic[] };

/**
 * The only way out of a sandbox. The guest names a host function and passes JSON; the host answers
 * with JSON or throws (the guest sees a rejected promise carrying the message).
 */
export interface SandboxHost {
  call(fn: string, args: JsonValue): Promise<JsonValue>;
}

export interface SandboxBudget {
  /** Wall-clock limit for the whole run; the run is stopped, not asked to stop. */
  timeoutMs: number;
  /** Memory the guest may use on top of the engine's own footprint. */
  memoryBytes: number;
  /** Console output kept; the rest is dropped with a marker. */
  maxLogBytes?: number;
  /**
   * Aborts when the caller gives up (an agent cancelled the call): the run is stopped as on a
   * timeout. An abort whose reason is a `TimeoutError` is left to the engine's own deadline.
   */
  signal?: AbortSignal;
  /**
   * The run was started by another run that waits for it (a script calling a code tool). An
   * engine that caps its workers must not queue it behind that cap: the waiting run holds a worker,
   * so a tree of nested scripts (or several trees at once) would wait on itself forever.
   */
  nested?: boolean;
}

export interface SandboxUsage {
  durationMs: number;
  hostCalls: number;
  /** Peak memory the run was seen to use, when the engine can tell. */
  memoryBytes?: number;
}

/**
 * The outcome of one run. exitCode 0: `value` is what `run(params)` resolved to (JSON).
 * 1: the script threw (`error` is its message). 2: the run was stopped or crashed (timeout,
 * out of memory, engine failure; `error` says which).
 */
export interface SandboxRunResult {
  value?: JsonValue;
  logs: string[];
  error?: string;
  exitCode: 0 | 1 | 2;
  usage: SandboxUsage;
}

/**
 * A JavaScript engine for scripts (`async function run(params)`). Implementations must run guest
 * code out of the host's thread under a supervisor that can always stop it, and give the guest no
 * ambient authority: the host functions are its only way out.
 */
export interface SandboxEngine {
  readonly name: string;
  /** What exactly runs scripts (the engine build, its runtime), recorded with every run. */
  readonly version?: string;
  compile(source: string): CompileResult;
  run(script: CompiledScript, params: JsonValue, host: SandboxHost, budget: SandboxBudget): Promise<SandboxRunResult>;
  /**
   * A run is expected soon: start now what the first one needs (a process, an engine instance), so
   * it is ready, or nearly, when the run comes. A hint; nothing may depend on it.
   */
  warm?(): void;
  /** Stops workers; called once when the kernel stops. */
  stop?(): Promise<void>;
}
