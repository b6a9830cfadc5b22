import {
  bundledBlueprints,
  describeBlueprint,
  installBlueprint,
  installedBlueprints,
  uninstallBlueprint,
} from './install.js';
import { planBlueprint } from './plan.js';
import { parseSets } from './text.js';
import type { BlueprintRequest } from '../../editing/contracts.js';
import { importOpenApi } from '../openapi/import.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { HostServices } from '../../plugins/host-services.js';

type BlueprintMembers = Pick<
  HostServices,
  'blueprints' | 'blueprint' | 'planBlueprint' | 'installBlueprint' | 'uninstallBlueprint' | 'importSpec'
>;

/**
 * The blueprint commands' functions for an interface (the web UI's Blueprints and Import pages),
 * bound to the running kernel: the same plan, install and uninstall as `factorly blueprint` and
 * `tools import openapi`. A change is served at once (the config watcher would notice it too).
 * Sources are bundled names or texts: a path is the project's own folder's.
 */
export function blueprintServices(kernel: Kernel): BlueprintMembers {
  const where = () => ({ cwd: kernel.paths.baseDir });
  return {
    blueprints: () => Promise.resolve({ installed: installedBlueprints(kernel), bundled: bundledBlueprints(kernel) }),
    blueprint: (name) => describeBlueprint(kernel, name),
    planBlueprint: async (request) => {
      await kernel.reload();
      return planBlueprint(kernel, checked(request), where());
    },
    installBlueprint: async (request, keys) => {
      await kernel.reload();
      const result = await installBlueprint(kernel, await planBlueprint(kernel, checked(request), where()), keys);
      await kernel.reload();
      return result;
    },
    uninstallBlueprint: async (name) => {
      const removed = await uninstallBlueprint(kernel, name);
      await kernel.reload();
      return removed;
    },
    importSpec: (source, options) => importOpenApi(source, options, where()),
  };
}

/** A request's `set` values checked as `--set` is (known keys, http(s) URLs). */
function checked(request: BlueprintRequest): BlueprintRequest {
  const pairs = Object.entries(request.set ?? {}).map(([key, value]) => `${key}=${value}`);
  return { ...request, set: parseSets(pairs) };
}
