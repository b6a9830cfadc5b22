import { FactorlyError } from '../kernel/base/errors.js';
import type { InterfaceOptions } from '../kernel/contracts/extensions.js';
import type { Kernel } from '../kernel/kernel.js';

/**
 * Runs the interface registered under `name` until it ends by itself or the process gets SIGINT or
 * SIGTERM; either signal lets in-flight calls finish (the interface resolves once they have), after
 * which the command's `finally` stops the kernel and so flushes the log. A second signal exits at once.
 */
/** The package that ships the `mcp` interface, named when it is missing. */
export const MCP_PLUGIN = '@factorly/plugin-interface-mcp';

export async function runInterface(kernel: Kernel, name: string, options: InterfaceOptions, pluginHint: string): Promise<void> {
  const iface = kernel.interfaces.get(name);
  if (!iface) {
    const installed = kernel.interfaces.keys();
    const known = installed.length > 0 ? ` (installed: ${installed.join(', ')})` : '';
    throw new FactorlyError('PROVIDER_MISSING', `no "${name}" interface is installed${known}; it comes with ${pluginHint}`);
  }
  // Calls a crashed process left open are marked before anyone is shown the log.
  await kernel.recover();
  kernel.checkpoints.keepSigning();
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stop.signal.aborted) process.exit(130);
    process.stderr.write(`factorly: ${signal} received, finishing in-flight calls (again to quit now)\n`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await iface.serve(options, stop.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
