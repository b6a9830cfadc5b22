import { FactorlyError } from '../base/errors.js';
import type { InterfaceOptions } from '../contracts/extensions.js';
import type { Kernel } from '../kernel/kernel.js';

/** The package that ships the `mcp` interface, named when it is missing. */
export const MCP_PLUGIN = '@factorly/plugin-interface-mcp';

/** The typed interface options (`InterfaceOptions`), each with the flag that sets it. */
const TYPED_OPTIONS: Readonly<Record<string, string>> = {
  transport: '--port (http) or none (stdio)',
  host: '--host',
  port: '--port',
  token: '--http-token',
  allowedOrigins: '--allowed-origin',
  allowedHosts: '--allowed-host',
  idleMs: '--session-idle',
  codeMode: '--code-mode',
  maxMessageBytes: '--max-message-size',
  open: '--open',
  mirror: 'factorly wrap',
  version: 'none (factorly sets it)',
};

/**
 * `--set key=value` pairs as interface options: a value that parses as JSON is that value, else the
 * string. A key of a typed option is refused (its flag sets it, checked), so its type always holds.
 */
export function interfaceSettings(pairs: readonly string[]): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new FactorlyError('USAGE', `--set ${JSON.stringify(pair)} must be key=value`);
    const key = pair.slice(0, at);
    if (Object.hasOwn(TYPED_OPTIONS, key))
      throw new FactorlyError('USAGE', `--set ${JSON.stringify(pair)}: "${key}" is set by ${TYPED_OPTIONS[key]}`);
    settings[key] = parseLoosely(pair.slice(at + 1));
  }
  return settings;
}

function parseLoosely(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Runs the interface registered under `name` until it ends by itself or the process gets SIGINT or
 * SIGTERM; either signal lets in-flight calls finish (the interface resolves once they have), after
 * which the command's `finally` stops the kernel and so flushes the log. A second signal exits at once.
 */

export async function runInterface(
  kernel: Kernel,
  name: string,
  options: InterfaceOptions,
  pluginHint: string,
): Promise<void> {
  const iface = kernel.interfaces.get(name);
  if (!iface) {
    const installed = kernel.interfaces.keys();
    const known = installed.length > 0 ? ` (installed: ${installed.join(', ')})` : '';
    throw new FactorlyError(
      'INTERFACE_MISSING',
      `no "${name}" interface is installed${known}; it comes with ${pluginHint}`,
    );
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
