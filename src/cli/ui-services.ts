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
import type { UiServices } from '../kernel/contracts/ui-services.js';
import type { Kernel } from '../kernel/kernel.js';
import { planPromotion, promote } from '../kernel/promote.js';
import { secretReferences } from '../kernel/secret-scope.js';
import { editableTool, saveToolEdit } from '../kernel/tool-edit.js';

/** The kernel's audit queries and promotion, bound for the web UI (the same functions the CLI runs). */
export function uiServices(kernel: Kernel): UiServices {
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
