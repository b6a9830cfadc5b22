import { FactorlyError } from '../base/errors.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Recorded } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { MemoryEventLog } from '../events/memory-log.js';
import type { CallOutcome } from '../contracts/gateway.js';
import type { Params } from '../events/catalog.js';
import { lateHostServices } from '../cli/host-services.js';
import { createKernel, type Kernel } from '../kernel/kernel.js';
import { HostTokens } from '../plugins/plugin-tokens.js';
import type { PluginDefinition } from '../plugins/define-plugin.js';
import type { LoadablePlugin } from '../plugins/host.js';
import type { PluginSource } from '../plugins/manifest.js';

export interface TestKernelOptions {
  /** Official plugins to load as installed with factorly, by id (`provider-cli`, `shadow`, `vault`, …). Default: `provider-cli`. */
  official?: readonly string[];
  /** The project folder; default: a new temp folder, removed by `stop()`. */
  root?: string;
  /** Other files of the project (paths relative to its root), written before the kernel starts. */
  files?: Record<string, string>;
  /**
   * An event log to use instead of a fresh in-memory one (an `LmdbEventLog` over a temp file, to
   * test with the real store), or `'project'`: the project's own LMDB file, opened as the CLI opens it.
   */
  log?: EventLog | 'project';
}

/** A kernel over a project of its own: use it, then `stop()` it. */
export interface TestKernel {
  kernel: Kernel;
  log: EventLog;
  root: string;
  /** Every event of the log, in order. */
  events(): Promise<Recorded[]>;
  /** Calls a tool through the whole pipeline (`iface: cli` unless given). */
  call(tool: string, params?: Params, iface?: string): Promise<CallOutcome>;
  /** Stops the kernel and removes the project folder when this made it. */
  stop(): Promise<void>;
}

/**
 * A real kernel (the call pipeline, the shadow gate, the config loader) over a project whose
 * `.factorly/factorly.yaml` is `yaml`, with the plugins under test given as values and official
 * plugins loaded as factorly installs them. The log is in memory unless `options.log` says otherwise.
 */
export async function startTestKernel(
  yaml: string,
  plugins: readonly PluginDefinition[] = [],
  options: TestKernelOptions = {},
): Promise<TestKernel> {
  const made = options.root === undefined;
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'factorly-test-'));
  for (const [path, text] of Object.entries({ ...options.files, '.factorly/factorly.yaml': yaml })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const given = options.log === 'project' ? undefined : (options.log ?? new MemoryEventLog());
  const remove = () => made && rmSync(root, { recursive: true, force: true });
  let kernel: Kernel;
  // As the CLI does: the host's audit queries, promotion and editing, for interfaces that use them.
  const host = lateHostServices();
  try {
    kernel = await createKernel({
      cwd: root,
      globalDir: join(root, '.no-global'),
      log: given,
      plugins: officialPlugins(options.official ?? ['provider-cli']),
      inlinePlugins: plugins.map(inline),
      hostTokens: [[HostTokens.Services, host.services]],
    });
  } catch (error) {
    remove();
    throw error;
  }
  host.bind(kernel);
  const log = given ?? kernel.log();
  return {
    kernel,
    log,
    root,
    events: async () => {
      const out: Recorded[] = [];
      for await (const event of log.read()) out.push(event);
      return out;
    },
    call: (tool, params = {}, iface = 'cli') => kernel.pipeline.call({ tool, params, iface }),
    stop: async () => {
      await kernel.stop();
      remove();
    },
  };
}

/** A plugin given as a value, as the host loads it. */
export function inline(definition: PluginDefinition): LoadablePlugin {
  return {
    definition,
    source: { name: definition.id, version: '0.0.0', root: `inline:${definition.id}`, kind: 'builtin' },
  };
}

const require = createRequire(import.meta.url);

/** The official plugins by id, found as installed next to factorly (`@factorly/plugin-<id>`). */
export function officialPlugins(ids: readonly string[]): PluginSource[] {
  return ids.map((id) => {
    const name = `@factorly/plugin-${id}`;
    let file: string;
    try {
      file = require.resolve(`${name}/package.json`);
    } catch {
      throw new FactorlyError(
        'PLUGIN_DEPENDENCY',
        `official plugin "${id}" is not installed with this factorly (no package ${name})`,
      );
    }
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version: string; factorly?: unknown };
    return { name, version: pkg.version, root: dirname(file), kind: 'core', manifest: pkg.factorly };
  });
}
