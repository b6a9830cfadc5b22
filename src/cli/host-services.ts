import { matches, recentCalls } from '../events/audit-query.js';
import { callTree } from '../events/call-tree.js';
import { dashboardFigures } from '../events/dashboard-figures.js';
import { fold } from '../events/projection.js';
import { ProjectionFollower } from '../events/projection-follower.js';
import { auditProjection } from '../events/projections/audit.js';
import { dashboardProjection } from '../events/projections/dashboard.js';
import { sessionsProjection } from '../events/projections/sessions.js';
import { statsProjection } from '../events/projections/stats.js';
import { verifyChain } from '../events/verify.js';
import { FactorlyError } from '../kernel/base/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { HostServices } from '../plugins/host-services.js';
import { planPromotion, promote } from '../kernel/promote.js';
import { secretReferences } from '../kernel/secret-scope.js';
import { editableTool, saveToolEdit } from '../kernel/tool-edit.js';

const MEMBERS = [
  'recentCalls', 'call', 'matches', 'callTree', 'stats', 'dashboard', 'agents', 'secretUses', 'verify',
  'planPromotion', 'promote', 'editableTool', 'saveToolEdit',
] as const satisfies readonly (keyof HostServices)[];
// Fails to compile when a member of HostServices is missing above.
const EVERY_MEMBER: Exclude<keyof HostServices, (typeof MEMBERS)[number]> extends never ? true : never = true;
void EVERY_MEMBER;

/**
 * The `HostServices` token's value: handed to plugins when the kernel is made, usable once it is
 * built and `bind` has been called. The log is opened on first use, so a command that never uses
 * them (most do not) never touches it.
 */
export function lateHostServices(): { services: HostServices; bind(kernel: Kernel): void } {
  let kernel: Kernel | undefined;
  let made: HostServices | undefined;
  const real = (): HostServices => {
    if (!kernel) throw new FactorlyError('LIFECYCLE', 'the host services are usable once the kernel is ready');
    return (made ??= hostServices(kernel));
  };
  // Each member forwards to the real services (an object, not a proxy: nothing else about it looks callable).
  const services = Object.fromEntries(MEMBERS.map((name) => [name, (...args: never[]) => (real()[name] as (...a: never[]) => unknown)(...args)])) as unknown as HostServices;
  return { services, bind: (ready) => void (kernel = ready) };
}

/** The kernel's audit queries, promotion and tool editing, bound for an interface (the same functions the CLI runs). */
export function hostServices(kernel: Kernel): HostServices {
  const log = () => kernel.log();
  // Folded in this process from the log, then advanced by what was appended since each read.
  const dashboard = new ProjectionFollower(log(), dashboardProjection);
  const sessions = new ProjectionFollower(log(), sessionsProjection);
  return {
    recentCalls: (filter, limit) => recentCalls(log(), filter, limit),
    call: async (callId) => fold(await log().readCall(callId), auditProjection).byId.get(callId),
    matches,
    callTree: (callId) => callTree(log(), callId),
    // From the persisted projection (a copy: the log keeps folding its own).
    stats: async () => structuredClone((await log().project(statsProjection).current()).state),
    dashboard: async (range) => dashboardFigures((await dashboard.current()).state, range, Date.now()),
    agents: async () => (await sessions.current()).state,
    secretUses: () => {
      const uses = new Map<string, string[]>();
      for (const tool of kernel.config.tools) {
        for (const ref of secretReferences([tool.spec, tool.parameters.map((p) => p.default)])) uses.set(ref, [...(uses.get(ref) ?? []), tool.name]);
      }
      return uses;
    },
    verify: async () => verifyChain(log().read(), await log().attestedHead?.()),
    planPromotion: (request) => planPromotion(kernel, request),
    promote: async (request) => {
      const plan = await promote(kernel, request);
      // Serve the new tool now rather than when the config watcher notices the file.
      await kernel.reload();
      return plan;
    },
    // The edit page works on the files as they are now, hand edits included.
    editableTool: async (name) => {
      await kernel.reload();
      return editableTool(kernel, name);
    },
    saveToolEdit: async (name, edit) => {
      await kernel.reload();
      return saveToolEdit(kernel, name, edit);
    },
  };
}
