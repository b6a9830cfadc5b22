import { FactorlyError } from '@factorly/error-kit';
import type { PreparedDefinition, ToolDefinition } from 'factorly';

export const CODE_KEYS = ['code', 'code_file', 'engine', 'memory_mb'] as const;
/** `code_file: scripts/report.js`: the loader reads the script from that file (beside the YAML, in the project) into `code`. */
export const CODE_FILE_KEYS = { code_file: 'code' } as const;

export const DEFAULT_MEMORY_MB = 64;
export const DEFAULT_ENGINE = 'quickjs';

export interface CodeSpec {
  engine?: string;
  memoryBytes: number;
}

export function readCodeSpec(tool: ToolDefinition): CodeSpec {
  const { engine, memory_mb: memoryMb } = tool.spec as { engine?: string; memory_mb?: number };
  return { engine, memoryBytes: (memoryMb ?? DEFAULT_MEMORY_MB) * 1024 * 1024 };
}

export function checkCodeSpec(tool: ToolDefinition, engines: readonly string[]): PreparedDefinition {
  const problems: string[] = [];
  const { code, code_file: codeFile, engine, memory_mb: memoryMb, builtin } = tool.spec;
  // The factorly.code built-in gets its script as a param, not from the config; a code_file the
  // loader could not read was reported by the loader.
  if (builtin === undefined && codeFile === undefined && (typeof code !== 'string' || code.trim() === ''))
    problems.push(
      'needs `code:` with the script, or `code_file:` naming a file that holds it (it must declare `async function run(params)`)',
    );
  if (engine !== undefined && (typeof engine !== 'string' || !engines.includes(engine))) {
    problems.push(
      `engine ${JSON.stringify(engine)} is not installed; installed engines: ${engines.join(', ') || 'none'}`,
    );
  }
  if (memoryMb !== undefined && !(typeof memoryMb === 'number' && memoryMb >= 1 && memoryMb <= 4096))
    problems.push('memory_mb must be a number of MiB from 1 to 4096');
  return { problems };
}

/**
 * The project-wide engine from the config's `defaults: {engine: ses}` block (its shape checked by
 * the plugin's schema), checked against the installed engines; throws a config error naming the mistake.
 */
export function readDefaultEngine(defaults: unknown, engines: readonly string[]): string | undefined {
  if (defaults === undefined || defaults === null) return undefined;
  const { engine } = defaults as { engine?: unknown };
  if (engine === undefined) return undefined;
  if (typeof engine !== 'string' || !engines.includes(engine)) {
    throw new FactorlyError(
      'CONFIG_INVALID',
      `config: defaults.engine ${JSON.stringify(engine)} is not installed; installed engines: ${engines.join(', ') || 'none'}`,
    );
  }
  return engine;
}
