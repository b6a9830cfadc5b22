import { internalError } from '@factorly/error-kit';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type {
  CompiledScript,
  CompileResult,
  JsonValue,
  SandboxBudget,
  SandboxEngine,
  SandboxHost,
  SandboxRunResult,
} from 'factorly';
import { RUN_EPILOGUE } from './prelude.js';
import { prepareSource } from './prepare-source.js';
import { ProcessPool, type PoolOptions } from './process-pool.js';

/**
 * A `SandboxEngine` whose guest runs in supervised child processes. Compilation is a host-side
 * check shared by all engines (same programs accepted, same locations); the child script decides
 * which JavaScript engine runs them.
 */
export class ProcessEngine implements SandboxEngine {
  private pool?: ProcessPool;

  constructor(
    readonly name: string,
    private readonly poolOptions: Omit<PoolOptions, 'name'>,
    /** What runs scripts, as recorded with each run (`@jitl/quickjs-wasmfile-release-sync 0.32.0`). */
    readonly version?: string,
  ) {}

  compile(source: string): CompileResult {
    const prepared = prepareSource(source);
    if (!prepared.ok) return prepared;
    const script: CompiledScript = { engine: this.name, sourceSha: prepared.sha, body: prepared.text + RUN_EPILOGUE };
    return { ok: true, script };
  }

  run(script: CompiledScript, params: JsonValue, host: SandboxHost, budget: SandboxBudget): Promise<SandboxRunResult> {
    return this.thePool().run(String(script.body), params, host, budget);
  }

  /** Starts a child now: the first run takes it, started or still starting. */
  warm(): void {
    this.thePool().warm();
  }

  private thePool(): ProcessPool {
    this.pool ??= new ProcessPool({ name: this.name, ...this.poolOptions });
    return this.pool;
  }

  async stop(): Promise<void> {
    await this.pool?.stop();
    this.pool = undefined;
  }
}

/**
 * The compiled child entry of an engine package: `dist/src/<file>` under the package root, whether
 * the caller runs from `dist/` (installed) or from `src/` (tests load TypeScript sources).
 */
export function childEntry(moduleDir: string, file: string): string {
  let dir = moduleDir;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw internalError(`no package.json above ${moduleDir}`);
    dir = parent;
  }
  return join(dir, 'dist', 'src', file);
}

/**
 * `<package> <version>` of a dependency as installed, found the way Node resolves it (the nearest
 * `node_modules/<package>` above `moduleDir`), for an engine's `version`.
 */
export function dependencyVersion(moduleDir: string, name: string): string {
  for (let dir = moduleDir; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest))
      return `${name} ${(JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version}`;
    if (dirname(dir) === dir) return `${name} (version unknown)`;
  }
}
