import { readFileSync } from 'node:fs';
import type { Kernel } from '../kernel/kernel.js';
import type { PluginSource } from '../plugins/manifest.js';
import { FactorlyError } from '../kernel/base/errors.js';
import { CALL_SYNOPSIS, parseCallArgs } from './call-args.js';
import { reportFailure, writeOutcome, writeWarning } from './person-output.js';

/**
 * `factorly call`, whether oclif started it or the launcher did without oclif: parses the tool's
 * params from argv, calls it through the pipeline, prints its output (or `--json`), and resolves
 * with the exit code (the tool's). A failure before the call (bad args, a config error) is one line
 * on stderr with its exit code, as every factorly command reports it.
 */
export async function runCall(argv: readonly string[], sources: readonly PluginSource[]): Promise<number> {
  let kernel: Kernel | undefined;
  // A failure before --json is parsed (a bad argument) still answers in JSON when it was asked for.
  let json = argv.includes('--json');
  try {
    const args = parseCallArgs(argv, () => readFileSync(0, 'utf8'));
    json = args.json;
    const { createKernel } = await import('../kernel/kernel.js');
    const { launchCacheDir } = await import('./launch-cache.js');
    kernel = await createKernel({
      cwd: process.cwd(),
      configPath: args.configPath,
      plugins: sources,
      cacheDir: launchCacheDir(),
      need: { tool: args.tool },
    });
    for (const failed of kernel.plugins.failed) writeWarning(`plugin ${failed.id} not loaded: ${failed.reason}`);
    const ownParams = kernel.registry.get(args.tool)?.parameters.some((spec) => spec.name === 'params') ?? false;
    const params = ownParams && args.jsonParams ? { ...args.flags, params: args.jsonParams } : args.params;
    const outcome = await kernel.pipeline.call({ tool: args.tool, params, iface: 'cli' });
    if (args.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
    else writeOutcome(outcome);
    return outcome.exitCode === 0 && outcome.error ? 1 : outcome.exitCode;
  } catch (error) {
    if (!FactorlyError.isInstance(error) || error.code !== 'USAGE') return reportFailure(error, { json });
    return reportFailure(error, { json, usage: `factorly ${CALL_SYNOPSIS}`, hint: 'See `factorly call --help`.' });
  } finally {
    for (const failure of (await kernel?.stop()) ?? []) writeWarning(`while stopping: ${failure}`);
  }
}
