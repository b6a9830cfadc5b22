import type { Kernel } from '../kernel/kernel.js';
import type { PluginSource } from '../plugins/manifest.js';
import { CALL_SYNOPSIS, parseCallArgs, type CallArgs } from './call-args.js';
import { reportFailure, writeOutcome, writeWarning } from './person-output.js';
import { readStdinWhole } from './stdin.js';

/**
 * `factorly call`, whether oclif started it or the launcher did without oclif: parses the tool's
 * params from argv, calls it through the pipeline, prints its output (or `--json`), and resolves
 * with the exit code (the tool's). A failure before the call is reported as every factorly command
 * reports it: a bad argument with the usage line (exit 2), a config error in one line; under --json,
 * as a JSON error object.
 */
export async function runCall(argv: readonly string[], sources: readonly PluginSource[]): Promise<number> {
  let args: CallArgs;
  try {
    args = await parseCallArgs(argv, readStdinWhole);
  } catch (error) {
    // A mistake in the command line, reported as oclif's parse errors are: with the usage line.
    const usage = `factorly ${CALL_SYNOPSIS}`;
    return reportFailure(error, { json: argv.includes('--json'), usage, hint: 'See `factorly call --help`.' });
  }
  let kernel: Kernel | undefined;
  try {
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
    return reportFailure(error, { json: args.json });
  } finally {
    for (const failure of (await kernel?.stop()) ?? []) writeWarning(`while stopping: ${failure}`);
  }
}
