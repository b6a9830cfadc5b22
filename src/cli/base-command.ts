import { Command, Flags, Errors, toConfiguredId } from '@oclif/core';
import { FactorlyError } from '../base/errors.js';
import type { Kernel, KernelOptions } from '../kernel/kernel.js';
import type { PluginSource } from '../plugins/manifest.js';
import { writeLaunchCache } from './launch-cache.js';
import { readParseError, type CommandShape } from './parse-errors.js';
import { usePluginSources } from './project-log.js';
import { reportFailure, writeOutcome, writeWarning } from './person-output.js';
import { usageLine } from './usage-line.js';

/**
 * Shared behaviour of factorly commands: the `-c/--config` flag, a kernel built from oclif's plugin
 * list, one-line errors (never a stack trace) with the right exit code, and a clean stop.
 */
export abstract class FactorlyCommand extends Command {
  static baseFlags = {
    config: Flags.string({
      char: 'c',
      description: 'Config file to use instead of discovering one.',
      helpGroup: 'GLOBAL',
    }),
  };

  private kernelInstance?: Kernel;

  async init(): Promise<void> {
    await super.init();
    usePluginSources(() => this.pluginSources());
    // oclif fills an argument left out from stdin, read for 10 ms: it takes a piped value trimmed,
    // or loses what came before it gave up (a slow producer). Whatever reads stdin (`vault set`'s
    // value, `call --x -`) reads it itself, whole.
    for (const arg of Object.values(this.ctor.args ?? {})) arg.ignoreStdin = true;
  }

  /** Builds the kernel lazily (it imports LMDB, YAML and the plugins: keep `--version` fast). */
  protected async kernel(configPath: string | undefined, extra: Partial<KernelOptions> = {}): Promise<Kernel> {
    const { createKernel } = await import('../kernel/kernel.js');
    const { lateHostServices } = await import('./host-services.js');
    const { HostTokens } = await import('../plugins/plugin-tokens.js');
    const host = lateHostServices();
    this.kernelInstance = await createKernel({
      cwd: process.cwd(),
      configPath,
      plugins: this.pluginSources(),
      hostTokens: [[HostTokens.Services, host.services]],
      ...extra,
    });
    host.bind(this.kernelInstance);
    for (const failed of this.kernelInstance.plugins.failed)
      this.warnLine(`plugin ${failed.id} not loaded: ${failed.reason}`);
    return this.kernelInstance;
  }

  /**
   * Packages oclif knows about (core, installed, linked) that may carry a factorly plugin. Recorded
   * for the launcher, so the next `factorly call` can start without loading oclif.
   */
  protected pluginSources(): PluginSource[] {
    const sources = this.config.getPluginsList().map((plugin): PluginSource => ({
      name: plugin.name,
      version: plugin.version,
      root: plugin.root,
      kind: plugin.type === 'user' || plugin.type === 'link' ? plugin.type : 'core',
      manifest: (plugin.pjson as { factorly?: unknown }).factorly,
    }));
    writeLaunchCache(sources, this.config.cacheDir, this.config.dataDir, this.config.root);
    return sources;
  }

  protected warnLine(message: string): void {
    writeWarning(message);
  }

  /** A tool's result for a person (see `writeOutcome`). */
  protected writeOutcome(outcome: { output: string; diagnostics?: string; error?: string }): void {
    writeOutcome(outcome);
  }

  protected writeJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  async catch(error: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (error instanceof Errors.ExitError) throw error;
    const json = this.wantsJson();
    const parseError = readParseError(error, this.shape());
    if (parseError) {
      const command = this.id === undefined ? undefined : this.config.findCommand(this.id);
      const usage = command && usageLine(command, this.config);
      const hint = command && `See \`${this.config.bin} ${toConfiguredId(command.id, this.config)} --help\`.`;
      this.exit(reportFailure(parseError, { json, usage, hint }));
    }
    // Another oclif error (a command of @oclif/plugin-plugins): its first line, with its exit code.
    if (error.oclif?.exit !== undefined && !FactorlyError.isInstance(error)) {
      reportFailure(firstLine(error.message), { json });
      this.exit(error.oclif.exit);
    }
    this.exit(reportFailure(error, { json }));
  }

  /** The command was asked for JSON: `--json` before any `--`, on a command that has the flag. */
  private wantsJson(): boolean {
    if (!('json' in (this.ctor.flags ?? {}))) return false;
    const end = this.argv.indexOf('--');
    return (end < 0 ? this.argv : this.argv.slice(0, end)).includes('--json');
  }

  private shape(): CommandShape {
    return { id: this.id ?? '', flags: { ...this.ctor.baseFlags, ...this.ctor.flags }, args: this.ctor.args ?? {} };
  }

  async finally(error: Error | undefined): Promise<void> {
    const failures = (await this.kernelInstance?.stop()) ?? [];
    for (const failure of failures) this.warnLine(`while stopping: ${failure}`);
    await super.finally(error);
  }
}

function firstLine(message: string): string {
  return (
    message
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? message
  );
}
