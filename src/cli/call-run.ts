import { readFileSync } from 'node:fs';
import { FactorlyError, messageOf } from '../kernel/base/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { PluginSource } from '../plugins/manifest.js';
import { parseCallArgs } from './call-args.js';

/**
 * `factorly call`, whether oclif started it or the launcher did without oclif: parses the tool's
 * params from argv, calls it through the pipeline, prints its output (or `--json`), and resolves
 * with the exit code (the tool's). A failure before the call (bad args, a config error) is one line
 * on stderr with its exit code, as every factorly command reports it.
 */
export async function runCall(argv: readonly string[], sources: readonly PluginSource[]): Promise<number> {
  let kernel: Kernel | undefined;
  try {
    const args = parseCallArgs(argv, () => readFileSync(0, 'utf8'));
    const { createKernel } = await import('../kernel/kernel.js');
    const { launchCacheDir } = await import('./launch-cache.js');
    kernel = await createKernel({ cwd: process.cwd(), configPath: args.configPath, plugins: sources, cacheDir: launchCacheDir(), need: { tool: args.tool } });
    for (const failed of kernel.plugins.failed) warn(`plugin ${failed.id} not loaded: ${failed.reason}`);
    const ownParams = kernel.registry.get(args.tool)?.parameters.some((spec) => spec.name === 'params') ?? false;
    const params = ownParams && args.jsonParams ? { ...args.flags, params: args.jsonParams } : args.params;
    const outcome = await kernel.pipeline.call({ tool: args.tool, params, iface: 'cli' });
    if (args.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
    else {
      process.stdout.write(outcome.output);
      if (outcome.diagnostics) process.stderr.write(outcome.diagnostics);
      if (outcome.error) process.stderr.write(`${outcome.error.replace(/\n$/, '')}\n`);
    }
    return outcome.exitCode === 0 && outcome.error ? 1 : outcome.exitCode;
  } catch (error) {
    process.stderr.write(`Error: ${messageOf(error)}\n`);
    if (!FactorlyError.isInstance(error) && process.env.FACTORLY_DEBUG) process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    return FactorlyError.isInstance(error) ? error.exitCode : 1;
  } finally {
    for (const failure of (await kernel?.stop()) ?? []) warn(`while stopping: ${failure}`);
  }
}

function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
