import { Command, Flags, Errors } from '@oclif/core';
import { FactorlyError, messageOf } from '../kernel/base/errors.js';
import { printableLine, printableText } from '../kernel/base/printable.js';
import type { Kernel, KernelOptions } from '../kernel/kernel.js';
import type { PluginSource } from '../plugins/manifest.js';

/**
 * Shared behaviour of factorly commands: the `-c/--config` flag, a kernel built from oclif's plugin
 * list, one-line errors (never a stack trace) with the right exit code, and a clean stop.
 */
export abstract class FactorlyCommand extends Command {
  static baseFlags = {
    config: Flags.string({ char: 'c', description: 'Config file to use instead of discovering one.', helpGroup: 'GLOBAL' }),
  };

  private kernelInstance?: Kernel;

  /** Builds the kernel lazily (it imports LMDB, YAML and the plugins: keep `--version` fast). */
  protected async kernel(configPath: string | undefined, extra: Partial<KernelOptions> = {}): Promise<Kernel> {
    const { createKernel } = await import('../kernel/kernel.js');
    this.kernelInstance = await createKernel({ cwd: process.cwd(), configPath, plugins: this.pluginSources(), ...extra });
    for (const failed of this.kernelInstance.plugins.failed) this.warnLine(`plugin ${failed.id} not loaded: ${failed.reason}`);
    return this.kernelInstance;
  }

  /** Packages oclif knows about (core, installed, linked) that may carry a factorly plugin. */
  protected pluginSources(): PluginSource[] {
    return this.config.getPluginsList().map((plugin) => ({
      name: plugin.name,
      version: plugin.version,
      root: plugin.root,
      kind: plugin.type === 'user' || plugin.type === 'link' ? plugin.type : 'core',
      manifest: (plugin.pjson as { factorly?: unknown }).factorly,
    }));
  }

  protected warnLine(message: string): void {
    process.stderr.write(`warning: ${printableText(message)}\n`);
  }

  /**
   * A tool's result for a person: the output to stdout (exact when piped, for scripts; made
   * printable on a terminal), diagnostics and the error to stderr, always printable.
   */
  protected writeOutcome(outcome: { output: string; diagnostics?: string; error?: string }): void {
    process.stdout.write(process.stdout.isTTY ? printableText(outcome.output) : outcome.output);
    if (outcome.diagnostics) process.stderr.write(printableText(outcome.diagnostics));
    if (outcome.error) process.stderr.write(`${printableText(outcome.error.replace(/\n$/, ''))}\n`);
  }

  protected writeJson(value: unknown): void {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  }

  async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<void> {
    if (error instanceof Errors.ExitError) throw error;
    if (FactorlyError.isInstance(error)) {
      process.stderr.write(`Error: ${printableText(error.message)}\n`);
      this.exit(error.exitCode);
    }
    if (error.oclif?.exit !== undefined) {
      process.stderr.write(`Error: ${printableLine(firstLine(error.message))}\n`);
      this.exit(error.oclif.exit);
    }
    if (/^MDB_[A-Z_]+:/.test(messageOf(error))) {
      // lmdb found damage past the pages checked before opening: the log could not be read (not "tampered").
      process.stderr.write(`Error: the event log could not be read: ${printableLine(messageOf(error))}\n`);
      this.exit(2);
    }
    process.stderr.write(`Error: ${printableText(messageOf(error))}\n`);
    if (process.env.FACTORLY_DEBUG) process.stderr.write(`${printableText(error.stack ?? '')}\n`);
    this.exit(1);
  }

  async finally(error: Error | undefined): Promise<void> {
    const failures = (await this.kernelInstance?.stop()) ?? [];
    for (const failure of failures) this.warnLine(`while stopping: ${failure}`);
    await super.finally(error);
  }
}

function firstLine(message: string): string {
  return message.split('\n').find((line) => line.trim() !== '')?.trim() ?? message;
}
